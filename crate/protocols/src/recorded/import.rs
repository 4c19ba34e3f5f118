//! Importing: what the log parsers produce (members, events, messages, their lines), and how
//! it becomes a scenario of the recorded protocol; the timestamp reader; the log sources.

use super::*;

/// One log file (or one merged log): its name for messages, and its text.
#[derive(Clone, Copy, Debug)]
pub struct LogFile<'a> {
    pub name: &'a str,
    pub text: &'a str,
}

/// What an import read.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Report {
    /// Per file: (name, lines read, election lines used).
    pub files: Vec<(String, usize, usize)>,
    /// Lines that are not about elections.
    pub skipped: usize,
    /// Damaged or unknown election lines: `a.log:12: why`.
    pub damaged: Vec<String>,
    /// Messages matched send → receive, sent with no receive seen, received with no send seen.
    pub matched: usize,
    pub no_receive: usize,
    pub no_send: usize,
    /// Receives logged before their sends (clock skew), clamped to 1 ms after the send.
    pub clamped: usize,
    /// Members and what became of them (crash / recover times), for the summary.
    pub faults: Vec<String>,
    /// Notes on precision (one-second timestamps, ...).
    pub notes: Vec<String>,
}

impl Report {
    pub fn text(&self) -> String {
        let mut out = String::new();
        for (name, lines, used) in &self.files {
            out.push_str(&format!("{name}: {lines} lines read, {used} about the election\n"));
        }
        out.push_str(&format!("{} lines skipped (not about the election)\n", self.skipped));
        out.push_str(&format!(
            "messages: {} matched send → receive, {} with no receive in the logs, {} with no send in the logs, {} receives logged before their send (clamped to 1 ms after it)\n",
            self.matched, self.no_receive, self.no_send, self.clamped
        ));
        for f in &self.faults {
            out.push_str(&format!("fault: {f}\n"));
        }
        for n in &self.notes {
            out.push_str(&format!("note: {n}\n"));
        }
        out.push_str(&format!("{} damaged or unknown lines\n", self.damaged.len()));
        for d in self.damaged.iter().take(50) {
            out.push_str(&format!("  {d}\n"));
        }
        if self.damaged.len() > 50 {
            out.push_str(&format!("  ... and {} more\n", self.damaged.len() - 50));
        }
        out
    }
}

/// An imported run: the recorded scenario (JSON) and the report.
#[derive(Clone, Debug)]
pub struct Imported {
    pub scenario: Value,
    pub report: Report,
}

/// A member as the logs name it (etcd: a 16-hex-digit id; ZooKeeper: its myid).
pub type Key = String;

/// What one election line says.
#[derive(Clone, Debug, PartialEq)]
pub enum What {
    /// The member's state changes (fields as in [`Event`]; leader/vote as keys).
    State {
        role: Option<&'static str>,
        term: Option<u64>,
        leader: Option<Option<Key>>,
        vote: Option<Option<Key>>,
        tally: Option<[u32; 2]>,
        zxid: Option<u64>,
        say: &'static str,
        args: [u64; 2],
        /// Args that name members (by key), filled in as node numbers: (arg index, key).
        arg_member: Option<(usize, Key)>,
    },
    Send {
        to: Key,
        kind: &'static str,
        term: u64,
        extra: u64,
    },
    Recv {
        from: Key,
        kind: &'static str,
        term: u64,
        extra: u64,
    },
    /// A peer became unreachable / reachable again, as this member saw it.
    PeerDown(Key),
    PeerUp(Key),
    /// The process (re)started.
    Started,
}

/// One election line, parsed.
#[derive(Clone, Debug)]
pub struct Line {
    /// Milliseconds since 1970.
    pub t: u64,
    pub member: Key,
    pub file: usize,
    pub line: usize,
    pub what: What,
}

/// Facts about a member read from lines that are not election events.
#[derive(Clone, Debug, Default)]
pub struct MemberInfo {
    pub name: String,
    pub addr: String,
    /// Last line of any kind (ms), and first.
    pub first: u64,
    pub last: u64,
    /// The latest line whose place is known (time, file, line from 1): see `Builder::seen_at`.
    pub last_at: Option<(u64, usize, usize)>,
}

/// Collects parsed lines and builds the scenario.
pub struct Builder<'a> {
    pub files: &'a [LogFile<'a>],
    pub lines: Vec<Line>,
    pub members: BTreeMap<Key, MemberInfo>,
    pub report: Report,
    /// `heartbeats` for the scenario (the real interval and election timeout, when logged).
    pub heartbeats: Option<(Time, Time)>,
    /// The earliest timestamp of any line (tick 0).
    pub t_min: u64,
}

/// Ticks (ms) a run goes on after the last log line, for the model to finish its election.
pub const MODEL_MARGIN: Time = 10_000;

/// Largest input accepted, in bytes, and longest line.
pub const MAX_INPUT: usize = 64 << 20;
pub const MAX_LINE: usize = 64 << 10;

impl<'a> Builder<'a> {
    pub fn new(files: &'a [LogFile<'a>]) -> Result<Self, String> {
        if files.is_empty() {
            return Err("no log files given".into());
        }
        let total: usize = files.iter().map(|f| f.text.len()).sum();
        if total > MAX_INPUT {
            return Err(format!("the logs are {total} bytes; at most {MAX_INPUT} are read"));
        }
        Ok(Builder {
            files,
            lines: Vec::new(),
            members: BTreeMap::new(),
            report: Report::default(),
            heartbeats: None,
            t_min: u64::MAX,
        })
    }

    /// Notes a timestamp read anywhere (the earliest is tick 0).
    pub fn clock(&mut self, t: u64) {
        self.t_min = self.t_min.min(t);
    }

    /// Notes that member `key` logged something at `t` (any line).
    pub fn seen(&mut self, key: &str, t: u64) {
        let m = self.members.entry(key.to_string()).or_insert_with(|| MemberInfo {
            first: t,
            last: t,
            ..Default::default()
        });
        m.first = m.first.min(t);
        m.last = m.last.max(t);
    }

    pub fn damaged(&mut self, file: usize, line: usize, why: impl std::fmt::Display) {
        self.report.damaged.push(format!("{}:{}: {why}", self.files[file].name, line));
    }

    /// Orders members into node numbers: `number` gives a member's own number when it has one
    /// (ZooKeeper's myid), else members are numbered 1.. in the order of `order_key`.
    /// `cuts`: whether a lost connection to a member that went on logging becomes a cut link
    /// (etcd's rafthttp reports both loss and recovery; ZooKeeper logs no recovery).
    pub fn finish(
        mut self,
        algorithm: &str,
        cuts: bool,
        number: &dyn Fn(&Key, &MemberInfo) -> Option<NodeId>,
    ) -> Result<Imported, String> {
        if self.members.is_empty() || self.lines.is_empty() {
            let mut why = String::from("no election lines found in the logs");
            if let Some(d) = self.report.damaged.first() {
                why.push_str(&format!(" (first damaged line: {d})"));
            }
            return Err(why);
        }
        // Members named only as peers (never logging) are members too.
        let mut peers: Vec<Key> = Vec::new();
        for l in &self.lines {
            match &l.what {
                What::Send { to: k, .. } | What::Recv { from: k, .. } | What::PeerDown(k) | What::PeerUp(k) => {
                    peers.push(k.clone())
                }
                _ => {}
            }
        }
        for k in peers {
            self.members.entry(k).or_insert_with(|| MemberInfo { first: u64::MAX, last: 0, ..Default::default() });
        }
        if self.members.len() > 64 {
            return Err(format!("{} members found; at most 64 are drawn", self.members.len()));
        }
        // Node numbers.
        let mut nodes: BTreeMap<Key, NodeId> = BTreeMap::new();
        let mut own: Vec<(Key, NodeId)> =
            self.members.iter().filter_map(|(k, m)| number(k, m).map(|n| (k.clone(), n))).collect();
        crate::sort::sort_by_key(&mut own, |x| x.1);
        if own.len() == self.members.len() && own.windows(2).all(|w| w[0].1 != w[1].1) && own.iter().all(|x| x.1 > 0) {
            nodes.extend(own);
        } else {
            let mut keys: Vec<(&Key, &MemberInfo)> = self.members.iter().collect();
            crate::sort::sort_by(&mut keys, |a, b| {
                (a.1.name.is_empty(), &a.1.name, a.0).cmp(&(b.1.name.is_empty(), &b.1.name, b.0))
            });
            for (n, (k, _)) in keys.into_iter().enumerate() {
                nodes.insert(k.clone(), n as NodeId + 1);
            }
        }
        let node = |k: &Key| nodes[k];
        let t0 = self
            .lines
            .iter()
            .map(|l| l.t)
            .chain(self.members.values().filter(|m| m.first != u64::MAX).map(|m| m.first))
            .chain([self.t_min])
            .min()
            .unwrap_or(0);
        let rel = |t: u64| t.saturating_sub(t0);

        // Matching sends and receives: by (from, to, kind, term), nearest in time.
        type SendKey<'k> = (NodeId, NodeId, &'k str, u64, u64);
        let mut sends: BTreeMap<SendKey, Vec<(u64, usize, bool)>> = BTreeMap::new();
        for (k, l) in self.lines.iter().enumerate() {
            if let What::Send { to, kind, term, extra } = &l.what {
                let from = node(&l.member);
                let to = node(to);
                if from != to {
                    sends.entry((from, to, kind, *term, *extra)).or_default().push((l.t, k, false));
                }
            }
        }
        let mut pairs: Vec<(Option<usize>, Option<usize>)> = Vec::new();
        for (k, l) in self.lines.iter().enumerate() {
            if let What::Recv { from, kind, term, extra } = &l.what {
                let from = node(from);
                let to = node(&l.member);
                if from == to {
                    continue;
                }
                let best = sends.get_mut(&(from, to, kind, *term, *extra)).and_then(|list| {
                    // The latest unmatched send at or before the receive, else the nearest after.
                    let before = list
                        .iter()
                        .enumerate()
                        .filter(|(_, s)| !s.2 && s.0 <= l.t)
                        .max_by_key(|(_, s)| s.0)
                        .map(|(i, _)| i);
                    let pick = before.or_else(|| {
                        list.iter()
                            .enumerate()
                            .filter(|(_, s)| !s.2)
                            .min_by_key(|(_, s)| s.0.abs_diff(l.t))
                            .map(|(i, _)| i)
                    });
                    pick.map(|i| {
                        list[i].2 = true;
                        list[i].1
                    })
                });
                pairs.push((best, Some(k)));
            }
        }
        for list in sends.values() {
            for s in list.iter().filter(|s| !s.2) {
                pairs.push((Some(s.1), None));
            }
        }
        // A typical delay: the median of the matched ones (at least 1 ms).
        let mut delays: Vec<u64> = pairs
            .iter()
            .filter_map(|p| match p {
                (Some(s), Some(r)) => Some(self.lines[*r].t.saturating_sub(self.lines[*s].t)),
                _ => None,
            })
            .collect();
        delays.sort_unstable();
        let typical = delays.get(delays.len() / 2).copied().unwrap_or(1).max(1);
        let mut lo_hi = (u64::MAX, 0u64);
        let mut messages = Vec::new();
        for (s, r) in &pairs {
            let (from, to, kind, term, extra, sent, mut received, mut flag, line) = match (s, r) {
                (Some(s), r) => {
                    let l = &self.lines[*s];
                    let What::Send { to, kind, term, extra } = &l.what else { unreachable!() };
                    let (received, flag) = match r {
                        Some(r) => (rel(self.lines[*r].t), ""),
                        None => (rel(l.t) + typical, "no-receive"),
                    };
                    let at = format!("{}:{}", self.files[l.file].name, l.line);
                    (node(&l.member), node(to), *kind, *term, *extra, rel(l.t), received, flag, at)
                }
                (None, Some(r)) => {
                    let l = &self.lines[*r];
                    let What::Recv { from, kind, term, extra } = &l.what else { unreachable!() };
                    let received = rel(l.t);
                    let at = format!("{}:{}", self.files[l.file].name, l.line);
                    (
                        node(from),
                        node(&l.member),
                        *kind,
                        *term,
                        *extra,
                        received.saturating_sub(typical),
                        received,
                        "no-send",
                        at,
                    )
                }
                (None, None) => continue,
            };
            if received <= sent {
                if received < sent {
                    flag = "clamped";
                    self.report.clamped += 1;
                }
                received = sent + 1;
            }
            match flag {
                "no-receive" => self.report.no_receive += 1,
                "no-send" => self.report.no_send += 1,
                _ => {
                    self.report.matched += 1;
                    lo_hi = (lo_hi.0.min(received - sent), lo_hi.1.max(received - sent));
                }
            }
            messages.push(json!({"from": from, "to": to, "kind": kind, "sent": sent, "received": received,
                                 "term": term, "extra": extra, "flag": flag, "line": line}));
        }
        crate::sort::sort_by_key(&mut messages, |m| {
            let n = |k: &str| m[k].as_u64();
            (
                n("sent"),
                n("from"),
                n("to"),
                n("received"),
                m["kind"].as_str().map(str::to_string),
                n("term"),
                n("extra"),
            )
        });

        // Events.
        let mut events = Vec::new();
        let mut state_lines: BTreeMap<NodeId, Vec<u64>> = BTreeMap::new();
        for l in &self.lines {
            let n = node(&l.member);
            state_lines.entry(n).or_default().push(rel(l.t));
            let What::State { role, term, leader, vote, tally, zxid, say, args, arg_member } = &l.what else {
                continue;
            };
            let mut args = *args;
            if let Some((i, k)) = arg_member {
                args[*i] = nodes.get(k).copied().unwrap_or(0) as u64;
            }
            let mut e = json!({"at": rel(l.t), "node": n, "say": say, "args": args,
                               "line": format!("{}:{}", self.files[l.file].name, l.line)});
            if let Some(r) = role {
                e["role"] = json!(r);
            }
            if let Some(t) = term {
                e["term"] = json!(t);
            }
            if let Some(x) = leader {
                e["leader"] = json!(x.as_ref().and_then(|k| nodes.get(k)).copied().unwrap_or(0));
            }
            if let Some(x) = vote {
                e["vote"] = json!(x.as_ref().and_then(|k| nodes.get(k)).copied().unwrap_or(0));
            }
            if let Some([held, needed]) = tally {
                // A log that counts votes without naming the quorum: a majority of the members.
                let needed = if *needed == 0 { (nodes.len() / 2 + 1) as u32 } else { *needed };
                e["tally"] = json!([held, needed]);
            }
            if let Some(z) = zxid {
                e["zxid"] = json!(z);
            }
            events.push(e);
        }
        // A total order that does not depend on the order the files were given in.
        crate::sort::sort_by_key(&mut events, |e| {
            (e["at"].as_u64(), e["node"].as_u64(), e["line"].as_str().map(line_number))
        });

        // Faults: a member that stopped logging while another saw it go is crashed when its peers
        // first reported the lost connection (it crashed between its last line and then: a
        // process killed after a quiet second logs nothing in that second, but its peers see the
        // connection drop at once), or 1 ms after its last line when they reported it no later;
        // one that logs again (a restart) recovers at its first line after that.
        let mut schedule = Vec::new();
        let end = self.lines.iter().map(|l| l.t).max().unwrap_or(t0);
        for (k, m) in &self.members {
            let n = node(k);
            let mut times: Vec<u64> = self.lines.iter().filter(|l| &l.member == k).map(|l| l.t).collect();
            times.sort_unstable();
            let starts: Vec<u64> =
                self.lines.iter().filter(|l| &l.member == k && matches!(l.what, What::Started)).map(|l| l.t).collect();
            // Restarts: a start line after earlier lines = crashed after the line before it.
            for &s in starts.iter().skip_while(|&&s| Some(&s) == times.first()) {
                let before = times.iter().filter(|&&t| t < s).max().copied();
                if let Some(b) = before {
                    schedule.push(json!({"at": rel(b) + 1, "crash": n}));
                    schedule.push(json!({"at": rel(s), "recover": n}));
                    self.report.faults.push(format!(
                        "member {n} stopped after {} ms and restarted at {} ms",
                        rel(b),
                        rel(s)
                    ));
                }
            }
            let last = m.last.max(times.last().copied().unwrap_or(0));
            // Lost by another member, which then carried on with the election or went on
            // logging for half a second: not merely everyone being stopped at the end.
            let lost_at = self
                .lines
                .iter()
                .filter(|l| matches!(&l.what, What::PeerDown(p) if p == k) && l.t >= last)
                .map(|l| (l.t, &l.member))
                .collect::<Vec<_>>();
            let carried_on = lost_at.iter().any(|(t, by)| {
                self.members.get(*by).is_some_and(|m| m.last >= t + 500)
                    || self.lines.iter().any(|l| {
                        &l.member == *by
                            && l.t >= *t
                            && matches!(l.what, What::State { .. } | What::Send { .. } | What::Recv { .. })
                    })
            });
            let seen_down = carried_on;
            let never_logged = m.first == u64::MAX;
            if (seen_down && last < end) || never_logged {
                let first_loss = self
                    .lines
                    .iter()
                    .filter(|l| matches!(&l.what, What::PeerDown(p) if p == k) && l.t >= last)
                    .min_by_key(|l| (l.t, l.file, l.line));
                let evidence = first_loss.filter(|l| rel(l.t) > rel(last) + 1);
                let at = match (never_logged, evidence) {
                    (true, _) => 0,
                    (false, Some(l)) => rel(l.t),
                    (false, None) => rel(last) + 1,
                };
                schedule.push(json!({"at": at, "crash": n}));
                self.report.faults.push(match (never_logged, evidence) {
                    (true, _) => format!("member {n} has no log here; it is drawn crashed"),
                    (false, Some(l)) => {
                        let place = self.files.get(l.file).map(|f| format!("{}:{}", f.name, l.line)).unwrap_or_default();
                        format!(
                            "member {n} stopped logging at {} ms; its peers first reported the lost connection at {at} ms \
                             ({place}): crashed at {at} ms (it crashed between {} and {at} ms)",
                            rel(last),
                            rel(last)
                        )
                    }
                    (false, None) => {
                        format!("member {n} stopped logging at {} ms and the others lost it: crashed at {at} ms", rel(last))
                    }
                });
            }
        }
        // Lost and restored connections, as each member saw them: narrated when the state of a
        // link flips; and, where the flavour allows it, a member that lost a peer which went on
        // logging (so it was not dead) is cut off from that peer until it reaches it again.
        let mut down: BTreeMap<(NodeId, NodeId), bool> = BTreeMap::new();
        let mut cut_links: Vec<(NodeId, NodeId)> = Vec::new();
        let mut order: Vec<&Line> =
            self.lines.iter().filter(|l| matches!(l.what, What::PeerDown(_) | What::PeerUp(_))).collect();
        crate::sort::sort_by_key(&mut order, |l| (l.t, node(&l.member)));
        for l in order {
            let (peer, lost) = match &l.what {
                What::PeerDown(p) => (p, true),
                What::PeerUp(p) => (p, false),
                _ => continue,
            };
            let (me, them) = (node(&l.member), node(peer));
            if me == them || *down.get(&(me, them)).unwrap_or(&false) == lost {
                continue;
            }
            down.insert((me, them), lost);
            let at = rel(l.t);
            let say = if lost { "peer-down" } else { "peer-up" };
            events.push(json!({"at": at, "node": me, "say": say, "args": [them, 0],
                               "line": format!("{}:{}", self.files[l.file].name, l.line)}));
            if !cuts {
                continue;
            }
            let alive_after = self.members.get(peer).is_some_and(|m| m.last > l.t);
            if lost && alive_after {
                schedule.push(json!({"at": at, "cut": [them, me]}));
                cut_links.push((them, me));
                self.report.faults.push(format!(
                    "member {me} lost member {them}, which went on logging: link {them} → {me} cut at {at} ms"
                ));
            } else if !lost && cut_links.contains(&(them, me)) {
                cut_links.retain(|&c| c != (them, me));
                if cut_links.is_empty() {
                    schedule.push(json!({"at": at, "heal": true}));
                    self.report
                        .faults
                        .push(format!("member {me} reaches member {them} again: links restored at {at} ms"));
                }
            }
        }
        crate::sort::sort_by_key(&mut events, |e| {
            (e["at"].as_u64(), e["node"].as_u64(), e["line"].as_str().map(line_number))
        });
        crate::sort::sort_by_key(&mut schedule, |s| s["at"].as_u64());

        let mut member_list = Vec::new();
        for (k, m) in &self.members {
            member_list.push(json!({"node": node(k), "name": m.name, "id": k, "addr": m.addr}));
        }
        crate::sort::sort_by_key(&mut member_list, |m| m["node"].as_u64());
        let ids: Vec<NodeId> = member_list.iter().map(|m| m["node"].as_u64().unwrap_or(0) as NodeId).collect();
        let last_t = rel(end).max(messages.iter().filter_map(|m| m["received"].as_u64()).max().unwrap_or(0));
        // The model's delays: from the shortest matched delay to twice the median. (The longest
        // is no guide: a message sent before its connection is up waits for it, seconds at boot.)
        let latency = if lo_hi.0 == u64::MAX {
            json!([1, 1])
        } else {
            let lo = lo_hi.0.max(1);
            json!([lo, (2 * typical).clamp(lo, lo_hi.1.max(lo))])
        };
        let heartbeats = self.heartbeats.map(|(i, t)| json!({"interval": i, "timeout": t}));
        // The recorded run ends with its last line; the time after it is for the model, which
        // may take longer to elect than the real cluster did before it was stopped.
        let stop = json!({"max_time": last_t + MODEL_MARGIN, "max_steps": 1_000_000});

        // The model: the same members, faults and timeouts under the textbook algorithm, starting
        // from the leader that led just before the first fault (if one did).
        let first_fault = schedule.first().and_then(|s| s["at"].as_u64()).unwrap_or(last_t);
        let mut leading: Option<NodeId> = None;
        for e in &events {
            if e["at"].as_u64().unwrap_or(0) > first_fault {
                break;
            }
            if e["role"] == json!("leader") || e["role"] == json!("leading") {
                leading = e["node"].as_u64().map(|x| x as NodeId);
            }
        }
        // The model (see [`model_scenario`]) replays from the same start: the leader that led
        // just before the first fault, if one did. The puppet itself ignores `initial_leader`.
        let scenario = json!({
            "algorithm": algorithm, "nodes": ids, "seed": 0,
            "network": {"latency": latency, "loss": 0.0, "fifo": true},
            "initial_leader": leading, "heartbeats": heartbeats,
            "params": {"members": member_list, "events": events, "messages": messages, "t0": t0},
            "schedule": schedule, "stop": stop,
        });
        // Lines, not events: one line may say two things (a vote's arrival and the answer sent).
        // (A flag per line rather than a set: a `BTreeSet<usize>` cost the page 2 725 B of gzip.)
        for (f, file) in self.report.files.iter_mut().enumerate() {
            let mut seen = vec![false; file.1 + 1];
            file.2 = 0;
            for l in self.lines.iter().filter(|l| l.file == f) {
                if let Some(s) = seen.get_mut(l.line).filter(|s| !**s) {
                    *s = true;
                    file.2 += 1;
                }
            }
        }
        // Every line read is used, damaged or skipped, once: the report's counts add up.
        let read: usize = self.report.files.iter().map(|f| f.1).sum();
        let used: usize = self.report.files.iter().map(|f| f.2).sum();
        self.report.skipped = read.saturating_sub(used + self.report.damaged.len());
        Ok(Imported { scenario, report: self.report })
    }
}

/// The line number of `file:line`.
fn line_number(at: &str) -> u64 {
    at.rsplit(':').next().and_then(|n| n.parse().ok()).unwrap_or(0)
}
