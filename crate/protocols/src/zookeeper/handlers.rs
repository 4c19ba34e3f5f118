//! ZooKeeper's handlers: what a node does on each message and timer (the rules of the protocol).

use super::*;

impl ZooKeeper {
    pub(super) fn vote_msg(s: &State) -> Msg {
        Msg::Vote { leader: s.vote.1, zxid: s.vote.0, round: s.round }
    }

    pub(super) fn arm_retry(&self, ctx: &mut C) {
        if let Some(hb) = ctx.cfg.heartbeats {
            ctx.set_timer(Timer::Retry, hb.timeout, 2 * hb.timeout);
        }
    }

    /// Starts the (prospective) leader's timers: PING and the window for FOLLOW.
    pub(super) fn arm_leader(&self, ctx: &mut C) {
        if let Some(hb) = ctx.cfg.heartbeats {
            ctx.set_timer_after(Timer::Ping, hb.interval);
            ctx.set_timer_after(Timer::AckCheck, self.ack_window);
        }
    }

    pub(super) fn stop_leading(&self, s: &mut State, ctx: &mut C) {
        if s.leads() {
            ctx.cancel_timer(Timer::Ping);
            ctx.cancel_timer(Timer::AckCheck);
        }
        s.acks.clear();
        s.led = None;
    }

    /// Goes LOOKING in `round`, voting for itself.
    pub(super) fn look(&self, s: &mut State, round: u64, ctx: &mut C) {
        self.stop_leading(s, ctx);
        ctx.cancel_timer(Timer::LeaderTimeout);
        ctx.cancel_timer(Timer::Finalize);
        s.phase = Phase::Looking;
        s.round = round;
        s.leader = None;
        s.finalizing = false;
        s.vote = (s.zxid, s.me);
        s.votes = vec![(s.me, s.vote)];
        ctx.broadcast(Self::vote_msg(s));
        self.arm_retry(ctx);
        self.check_quorum(s, ctx);
    }

    /// A quorum of the held votes equal its own: start the finalize wait.
    pub(super) fn check_quorum(&self, s: &mut State, ctx: &mut C) {
        let tally = s.tally();
        if !s.finalizing && tally >= s.quorum {
            s.finalizing = true;
            ctx.note(k::zookeeper_note_quorum(s.me, s.vote.1, tally as u64));
            ctx.set_timer_after(Timer::Finalize, self.finalize_wait);
        }
    }

    /// Follows `leader` in `round`: the promise, then FOLLOW.
    pub(super) fn join(&self, s: &mut State, leader: NodeId, round: u64, ctx: &mut C) {
        debug_assert!(s.can_promise(round, leader));
        self.stop_leading(s, ctx);
        ctx.cancel_timer(Timer::Retry);
        ctx.cancel_timer(Timer::Finalize);
        s.phase = Phase::Following;
        s.round = round;
        s.promise = Some((round, leader));
        s.leader = Some(leader);
        s.vote = (self.zxid_of(leader), leader);
        s.votes.clear();
        s.finalizing = false;
        ctx.send(leader, Msg::Follow { round });
        ctx.watch_leader(Timer::LeaderTimeout, Some(leader));
    }

    /// With a quorum of FOLLOW for its round, a (prospective) leader leads that round.
    pub(super) fn confirm(&self, s: &mut State, ctx: &mut C) {
        if s.acks.len() as u32 >= s.quorum && s.led != Some(s.round) {
            let first = s.phase == Phase::Prospective;
            s.phase = Phase::Leading;
            s.led = Some(s.round);
            s.leader = Some(s.me);
            ctx.note((if first { k::zookeeper_note_leads } else { k::zookeeper_note_reconfirmed })(
                s.me,
                s.round,
                s.acks.len() as u64,
            ));
        }
    }

    pub(super) fn zxid_of(&self, id: NodeId) -> u64 {
        self.zxids.get(&id).copied().unwrap_or(0)
    }

    pub(super) fn fresh(&self, me: NodeId, quorum: u32) -> State {
        let zxid = self.zxid_of(me);
        State {
            me,
            zxid,
            round: 0,
            promise: None,
            phase: Phase::Looking,
            vote: (zxid, me),
            votes: vec![],
            finalizing: false,
            leader: None,
            acks: vec![],
            led: None,
            quorum,
        }
    }

    /// A node claims to lead `round` (PING or ELECTED).
    pub(super) fn on_claim(&self, s: &mut State, from: NodeId, round: u64, ctx: &mut C) {
        let (me, peer) = (s.me, from);
        match s.phase {
            Phase::Looking => {
                if round >= s.round && s.can_promise(round, from) {
                    ctx.note(k::zookeeper_note_join(me, peer, round));
                    self.join(s, from, round, ctx);
                } else {
                    ctx.note(k::zookeeper_note_claim_old(me, peer, s.round));
                }
            }
            Phase::Following if s.leader == Some(from) => {
                if round >= s.round && s.can_promise(round, from) {
                    ctx.note((if round > s.round { k::zookeeper_note_follow_up } else { k::zookeeper_note_ping_ack })(
                        me, peer, round,
                    ));
                    s.round = round;
                    s.promise = Some((round, from));
                    ctx.send(from, Msg::Follow { round });
                    ctx.watch_leader(Timer::LeaderTimeout, Some(from));
                } else {
                    ctx.note(k::zookeeper_note_stale_ping(me, peer, s.round));
                }
            }
            Phase::Following => {
                if round > s.round {
                    ctx.note(k::zookeeper_note_newer_leader(me, peer, round));
                    self.join(s, from, round, ctx);
                } else {
                    ctx.note(k::zookeeper_note_other_leader(me, peer, s.leader.unwrap_or(0)));
                }
            }
            Phase::Prospective | Phase::Leading => {
                if round > s.round {
                    ctx.note(k::zookeeper_note_step_down(me, peer, round));
                    self.join(s, from, round, ctx);
                } else {
                    ctx.note(k::zookeeper_note_rival(me, peer, round));
                }
            }
        }
    }
}
