//! A counterexample replayed in the simulator, as interventions, into a trace.

use super::*;

/// The scenario a counterexample replays on: the checker's schedule in interventions, so no
/// schedule of its own, and no network loss (the checker's lost messages are interventions).
pub fn replay_scenario(scenario: &Scenario) -> Scenario {
    let mut s = scenario.clone();
    s.schedule.clear();
    s.network.loss = 0.0;
    s
}

/// Replays `moves` in an engine as interventions, one forced step per delivery or timer, and
/// returns the counterexample with the trace opening where the violation shows.
pub(super) fn replay(
    scenario: &Scenario,
    property: &'static str,
    moves: Vec<Move>,
    nodes: Vec<NodeId>,
) -> Counterexample {
    replay_at(scenario, property, moves, nodes, None)
}

/// [`replay`], each move at its time in the timed model (`times`, with its horizon) on the
/// scenario with every delay at the top of its range (`network.latest`): no event of the
/// simulator's own comes before a move, since the timed model lets no time pass a pending
/// event's latest moment.
pub(super) fn replay_at(
    scenario: &Scenario,
    property: &'static str,
    moves: Vec<Move>,
    nodes: Vec<NodeId>,
    times: Option<(&[Time], Time)>,
) -> Counterexample {
    let mut s = replay_scenario(scenario);
    if let Some((_, horizon)) = times {
        s.network.latest = true;
        s.stop.max_time = s.stop.max_time.max(horizon);
    }
    let mut e = Engine::new(s).expect("the scenario was built once already");
    let find = |e: &Engine, from: NodeId, to: NodeId, payload: u64| -> Option<u64> {
        e.in_flight()
            .filter(|(id, m)| m.from == from && m.to == to && !e.is_manually_dropped(*id))
            .map(|(id, _)| id)
            .filter(|&id| {
                let mut h = Fnv64::default();
                e.hash_payload(id, &mut h);
                h.finish() == payload
            })
            .min()
    };
    let mut replayed = true;
    for (k, mv) in moves.iter().enumerate() {
        let action = match *mv {
            Move::Deliver { from, to, payload } => find(&e, from, to, payload).map(Action::Deliver),
            Move::Lose { from, to, payload } => find(&e, from, to, payload).map(Action::Drop),
            Move::Fire { node, key } => {
                e.timers_at(node).into_iter().find(|(k, _)| *k == key).map(|(_, timer)| Action::Fire { node, timer })
            }
            Move::Crash(n) => Some(Action::Crash(n)),
            Move::Recover(n) => Some(Action::Recover(n)),
            Move::Partition(ref side) => {
                let rest: Vec<NodeId> = scenario.nodes.iter().copied().filter(|x| !side.contains(x)).collect();
                Some(Action::Partition { groups: vec![rest, side.clone()], lines: vec![] })
            }
            Move::Heal => Some(Action::Heal),
            Move::Scheduled(k) => schedule_order(scenario).get(k).map(|(_, s)| s.action.clone()),
        };
        let Some(action) = action else {
            replayed = false;
            break;
        };
        let step = action.is_step();
        // A forced step happens when the next event would: time moves on as it can.
        let now = e.now();
        let next = e.next_event_time().map_or(now, |t| t.min(e.stop_time()).max(now));
        let at = match times {
            Some((t, _)) => t[k],
            None if step => next,
            None => now,
        };
        if e.apply_at(action, at).is_err() {
            replayed = false;
            break;
        }
        if step {
            let before = e.cursor();
            e.step();
            if e.cursor() != before + 1 {
                replayed = false;
                break;
            }
        }
    }
    if property == EVENTUALLY_AGREED {
        // No monitor watches a liveness property: the replay shows the schedule, each move applied.
        let (step, time) = (e.cursor(), e.now());
        let mut trace = e.trace_value();
        trace["step"] = Value::from(step);
        return Counterexample { moves, trace, step, time, nodes, replayed, lasso: None };
    }
    let mut hit = e.violations().iter().find(|v| v.kind == property).cloned();
    if property == LEADER_AGREED {
        let nodes = &e.scenario().nodes;
        let live: Vec<NodeId> = nodes.iter().copied().filter(|&n| e.is_up(n) == Some(true)).collect();
        let named: Vec<Option<NodeId>> = live.iter().map(|&n| e.protocol_view(n).and_then(|v| v.leader)).collect();
        if let Some(Some(l)) = named.first().copied() {
            let live_leader = e.is_up(l) == Some(true);
            if live_leader && named.iter().all(|&x| x == Some(l)) {
                hit = Some(crate::observe::Violation {
                    kind: LEADER_AGREED,
                    time: e.now(),
                    step: e.cursor(),
                    nodes: vec![l],
                    term: None,
                });
            }
        }
    }
    if hit.is_none() && property == SPLIT_BRAIN && e.algorithm().property(SPLIT_BRAIN).is_none() {
        // Not a property the algorithm claims, so no monitor of the run watches it: read the
        // live leaders where the schedule ends.
        let leaders: Vec<NodeId> = e
            .scenario()
            .nodes
            .iter()
            .copied()
            .filter(|&n| e.is_up(n) == Some(true) && e.protocol_view(n).is_some_and(|v| v.is_leader()))
            .collect();
        if leaders.len() >= 2 {
            hit = Some(crate::observe::Violation {
                kind: SPLIT_BRAIN,
                time: e.now(),
                step: e.cursor(),
                nodes: leaders,
                term: None,
            });
        }
    }
    replayed &= hit.is_some();
    let (step, time) = hit.as_ref().map_or((e.cursor(), e.now()), |v| (v.step, v.time));
    let mut trace = e.trace_value();
    trace["step"] = Value::from(step);
    Counterexample { moves, trace, step, time, nodes: hit.map_or(nodes, |v| v.nodes), replayed, lasso: None }
}
