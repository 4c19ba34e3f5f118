//! Pauses and links in a recorded run: a member frozen and resumed (a stopped process, a long
//! garbage-collection pause), stated by the events (`pause`, `resume`) or recognised in the logs;
//! links lost and restored as the events state them (`link_lost`, `link_restored`).
//!
//! The rule that recognises a pause, whatever the system: a member that led goes silent; while
//! it is silent another member becomes leader at a higher term; then it logs again without
//! restarting. It was paused from just after its last election line before the silence to its
//! first line after it, and it wakes a stale leader. (A member killed never logs again: that is
//! a crash, found as before. A pause that never resumes cannot be told from a crash by the logs
//! alone: a harness's `pause` event says so.)

use super::{Builder, Imported, Key, Line, MemberInfo, What};
use crate::NodeId;
use serde_json::{json, Value};
use std::collections::BTreeMap;

impl Builder<'_> {
    /// [`Builder::seen`], with where the line is (file, line from 1): a crash's evidence names
    /// the member's last line when its place is known.
    pub fn seen_at(&mut self, key: &str, t: u64, file: usize, line: usize) {
        self.seen(key, t);
        let m = self.members.get_mut(key).expect("just seen");
        if m.last_at.is_none_or(|at| at <= (t, file, line)) {
            m.last_at = Some((t, file, line));
        }
    }

    /// [`Builder::finish`], with the pauses the lines show written in (see the module's doc), or
    /// the `stated` ones for their members instead, and the stated `links`.
    pub fn finish_paused(
        self,
        algorithm: &str,
        cuts: bool,
        number: &dyn Fn(&Key, &MemberInfo) -> Option<NodeId>,
        stated: Vec<Pause>,
        links: &[LinkEvent],
    ) -> Result<Imported, String> {
        let files = self.files;
        let place = |l: &Line| files.get(l.file).map(|f| format!("{}:{}", f.name, l.line)).unwrap_or_default();
        let mut pauses = stated;
        let said: Vec<Key> = pauses.iter().map(|p| p.member.clone()).collect();
        pauses.extend(recognise(&self.lines, &place).into_iter().filter(|p| !said.contains(&p.member)));
        // Each member's last line, and its peers' first report of its loss after it: where a
        // crash placed by that evidence happened (drawn as the interval between the two).
        let mut ends: Vec<(Key, u64, String, u64, String)> = Vec::new();
        for (k, m) in &self.members {
            let Some(last) = self.lines.iter().filter(|l| &l.member == k).max_by_key(|l| (l.t, l.file, l.line)) else {
                continue;
            };
            // Its last line of any kind (named when it is an election line).
            let (t, at) = if m.last > last.t {
                // Named when that line's place is known (a later line of unknown place: not).
                let at = m
                    .last_at
                    .filter(|a| a.0 == m.last)
                    .and_then(|(_, f, l)| Some(format!("{}:{l}", files.get(f)?.name)));
                (m.last, at.unwrap_or_default())
            } else {
                (last.t, place(last))
            };
            let lost = self
                .lines
                .iter()
                .filter(|l| matches!(&l.what, What::PeerDown(p) if p == k) && l.t > t + 1)
                .min_by_key(|l| (l.t, l.file, l.line));
            if let Some(lost) = lost {
                ends.push((k.clone(), t, at, lost.t, place(lost)));
            }
        }
        // A lost peer that went on logging is a partition (see `partition`), not the one-way
        // cut `finish` would make of it.
        let reports = super::partition::reports(&self.lines, &place);
        let members = self.members.clone();
        let mut imported = self.finish(algorithm, false, number)?;
        let recognised = match cuts {
            true => super::partition::recognise(&reports, &members, &imported, &pauses, links),
            false => Vec::new(),
        };
        apply(&mut imported, &pauses, links, &recognised);
        evidence(&mut imported, &ends);
        Ok(imported)
    }
}

/// The evidence interval of each crash placed at its peers' first report of the loss, for the
/// page to draw: `params.evidence`, `{node, from, to, last, lost}` (ticks, and the two lines).
fn evidence(imp: &mut Imported, ends: &[(Key, u64, String, u64, String)]) {
    let sc = &mut imp.scenario;
    let t0 = sc["params"]["t0"].as_u64().unwrap_or(0);
    let nodes = member_nodes(sc);
    let crashes: Vec<(u64, u64)> = sc["schedule"]
        .as_array()
        .map(|s| s.iter().filter_map(|x| Some((x["crash"].as_u64()?, x["at"].as_u64()?))).collect())
        .unwrap_or_default();
    let mut out = Vec::new();
    for (k, last, last_at, lost, lost_at) in ends {
        let Some(&n) = nodes.get(k) else { continue };
        let (from, to) = (last.saturating_sub(t0), lost.saturating_sub(t0));
        if crashes.contains(&(n, to)) {
            out.push(json!({"node": n, "from": from, "to": to, "last": last_at, "lost": lost_at}));
        }
    }
    if !out.is_empty() {
        sc["params"]["evidence"] = Value::Array(out);
    }
}

/// Member ids and their node numbers, from a recorded scenario.
pub fn member_nodes(sc: &Value) -> BTreeMap<String, u64> {
    sc["params"]["members"]
        .as_array()
        .map(|ms| ms.iter().filter_map(|m| Some((m["id"].as_str()?.to_string(), m["node"].as_u64()?))).collect())
        .unwrap_or_default()
}

/// A pause of one member: from, and until when known (wall times, ms), with the places that say so.
#[derive(Clone, Debug, PartialEq)]
pub struct Pause {
    pub member: Key,
    pub from: u64,
    pub to: Option<u64>,
    pub from_at: String,
    pub to_at: String,
    /// Stated by an event (a harness's faults file), not recognised in the logs.
    pub stated: bool,
}

/// A link lost or restored, as an event states it: (member, peer, time, lost?, where).
pub type LinkEvent = (Key, Key, u64, bool, String);

/// Pauses recognised by the rule above, from the election lines (in any order) and where each is.
pub fn recognise(lines: &[Line], place: &dyn Fn(&Line) -> String) -> Vec<Pause> {
    let mut order: Vec<&Line> = lines.iter().collect();
    crate::sort::sort_by_key(&mut order, |l| (l.t, l.file, l.line));
    // Who became leader when, and at which term (raft) — zookeeper's lines carry no term: any
    // other member leading counts.
    let leads: Vec<(u64, &Key, Option<u64>)> = order
        .iter()
        .filter_map(|l| match &l.what {
            What::State { role: Some(r), term, .. } if is_leader(r) => Some((l.t, &l.member, *term)),
            _ => None,
        })
        .collect();
    // A member's own election lines (a lost or restored connection is not always its own line:
    // a merged log may not say whose it is).
    let mut by_member: BTreeMap<&Key, Vec<&Line>> = BTreeMap::new();
    for l in order.iter().filter(|l| !matches!(l.what, What::PeerDown(_) | What::PeerUp(_))) {
        by_member.entry(&l.member).or_default().push(l);
    }
    let mut out = Vec::new();
    for (m, own) in by_member {
        let (mut leads_now, mut term) = (false, None);
        for w in own.windows(2) {
            let (last, next) = (w[0], w[1]);
            if let What::State { role, term: t, .. } = &last.what {
                if let Some(r) = role {
                    leads_now = is_leader(r);
                }
                term = t.or(term);
            }
            if !leads_now || next.t <= last.t + 1 || matches!(next.what, What::Started) {
                continue;
            }
            let usurped = leads.iter().any(|(t, who, their)| {
                *t > last.t && *t < next.t && *who != m && (their.is_none() || term.is_none() || *their > term)
            });
            if usurped {
                out.push(Pause {
                    member: m.clone(),
                    from: last.t + 1,
                    to: Some(next.t),
                    from_at: place(last),
                    to_at: place(next),
                    stated: false,
                });
                leads_now = false;
            }
        }
    }
    out
}

fn is_leader(role: &str) -> bool {
    role == crate::protocol::LEADER || role == crate::protocol::LEADING
}

/// Pairs stated `pause` / `resume` events per member: (member, time, pause?, where).
pub fn stated(events: &[(Key, u64, bool, String)]) -> Vec<Pause> {
    let mut sorted: Vec<&(Key, u64, bool, String)> = events.iter().collect();
    crate::sort::sort_by_key(&mut sorted, |e| (e.1, e.0.clone()));
    let mut out: Vec<Pause> = Vec::new();
    for (m, t, pause, at) in sorted {
        let open = out.iter_mut().find(|p| &p.member == m && p.to.is_none());
        match (pause, open) {
            (true, None) => out.push(Pause {
                member: m.clone(),
                from: *t,
                to: None,
                from_at: at.clone(),
                to_at: String::new(),
                stated: true,
            }),
            (false, Some(p)) => {
                p.to = Some(*t);
                p.to_at = at.clone();
            }
            // A second pause while paused, or a resume with no pause before it: nothing changes.
            _ => {}
        }
    }
    out
}

/// Writes the pauses and stated links into the recorded scenario: a pause is a `paused` event
/// and a `resumed` one in the member's script (it keeps its state: no crash); a crash inferred
/// for that member in the pause, and links cut because its peers lost it then, are taken back.
pub fn apply(imp: &mut Imported, pauses: &[Pause], links: &[LinkEvent], recognised: &[LinkEvent]) {
    if pauses.is_empty() && links.is_empty() && recognised.is_empty() {
        return;
    }
    let sc = &mut imp.scenario;
    let t0 = sc["params"]["t0"].as_u64().unwrap_or(0);
    let nodes = member_nodes(sc);
    let rel = |t: u64| t.saturating_sub(t0);
    let mut schedule: Vec<Value> = sc["schedule"].as_array().cloned().unwrap_or_default();
    let mut added: Vec<Value> = Vec::new();
    for p in pauses {
        let Some(&n) = nodes.get(&p.member) else {
            imp.report
                .notes
                .push(format!("{}: member '{}' is in no log here: its pause is left out", p.from_at, p.member));
            continue;
        };
        let (from, to) = (rel(p.from), p.to.map(rel));
        let within = |at: u64| at >= from.saturating_sub(1) && to.is_none_or(|to| at <= to);
        let before = schedule.len();
        schedule.retain(|s| {
            let at = s["at"].as_u64().unwrap_or(0);
            let mine = s["crash"] == n || s["recover"] == n || s["cut"][0] == n;
            !(mine && within(at))
        });
        if schedule.len() < before {
            // What was inferred from its silence is taken back with it.
            imp.report.faults.retain(|f| !f.starts_with(&format!("member {n} ")) || f.contains("paused"));
        }
        added.push(json!({"at": from, "node": n, "say": "paused", "paused": true, "args": [0, 0], "line": p.from_at}));
        let how = if p.stated { "as the events state" } else { "its log falls silent while another member leads" };
        match to {
            Some(to) => {
                added.push(json!({"at": to, "node": n, "say": "resumed", "paused": false,
                                  "args": [to - from, 0], "line": p.to_at}));
                imp.report.faults.push(format!(
                    "member {n} paused from {from} ms ({}) to {to} ms ({}): {how}; it kept its state",
                    p.from_at, p.to_at
                ));
            }
            None => imp.report.faults.push(format!(
                "member {n} paused at {from} ms ({}) and never resumed: {how}; it kept its state",
                p.from_at
            )),
        }
    }
    // Stated links: both directions cut while lost; restored when none is lost any more.
    let mut lost: Vec<(u64, u64)> = Vec::new();
    let mut sorted: Vec<(&LinkEvent, bool)> =
        links.iter().map(|l| (l, true)).chain(recognised.iter().map(|l| (l, false))).collect();
    crate::sort::sort_by_key(&mut sorted, |l| l.0 .2);
    for ((m, peer, t, is_lost, at), stated) in sorted {
        let (Some(&a), Some(&b)) = (nodes.get(m), nodes.get(peer)) else {
            imp.report.notes.push(format!("{at}: member '{m}' or '{peer}' is in no log here: the link is left out"));
            continue;
        };
        let key = (a.min(b), a.max(b));
        let at_ms = rel(*t);
        let say = if *is_lost { "link-lost" } else { "link-restored" };
        added.push(json!({"at": at_ms, "node": a, "say": say, "args": [b, 0], "line": at}));
        if *is_lost && !lost.contains(&key) {
            lost.push(key);
            schedule.push(json!({"at": at_ms, "cut": [a, b]}));
            schedule.push(json!({"at": at_ms, "cut": [b, a]}));
            imp.report.faults.push(match stated {
                true => format!("link {a} ↔ {b} lost at {at_ms} ms, as the events state ({at})"),
                false => format!(
                    "link {a} ↔ {b} lost at {at_ms} ms: member {a} lost member {b}, which went on logging, \
                     neither crashed nor paused ({at})"
                ),
            });
        } else if !is_lost && lost.contains(&key) {
            lost.retain(|&k| k != key);
            schedule.push(json!({"at": at_ms, "heal": true}));
            for &(x, y) in &lost {
                schedule.push(json!({"at": at_ms, "cut": [x, y]}));
                schedule.push(json!({"at": at_ms, "cut": [y, x]}));
            }
            let how = if stated { "as the events state" } else { "its loser reports it back" };
            imp.report.faults.push(format!("link {a} ↔ {b} restored at {at_ms} ms, {how} ({at})"));
        }
    }
    crate::sort::sort_by_key(&mut schedule, |s| s["at"].as_u64());
    sc["schedule"] = Value::Array(schedule);
    // The new events first, so that at an equal time a resume comes before the line it explains.
    let mut events = added;
    events.extend(sc["params"]["events"].as_array().cloned().unwrap_or_default());
    crate::sort::sort_by_key(&mut events, |e| (e["at"].as_u64(), e["node"].as_u64()));
    // The model's replay starts from the leader that led just before the first fault, a pause
    // included (the model crashes a paused member: see `model_scenario`).
    let first = sc["schedule"].as_array().and_then(|s| s.first()).and_then(|s| s["at"].as_u64());
    let first_pause = events.iter().filter(|e| e["paused"] == true).filter_map(|e| e["at"].as_u64()).min();
    if let Some(first_pause) = first_pause.filter(|p| first.is_none_or(|f| *p < f)) {
        let leading = events
            .iter()
            .rev()
            .filter(|e| e["at"].as_u64().is_some_and(|t| t <= first_pause))
            .filter(|e| e["role"] == "leader" || e["role"] == "leading")
            .find_map(|e| e["node"].as_u64());
        sc["initial_leader"] = json!(leading);
    }
    sc["params"]["events"] = Value::Array(events);
}
