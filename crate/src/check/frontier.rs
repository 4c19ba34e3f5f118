//! The breadth-first frontier and the visited set, kept compact. A world waiting to be expanded
//! is written as a few bytes (LEB128 numbers) at the end of one buffer and read back from its
//! front when it is expanded; its node states are indices into a table that keeps each distinct
//! node state (state and pending timers) once. The visited set is bare fingerprints.

use super::*;

/// Worlds waiting to be expanded, in order: `id, depth, up, leaders, sched, labels, used × 4`,
/// a node-table index per node, the partition labels, the number of messages in flight and per
/// message `from | to << 4` (one byte: at most 16 nodes) and its payload id, then the number of
/// terms and per term its number and its leader.
#[derive(Default)]
pub(super) struct Frontier {
    buf: Vec<u8>,
    /// Where the next world to expand starts.
    head: usize,
}

/// Distinct node states by fingerprint ([`Machine::hash_node`]).
#[derive(Default)]
pub(super) struct NodeTable {
    stash: Vec<Box<dyn Stash>>,
    hash: Vec<u64>,
    index: HashMap<u64, u32, BuildHasherDefault<Id>>,
}

fn put(out: &mut Vec<u8>, mut x: u64) {
    while x >= 0x80 {
        out.push(x as u8 | 0x80);
        x >>= 7;
    }
    out.push(x as u8);
}

fn get(buf: &[u8], at: &mut usize) -> u64 {
    let (mut x, mut shift) = (0u64, 0);
    loop {
        let b = buf[*at];
        *at += 1;
        x |= ((b & 0x7f) as u64) << shift;
        if b < 0x80 {
            return x;
        }
        shift += 7;
    }
}

impl Checker {
    /// Writes `w` at the end of `out`.
    pub(super) fn encode(&mut self, w: &World, out: &mut Vec<u8>) {
        for x in [w.id, w.depth, w.up, w.leaders, w.sched as u32, w.labels.len() as u32] {
            put(out, x as u64);
        }
        for x in w.used {
            put(out, x as u64);
        }
        for i in 0..self.n {
            let h = w.node_h[i];
            let k = match self.table.index.get(&h) {
                Some(&k) => k,
                None => {
                    let k = self.table.stash.len() as u32;
                    self.table.stash.push(self.m.node_stash(&*w.nodes, i));
                    self.table.hash.push(h);
                    self.table.index.insert(h, k);
                    k
                }
            };
            put(out, k as u64);
        }
        out.extend_from_slice(&w.labels);
        put(out, w.msgs.len() as u64);
        for &(f, t, p) in &w.msgs {
            out.push(f | t << 4);
            put(out, p as u64);
        }
        put(out, w.terms.len() as u64);
        for &(term, node) in &w.terms {
            put(out, term);
            put(out, node as u64);
        }
    }

    /// Reads the world written at `at` in `buf`, and moves `at` past it.
    pub(super) fn decode(&self, buf: &[u8], at: &mut usize) -> World {
        let mut next = || get(buf, at);
        let (id, depth, up, leaders, sched, labels_len) =
            (next() as u32, next() as u32, next() as u32, next() as u32, next() as u16, next() as usize);
        let used = [next() as u32, next() as u32, next() as u32, next() as u32];
        let keys: Vec<usize> = (0..self.n).map(|_| get(buf, at) as usize).collect();
        let labels = buf[*at..*at + labels_len].to_vec();
        *at += labels_len;
        let count = get(buf, at) as usize;
        let mut msgs = Vec::with_capacity(count);
        for _ in 0..count {
            let ends = buf[*at];
            *at += 1;
            msgs.push((ends & 15, ends >> 4, get(buf, at) as u32));
        }
        let count = get(buf, at) as usize;
        let terms = (0..count).map(|_| (get(buf, at), get(buf, at) as NodeId)).collect();
        let stashes: Vec<&dyn Stash> = keys.iter().map(|&k| &*self.table.stash[k]).collect();
        World {
            nodes: Rc::from(self.m.join_stash(&stashes)),
            node_h: keys.iter().map(|&k| self.table.hash[k]).collect::<Vec<u64>>().into(),
            up,
            leaders,
            labels,
            msgs,
            used,
            sched,
            terms,
            depth,
            id,
        }
    }

    /// Puts `w` at the back of the frontier.
    pub(super) fn push(&mut self, w: &World) {
        let mut buf = std::mem::take(&mut self.queue.buf);
        self.encode(w, &mut buf);
        self.queue.buf = buf;
    }

    /// Takes the world at the front of the frontier.
    pub(super) fn pop(&mut self) -> Option<World> {
        if self.queue.head == self.queue.buf.len() {
            return None;
        }
        let mut at = self.queue.head;
        let w = self.decode(&self.queue.buf, &mut at);
        self.queue.head = at;
        if at >= 1 << 16 && 2 * at >= self.queue.buf.len() {
            // What was read is dropped once it is half the buffer: each byte moves at most once.
            self.queue.buf.drain(..at);
            self.queue.head = 0;
        }
        Some(w)
    }
}

/// The visited set: fingerprints in an open-addressing table (linear probing, at most three
/// quarters full), each state's index kept beside its fingerprint only when the fairness
/// analysis needs it (an *eventually* property).
pub(super) struct Seen {
    /// 0: an empty slot (the fingerprint 0 is kept in `zero`).
    keys: Vec<u64>,
    ids: Option<Vec<u32>>,
    zero: Option<u32>,
    len: usize,
}

impl Seen {
    pub(super) fn new(with_ids: bool) -> Seen {
        Seen { keys: vec![0; 1024], ids: with_ids.then(|| vec![0; 1024]), zero: None, len: 0 }
    }

    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Where `fp` is or would go.
    fn slot(&self, fp: u64) -> usize {
        let mask = self.keys.len() - 1;
        // Fibonacci hashing spreads the fingerprint's high bits over the table.
        let mut i = (fp.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) as usize & mask;
        while self.keys[i] != 0 && self.keys[i] != fp {
            i = (i + 1) & mask;
        }
        i
    }

    /// Whether `fp` was seen: its state's index if kept (`u32::MAX` if not).
    pub(super) fn get(&self, fp: u64) -> Option<u32> {
        if fp == 0 {
            return self.zero;
        }
        let i = self.slot(fp);
        (self.keys[i] == fp).then(|| self.ids.as_ref().map_or(u32::MAX, |ids| ids[i]))
    }

    /// Adds `fp` (not seen yet), the fingerprint of state `id`.
    pub(super) fn insert(&mut self, fp: u64, id: u32) {
        self.len += 1;
        if fp == 0 {
            self.zero = Some(id);
            return;
        }
        if 4 * self.len > 3 * self.keys.len() {
            let size = 2 * self.keys.len();
            let keys = std::mem::replace(&mut self.keys, vec![0; size]);
            let ids = self.ids.as_mut().map(|ids| std::mem::replace(ids, vec![0; size]));
            for (k, &key) in keys.iter().enumerate() {
                if key != 0 {
                    let i = self.slot(key);
                    self.keys[i] = key;
                    if let (Some(new), Some(old)) = (self.ids.as_mut(), ids.as_ref()) {
                        new[i] = old[k];
                    }
                }
            }
        }
        let i = self.slot(fp);
        self.keys[i] = fp;
        if let Some(ids) = self.ids.as_mut() {
            ids[i] = id;
        }
    }
}
