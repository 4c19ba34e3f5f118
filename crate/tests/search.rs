//! The counterexample search: the violations it must find, the properties it must not break
//! within its budget, the mutants it must catch, shrinking, determinism, and that its trace
//! opens at the violating step.

use election_lab::algorithm::Algorithm;
use election_lab::protocol::{Config, Ctx, Params, Protocol, View};
use election_lab::protocols::{paxos, raft};
use election_lab::run;
use election_lab::search::{FaultSet, Options, Phase, Search};
use election_lab::{presets, Action, Engine, NodeId, Scenario};
use std::marker::PhantomData;
use std::process::Command;

mod common;

fn preset(id: &str) -> Scenario {
    presets::find(id).unwrap_or_else(|| panic!("preset {id}")).scenario()
}

fn options(property: &str, faults: &str, seed: u64, budget_steps: u64) -> Options {
    Options {
        property: property.to_string(),
        faults: FaultSet::parse(faults).unwrap(),
        seed,
        budget_steps,
        ..Options::default()
    }
}

fn run_to_end(mut s: Search) -> Search {
    while !s.advance(50_000).finished() {}
    s
}

/// The trace opens at the violating step and its monitor shows the violation there.
fn assert_opens_at_violation(s: &Search) {
    let c = s.result().expect("a counterexample");
    let e = Engine::from_trace_json(&c.trace.to_string()).unwrap();
    assert_eq!(e.cursor(), c.step, "the trace opens at the violating step");
    let v = e.violations().last().expect("a violation at the cursor");
    assert_eq!((v.kind, v.step), (c.property.as_str(), c.step), "{v:?}");
}

#[test]
fn bully_split_brain_is_found_and_shrunk_to_one_partition() {
    let mut o = options("split-brain", "partition,heal,drop,delay", 1, 400_000);
    o.faults_per_schedule = (3, 4);
    let s = run_to_end(Search::new(preset("split-brain-bully"), o).unwrap());
    assert_eq!(s.progress().phase, Phase::Found);
    let c = s.result().unwrap();
    assert!(c.faults_found >= 3, "schedules carry 3 or 4 faults: {}", c.faults_found);
    assert!(c.interventions.len() < c.faults_found, "{} → {}", c.faults_found, c.interventions.len());
    assert_eq!(c.interventions.len(), 1, "{:?}", c.interventions);
    assert!(matches!(c.interventions[0].action, Action::Partition { .. }), "{:?}", c.interventions);
    assert_eq!(c.nodes.len(), 2, "two leaders: {:?}", c.nodes);
    assert_opens_at_violation(&s);
    // One step earlier there was one leader at most.
    let mut e = Engine::from_trace_json(&c.trace.to_string()).unwrap();
    e.seek(c.step - 1);
    assert!(e.frame().leaders.len() < 2, "{:?}", e.frame().leaders);
}

#[test]
fn the_lease_with_a_slow_holder_clock_overlaps() {
    let mut scenario = preset("lease-drift");
    scenario.schedule.clear();
    // Without faults the slow clock alone does no harm.
    let mut quiet = Engine::new(scenario.clone()).unwrap();
    quiet.run_to_end();
    assert!(quiet.violations().is_empty(), "{:?}", quiet.violations());
    let s = run_to_end(
        Search::new(scenario, options("lease-overlap", "crash,recover,partition,heal", 3, 400_000)).unwrap(),
    );
    assert_eq!(s.progress().phase, Phase::Found);
    assert_opens_at_violation(&s);
}

#[test]
fn the_token_ring_duplicates_its_token() {
    let s = run_to_end(
        Search::new(
            preset("token-ring-crash"),
            options("duplicate-token", "crash,recover,partition,heal,drop,delay", 5, 1_000_000),
        )
        .unwrap(),
    );
    assert_eq!(s.progress().phase, Phase::Found, "{:?}", s.progress());
    assert_opens_at_violation(&s);
}

#[test]
fn raft_paxos_and_zookeeper_keep_their_quorum_properties() {
    for (id, property) in [
        ("split-brain-raft", "two-leaders-in-term"),
        ("paxos-duel", "chosen-once"),
        ("split-brain-zookeeper", "two-leaders-in-term"),
    ] {
        let s = run_to_end(
            Search::new(preset(id), options(property, "crash,recover,partition,heal,drop,delay", 7, 300_000)).unwrap(),
        );
        let p = s.progress();
        assert_eq!(p.phase, Phase::Exhausted, "{id}: {:?}", s.result().map(|c| c.summary()));
        assert!(p.steps >= 300_000 && p.schedules > 10 && p.states > 10_000, "{id}: {p:?}");
    }
}

#[test]
fn two_leaders_at_once_on_an_algorithm_that_does_not_claim_it() {
    let scenario = preset("split-brain-gossip");
    let algorithm = election_lab::registry::find(&scenario.algorithm).unwrap();
    assert!(algorithm.property("split-brain").is_none());
    let s = run_to_end(Search::new(scenario, options("split-brain", "partition,heal", 2, 400_000)).unwrap());
    let c = s.result().expect("gossip elects a leader per side");
    let mut e = Engine::from_trace_json(&c.trace.to_string()).unwrap();
    assert_eq!(e.cursor(), c.step);
    assert!(e.frame().leaders.len() >= 2, "{:?}", e.frame().leaders);
    assert_eq!(e.frame().leaders, c.nodes);
    e.seek(c.step - 1);
    assert!(e.metrics().max_simultaneous_leaders < 2, "the first step with two leaders");
}

#[test]
fn no_leader_within_a_bound_after_the_last_fault() {
    let s = run_to_end(
        Search::new(preset("split-brain-raft"), options("no-leader-within:40", "crash,partition", 4, 400_000)).unwrap(),
    );
    let c = s.result().expect("a partition with no majority side, or a crashed majority, leaves Raft leaderless");
    let e = Engine::from_trace_json(&c.trace.to_string()).unwrap();
    let last = c.interventions.last().map_or(0, |i| i.time);
    assert_eq!(c.time, last + 40);
    assert!(e.now() <= c.time && e.frame().agreement.is_none(), "{:?}", e.frame().agreement);
    // No election ended after the last fault.
    assert!(e.elections().iter().all(|el| el.to < last), "{:?}", e.elections());
}

/// The adversarial timing behind FLP: with equal election timeouts every Raft node campaigns at
/// once, round after round, and splits the vote; randomized timeouts (the preset's) end it.
#[test]
fn raft_without_randomized_timeouts_never_elects_with_randomized_it_does() {
    let randomized = preset("raft-cold");
    let mut fixed = randomized.clone();
    let timeout = fixed.heartbeats.unwrap().timeout;
    fixed.params.insert("election_timeout".into(), serde_json::json!([timeout, timeout]));
    let o = options("no-leader-within:150", "delay", 0, 100_000);
    let s = run_to_end(Search::new(fixed, o.clone()).unwrap());
    let c = s.result().expect("split votes for ever");
    assert_eq!((c.faults_found, c.interventions.len()), (0, 0), "no fault needed");
    let e = Engine::from_trace_json(&c.trace.to_string()).unwrap();
    assert!(e.elections().is_empty() && e.frame().agreement.is_none());
    assert!(e.max_tally().iter().all(|&(_, t)| t < 3), "nobody ever held a quorum: {:?}", e.max_tally());
    let s = run_to_end(Search::new(randomized, o).unwrap());
    assert_eq!(s.progress().phase, Phase::Exhausted, "{:?}", s.result().map(|c| c.summary()));
}

#[test]
fn the_same_seed_and_step_budget_give_the_same_counterexample_in_any_slices() {
    let search = |seed, slice: u64| {
        let mut s = Search::new(
            preset("split-brain-bully"),
            options("split-brain", "crash,recover,partition,heal,drop,delay", seed, 400_000),
        )
        .unwrap();
        while !s.advance(slice).finished() {}
        (s.result().unwrap().trace.clone(), s.progress())
    };
    let (a, pa) = search(11, u64::MAX);
    let (b, pb) = search(11, 1);
    let (c, _) = search(11, 5_000);
    assert_eq!(a, b);
    assert_eq!(a, c);
    assert_eq!((pa.schedules, pa.states, pa.steps), (pb.schedules, pb.states, pb.steps));
    let (d, _) = search(12, u64::MAX);
    assert_ne!(a, d, "another seed draws other schedules");
}

#[test]
fn bad_properties_and_faults_are_named() {
    let err = |o: Options| Search::new(preset("split-brain-raft"), o).err().expect("refused").to_string();
    assert!(err(options("lease-overlap", "crash", 0, 10)).starts_with(
        "property: 'lease-overlap' is not a property raft has: two-leaders-in-term, split-brain, no-leader-within:T"
    ));
    assert!(err(options("no-leader-within:x", "crash", 0, 10)).starts_with("property: 'no-leader-within:x'"));
    assert!(err(options("no-leader-within:0", "crash", 0, 10)).starts_with("property:"));
    assert_eq!(
        FaultSet::parse("crash,melt").unwrap_err().to_string(),
        "faults: unknown fault 'melt' (expected some of crash, recover, partition, heal, drop, delay)"
    );
    assert_eq!(FaultSet::parse("").unwrap_err().to_string(), "faults: no fault kind given");
    let mut o = options("split-brain", "crash", 0, 10);
    o.faults_per_schedule = (1, 1_000_000_000);
    assert_eq!(err(o), "faults_per_schedule: at most 64 faults per schedule");
    // A bound far beyond any run is no overflow: the schedules stop at their history budget.
    let far = format!("no-leader-within:{}", u64::MAX);
    let mut o = options(&far, "partition", 0, 1);
    o.systematic_nodes = 0;
    let quiet =
        Scenario::from_json(r#"{"algorithm":"bully","nodes":[1,2,3],"schedule":[{"at":0,"start":1}]}"#).unwrap();
    let s = run_to_end(Search::new(quiet, o).unwrap());
    assert!(s.progress().schedules >= 1);
}

// ----- the order of simultaneous deliveries -----

#[test]
fn defer_delivers_a_message_after_the_others_due_at_its_tick() {
    let scenario = r#"{"algorithm":"bully","nodes":[1,2,3],"schedule":[{"at":0,"start":1}]}"#;
    let mut plain = Engine::from_json(scenario).unwrap();
    plain.run(1);
    let due: Vec<(u64, u64)> = plain.frame().messages.iter().map(|m| (m.id, m.deliver)).collect();
    assert_eq!(due.len(), 2, "two ELECTIONs due at one tick: {due:?}");
    assert_eq!(due[0].1, due[1].1);
    let (first, second) = (due[0].0, due[1].0);
    plain.run(2);
    assert_eq!([plain.record(2).unwrap().aux, plain.record(3).unwrap().aux], [first, second]);

    let mut e = Engine::from_json(scenario).unwrap();
    e.run(1);
    let now = e.now();
    e.apply_at(Action::Defer(first), now).unwrap();
    e.run(2);
    assert_eq!([e.record(2).unwrap().aux, e.record(3).unwrap().aux], [second, first]);
    assert_eq!(
        e.apply(Action::Defer(first)).unwrap_err().to_string(),
        format!("intervention.defer: message #{first} is not in flight")
    );
    // The trace carries it and replays it.
    e.run_to_end();
    let trace = e.trace_value();
    assert_eq!(trace["interventions"][0]["defer"], first);
    let mut back = Engine::from_trace_json(&trace.to_string()).unwrap();
    back.run_to_end();
    assert_eq!(back.trace_hash(), e.trace_hash());
    plain.run_to_end();
    assert_ne!(back.trace_hash(), plain.trace_hash());
}

#[test]
fn small_clusters_get_every_delivery_order_up_to_the_depth() {
    // Bully's worst case on 4 nodes: many ELECTIONs and OKs due at the same ticks.
    let scenario = Scenario::from_json(
        r#"{"algorithm":"bully","nodes":[1,2,3,4],"initial_leader":4,
            "schedule":[{"at":0,"crash":4},{"at":0,"start":1},{"at":0,"start":2},{"at":0,"start":3}]}"#,
    )
    .unwrap();
    let mut o = options("split-brain", "heal", 0, 20_000); // no fault applies: orders only
    o.systematic_depth = 3;
    o.systematic_branching = 2;
    let s = run_to_end(Search::new(scenario.clone(), o.clone()).unwrap());
    let p = s.progress();
    assert_eq!(p.phase, Phase::Exhausted, "{:?}", s.result().map(|c| c.summary()));
    assert!(p.orders_exhausted);
    assert_eq!(p.orders, 8, "2 × 2 × 2 orders at the first 3 choice points");
    // Larger clusters get none.
    o.systematic_nodes = 3;
    o.budget_steps = 10_000;
    let s = run_to_end(Search::new(scenario, o).unwrap());
    assert_eq!((s.progress().orders, s.progress().orders_exhausted), (0, false));
}

// ----- mutants: protocols with a bug the search must catch; not registered, so no scenario
// file or link can reach them, and the real protocols stay as they are -----

/// A real protocol `P` carrying bug `B`, which changes a node's state as each message arrives;
/// the rest is `P`'s own.
struct Mutant<P, B>(P, PhantomData<B>);

/// A mutant's bug: what it does to the state of a node that `msg` arrives at.
trait Bug<P: Protocol>: 'static {
    fn before(s: &mut P::State, msg: &P::Msg);
}

type CtxOf<'a, P> = Ctx<'a, <P as Protocol>::Msg, <P as Protocol>::Timer>;

impl<P: Protocol, B: Bug<P>> Protocol for Mutant<P, B> {
    type State = P::State;
    type Msg = P::Msg;
    type Timer = P::Timer;
    const KINDS: &'static [election_lab::meta::Kind] = P::KINDS;
    fn new(cfg: &Config, params: &Params) -> Result<Self, election_lab::ScenarioError> {
        P::new(cfg, params).map(|p| Mutant(p, PhantomData))
    }
    fn init(&self, ctx: &mut CtxOf<P>) -> P::State {
        self.0.init(ctx)
    }
    fn start(&self, s: &mut P::State, ctx: &mut CtxOf<P>) {
        self.0.start(s, ctx)
    }
    fn on_message(&self, s: &mut P::State, from: NodeId, msg: P::Msg, ctx: &mut CtxOf<P>) {
        B::before(s, &msg);
        self.0.on_message(s, from, msg, ctx)
    }
    fn on_timer(&self, s: &mut P::State, timer: P::Timer, ctx: &mut CtxOf<P>) {
        self.0.on_timer(s, timer, ctx)
    }
    fn recover(&self, crashed: &P::State, ctx: &mut CtxOf<P>) -> P::State {
        self.0.recover(crashed, ctx)
    }
    fn view(&self, s: &P::State) -> View {
        self.0.view(s)
    }
    fn inspect(&self, s: &P::State) -> Vec<election_lab::field::Field> {
        self.0.inspect(s)
    }
}

/// Raft whose nodes forget their vote whenever asked again in the same term.
struct DoubleVote;

impl Bug<raft::Raft> for DoubleVote {
    fn before(s: &mut raft::State, msg: &raft::Msg) {
        if let raft::Msg::RequestVote { term, .. } = msg {
            if *term == s.term && s.voted_for != Some(s.me) {
                s.voted_for = None; // the bug: a second vote in the same term
            }
        }
    }
}

static RAFT_DOUBLE_VOTE: Algorithm =
    Algorithm { build: run::build::<Mutant<raft::Raft, DoubleVote>>, ..raft::ALGORITHM };

/// Paxos whose acceptors forget their promise when an ACCEPT arrives.
struct Forgetful;

impl Bug<paxos::Paxos> for Forgetful {
    fn before(s: &mut paxos::State, msg: &paxos::Msg) {
        if let paxos::Msg::Accept { .. } = msg {
            s.promised = 0; // the bug: the promise is not kept
        }
    }
}

static PAXOS_FORGETFUL: Algorithm =
    Algorithm { build: run::build::<Mutant<paxos::Paxos, Forgetful>>, ..paxos::ALGORITHM };

/// The search finds the mutant's bug, and the same search on the real protocol finds nothing.
fn catches(mutant: &'static Algorithm, preset_id: &str, property: &str) {
    let o = options(property, "crash,recover,partition,heal,drop,delay", 9, 300_000);
    let s = run_to_end(Search::with_algorithm(mutant, preset(preset_id), o.clone()).unwrap());
    let c = s.result().unwrap_or_else(|| panic!("{property} broken by the mutant: {:?}", s.progress()));
    assert_eq!(c.property, property);
    // The trace replays on the mutant to the violation, at the step it opens at.
    let trace = election_lab::trace::Trace::from_value(&c.trace).unwrap();
    let mut e = Engine::with_algorithm(mutant, trace.scenario).unwrap();
    for iv in trace.interventions {
        e.seek(iv.step);
        e.apply_at(iv.action, iv.time.unwrap()).unwrap();
    }
    e.seek(trace.step.unwrap());
    assert_eq!(e.cursor(), c.step);
    assert_eq!(e.violations().last().map(|v| (v.kind, v.step)), Some((property, c.step)));
    assert_one_minimal(&s);
    assert_changes_are_said(&s, &preset(preset_id));
    let real = run_to_end(Search::new(preset(preset_id), o).unwrap());
    assert_eq!(real.progress().phase, Phase::Exhausted, "{:?}", real.result().map(|c| c.summary()));
}

/// The counterexample's schedule breaks the property, and no longer does without any one of its
/// faults, or with any one of its choice points back in the simulator's order (or one delivery
/// fewer deferred there): each tried in turn, re-run.
fn assert_one_minimal(s: &Search) {
    let c = s.result().unwrap();
    let plan = &c.plan;
    assert!(s.breaks(plan), "the shrunk schedule breaks it: {plan:?}");
    for i in 0..plan.faults.len() {
        let mut p = plan.clone();
        let gone = p.faults.remove(i);
        assert!(!s.breaks(&p), "still broken without fault {i} ({gone:?}): {plan:?}");
    }
    for i in (0..plan.order.len()).filter(|&i| plan.order[i] != 0) {
        for fewer in [0, plan.order[i] - 1] {
            let mut p = plan.clone();
            p.order[i] = fewer;
            assert!(!s.breaks(&p), "still broken with choice point {i} at {fewer}: {plan:?}");
        }
    }
}

/// Everything the trace runs with that the scenario did not is said, in the summary and the
/// trace: seed, latency, nodes, and the faults and deferrals found and kept.
fn assert_changes_are_said(s: &Search, base: &Scenario) {
    let c = s.result().unwrap();
    let ch = &c.changes;
    let trace = election_lab::trace::Trace::from_value(&c.trace).unwrap();
    let seed = (trace.scenario.seed != base.seed).then_some((base.seed, trace.scenario.seed));
    assert_eq!(ch.seed, seed);
    let latency = (trace.scenario.network.latency != base.network.latency)
        .then_some((base.network.latency, trace.scenario.network.latency));
    assert_eq!(ch.latency, latency);
    let removed: Vec<NodeId> = base.nodes.iter().copied().filter(|n| !trace.scenario.nodes.contains(n)).collect();
    assert_eq!(ch.removed, removed);
    let defers = trace.interventions.iter().filter(|iv| matches!(iv.action, Action::Defer(_))).count();
    assert_eq!(ch.deferrals.1, defers);
    assert_eq!(ch.faults, (c.faults_found, c.plan.faults.len()));
    assert_eq!(c.summary()["changes"], ch.to_value());
    assert_eq!(c.trace["search"]["changes"], ch.to_value());
    assert_eq!(election_lab::search::Changes::from_value(&ch.to_value()).as_ref(), Some(ch));
    let line = ch.describe(election_lab::meta::Lang::En);
    assert!(line.starts_with(&format!("faults {} → {}", ch.faults.0, ch.faults.1)), "{line}");
    if let Some((a, b)) = ch.seed {
        assert!(line.contains(&format!("seed {b} (the scenario's {a})")), "{line}");
    }
    if let Some((a, b)) = ch.latency {
        assert!(line.contains(&format!("latency [{}, {}] (the scenario's [{}, {}])", b.0, b.1, a.0, a.1)), "{line}");
    }
}

/// Even when the shrinking runs out of its budget of runs, the result is 1-minimal: its last
/// pass takes out faults and deferrals one at a time until none can go.
#[test]
fn shrinking_out_of_runs_still_ends_1_minimal() {
    let mut o = options("split-brain", "partition,heal,drop,delay", 1, 400_000);
    o.faults_per_schedule = (3, 4);
    o.shrink_runs = 1;
    let s = run_to_end(Search::new(preset("split-brain-bully"), o).unwrap());
    let c = s.result().expect("found");
    assert!(c.faults_found >= 3);
    assert_one_minimal(&s);
    assert_changes_are_said(&s, &preset("split-brain-bully"));
    for (mutant, id, property) in [
        (&RAFT_DOUBLE_VOTE, "split-brain-raft", "two-leaders-in-term"),
        (&PAXOS_FORGETFUL, "paxos-duel", "chosen-once"),
    ] {
        let mut o = options(property, "crash,recover,partition,heal,drop,delay", 9, 300_000);
        o.shrink_runs = 1;
        let s = run_to_end(Search::with_algorithm(mutant, preset(id), o).unwrap());
        assert!(s.result().is_some(), "{property}");
        assert_one_minimal(&s);
        assert_changes_are_said(&s, &preset(id));
    }
}

/// A recorded run is refused with the reason, whatever the window; and a search whose schedules
/// run no step at all (a window before the first event) still spends its budget and ends.
#[test]
fn a_recorded_run_is_refused_and_every_budget_ends() {
    for (id, property) in [("etcd-leader-killed", "split-brain"), ("zookeeper-leader-killed", "split-brain")] {
        for until in [None, Some(5000)] {
            let mut o = options(property, "crash,recover,partition,heal", 1, 10_000);
            o.until = until;
            let err = Search::new(preset(id), o).err().expect("refused").to_string();
            assert!(err.starts_with("algorithm: ") && err.contains("is a recorded run"), "{err}");
            assert!(err.contains("search its textbook model"), "{err}");
        }
    }
    // Raft with its first event past the window: every schedule runs 0 steps.
    let mut raft = preset("raft-cold");
    raft.params = serde_json::json!({"election_timeout": [500, 600]}).as_object().unwrap().clone();
    let mut o = options("two-leaders-in-term", "crash", 1, 50);
    o.until = Some(10);
    o.horizon = Some(5);
    let mut s = Search::new(raft, o).unwrap();
    for _ in 0..1000 {
        if s.advance(10).finished() {
            break;
        }
    }
    let p = s.progress();
    assert_eq!(p.phase, Phase::Exhausted, "{p:?}");
    assert_eq!(p.steps, 0, "no step was run: {p:?}");
    assert!(p.schedules >= 50, "each schedule spends the budget: {p:?}");
}

#[test]
fn a_raft_node_that_votes_twice_in_a_term_is_caught() {
    catches(&RAFT_DOUBLE_VOTE, "split-brain-raft", "two-leaders-in-term");
}

#[test]
fn a_paxos_acceptor_that_forgets_its_promise_is_caught() {
    catches(&PAXOS_FORGETFUL, "paxos-duel", "chosen-once");
}

// ----- the command line -----

const BIN: &str = env!("CARGO_BIN_EXE_election-lab");

#[test]
fn cli_writes_a_trace_that_run_opens_at_the_violation_and_exits_1() {
    let dir = common::temp_dir("search");
    let scenario = dir.join("bully.json");
    std::fs::write(&scenario, preset("split-brain-bully").to_json()).unwrap();
    let out = dir.join("cex.json");
    let o = Command::new(BIN)
        .args(["search", scenario.to_str().unwrap(), "--property", "split-brain", "--budget-steps", "200000"])
        .args(["--seed", "3", "--out", out.to_str().unwrap()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("schedules") && stderr.contains("distinct states"), "{stderr}");
    let summary: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(summary["found"], true);
    let step = summary["counterexample"]["step"].as_u64().unwrap();
    let e = Engine::from_trace_json(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(e.cursor(), step);
    assert_eq!(e.violations().last().unwrap().step, step);
    // `run` reads it back.
    let r = Command::new(BIN).args(["run", out.to_str().unwrap()]).output().unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn cli_reports_no_violation_with_exit_0_and_names_bad_arguments() {
    let dir = common::temp_dir("search-none");
    let scenario = dir.join("raft.json");
    std::fs::write(&scenario, preset("split-brain-raft").to_json()).unwrap();
    let path = scenario.to_str().unwrap();
    let o = Command::new(BIN)
        .args(["search", path, "--property", "two-leaders-in-term", "--budget-steps", "20000"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("no violation in ") && stderr.contains(" distinct states"), "{stderr}");
    let summary: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(summary["found"], false);
    assert!(summary["schedules"].as_u64().unwrap() > 0);
    for (args, says) in [
        (vec!["--property", "nope"], "--property: 'nope' is not a property raft has"),
        (vec!["--property", "split-brain", "--faults", "melt"], "--faults: unknown fault 'melt'"),
        (vec!["--property", "split-brain", "--budget", "soon"], "--budget: 'soon' is not a duration"),
    ] {
        let o = Command::new(BIN).args(["search", path]).args(&args).output().unwrap();
        assert_eq!(o.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(stderr.contains(says), "{stderr}");
    }
    std::fs::remove_dir_all(&dir).ok();
}
