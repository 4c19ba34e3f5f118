//! What the counterexample search keeps from one schedule to the next: the tree of the histories
//! it explored, kept as the set of its nodes' trace hashes (a history up to a step is a node; the
//! schedules that share a prefix share its nodes), and its bound in bytes.
//!
//! The bytes are counted as the standard library's hash table lays the set out: a power of two of
//! buckets (7/8 of them usable), each an 8-byte hash and a control byte, and one group of 16 more
//! control bytes. A table grows by doubling, so the cap is checked *before* a growth: the set
//! never allocates past it. Once a new history cannot be kept the set is full and the search
//! stops, saying so ([`crate::search::Search::capped`]); it does not go on forgetting histories.

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

/// The search's default bound on its tree of histories: 64 MiB, sized for a browser tab (the
/// page's worker runs the search beside the page, whose own run keeps up to a million steps);
/// about 3.7 million distinct histories.
pub const MAX_MEMORY: usize = 64 << 20;

/// A hasher for values that are hashes already (the trace hash): it passes them through.
#[derive(Default)]
pub struct PassThrough(u64);

impl Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | b as u64;
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

/// Bytes of a table of `buckets` buckets of 8-byte hashes (none allocated for none).
pub const fn table_bytes(buckets: usize) -> usize {
    if buckets == 0 {
        0
    } else {
        buckets * 9 + 16
    }
}

/// The buckets a table allocates to hold `items` (as the standard library sizes them).
pub fn buckets_for(items: usize) -> usize {
    match items {
        0 => 0,
        1..=3 => 4,
        4..=7 => 8,
        n => (n.saturating_mul(8) / 7).next_power_of_two(),
    }
}

/// The buckets of a table whose usable capacity is `capacity`.
fn buckets_of(capacity: usize) -> usize {
    match capacity {
        0 => 0,
        1..=7 => capacity + 1,
        c => c / 7 * 8,
    }
}

/// The distinct histories seen (their trace hashes), within a count and a size in bytes.
pub struct States {
    set: HashSet<u64, BuildHasherDefault<PassThrough>>,
    max_count: usize,
    max_bytes: usize,
    /// A new history could not be kept: the search stops.
    full: bool,
}

impl States {
    pub fn new(max_count: usize, max_bytes: usize) -> States {
        States { set: HashSet::default(), max_count, max_bytes, full: false }
    }

    /// Distinct histories kept.
    pub fn len(&self) -> usize {
        self.set.len()
    }

    /// Bytes the set holds now.
    pub fn bytes(&self) -> usize {
        table_bytes(buckets_of(self.set.capacity()))
    }

    /// The bound in bytes, and in histories.
    pub fn caps(&self) -> (usize, usize) {
        (self.max_bytes, self.max_count)
    }

    /// Whether a history could not be kept (the search must stop).
    pub fn full(&self) -> bool {
        self.full
    }

    /// Keeps `hash`, unless keeping it would pass a cap: then the set is full.
    pub(super) fn see(&mut self, hash: u64) {
        if self.full || self.set.contains(&hash) {
            return;
        }
        let grows = self.set.len() == self.set.capacity();
        let after = if grows { table_bytes(buckets_for(self.set.capacity() + 1)) } else { self.bytes() };
        if self.set.len() >= self.max_count || after > self.max_bytes {
            self.full = true;
            return;
        }
        self.set.insert(hash);
    }
}

/// `bytes` for people: `64 MiB`, `4.0 KiB`, `512 B`.
pub fn show_bytes(bytes: usize) -> String {
    match bytes {
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b >= 1 << 20 => format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64),
        b if b >= 1 << 10 => format!("{:.1} KiB", b as f64 / 1024.0),
        b => format!("{b} B"),
    }
}

/// The message of a search stopped by `states`' cap: the cap, and what was explored.
pub fn capped(states: &States, p: &super::Progress, property: &str) -> String {
    let (max_bytes, max_count) = states.caps();
    let cap = if states.len() >= max_count {
        format!("its cap of {max_count} distinct histories")
    } else {
        format!("its memory cap of {} ({max_bytes} bytes; --max-memory)", show_bytes(max_bytes))
    };
    format!(
        "the search stopped: its tree of explored histories reached {cap}, holding {} distinct histories \
         in {}; it explored {} schedules ({} systematic delivery orders) and {} of its {} steps without \
         breaking {property}",
        states.len(),
        show_bytes(states.bytes()),
        p.schedules,
        p.orders,
        p.steps,
        p.budget_steps,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The count of bytes follows the table the standard library really allocates: after every
    /// insertion the capacity it reports is the one predicted, and the set never passes its cap.
    #[test]
    fn the_bytes_counted_are_the_tables_and_the_cap_holds() {
        let mut s = States::new(usize::MAX, 10_000);
        let mut predicted = 0;
        for h in 0..100_000u64 {
            let len = s.len();
            if len == s.set.capacity() {
                predicted = table_bytes(buckets_for(len + 1));
            }
            s.see(h.wrapping_mul(0x9e37_79b9_7f4a_7c15));
            if s.full() {
                break;
            }
            assert_eq!(s.bytes(), predicted, "after {} histories", s.len());
        }
        assert!(s.full(), "10 000 bytes hold fewer than 100 000 histories");
        assert!(s.bytes() <= 10_000 && s.bytes() > 10_000 / 2, "{}", s.bytes());
        // Full stays full, and a history already kept costs nothing.
        let before = s.len();
        s.see(1);
        assert_eq!(s.len(), before);
    }

    #[test]
    fn a_count_cap_fills_the_set_too() {
        let mut s = States::new(3, MAX_MEMORY);
        for h in 0..3 {
            s.see(h);
        }
        assert!(!s.full());
        s.see(2);
        assert!(!s.full(), "a history seen again is not a new one");
        s.see(9);
        assert!(s.full());
        assert_eq!(show_bytes(MAX_MEMORY), "64 MiB");
        assert_eq!(show_bytes(4096), "4.0 KiB");
    }
}
