//! Does a recording conform to the model? A recorded run's observed steps (each member's
//! events and the messages matched between the logs, see [`super::recorded`]) replayed in time
//! order through the rules of the textbook algorithm the real system implements, in the spirit of
//! trace validation against a specification (Pressler, "Verifying Software Traces Against a
//! Formal Specification with TLA+ and TLC", 2018; the etcd traces checked against Ongaro's Raft
//! specification): the first observed transition the model does not allow, with the log line
//! that shows it, or the verdict that every election line is a step of the model, and how often
//! each rule was exercised (its coverage).
//!
//! Raft's rules (Ongaro and Ousterhout, "In Search of an Understandable Consensus Algorithm",
//! 2014), which the Raft-style vote per epoch of Redis Sentinel follows too: a member's term never
//! goes down; a member grants at most one vote per term; a leader was granted votes by a quorum it
//! could have seen (its own, the grants sent to it before it took office, its tally); at most one
//! leader per term. Fast leader election's (ZooKeeper; Junqueira, Reed and Serafini, "Zab",
//! 2011): a member's round never goes down while it runs; a member leads only when a quorum
//! proposed it in its round; a member follows, or leads as, the leader it last proposed.

use crate::meta::k;
use crate::meta::{Lang, Text};
use crate::scenario::{Action, Scenario};
use crate::NodeId;
use std::collections::BTreeMap;

use super::recorded::systems::{etcd as etcd_log, zookeeper as zookeeper_log};
use super::recorded::{Event, Msg, Script};

/// One rule of a model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    TermUp,
    OneVote,
    LeaderQuorum,
    OneLeader,
    RoundUp,
    ProposedByQuorum,
    FollowsProposal,
}

impl Rule {
    /// A short stable name (the CLI's and the tests').
    pub fn id(self) -> &'static str {
        match self {
            Rule::TermUp => "term-never-down",
            Rule::OneVote => "one-vote-per-term",
            Rule::LeaderQuorum => "leader-quorum",
            Rule::OneLeader => "one-leader-per-term",
            Rule::RoundUp => "round-never-down",
            Rule::ProposedByQuorum => "proposed-by-quorum",
            Rule::FollowsProposal => "follows-its-proposal",
        }
    }

    /// What the rule says.
    pub fn text(self) -> Text {
        match self {
            Rule::TermUp => k::CONFORM_RULE_TERM_UP,
            Rule::OneVote => k::CONFORM_RULE_ONE_VOTE,
            Rule::LeaderQuorum => k::CONFORM_RULE_LEADER_QUORUM,
            Rule::OneLeader => k::CONFORM_RULE_ONE_LEADER,
            Rule::RoundUp => k::CONFORM_RULE_ROUND_UP,
            Rule::ProposedByQuorum => k::CONFORM_RULE_PROPOSED_BY_QUORUM,
            Rule::FollowsProposal => k::CONFORM_RULE_FOLLOWS_PROPOSAL,
        }
    }
}

const RAFT_RULES: &[Rule] = &[Rule::TermUp, Rule::OneVote, Rule::LeaderQuorum, Rule::OneLeader];
const ZAB_RULES: &[Rule] = &[Rule::RoundUp, Rule::ProposedByQuorum, Rule::FollowsProposal];

/// The first observed step the model does not allow.
#[derive(Clone, Debug, PartialEq)]
pub struct Violation {
    pub rule: Rule,
    /// The log line that shows it (`b.log:76`).
    pub line: String,
    /// Milliseconds after the recording's start (the run's tick).
    pub at: u64,
    pub node: NodeId,
    /// What happened, a catalog text filled with `args`.
    pub what: Text,
    pub args: Vec<u64>,
}

/// The verdict on one recording.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    /// The model's algorithm id (`raft`, `zookeeper`).
    pub model: &'static str,
    /// The recorded algorithm (`etcd-log`, `zookeeper-log`).
    pub recorded: String,
    /// The election lines replayed (events and messages of the script).
    pub lines: usize,
    pub violation: Option<Violation>,
    /// Each of the model's rules and how many observed steps it checked.
    pub coverage: Vec<(Rule, usize)>,
}

impl Verdict {
    pub fn conforms(&self) -> bool {
        self.violation.is_none()
    }

    /// The verdict in one sentence.
    pub fn headline(&self, lang: Lang) -> String {
        match &self.violation {
            None => k::CONFORM_CONFORMS.format(lang, &[&self.lines, &self.model]),
            Some(v) => {
                let what = v.what.fill(lang, &v.args);
                k::CONFORM_FAILS.format(lang, &[&self.model, &v.line, &what, &v.rule.text().get(lang)])
            }
        }
    }

    /// The coverage, one line per rule.
    pub fn coverage_lines(&self, lang: Lang) -> Vec<String> {
        self.coverage.iter().map(|(r, n)| k::CONFORM_CHECKED.format(lang, &[&r.text().get(lang), n])).collect()
    }

    /// The headline, then the coverage, as the CLI prints them.
    pub fn text(&self, lang: Lang) -> String {
        let mut out = self.headline(lang);
        out.push('\n');
        out.push_str(k::CONFORM_COVERAGE.get(lang));
        out.push('\n');
        for l in self.coverage_lines(lang) {
            out.push_str("  ");
            out.push_str(&l);
            out.push('\n');
        }
        out
    }
}

/// The models a recording can be checked against (`--model`).
pub const MODELS: &[&str] = &[etcd_log::MODEL, zookeeper_log::MODEL];

/// The model that fits a recorded algorithm.
pub fn model_of(recorded: &str) -> Option<&'static str> {
    match recorded {
        etcd_log::ID => Some(etcd_log::MODEL),
        zookeeper_log::ID => Some(zookeeper_log::MODEL),
        _ => None,
    }
}

/// Checks a recorded run's scenario against `model` (by default the one its system implements).
/// An error names what is wrong with the input: not a recorded run, a model that does not fit.
pub fn conform(scenario: &Scenario, model: Option<&str>) -> Result<Verdict, String> {
    let fits = model_of(&scenario.algorithm).ok_or_else(|| {
        format!(
            "algorithm '{}' is not a recorded run ({} or {}): import the logs first (election-lab import)",
            scenario.algorithm,
            etcd_log::ID,
            zookeeper_log::ID
        )
    })?;
    if let Some(m) = model {
        if m != fits {
            return Err(format!(
                "model '{m}' does not fit a recording of {}: its model is {fits} (raft for etcd-log, the Raft-style \
                 votes of Sentinel included; zookeeper for zookeeper-log)",
                scenario.algorithm
            ));
        }
    }
    let script = Script::read(&scenario.params).map_err(|e| e.to_string())?;
    let n = scenario.nodes.len();
    let steps = observations(&script);
    let lines = script.events.len() + script.messages.len();
    let (violation, coverage) = if fits == etcd_log::MODEL {
        Raft::new(n).run(&steps)
    } else {
        let recoveries: Vec<(u64, NodeId)> = scenario
            .schedule
            .iter()
            .filter_map(|s| match s.action {
                Action::Recover(id) => Some((s.at, id)),
                _ => None,
            })
            .collect();
        Zab::new(n, recoveries).run(&steps, &script.messages)
    };
    Ok(Verdict { model: fits, recorded: scenario.algorithm.clone(), lines, violation, coverage })
}

/// One observed step: an event of a member, or the send of a message.
#[derive(Clone, Copy)]
enum Step<'a> {
    Event(&'a Event),
    Send(&'a Msg),
}

/// A step with what orders it: time, log line, events first, script order.
type Placed<'a> = (u64, (String, usize), u8, usize, Step<'a>);

/// The script's events and sends in time order; at equal times, in the order of their log lines
/// (`a.log:12`), then events before sends, then script order.
fn observations(script: &Script) -> Vec<Step<'_>> {
    let place = |line: &str| match line.rsplit_once(':') {
        Some((file, n)) => (file.to_string(), n.parse::<usize>().unwrap_or(0)),
        None => (line.to_string(), 0),
    };
    let mut steps: Vec<Placed> = Vec::new();
    for (i, e) in script.events.iter().enumerate() {
        steps.push((e.at, place(&e.line), 0, i, Step::Event(e)));
    }
    for (i, m) in script.messages.iter().enumerate() {
        steps.push((m.sent, place(&m.line), 1, i, Step::Send(m)));
    }
    steps.sort_by(|a, b| (a.0, &a.1, a.2, a.3).cmp(&(b.0, &b.1, b.2, b.3)));
    steps.into_iter().map(|s| s.4).collect()
}

fn quorum(n: usize) -> u64 {
    (n / 2 + 1) as u64
}

/// Counts per rule, in the model's order.
struct Coverage(Vec<(Rule, usize)>);

impl Coverage {
    fn new(rules: &[Rule]) -> Self {
        Coverage(rules.iter().map(|r| (*r, 0)).collect())
    }
    fn hit(&mut self, rule: Rule) {
        if let Some(x) = self.0.iter_mut().find(|x| x.0 == rule) {
            x.1 += 1;
        }
    }
}

fn violation(rule: Rule, line: &str, at: u64, node: NodeId, what: Text, args: Vec<u64>) -> Option<Violation> {
    Some(Violation { rule, line: line.to_string(), at, node, what, args })
}

/// Raft's rules over the observed steps.
struct Raft {
    n: usize,
    term: BTreeMap<NodeId, u64>,
    /// (voter, term) → the candidate it voted for.
    votes: BTreeMap<(NodeId, u64), NodeId>,
    /// term → its leader.
    leaders: BTreeMap<u64, NodeId>,
    /// (candidate, term) → the largest granted count its tally logged.
    tallies: BTreeMap<(NodeId, u64), u64>,
    cov: Coverage,
}

impl Raft {
    fn new(n: usize) -> Self {
        Raft {
            n,
            term: BTreeMap::new(),
            votes: BTreeMap::new(),
            leaders: BTreeMap::new(),
            tallies: BTreeMap::new(),
            cov: Coverage::new(RAFT_RULES),
        }
    }

    fn run(mut self, steps: &[Step]) -> (Option<Violation>, Vec<(Rule, usize)>) {
        for s in steps {
            let v = match s {
                Step::Event(e) => self.event(e),
                Step::Send(m) if m.kind == "VOTE_GRANT" => self.vote(m.from, m.term, m.to, &m.line, m.sent),
                Step::Send(_) => None,
            };
            if v.is_some() {
                return (v, self.cov.0);
            }
        }
        (None, self.cov.0)
    }

    fn event(&mut self, e: &Event) -> Option<Violation> {
        let before = self.term.get(&e.node).copied();
        if let Some(t) = e.term {
            self.cov.hit(Rule::TermUp);
            if let Some(b) = before.filter(|&b| t < b) {
                return violation(Rule::TermUp, &e.line, e.at, e.node, k::CONFORM_TERM_DOWN, vec![e.node as u64, b, t]);
            }
            self.term.insert(e.node, t);
        }
        let term = self.term.get(&e.node).copied().unwrap_or(0);
        if let Some(c) = e.vote.filter(|&c| c != 0) {
            if let Some(v) = self.vote(e.node, term, c, &e.line, e.at) {
                return Some(v);
            }
        }
        if let Some([granted, _]) = e.tally {
            let best = self.tallies.entry((e.node, term)).or_insert(0);
            *best = (*best).max(granted as u64);
        }
        if e.role.as_deref() == Some("leader") {
            self.cov.hit(Rule::LeaderQuorum);
            let mut voters: Vec<NodeId> =
                self.votes.iter().filter(|((_, t), c)| *t == term && **c == e.node).map(|((v, _), _)| *v).collect();
            voters.dedup();
            let seen = (voters.len() as u64).max(self.tallies.get(&(e.node, term)).copied().unwrap_or(0));
            if seen < quorum(self.n) {
                let args = vec![e.node as u64, term, seen, quorum(self.n)];
                return violation(Rule::LeaderQuorum, &e.line, e.at, e.node, k::CONFORM_NO_QUORUM, args);
            }
            self.cov.hit(Rule::OneLeader);
            match self.leaders.get(&term) {
                Some(&other) if other != e.node => {
                    let args = vec![e.node as u64, term, other as u64];
                    return violation(Rule::OneLeader, &e.line, e.at, e.node, k::CONFORM_TWO_LEADERS, args);
                }
                _ => {
                    self.leaders.insert(term, e.node);
                }
            }
        }
        None
    }

    /// `voter` votes for `candidate` in `term`.
    fn vote(&mut self, voter: NodeId, term: u64, candidate: NodeId, line: &str, at: u64) -> Option<Violation> {
        self.cov.hit(Rule::OneVote);
        match self.votes.get(&(voter, term)) {
            Some(&first) if first != candidate => {
                let args = vec![voter as u64, candidate as u64, term, first as u64];
                violation(Rule::OneVote, line, at, voter, k::CONFORM_SECOND_VOTE, args)
            }
            _ => {
                self.votes.insert((voter, term), candidate);
                None
            }
        }
    }
}

/// Fast leader election's rules over the observed steps.
struct Zab {
    n: usize,
    recoveries: Vec<(u64, NodeId)>,
    /// member → (its round, when it was last set).
    round: BTreeMap<NodeId, (u64, u64)>,
    /// member → the leader it proposes now (since it last started LOOKING).
    proposal: BTreeMap<NodeId, NodeId>,
    cov: Coverage,
}

impl Zab {
    fn new(n: usize, recoveries: Vec<(u64, NodeId)>) -> Self {
        Zab { n, recoveries, round: BTreeMap::new(), proposal: BTreeMap::new(), cov: Coverage::new(ZAB_RULES) }
    }

    fn run(mut self, steps: &[Step], msgs: &[Msg]) -> (Option<Violation>, Vec<(Rule, usize)>) {
        for s in steps {
            if let Step::Event(e) = s {
                if let Some(v) = self.event(e, msgs) {
                    return (Some(v), self.cov.0);
                }
            }
        }
        (None, self.cov.0)
    }

    fn event(&mut self, e: &Event, msgs: &[Msg]) -> Option<Violation> {
        if let Some(t) = e.term {
            self.cov.hit(Rule::RoundUp);
            if let Some(&(b, since)) = self.round.get(&e.node) {
                // A restarted member counts its rounds from the start again.
                let restarted = self.recoveries.iter().any(|&(at, id)| id == e.node && at > since && at <= e.at);
                if t < b && !restarted {
                    let args = vec![e.node as u64, b, t];
                    return violation(Rule::RoundUp, &e.line, e.at, e.node, k::CONFORM_ROUND_DOWN, args);
                }
            }
            self.round.insert(e.node, (t, e.at));
        }
        match e.role.as_deref() {
            Some("looking") => {
                self.proposal.remove(&e.node);
            }
            Some(role @ ("leading" | "following")) => {
                let leader = e.leader.filter(|&l| l != 0).unwrap_or(e.node);
                if let Some(&p) = self.proposal.get(&e.node) {
                    self.cov.hit(Rule::FollowsProposal);
                    if p != leader {
                        let args = vec![e.node as u64, leader as u64, p as u64];
                        return violation(Rule::FollowsProposal, &e.line, e.at, e.node, k::CONFORM_NOT_PROPOSED, args);
                    }
                }
                if role == "leading" {
                    self.cov.hit(Rule::ProposedByQuorum);
                    let round = self.round.get(&e.node).map(|r| r.0).unwrap_or(0);
                    let mut voters: Vec<NodeId> = msgs
                        .iter()
                        .filter(|m| m.to == e.node && m.extra == e.node as u64 && m.term == round && m.sent <= e.at)
                        .map(|m| m.from)
                        .collect();
                    if self.proposal.get(&e.node) == Some(&e.node) {
                        voters.push(e.node);
                    }
                    voters.sort_unstable();
                    voters.dedup();
                    let seen = voters.len() as u64;
                    if seen < quorum(self.n) {
                        let args = vec![e.node as u64, round, seen, quorum(self.n)];
                        return violation(
                            Rule::ProposedByQuorum,
                            &e.line,
                            e.at,
                            e.node,
                            k::CONFORM_NOT_PROPOSED_BY_QUORUM,
                            args,
                        );
                    }
                }
            }
            _ => {}
        }
        if let Some(v) = e.vote.filter(|&v| v != 0) {
            self.proposal.insert(e.node, v);
        }
        None
    }
}
