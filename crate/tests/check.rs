//! The exhaustive checker (`election_lab::check`): verdicts, shortest counterexamples that
//! replay in the simulator, and a reachable-state count computed by hand.

#[path = "common/toy.rs"]
mod toy;
use election_lab::check::{check, Bounds, Checker, Move, Verdict};
use election_lab::engine::Engine;
use election_lab::error::ScenarioError;
use election_lab::meta::{self, Faults, Kind, Property};
use election_lab::protocol::{Config, Ctx, Params, Protocol, View};
use election_lab::trace::Trace;
use election_lab::{Action, NodeId, Scenario};
use toy::{NoTimer, Ping, Toy, TOY_KINDS, TOY_PROPERTY};

fn scenario(json: &str) -> Scenario {
    Scenario::from_json(json).expect("a valid scenario")
}

const RAFT3: &str = r#"{"algorithm":"raft","nodes":[1,2,3],"seed":1,"heartbeats":{"interval":3,"timeout":12}}"#;
const BULLY3: &str =
    r#"{"algorithm":"bully","nodes":[1,2,3],"seed":1,"initial_leader":3,"heartbeats":{"interval":2,"timeout":10}}"#;

/// Raft's election safety, every schedule of 3 nodes with up to 2 crashes and 1 partition, to
/// a stated depth (terms grow without bound, so the whole space is infinite).
#[test]
fn raft_one_leader_per_term_holds_to_depth_7_with_two_crashes_and_a_partition() {
    let bounds = Bounds { crashes: 2, partitions: 1, depth: Some(7), ..Bounds::default() };
    let r = check(&scenario(RAFT3), "two-leaders-in-term", bounds, false).unwrap();
    eprintln!("{}", r.sentence());
    assert!(matches!(r.verdict, Verdict::Holds { complete: false }), "{}", r.sentence());
    assert_eq!(r.depth, 7);
    assert!(r.states > 10_000, "{} states", r.states);
    assert!(r.sentence().contains("no violation: all"), "{}", r.sentence());
    // Crashes were explored: no node can be chosen twice per term, and the rules of a crash
    // (a lonely candidate retrying) fired.
    assert!(r.coverage.iter().any(|&(k, _)| k == "raft.note.win"));
}

/// Every reachable world of the same bounded problem is reached with no partition and no
/// crash, too, and the same depth gives fewer states.
#[test]
fn fewer_faults_give_fewer_states() {
    let few =
        check(&scenario(RAFT3), "two-leaders-in-term", Bounds { depth: Some(7), ..Bounds::default() }, false).unwrap();
    let more = check(
        &scenario(RAFT3),
        "two-leaders-in-term",
        Bounds { crashes: 1, depth: Some(7), ..Bounds::default() },
        false,
    )
    .unwrap();
    assert!(few.states < more.states, "{} vs {}", few.states, more.states);
}

/// The brute force: every schedule of forced deliveries and timers (no faults) of length
/// `len`, each replayed from the start in the simulator; whether one breaks `property`.
fn brute_force_breaks(s: &Scenario, property: &str, len: usize) -> bool {
    fn choices(e: &Engine) -> Vec<Action> {
        let mut out: Vec<Action> = e.in_flight().map(|(id, _)| Action::Deliver(id)).collect();
        for &node in &e.scenario().nodes {
            if e.is_up(node) != Some(true) {
                continue;
            }
            for (_, timer) in e.timers_at(node) {
                out.push(Action::Fire { node, timer });
            }
        }
        out
    }
    fn go(s: &Scenario, prefix: &mut Vec<Action>, left: usize, property: &str) -> bool {
        let mut e = Engine::new(s.clone()).unwrap();
        for a in prefix.iter() {
            let now = e.now();
            e.apply_at(a.clone(), now).unwrap();
            e.step();
        }
        if e.violations().iter().any(|v| v.kind == property) {
            return true;
        }
        if left == 0 {
            return false;
        }
        for a in choices(&e) {
            prefix.push(a);
            let hit = go(s, prefix, left - 1, property);
            prefix.pop();
            if hit {
                return true;
            }
        }
        false
    }
    go(s, &mut Vec::new(), len, property)
}

/// Bully's split brain: the checker's counterexample is as short as the shortest a brute-force
/// enumeration of schedules finds, and its trace, replayed, opens at the violation.
#[test]
fn bully_split_brain_counterexample_is_shortest_and_replays() {
    let s = scenario(BULLY3);
    let r = check(&s, "split-brain", Bounds::default(), false).unwrap();
    let Verdict::Violated(c) = &r.verdict else { panic!("{}", r.sentence()) };
    let k = c.moves.len();
    assert!(c.replayed);
    // No shorter schedule breaks it; one of this length does.
    for len in 0..k {
        assert!(!brute_force_breaks(&s, "split-brain", len), "a schedule of {len} moves breaks it");
    }
    assert!(brute_force_breaks(&s, "split-brain", k));
    // The trace replays: the run opened from it stands at the violating step and shows it.
    let trace = Trace::from_value(&c.trace).unwrap();
    let e = Engine::from_trace(trace).unwrap();
    assert_eq!(e.cursor(), c.step);
    let v = e.violations().iter().find(|v| v.kind == "split-brain").expect("the violation replays");
    assert_eq!(v.step, c.step);
    assert_eq!(v.nodes, c.nodes);
}

/// With a crash allowed, Bully's split brain needs no early timeout on a live leader's
/// follower only: the verdict is still a violation, never longer than without the crash.
#[test]
fn more_faults_never_lengthen_the_shortest_counterexample() {
    let s = scenario(BULLY3);
    let plain = check(&s, "split-brain", Bounds::default(), false).unwrap();
    let crash = check(&s, "split-brain", Bounds { crashes: 1, recoveries: 1, ..Bounds::default() }, false).unwrap();
    let (Verdict::Violated(a), Verdict::Violated(b)) = (&plain.verdict, &crash.verdict) else { panic!() };
    assert!(b.moves.len() <= a.moves.len());
    assert!(b.replayed);
}

/// Bad requests are refused by name.
#[test]
fn unknown_properties_and_unmodelled_scenarios_are_refused() {
    let e = Checker::new(&scenario(RAFT3), "lease-overlap", Bounds::default()).err().unwrap();
    assert!(e.to_string().starts_with("property"), "{e}");
    let fenced = scenario(
        r#"{"algorithm":"bully","nodes":[1,2,3],"initial_leader":3,"fencing":{"writes":[{"at":3,"node":3,"value":1}]}}"#,
    );
    let e = Checker::new(&fenced, "split-brain", Bounds::default()).err().unwrap();
    assert!(e.to_string().starts_with("fencing"), "{e}");
}

// ----- the toy protocol (tests/common/toy.rs), its reachable states counted by hand -----

/// n nodes send m = n(n−1) pings, each on its own link: a state is which of them have arrived,
/// so 2^m states. Allowing one to be lost: a world does not remember *which* ping was lost, only
/// which are gone (the set G, delivered or lost) and each node's count; with the loss, one node d
/// counts one fewer than its gone pings, so d has one of its n−1 incoming pings in G. States:
/// 2^m with no loss, plus n·(2^m − 2^(m−(n−1))) with one.
#[test]
fn a_toy_protocol_reaches_exactly_the_hand_counted_states() {
    for n in 2..=3u32 {
        let ids: Vec<NodeId> = (1..=n).collect();
        let m = n * (n - 1);
        let cfg = || Config::new(ids.clone(), None, None, (1, 1));
        let r = Checker::for_protocol(Toy, cfg(), &TOY_PROPERTY, Bounds::default()).run();
        assert!(matches!(r.verdict, Verdict::Holds { complete: true }), "{}", r.sentence());
        assert_eq!(r.states, 1 << m, "n = {n}");
        let r = Checker::for_protocol(Toy, cfg(), &TOY_PROPERTY, Bounds { drops: 1, ..Bounds::default() }).run();
        let lossy = n as u64 * ((1u64 << m) - (1u64 << (m - (n - 1))));
        assert_eq!(r.states, (1u64 << m) + lossy, "n = {n}, one loss");
        assert!(r.sentence().contains("exhausted: the whole reachable space is"), "{}", r.sentence());
    }
}

// ----- mutants: deliberately broken variants the checker must catch -----

/// A Raft node that grants a second vote in a term: two leaders in one term, within a few
/// moves, replayed in the simulator; the true Raft holds at the same depth.
#[test]
fn the_double_voting_raft_mutant_is_caught() {
    let bounds = Bounds { depth: Some(8), ..Bounds::default() };
    let mutant = scenario(
        r#"{"algorithm":"raft","nodes":[1,2,3],"seed":1,"heartbeats":{"interval":3,"timeout":12},"params":{"_mutant":"double-vote"}}"#,
    );
    let r = check(&mutant, "two-leaders-in-term", bounds.clone(), false).unwrap();
    let Verdict::Violated(c) = &r.verdict else { panic!("{}", r.sentence()) };
    assert!(c.replayed, "{}", r.sentence());
    assert!(c.moves.len() <= 8);
    let r = check(&scenario(RAFT3), "two-leaders-in-term", bounds, false).unwrap();
    assert!(matches!(r.verdict, Verdict::Holds { .. }), "{}", r.sentence());
}

/// A Paxos acceptor that forgets its promise: a value chosen twice; the true Paxos holds on
/// the same bounds.
#[test]
fn the_promise_forgetting_paxos_mutant_is_caught() {
    let bounds = Bounds { depth: Some(14), max_states: 400_000, ..Bounds::default() };
    let json = |extra: &str| {
        format!(
            r#"{{"algorithm":"paxos","nodes":[1,2,3],"seed":1,"schedule":[{{"at":0,"start":1}},{{"at":0,"start":3}}]{extra}}}"#
        )
    };
    let mutant = scenario(&json(r#","params":{"_mutant":"forget-promise"}"#));
    let r = check(&mutant, "chosen-once", bounds.clone(), false).unwrap();
    eprintln!("{}", r.sentence());
    let Verdict::Violated(c) = &r.verdict else { panic!("{}", r.sentence()) };
    assert!(c.replayed, "{}", r.sentence());
    let r = check(&scenario(&json("")), "chosen-once", Bounds { depth: Some(c.moves.len() as u32), ..bounds }, false)
        .unwrap();
    eprintln!("{}", r.sentence());
    assert!(!matches!(r.verdict, Verdict::Violated(_)), "{}", r.sentence());
}

// ----- the command line -----

const BIN: &str = env!("CARGO_BIN_EXE_election-lab");

fn cli(args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(BIN).args(args).output().expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

/// `check-model` exits 1 with a counterexample whose trace `run` replays to the violation, 0
/// with a proof, 2 on a property the algorithm does not claim.
#[test]
fn check_model_cli_verdicts_exit_codes_and_a_trace_run_replays() {
    let dir = std::env::temp_dir().join(format!("election-lab-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bully = dir.join("bully.json");
    std::fs::write(&bully, BULLY3).unwrap();
    let out = dir.join("cx.json");
    let (code, stdout, stderr) =
        cli(&["check-model", bully.to_str().unwrap(), "--property", "split-brain", "--out", out.to_str().unwrap()]);
    assert_eq!(code, 1, "{stderr}");
    let summary: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(summary["verdict"], "violated");
    assert_eq!(summary["counterexample"]["replayed"], true);
    assert!(stderr.contains("rules fired:") && stderr.contains("rules never fired:"), "{stderr}");
    let (code, stdout, stderr) = cli(&["run", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let run: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let v = &run["violations"][0];
    assert_eq!(v["kind"], "split-brain");
    assert_eq!(v["step"], summary["counterexample"]["step"]);

    let raft = dir.join("raft.json");
    std::fs::write(&raft, RAFT3).unwrap();
    let (code, stdout, stderr) = cli(&[
        "check-model",
        raft.to_str().unwrap(),
        "--property",
        "two-leaders-in-term",
        "--depth",
        "6",
        "--crashes",
        "1",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("no violation: all") && stderr.contains("depth ≤ 6, ≤ 1 crash"), "{stderr}");
    let summary: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(summary["verdict"], "no-violation");
    let (code, _, stderr) = cli(&["check-model", raft.to_str().unwrap(), "--property", "chosen-once"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--property") && stderr.contains("not a property it claims"), "{stderr}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A *sometimes* property: Raft reaches a state where every live node names the same live
/// leader; the witness is a shortest path (no path one move shorter has it) and replays to
/// that state.
#[test]
fn sometimes_a_leader_is_agreed_with_a_shortest_witness_that_replays() {
    let r = check(&scenario(RAFT3), "sometimes:leader-agreed", Bounds::default(), false).unwrap();
    let Verdict::Violated(w) = &r.verdict else { panic!("{}", r.sentence()) };
    assert!(r.sentence().contains("witnessed after"), "{}", r.sentence());
    assert!(w.replayed, "{}", r.sentence());
    let short = check(
        &scenario(RAFT3),
        "sometimes:leader-agreed",
        Bounds { depth: Some(w.moves.len() as u32 - 1), ..Bounds::default() },
        false,
    )
    .unwrap();
    assert!(matches!(short.verdict, Verdict::Holds { .. }), "{}", short.sentence());
    assert!(short.sentence().contains("never"), "{}", short.sentence());
}

// ----- the forced-step interventions a counterexample replays with -----

/// `deliver` and `fire` are refused by name when there is nothing to deliver or fire, and in a
/// scenario's schedule; a trace of forced steps seeks to each of its steps, back and forth.
#[test]
fn deliver_and_fire_interventions_are_checked_and_seek_step_by_step() {
    let mut e = Engine::new(scenario(BULLY3)).unwrap();
    let err = e.apply(Action::Deliver(99)).unwrap_err().to_string();
    assert!(err.contains("intervention.deliver") && err.contains("#99"), "{err}");
    let err = e.apply(Action::Fire { node: 1, timer: "Nope".into() }).unwrap_err().to_string();
    assert!(err.contains("intervention.fire") && err.contains("Nope"), "{err}");
    let err = Scenario::from_json(r#"{"algorithm":"bully","nodes":[1,2],"schedule":[{"at":1,"deliver":0}]}"#)
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("schedule[0]"), "{err}");

    let r = check(&scenario(BULLY3), "split-brain", Bounds::default(), false).unwrap();
    let Verdict::Violated(c) = &r.verdict else { panic!("{}", r.sentence()) };
    let mut e = Engine::from_trace(Trace::from_value(&c.trace).unwrap()).unwrap();
    let end = e.cursor();
    assert_eq!(end, c.moves.len() as u64, "one step per forced move");
    for target in (0..=end).rev().chain(0..=end) {
        e.seek(target);
        assert_eq!(e.cursor(), target);
        let broken = e.violations().iter().any(|v| v.kind == "split-brain");
        assert_eq!(broken, target == end, "at step {target}");
    }
    // Each forced step is the move it names: the first fires N1's leader timeout.
    assert!(matches!(&c.moves[0], Move::Fire { node: 1, .. }));
    let first = e.interventions()[0].action.clone();
    assert_eq!(first, Action::Fire { node: 1, timer: "LeaderTimeout".into() });
}

/// The scenario's schedule runs in the simulator's order (by time), whatever the order it is
/// listed in: Bully's leader crash then a start finds the same shortest split brain, replayed.
#[test]
fn the_schedule_runs_in_time_order() {
    let sorted = r#"{"algorithm":"bully","nodes":[1,2,3],"initial_leader":3,"schedule":[{"at":0,"crash":3},{"at":1,"start":1}]}"#;
    let listed = r#"{"algorithm":"bully","nodes":[1,2,3],"initial_leader":3,"schedule":[{"at":1,"start":1},{"at":0,"crash":3}]}"#;
    let a = check(&scenario(sorted), "split-brain", Bounds::default(), false).unwrap();
    let b = check(&scenario(listed), "split-brain", Bounds::default(), false).unwrap();
    let (Verdict::Violated(x), Verdict::Violated(y)) = (&a.verdict, &b.verdict) else { panic!("{}", a.sentence()) };
    assert_eq!((x.moves.len(), a.states), (y.moves.len(), b.states));
    assert!(x.replayed && y.replayed);
    // The crash of the leader must come first: a start while N3 leads is answered by N3.
    assert_eq!(x.moves[0], Move::Scheduled(0));
}

/// An *eventually* property under weak fairness: on LeLann's ring every fair schedule agrees
/// (the whole reachable space, no faults); with one lost message the election can stop for
/// good, and the lasso says where (a path to a state with no move left), replayed move by move.
#[test]
fn eventually_a_leader_is_agreed_on_a_fair_ring_but_not_after_a_loss() {
    let ring = scenario(r#"{"algorithm":"lelann","nodes":[1,2,3],"schedule":[{"at":0,"start":1}]}"#);
    let r = check(&ring, "eventually:leader-agreed", Bounds::default(), false).unwrap();
    assert!(matches!(r.verdict, Verdict::Holds { complete: true }), "{}", r.sentence());
    assert!(r.sentence().contains("holds: every fair schedule"), "{}", r.sentence());
    let r = check(&ring, "eventually:leader-agreed", Bounds { drops: 1, ..Bounds::default() }, false).unwrap();
    let Verdict::Violated(c) = &r.verdict else { panic!("{}", r.sentence()) };
    assert_eq!(c.lasso, None, "a stuck state, not a loop");
    assert!(c.moves.iter().any(|m| matches!(m, Move::Lose { .. })));
    assert!(c.replayed);
    // A depth bound leaves an eventually property undecided.
    let r = check(&ring, "eventually:leader-agreed", Bounds { depth: Some(1), ..Bounds::default() }, false).unwrap();
    assert!(r.sentence().contains("not decided"), "{}", r.sentence());
}

/// Every node re-arms one timer forever and never names a leader: the one reachable state
/// loops on itself, and that loop is fair (each node's timer fires in it), so the lasso is a
/// loop through every node's timer.
#[test]
fn a_fair_loop_without_agreement_is_a_lasso() {
    struct Ticker;
    impl Protocol for Ticker {
        type State = u32;
        type Msg = Ping;
        type Timer = NoTimer;
        const KINDS: &'static [Kind] = TOY_KINDS;
        fn new(_: &Config, _: &Params) -> Result<Self, ScenarioError> {
            Ok(Ticker)
        }
        fn init(&self, ctx: &mut Ctx<Ping, NoTimer>) -> u32 {
            ctx.set_timer_after(NoTimer, 1);
            0
        }
        fn start(&self, _: &mut u32, _: &mut Ctx<Ping, NoTimer>) {}
        fn on_message(&self, _: &mut u32, _: NodeId, _: Ping, _: &mut Ctx<Ping, NoTimer>) {}
        fn on_timer(&self, _: &mut u32, _: NoTimer, ctx: &mut Ctx<Ping, NoTimer>) {
            ctx.set_timer_after(NoTimer, 1);
        }
        fn recover(&self, s: &u32, _: &mut Ctx<Ping, NoTimer>) -> u32 {
            *s
        }
        fn view(&self, _: &u32) -> View {
            View { role: "follower", ..View::default() }
        }
        fn inspect(&self, _: &u32) -> Vec<election_lab::field::Field> {
            vec![]
        }
    }
    static EVENTUALLY: Property =
        Property { id: election_lab::check::EVENTUALLY_AGREED, ..meta::single_leader(Faults::Any) };
    let cfg = Config::new(vec![1, 2], None, None, (1, 1));
    let r = Checker::for_protocol(Ticker, cfg, &EVENTUALLY, Bounds::default()).run();
    let Verdict::Violated(c) = &r.verdict else { panic!("{}", r.sentence()) };
    assert_eq!(r.states, 1);
    assert_eq!(c.lasso, Some(0), "{}", r.sentence());
    let fired: Vec<NodeId> =
        c.moves.iter().filter_map(|m| if let Move::Fire { node, .. } = m { Some(*node) } else { None }).collect();
    assert!(fired.contains(&1) && fired.contains(&2), "{:?}", c.moves);
    assert!(r.sentence().contains("loop of"), "{}", r.sentence());
}
