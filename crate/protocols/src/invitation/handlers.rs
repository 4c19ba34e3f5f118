//! Invitation's handlers: what a node does on each message and timer (the rules of the protocol).

use super::*;

impl Invitation {
    pub(super) fn alone(me: NodeId, cfg: &Config) -> State {
        State {
            me,
            status: Status::Leader,
            leader: me,
            members: vec![me],
            heard: BTreeMap::new(),
            pending: vec![],
            cursor: cfg.position(me).unwrap_or(0),
            hb_armed: false,
            round_armed: false,
        }
    }

    /// Arms the timers a leader needs: heartbeats while it has members, rounds while some node
    /// is outside its group (only with a failure detector; otherwise `start` runs rounds).
    pub(super) fn arm(&self, s: &mut State, ctx: &mut C) {
        let Some(hb) = ctx.cfg.heartbeats else { return };
        if !s.hb_armed && s.members.len() > 1 && s.status != Status::Follower {
            s.hb_armed = true;
            ctx.set_timer_after(Timer::Heartbeat, hb.interval);
        }
        if !s.round_armed && s.status == Status::Leader && s.has_outsiders(ctx.cfg) {
            s.round_armed = true;
            ctx.set_timer(Timer::Round, self.invite.0, self.invite.1);
        }
    }

    /// Leads a group of one (start, leader lost, recovery).
    pub(super) fn lead_alone(&self, s: &mut State, ctx: &mut C) {
        ctx.cancel_timer(Timer::LeaderTimeout);
        ctx.cancel_timer(Timer::JoinTimeout);
        if s.hb_armed {
            ctx.cancel_timer(Timer::Heartbeat);
        }
        if s.round_armed {
            ctx.cancel_timer(Timer::Round);
        }
        *s = Invitation::alone(ctx.me, ctx.cfg);
        self.arm(s, ctx);
    }

    pub(super) fn send_invite(&self, s: &mut State, ctx: &mut C, to: NodeId) {
        if to != ctx.me && !s.invited(to) {
            s.pending.push((to, ctx.now));
            ctx.send(to, Msg::Invite { size: s.size() });
        }
    }

    /// Forgets invitations unanswered for longer than a round trip.
    pub(super) fn expire(&self, s: &mut State, now: Time) {
        let wait = self.join_wait;
        s.pending.retain(|&(_, t)| now.saturating_sub(t) <= wait);
    }

    /// One invitation round: INVITE to the next node outside the group, in scenario order
    /// after the last one invited — unless an invitation is still waiting for its answer.
    pub(super) fn round(&self, s: &mut State, ctx: &mut C) {
        self.expire(s, ctx.now);
        if let Some(&(waiting, _)) = s.pending.first() {
            ctx.note(k::invitation_note_round_wait(ctx.me, waiting));
            return;
        }
        let cfg: &Config = ctx.cfg;
        let n = cfg.n();
        let next = (1..=n).map(|k| (s.cursor + k) % n).find(|&i| !s.has(cfg.ids[i]));
        match next {
            Some(i) => {
                let to = cfg.ids[i];
                s.cursor = i;
                ctx.note(k::invitation_note_round(ctx.me, s.size(), to));
                self.send_invite(s, ctx, to);
            }
            None => ctx.note(k::invitation_note_round_done(ctx.me)),
        }
    }

    /// A leader accepts `from`'s invitation: it waits for GROUP, keeping its members alive.
    pub(super) fn accept(&self, s: &mut State, ctx: &mut C, from: NodeId) {
        s.status = Status::Joining;
        s.leader = from;
        s.pending.clear();
        if s.round_armed {
            s.round_armed = false;
            ctx.cancel_timer(Timer::Round);
        }
        ctx.set_timer_after(Timer::JoinTimeout, self.join_wait);
        ctx.send(from, Msg::Accept { members: s.members.clone() });
    }

    /// Back to leading the group it had before accepting an invitation.
    pub(super) fn resume(&self, s: &mut State, ctx: &mut C) {
        s.status = Status::Leader;
        s.leader = ctx.me;
        ctx.cancel_timer(Timer::JoinTimeout);
        self.arm(s, ctx);
    }

    /// Becomes a member of `leader`'s group.
    pub(super) fn follow(&self, s: &mut State, ctx: &mut C, leader: NodeId) {
        s.status = Status::Follower;
        s.leader = leader;
        s.members.clear();
        s.heard.clear();
        s.pending.clear();
        ctx.cancel_timer(Timer::JoinTimeout);
        if s.hb_armed {
            s.hb_armed = false;
            ctx.cancel_timer(Timer::Heartbeat);
        }
        if s.round_armed {
            s.round_armed = false;
            ctx.cancel_timer(Timer::Round);
        }
        ctx.watch_leader(Timer::LeaderTimeout, Some(leader));
    }

    /// After the member list changed: rounds stop when nobody is left outside, and the
    /// timers a leader needs are armed.
    pub(super) fn settle_rounds(&self, s: &mut State, ctx: &mut C) {
        if s.round_armed && !s.has_outsiders(ctx.cfg) {
            s.round_armed = false;
            ctx.cancel_timer(Timer::Round);
        }
        self.arm(s, ctx);
    }

    pub(super) fn on_invite(&self, s: &mut State, from: NodeId, size: u64, ctx: &mut C) {
        let me = ctx.me;
        match s.status {
            Status::Leader => {
                // An inviter is a leader, so it is not (or no longer) in this group.
                s.remove(from);
                self.expire(s, ctx.now);
                if beats(size, from, s.size(), me) {
                    let text =
                        if size > s.size() { k::invitation_note_accept_larger } else { k::invitation_note_accept_tie };
                    ctx.note(text(me, from, size));
                    self.accept(s, ctx, from);
                } else if s.invited(from) {
                    ctx.note(k::invitation_note_counter_pending(me, from, s.size()));
                } else {
                    ctx.note(k::invitation_note_counter(me, from, s.size()));
                    self.send_invite(s, ctx, from);
                    self.arm(s, ctx);
                }
            }
            Status::Joining | Status::Follower if s.leader == from => {
                ctx.note(k::invitation_note_own_leader_invites(me, from));
                ctx.send(from, Msg::Redirect { leader: from });
            }
            Status::Joining | Status::Follower => {
                ctx.note(k::invitation_note_redirect_invite(me, from, s.leader));
                ctx.send(from, Msg::Redirect { leader: s.leader });
            }
        }
    }

    pub(super) fn on_accept(&self, s: &mut State, from: NodeId, members: Vec<NodeId>, ctx: &mut C) {
        let me = ctx.me;
        if s.status != Status::Leader {
            ctx.note(k::invitation_note_accept_not_leader(me, from, s.leader));
            ctx.send(from, Msg::Redirect { leader: s.leader });
            return;
        }
        s.forget(from);
        // Only the smaller group is told (the nodes not in this group yet); for the invitee
        // itself GROUP is the confirmation it waits for.
        let mut joining: Vec<NodeId> = members.into_iter().filter(|&m| m != me && !s.has(m)).collect();
        if !joining.contains(&from) && !s.has(from) {
            joining.push(from);
        }
        ctx.note(k::invitation_note_merge(me, from, joining.len() as u64));
        for &m in &joining {
            s.add(m, ctx.now);
            ctx.send(m, Msg::Group { old: from });
        }
        self.settle_rounds(s, ctx);
    }

    pub(super) fn on_group(&self, s: &mut State, from: NodeId, old: NodeId, ctx: &mut C) {
        let me = ctx.me;
        match s.status {
            Status::Joining if from == s.leader => {
                ctx.note(k::invitation_note_joined(me, from));
                self.follow(s, ctx, from);
            }
            Status::Follower if old == s.leader || from == s.leader => {
                ctx.note(k::invitation_note_moved(me, from, old));
                self.follow(s, ctx, from);
            }
            Status::Leader if old == me => {
                ctx.note(k::invitation_note_stale_ack(me, from));
                ctx.send(from, Msg::Redirect { leader: me });
            }
            _ => {
                ctx.note(k::invitation_note_group_refused(me, from, s.leader));
                ctx.send(from, Msg::Redirect { leader: s.leader });
            }
        }
    }

    pub(super) fn on_redirect(&self, s: &mut State, from: NodeId, leader: NodeId, ctx: &mut C) {
        let me = ctx.me;
        s.forget(from);
        self.expire(s, ctx.now);
        match s.status {
            Status::Leader if leader == me => {
                ctx.note(k::invitation_note_redirect_mine(me, from));
                s.add(from, ctx.now);
                self.settle_rounds(s, ctx);
            }
            Status::Leader => {
                // If its leader is one of ours, `from` is on its way in (GROUP will reach it);
                // otherwise it is not ours at all.
                if !s.has(leader) {
                    s.remove(from);
                }
                if s.has(leader) || s.invited(leader) {
                    ctx.note(k::invitation_note_redirect_already(me, from, leader));
                } else {
                    ctx.note(k::invitation_note_redirect_invite_leader(me, from, leader));
                    self.send_invite(s, ctx, leader);
                }
                self.arm(s, ctx);
            }
            Status::Joining if from == s.leader => {
                ctx.note(k::invitation_note_redirect_abort(me, from, leader));
                self.resume(s, ctx);
                if leader != me {
                    s.remove(leader);
                    self.send_invite(s, ctx, leader);
                    self.arm(s, ctx);
                }
            }
            Status::Joining | Status::Follower => {
                ctx.note(k::invitation_note_redirect_moot(me, from));
            }
        }
    }
}
