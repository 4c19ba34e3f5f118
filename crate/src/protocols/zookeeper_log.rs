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
use crate::meta::{single_leader, Faults, Kind, Look, Preset, Role, Text, Topology, Visual};
use crate::protocol::LEADING;
use std::collections::BTreeMap;

pub const ID: &str = "zookeeper-log";
/// The textbook algorithm that replays a ZooKeeper run.
pub const MODEL: &str = "zookeeper";

#[derive(Clone, Debug)]
pub struct Zk;

pub const KINDS: &[Kind] = &[Kind::new(
    "VOTE",
    "V",
    Visual::Request,
    Text::new(
        "a notification: whom the sender proposes, that server's ZXID, and the sender's election round",
        "通知：发送者提议的服务器、该服务器的 ZXID 以及发送者的选举轮次",
    ),
)];

static ROUND: Text = Text::new("round", "轮次");

impl Flavor for Zk {
    const KINDS: &'static [Kind] = KINDS;
    const INITIAL_ROLE: &'static str = "looking";
    const ROLES: &'static [&'static str] = &["looking", "following", LEADING, "observing"];
    const TERM_WORD: Option<&'static Text> = Some(&ROUND);
    const VOTE_KIND: Option<usize> = None;
    const SAYS: &'static [(&'static str, Text)] = &[
        (
            "looking",
            Text::new("server {0} is LOOKING for a leader (its log)", "服务器 {0} 进入 LOOKING，寻找领导者（日志）"),
        ),
        (
            "following",
            Text::new(
                "server {0} is FOLLOWING server {1} (its log)",
                "服务器 {0} 进入 FOLLOWING，跟随服务器 {1}（日志）",
            ),
        ),
        ("leading", Text::new("server {0} is LEADING (its log)", "服务器 {0} 进入 LEADING，成为领导者（日志）")),
        (
            "new-election",
            Text::new(
                "server {0} starts a new election and proposes itself, ZXID {1} (its log)",
                "服务器 {0} 发起新一轮选举并提议自己，ZXID {1}（日志）",
            ),
        ),
        ("round", Text::new("server {0} is in election round {1} (its log)", "服务器 {0} 处于第 {1} 轮选举（日志）")),
        (
            "proposal",
            Text::new(
                "server {0} now proposes server {1} (ZXID {2}) (its log)",
                "服务器 {0} 改为提议服务器 {1}（ZXID {2}）（日志）",
            ),
        ),
        (
            "peer-down",
            Text::new(
                "server {0} lost its connection to server {1} (its log)",
                "服务器 {0} 与服务器 {1} 的连接断开（日志）",
            ),
        ),
        ("started", Text::new("server {0} (re)started (its log)", "服务器 {0} 启动（日志）")),
    ];
    const SENT: &'static [Text] = &[Text::new(
        "server {0} sends server {1} its vote (round {2}) (its log)",
        "服务器 {0} 向服务器 {1} 发送其投票（第 {2} 轮）（日志）",
    )];
    const GOT: &'static [Text] =
        &[Text::new("server {0} gets server {1}'s vote (round {2})", "服务器 {0} 收到服务器 {1} 的投票（第 {2} 轮）")];
    fn label(_kind: usize, round: u64, leader: u64) -> String {
        format!("VOTE(N{leader}, r{round})")
    }
}

puppet_protocol!(ZookeeperLog, Zk);

pub const ALGORITHM: Algorithm = Algorithm {
    id: ID,
    title: Text::new("ZooKeeper, from its logs", "ZooKeeper（来自真实日志）"),
    citation: "ZooKeeper 3.8 (fast leader election: F. P. Junqueira, B. C. Reed and M. Serafini, Zab: High-performance broadcast for primary-backup systems, DSN 2011)",
    summary: Text::new(
        "A real ZooKeeper ensemble's election, read from its servers' logs and replayed as it happened: one tick is one real millisecond.",
        "从各服务器日志读出的真实 ZooKeeper 集群选举，按实际发生的过程回放：一个时间单位即真实的一毫秒。",
    ),
    card: Text::new(
        "Every step here is a line of a real log, or a notification matched between two logs.\n\n• Servers are numbered by their myid, the id votes compare; the inspector shows the log line behind each state.\n• A VOTE is drawn from the sender's \"Sending Notification\" line to the receiver's \"Notification:\" line (same sender, receiver, round and proposed leader, nearest in time).\n• A server whose log stops while the others lose their connection to it is drawn crashed one millisecond after its last line.\n• The number under a server is its election round (logical clock).\n\nReplay in the simulator runs the textbook fast leader election on the same servers with the same faults.",
        "这里的每一步都是真实日志中的一行，或在两份日志间配对出的一条通知。\n\n• 服务器按 myid 编号，即投票比较的 id；检查器显示每个状态所依据的日志行。\n• 投票从发送者的 \"Sending Notification\" 行画到接收者的 \"Notification:\" 行（发送者、接收者、轮次和提议的领导者相同，时间最近）。\n• 若某服务器的日志中断而其他服务器同时失去与它的连接，则在其最后一行之后 1 毫秒画为崩溃。\n• 服务器下方的数字是其选举轮次（逻辑时钟）。\n\n\"在模拟器中重放\"会在相同服务器上以相同故障运行教科书中的快速领导者选举。",
    ),
    topology: Topology::Complete,
    kinds: KINDS,
    roles: &[
        Role::new("looking", Look::Candidate, Text::new("LOOKING: voting, no leader yet", "LOOKING：投票中")),
        Role::new("following", Look::Follower, Text::new("FOLLOWING the elected leader", "FOLLOWING：跟随中")),
        Role::new(LEADING, Look::Leader, Text::new("LEADING", "LEADING：领导者")),
        Role::new("observing", Look::Follower, Text::new("OBSERVING (a non-voting server)", "OBSERVING：不投票的观察者")),
    ],
    formulas: &[],
    properties: &[single_leader(Faults::Any)],
    presets: &[Preset {
        id: "zookeeper-leader-killed",
        title: Text::new("ZooKeeper: the leader killed (real logs)", "ZooKeeper：杀死领导者（真实日志）"),
        hint: Text::new(
            "Three real ZooKeeper 3.8 servers elect a leader; it is killed with SIGKILL and the two others elect a new one. Step to the second election, then Replay in the simulator.",
            "三个真实的 ZooKeeper 3.8 服务器选出领导者；用 SIGKILL 杀死它后，其余两个服务器选出新的领导者。步进到第二次选举，再点\"在模拟器中重放\"。",
        ),
        json: include_str!("recorded/zookeeper-leader-killed.json"),
        leaders: &[2],
        golden: "c947a8424dde735f",
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
            b.seen(&me, t);
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
        b.heartbeats = Some((tk, 5 * tk));
        b.report.notes.push(format!(
            "tickTime {tk} ms (from the logs): the model's followers give up on a silent leader after 5 ticks ({} ms; syncLimit is not in the logs)",
            5 * tk
        ));
    }
    b.finish(ID, false, |k, _| k.parse().ok())
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
