//! The exhaustive checker's symmetry reduction (`Checker::symmetry`, `check-model --symmetry`):
//! the same verdicts as the plain exploration with fewer states, counterexamples that still
//! replay as real runs, refusals by name, and a toy protocol whose state count up to symmetry
//! equals its orbit count computed independently.

#[path = "common/toy.rs"]
mod toy;
use election_lab::check::{check, Bounds, Checker, Report, Verdict};
use election_lab::protocol::Config;
use election_lab::{NodeId, Scenario};
use toy::{Toy, TOY_PROPERTY};

fn scenario(json: &str) -> Scenario {
    Scenario::from_json(json).expect("a valid scenario")
}

const RAFT3: &str = r#"{"algorithm":"raft","nodes":[1,2,3],"seed":1,"heartbeats":{"interval":3,"timeout":12}}"#;

/// The plain exploration and the one reduced by symmetry.
fn both(s: &Scenario, property: &str, bounds: Bounds) -> (Report, Report) {
    let plain = check(s, property, bounds.clone(), false).unwrap();
    let mut c = Checker::new(s, property, bounds).unwrap();
    c.symmetry().unwrap();
    (plain, c.run())
}

/// The same verdict both ways, and a counterexample (or witness) of the same length.
fn same_verdict(a: &Report, b: &Report) {
    match (&a.verdict, &b.verdict) {
        (Verdict::Holds { complete: x }, Verdict::Holds { complete: y }) => assert_eq!(x, y),
        (Verdict::Violated(x), Verdict::Violated(y)) => {
            assert_eq!(x.moves.len(), y.moves.len(), "shortest both ways");
            assert!(x.replayed && y.replayed, "{} / {}", a.sentence(), b.sentence());
        }
        _ => panic!("different verdicts: {} / {}", a.sentence(), b.sentence()),
    }
}

/// Raft's election safety on 3 nodes with up to 2 crashes and a partition: the same verdict,
/// strictly fewer states, and no fewer than a sixth of them (each state up to symmetry stands
/// for at most 3! = 6 renamed ones: fewer would mean states were merged that are not renamings).
#[test]
fn raft_same_verdict_with_fewer_states_under_crashes_and_a_partition() {
    let bounds = Bounds { crashes: 2, partitions: 1, depth: Some(7), ..Bounds::default() };
    let (plain, sym) = both(&scenario(RAFT3), "two-leaders-in-term", bounds);
    same_verdict(&plain, &sym);
    assert_eq!(sym.symmetry, Some(6));
    assert_eq!(plain.symmetry, None);
    assert!(sym.states < plain.states, "{} vs {}", sym.states, plain.states);
    assert!(6 * sym.states >= plain.states, "{} vs {}", sym.states, plain.states);
    assert_eq!(sym.depth, plain.depth);
    assert!(sym.sentence().contains("unique states up to symmetry"), "{}", sym.sentence());
    assert!(!plain.sentence().contains("symmetry"), "{}", plain.sentence());
}

/// With a lost message and a recovery too (messages dropped, nodes back up), still the same verdict.
#[test]
fn raft_same_verdict_with_losses_and_recoveries() {
    let bounds = Bounds { crashes: 1, recoveries: 1, drops: 1, depth: Some(6), ..Bounds::default() };
    let (plain, sym) = both(&scenario(RAFT3), "two-leaders-in-term", bounds);
    same_verdict(&plain, &sym);
    assert!(sym.states < plain.states && 6 * sym.states >= plain.states, "{} vs {}", sym.states, plain.states);
}

/// The double-voting Raft mutant is caught both ways by a shortest schedule of the same length,
/// and the reduced run's counterexample replays in the simulator as a real run.
#[test]
fn the_double_voting_mutant_is_caught_both_ways() {
    let mutant = scenario(
        r#"{"algorithm":"raft","nodes":[1,2,3],"seed":1,"heartbeats":{"interval":3,"timeout":12},"params":{"_mutant":"double-vote"}}"#,
    );
    let bounds = Bounds { crashes: 1, partitions: 1, depth: Some(8), ..Bounds::default() };
    let (plain, sym) = both(&mutant, "two-leaders-in-term", bounds);
    same_verdict(&plain, &sym);
    let Verdict::Violated(c) = &sym.verdict else { panic!("{}", sym.sentence()) };
    let e =
        election_lab::engine::Engine::from_trace(election_lab::trace::Trace::from_value(&c.trace).unwrap()).unwrap();
    let v = e.violations().iter().find(|v| v.kind == "two-leaders-in-term").expect("the violation replays");
    assert_eq!(v.step, c.step);
}

/// A *sometimes* property: a leader is agreed after as few moves both ways.
#[test]
fn a_witness_is_as_short_with_symmetry() {
    let (plain, sym) = both(&scenario(RAFT3), "sometimes:leader-agreed", Bounds::default());
    same_verdict(&plain, &sym);
}

/// What the scenario says of particular nodes stays: an initial leader, a node named by the
/// schedule, a node whose log differs each leave only the renamings that fix them.
#[test]
fn facts_about_particular_nodes_leave_only_the_renamings_that_keep_them() {
    let renamings =
        |json: &str| Checker::new(&scenario(json), "two-leaders-in-term", Bounds::default()).unwrap().symmetry();
    assert_eq!(renamings(RAFT3).unwrap(), 6);
    assert_eq!(renamings(r#"{"algorithm":"raft","nodes":[1,2,3,4],"seed":1}"#).unwrap(), 24);
    assert_eq!(renamings(r#"{"algorithm":"raft","nodes":[1,2,3],"initial_leader":2}"#).unwrap(), 2);
    assert_eq!(renamings(r#"{"algorithm":"raft","nodes":[1,2,3],"schedule":[{"at":5,"crash":1}]}"#).unwrap(), 2);
    assert_eq!(
        renamings(r#"{"algorithm":"raft","nodes":[1,2,3],"schedule":[{"at":5,"partition":[[1],[2,3]]}]}"#).unwrap(),
        1
    );
    assert_eq!(renamings(r#"{"algorithm":"raft","nodes":[1,2,3],"params":{"log":{"3":[4,2]}}}"#).unwrap(), 2);
    assert_eq!(
        renamings(r#"{"algorithm":"raft","nodes":[1,2,3],"params":{"log":{"1":[4,2],"2":[4,2],"3":[4,2]}}}"#).unwrap(),
        6
    );
    // An initial leader: the same verdict, and fewer states, both ways.
    let led =
        scenario(r#"{"algorithm":"raft","nodes":[1,2,3],"initial_leader":1,"heartbeats":{"interval":3,"timeout":12}}"#);
    let (plain, sym) = both(&led, "two-leaders-in-term", Bounds { crashes: 1, depth: Some(7), ..Bounds::default() });
    same_verdict(&plain, &sym);
    assert!(sym.states < plain.states && 2 * sym.states >= plain.states, "{} vs {}", sym.states, plain.states);
}

/// Refused by name: an algorithm that compares ids (Bully), more than five nodes, an
/// *eventually* property.
#[test]
fn symmetry_is_refused_where_it_would_be_unsound_or_too_costly() {
    let bully = scenario(r#"{"algorithm":"bully","nodes":[1,2,3],"initial_leader":3}"#);
    let e = Checker::new(&bully, "split-brain", Bounds::default()).unwrap().symmetry().unwrap_err().to_string();
    assert!(e.starts_with("symmetry") && e.contains("bully") && e.contains("symmetric"), "{e}");
    let six = scenario(r#"{"algorithm":"raft","nodes":[1,2,3,4,5,6]}"#);
    let e = Checker::new(&six, "two-leaders-in-term", Bounds::default()).unwrap().symmetry().unwrap_err().to_string();
    assert!(e.starts_with("symmetry") && e.contains("5 nodes"), "{e}");
    let e = Checker::new(&scenario(RAFT3), "eventually:leader-agreed", Bounds::default())
        .unwrap()
        .symmetry()
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("symmetry") && e.contains("eventually"), "{e}");
}

// ----- the toy protocol (tests/common/toy.rs), its states up to symmetry counted independently -----

/// The orbits of the directed graphs on `n` labelled nodes (no loops) under renaming the
/// nodes, counted by brute force: each graph (a bit per ordered pair) is known by the least
/// code among its renamings.
fn digraphs_up_to_renaming(n: usize) -> usize {
    let pairs: Vec<(usize, usize)> =
        (0..n).flat_map(|a| (0..n).filter(move |&b| b != a).map(move |b| (a, b))).collect();
    let bit = |a: usize, b: usize| pairs.iter().position(|&p| p == (a, b)).unwrap();
    let mut perms: Vec<Vec<usize>> = vec![vec![]];
    for _ in 0..n {
        let mut longer = Vec::new();
        for p in &perms {
            for x in (0..n).filter(|x| !p.contains(x)) {
                longer.push([p.clone(), vec![x]].concat());
            }
        }
        perms = longer;
    }
    let mut least = std::collections::BTreeSet::new();
    for g in 0u32..1 << pairs.len() {
        let renamed = |p: &Vec<usize>| {
            pairs
                .iter()
                .enumerate()
                .filter(|&(k, _)| g & (1 << k) != 0)
                .map(|(_, &(a, b))| 1u32 << bit(p[a], p[b]))
                .sum::<u32>()
        };
        least.insert(perms.iter().map(renamed).min().unwrap());
    }
    least.len()
}

/// A world of the toy is which pings have arrived (each node's count follows), a directed graph
/// on the nodes: 2^(n(n−1)) states, and up to symmetry one per unlabelled directed graph —
/// 3, 16 and 218 for 2, 3 and 4 nodes (OEIS A000273), counted again here by brute force.
#[test]
fn the_toy_reaches_one_state_per_unlabelled_directed_graph() {
    for (n, known) in [(2usize, 3u64), (3, 16), (4, 218)] {
        let cfg = Config::new((1..=n as NodeId).collect(), None, None, (1, 1));
        let plain = Checker::for_protocol(Toy, cfg.clone(), &TOY_PROPERTY, Bounds::default()).run();
        assert_eq!(plain.states, 1 << (n * (n - 1)), "n = {n}");
        let mut c = Checker::for_protocol(Toy, cfg, &TOY_PROPERTY, Bounds::default());
        c.symmetry().unwrap();
        let r = c.run();
        assert!(matches!(r.verdict, Verdict::Holds { complete: true }), "{}", r.sentence());
        assert_eq!(r.states as usize, digraphs_up_to_renaming(n), "n = {n}");
        assert_eq!(r.states, known, "n = {n}");
        assert!(r.sentence().contains("up to symmetry"), "{}", r.sentence());
    }
}

// ----- the command line -----

const BIN: &str = env!("CARGO_BIN_EXE_election-lab");

fn cli(args: &[&str], stdin: &str) -> (i32, String, String) {
    use std::io::Write;
    let mut child = std::process::Command::new(BIN)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("runs");
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

/// `--symmetry` reports states up to symmetry and its renamings; on Bully it is refused by name
/// (exit 2).
#[test]
fn check_model_symmetry_flag_reports_and_refuses() {
    let args = ["check-model", "-", "--property", "two-leaders-in-term", "--depth", "5", "--crashes", "1"];
    let (code, stdout, stderr) = cli(&[&args[..], &["--symmetry"]].concat(), RAFT3);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("unique states up to symmetry") && stderr.contains("6 renamings"), "{stderr}");
    let sym: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(sym["symmetry"]["renamings"], 6);
    let (code, stdout, stderr) = cli(&args, RAFT3);
    assert_eq!(code, 0, "{stderr}");
    let plain: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(plain["verdict"], sym["verdict"]);
    assert!(sym["states"].as_u64() < plain["states"].as_u64());
    let bully = r#"{"algorithm":"bully","nodes":[1,2,3],"initial_leader":3}"#;
    let (code, _, stderr) = cli(&["check-model", "-", "--property", "split-brain", "--symmetry"], bully);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("--symmetry") && stderr.contains("bully"), "{stderr}");
}
