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

/// A text of the catalogs: a key of `crate/i18n/en.json` (and of every other language's
/// catalog), named by a generated constant of [`k`] (`k::BULLY_TITLE`), so that a key that does
/// not exist does not compile. Templates name their arguments (`N{node} gets {id}`, and
/// `{count:node:nodes}` for a number with its noun, singular for 1); the code passes them
/// positionally, in the order [`Text::args`] gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Text(u16);

include!(concat!(env!("OUT_DIR"), "/catalog.rs"));

/// The Chinese catalog by key index, once read (natively from the file compiled in; in the page
/// once fetched and [`install`]ed). A missing key reads as English.
static ZH: std::sync::OnceLock<Vec<Option<&'static str>>> = std::sync::OnceLock::new();

fn zh_table() -> Option<&'static [Option<&'static str>]> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        Some(ZH.get_or_init(|| read_catalog(include_str!("../../i18n/zh.json")).expect("i18n/zh.json")))
    }
    #[cfg(target_arch = "wasm32")]
    {
        ZH.get().map(|v| v.as_slice())
    }
}

/// A catalog file (`{"key": "text", ...}`) by key index; unknown keys, `@` entries skipped, a key lacking reads as English.
fn read_catalog(json: &str) -> Result<Vec<Option<&'static str>>, String> {
    let Ok(serde_json::Value::Object(map)) = crate::read::parse_json(json) else {
        return Err("the catalog is not a JSON object of texts".into());
    };
    let mut table = vec![None; KEYS_LEN];
    for (key, v) in map {
        if key.starts_with('@') {
            continue;
        }
        let Some(i) = key_index(&key) else { continue };
        let serde_json::Value::String(s) = v else { return Err(format!("{key}: not a string")) };
        // Installed once per process: the texts live as long as the page.
        table[i] = Some(&*Box::leak(s.into_boxed_str()));
    }
    Ok(table)
}

/// FNV-1a over the key's bytes, as build.rs computes the key hashes (no two keys share one).
fn key_hash(key: &str) -> u32 {
    crate::fnv::fnv1a_32(key.as_bytes())
}

/// The index of a catalog key, found by its hash: the page keeps 4 bytes a key instead of the
/// key names (27 KB). A key that is not in the catalog is `None` unless its hash happens to
/// equal a key's (one chance in 3.5 million; the catalog test refuses unknown keys anyway).
fn key_index(key: &str) -> Option<usize> {
    let h = key_hash(key);
    index_of_hash(h)
}

/// Installs a language's catalog fetched at run time (the page fetches `zh.json` when Chinese
/// is chosen). English is compiled in and needs none. Installing twice keeps the first.
pub fn install(lang: Lang, json: &str) -> Result<(), String> {
    match lang {
        Lang::En => Ok(()),
        Lang::Zh => {
            if ZH.get().is_none() {
                let table = read_catalog(json)?;
                let _ = ZH.set(table);
            }
            Ok(())
        }
    }
}

/// Whether `lang`'s texts are at hand (English always; Chinese natively, or once installed).
pub fn ready(lang: Lang) -> bool {
    match lang {
        Lang::En => true,
        Lang::Zh => zh_table().is_some(),
    }
}

/// Texts made at run time (a scripted algorithm's kinds, roles and narration, see
/// `crate::protocols::script`): numbered after the catalog's keys, interned (the same texts give
/// the same `Text`), and kept for the life of the process, so at most [`RUNTIME_MAX`] of them.
#[cfg(feature = "script")]
static RUNTIME: std::sync::RwLock<Vec<RuntimeText>> = std::sync::RwLock::new(Vec::new());

/// The most texts made at run time one process keeps.
#[cfg(feature = "script")]
pub const RUNTIME_MAX: usize = 16_384;

#[cfg(feature = "script")]
#[derive(Clone, Copy, PartialEq, Eq)]
struct RuntimeText {
    key: &'static str,
    en: &'static str,
    zh: &'static str,
    args: &'static [&'static str],
}

#[cfg(feature = "script")]
impl Text {
    /// A text made at run time under `key`, in English and Chinese; its arguments are named in
    /// the English template (in order of first appearance). The same three strings give the same
    /// `Text`; an error past [`RUNTIME_MAX`] texts.
    pub fn runtime(key: &str, en: &str, zh: &str) -> Result<Text, String> {
        let mut table = RUNTIME.write().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = table.iter().position(|t| t.key == key && t.en == en && t.zh == zh) {
            return Ok(Text((KEYS_LEN + i) as u16));
        }
        if table.len() >= RUNTIME_MAX || KEYS_LEN + table.len() >= u16::MAX as usize {
            return Err(format!("too many texts made at run time (at most {RUNTIME_MAX} in one session)"));
        }
        let args: Vec<&'static str> = template_args(en).into_iter().map(|a| &*Box::leak(a.into_boxed_str())).collect();
        let leak = |s: &str| -> &'static str { Box::leak(s.to_string().into_boxed_str()) };
        table.push(RuntimeText {
            key: leak(key),
            en: leak(en),
            zh: leak(zh),
            args: Box::leak(args.into_boxed_slice()),
        });
        Ok(Text((KEYS_LEN + table.len() - 1) as u16))
    }
    fn made(self) -> Option<RuntimeText> {
        let i = (self.0 as usize).checked_sub(KEYS_LEN)?;
        RUNTIME.read().unwrap_or_else(|e| e.into_inner()).get(i).copied()
    }
}

/// The argument names of a template, in order of first appearance (`{name}` and
/// `{name:one:many}`).
#[cfg(feature = "script")]
pub fn template_args(t: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    let mut rest = t;
    while let Some(at) = rest.find('{') {
        let tail = &rest[at + 1..];
        let Some(end) = tail.find('}') else { break };
        let name = tail[..end].split(':').next().unwrap_or("");
        if !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !names.iter().any(|n| n == name)
        {
            names.push(name.to_string());
        }
        rest = &tail[end + 1..];
    }
    names
}

impl Text {
    /// The key (`bully.note.start`).
    pub fn key(self) -> &'static str {
        #[cfg(feature = "script")]
        if let Some(t) = self.made() {
            return t.key;
        }
        name_of(self.0 as usize)
    }
    /// Every key of the catalog this build compiled in (see `build.rs`: a family build's).
    pub fn all() -> impl Iterator<Item = Text> {
        (0..KEYS_LEN).filter(|&i| has(i)).map(|i| Text(i as u16))
    }
    /// The key called `name`, if the catalog has it.
    pub fn find(name: &str) -> Option<Text> {
        index_of_name(name).map(|i| Text(i as u16))
    }
    /// The names of the template's arguments, in the order the code passes them.
    pub fn args(self) -> &'static [&'static str] {
        #[cfg(feature = "script")]
        if let Some(t) = self.made() {
            return t.args;
        }
        args_of(self.0 as usize)
    }
    /// The text in `lang` (English while that language's catalog has not arrived).
    pub fn get(&self, lang: Lang) -> &'static str {
        #[cfg(feature = "script")]
        if let Some(t) = self.made() {
            return if lang == Lang::Zh { t.zh } else { t.en };
        }
        let i = self.0 as usize;
        match lang {
            Lang::En => en_of(i),
            Lang::Zh => zh_table().and_then(|t| t.get(i).copied().flatten()).unwrap_or(en_of(i)),
        }
    }
    /// The text in `lang` if its catalog has this key (for the catalog tests).
    pub fn lookup(&self, lang: Lang) -> Option<&'static str> {
        #[cfg(feature = "script")]
        if self.made().is_some() {
            return Some(self.get(lang));
        }
        match lang {
            Lang::En => Some(en_of(self.0 as usize)),
            Lang::Zh => zh_table().and_then(|t| t.get(self.0 as usize).copied().flatten()),
        }
    }
    /// The template in `lang` with each `{name}` replaced by the argument at that name's
    /// position in [`Text::args`], and `{name:node:nodes}` by the number and its noun (singular
    /// for 1); other braces stay as they are.
    pub fn fill(&self, lang: Lang, args: &[u64]) -> String {
        fill(self.get(lang), self.args(), args)
    }
    /// [`Text::fill`] with arguments of any kind (lists of nodes, words, decimals).
    pub fn format(&self, lang: Lang, args: &[&dyn std::fmt::Display]) -> String {
        let strings: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        fill_with(self.get(lang), self.args(), |k| strings.get(k).map(String::as_str))
    }
}

/// `t` with each `{name}` of `names` replaced by the argument at the same position; other
/// braces, and names without an argument, stay as written.
fn fill(t: &str, names: &[&str], args: &[u64]) -> String {
    let strings: Vec<String> = args.iter().map(u64::to_string).collect();
    fill_with(t, names, |k| strings.get(k).map(String::as_str))
}

fn fill_with<'a>(t: &str, names: &[&str], arg: impl Fn(usize) -> Option<&'a str>) -> String {
    let mut out = String::with_capacity(t.len() + 8);
    let mut rest = t;
    while let Some(at) = rest.find('{') {
        out.push_str(&rest[..at]);
        let tail = &rest[at + 1..];
        let found = tail.find('}').and_then(|end| {
            let inner = &tail[..end];
            let mut parts = inner.splitn(3, ':');
            let name = parts.next().unwrap_or("");
            let v = names.iter().position(|n| *n == name).and_then(&arg)?;
            Some((v, parts.next(), parts.next(), end))
        });
        match found {
            Some((v, one, many, end)) => {
                out.push_str(v);
                // `{count:node:nodes}`: the number and its noun, singular for 1.
                if let (Some(one), Some(many)) = (one, many) {
                    out.push(' ');
                    out.push_str(if v == "1" { one } else { many });
                }
                rest = &tail[end + 1..];
            }
            None => {
                out.push('{');
                rest = tail;
            }
        }
    }
    out.push_str(rest);
    out
}

/// A text with its arguments; above all the sentence of narration a handler attaches to the
/// step it runs in: why it did what it did. `text` is a catalog template; the arguments fill its
/// named arguments, in [`Text::args`] order. Made by the generated typed functions of [`k`]
/// (`k::raft_note_vote(node, peer, term)`), so the arguments' number and kinds are checked at
/// compile time; [`Note::untyped`] is for texts chosen from data at run time only.
///
/// ```
/// use election_lab_core::meta::{k, Lang};
/// let note = k::raft_note_vote(2, 1, 7);
/// assert_eq!(note.args(), [2, 1, 7]);
/// assert!(note.render(Lang::En).starts_with("N2 "));
/// ```
///
/// A missing argument does not compile:
/// ```compile_fail
/// let _ = election_lab_core::meta::k::raft_note_vote(2, 1);
/// ```
/// Nor does a number where the template names a node (`N{peer}` is a `NodeId`, a term a `u64`):
/// ```compile_fail
/// let term: u64 = 7;
/// let _ = election_lab_core::meta::k::raft_note_vote(2, term, term);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Note {
    pub text: Text,
    args: [u64; MAX_ARGS],
}

impl Note {
    /// A note built from data at run time (a scripted algorithm's or a node process's narration,
    /// a recorded run's): the arguments in [`Text::args`] order, those past [`MAX_ARGS`] dropped.
    /// The built-in protocols use the typed functions of [`k`] instead (clippy's
    /// `disallowed-methods` refuses this one elsewhere).
    pub fn untyped(text: Text, args: &[u64]) -> Note {
        let mut a = [0u64; MAX_ARGS];
        let n = args.len().min(MAX_ARGS);
        a[..n].copy_from_slice(&args[..n]);
        Note { text, args: a }
    }
    /// The arguments, in [`Text::args`] order (as many as the text takes).
    pub fn args(&self) -> &[u64] {
        &self.args[..self.text.args().len().min(MAX_ARGS)]
    }
    /// Every argument slot, unused ones 0 (for storing a note compactly).
    pub fn slots(&self) -> &[u64; MAX_ARGS] {
        &self.args
    }
    /// A note back from its stored slots.
    pub(crate) fn from_slots(text: Text, args: [u64; MAX_ARGS]) -> Note {
        Note { text, args }
    }
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
    /// Any connected undirected graph: the scenario's `topology` (complete when it gives none);
    /// messages go to neighbours only.
    Graph,
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

pub const LEADER_ROLE: Role = Role::new("leader", Look::Leader, k::META_ROLE_LEADER);
pub const FOLLOWER_ROLE: Role = Role::new("follower", Look::Follower, k::META_ROLE_FOLLOWER);
pub const CANDIDATE_ROLE: Role = Role::new("candidate", Look::Candidate, k::META_ROLE_CANDIDATE);
/// A pre-vote's asker (Raft with pre-vote): drawn as a candidate, its term not raised yet.
pub const PRE_CANDIDATE_ROLE: Role = Role::new("pre-candidate", Look::Candidate, k::RAFT_ROLE_PRE_CANDIDATE);

mod formula;
pub use formula::{Formula, Net};
mod placeholders;
pub use placeholders::placeholders;

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
            Faults::Any => k::META_FAULTS_ANY,
            Faults::CrashStop => k::META_FAULTS_CRASH_STOP,
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
        title: k::PROPERTY_SINGLE_LEADER_TITLE,
        explain: k::PROPERTY_SINGLE_LEADER_EXPLAIN,
        holds,
        monitor: Monitor::SplitBrain,
    }
}

/// No two nodes lead the same term.
pub const ONE_LEADER_PER_TERM: Property = Property {
    id: TWO_LEADERS_IN_TERM,
    title: k::PROPERTY_ONE_LEADER_PER_TERM_TITLE,
    explain: k::PROPERTY_ONE_LEADER_PER_TERM_EXPLAIN,
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
    fn templates_fill_their_named_arguments() {
        let names = ["node", "id", "from"];
        let en = "N{node} gets {id} from N{from} ({3} stays, {x} too, {from";
        assert_eq!(fill(en, &names, &[5, 7, 3]), "N5 gets 7 from N3 ({3} stays, {x} too, {from");
        assert_eq!(fill("N{node} 收到 N{from} 的 {id}", &names, &[5, 7, 3]), "N5 收到 N3 的 7");
        assert_eq!(fill("{from} {node}", &names, &[5]), "{from} 5", "a missing argument stays a name");
        let counted = "{node:hop:hops}, {id:hop:hops}";
        assert_eq!(fill(counted, &names, &[1, 2]), "1 hop, 2 hops", "the noun agrees with the number");
        assert_eq!(Lang::parse("zh-CN"), Some(Lang::Zh));
        assert_eq!(Lang::parse("EN_gb"), Some(Lang::En));
        assert_eq!(Lang::parse("fr"), None);
    }

    #[test]
    fn every_key_is_found_by_its_hash() {
        for t in Text::all() {
            assert_eq!(key_index(t.key()), Some(t.0 as usize), "{}", t.key());
        }
        assert_eq!(key_index("no.such.key"), None);
        let table = read_catalog(r#"{"@args": {}, "ui.reset": "重置", "no.such.key": "x"}"#).unwrap();
        let reset = Text::find("ui.reset").expect("the catalog has ui.reset").0 as usize;
        let filled: Vec<usize> = table.iter().enumerate().filter(|(_, t)| t.is_some()).map(|(i, _)| i).collect();
        assert_eq!(filled, vec![reset], "only the known key is installed");
    }

    #[test]
    fn a_workbench_text_reads_as_a_marker_where_its_texts_are_compiled_out() {
        // `cargo test -p election-lab-core` builds the player's texts; the workspace, every text.
        let first_workbench_key = Text(PLAYER_KEYS as u16);
        let missing = first_workbench_key.get(Lang::En) == NOT_IN_PLAYER;
        assert_eq!(missing, !cfg!(feature = "workbench-texts"), "{}", first_workbench_key.get(Lang::En));
        assert!(Text::all().all(|t| t.get(Lang::En) != NOT_IN_PLAYER && t.get(Lang::Zh) != NOT_IN_PLAYER));
    }
}
