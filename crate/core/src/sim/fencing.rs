//! The fenced store (scenario option `fencing`): what it logs, and the write rounds in which
//! every node that believes it leads sends a write carrying its token.

use super::*;

/// One write to the fenced store. Immutable once logged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WriteEntry {
    pub node: NodeId,
    pub token: u64,
    pub value: u64,
    pub sent: Time,
    pub arrive: Time,
}

/// The fenced store's verdict on write `write`, at `time`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub write: u64,
    pub accepted: bool,
    pub time: Time,
}

/// The fenced store: the last accepted value, the largest token seen, the sequencer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Store {
    pub value: Option<u64>,
    pub max_token: u64,
    /// The last token the sequencer handed out.
    pub sequencer: u64,
    pub accepted: u64,
    pub rejected: u64,
}

impl Sim {
    /// A write round of the fenced store: every node that believes it leads (periodic round,
    /// ascending scenario order), or scripted write `k`'s node if it does, sends its write with
    /// its token. Returns the first writer (0 if none).
    pub(super) fn issue_writes(&mut self, k: u32) -> NodeId {
        let Some(f) = &self.fencing else { return 0 };
        let (writers, value): (Vec<usize>, Option<u64>) = if k == PERIODIC {
            let every = f.write_every;
            self.w.queue.push(self.w.now.saturating_add(every), Ev::Issue(PERIODIC).pack());
            self.w.pending_writes += 1;
            ((0..self.cfg.n()).collect(), None)
        } else {
            let w = f.writes[k as usize];
            (self.idx(w.node).into_iter().collect(), Some(w.value))
        };
        let mut first = 0;
        for i in writers {
            let leads = self.w.up[i] && self.w.obs.views[i].as_ref().is_some_and(|v| v.is_leader());
            if !leads {
                continue;
            }
            let id = self.cfg.ids[i];
            if first == 0 {
                first = id;
            }
            let token = self.token_of(i);
            let n = self.w.at.writes;
            // A periodic value names its writer and counts writes: 5003 = N5, the store's fourth write.
            let value = value.unwrap_or(id as u64 * 1000 + (n % 1000));
            let (lo, hi) = self.net.latency;
            let arrive = self.w.now.saturating_add(self.w.rng.range_inclusive(lo, hi));
            if n as usize == self.h.writes.len() {
                self.h.writes.push(WriteEntry { node: id, token, value, sent: self.w.now, arrive });
                self.h.write_steps.push(self.w.steps);
            }
            self.w.at.writes += 1;
            self.w.pending_writes += 1;
            self.w.queue.push(arrive, Ev::Arrive(n).pack());
            self.w.hash = mix(mix(mix(self.w.hash, n), token), (value << 8) ^ arrive);
        }
        first
    }

    /// Node `i`'s fencing token: its term (epoch, ballot) if its protocol has one, else the
    /// sequencer's token it got when it last became leader.
    fn token_of(&self, i: usize) -> u64 {
        match self.w.obs.views[i].as_ref().and_then(|v| v.term) {
            Some(t) => t,
            None => self.w.tokens[i],
        }
    }

    pub fn store(&self) -> Option<&Store> {
        self.fencing.as_ref().map(|_| &self.w.store)
    }
    /// Writes issued up to the head.
    pub fn write_log(&self) -> &[WriteEntry] {
        &self.h.writes
    }
    /// The store's verdicts up to the cursor.
    pub fn verdicts(&self) -> &[Verdict] {
        &self.h.verdicts[..self.w.at.verdicts as usize]
    }
    /// Writes on their way to the store at the cursor, in arrival order.
    pub fn writes_in_flight(&self) -> impl Iterator<Item = (u64, &WriteEntry)> + '_ {
        self.w.queue.iter().filter_map(move |q| match q.ev() {
            Ev::Arrive(id) => Some((id, &self.h.writes[id as usize])),
            _ => None,
        })
    }
}
