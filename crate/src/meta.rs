//! What an algorithm says about itself, as plain data: its message kinds and their visual roles,
//! its node roles, its topology, the formulas theory gives for its message counts, the safety
//! properties it claims (and under which faults), and its presets.
//!
//! Nothing here runs anything: the engine, the CLI, the UI and the conformance tests read these
//! values, so that no code outside an algorithm's own module needs to know which algorithm runs.

/// The two languages of the product.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Lang {
    #[default]
    En,
    Zh,
}

impl Lang {
    pub const ALL: &'static [Lang] = &[Lang::En, Lang::Zh];
    /// The BCP 47 tag (`en`, `zh`), as in `?lang=` and `<html lang>`.
    pub fn tag(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Zh => "zh",
        }
    }
    /// Reads `en`, `zh`, `zh-CN`, `en-GB`, ... (case-insensitive); other languages are `None`.
    pub fn parse(tag: &str) -> Option<Lang> {
        let primary = tag.split(['-', '_']).next()?.to_ascii_lowercase();
        match primary.as_str() {
            "en" => Some(Lang::En),
            "zh" => Some(Lang::Zh),
            _ => None,
        }
    }
}

/// A text in both languages. Narration templates use `{0}`, `{1}`, `{2}` for their arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Text {
    pub en: &'static str,
    pub zh: &'static str,
}

impl Text {
    pub const fn new(en: &'static str, zh: &'static str) -> Text {
        Text { en, zh }
    }
    pub fn get(&self, lang: Lang) -> &'static str {
        match lang {
            Lang::En => self.en,
            Lang::Zh => self.zh,
        }
    }
    /// The template in `lang` with `{0}`, `{1}`, `{2}` replaced by `args`, and `{1:node:nodes}`
    /// by the number followed by the singular (for 1) or the plural noun.
    pub fn fill(&self, lang: Lang, args: &[u64]) -> String {
        let t = self.get(lang);
        let mut out = String::with_capacity(t.len() + 8);
        let mut rest = t;
        while let Some(at) = rest.find('{') {
            out.push_str(&rest[..at]);
            let tail = &rest[at..];
            match (tail.as_bytes().get(1), tail.as_bytes().get(2)) {
                (Some(d @ b'0'..=b'9'), Some(b'}')) => {
                    let k = (d - b'0') as usize;
                    match args.get(k) {
                        Some(v) => out.push_str(&v.to_string()),
                        None => out.push_str(&tail[..3]),
                    }
                    rest = &tail[3..];
                }
                // `{1:node:nodes}`: the number and its noun, singular for 1.
                (Some(d @ b'0'..=b'9'), Some(b':')) if tail.contains('}') => {
                    let end = tail.find('}').expect("checked");
                    let mut forms = tail[3..end].splitn(2, ':');
                    let (one, many) = (forms.next().unwrap_or(""), forms.next().unwrap_or(""));
                    match args.get((d - b'0') as usize) {
                        Some(&v) => {
                            out.push_str(&v.to_string());
                            out.push(' ');
                            out.push_str(if v == 1 { one } else { many });
                        }
                        None => out.push_str(&tail[..=end]),
                    }
                    rest = &tail[end + 1..];
                }
                _ => {
                    out.push('{');
                    rest = &tail[1..];
                }
            }
        }
        out.push_str(rest);
        out
    }
}

/// One sentence of narration a handler attaches to the step it runs in: why it did what it did.
/// `text` is a template in both languages; `args` fill its `{0}`, `{1}`, `{2}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Note {
    pub text: &'static Text,
    pub args: [u64; 3],
}

impl Note {
    pub fn render(&self, lang: Lang) -> String {
        self.text.fill(lang, &self.args)
    }
}

/// How the nodes are connected, which decides how they are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Topology {
    /// Everyone may talk to everyone (Bully, Raft, ...).
    Complete,
    /// A ring in scenario order; messages go clockwise to the successor only.
    Ring,
    /// A ring in scenario order; messages go both ways, to either neighbour.
    BidirectionalRing,
    /// A complete graph plus one distinguished node (a store or a shared resource), drawn apart.
    WithResource,
}

impl Topology {
    pub fn is_ring(self) -> bool {
        matches!(self, Topology::Ring | Topology::BidirectionalRing)
    }
}

/// What a message kind does, from which its colour and legend entry follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Visual {
    /// Asks for something: ELECTION, REQUEST_VOTE, PREPARE.
    Request,
    /// A positive answer: OK, VOTE_GRANT, PROMISE, acks.
    Answer,
    /// Tells everyone the outcome: COORDINATOR, ELECTED.
    Announcement,
    /// Periodic proof of life.
    Heartbeat,
    /// A negative answer: VOTE_DENY, a rejected write.
    Refusal,
    /// Carries data or log entries: APPEND_ENTRIES, a write.
    Data,
}

impl Visual {
    pub const ALL: &'static [Visual] =
        &[Visual::Request, Visual::Answer, Visual::Announcement, Visual::Heartbeat, Visual::Refusal, Visual::Data];

    pub fn name(self) -> &'static str {
        match self {
            Visual::Request => "request",
            Visual::Answer => "answer",
            Visual::Announcement => "announcement",
            Visual::Heartbeat => "heartbeat",
            Visual::Refusal => "refusal",
            Visual::Data => "data",
        }
    }
}

/// One message kind of an algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kind {
    /// In capitals, as the literature names it: `ELECTION`, `REQUEST_VOTE`.
    pub name: &'static str,
    /// Up to three characters drawn next to a moving dot.
    pub short: &'static str,
    pub visual: Visual,
    /// What it means, for the legend: "asks every higher id to take over".
    pub explain: Text,
}

impl Kind {
    pub const fn new(name: &'static str, short: &'static str, visual: Visual, explain: Text) -> Kind {
        Kind { name, short, visual, explain }
    }
}

/// How a node role is drawn. Protocols name their roles freely (`waiting-coord`,
/// `participant`); each maps to one of these looks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Look {
    Leader,
    Follower,
    /// Actively campaigning.
    Candidate,
    /// Waiting for someone else's announcement.
    Waiting,
    /// Taking part in an election without campaigning.
    Participant,
    /// A service the others use but that never competes (a lock or key-value store): drawn
    /// apart, at the centre.
    Store,
}

impl Look {
    pub fn name(self) -> &'static str {
        match self {
            Look::Leader => "leader",
            Look::Follower => "follower",
            Look::Candidate => "candidate",
            Look::Waiting => "waiting",
            Look::Participant => "participant",
            Look::Store => "store",
        }
    }
}

/// One node role (the `role` of a [`crate::protocol::View`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Role {
    pub name: &'static str,
    pub look: Look,
    /// A few words for the legend: "waiting for COORDINATOR".
    pub explain: Text,
}

impl Role {
    pub const fn new(name: &'static str, look: Look, explain: Text) -> Role {
        Role { name, look, explain }
    }
}

pub const LEADER_ROLE: Role = Role::new("leader", Look::Leader, Text::new("believes it leads", "认为自己是领导者"));
pub const FOLLOWER_ROLE: Role =
    Role::new("follower", Look::Follower, Text::new("follows a leader, or waits for one", "跟随领导者，或等待领导者"));
pub const CANDIDATE_ROLE: Role =
    Role::new("candidate", Look::Candidate, Text::new("campaigning in an election", "正在竞选"));

/// A message count that theory gives, to show beside the measured one.
#[derive(Clone, Copy, Debug)]
pub struct Formula {
    /// The formula as written: `N²−N−1`.
    pub name: &'static str,
    /// When it applies: "worst case: the top id crashed and every other node starts at once".
    pub applies: Text,
    /// The message kinds it counts.
    pub counts: &'static [&'static str],
    /// Its value for N nodes.
    pub value: fn(u64) -> u64,
}

/// The faults under which a property is claimed to hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Faults {
    /// Any crash, recovery, partition, one-way cut, message loss and random latency.
    Any,
    /// Nodes may crash and stay down; the network loses nothing, never partitions, and delivers
    /// within a known bound (the synchronous model of the classic algorithms).
    CrashStop,
}

impl Faults {
    pub fn describe(self) -> Text {
        match self {
            Faults::Any => Text::new(
                "under any crash, recovery, partition, loss or delay",
                "在任意崩溃、恢复、网络分区、丢包或延迟下都成立",
            ),
            Faults::CrashStop => Text::new(
                "while the network is synchronous and never partitioned (nodes may crash)",
                "前提是网络同步且不发生分区（节点可以崩溃）",
            ),
        }
    }
}

/// How a property's violations are found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Monitor {
    /// Two or more live nodes believe they lead at the same time.
    SplitBrain,
    /// Two different nodes lead the same term or epoch.
    TwoLeadersInTerm,
    /// The protocol reports violations itself (e.g. a fenced store accepting an old token).
    Reported,
    /// A token protocol's split brain: two live tokens of different generations exist at once
    /// (held by live nodes or in flight, read through `Protocol::token` and `Message::token`),
    /// or two live nodes lead at once.
    OneToken,
}

impl Monitor {
    /// Whether this monitor watches for more than one leader at once (split brain, or its
    /// token-ring form, duplicate tokens).
    pub fn is_single_leader(self) -> bool {
        matches!(self, Monitor::SplitBrain | Monitor::OneToken)
    }
}

/// A safety property an algorithm claims.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Property {
    /// Also the `kind` of its violations: `split-brain`, `two-leaders-in-term`.
    pub id: &'static str,
    pub title: Text,
    pub explain: Text,
    pub holds: Faults,
    pub monitor: Monitor,
}

pub const SPLIT_BRAIN: &str = "split-brain";
pub const TWO_LEADERS_IN_TERM: &str = "two-leaders-in-term";

/// At most one live node believes it leads at any moment.
pub const fn single_leader(holds: Faults) -> Property {
    Property {
        id: SPLIT_BRAIN,
        title: Text::new("Single leader", "唯一领导者"),
        explain: Text::new(
            "at most one live node believes it leads at any moment",
            "任一时刻至多一个存活节点认为自己是领导者（否则即脑裂）",
        ),
        holds,
        monitor: Monitor::SplitBrain,
    }
}

/// No two nodes lead the same term.
pub const ONE_LEADER_PER_TERM: Property = Property {
    id: TWO_LEADERS_IN_TERM,
    title: Text::new("One leader per term", "每个任期至多一个领导者"),
    explain: Text::new("no two nodes ever lead the same term", "同一任期内不会有两个节点成为领导者"),
    holds: Faults::Any,
    monitor: Monitor::TwoLeadersInTerm,
};

/// A ready scenario of an algorithm, with the trace hash it must replay to.
#[derive(Clone, Copy, Debug)]
pub struct Preset {
    pub id: &'static str,
    pub title: Text,
    /// One or two sentences shown under the picker: what to watch or try.
    pub hint: Text,
    /// The scenario, as JSON.
    pub json: &'static str,
    /// The live self-declared leaders when the run has ended (checked natively by the
    /// conformance suite and in the browser by the end-to-end suite).
    pub leaders: &'static [u32],
    /// The trace hash of a run to the end (hex), identical natively and in wasm.
    pub golden: &'static str,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_fill_their_arguments_in_both_languages() {
        const T: Text = Text::new("N{0} gets {1} from N{2} ({3} stays, {x} too)", "N{0} 收到 N{2} 的 {1}");
        assert_eq!(T.fill(Lang::En, &[5, 7, 3]), "N5 gets 7 from N3 ({3} stays, {x} too)");
        assert_eq!(T.fill(Lang::Zh, &[5, 7, 3]), "N5 收到 N3 的 7");
        assert_eq!(Lang::parse("zh-CN"), Some(Lang::Zh));
        assert_eq!(Lang::parse("EN_gb"), Some(Lang::En));
        assert_eq!(Lang::parse("fr"), None);
    }
}
