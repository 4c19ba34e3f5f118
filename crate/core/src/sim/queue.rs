//! The event queue: events by tick, first in first out within a tick.
//!
//! The ticks with pending events are kept as buckets in a vector sorted by *descending* time,
//! so the next tick's bucket is the last one: taking the next event never searches, and an
//! emptied bucket is dropped from the end (a small one's allocation kept for a later tick). A push goes to
//! the bucket the previous push went to when the ticks match — a handler's messages usually
//! share their arrival tick — and otherwise binary-searches the buckets. Every event of a
//! bucket was pushed before any later one of the same tick, so the order is the same as a map
//! from tick to FIFO gives: (time, insertion order).

use super::world::Q;
use crate::Time;
use std::collections::VecDeque;

/// Emptied buckets kept for reuse (not part of the state: a checkpoint does not copy them),
/// and the largest capacity kept: a tick that held a burst of events frees its memory.
const SPARE: usize = 4;
const SPARE_CAPACITY: usize = 256;

#[derive(Default)]
pub(super) struct Queue {
    /// (tick, its events in order), by descending tick; no bucket is empty.
    buckets: Vec<(Time, VecDeque<Q>)>,
    /// Where the last push went (checked before it is used).
    hint: usize,
    spare: Vec<VecDeque<Q>>,
}

impl Clone for Queue {
    fn clone(&self) -> Self {
        Queue { buckets: self.buckets.clone(), hint: 0, spare: Vec::new() }
    }
}

impl Queue {
    /// Queues `q` at tick `at`, after every event already queued at that tick.
    #[inline(always)]
    pub(super) fn push(&mut self, at: Time, q: Q) {
        if let Some((t, bucket)) = self.buckets.get_mut(self.hint) {
            if *t == at {
                bucket.push_back(q);
                return;
            }
        }
        self.push_slow(at, q);
    }

    #[inline(never)]
    fn push_slow(&mut self, at: Time, q: Q) {
        let k = self.buckets.partition_point(|&(t, _)| t > at);
        match self.buckets.get_mut(k) {
            Some((t, bucket)) if *t == at => bucket.push_back(q),
            _ => {
                let mut bucket = self.spare.pop().unwrap_or_default();
                bucket.push_back(q);
                self.buckets.insert(k, (at, bucket));
            }
        }
        self.hint = k;
    }

    /// The tick of the next event and the event.
    #[inline]
    pub(super) fn first(&self) -> Option<(Time, Q)> {
        let (t, bucket) = self.buckets.last()?;
        Some((*t, *bucket.front().expect("no bucket is empty")))
    }

    /// Removes the next event, if it is due at or before tick `limit`.
    #[inline(always)]
    pub(super) fn pop_until(&mut self, limit: Time) -> Option<(Time, Q)> {
        let (t, bucket) = self.buckets.last_mut()?;
        let t = *t;
        if t > limit {
            return None;
        }
        let q = bucket.pop_front()?;
        if bucket.is_empty() {
            self.drop_first();
        }
        Some((t, q))
    }

    /// Removes the next event.
    pub(super) fn pop_first(&mut self) -> Option<(Time, Q)> {
        self.pop_until(Time::MAX)
    }

    /// Drops the emptied first bucket, keeping its allocation for a later tick.
    fn drop_first(&mut self) {
        if let Some((_, bucket)) = self.buckets.pop() {
            if self.spare.len() < SPARE && bucket.capacity() <= SPARE_CAPACITY {
                self.spare.push(bucket);
            }
        }
    }

    /// The events queued at tick `at`, in order.
    pub(super) fn at(&self, at: Time) -> Option<&VecDeque<Q>> {
        let k = self.buckets.partition_point(|&(t, _)| t > at);
        self.buckets.get(k).filter(|(t, _)| *t == at).map(|(_, b)| b)
    }

    /// The events queued at tick `at`, to reorder them (the bucket must not be left empty).
    pub(super) fn at_mut(&mut self, at: Time) -> Option<&mut VecDeque<Q>> {
        let k = self.buckets.partition_point(|&(t, _)| t > at);
        self.buckets.get_mut(k).filter(|(t, _)| *t == at).map(|(_, b)| b)
    }

    /// Removes event `q` queued at tick `at`; whether it was there.
    pub(super) fn remove(&mut self, at: Time, q: Q) -> bool {
        let k = self.buckets.partition_point(|&(t, _)| t > at);
        let Some((t, bucket)) = self.buckets.get_mut(k) else { return false };
        if *t != at {
            return false;
        }
        let Some(p) = bucket.iter().position(|&e| e == q) else { return false };
        bucket.remove(p);
        if bucket.is_empty() {
            self.buckets.remove(k);
        }
        self.hint = 0;
        true
    }

    /// Every queued event, in the order they will be taken.
    pub(super) fn iter(&self) -> impl Iterator<Item = &Q> + '_ {
        self.buckets.iter().rev().flat_map(|(_, b)| b.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::world::Ev;

    /// Events come out by (tick, insertion order), whatever order the ticks were pushed in and
    /// whichever bucket the last push went to; buckets emptied and reused keep that order.
    #[test]
    fn events_come_out_by_tick_then_insertion_order() {
        let mut q = Queue::default();
        let pushes = [(5, 0), (1, 1), (5, 2), (3, 3), (1, 4), (9, 5), (3, 6), (5, 7), (0, 8), (9, 9)];
        for &(at, id) in &pushes {
            q.push(at, Ev::Deliver(id).pack());
        }
        let mut want: Vec<(Time, u64)> = pushes.to_vec();
        want.sort_by_key(|&(at, _)| at); // stable: insertion order within a tick
        assert_eq!(
            q.iter().map(|e| e.ev()).collect::<Vec<_>>(),
            want.iter().map(|&(_, id)| Ev::Deliver(id)).collect::<Vec<_>>()
        );
        assert_eq!(q.at(5).map(|b| b.len()), Some(3));
        assert_eq!(q.at(4), None);
        let mut got = Vec::new();
        while let Some((t, e)) = q.pop_until(3) {
            got.push((t, e.ev()));
            if t == 1 && got.len() == 3 {
                // A push into a tick whose bucket is reused later, and one at the current tick.
                q.push(7, Ev::Deliver(10).pack());
                q.push(3, Ev::Deliver(11).pack());
            }
        }
        let ids: Vec<u64> = got
            .iter()
            .map(|&(_, e)| match e {
                Ev::Deliver(id) => id,
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(ids, [8, 1, 4, 3, 6, 11]);
        let rest: Vec<(Time, Ev)> = std::iter::from_fn(|| q.pop_first()).map(|(t, e)| (t, e.ev())).collect();
        assert_eq!(
            rest,
            [
                (5, Ev::Deliver(0)),
                (5, Ev::Deliver(2)),
                (5, Ev::Deliver(7)),
                (7, Ev::Deliver(10)),
                (9, Ev::Deliver(5)),
                (9, Ev::Deliver(9))
            ]
        );
        assert!(q.first().is_none());
    }
}
