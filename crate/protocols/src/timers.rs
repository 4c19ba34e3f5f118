//! Timer keys that several algorithms share, declared once with `timers!`: the same timers
//! under the same names are one type, whichever algorithm arms them.

use crate::protocol::{Ctx, Message};
use crate::NodeId;

timers! {
    /// The Bully family's timers (Bully, Bully with failover).
    StageTimer {
        /// The current stage's deadline (the answers awaited, or the announcement).
        Deadline => "DEADLINE",
        /// The failure detector: no heartbeat from the leader for `heartbeats.timeout`.
        LeaderTimeout => "LEADER_TIMEOUT",
        /// The leader's periodic HEARTBEAT broadcast.
        Heartbeat => "HEARTBEAT",
    }
}

impl StageTimer {
    /// A COORDINATOR was handled and the node left its election, now following `elected`: the
    /// stage's deadline goes, a leader that lost its place stops beating, and the new leader
    /// is watched.
    pub fn settle<M: Message>(ctx: &mut Ctx<M, StageTimer>, was_leader: bool, elected: Option<NodeId>) {
        ctx.cancel_timer(StageTimer::Deadline);
        if was_leader && elected != Some(ctx.me) {
            ctx.cancel_timer(StageTimer::Heartbeat);
        }
        ctx.watch_leader(StageTimer::LeaderTimeout, elected);
    }
}

timers! {
    /// The ring elections' timers (Chang–Roberts, LeLann, Hirschberg–Sinclair).
    RingTimer {
        /// The failure detector: no heartbeat from the leader for `heartbeats.timeout`.
        LeaderTimeout => "LEADER_TIMEOUT",
        /// The leader's periodic HEARTBEAT broadcast.
        Heartbeat => "HEARTBEAT",
        /// No progress in the candidate's election for `retry` ticks.
        Retry => "RETRY",
    }
}

timers! {
    /// No timers: the algorithms driven by messages alone (FloodMax, echo with extinction).
    NoTimer {}
}
