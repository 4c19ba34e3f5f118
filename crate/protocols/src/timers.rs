//! Timer keys that several algorithms share, declared once with `timers!`: the same timers
//! under the same names are one type, whichever algorithm arms them.

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
