use super::*;
use crate::meta::Lang;
use crate::protocol::Effect;
use crate::protocols::testkit::{preset, run};
use crate::protocols::testkit::{random_faults, random_sides, sent, sim_of};
use crate::rng::Pcg32;
use crate::{Engine, Scenario};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};

/// The four messages of one ballot that the formula counts.
fn ballot_messages(e: &Engine) -> u64 {
    ["PREPARE", "PROMISE", "ACCEPT", "ACCEPTED"].iter().map(|k| sent(e, k)).sum()
}

#[test]
fn one_uncontested_ballot_costs_four_times_n_minus_one() {
    for n in [2u32, 3, 5, 8, 13, 30] {
        let ids: Vec<u32> = (1..=n).collect();
        let e = run(&json!({"algorithm": "paxos", "nodes": ids, "seed": n, "network": {"latency": [1, 3]},
                                "schedule": [{"at": 0, "start": 2}]}));
        let n = n as u64;
        assert_eq!(ballot_messages(&e), 4 * (n - 1), "N = {n}");
        assert_eq!(ballot_messages(&e), (ALGORITHM.formulas[0].value)(n));
        assert_eq!((sent(&e, "NACK"), sent(&e, "CHOSEN")), (0, n - 1), "N = {n}");
        assert_eq!(e.frame().leaders, vec![2], "the proposer's own id is chosen, N = {n}");
        assert_eq!(e.frame().agreement, Some(2));
    }
    // The cold-start preset: one node's backoff ends first and nobody duels.
    let e = preset("paxos-cold");
    assert_eq!(ballot_messages(&e), 16);
    assert_eq!(sent(&e, "CHOSEN"), 4);
}

/// Every value any acceptor ever accepted, per (instance, ballot): the value and who accepted.
type History = BTreeMap<(u64, u64), (NodeId, BTreeSet<NodeId>)>;

/// Runs `v` step by step and checks Paxos's safety after every step: per instance, at most
/// one value is ever chosen (accepted by a majority in some ballot), and every decision any
/// node knows was chosen that way. Returns the chosen values and the history.
fn check_safety(v: &Value) -> (BTreeMap<u64, NodeId>, History) {
    let mut sim = sim_of::<Paxos>(v, ALGORITHM.properties);
    let n = sim.observers().views.len();
    let quorum = n / 2 + 1;
    let mut history = History::new();
    let mut chosen: BTreeMap<u64, NodeId> = BTreeMap::new();
    if let Some(l) = v["initial_leader"].as_u64() {
        chosen.insert(1, l as NodeId);
    }
    loop {
        for i in 0..n {
            let s = sim.state(i);
            for (&inst, &(b, val)) in &s.accepted {
                {
                    let entry = history.entry((inst, b)).or_insert((val, BTreeSet::new()));
                    assert_eq!(entry.0, val, "ballot {b} of instance {inst} carries one value: {v}");
                    entry.1.insert(s.me);
                    if entry.1.len() >= quorum {
                        let first = *chosen.entry(inst).or_insert(val);
                        assert_eq!(first, val, "instance {inst} chose N{first} and later N{val} (ballot {b}): {v}");
                    }
                }
            }
        }
        for i in 0..n {
            for (inst, val) in &sim.state(i).learned {
                assert_eq!(
                    chosen.get(inst),
                    Some(val),
                    "N{} learned instance {inst} = N{val} without a majority: {v}",
                    sim.state(i).me
                );
            }
        }
        if !sim.step() {
            break;
        }
    }
    assert!(sim.violations().iter().all(|x| x.kind != CHOSEN_ONCE.id), "{v}");
    // Every ballot that gathered a majority in an instance is above every one that gathered a
    // majority in an earlier instance: a leader's ballot is a token that only grows.
    let quorum_ballots: Vec<(u64, u64)> =
        history.iter().filter(|(_, (_, who))| who.len() >= quorum).map(|(&k, _)| k).collect();
    for a in &quorum_ballots {
        for b in &quorum_ballots {
            assert!(
                a.0 >= b.0 || a.1 < b.1,
                "instance {} decided by ballot {} but instance {} by {}: {v}",
                a.0,
                a.1,
                b.0,
                b.1
            );
        }
    }
    (chosen, history)
}

/// A random scenario full of competing proposers and faults.
fn chaos(seed: u64) -> Value {
    let mut r = Pcg32::new(seed, 1998);
    let n = r.range_inclusive(3, 7);
    let ids: Vec<u64> = (1..=n).map(|k| k * 3 + r.range_inclusive(0, 2)).collect();
    let (schedule, t) = random_faults(&mut r, &ids, 4..=14, 0..=12, |r, t, node| {
        Some(match r.range_inclusive(0, 9) {
            0 | 1 => json!({"at": t, "crash": node}),
            2 | 3 => json!({"at": t, "recover": node}),
            4 => json!({"at": t, "partition": random_sides(r, &ids)}),
            5 => json!({"at": t, "heal": true}),
            _ => json!({"at": t, "start": node}),
        })
    });
    let lo = r.range_inclusive(1, 3);
    let hb = if r.range_inclusive(0, 3) == 0 { Value::Null } else { json!({"interval": 3, "timeout": 8 + 3 * lo}) };
    let backoff = if r.range_inclusive(0, 1) == 0 { json!([1, 3]) } else { json!([4 * lo + 2, 12 * lo + 2]) };
    json!({"algorithm": "paxos", "nodes": ids, "seed": seed, "heartbeats": hb,
               "network": {"latency": [lo, lo + r.range_inclusive(0, 4)], "loss": r.range_inclusive(0, 10) as f64 / 100.0,
                           "fifo": r.range_inclusive(0, 1) == 0},
               "params": {"backoff": backoff}, "schedule": schedule, "stop": {"max_time": t + 150}})
}

#[test]
fn a_chosen_leader_never_changes_and_only_a_majority_chooses() {
    let (mut instances, mut contested) = (0, 0);
    for seed in 0..300 {
        let (chosen, history) = check_safety(&chaos(seed));
        instances += chosen.len();
        // Instances where ballots with different values were accepted somewhere.
        for inst in chosen.keys() {
            let values: BTreeSet<NodeId> = history.range((*inst, 0)..(*inst + 1, 0)).map(|(_, (v, _))| *v).collect();
            contested += (values.len() > 1) as usize;
        }
    }
    // The sweep must exercise what it checks: many decisions, some fought over.
    assert!(instances > 300 && contested > 20, "{instances} instances, {contested} contested");
}

#[test]
fn the_duel_preset_chooses_n4_before_anyone_knows_and_every_later_ballot_carries_it() {
    let v: Value = serde_json::from_str(ALGORITHM.preset("paxos-duel").unwrap().json).unwrap();
    let (chosen, history) = check_safety(&v);
    assert_eq!(chosen.get(&1), Some(&4));
    let ballots: Vec<_> = history.iter().map(|((_, b), (val, who))| (*b, *val, who.len())).collect();
    // N4's first ballot is accepted by a majority (itself, N1, N2, N5): N4 is chosen there.
    // Nobody knows it yet, so three more ballots are fought, and each must carry N4.
    assert_eq!(ballots, vec![(14, 4, 4), (23, 4, 4), (34, 4, 1), (43, 4, 5)]);
    let e = preset("paxos-duel");
    assert!(sent(&e, "NACK") >= 4 && sent(&e, "PREPARE") >= 16, "a real duel: {:?}", e.metrics().by_kind);
    let carry = (1..=e.cursor())
        .find(|&s| e.narrate(s, Lang::En).unwrap().contains("Paxos obliges it to propose N4"))
        .expect("N3 carries N4");
    assert!(e.narrate(carry, Lang::En).unwrap().starts_with("N3 now holds 3 of the 3 promises"));
    assert!(e.narrate(carry, Lang::Zh).unwrap().contains("必须在提议编号"));
}

#[test]
fn duels_resolve_by_random_backoff() {
    let (mut ballots, mut worst, runs) = (0, 0, 400);
    for seed in 0..runs {
        let mut r = Pcg32::new(seed, 2001);
        let n = r.range_inclusive(3, 9);
        let ids: Vec<u64> = (1..=n).collect();
        let k = r.range_inclusive(2, n);
        let schedule: Vec<Value> = (1..=k).map(|id| json!({"at": r.range_inclusive(0, 2), "start": id})).collect();
        let e = run(
            &json!({"algorithm": "paxos", "nodes": ids, "seed": seed, "network": {"latency": [1, 3]}, "schedule": schedule}),
        );
        assert!(e.quiescent(), "seed {seed}: the duel ended");
        let f = e.frame();
        assert_eq!(f.leaders.len(), 1, "seed {seed}");
        assert_eq!(f.agreement, Some(f.leaders[0]), "seed {seed}: everyone learned the decision");
        let b = sent(&e, "PREPARE") / (n - 1);
        ballots += b;
        worst = worst.max(b);
        assert!(b >= k, "every starter prepared at least once");
    }
    // Measured with the default backoff, 2 to 9 proposers: 4.2 ballots per duel, at most 9.
    assert!(ballots < 5 * runs && worst <= 12, "{ballots} ballots in {runs} duels, worst {worst}");
}

#[test]
fn the_minority_side_of_a_partition_never_chooses_a_leader() {
    let mut v: Value = serde_json::from_str(ALGORITHM.preset("split-brain-paxos").unwrap().json).unwrap();
    v["schedule"] = json!([{"at": 7, "partition": [[1, 2], [3, 4, 5]]}]);
    let (chosen, _) = check_safety(&v);
    assert_eq!(chosen.len(), 1, "no instance beyond the initial one is decided: {chosen:?}");
    let e = run(&v);
    assert!(sent(&e, "PREPARE") > 40, "the minority keeps preparing");
    assert_eq!(e.frame().leaders, vec![5]);
    assert_eq!(e.metrics().max_simultaneous_leaders, 1, "no split brain");
    for (id, tally) in e.max_tally() {
        assert!(tally <= 2, "N{id} gathered {tally} of the 3 a majority needs");
    }
}

/// A leader cut off in a minority keeps believing it leads (no lease), but its ballot is
/// older than the new leader's: a fenced store takes only the new leader's writes.
#[test]
fn the_ballot_fences_a_leader_cut_off_in_a_minority() {
    for seed in 0..60 {
        let mut r = Pcg32::new(seed, 2014);
        let at = r.range_inclusive(10, 60);
        let v = json!({"algorithm": "paxos", "nodes": [1, 2, 3, 4, 5], "seed": seed, "initial_leader": 5,
                           "heartbeats": {"interval": 2, "timeout": 10}, "network": {"latency": [1, 3]},
                           "schedule": [{"at": at, "partition": [[4, 5], [1, 2, 3]]}, {"at": at + 150, "heal": true}],
                           "fencing": {"write_every": 5}, "stop": {"max_time": at + 300}});
        let mut e = Engine::new(Scenario::from_value(&v).unwrap()).unwrap();
        e.run(u64::MAX);
        let history = e.summary()["store"]["history"].as_array().unwrap().clone();
        let w =
            |h: &Value| (h["node"].as_u64().unwrap(), h["token"].as_u64().unwrap(), h["accepted"].as_bool().unwrap());
        let mut writer_of = BTreeMap::new();
        for (node, token, ok) in history.iter().map(w) {
            if ok {
                assert_eq!(*writer_of.entry(token).or_insert(node), node, "seed {seed}: one writer per ballot");
            }
        }
        // N5 wrote with ballot 0 before the cut; the majority's new leader writes with a higher
        // ballot, after which every write of N5 is refused.
        let first_new = history
            .iter()
            .map(w)
            .position(|(node, token, ok)| ok && node != 5 && token > 0)
            .expect("the new leader writes");
        assert!(
            history.iter().map(w).skip(first_new).all(|(node, _, ok)| node != 5 || !ok),
            "seed {seed}: {history:?}"
        );
        assert!(
            history.iter().map(w).skip(first_new).any(|(node, _, _)| node == 5),
            "seed {seed}: N5 tried, still sure it leads"
        );
    }
}

#[test]
fn a_crashed_leader_is_replaced_in_the_next_instance() {
    let v = json!({"algorithm": "paxos", "nodes": [1, 2, 3, 4, 5], "seed": 9, "initial_leader": 5,
                       "heartbeats": {"interval": 2, "timeout": 10}, "schedule": [{"at": 20, "crash": 5}], "stop": {"max_time": 150}});
    let e = run(&v);
    let f = e.frame();
    assert_eq!(f.leaders.len(), 1);
    assert_eq!(f.agreement, Some(f.leaders[0]));
    assert!(
        e.inspect(f.leaders[0]).iter().any(|f| f.id == "chosen" && f.shown().starts_with("i1→N5, i2→N")),
        "{:?}",
        e.inspect(f.leaders[0])
    );
    // Recovered, the old leader follows the new one instead of resuming.
    let mut v = v;
    v["schedule"] = json!([{"at": 20, "crash": 5}, {"at": 80, "recover": 5}]);
    let e = run(&v);
    assert_eq!(e.frame().agreement, Some(f.leaders[0]));
}

#[test]
fn a_node_told_a_different_decision_reports_it() {
    let cfg = Config::new(vec![1, 2, 3], Some(3), None, (1, 1));
    let p = Paxos::new(&cfg, &Params::new()).unwrap();
    let (mut effects, mut outbox, mut timers) = (Vec::new(), Vec::new(), Vec::new());
    let mut s = p.init(&mut Ctx::new(1, 0, &cfg, &mut effects, &mut outbox, &mut timers));
    p.on_message(
        &mut s,
        2,
        Msg::Chosen { inst: 1, value: 3, ballot: 0 },
        &mut Ctx::new(1, 5, &cfg, &mut effects, &mut outbox, &mut timers),
    );
    assert!(!effects.iter().any(|e| matches!(e, Effect::Report { .. })), "the same decision again is no conflict");
    p.on_message(
        &mut s,
        2,
        Msg::Heartbeat { inst: 1, ballot: 12 },
        &mut Ctx::new(1, 6, &cfg, &mut effects, &mut outbox, &mut timers),
    );
    assert!(effects.contains(&Effect::Report { property: "chosen-once", nodes: vec![1, 3, 2] }), "{effects:?}");
    assert_eq!(s.learned.get(&1), Some(&3), "the first decision is kept");
}

/// The two acceptor rules that make ballots grow with instances, at the handler level (the
/// race they guard against, a stale ACCEPT overtaking a later instance, is too rare for the
/// random runs to hit).
#[test]
fn one_promise_covers_every_instance_and_an_older_instance_is_refused() {
    let cfg = Config::new(vec![1, 2, 3], None, None, (1, 1));
    let p = Paxos::new(&cfg, &Params::new()).unwrap();
    let (mut effects, mut outbox, mut timers) = (Vec::new(), Vec::new(), Vec::new());
    let mut s = p.init(&mut Ctx::new(1, 0, &cfg, &mut effects, &mut outbox, &mut timers));
    let mut deliver = |s: &mut State, from: NodeId, m: Msg| {
        outbox.clear();
        p.on_message(s, from, m, &mut Ctx::new(1, 1, &cfg, &mut effects, &mut outbox, &mut timers));
        outbox.pop().expect("an answer")
    };
    assert_eq!(
        deliver(&mut s, 2, Msg::Prepare { inst: 2, ballot: 22 }),
        Msg::Promise { inst: 2, ballot: 22, accepted: None }
    );
    // A promise made for instance 2 binds instance 3 too.
    assert_eq!(
        deliver(&mut s, 3, Msg::Prepare { inst: 3, ballot: 13 }),
        Msg::Nack { inst: 3, ballot: 13, promised: 22 }
    );
    assert_eq!(
        deliver(&mut s, 2, Msg::Accept { inst: 2, ballot: 22, value: 2 }),
        Msg::Accepted { inst: 2, ballot: 22 }
    );
    // Instance 1 must be decided (someone proposed in instance 2): a late ACCEPT for it is
    // refused even with a ballot high enough.
    assert_eq!(
        deliver(&mut s, 3, Msg::Accept { inst: 1, ballot: 33, value: 3 }),
        Msg::Nack { inst: 1, ballot: 33, promised: 22 }
    );
    assert_eq!(s.accepted.get(&1), None);
}

#[test]
fn ballots_are_unique_per_proposer_and_read_as_round_and_id() {
    let cfg = Config::new(vec![3, 12, 7], None, None, (1, 1));
    let p = Paxos::new(&cfg, &Params::new()).unwrap();
    assert_eq!((p.scale, p.ballot(2, 7), p.ballot(1, 12)), (100, 207, 112));
    let cfg = Config::new(vec![1, 9], None, None, (1, 1));
    assert_eq!(Paxos::new(&cfg, &Params::new()).unwrap().ballot(3, 9), 39);
    let bad = serde_json::from_value(json!({"backoff": [5, 2]})).unwrap();
    assert_eq!(Paxos::new(&cfg, &bad).unwrap_err().field, "params.backoff");
}
