//! Events into a recorded run: each event becomes the line a hand-written importer would have
//! made ([`What`]), in the vocabulary's words; the [`Builder`] matches messages, finds faults and
//! writes the scenario; crashes and recoveries the events state outright replace the inferred ones.

use super::{algorithm_of, Event, Header, Vocabulary};
use crate::protocols::recorded::pause;
use crate::protocols::recorded::{member_nodes as members, Builder, Imported, Key, Line, LogFile, What};
use serde_json::{json, Value};
use std::collections::BTreeMap;

fn state(role: Option<&'static str>, term: Option<u64>, say: &'static str, args: [u64; 2]) -> What {
    What::State { role, term, leader: None, vote: None, tally: None, zxid: None, say, args, arg_member: None }
}

/// What a member's earlier events said, for the events that leave a field to it: its term
/// (raft) or round (zookeeper), its vote and the leader it knew.
#[derive(Default)]
struct Memory {
    term: Option<u64>,
    vote: Option<Key>,
    leader: Option<Key>,
    /// The last leader it knew, kept when it forgets it (a "lost leader" names it).
    known: Option<Key>,
    /// The round of the last notification sent (zookeeper).
    sent_round: Option<u64>,
}

/// Builds the recorded run: `files` are what the events were read from (the events file, or the
/// logs a mapping read), `read` the lines read in each, `damaged` the lines refused on the way.
pub fn import_events(
    files: &[LogFile],
    read: &[usize],
    header: &Header,
    events: &[Event],
    damaged: &[(usize, usize, String)],
) -> Result<Imported, String> {
    let mut b = Builder::new(files)?;
    let voc = header.vocabulary;
    for (f, why) in damaged.iter().map(|d| (d, &d.2)) {
        b.damaged(f.0, f.1, why);
    }
    if let Some(s) = header.start {
        b.clock(s);
    }
    for m in &header.members {
        match m.logged {
            Some((first, last)) => {
                b.seen(&m.id, first);
                match m.last_at {
                    Some((f, l)) => b.seen_at(&m.id, last, f, l),
                    None => b.seen(&m.id, last),
                }
                b.clock(first);
            }
            None => {
                b.members.entry(m.id.clone()).or_insert_with(|| crate::protocols::recorded::MemberInfo {
                    first: u64::MAX,
                    ..Default::default()
                });
            }
        }
        let info = b.members.get_mut(&m.id).expect("just inserted");
        info.name = m.name.clone();
        info.addr = m.addr.clone();
    }
    // Stated faults: (node key, time, crash?, where); pauses (pause?) and links likewise.
    let mut stated: Vec<(Key, u64, bool, String)> = Vec::new();
    let mut paused: Vec<(Key, u64, bool, String)> = Vec::new();
    let mut links: Vec<pause::LinkEvent> = Vec::new();
    // Vector clocks, when the events carry them, place each event after those that happened
    // before it (see [`super::clock`]); without them nothing moves.
    let placed = super::clock::place(events, &|e: &Event| {
        files.get(e.file).map(|f| format!("{}:{}", f.name, e.line)).unwrap_or_default()
    });
    if let Some((_, found)) = &placed {
        b.report.notes.extend(found.notes());
    }
    let events: &[Event] = placed.as_ref().map_or(events, |p| &p.0);
    let mut order: Vec<&Event> = events.iter().collect();
    // Any interleaving of the same events (a merged log, sorted or not) gives the same run.
    crate::sort::sort_by_key(&mut order, |e| (e.t, e.file, e.line));
    let mut memory: BTreeMap<Key, Memory> = BTreeMap::new();
    let mut cuts = false;
    for e in order {
        let me = e.node.clone();
        let mem = memory.entry(me.clone()).or_default();
        let u = |k: &str| e.fields.get(k).and_then(Value::as_u64);
        let id = |k: &str| e.fields.get(k).and_then(Value::as_str).map(str::to_string);
        let term = u("term").or(mem.term);
        let t = term.unwrap_or(0);
        let mut out: Vec<What> = Vec::new();
        match (voc, e.kind) {
            (Vocabulary::Raft, "became_leader") => {
                let mut w = state(Some("leader"), Some(t), "leader", [t, 0]);
                if let What::State { leader, .. } = &mut w {
                    *leader = Some(Some(me.clone()));
                }
                mem.leader = Some(me.clone());
                out.push(w);
            }
            (Vocabulary::Raft, "became_follower") => {
                let l = id("leader");
                let mut w = state(Some("follower"), Some(t), "follower", [t, 0]);
                if let What::State { leader, .. } = &mut w {
                    *leader = Some(l.clone());
                }
                mem.leader = l;
                out.push(w);
            }
            (Vocabulary::Raft, "became_candidate") => {
                let mut w = state(Some("candidate"), Some(t), "candidate", [t, 0]);
                if let What::State { leader, vote, .. } = &mut w {
                    *leader = Some(None);
                    *vote = Some(Some(me.clone()));
                }
                mem.leader = None;
                mem.vote = Some(me.clone());
                out.push(w);
            }
            (Vocabulary::Raft, "became_pre_candidate") => {
                out.push(state(Some("pre-candidate"), Some(t), "pre-candidate", [t, 0]));
            }
            (Vocabulary::Raft, "leader") => {
                let l = id("leader");
                let (say, named) = match &l {
                    Some(l) => ("elected", Some(l.clone())),
                    // The leader it lost: the last it knew (a step down to follower may
                    // have forgotten it just before).
                    None => ("lost", mem.leader.clone().or_else(|| mem.known.clone())),
                };
                let mut w = state(None, term, say, [0, t]);
                if let What::State { leader, arg_member, .. } = &mut w {
                    *leader = Some(l.clone());
                    *arg_member = named.map(|k| (0, k));
                }
                mem.leader = l;
                out.push(w);
            }
            (Vocabulary::Raft, "timeout") => out.push(state(None, None, "starting", [t.saturating_add(1), 0])),
            (Vocabulary::Raft, "higher_term") => {
                let mut w = state(None, None, "higher", [0, u("term").unwrap_or(0)]);
                if let What::State { arg_member, .. } = &mut w {
                    *arg_member = id("peer").map(|p| (0, p));
                }
                out.push(w);
            }
            (Vocabulary::Raft, "vote") => {
                let to = id("for").unwrap_or_default();
                if to == me {
                    out.push(state(None, None, "self-vote", [t, 0]));
                } else {
                    out.push(What::Send { to: to.clone(), kind: "VOTE_GRANT", term: t, extra: 0 });
                }
                mem.vote = Some(to);
            }
            (Vocabulary::Raft, "tally") => {
                let votes = u("votes").unwrap_or(0);
                let mut w = state(None, None, "tally", [votes, u("rejections").unwrap_or(0)]);
                if let What::State { tally, .. } = &mut w {
                    *tally = Some([votes.min(u32::MAX as u64) as u32, 0]);
                }
                out.push(w);
            }
            (Vocabulary::Zookeeper, "became_leader") => {
                let mut w = state(Some(crate::protocol::LEADING), None, "leading", [0, 0]);
                if let What::State { leader, .. } = &mut w {
                    *leader = Some(Some(me.clone()));
                }
                out.push(w);
            }
            (Vocabulary::Zookeeper, "became_follower") => {
                // A server leaves the election following whom it proposed last.
                let l = id("leader").or_else(|| mem.vote.clone());
                let mut w = state(Some("following"), None, "following", [0, 0]);
                if let What::State { leader, arg_member, .. } = &mut w {
                    *leader = Some(l.clone());
                    *arg_member = l.map(|l| (0, l));
                }
                out.push(w);
            }
            (Vocabulary::Zookeeper, "became_candidate") => {
                let mut w = state(Some("looking"), None, "looking", [0, 0]);
                if let What::State { leader, .. } = &mut w {
                    *leader = Some(None);
                }
                out.push(w);
            }
            (Vocabulary::Zookeeper, "term") => {
                out.push(state(None, Some(t), "round", [t, 0]));
            }
            (Vocabulary::Zookeeper, "vote") => {
                let to = id("for").unwrap_or_default();
                let z = u("zxid").unwrap_or(0);
                let opens = e.fields.get("opens").and_then(Value::as_bool).unwrap_or(false);
                let mut w = if opens {
                    state(None, None, "new-election", [z, 0])
                } else {
                    state(None, None, "proposal", [0, z])
                };
                if let What::State { vote, zxid, arg_member, .. } = &mut w {
                    *vote = Some(Some(to.clone()));
                    if opens {
                        *zxid = Some(z);
                    } else {
                        *arg_member = Some((0, to.clone()));
                    }
                }
                mem.vote = Some(to);
                out.push(w);
            }
            (_, "send" | "receive") => {
                let peer = id("peer").unwrap_or_default();
                let msg = e.fields.get("msg").and_then(Value::as_str).unwrap_or("");
                let mut kind = voc.msgs().iter().find(|(n, _)| *n == msg).map_or("", |x| x.1);
                if voc == Vocabulary::Raft
                    && e.kind == "receive"
                    && kind == "VOTE_GRANT"
                    && id("leader").is_some_and(|l| l != me)
                {
                    // An answer naming the member the peer voted for (Sentinel's "X voted for Y"):
                    // a grant only when that is the receiver, else a refusal.
                    kind = "VOTE_DENY";
                }
                let extra = id("leader").and_then(|l| l.parse::<u64>().ok()).unwrap_or(0);
                if voc == Vocabulary::Zookeeper && e.kind == "send" {
                    // A notification sent in a new round moves its sender to that round.
                    if u("term").is_some() && u("term") != mem.sent_round {
                        mem.sent_round = u("term");
                        out.push(state(None, Some(t), "round", [t, 0]));
                    }
                    mem.vote = id("leader").or(mem.vote.take());
                }
                if peer == me && voc == Vocabulary::Raft && e.kind == "receive" && kind == "VOTE_GRANT" {
                    // Its own vote, counted.
                    out.push(state(None, None, "self-vote", [t, 0]));
                } else if peer != me {
                    out.push(if e.kind == "send" {
                        What::Send { to: peer, kind, term: t, extra }
                    } else {
                        What::Recv { from: peer, kind, term: t, extra }
                    });
                }
            }
            (_, "peer_down") => out.push(What::PeerDown(id("peer").unwrap_or_default())),
            (_, "peer_up") => {
                cuts = true;
                out.push(What::PeerUp(id("peer").unwrap_or_default()));
            }
            (_, "started") => out.push(What::Started),
            (_, "crash" | "recover") => {
                let at = files.get(e.file).map(|f| format!("{}:{}", f.name, e.line)).unwrap_or_default();
                stated.push((me.clone(), e.t, e.kind == "crash", at));
            }
            (_, "pause" | "resume") => {
                let at = files.get(e.file).map(|f| format!("{}:{}", f.name, e.line)).unwrap_or_default();
                paused.push((me.clone(), e.t, e.kind == "pause", at));
            }
            (_, "link_lost" | "link_restored") => {
                let at = files.get(e.file).map(|f| format!("{}:{}", f.name, e.line)).unwrap_or_default();
                links.push((me.clone(), id("peer").unwrap_or_default(), e.t, e.kind == "link_lost", at));
            }
            (_, "note") => {
                let at = files.get(e.file).map(|f| format!("{}:{}", f.name, e.line)).unwrap_or_default();
                let text = e.fields.get("text").and_then(Value::as_str).unwrap_or(&e.raw);
                b.report.notes.push(format!("{at} (member {me}): {text}"));
            }
            (v, k) => return Err(format!("kind '{k}' is not in the {} vocabulary", v.name())),
        }
        // A higher term seen in a request is the peer's, not yet the member's.
        if let Some(term) = u("term").filter(|_| e.kind != "higher_term") {
            mem.term = Some(term);
        }
        if let Some(l) = &mem.leader {
            mem.known = Some(l.clone());
        }
        b.clock(e.t);
        if !out.is_empty() {
            b.seen_at(&me, e.t, e.file, e.line);
        }
        for what in out {
            b.lines.push(Line { t: e.t, member: me.clone(), file: e.file, line: e.line, what });
        }
    }
    for (f, n) in read.iter().enumerate() {
        b.report.files.push((files.get(f).map_or("", |x| x.name).to_string(), *n, 0));
    }
    b.heartbeats = header.timeouts;
    if let Some((h, e)) = header.timeouts {
        b.report
            .notes
            .push(format!("heartbeat {h} ms, election timeout {e} ms (from the logs), for the model's replay"));
    }
    let (algorithm, model) = algorithm_of(voc);
    b.report.notes.push(format!(
        "{}: {} vocabulary, drawn as a recorded run of {algorithm} and replayed beside {model}",
        if header.system.is_empty() { "events" } else { &header.system },
        voc.name()
    ));
    // Lines that state a fault or a note are used too, though they draw no step.
    let drawn: std::collections::BTreeSet<(usize, usize)> = b.lines.iter().map(|l| (l.file, l.line)).collect();
    let mut kept: Vec<(usize, usize)> = events
        .iter()
        .filter(|e| super::FAULT_KINDS.contains(&e.kind) && !drawn.contains(&(e.file, e.line)))
        .map(|e| (e.file, e.line))
        .collect();
    kept.sort_unstable();
    kept.dedup();
    // The evidence of each member's end: its last line, and its peers' first report of the loss.
    let mut ends: Vec<(Key, u64, u64, String)> = Vec::new();
    for (k, m) in &b.members {
        let first_loss = b
            .lines
            .iter()
            .filter(|l| matches!(&l.what, What::PeerDown(p) if p == k) && l.t > m.last)
            .min_by_key(|l| l.t);
        if let Some(l) = first_loss {
            let at = files.get(l.file).map(|f| format!("{}:{}", f.name, l.line)).unwrap_or_default();
            ends.push((k.clone(), m.last, l.t, at));
        }
    }
    // Pauses: stated ones replace those the logs show for the same member; a paused member's
    // silence is no crash's evidence.
    let place = |l: &Line| files.get(l.file).map(|f| format!("{}:{}", f.name, l.line)).unwrap_or_default();
    let stated_pauses = pause::stated(&paused);
    let recognised = pause::recognise(&b.lines, &place);
    ends.retain(|e| !stated_pauses.iter().chain(&recognised).any(|p| p.member == e.0));
    let by_id = header.number_by_id;
    let number = move |k: &Key, _: &_| if by_id { k.parse().ok() } else { None };
    let mut imported = b.finish_paused(algorithm, cuts, &number, stated_pauses, &links)?;
    for (f, _) in kept {
        if let Some(file) = imported.report.files.get_mut(f) {
            file.2 += 1;
            imported.report.skipped = imported.report.skipped.saturating_sub(1);
        }
    }
    apply_evidence(&mut imported, &ends);
    apply_stated(&mut imported, &stated);
    Ok(imported)
}

/// A crash inferred from where a member's log stops is placed at its peers' first report of the
/// lost connection instead of 1 ms after its last line: a process killed after a quiet second
/// logs nothing in that second, but its peers see the connection drop at once. The crash lies
/// between the two; the report says which evidence placed it.
fn apply_evidence(imp: &mut Imported, ends: &[(Key, u64, u64, String)]) {
    let t0 = imp.scenario["params"]["t0"].as_u64().unwrap_or(0);
    let nodes: BTreeMap<String, u64> = members(&imp.scenario);
    let Some(schedule) = imp.scenario["schedule"].as_array_mut() else { return };
    for (key, last, lost, at) in ends {
        let Some(&n) = nodes.get(key) else { continue };
        let (last, lost) = (last.saturating_sub(t0), lost.saturating_sub(t0));
        let Some(s) = schedule.iter_mut().find(|s| s["crash"] == n && s["at"] == last + 1) else { continue };
        if lost <= last + 1 {
            continue;
        }
        s["at"] = json!(lost);
        let before = format!("member {n} stopped logging at {last} ms");
        if let Some(f) = imp.report.faults.iter_mut().find(|f| f.starts_with(&before)) {
            *f = format!(
                "{before}; its peers first reported the lost connection at {lost} ms ({at}): crashed at {lost} ms (it crashed between {last} and {lost} ms)"
            );
        }
    }
    crate::sort::sort_by_key(schedule, |s| s["at"].as_u64());
}

/// Crashes and recoveries the events state outright: they replace what was inferred for those
/// members from where their logs stop.
fn apply_stated(imp: &mut Imported, stated: &[(Key, u64, bool, String)]) {
    if stated.is_empty() {
        return;
    }
    let sc = &mut imp.scenario;
    let t0 = sc["params"]["t0"].as_u64().unwrap_or(0);
    let nodes = members(sc);
    let mut schedule: Vec<Value> = sc["schedule"].as_array().cloned().unwrap_or_default();
    let touched: Vec<u64> = stated.iter().filter_map(|s| nodes.get(&s.0).copied()).collect();
    schedule.retain(|s| {
        let n = s.get("crash").or_else(|| s.get("recover")).and_then(Value::as_u64);
        !n.is_some_and(|n| touched.contains(&n))
    });
    imp.report.faults.retain(|f| !touched.iter().any(|n| f.starts_with(&format!("member {n} "))));
    for (key, t, crash, at) in stated {
        let Some(&n) = nodes.get(key) else {
            imp.report.notes.push(format!("{at}: member '{key}' is in no log here: its fault is left out"));
            continue;
        };
        let rel = t.saturating_sub(t0);
        schedule.push(if *crash { json!({"at": rel, "crash": n}) } else { json!({"at": rel, "recover": n}) });
        let what = if *crash { "crashed" } else { "recovered" };
        imp.report.faults.push(format!("member {n} {what} at {rel} ms, as the events state ({at})"));
    }
    crate::sort::sort_by_key(&mut schedule, |s| s["at"].as_u64());
    sc["schedule"] = Value::Array(schedule);
}
