//! The simulator's side of a running handler ([`Port`], the [`Sink`] of its typed context
//! [`crate::protocol::Ctx`]): what the context calls as the handler sends, sets or cancels a
//! timer, narrates and reports, so that each effect is applied where it is made, in the order it
//! is made, without a list of effects in between. It is not generic: one copy serves every
//! protocol.

use super::*;
use history::CMsg;
use world::hash_str;

/// Node positions by id.
pub(super) struct Ids {
    index: Vec<(NodeId, u32)>,
    /// `dense[id]` = the node's position, or `u32::MAX`; empty when ids are too sparse for a
    /// table (then `index` is searched). Every message looks its ends up, so this is hot.
    dense: Vec<u32>,
}

impl Ids {
    pub(super) fn new(ids: &[NodeId]) -> Ids {
        let mut index: Vec<(NodeId, u32)> = ids.iter().enumerate().map(|(i, &id)| (id, i as u32)).collect();
        index.sort_unstable();
        let max_id = index.last().map_or(0, |&(id, _)| id as usize);
        let mut dense = Vec::new();
        if max_id <= 4 * index.len() + 1024 {
            dense = vec![u32::MAX; max_id + 1];
            for &(id, i) in &index {
                dense[id as usize] = i;
            }
        }
        Ids { index, dense }
    }

    /// The position of node `id`, if it is one.
    #[inline]
    pub(super) fn get(&self, id: NodeId) -> Option<usize> {
        if !self.dense.is_empty() {
            return match self.dense.get(id as usize) {
                Some(&i) if i != u32::MAX => Some(i as usize),
                _ => None,
            };
        }
        self.index.binary_search_by_key(&id, |&(x, _)| x).ok().map(|k| self.index[k].1 as usize)
    }
}

/// A handler's window on the simulator (its [`Sink`]): node `i`, and the parts of the run its
/// effects change (the world, the logs, the observers' findings).
pub(super) struct Port<'a> {
    i: usize,
    me: NodeId,
    net: &'a NetworkSpec,
    ids: &'a Ids,
    w: &'a mut World,
    h: &'a mut History,
    findings: &'a mut Findings,
}

impl Sim {
    /// Where and when a handler of node `i` runs, its port, and the machine to run it.
    #[inline(always)]
    pub(super) fn port(&mut self, i: usize) -> (At<'_>, Port<'_>, &mut dyn Machine) {
        let me = self.cfg.ids[i];
        let at = At { i, me, now: self.w.now, cfg: &self.cfg };
        let port = Port {
            i,
            me,
            net: &self.net,
            ids: &self.ids,
            w: &mut self.w,
            h: &mut self.h,
            findings: &mut self.watch.findings,
        };
        (at, port, &mut *self.machine)
    }
}

impl Sink for Port<'_> {
    fn send(&mut self, to: NodeId, kind: usize, fixed: Option<Time>, logged: u64) -> bool {
        let (i, from) = (self.i, self.me);
        let Some(ti) = self.ids.get(to) else {
            debug_assert!(false, "N{from} sent to unknown node {to}");
            return false;
        };
        let w = &mut *self.w;
        let id = w.at.msgs;
        // A fixed latency (a recorded run) draws nothing from the generator and is never lost.
        let (lost, mut deliver, drawn) = match fixed {
            Some(latency) => (false, w.now.saturating_add(latency), false),
            None => {
                let (lo, hi) = self.net.latency;
                let latency = if self.net.latest { hi } else { w.rng.range_inclusive(lo, hi) };
                let lost = w.rng.chance(self.net.loss);
                (lost, w.now.saturating_add(latency), lo != hi && !self.net.latest)
            }
        };
        if self.net.fifo && drawn {
            let last = w.fifo_last.entry((i as u32, ti as u32)).or_insert(0);
            deliver = deliver.max(*last);
            *last = deliver;
        }
        w.at.msgs += 1;
        if id == self.h.msgs_end() {
            self.h.msgs.push_back(CMsg::new(from, to, w.now, deliver, lost, kind));
        }
        w.queue.push(deliver, Ev::Deliver(id).pack());
        w.obs.in_flight += 1;
        w.obs.sent_by_kind[kind] += 1;
        w.obs.sent_by_node[i] += 1;
        let mut h = mix(w.hash, id);
        h = mix(h, ((to as u64) << 16) | kind as u64);
        w.hash = mix(h, (deliver << 1) | lost as u64);
        // A replay numbers the same messages again: their payloads are kept already.
        id == logged
    }

    fn set_timer(&mut self, name: &'static str, lo: Time, hi: Time, replaced: bool) -> u64 {
        let w = &mut *self.w;
        let delay = if self.net.latest { hi } else { w.rng.range_inclusive(lo, hi) };
        // Saturating: a delay past the end of time (a heartbeat timeout of 2⁶⁴−1 ticks) is a
        // timer that never fires before any stop, not an overflow.
        let at = w.now.saturating_add(delay);
        let token = w.next_token;
        w.next_token += 1;
        if !replaced {
            w.active_timers += 1;
        }
        w.queue.push(at, Ev::Timer { node: self.i as u32, token }.pack());
        self.log_timer(TimerRec { node: self.me, name, at: Some(at) });
        self.w.hash = mix(hash_str(self.w.hash, name), at);
        token
    }

    fn cancel_timer(&mut self, name: &'static str) {
        self.w.active_timers -= 1;
        self.log_timer(TimerRec { node: self.me, name, at: None });
        self.w.hash = mix(hash_str(self.w.hash, name), u64::MAX);
    }

    fn note(&mut self, note: Note) {
        if !self.h.lean && self.w.at.notes as usize == self.h.notes.len() {
            self.h.push_note(&note);
        }
        self.w.at.notes += 1;
    }

    fn report(&mut self, property: &'static str, nodes: Vec<NodeId>) {
        self.w.obs.report(property, nodes, self.w.now, self.w.steps, self.findings);
    }
}

impl Port<'_> {
    fn log_timer(&mut self, rec: TimerRec) {
        if !self.h.lean && self.w.at.timers as usize == self.h.timer_log.len() {
            self.h.push_timer(rec);
        }
        self.w.at.timers += 1;
    }
}
