//! Paxos's handlers: what a node does on each message and timer (the rules of the protocol).

use super::*;

impl Paxos {
    pub(super) fn back_off(&self, s: &mut State, ctx: &mut C) {
        s.waiting = true;
        ctx.set_timer(Timer::Backoff, self.backoff.0, self.backoff.1);
    }

    /// Arms the failure detector while no leader is known (a leader known is watched by
    /// [`Ctx::watch_leader`]).
    pub(super) fn arm_detector(&self, ctx: &mut C) {
        if let Some(hb) = ctx.cfg.heartbeats {
            ctx.set_timer_after(Timer::LeaderTimeout, hb.timeout);
        }
    }

    pub(super) fn notice_ballot(&self, s: &mut State, ballot: u64) {
        s.round = s.round.max(ballot / self.scale);
    }

    pub(super) fn stop_leading(&self, s: &mut State, ctx: &mut C) {
        if s.leading() {
            ctx.cancel_timer(Timer::Heartbeat);
        }
    }

    /// Phase 1 of a fresh ballot for the next undecided instance.
    pub(super) fn propose(&self, s: &mut State, ctx: &mut C) {
        let inst = s.latest().0 + 1;
        s.round += 1;
        let ballot = self.ballot(s.round, ctx.me);
        s.waiting = false;
        ctx.cancel_timer(Timer::Backoff);
        s.promised = ballot;
        let carried = s.accepted.get(&inst).copied();
        ctx.note(k::paxos_note_prepare(ctx.me, ballot, inst));
        s.proposal = Some(Proposal { inst, ballot, phase: Phase::Prepare, carried, value: ctx.me, yes: vec![ctx.me] });
        ctx.set_timer_after(Timer::Deadline, self.patience);
        ctx.broadcast(Msg::Prepare { inst, ballot });
        self.progress(s, ctx);
    }

    /// Moves the proposal on when its phase has a majority.
    pub(super) fn progress(&self, s: &mut State, ctx: &mut C) {
        let quorum = self.quorum as usize;
        let me = ctx.me;
        let Some(p) = s.proposal.as_mut() else { return };
        if p.yes.len() < quorum {
            return;
        }
        match p.phase {
            Phase::Prepare => {
                p.phase = Phase::Accept;
                p.value = p.carried.map_or(me, |(_, v)| v);
                p.yes = vec![me];
                let (inst, ballot, value, carried) = (p.inst, p.ballot, p.value, p.carried);
                // Its own acceptor accepts first, unless it has promised a higher ballot since.
                if s.refuses(inst, ballot) {
                    let promised = s.promised;
                    return self.give_up(s, ballot, promised, ctx);
                }
                s.accepted.insert(inst, (ballot, value));
                match carried {
                    Some((_, v)) if v == me => ctx.note(k::paxos_note_carry_self(me, ballot)),
                    Some((_, v)) => ctx.note(k::paxos_note_carry(me, v, ballot)),
                    None => ctx.note(k::paxos_note_phase2(me, ballot)),
                }
                ctx.set_timer_after(Timer::Deadline, self.patience);
                ctx.broadcast(Msg::Accept { inst, ballot, value });
                self.progress(s, ctx);
            }
            Phase::Accept => {
                let (inst, ballot, value) = (p.inst, p.ballot, p.value);
                s.proposal = None;
                ctx.cancel_timer(Timer::Deadline);
                ctx.note(k::paxos_note_chosen(me, ballot, value));
                ctx.broadcast(Msg::Chosen { inst, value, ballot });
                self.learn(s, inst, value, ballot, ctx);
            }
        }
    }

    /// Abandons the ballot refused (a NACK, or its own acceptor) and backs off.
    pub(super) fn give_up(&self, s: &mut State, ballot: u64, promised: u64, ctx: &mut C) {
        ctx.note(if promised > ballot {
            k::paxos_note_duel(ctx.me, ballot, promised)
        } else {
            k::paxos_note_outrun(ctx.me, ballot)
        });
        s.proposal = None;
        ctx.cancel_timer(Timer::Deadline);
        self.back_off(s, ctx);
    }

    /// Checks a decision heard against the one this node holds for that instance, reporting a
    /// conflict (a chosen value that changed). True when they differ.
    pub(super) fn conflicts(&self, s: &State, inst: u64, value: NodeId, ctx: &mut C) -> bool {
        match s.learned.get(&inst) {
            Some(&v) if v != value => {
                ctx.note(k::paxos_note_conflict(ctx.me, inst, value));
                ctx.report(CHOSEN_ONCE.id, vec![ctx.me, v, value]);
                true
            }
            _ => false,
        }
    }

    /// Records that `inst` chose `value`, checking it against what this node already knew.
    pub(super) fn learn(&self, s: &mut State, inst: u64, value: NodeId, ballot: u64, ctx: &mut C) {
        let me = ctx.me;
        if self.conflicts(s, inst, value, ctx) {
            return;
        }
        if s.learned.contains_key(&inst) {
            return ctx.note(k::paxos_note_known(me, inst, value));
        }
        let newest = inst > s.latest().0;
        s.learned.insert(inst, value);
        self.notice_ballot(s, ballot);
        if !newest {
            return ctx.note(k::paxos_note_old_news(me, inst, value));
        }
        s.decided_by = ballot;
        if s.proposal.as_ref().is_some_and(|p| p.inst <= inst) {
            s.proposal = None;
            ctx.cancel_timer(Timer::Deadline);
        }
        s.waiting = false;
        ctx.cancel_timer(Timer::Backoff);
        if value == ctx.me {
            ctx.note(k::paxos_note_learn_self(me, inst));
            s.leader = Some(ctx.me);
            ctx.cancel_timer(Timer::LeaderTimeout);
            ctx.arm_heartbeat(Timer::Heartbeat);
        } else {
            ctx.note(k::paxos_note_learn(me, inst, value));
            self.stop_leading(s, ctx);
            s.leader = Some(value);
            ctx.watch_leader(Timer::LeaderTimeout, s.leader);
        }
    }

    /// Answers a request for an instance already decided with the latest decision.
    pub(super) fn tell_latest(&self, s: &State, to: NodeId, inst: u64, ctx: &mut C) {
        let (latest, value) = s.latest();
        ctx.note(k::paxos_note_tell(ctx.me, inst, latest));
        ctx.send(to, Msg::Chosen { inst: latest, value, ballot: s.decided_by });
    }
}
