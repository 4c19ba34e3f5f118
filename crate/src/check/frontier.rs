//! The breadth-first frontier, kept compact: a world waiting to be expanded is packed into a
//! few words, its node states replaced by indices into a table that keeps each distinct node
//! state (state and pending timers) once. A world is unpacked when it is expanded.

use super::*;

/// A packed world: `[id, depth, up, leaders, sched | labels << 16, used × 4]`, a node-table
/// index per node, the partition labels four to a word, then per message in flight
/// `from | to << 8` and its payload id, then per term its number (two words) and its leader.
pub(super) struct Packed(Box<[u32]>);

/// Distinct node states by fingerprint ([`Machine::hash_node`]).
#[derive(Default)]
pub(super) struct NodeTable {
    stash: Vec<Box<dyn Stash>>,
    hash: Vec<u64>,
    index: HashMap<u64, u32, BuildHasherDefault<Id>>,
}

const HEAD: usize = 9;

impl Checker {
    pub(super) fn pack(&mut self, w: &World) -> Packed {
        let n = self.n;
        let mut v: Vec<u32> = Vec::with_capacity(HEAD + n + n.div_ceil(4) + 1 + 2 * w.msgs.len() + 3 * w.terms.len());
        v.extend([w.id, w.depth, w.up, w.leaders, w.sched as u32 | (w.labels.len() as u32) << 16]);
        v.extend(w.used);
        for i in 0..n {
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
            v.push(k);
        }
        for c in w.labels.chunks(4) {
            let mut b = [0u8; 4];
            b[..c.len()].copy_from_slice(c);
            v.push(u32::from_le_bytes(b));
        }
        v.push(w.msgs.len() as u32);
        for &(f, t, p) in &w.msgs {
            v.extend([f as u32 | (t as u32) << 8, p]);
        }
        for &(term, node) in &w.terms {
            v.extend([term as u32, (term >> 32) as u32, node]);
        }
        Packed(v.into_boxed_slice())
    }

    pub(super) fn unpack(&self, p: &Packed) -> World {
        let (v, n) = (&p.0, self.n);
        let keys = &v[HEAD..HEAD + n];
        let stashes: Vec<&dyn Stash> = keys.iter().map(|&k| &*self.table.stash[k as usize]).collect();
        let labels_len = (v[4] >> 16) as usize;
        let mut at = HEAD + n;
        let labels: Vec<u8> =
            v[at..at + labels_len.div_ceil(4)].iter().flat_map(|w| w.to_le_bytes()).take(labels_len).collect();
        at += labels_len.div_ceil(4);
        let count = v[at] as usize;
        at += 1;
        let msgs = v[at..at + 2 * count].chunks(2).map(|m| (m[0] as u8, (m[0] >> 8) as u8, m[1])).collect();
        at += 2 * count;
        let terms = v[at..].chunks(3).map(|t| (t[0] as u64 | (t[1] as u64) << 32, t[2])).collect();
        World {
            nodes: Rc::from(self.m.join_stash(&stashes)),
            node_h: keys.iter().map(|&k| self.table.hash[k as usize]).collect::<Vec<u64>>().into(),
            up: v[2],
            leaders: v[3],
            labels,
            msgs,
            used: [v[5], v[6], v[7], v[8]],
            sched: v[4] as u16,
            terms,
            depth: v[1],
            id: v[0],
        }
    }
}
