//! The deterministic simulator: one world, one event queue, one random generator.
//!
//! * **Time** is integer ticks. Events are totally ordered by (time, insertion order): the queue
//!   holds a FIFO of events per tick (`queue.rs`), so equal-time events keep the order they were
//!   scheduled in. No hash map is iterated anywhere.
//! * **Randomness**: every latency, loss and timer value is drawn from one [`Pcg32`] seeded by
//!   the scenario, in the order effects are applied.
//! * **Protocols** are sans-IO: a handler's effects become messages and timers only through the
//!   simulator's port (`port.rs`, the [`crate::protocol::Sink`] of the handler's context), in the
//!   order the handler makes them. The simulator is compiled once for every protocol: it sees a
//!   protocol through the type-erased [`Machine`] (see [`crate::machine`]), which keeps the node
//!   states.
//! * **Stepping**: [`Sim::step`] applies exactly one event (a delivery, a drop, a timer firing or
//!   a scheduled fault) and appends one [`Rec`] to the trace.
//! * **Layout**: [`Sim`] is the world and its network (`world.rs`: the event queue, delivery,
//!   faults, the handlers' effects), the history and seeking (`history.rs`: the logs up to the
//!   head, checkpoints, forks, the budget, and the summary-only mode that keeps none of it), and
//!   the observers' findings (`watch.rs`: violations and elections), plus the fenced store
//!   (`fencing.rs`).
//! * **Time travel**: the trace (records, messages, timers, violations) is an append-only log
//!   up to the *head*; the world sits at a *cursor*. Seeking restores the nearest checkpoint and
//!   replays; since replay is deterministic, the logs are not rewritten (debug builds check that
//!   they come out the same). Acting at a past step forks: the future logs are cut off and the
//!   intervention is recorded with the step it was applied at.

use crate::error::ScenarioError;
use crate::machine::{At, Core, Machine, Stash};
use crate::meta::{k, Lang, Note, Property};
use crate::observe::{Election, Findings, Observers, Violation};
use crate::protocol::{Config, Protocol, Sink};
use crate::rng::Pcg32;
use crate::scenario::{Action, FencingSpec, NetworkSpec, Scenario, Scheduled, StopSpec};
use crate::trace::Intervention;
use crate::{NodeId, Time};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

mod fencing;
mod history;
mod marks;
mod port;
mod queue;
mod slices;
mod typed;
mod watch;
mod world;
pub use fencing::{Store, Verdict, WriteEntry};
pub use history::{Budget, MsgEntry, TimerRec};
pub use typed::Typed;

use history::{Checkpoint, History};
use marks::Marks;
use port::Ids;
use queue::Queue;
use watch::Watch;
use world::{mix, Ev, Handler, World, PERIODIC};

/// Why a message was not handed to its destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropReason {
    /// Lost by the network (the scenario's loss probability).
    Lost,
    /// The destination was crashed when the message arrived.
    Crashed,
    /// The link was cut (partition or one-way cut) when the message arrived.
    Partition,
    /// Dropped by an intervention.
    Manual,
}

impl DropReason {
    pub fn name(self) -> &'static str {
        match self {
            DropReason::Lost => "lost",
            DropReason::Crashed => "crashed",
            DropReason::Partition => "partition",
            DropReason::Manual => "manual",
        }
    }
    pub fn name_in(self, lang: Lang) -> &'static str {
        match self {
            DropReason::Lost => k::ENGINE_REASON_LOST,
            DropReason::Crashed => k::ENGINE_REASON_CRASHED,
            DropReason::Partition => k::ENGINE_REASON_PARTITION,
            DropReason::Manual => k::ENGINE_REASON_MANUAL,
        }
        .get(lang)
    }
}

/// What a step did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    Deliver,
    Drop(DropReason),
    /// A timer fired (its name).
    Timer(&'static str),
    /// A scheduled action from the scenario ran.
    Fault,
    /// Leaders wrote to the fenced store (the writes are `Rec::writes`); `node` is the first
    /// writer, or 0 when nobody believed it led.
    Write,
    /// A write reached the fenced store, which accepted or rejected it (`aux` = write id).
    Store {
        accepted: bool,
    },
}

/// The record of one step. What the step added to the history's logs is read through its
/// accessors ([`Rec::msgs`], [`Rec::timers`], [`Rec::notes`], [`Rec::writes`]): the offsets
/// themselves belong to the history that wrote them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rec {
    /// 1-based step number.
    pub step: u64,
    pub time: Time,
    pub kind: EventKind,
    /// The node the event happened at (destination, timer owner, fault target).
    pub node: NodeId,
    /// The sender, for deliveries and drops.
    pub peer: NodeId,
    /// Message id (deliveries and drops) or schedule index (faults).
    pub aux: u64,
    msgs: (u64, u64),
    timers: (u64, u64),
    notes: (u64, u64),
    writes: (u64, u64),
}

impl Rec {
    /// The ids of the messages sent during the step (consecutive).
    pub fn msgs(&self) -> std::ops::Range<u64> {
        self.msgs.0..self.msgs.1
    }
    /// The step's timer changes, in the timer log.
    pub fn timers(&self) -> std::ops::Range<u64> {
        self.timers.0..self.timers.1
    }
    /// The narration notes the handlers attached to the step, in the note log.
    pub fn notes(&self) -> std::ops::Range<usize> {
        self.notes.0 as usize..self.notes.1 as usize
    }
    /// The writes to the fenced store issued during the step, in the write log.
    pub fn writes(&self) -> std::ops::Range<usize> {
        self.writes.0 as usize..self.writes.1 as usize
    }
}

/// A run of one protocol.
pub struct Sim {
    machine: Box<dyn Machine>,
    pub cfg: Config,
    net: NetworkSpec,
    stop: StopSpec,
    schedule: Vec<Scheduled>,
    /// Node positions by id.
    ids: Ids,
    fencing: Option<FencingSpec>,
    /// The world at the cursor (cloned for checkpoints).
    w: World,
    /// What the run recorded up to the head, for seeking and reading back.
    h: History,
    /// What the observers found: violations and elections.
    watch: Watch,
    /// The step after which the protocol's own code failed ([`Machine::fault`]): no step
    /// goes past it.
    fault_at: Option<u64>,
}

impl Sim {
    /// A run of `proto` on the scenario's nodes, network, schedule and stop limits. `claimed`
    /// lists the safety properties the protocol claims: only their violations are logged.
    pub fn new<P: Protocol>(proto: P, cfg: Config, scenario: &Scenario, claimed: &[Property]) -> Self {
        Sim::with_machine(Box::new(Core::new(proto)), cfg, scenario, claimed)
    }

    /// [`Sim::new`] for a protocol already behind its [`Machine`] (the only non-generic entry,
    /// so the simulator's code exists once whatever the number of protocols).
    pub fn with_machine(machine: Box<dyn Machine>, cfg: Config, scenario: &Scenario, claimed: &[Property]) -> Self {
        let ids = Ids::new(&cfg.ids);
        let n = cfg.n();
        let w = World {
            now: 0,
            steps: 0,
            up: vec![true; n],
            queue: Queue::default(),
            next_token: 0,
            active_timers: 0,
            pending_faults: 0,
            rng: Pcg32::for_seed(scenario.seed),
            labels: None,
            cuts: BTreeSet::new(),
            fifo_last: BTreeMap::new(),
            manual_drops: BTreeSet::new(),
            obs: Observers::new(&cfg.ids, machine.kinds().len(), claimed),
            hash: crate::fnv::OFFSET_64,
            at: Marks::default(),
            store: Store::default(),
            tokens: vec![0; n],
            pending_writes: 0,
        };
        let mut sim = Sim {
            machine,
            cfg,
            net: scenario.network.clone(),
            stop: scenario.stop.clone(),
            schedule: scenario.schedule.clone(),
            ids,
            w,
            fencing: scenario.fencing.clone(),
            h: History::default(),
            watch: Watch::default(),
            fault_at: None,
        };
        // Scheduled faults go in first, so a fault at tick t precedes other events of tick t.
        for (i, s) in sim.schedule.iter().enumerate() {
            sim.w.queue.push(s.at, Ev::Fault(i as u32).pack());
            sim.w.pending_faults += 1;
        }
        if let Some(f) = &sim.fencing {
            let mut issues: Vec<(Time, u32)> = f.writes.iter().enumerate().map(|(k, w)| (w.at, k as u32)).collect();
            if f.write_every > 0 {
                issues.push((f.write_every, PERIODIC));
            }
            issues.sort_by_key(|&(at, _)| at); // stable: scripted writes keep their order
            for (at, k) in issues {
                sim.w.queue.push(at, Ev::Issue(k).pack());
                sim.w.pending_writes += 1;
            }
        }
        // Boot every node in scenario order.
        for i in 0..n {
            sim.run_handler(i, Handler::Boot);
        }
        for i in 0..n {
            sim.observe(i);
        }
        sim.w.obs.settle_initial();
        sim.h.checkpoints.push(Checkpoint { w: sim.w.clone(), states: sim.machine.snapshot() });
        sim
    }

    // ----- the event loop -----

    /// Applies exactly one event. Returns false when there is none left (or a stop limit is hit).
    pub fn step(&mut self) -> bool {
        self.step_within(self.stop.max_time)
    }

    // ----- public control -----

    /// Applies an intervention now, at the cursor. If the cursor is in the past, the old future
    /// is discarded first (a fork).
    pub fn apply(&mut self, action: Action) -> Result<(), ScenarioError> {
        self.apply_at(action, None)
    }

    /// Applies an intervention at the cursor, at virtual time `time` (default: the time of the
    /// last event). A later time is allowed only up to the next pending event: the clock moves
    /// on to it, so that an intervention anchored by time lands at that time.
    pub fn apply_at(&mut self, action: Action, time: Option<Time>) -> Result<(), ScenarioError> {
        action.validate(&self.cfg.ids, "intervention")?;
        if let Action::Drop(m) | Action::Defer(m) | Action::Deliver(m) = action {
            if !self.in_flight_contains(m) {
                let key = match action {
                    Action::Drop(_) => "drop",
                    Action::Defer(_) => "defer",
                    _ => "deliver",
                };
                return Err(ScenarioError::new(
                    format!("intervention.{key}"),
                    format!("message #{m} is not in flight"),
                ));
            }
        }
        if let Action::Fire { node, ref timer } = action {
            let pending = self.idx(node).filter(|&i| self.w.up[i]).is_some_and(|i| {
                let mut tokens = Vec::new();
                self.machine.timers(i, &mut tokens);
                tokens.iter().any(|&(t, _)| self.machine.timer_key(i, t).as_deref() == Some(timer.as_str()))
            });
            if !pending {
                return Err(ScenarioError::new("intervention.fire", format!("N{node} has no pending timer {timer}")));
            }
        }
        self.flush_interventions();
        let now = self.w.now;
        let time = time.unwrap_or(now);
        if time < now {
            return Err(ScenarioError::new(
                "intervention.time",
                format!("t={time} is before the current time t={now}"),
            ));
        }
        if time > now {
            if let Some(next) = self.next_event_time() {
                if time > next {
                    return Err(ScenarioError::new(
                        "intervention.time",
                        format!("t={time} is after the next event (t={next}); run up to it first"),
                    ));
                }
            }
        }
        self.truncate_future();
        self.push_intervention(Intervention { step: self.w.steps, time, action });
        self.flush_interventions();
        Ok(())
    }

    /// Steps until nothing is left, a stop limit is hit, or `max` steps were applied.
    pub fn run(&mut self, max: u64) -> u64 {
        let mut done = 0;
        while done < max && self.step() {
            done += 1;
        }
        self.flush_interventions();
        done
    }

    /// Runs until virtual time would pass `t`.
    pub fn run_until(&mut self, t: Time) {
        while self.step_within(t) {}
        self.flush_interventions();
    }

    pub fn cursor(&self) -> u64 {
        self.w.steps
    }
    /// The furthest step computed.
    pub fn head(&self) -> u64 {
        if self.h.lean {
            return self.w.steps;
        }
        self.h.recs.len() as u64
    }
    pub fn now(&self) -> Time {
        self.w.now
    }
    /// No message in flight, no timer pending, no scheduled fault left.
    pub fn quiescent(&self) -> bool {
        self.w.obs.in_flight == 0
            && self.w.active_timers == 0
            && self.w.pending_faults == 0
            && self.w.pending_writes == 0
    }
    /// The fenced store at the cursor, if the scenario asked for fencing.
    pub fn hash(&self) -> u64 {
        self.w.hash
    }
    pub fn is_up(&self, i: usize) -> bool {
        self.w.up[i]
    }
    /// The protocol behind this run, taken out of it (the exhaustive checker runs its
    /// handlers on worlds of its own), with the run's configuration.
    pub fn into_machine(self) -> (Box<dyn Machine>, Config) {
        (self.machine, self.cfg)
    }
    /// The protocol behind this run.
    pub fn machine(&self) -> &dyn Machine {
        &*self.machine
    }
    /// Node `i`'s view as its protocol sees it now.
    pub fn view(&self, i: usize) -> crate::protocol::View {
        self.machine.view(i)
    }
    pub fn inspect_node(&self, i: usize) -> Vec<crate::field::Field> {
        self.machine.inspect(i)
    }
    pub fn labels(&self) -> Option<&[u32]> {
        self.w.labels.as_deref()
    }
    pub fn cuts(&self) -> impl Iterator<Item = (NodeId, NodeId)> + '_ {
        self.w.cuts.iter().copied()
    }
    /// Tick of the next event (dropping replaced timers from the front of the queue).
    pub fn next_event_time(&mut self) -> Option<Time> {
        loop {
            let (time, q) = self.w.queue.first()?;
            let stale = match q.ev() {
                Ev::Timer { node, token } => !self.machine.has_timer(node as usize, token),
                _ => false,
            };
            if !stale {
                return Some(time);
            }
            self.w.queue.pop_first();
        }
    }
    pub fn schedule(&self) -> &[Scheduled] {
        &self.schedule
    }
    pub fn stop(&self) -> &StopSpec {
        &self.stop
    }
    /// Messages in flight at the cursor, in delivery order.
    pub fn in_flight(&self) -> impl Iterator<Item = (u64, MsgEntry)> + '_ {
        self.w.queue.iter().filter_map(move |q| match q.ev() {
            Ev::Deliver(id) => Some((id, self.h.msg(id).expect("in flight, so kept").entry())),
            _ => None,
        })
    }
    /// Whether message `id` is doomed by a manual drop.
    pub fn is_manually_dropped(&self, id: u64) -> bool {
        self.w.manual_drops.contains(&id)
    }
    /// Why message `id`, in flight, will not be delivered if nothing changes before it is due:
    /// the same checks, in the same order, as its delivery step makes.
    pub fn doom(&self, id: u64) -> Option<DropReason> {
        let m = self.h.msg(id)?.entry();
        let (fi, ti) = (self.idx(m.from)?, self.idx(m.to)?);
        self.fate(self.w.manual_drops.contains(&id), m.lost, fi, ti)
    }

    /// The live tokens now, each named by the node it stands at ([`crate::protocol::Protocol::live_tokens`]);
    /// `None` for protocols without tokens.
    pub fn live_tokens(&self) -> Option<Vec<NodeId>> {
        let flying: Vec<(u64, NodeId, NodeId, bool)> =
            self.in_flight().map(|(id, m)| (id, m.from, m.to, self.doom(id).is_some())).collect();
        self.machine.live_tokens(&self.w.up, &flying)
    }

    /// How many live tokens exist now (see [`Sim::live_tokens`]).
    pub fn token_count(&self) -> Option<u32> {
        self.live_tokens().map(|t| t.len() as u32)
    }

    /// The token monitor ([`crate::meta::Monitor::OneToken`]): a violation when a second live
    /// token appears (or a second live holder), once per stretch of more than one.
    fn watch_tokens(&mut self) {
        let tokens = self.live_tokens().unwrap_or_default();
        let dup = tokens.len() >= 2 || self.w.obs.leaders.len() >= 2;
        if dup && !self.w.obs.duplicate_tokens {
            let mut nodes: Vec<NodeId> = tokens.into_iter().chain(self.w.obs.leaders.iter().copied()).collect();
            nodes.sort_unstable();
            nodes.dedup();
            let kind = self.w.obs.token_id.expect("watched");
            let v = Violation { kind, time: self.w.now, step: self.w.steps, nodes, term: None };
            Marks::append(&mut self.watch.violations, &mut self.w.at.violations, || v);
        }
        self.w.obs.duplicate_tokens = dup;
    }
}
