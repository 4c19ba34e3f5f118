//! An etcd election read from its members' logs (etcd 3.4, whose Raft follows Ongaro &
//! Ousterhout 2014), replayed as it happened: see [`super::recorded`].
//!
//! Both of etcd 3.4's loggers are read: the default text logger (`raft2026/12/03 07:49:48 INFO:
//! <id> became candidate at term 2`: raft lines carry whole seconds, so within one second they
//! are placed 1 ms apart after the member's last line with a finer timestamp — the report says
//! so) and `--logger=zap` (JSON lines with millisecond timestamps). Member ids are etcd's
//! 16-hex-digit ids; names, peer addresses and the election timeout come from the start-up lines.
//!
//! Lines read: became follower / pre-candidate / candidate / leader at term T; `sent MsgVote
//! request to` (a REQUEST_VOTE sent); `cast MsgVote for` and `rejected MsgVote from` (its
//! arrival, and the VOTE_GRANT or VOTE_DENY sent back); `received MsgVoteResp from` (that
//! answer's arrival); `has received N MsgVoteResp votes and M vote rejections`; `elected
//! leader` / `lost leader`; the same for MsgPreVote; and rafthttp's `peer <id> became
//! inactive` / `active`, `lost the TCP streaming connection with peer <id>`.

use super::recorded::{self, puppet_protocol, Builder, Flavor, Imported, Line, LogFile, What};
use crate::algorithm::Algorithm;
use crate::meta::k;
use crate::meta::{single_leader, CANDIDATE_ROLE, FOLLOWER_ROLE, LEADER_ROLE};
use crate::meta::{Faults, Kind, Look, Preset, Role, Text, Topology, Visual, ONE_LEADER_PER_TERM};
use serde_json::Value;

pub const ID: &str = "etcd-log";
/// The textbook algorithm that replays an etcd run.
pub const MODEL: &str = "raft";

#[derive(Clone, Debug)]
pub struct Etcd;

pub const KINDS: &[Kind] = &[
    Kind::new("REQUEST_VOTE", "RV", Visual::Request, k::ETCD_LOG_KIND_REQUEST_VOTE),
    Kind::new("VOTE_GRANT", "✓", Visual::Answer, k::ETCD_LOG_KIND_VOTE_GRANT),
    Kind::new("VOTE_DENY", "✗", Visual::Refusal, k::ETCD_LOG_KIND_VOTE_DENY),
    Kind::new("PRE_VOTE", "PV", Visual::Request, k::ETCD_LOG_KIND_PRE_VOTE),
    Kind::new("PRE_VOTE_GRANT", "p✓", Visual::Answer, k::ETCD_LOG_KIND_PRE_VOTE_GRANT),
    Kind::new("PRE_VOTE_DENY", "p✗", Visual::Refusal, k::ETCD_LOG_KIND_PRE_VOTE_DENY),
];

const PRE_CANDIDATE: Role = Role::new("pre-candidate", Look::Candidate, k::ETCD_LOG_ROLE_PRE_CANDIDATE);

impl Flavor for Etcd {
    const KINDS: &'static [Kind] = KINDS;
    const INITIAL_ROLE: &'static str = "follower";
    const ROLES: &'static [&'static str] = &["leader", "follower", "candidate", "pre-candidate"];
    const TERM_WORD: Option<&'static Text> = None;
    const VOTE_KIND: Option<usize> = Some(1);
    const SAYS: &'static [(&'static str, Text)] = &[
        ("follower", k::ETCD_LOG_MEMBER_0_BECAME_FOLLOWER_AT),
        ("pre-candidate", k::ETCD_LOG_MEMBER_0_BECAME_PRE_CANDIDATE),
        ("candidate", k::ETCD_LOG_MEMBER_0_BECAME_CANDIDATE_AT),
        ("leader", k::ETCD_LOG_MEMBER_0_BECAME_LEADER_AT),
        ("elected", k::ETCD_LOG_MEMBER_0_LEARNS_THAT_MEMBER),
        ("lost", k::ETCD_LOG_MEMBER_0_LOST_ITS_LEADER),
        ("starting", k::ETCD_LOG_MEMBER_0_S_ELECTION_TIMEOUT),
        ("tally", k::ETCD_LOG_MEMBER_0_HAS_1_VOTES),
        ("higher", k::ETCD_LOG_MEMBER_0_SEES_A_VOTE),
        ("self-vote", k::ETCD_LOG_MEMBER_0_COUNTS_ITS_OWN),
        ("peer-down", k::ETCD_LOG_MEMBER_0_LOST_ITS_CONNECTION),
        ("peer-up", k::ETCD_LOG_MEMBER_0_REACHES_MEMBER_1),
        ("started", k::ETCD_LOG_MEMBER_0_RE_STARTED_ITS),
    ];
    const SENT: &'static [Text] = &[
        k::ETCD_LOG_MEMBER_0_SENDS_MEMBER_1,
        k::ETCD_LOG_MEMBER_0_CASTS_ITS_VOTE,
        k::ETCD_LOG_MEMBER_0_REJECTS_MEMBER_1,
        k::ETCD_LOG_MEMBER_0_SENDS_MEMBER_1_2,
        k::ETCD_LOG_MEMBER_0_GRANTS_MEMBER_1,
        k::ETCD_LOG_MEMBER_0_REFUSES_MEMBER_1,
    ];
    const GOT: &'static [Text] = &[
        k::ETCD_LOG_MEMBER_0_GETS_MEMBER_1,
        k::ETCD_LOG_MEMBER_0_GETS_MEMBER_1_2,
        k::ETCD_LOG_MEMBER_0_GETS_MEMBER_1_3,
        k::ETCD_LOG_MEMBER_0_GETS_MEMBER_1_4,
        k::ETCD_LOG_MEMBER_0_GETS_MEMBER_1_5,
        k::ETCD_LOG_MEMBER_0_GETS_MEMBER_1_6,
    ];
    fn label(kind: usize, term: u64, _extra: u64) -> String {
        format!("{}(t{term})", KINDS.get(kind).map_or("?", |k| k.name))
    }
}

puppet_protocol!(EtcdLog, Etcd);

pub const ALGORITHM: Algorithm = Algorithm {
    id: ID,
    title: k::ETCD_LOG_TITLE,
    citation: "etcd 3.4 (Raft: D. Ongaro and J. Ousterhout, In Search of an Understandable Consensus Algorithm, USENIX ATC 2014)",
    summary: k::ETCD_LOG_SUMMARY,
    card: k::ETCD_LOG_CARD,
    topology: Topology::Complete,
    kinds: KINDS,
    roles: &[LEADER_ROLE, FOLLOWER_ROLE, CANDIDATE_ROLE, PRE_CANDIDATE],
    formulas: &[],
    properties: &[single_leader(Faults::Any), ONE_LEADER_PER_TERM],
    presets: &[Preset {
        id: "etcd-leader-killed",
        title: k::ETCD_LOG_PRESET_ETCD_LEADER_KILLED_TITLE,
        hint: k::ETCD_LOG_PRESET_ETCD_LEADER_KILLED_HINT,
        json: include_str!("recorded/etcd-leader-killed.json"),
        leaders: &[2],
        // Pins the replay of a real etcd 3.4 log: the kill, the second election and its term.
        golden: "9ec3653868bfaf29",
    }],
    build: crate::run::build::<EtcdLog>,
};

/// Whether a text looks like an etcd log.
pub fn detect(text: &str) -> bool {
    let head = &text[..text.len().min(1 << 16)];
    head.contains("etcdmain")
        || head.contains("\"caller\":\"raft/")
        || head.contains("etcdserver")
        || head.contains("] cast MsgVote")
}

/// Reads etcd logs (one per member, in any order, or one merged log).
pub fn import(files: &[LogFile]) -> Result<Imported, String> {
    let mut b = Builder::new(files)?;
    let mut timeouts: Option<(u64, u64)> = None;
    let mut text_logger = false;
    for (f, file) in files.iter().enumerate() {
        // The member a text-logger line without an id belongs to: the file's one raft id.
        let mut ids: Vec<String> = Vec::new();
        for line in file.text.lines().take(200_000) {
            if let Some(rest) = raft_text(line).map(|r| r.1.to_string()).or_else(|| zap(line).map(|z| z.2)) {
                if let Some(id) = rest.split_whitespace().find(|w| is_id(w)) {
                    if !ids.iter().any(|x| x == id) {
                        ids.push(id.to_string());
                    }
                    if ids.len() > 1 {
                        break;
                    }
                }
            }
        }
        // zap lines name their member; a text file with one member names it once.
        let file_member = ids.first().filter(|_| ids.len() == 1).cloned();
        let (mut name, mut addr) = (String::new(), String::new());
        let mut last_t = 0u64;
        let mut lines = 0usize;
        for (k, raw) in file.text.lines().enumerate() {
            lines += 1;
            let n = k + 1;
            if raw.len() > recorded::MAX_LINE {
                b.damaged(f, n, "line too long");
                continue;
            }
            let line = raw.trim_end();
            // ---- zap JSON
            if line.starts_with('{') {
                let Some((t, obj, msg)) = zap(line) else {
                    if line.contains("\"msg\"") || !line.ends_with('}') {
                        b.damaged(f, n, "not a complete JSON log line");
                    } else {
                        b.report.skipped += 1;
                    }
                    continue;
                };
                last_t = last_t.max(t);
                b.clock(t);
                let field = |k: &str| obj.get(k).and_then(Value::as_str).map(str::to_string);
                let member = field("local-member-id").or_else(|| raft_member(&msg)).or_else(|| file_member.clone());
                if msg == "starting an etcd server" {
                    name = field("name").unwrap_or_default();
                    if let (Some(e), Some(h)) = (field("election-timeout"), field("heartbeat-interval")) {
                        if let (Some(e), Some(h)) = (duration_ms(&e), duration_ms(&h)) {
                            timeouts = Some((h, e));
                        }
                    }
                    if let Some(m) = &file_member {
                        b.lines.push(Line { t, member: m.clone(), file: f, line: n, what: What::Started });
                    }
                }
                if let Some(u) = obj.get("initial-advertise-peer-urls").and_then(|v| v.get(0)).and_then(Value::as_str) {
                    addr = u.trim_start_matches("http://").trim_start_matches("https://").to_string();
                }
                let Some(member) = member else {
                    b.report.skipped += 1;
                    continue;
                };
                b.seen_at(&member, t, f, n);
                // Names and addresses, also in a merged log: lines naming their member carry them.
                if let Some(info) = b.members.get_mut(&member) {
                    if let Some(n) = field("local-member-attributes").and_then(|a| {
                        a.split_once("Name:").map(|x| x.1.split([' ', '}']).next().unwrap_or("").to_string())
                    }) {
                        info.name = n;
                    }
                    if field("local-member-id").is_some() {
                        if let Some(u) =
                            obj.get("initial-advertise-peer-urls").and_then(|v| v.get(0)).and_then(Value::as_str)
                        {
                            info.addr = u.trim_start_matches("http://").trim_start_matches("https://").to_string();
                        }
                    }
                }
                let peer = field("peer-id").or_else(|| field("remote-peer-id"));
                let what =
                    if msg.starts_with("peer became inactive") || msg.starts_with("lost TCP streaming connection") {
                        peer.map(What::PeerDown)
                    } else if msg == "peer became active" {
                        peer.map(What::PeerUp)
                    } else {
                        None
                    };
                if let Some(w) = what {
                    b.lines.push(Line { t, member, file: f, line: n, what: w });
                    continue;
                }
                match raft_line(&msg) {
                    Ok(Some(whats)) => push(&mut b, t, f, n, whats),
                    Ok(None) => b.report.skipped += 1,
                    Err(e) => b.damaged(f, n, e),
                }
                continue;
            }
            // ---- text logger, raft lines (whole seconds)
            if let Some((t, msg)) = raft_text(line) {
                text_logger = true;
                if file_member.is_none() {
                    // A raft line gives whole seconds and only its own member's id; placing it
                    // needs the finer timestamps of the same member's other lines, which do not
                    // name their member. Read from one file of several members, it would be
                    // timed and attributed wrongly (a split brain that never was): refused.
                    return Err(format!(
                        "{}:{n}: this file holds the default text logger's lines of several etcd members; their raft lines carry whole seconds and their other lines do not name their member, so one merged text log cannot be timed or attributed faithfully: import each member's own log, or logs written with --logger=zap, which name their member on every line and may be merged",
                        file.name
                    ));
                }
                let t = if t + 999 < last_t { last_t + 1 } else { t.max(last_t + 1) };
                last_t = t;
                if let Some(m) = raft_member(msg) {
                    b.seen_at(&m, t, f, n);
                }
                match raft_line(msg) {
                    Ok(Some(whats)) => push(&mut b, t, f, n, whats),
                    Ok(None) => b.report.skipped += 1,
                    Err(e) => b.damaged(f, n, e),
                }
                continue;
            }
            if line.starts_with("raft") && line.contains("INFO:") {
                b.damaged(f, n, "a raft line with a damaged timestamp");
                continue;
            }
            // ---- text logger, other lines: "2026-12-03 09:25:33.907161 I | pkg: msg"
            let Some((t, precise)) = recorded::parse_stamp(line) else {
                if line.contains("MsgVote") || line.contains("became leader") {
                    b.damaged(f, n, "an election line with a damaged timestamp");
                } else {
                    b.report.skipped += 1;
                }
                continue;
            };
            if precise {
                last_t = last_t.max(t);
            }
            b.clock(t);
            let msg = line.split_once(" | ").map(|x| x.1).unwrap_or("");
            if let Some(v) = msg.strip_prefix("embed: name = ") {
                name = v.trim().to_string();
            } else if let Some(v) = msg.strip_prefix("embed: listening for peers on ") {
                addr = v.trim().to_string();
            } else if let Some(v) = msg.strip_prefix("embed: election = ") {
                if let Some(e) = duration_ms(v.trim()) {
                    timeouts = Some((timeouts.map_or(100, |x| x.0), e));
                }
            } else if let Some(v) = msg.strip_prefix("embed: heartbeat = ") {
                if let Some(h) = duration_ms(v.trim()) {
                    timeouts = Some((h, timeouts.map_or(1000, |x| x.1)));
                }
            } else if msg.starts_with("etcdmain: etcd Version") {
                if let Some(m) = &file_member {
                    b.lines.push(Line { t, member: m.clone(), file: f, line: n, what: What::Started });
                }
            }
            let Some(member) = file_member.clone() else {
                b.report.skipped += 1;
                continue;
            };
            b.seen_at(&member, t, f, n);
            let peer_of = |s: &str| s.split_whitespace().next().filter(|w| is_id(w)).map(str::to_string);
            let what = if let Some(r) = msg.strip_prefix("rafthttp: peer ") {
                let p = peer_of(r);
                if r.contains(" became inactive") {
                    p.map(What::PeerDown)
                } else if r.contains(" became active") {
                    p.map(What::PeerUp)
                } else {
                    None
                }
            } else if let Some(r) = msg.strip_prefix("rafthttp: lost the TCP streaming connection with peer ") {
                peer_of(r).map(What::PeerDown)
            } else {
                None
            };
            match what {
                Some(w) => b.lines.push(Line { t, member, file: f, line: n, what: w }),
                None => b.report.skipped += 1,
            }
        }
        b.report.files.push((file.name.to_string(), lines, 0));
        if let Some(m) = file_member {
            if let Some(info) = b.members.get_mut(&m) {
                if info.name.is_empty() {
                    info.name = name;
                }
                if info.addr.is_empty() {
                    info.addr = addr;
                }
            }
        }
    }
    if text_logger {
        b.report.notes.push(
            "the default text logger stamps raft lines with whole seconds: they are placed 1 ms apart after the member's last finer timestamp, so their times are approximate (--logger=zap gives milliseconds)"
                .into(),
        );
    }
    b.heartbeats = timeouts;
    if let Some((h, e)) = timeouts {
        b.report.notes.push(format!("heartbeat {h} ms, election timeout {e} ms (from the logs): the model's Raft draws its timeouts from [{e}, {}] ms", e.saturating_mul(2)));
    }
    b.finish_paused(ID, true, &|_, _| None, Vec::new(), &[])
}

fn push(b: &mut Builder, t: u64, file: usize, line: usize, whats: Vec<(String, What)>) {
    for (member, what) in whats {
        b.seen_at(&member, t, file, line);
        b.lines.push(Line { t, member, file, line, what });
    }
}

fn is_id(w: &str) -> bool {
    (1..=16).contains(&w.len()) && w.len() >= 8 && w.bytes().all(|c| c.is_ascii_hexdigit())
}

/// `raft2026/12/03 09:25:34 INFO: msg` → (ms, msg).
fn raft_text(line: &str) -> Option<(u64, &str)> {
    let rest = line.strip_prefix("raft")?;
    let (t, _) = recorded::parse_stamp(rest)?;
    let msg = rest.get(19..)?.trim_start();
    let msg = msg.split_once(": ").map(|x| x.1)?;
    Some((t, msg))
}

/// A zap JSON line → (ms, the object, msg).
fn zap(line: &str) -> Option<(u64, serde_json::Map<String, Value>, String)> {
    let v: Value = serde_json::from_str(line).ok()?;
    let obj = v.as_object()?.clone();
    let ts = obj.get("ts")?.as_str()?;
    let (t, _) = recorded::parse_stamp(ts)?;
    let msg = obj.get("msg")?.as_str()?.to_string();
    Some((t, obj, msg))
}

/// The member a raft message is about (its first word, or after `raft.node: `).
fn raft_member(msg: &str) -> Option<String> {
    let m = msg.strip_prefix("raft.node: ").unwrap_or(msg);
    let m = m.strip_prefix("newRaft ").unwrap_or(m);
    m.split_whitespace().next().filter(|w| is_id(w)).map(str::to_string)
}

fn duration_ms(s: &str) -> Option<u64> {
    if let Some(v) = s.strip_suffix("ms") {
        return v.trim().parse().ok();
    }
    if let Some(v) = s.strip_suffix('s') {
        return v.trim().parse::<f64>().ok().filter(|x| x.is_finite() && *x >= 0.0).map(|x| (x * 1000.0) as u64);
    }
    None
}

fn num_after(s: &str, key: &str) -> Result<u64, String> {
    let at = s.rfind(key).ok_or_else(|| format!("no '{}' in the line", key.trim()))?;
    let digits: String = s[at + key.len()..].chars().take_while(|c| c.is_ascii_digit()).collect();
    digits.parse().map_err(|_| format!("'{}' is not followed by a number", key.trim()))
}

fn id_after(s: &str, key: &str) -> Result<String, String> {
    let at = s.find(key).ok_or_else(|| format!("no '{}' in the line", key.trim()))?;
    let w = s[at + key.len()..].split_whitespace().next().unwrap_or("");
    if is_id(w) {
        Ok(w.to_string())
    } else {
        Err(format!("'{}' is not followed by a member id", key.trim()))
    }
}

fn state(role: Option<&'static str>, term: Option<u64>, say: &'static str, args: [u64; 2]) -> What {
    What::State { role, term, leader: None, vote: None, tally: None, zxid: None, say, args, arg_member: None }
}

/// One raft message → what it says, per member; `Ok(None)` when it is not about the election.
#[allow(clippy::type_complexity)]
fn raft_line(msg: &str) -> Result<Option<Vec<(String, What)>>, String> {
    let Some(me) = raft_member(msg) else {
        if msg.contains("MsgVote") || msg.contains("MsgPreVote") || msg.contains(" became ") {
            return Err("an election line without a member id".into());
        }
        return Ok(None);
    };
    let pre = msg.contains("MsgPreVote");
    let (rv, grant, deny) =
        if pre { ("PRE_VOTE", "PRE_VOTE_GRANT", "PRE_VOTE_DENY") } else { ("REQUEST_VOTE", "VOTE_GRANT", "VOTE_DENY") };
    let one = |w: What| Ok(Some(vec![(me.clone(), w)]));
    if let Some(role) = ["follower", "pre-candidate", "candidate", "leader"]
        .into_iter()
        .find(|r| msg.contains(&format!(" became {r} at term ")))
    {
        let term = num_after(msg, " at term ")?;
        let mut w = state(Some(role), Some(term), role, [term, 0]);
        if let What::State { leader, vote, .. } = &mut w {
            match role {
                "leader" => *leader = Some(Some(me.clone())),
                "candidate" => {
                    *leader = Some(None);
                    *vote = Some(Some(me.clone()));
                }
                "follower" => *leader = Some(None),
                _ => {}
            }
        }
        return one(w);
    }
    if msg.starts_with("raft.node: ") && msg.contains(" elected leader ") {
        let l = id_after(msg, " elected leader ")?;
        let term = num_after(msg, " at term ")?;
        let mut w = state(None, Some(term), "elected", [0, term]);
        if let What::State { leader, arg_member, .. } = &mut w {
            *leader = Some(Some(l.clone()));
            *arg_member = Some((0, l));
        }
        return one(w);
    }
    if msg.starts_with("raft.node: ") && msg.contains(" lost leader ") {
        let l = id_after(msg, " lost leader ")?;
        let term = num_after(msg, " at term ")?;
        let mut w = state(None, Some(term), "lost", [0, term]);
        if let What::State { leader, arg_member, .. } = &mut w {
            *leader = Some(None);
            *arg_member = Some((0, l));
        }
        return one(w);
    }
    if msg.contains(" is starting a new election at term ") {
        let term = num_after(msg, " at term ")?;
        return one(state(None, None, "starting", [term.saturating_add(1), 0]));
    }
    if msg.contains(" request to ") && (msg.contains("sent MsgVote") || msg.contains("sent MsgPreVote")) {
        let to = id_after(msg, " request to ")?;
        let term = num_after(msg, " at term ")?;
        return one(What::Send { to, kind: rv, term, extra: 0 });
    }
    if msg.contains("] cast MsgVote for ") || msg.contains("] cast MsgPreVote for ") {
        let from = id_after(msg, if pre { " cast MsgPreVote for " } else { " cast MsgVote for " })?;
        let term = num_after(msg, " at term ")?;
        return Ok(Some(vec![
            (me.clone(), What::Recv { from: from.clone(), kind: rv, term, extra: 0 }),
            (me.clone(), What::Send { to: from, kind: grant, term, extra: 0 }),
        ]));
    }
    if msg.contains("] rejected MsgVote from ") || msg.contains("] rejected MsgPreVote from ") {
        let from = id_after(msg, if pre { " rejected MsgPreVote from " } else { " rejected MsgVote from " })?;
        let term = num_after(msg, " at term ")?;
        return Ok(Some(vec![
            (me.clone(), What::Recv { from: from.clone(), kind: rv, term, extra: 0 }),
            (me.clone(), What::Send { to: from, kind: deny, term, extra: 0 }),
        ]));
    }
    if msg.contains(" received a MsgVote message with higher term from ")
        || msg.contains(" received a MsgPreVote message with higher term from ")
    {
        let from = id_after(msg, " with higher term from ")?;
        let term = num_after(msg, "[term: ")?;
        let mut w = state(None, None, "higher", [0, term]);
        if let What::State { arg_member, .. } = &mut w {
            *arg_member = Some((0, from));
        }
        return one(w);
    }
    if msg.contains(" ignored a MsgVote message with lower term from ")
        || msg.contains(" ignored a MsgPreVote message with lower term from ")
    {
        let from = id_after(msg, " with lower term from ")?;
        let term = num_after(msg, "[term: ")?;
        return one(What::Recv { from, kind: rv, term, extra: 0 });
    }
    for (key, kind) in [
        (" received MsgVoteResp rejection from ", "VOTE_DENY"),
        (" received MsgPreVoteResp rejection from ", "PRE_VOTE_DENY"),
        (" received MsgVoteResp from ", "VOTE_GRANT"),
        (" received MsgPreVoteResp from ", "PRE_VOTE_GRANT"),
    ] {
        if msg.contains(key) {
            let from = id_after(msg, key)?;
            let term = num_after(msg, " at term ")?;
            if from == me {
                return one(state(None, None, "self-vote", [term, 0]));
            }
            return one(What::Recv { from, kind, term, extra: 0 });
        }
    }
    if msg.contains(" has received ") && msg.contains(" votes and ") {
        let votes = num_after(msg, " has received ")?;
        let rejections = num_after(msg, " votes and ")?;
        let mut w = state(None, None, "tally", [votes, rejections]);
        if let What::State { tally, .. } = &mut w {
            *tally = Some([votes as u32, 0]);
        }
        return one(w);
    }
    if msg.contains("MsgVote") || msg.contains("MsgPreVote") {
        // Other vote lines (e.g. "ignored MsgVote ... lease is not expired") are about the
        // election but carry nothing drawn here.
        return Ok(None);
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_election_lines_of_both_loggers() {
        let m = raft_line("e6131c5e242d2579 [logterm: 1, index: 3] sent MsgVote request to 869aa7b12809b65 at term 2")
            .unwrap()
            .unwrap();
        assert_eq!(m[0].1, What::Send { to: "869aa7b12809b65".into(), kind: "REQUEST_VOTE", term: 2, extra: 0 });
        let c = raft_line("869aa7b12809b65 [logterm: 1, index: 3, vote: 0] cast MsgVote for e6131c5e242d2579 [logterm: 1, index: 3] at term 2").unwrap().unwrap();
        assert_eq!(c.len(), 2);
        assert_eq!(c[0].1, What::Recv { from: "e6131c5e242d2579".into(), kind: "REQUEST_VOTE", term: 2, extra: 0 });
        assert!(raft_line("e6131c5e242d2579 became candidate at term x").is_err());
        assert_eq!(raft_line("e6131c5e242d2579 switched to configuration voters=()").unwrap(), None);
        assert_eq!(raft_text("raft2026/12/03 09:25:34 INFO: abc").unwrap().1, "abc");
        assert_eq!(duration_ms("1s"), Some(1000));
        assert_eq!(duration_ms("100ms"), Some(100));
    }
}
