//! **Invitation** (H. Garcia-Molina, "Elections in a Distributed Computing System", IEEE
//! Transactions on Computers C-31(1), 1982): the paper's election for asynchronous systems,
//! described beside Bully. Where Bully insists on one leader, Invitation lets every node lead
//! a *group*, and groups merge when their leaders find each other.
//!
//! Every node starts as the leader of a group of one. A leader runs invitation rounds, each
//! after a randomized delay (drawn by the simulator, so that two leaders seldom invite each
//! other at the same moment): it sends INVITE, carrying its group's size, to a node outside its
//! group. A leader that receives an INVITE compares the two groups: the larger group's leader
//! leads the merged group. If the inviter's group wins, the invitee answers ACCEPT with the list
//! of its members, and the inviter sends GROUP to each of them — only the smaller group is told,
//! the winner's own members see no change. If the invitee's group wins, it invites the inviter
//! back. A node that is not a leader answers an INVITE with REDIRECT naming its leader, so that
//! the two leaders can talk directly. A leader sends HEARTBEAT to its members, which answer
//! ACK; a member that stops hearing its leader (`heartbeats.timeout`) leaves and leads a group
//! of its own again, and a leader that stops hearing a member drops it from its group.
//!
//! Readings chosen (where the course notes leave room, or differ from the paper):
//!
//! * **Who leads a merge.** In Garcia-Molina's paper the coordinator that sends the invitations
//!   becomes the coordinator of the merged group. The course notes, like A. Petrov's *Database
//!   Internals* (O'Reilly, 2019), let the leader of the *larger* group lead, so that only the
//!   smaller group has to be told; that is the rule here. **Ties go to the lower id.** Both leaders evaluate the
//!   same total order (size first, then the lower id), so they never both give way and never
//!   both insist; and in the notes' figure, where {1,2} and {3,4} merge, it makes 1 the leader.
//! * **Whom a round invites.** The paper's coordinator asks every node whether it is a
//!   coordinator. The notes' figure shows one invitation per leader at a time (1 invites 2 while
//!   3 invites 4, then 1 contacts 3), so a round here invites *one* node: the next one, in
//!   scenario order after the last node this leader invited, that is outside its group. A dead
//!   node costs one round; the next round moves on.
//! * **Telling the smaller group.** The paper's old coordinator forwards the invitation to its
//!   members, who each accept. Here the invitee's ACCEPT carries its member list and the new
//!   leader sends GROUP to those members (the invitee included: for it GROUP is the paper's
//!   READY, the confirmation that ends its wait). A merge of a group of k into a larger one
//!   costs INVITE + ACCEPT + k GROUP.
//! * **Stale member lists.** Members move between groups without telling their old leader
//!   (a partition, a crash, a merge). The paper's members check in with their coordinator
//!   (AreYouThere); here members answer each HEARTBEAT with ACK, and a leader drops a member it
//!   has not heard from for `heartbeats.timeout` — so the sizes that decide merges count live,
//!   reachable members, and a leader cut off from part of its group starts inviting again. A
//!   node that gets HEARTBEAT or GROUP from a leader it does not follow answers REDIRECT naming
//!   its own leader; that leader drops it and invites its real leader. A leader that accepted
//!   an invitation waits for GROUP for one round trip (`2·latency_max + 1`); if none comes, or
//!   the inviter turns out to have given up its own leadership meanwhile, it leads its old
//!   group again (the paper's recovery). An invitation unanswered for a round trip is
//!   forgotten; while one is still awaited, the leader lets its next round pass.
//! * **Failure detection and crashes.** Only with `heartbeats`: a leader sends HEARTBEAT to its
//!   members every `heartbeats.interval` and runs rounds while some node is outside its group.
//!   All state is volatile; a recovered node leads a group of one. With `heartbeats: null`
//!   nothing runs by itself: `start` at a leader runs one invitation round.
//! * `initial_leader`: every node starts in that node's group.
//!
//! **What it claims: no safety property.** Several leaders at once is Invitation's normal state,
//! not a fault: at the start, after a crash, and on each side of a partition, every group has
//! its own leader (the UI draws each group as a hull, from its `Decoration::Group`). What the algorithm
//! promises is progress — once the network is whole again and quiet, the groups merge into one
//! with one leader that every live node names. That is a liveness property, which the safety
//! sweeps cannot check; this module's tests check it over many random runs.
//!
//! Parameters (`params`): `invite` `[lo, hi]`, the delay between a leader's invitation rounds
//! (default `[T, 2T]` with `T = heartbeats.timeout`).

use crate::algorithm::Algorithm;
use crate::error::ScenarioError;
use crate::field::{Field, FieldValue as V};
use crate::meta::k;
use crate::meta::{Formula, Kind, Look, Preset, Role, Topology, Visual, FOLLOWER_ROLE, LEADER_ROLE};
use crate::protocol::{Config, Ctx, Decoration, Message, ParamReader, Params, Protocol, View, FOLLOWER, LEADER};
use crate::run;
use crate::{NodeId, Time};
use std::collections::BTreeMap;

#[derive(Clone, Debug)]
pub struct Invitation {
    /// Delay range between a leader's invitation rounds.
    pub invite: (Time, Time),
    /// How long a leader that accepted an invitation waits for GROUP: one round trip.
    pub join_wait: Time,
}

pub const ALGORITHM: Algorithm = Algorithm {
    id: "invitation",
    title: k::INVITATION_TITLE,
    citation:
        "H. Garcia-Molina, Elections in a Distributed Computing System, IEEE Transactions on Computers C-31(1), 1982",
    summary: k::INVITATION_SUMMARY,
    card: k::INVITATION_CARD,
    topology: Topology::Complete,
    kinds: KINDS,
    roles: &[LEADER_ROLE, FOLLOWER_ROLE, Role::new("joining", Look::Waiting, k::INVITATION_ROLE_JOINING)],
    formulas: &[Formula::new("3(N−1)", k::INVITATION_FORMULA_1, &["INVITE", "ACCEPT", "GROUP"], |n| {
        3 * n.saturating_sub(1)
    })],
    properties: &[],
    presets: PRESETS,
    build: run::build::<Invitation>,
};

const PRESETS: &[Preset] = &[
    Preset {
        id: "invitation-figure",
        title: k::INVITATION_PRESET_INVITATION_FIGURE_TITLE,
        hint: k::INVITATION_PRESET_INVITATION_FIGURE_HINT,
        json: r#"{"algorithm":"invitation","nodes":[1,2,3,4],"seed":425,
                  "schedule":[{"at":0,"start":1},{"at":0,"start":3},{"at":5,"start":1}]}"#,
        leaders: &[1],
        // Pins group merges of the figure with the tie to the lower id: N1 leads all four.
        golden: "4a9d1a693801a5b4",
    },
    Preset {
        id: "invitation-gather",
        title: k::INVITATION_PRESET_INVITATION_GATHER_TITLE,
        hint: k::INVITATION_PRESET_INVITATION_GATHER_HINT,
        json: r#"{"algorithm":"invitation","nodes":[1,2,3,4,5,6],"seed":425,
                  "schedule":[{"at":0,"start":1},{"at":4,"start":1},{"at":8,"start":1},{"at":12,"start":1},{"at":16,"start":1}]}"#,
        leaders: &[1],
        // Pins one inviter, one node a round: 3(N−1) = 15 messages for six nodes.
        golden: "407478b1de9ebf5e",
    },
    Preset {
        id: "invitation-partition",
        title: k::INVITATION_PRESET_INVITATION_PARTITION_TITLE,
        hint: k::INVITATION_PRESET_INVITATION_PARTITION_HINT,
        json: r#"{"algorithm":"invitation","nodes":[1,2,3,4,5],"seed":425,
                  "heartbeats":{"interval":3,"timeout":12},
                  "schedule":[{"at":120,"partition":[[1,2],[3,4,5]]},{"at":240,"heal":true}],
                  "stop":{"max_time":400}}"#,
        leaders: &[3],
        // Pins a group forms from cold, then a partition makes the far side form its own.
        golden: "5ea813e18669509b",
    },
];

// Narration: one sentence per rule, in both languages. `{0}` is the acting node.

impl Invitation {
    fn from_params(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        let p = ParamReader::new(params, &["invite"])?;
        let t = cfg.heartbeats.map_or(10, |h| h.timeout);
        let (lo, hi) = p.pair("invite")?.map_or((t, t.saturating_mul(2)), |[a, b]| (a, b));
        if lo == 0 || lo > hi {
            return Err(ScenarioError::new(
                "params.invite",
                format!("expected [lo, hi] with 1 <= lo <= hi, found [{lo}, {hi}]"),
            ));
        }
        Ok(Invitation { invite: (lo, hi), join_wait: 2 * cfg.latency.1 + 1 })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// Leads a group (possibly of one).
    Leader,
    /// Accepted an invitation, waiting for GROUP; still keeps its old members alive.
    Joining,
    /// A member of someone else's group.
    Follower,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State {
    pub me: NodeId,
    pub status: Status,
    /// The group's leader: itself when leading, the inviter when joining.
    pub leader: NodeId,
    /// The group it leads (or led, while joining), itself included, ascending.
    pub members: Vec<NodeId>,
    /// When it last heard from each other member (an ACK, or the merge that brought it in).
    pub heard: BTreeMap<NodeId, Time>,
    /// Nodes it has invited and not yet heard from, with when. An invitation unanswered for
    /// a round trip is forgotten (the answer, or the invitee, was lost).
    pub pending: Vec<(NodeId, Time)>,
    /// Scenario position of the last node it invited; rounds go on from there.
    pub cursor: usize,
    hb_armed: bool,
    round_armed: bool,
}

impl State {
    fn size(&self) -> u64 {
        self.members.len() as u64
    }
    fn has(&self, id: NodeId) -> bool {
        self.members.binary_search(&id).is_ok()
    }
    fn add(&mut self, id: NodeId, now: Time) {
        if let Err(at) = self.members.binary_search(&id) {
            self.members.insert(at, id);
        }
        if id != self.me {
            self.heard.insert(id, now);
        }
    }
    fn remove(&mut self, id: NodeId) {
        if let Ok(at) = self.members.binary_search(&id) {
            self.members.remove(at);
        }
        self.heard.remove(&id);
    }
    fn invited(&self, id: NodeId) -> bool {
        self.pending.iter().any(|&(x, _)| x == id)
    }
    fn forget(&mut self, id: NodeId) {
        self.pending.retain(|&(x, _)| x != id);
    }
    fn has_outsiders(&self, cfg: &Config) -> bool {
        self.members.len() < cfg.n()
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Msg {
    Invite { size: u64 },
    Accept { members: Vec<NodeId> },
    Group { old: NodeId },
    Redirect { leader: NodeId },
    Heartbeat,
    Ack,
}

kinds! {
    Msg;
    Msg::Invite { .. } => Kind::new("INVITE", "INV", Visual::Request, k::INVITATION_KIND_INVITE),
    Msg::Accept { .. } => Kind::new("ACCEPT", "ACC", Visual::Answer, k::INVITATION_KIND_ACCEPT),
    Msg::Group { .. } => Kind::new("GROUP", "G", Visual::Announcement, k::INVITATION_KIND_GROUP),
    Msg::Redirect { .. } => Kind::new("REDIRECT", "RD", Visual::Refusal, k::INVITATION_KIND_REDIRECT),
    Msg::Heartbeat => Kind::new("HEARTBEAT", "hb", Visual::Heartbeat, k::INVITATION_KIND_HEARTBEAT),
    Msg::Ack => Kind::new("ACK", "ack", Visual::Answer, k::INVITATION_KIND_ACK),
}

impl Message for Msg {
    fn label(&self) -> String {
        match self {
            Msg::Invite { size } => format!("INVITE(size {size})"),
            Msg::Accept { members } => {
                format!("ACCEPT({} node{})", members.len(), if members.len() == 1 { "" } else { "s" })
            }
            Msg::Group { old } => format!("GROUP(was N{old})"),
            Msg::Redirect { leader } => format!("REDIRECT(N{leader})"),
            Msg::Heartbeat => "HEARTBEAT".into(),
            Msg::Ack => "ACK".into(),
        }
    }
}

timers! {
    Timer {
        /// The next invitation round.
        Round => "ROUND",
        /// The leader's periodic HEARTBEAT to its members.
        Heartbeat => "HEARTBEAT",
        /// The failure detector: no heartbeat from the leader for `heartbeats.timeout`.
        LeaderTimeout => "LEADER_TIMEOUT",
        /// An accepted invitation not confirmed by GROUP within a round trip.
        JoinTimeout => "JOIN_TIMEOUT",
    }
}

type C<'a> = Ctx<'a, Msg, Timer>;

/// Whether group (size `a`, leader `la`) beats group (size `b`, leader `lb`): the larger group
/// wins, a tie goes to the lower id.
fn beats(a: u64, la: NodeId, b: u64, lb: NodeId) -> bool {
    a > b || (a == b && la < lb)
}

mod handlers;

impl Protocol for Invitation {
    type State = State;
    type Msg = Msg;
    type Timer = Timer;
    const VIEW_FIELDS: &'static [&'static str] = &["leader", "group"];

    fn new(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        Invitation::from_params(cfg, params)
    }

    fn init(&self, ctx: &mut C) -> State {
        let mut s = Invitation::alone(ctx.me, ctx.cfg);
        match ctx.cfg.initial_leader {
            Some(l) if l == ctx.me => {
                for &m in &ctx.cfg.sorted {
                    s.add(m, 0);
                }
                self.arm(&mut s, ctx);
            }
            Some(l) => {
                s.status = Status::Follower;
                s.leader = l;
                s.members.clear();
                s.heard.clear();
                ctx.watch_leader(Timer::LeaderTimeout, Some(l));
            }
            None => self.arm(&mut s, ctx),
        }
        s
    }

    fn start(&self, s: &mut State, ctx: &mut C) {
        match s.status {
            Status::Leader => {
                self.round(s, ctx);
                self.arm(s, ctx);
            }
            Status::Joining => ctx.note(k::invitation_note_joining_idle(ctx.me, s.leader)),
            Status::Follower => ctx.note(k::invitation_note_start_follower(ctx.me, s.leader)),
        }
    }

    fn on_message(&self, s: &mut State, from: NodeId, msg: Msg, ctx: &mut C) {
        match msg {
            Msg::Invite { size } => self.on_invite(s, from, size, ctx),
            Msg::Accept { members } => self.on_accept(s, from, members, ctx),
            Msg::Group { old } => self.on_group(s, from, old, ctx),
            Msg::Redirect { leader } => self.on_redirect(s, from, leader, ctx),
            Msg::Heartbeat => {
                let me = ctx.me;
                match s.status {
                    Status::Follower if s.leader == from => {
                        ctx.note(k::invitation_note_alive(me, from));
                        ctx.watch_leader(Timer::LeaderTimeout, Some(from));
                        ctx.send(from, Msg::Ack);
                    }
                    // A beat from the leader it is joining: GROUP is on its way.
                    Status::Joining if s.leader == from => ctx.note(k::invitation_note_joining_idle(me, from)),
                    _ => {
                        ctx.note(k::invitation_note_not_mine(me, from, s.leader));
                        ctx.send(from, Msg::Redirect { leader: s.leader });
                    }
                }
            }
            Msg::Ack => {
                let me = ctx.me;
                if s.status == Status::Follower {
                    ctx.note(k::invitation_note_ack_moot(me, from));
                } else if s.has(from) {
                    ctx.note(k::invitation_note_ack(me, from));
                    s.heard.insert(from, ctx.now);
                } else {
                    // It answers our heartbeat, so it follows us: a list that dropped it was wrong.
                    ctx.note(k::invitation_note_redirect_mine(me, from));
                    s.add(from, ctx.now);
                    self.settle_rounds(s, ctx);
                }
            }
        }
    }

    fn on_timer(&self, s: &mut State, timer: Timer, ctx: &mut C) {
        let me = ctx.me;
        match timer {
            Timer::Round => {
                s.round_armed = false;
                if s.status == Status::Leader {
                    self.round(s, ctx);
                    self.arm(s, ctx);
                }
            }
            Timer::Heartbeat => {
                s.hb_armed = false;
                if s.status == Status::Follower {
                    return;
                }
                let timeout = ctx.cfg.heartbeats.map_or(Time::MAX, |h| h.timeout);
                let now = ctx.now;
                let silent: Vec<NodeId> =
                    s.heard.iter().filter(|&(_, &t)| now.saturating_sub(t) > timeout).map(|(&m, _)| m).collect();
                if !silent.is_empty() {
                    ctx.note(k::invitation_note_prune(me, silent.len() as u64, timeout));
                    for m in silent {
                        s.remove(m);
                    }
                }
                let others: Vec<NodeId> = s.members.iter().copied().filter(|&m| m != me).collect();
                if others.is_empty() {
                    self.arm(s, ctx);
                    return;
                }
                if s.status == Status::Leader {
                    ctx.note(k::invitation_note_beat(me, others.len() as u64));
                } else {
                    ctx.note(k::invitation_note_beat_joining(me, s.leader, others.len() as u64));
                }
                for m in others {
                    ctx.send(m, Msg::Heartbeat);
                }
                self.arm(s, ctx);
            }
            Timer::LeaderTimeout => {
                if s.status == Status::Follower {
                    let timeout = ctx.cfg.heartbeats.map_or(0, |h| h.timeout);
                    ctx.note(k::invitation_note_suspect(me, s.leader, timeout));
                    self.lead_alone(s, ctx);
                }
            }
            Timer::JoinTimeout => {
                if s.status == Status::Joining {
                    ctx.note(k::invitation_note_join_timeout(me, s.leader, self.join_wait));
                    self.resume(s, ctx);
                }
            }
        }
    }

    fn recover(&self, _crashed: &State, ctx: &mut C) -> State {
        let mut s = Invitation::alone(ctx.me, ctx.cfg);
        ctx.note(k::invitation_note_recover(ctx.me));
        self.arm(&mut s, ctx);
        s
    }

    fn view(&self, s: &State) -> View {
        let role = match s.status {
            Status::Leader => LEADER,
            Status::Joining => "joining",
            Status::Follower => FOLLOWER,
        };
        View { role, leader: Some(s.leader), ..View::default() }.with(Decoration::Group(s.leader))
    }

    fn inspect(&self, s: &State) -> Vec<Field> {
        let status = match s.status {
            Status::Leader => "leader",
            Status::Joining => "joining",
            Status::Follower => "member",
        };
        let delay = format!("{}..{}", self.invite.0, self.invite.1);
        vec![
            Field::new("status", k::INSPECT_STATUS, V::text(status)),
            Field::new("group_leader", k::INSPECT_GROUP_LEADER, V::Node(s.leader)),
            Field::new("members", k::INSPECT_MEMBERS, V::nodes_or_none(s.members.clone())),
            Field::new(
                "invited",
                k::INSPECT_INVITED_NO_ANSWER_YET,
                V::nodes_or_none(s.pending.iter().map(|p| p.0).collect()),
            ),
            Field::new("invite_delay", k::INSPECT_INVITE_DELAY, V::worded(self.invite.0, delay)),
        ]
    }
}

#[cfg(all(test, holds = "bully"))]
mod tests;
