//! A ZooKeeper election read from its servers' logs (ZooKeeper 3.8's fast leader election, as
//! described by Junqueira, Reed & Serafini 2011), replayed as it happened: see
//! [`super::recorded`].
//!
//! The log4j pattern `%d{ISO8601} [myid:%X{myid}] %-5p [%t] %c{1} - %m%n` (millisecond
//! timestamps) is read. Servers are numbered by their myid (the sid that votes compare). Lines
//! read: `QuorumPeer - LOOKING / FOLLOWING / LEADING`; `New election. My id = …`; every received
//! `Notification: … n.sid, n.state, n.leader, n.round, n.peerEpoch, n.zxid` (a VOTE's arrival);
//! `Sending Notification: …` (a VOTE sent; logged at DEBUG by FastLeaderElection, which
//! `scripts/real-cluster.sh` turns on — without it every arrow's send is drawn one typical delay
//! before its arrival and flagged); `Updating proposal` and `About to leave FLE instance` (the
//! server's vote); `Connection broken for id N` and `Cannot open channel to N` (a lost peer).

use super::recorded::{self, puppet_protocol, Builder, Flavor, Imported, Line, LogFile, What};
use crate::algorithm::Algorithm;
use crate::meta::k;
use crate::meta::{single_leader, Faults, Kind, Look, Preset, Role, Text, Topology, Visual};
use crate::protocol::LEADING;
use std::collections::BTreeMap;

pub const ID: &str = "zookeeper-log";
/// The textbook algorithm that replays a ZooKeeper run.
pub const MODEL: &str = "zookeeper";

#[derive(Clone, Debug)]
pub struct Zk;

pub const KINDS: &[Kind] = &[Kind::new("VOTE", "V", Visual::Request, k::ZOOKEEPER_LOG_KIND_VOTE)];

static ROUND: Text = k::INSPECT_ROUND;

impl Flavor for Zk {
    const KINDS: &'static [Kind] = KINDS;
    const INITIAL_ROLE: &'static str = "looking";
    const ROLES: &'static [&'static str] = &["looking", "following", LEADING, "observing"];
    const TERM_WORD: Option<&'static Text> = Some(&ROUND);
    const VOTE_KIND: Option<usize> = None;
    const SAYS: &'static [(&'static str, Text)] = &[
        ("looking", k::ZOOKEEPER_LOG_SERVER_0_IS_LOOKING_FOR),
        ("following", k::ZOOKEEPER_LOG_SERVER_0_IS_FOLLOWING_SERVER),
        ("leading", k::ZOOKEEPER_LOG_SERVER_0_IS_LEADING_ITS),
        ("new-election", k::ZOOKEEPER_LOG_SERVER_0_STARTS_A_NEW),
        ("round", k::ZOOKEEPER_LOG_SERVER_0_IS_IN_ELECTION),
        ("proposal", k::ZOOKEEPER_LOG_SERVER_0_NOW_PROPOSES_SERVER),
        ("peer-down", k::ZOOKEEPER_LOG_SERVER_0_LOST_ITS_CONNECTION),
        ("started", k::ZOOKEEPER_LOG_SERVER_0_RE_STARTED_ITS),
    ];
    const SENT: &'static [Text] = &[k::ZOOKEEPER_LOG_SERVER_0_SENDS_SERVER_1];
    const GOT: &'static [Text] = &[k::ZOOKEEPER_LOG_SERVER_0_GETS_SERVER_1];
    fn label(_kind: usize, round: u64, leader: u64) -> String {
        format!("VOTE(N{leader}, r{round})")
    }
}

puppet_protocol!(ZookeeperLog, Zk);

pub const ALGORITHM: Algorithm = Algorithm {
    id: ID,
    title: k::ZOOKEEPER_LOG_TITLE,
    citation: "ZooKeeper 3.8 (fast leader election: F. P. Junqueira, B. C. Reed and M. Serafini, Zab: High-performance broadcast for primary-backup systems, DSN 2011)",
    summary: k::ZOOKEEPER_LOG_SUMMARY,
    card: k::ZOOKEEPER_LOG_CARD,
    topology: Topology::Complete,
    kinds: KINDS,
    roles: &[
        Role::new("looking", Look::Candidate, k::ZOOKEEPER_ROLE_LOOKING),
        Role::new("following", Look::Follower, k::ZOOKEEPER_ROLE_FOLLOWING),
        Role::new(LEADING, Look::Leader, k::ZOOKEEPER_LOG_LEADING),
        Role::new("observing", Look::Follower, k::ZOOKEEPER_LOG_ROLE_OBSERVING),
    ],
    formulas: &[],
    properties: &[single_leader(Faults::Any)],
    presets: &[Preset {
        id: "zookeeper-leader-killed",
        title: k::ZOOKEEPER_LOG_PRESET_ZOOKEEPER_LEADER_KILLED_TITLE,
        hint: k::ZOOKEEPER_LOG_PRESET_ZOOKEEPER_LEADER_KILLED_HINT,
        json: include_str!("recorded/zookeeper-leader-killed.json"),
        leaders: &[2],
        // Pins the replay of a real ZooKeeper 3.8 log: the kill and the second election.
        golden: "a0c24197afedfb06",
    }],
    build: crate::run::build::<ZookeeperLog>,
};

/// Whether a text looks like a ZooKeeper server log.
pub fn detect(text: &str) -> bool {
    let head = &text[..text.len().min(1 << 16)];
    head.contains("[myid:") && (head.contains("QuorumPeer") || head.contains("FastLeaderElection"))
}

fn hex(s: &str) -> Option<u64> {
    let s = s.trim();
    let s = s.strip_prefix("0x").unwrap_or(s);
    u64::from_str_radix(s, 16).ok()
}

/// `n.sid:3, n.state:LOOKING, ...` → the value after `key:` up to the next `,` or `;`.
fn field<'a>(s: &'a str, key: &str) -> Option<&'a str> {
    let at = s.find(key)?;
    let rest = &s[at + key.len()..];
    Some(rest.split([',', ';']).next().unwrap_or("").trim())
}

/// `Sending Notification: 3 (n.leader), 0x0 (n.zxid), ...` → the value before `(name)`.
fn before<'a>(s: &'a str, name: &str) -> Option<&'a str> {
    let at = s.find(&format!(" ({name})"))?;
    s[..at].rsplit([',', ':']).next().map(str::trim)
}

/// Reads ZooKeeper logs (one per server, in any order, or one merged log).
pub fn import(files: &[LogFile]) -> Result<Imported, String> {
    let mut b = Builder::new(files)?;
    let mut tick: Option<u64> = None;
    // Per server: its current proposal (whom it votes for) and election round.
    let mut proposal: BTreeMap<String, String> = BTreeMap::new();
    let mut round: BTreeMap<String, u64> = BTreeMap::new();
    for (f, file) in files.iter().enumerate() {
        let mut file_member: Option<String> = None;
        let mut lines = 0usize;
        for (k, raw) in file.text.lines().enumerate() {
            lines += 1;
            let n = k + 1;
            if raw.len() > recorded::MAX_LINE {
                b.damaged(f, n, "line too long");
                continue;
            }
            let line = raw.trim_end();
            let Some((t, _)) = recorded::parse_stamp(line) else {
                if line.contains("Notification") || line.contains("QuorumPeer - ") {
                    b.damaged(f, n, "an election line with a damaged timestamp");
                } else {
                    b.report.skipped += 1;
                }
                continue;
            };
            b.clock(t);
            let Some(body) = line.get(23..) else {
                b.report.skipped += 1;
                continue;
            };
            let myid = body
                .split_once("[myid:")
                .and_then(|(_, r)| r.split_once(']'))
                .map(|(id, _)| id.trim().to_string())
                .filter(|id| !id.is_empty());
            if let Some(id) = &myid {
                if file_member.is_none() {
                    file_member = Some(id.clone());
                }
            }
            let msg = body.split_once(" - ").map(|x| x.1).unwrap_or("").trim();
            if let Some(id) = msg.strip_prefix("Starting quorum peer, myid=") {
                file_member = Some(id.trim().to_string());
            }
            let Some(me) = myid.or_else(|| file_member.clone()) else {
                b.report.skipped += 1;
                continue;
            };
            if me.parse::<u32>().is_err() {
                b.damaged(f, n, format!("myid '{me}' is not a number"));
                continue;
            }
            b.seen_at(&me, t, f, n);
            if let Some(v) = msg.strip_prefix("Created server with tickTime ") {
                tick = v.split_whitespace().next().and_then(|x| x.parse().ok()).or(tick);
            }
            let state = |role: Option<&'static str>, say: &'static str, args: [u64; 2]| What::State {
                role,
                term: None,
                leader: None,
                vote: None,
                tally: None,
                zxid: None,
                say,
                args,
                arg_member: None,
            };
            let mut out: Vec<What> = Vec::new();
            let class = body.split_once(" - ").map(|x| x.0).unwrap_or("");
            let class = class.rsplit(' ').next().unwrap_or("");
            match (class, msg) {
                (_, m) if m.starts_with("Starting quorum peer, myid=") => out.push(What::Started),
                ("QuorumPeer", "LOOKING") => {
                    let mut w = state(Some("looking"), "looking", [0, 0]);
                    if let What::State { leader, .. } = &mut w {
                        *leader = Some(None);
                    }
                    out.push(w);
                }
                ("QuorumPeer", "FOLLOWING") => {
                    let l = proposal.get(&me).cloned();
                    let mut w = state(Some("following"), "following", [0, 0]);
                    if let What::State { leader, arg_member, .. } = &mut w {
                        *leader = Some(l.clone());
                        *arg_member = l.map(|l| (0, l));
                    }
                    out.push(w);
                }
                ("QuorumPeer", "LEADING") => {
                    let mut w = state(Some(LEADING), "leading", [0, 0]);
                    if let What::State { leader, .. } = &mut w {
                        *leader = Some(Some(me.clone()));
                    }
                    out.push(w);
                }
                ("FastLeaderElection", m) if m.starts_with("New election. My id = ") => {
                    let Some(z) = m.split_once("proposed zxid=").and_then(|x| hex(x.1)) else {
                        b.damaged(f, n, "a new election without a readable zxid");
                        continue;
                    };
                    proposal.insert(me.clone(), me.clone());
                    let mut w = state(None, "new-election", [z, 0]);
                    if let What::State { vote, zxid, .. } = &mut w {
                        *vote = Some(Some(me.clone()));
                        *zxid = Some(z);
                    }
                    out.push(w);
                }
                ("FastLeaderElection", m) if m.starts_with("Notification: ") => {
                    let sid = field(m, "n.sid:");
                    let lead = field(m, "n.leader:");
                    let r = field(m, "n.round:").and_then(hex);
                    match (sid, lead, r) {
                        (Some(s), Some(l), Some(r)) if s.parse::<u32>().is_ok() && l.parse::<u64>().is_ok() => {
                            if s != me {
                                out.push(What::Recv {
                                    from: s.to_string(),
                                    kind: "VOTE",
                                    term: r,
                                    extra: l.parse().unwrap_or(0),
                                });
                            } else {
                                b.report.skipped += 1;
                            }
                        }
                        _ => {
                            b.damaged(f, n, "a notification without a readable n.sid, n.leader or n.round");
                            continue;
                        }
                    }
                }
                ("FastLeaderElection", m) if m.starts_with("Sending Notification: ") => {
                    let l = before(m, "n.leader");
                    let r = before(m, "n.round").and_then(hex);
                    let to = before(m, "recipient");
                    match (l, r, to) {
                        (Some(l), Some(r), Some(to)) if l.parse::<u64>().is_ok() && to.parse::<u32>().is_ok() => {
                            proposal.insert(me.clone(), l.to_string());
                            if round.get(&me) != Some(&r) {
                                round.insert(me.clone(), r);
                                let mut w = state(None, "round", [r, 0]);
                                if let What::State { term, .. } = &mut w {
                                    *term = Some(r);
                                }
                                out.push(w);
                            }
                            if to != me {
                                out.push(What::Send {
                                    to: to.to_string(),
                                    kind: "VOTE",
                                    term: r,
                                    extra: l.parse().unwrap_or(0),
                                });
                            }
                        }
                        _ => {
                            b.damaged(f, n, "a sent notification without a readable leader, round or recipient");
                            continue;
                        }
                    }
                }
                ("FastLeaderElection", m) if m.starts_with("Updating proposal: ") => {
                    let l = before(m, "newleader").filter(|x| x.parse::<u32>().is_ok());
                    let z = before(m, "newzxid").and_then(hex);
                    let (Some(l), Some(z)) = (l, z) else {
                        b.damaged(f, n, "a proposal without a readable leader or zxid");
                        continue;
                    };
                    proposal.insert(me.clone(), l.to_string());
                    let mut w = state(None, "proposal", [0, z]);
                    if let What::State { vote, arg_member, .. } = &mut w {
                        *vote = Some(Some(l.to_string()));
                        *arg_member = Some((0, l.to_string()));
                    }
                    out.push(w);
                }
                ("FastLeaderElection", m) if m.starts_with("About to leave FLE instance: leader=") => {
                    if let Some(l) = field(m, "leader=").filter(|x| x.parse::<u32>().is_ok()) {
                        proposal.insert(me.clone(), l.to_string());
                    }
                    b.report.skipped += 1;
                }
                ("QuorumCnxManager", m)
                    if m.starts_with("Connection broken for id ") || m.starts_with("Cannot open channel to ") =>
                {
                    let rest =
                        m.trim_start_matches("Connection broken for id ").trim_start_matches("Cannot open channel to ");
                    let id: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
                    if id.is_empty() {
                        b.damaged(f, n, "a lost connection without a server id");
                        continue;
                    }
                    if id != me {
                        out.push(What::PeerDown(id));
                    }
                }
                _ => {
                    if msg.contains("n.sid") || msg.starts_with("LOOKING") {
                        b.damaged(f, n, "an election line that could not be read");
                        continue;
                    }
                    b.report.skipped += 1;
                }
            }
            for what in out {
                b.lines.push(Line { t, member: me.clone(), file: f, line: n, what });
            }
        }
        b.report.files.push((file.name.to_string(), lines, 0));
    }
    if let Some(tk) = tick {
        // A follower gives up on a silent leader after syncLimit ticks; syncLimit is not logged,
        // so the model uses 5 (what scripts/real-cluster.sh configures).
        b.heartbeats = Some((tk, tk.saturating_mul(5)));
        b.report.notes.push(format!(
            "tickTime {tk} ms (from the logs): the model's followers give up on a silent leader after 5 ticks ({} ms; syncLimit is not in the logs)",
            tk.saturating_mul(5)
        ));
    }
    b.finish_paused(ID, false, &|k, _| k.parse().ok(), Vec::new(), &[])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_values_out_of_notification_lines() {
        let m = "Notification: my state:LOOKING; n.sid:3, n.state:LOOKING, n.leader:3, n.round:0x1, n.peerEpoch:0x0, n.zxid:0x0, message format version:0x2";
        assert_eq!(field(m, "n.sid:"), Some("3"));
        assert_eq!(field(m, "n.round:").and_then(hex), Some(1));
        let s = "Sending Notification: 3 (n.leader), 0x0 (n.zxid), 0x1 (n.round), 1 (recipient), 2 (myid), 0x0 (n.peerEpoch) ";
        assert_eq!(before(s, "n.leader"), Some("3"));
        assert_eq!(before(s, "recipient"), Some("1"));
        assert_eq!(before(s, "n.round").and_then(hex), Some(1));
    }
}
