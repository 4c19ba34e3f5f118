//! Every event given to a node's process and its answer, kept as a tree of histories: the
//! engine replays steps (seeking back, writing a trace), forks, and a search runs many
//! schedules of the same scenario, each a history of events of its own.
//!
//! A node's state carries where in the tree it is ([`super::State::at`]). An event met before
//! at that point is answered from the tree, without the process. A new one goes to the process,
//! which must first be where the state is: a process cannot be rewound, so when it lived through
//! another history it is stopped, a new one is started (the same command, `hello` first) and
//! given this history's events again, each of which must be answered as before (a node whose
//! answers differ for the same events is not deterministic, and is reported). At most one
//! process a node runs at any time.

use super::wire::Reply;
use crate::fnv::fnv1a_64;

/// The tree's root: nothing handled yet (a process just started and asked `hello`).
pub const ROOT: u32 = 0;

struct Entry {
    parent: u32,
    line: String,
    /// The FNV-1a hash of the process's answer, as it wrote it.
    answer: u64,
    reply: Option<Reply>,
    children: Vec<u32>,
}

/// One node's tree of events and answers, and where its live process is in it.
pub struct History {
    entries: Vec<Entry>,
    /// The entry of the last event the live process handled (`ROOT`: none yet); `None` when no
    /// process lives through any entry (it failed, or was never asked).
    pub live: Option<u32>,
}

impl Default for History {
    fn default() -> Self {
        let root = Entry { parent: ROOT, line: String::new(), answer: 0, reply: None, children: Vec::new() };
        History { entries: vec![root], live: Some(ROOT) }
    }
}

impl History {
    /// The entry reached from `at` by the event `line`, if it was met before, with its answer.
    pub fn child(&self, at: u32, line: &str) -> Option<(u32, &Reply)> {
        let e = self.entries.get(at as usize)?;
        e.children.iter().map(|&c| (c, &self.entries[c as usize])).find(|(_, x)| x.line == line).and_then(|(c, x)| {
            let r = x.reply.as_ref()?;
            Some((c, r))
        })
    }

    /// Keeps the answer `raw` (read as `reply`) to the event `line` given at `at`; returns the
    /// new entry.
    pub fn add(&mut self, at: u32, line: String, raw: &str, reply: Reply) -> u32 {
        let id = self.entries.len() as u32;
        self.entries.push(Entry {
            parent: at,
            line,
            answer: fnv1a_64(raw.as_bytes()),
            reply: Some(reply),
            children: Vec::new(),
        });
        self.entries[at as usize].children.push(id);
        id
    }

    /// The events from the root to `at`, in the order given, each with its answer's hash.
    pub fn path(&self, at: u32) -> Vec<(&str, u64)> {
        let mut out = Vec::new();
        let mut k = at;
        while k != ROOT {
            let e = &self.entries[k as usize];
            out.push((e.line.as_str(), e.answer));
            k = e.parent;
        }
        out.reverse();
        out
    }

    /// Whether `raw` is the answer kept (by its hash).
    pub fn same_answer(expected: u64, raw: &str) -> bool {
        fnv1a_64(raw.as_bytes()) == expected
    }
}
