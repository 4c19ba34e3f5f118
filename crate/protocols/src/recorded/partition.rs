//! Partitions recognised in the logs, by one rule whatever the system: member A reports losing
//! member B (a `peer_down` line) while B goes on logging after that report and is neither crashed
//! nor paused then: the link A ↔ B is lost from that report until A reports B back (a `peer_up`
//! line), or to the end. A loss that is a crash or a pause is read as that, as before. Only logs
//! that report restored connections at all are read so: a system that never logs a restore could
//! not say when a partition ended.

use super::pause::{LinkEvent, Pause};
use super::{Imported, Key, Line, MemberInfo, What};
use std::collections::BTreeMap;

/// The lines that say a peer was lost or reached again: (reporter, peer, time, lost?, where).
pub fn reports(lines: &[Line], place: &dyn Fn(&Line) -> String) -> Vec<LinkEvent> {
    let mut out: Vec<LinkEvent> = lines
        .iter()
        .filter_map(|l| match &l.what {
            What::PeerDown(p) => Some((l.member.clone(), p.clone(), l.t, true, place(l))),
            What::PeerUp(p) => Some((l.member.clone(), p.clone(), l.t, false, place(l))),
            _ => None,
        })
        .filter(|r| r.0 != r.1)
        .collect();
    // Any order of the same lines (a merged log, sorted or not) gives the same links.
    crate::sort::sort_by_key(&mut out, |r| (r.2, r.0.clone(), r.1.clone(), !r.3));
    out
}

/// Whether member `k` is down (crashed and not recovered) at wall time `t` in the recorded
/// scenario's schedule, or paused then.
fn down(imp: &Imported, pauses: &[Pause], k: &Key, t: u64) -> bool {
    let sc = &imp.scenario;
    let t0 = sc["params"]["t0"].as_u64().unwrap_or(0);
    let Some(&n) = super::member_nodes(sc).get(k) else { return true };
    let rel = t.saturating_sub(t0);
    let mut crashed = false;
    for s in sc["schedule"].as_array().into_iter().flatten() {
        if s["at"].as_u64().is_some_and(|at| at <= rel) {
            if s["crash"] == n {
                crashed = true;
            } else if s["recover"] == n {
                crashed = false;
            }
        }
    }
    let paused = pauses.iter().any(|p| &p.member == k && p.from <= t + 1 && p.to.is_none_or(|to| t <= to));
    crashed || paused
}

/// The links the rule above recognises in `reports` (from [`reports`]), given the run's crashes
/// (`imp`) and pauses; pairs whose links the events state are left to those.
pub fn recognise(
    reports: &[LinkEvent],
    members: &BTreeMap<Key, MemberInfo>,
    imp: &Imported,
    pauses: &[Pause],
    stated: &[LinkEvent],
) -> Vec<LinkEvent> {
    let pair = |a: &Key, b: &Key| if a < b { (a.clone(), b.clone()) } else { (b.clone(), a.clone()) };
    let said: Vec<(Key, Key)> = stated.iter().map(|l| pair(&l.0, &l.1)).collect();
    let mut lost: BTreeMap<(Key, Key), ()> = BTreeMap::new();
    let mut out = Vec::new();
    for r in reports {
        let (a, b, t, is_lost, _) = r;
        if said.contains(&pair(a, b)) {
            continue;
        }
        let key = (a.clone(), b.clone());
        if *is_lost {
            let alive_after = members.get(b).is_some_and(|m| m.last > *t);
            if !lost.contains_key(&key) && alive_after && !down(imp, pauses, b, *t) && !down(imp, pauses, a, *t) {
                lost.insert(key, ());
                out.push(r.clone());
            }
        } else if lost.remove(&key).is_some() {
            out.push(r.clone());
        }
    }
    out
}
