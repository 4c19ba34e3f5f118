//! The protocol-independent pictures a run hands out: [`Frame`] (what to draw), [`Metrics`],
//! [`StepInfo`] and the narration of a step, read from the simulator ([`Sim`]) that the
//! [`crate::Engine`] owns.

use crate::error::ScenarioError;
use crate::meta::{k, Kind, Lang, Property, Visual};
use crate::protocol::{Protocol, View};
use crate::scenario::Scenario;
use crate::sim::{DropReason, EventKind, Rec, Sim, Store, Verdict, WriteEntry};
use crate::{NodeId, Time};

/// Builds a run of protocol `P` for `scenario`, watching the safety properties `claimed` (what
/// an algorithm descriptor's `build` points to).
pub fn build<P: Protocol>(scenario: &Scenario, claimed: &'static [Property]) -> Result<Sim, ScenarioError> {
    let cfg = scenario.config();
    let proto = P::new(&cfg, &scenario.params)?;
    Ok(Sim::new(proto, cfg, scenario, claimed))
}

/// One node as drawn.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeFrame {
    pub id: NodeId,
    pub up: bool,
    /// The protocol's view (role, leader, term, vote, tally); for a crashed node, the last state's.
    pub view: View,
}

/// One message in flight.
#[derive(Clone, Debug, PartialEq)]
pub struct MsgFrame {
    pub id: u64,
    pub kind: &'static str,
    pub visual: Visual,
    pub label: String,
    pub from: NodeId,
    pub to: NodeId,
    pub sent: Time,
    pub deliver: Time,
    /// Will not arrive (lost by the network, dropped by hand, cut off by a partition or cut,
    /// or bound for a crashed node), as things stand now.
    pub doomed: bool,
    /// Why it will not arrive, as things stand now (the reason its delivery step would give if
    /// nothing changed before then).
    pub doom: Option<DropReason>,
}

/// Everything the UI draws for one step.
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    pub step: u64,
    pub time: Time,
    pub nodes: Vec<NodeFrame>,
    pub messages: Vec<MsgFrame>,
    /// Partition label per node (scenario order), if partitioned.
    pub groups: Option<Vec<u32>>,
    pub cuts: Vec<(NodeId, NodeId)>,
    pub leaders: Vec<NodeId>,
    pub agreement: Option<NodeId>,
    pub quiescent: bool,
    /// The fenced store, when the scenario writes through one.
    pub store: Option<StoreFrame>,
    /// For token algorithms (a [`crate::meta::Monitor::OneToken`] claim): how many different
    /// live tokens exist now, held or in flight. Their agreement is "one token".
    pub tokens: Option<u32>,
    /// In the round model (`network.model: "rounds"`), the round the run is in (its tick).
    pub round: Option<Time>,
}

/// The fenced store as drawn.
#[derive(Clone, Debug, PartialEq)]
pub struct StoreFrame {
    pub store: Store,
    /// Writes on their way (id, write).
    pub writes: Vec<(u64, WriteEntry)>,
    /// The verdict this step gave, if it was a write reaching the store.
    pub verdict: Option<(WriteEntry, bool)>,
}

/// Totals at the cursor.
#[derive(Clone, Debug, PartialEq)]
pub struct Metrics {
    /// Sent messages per kind, in the protocol's kind order.
    pub by_kind: Vec<(&'static str, u64)>,
    pub total: u64,
    pub delivered: u64,
    pub dropped: u64,
    pub in_flight: u64,
    pub max_simultaneous_leaders: u32,
    pub sent_by_node: Vec<(NodeId, u64)>,
    /// In the round model, how many rounds have begun (the tick of the cursor).
    pub rounds: Option<Time>,
}

/// A step, described for logs and the space-time diagram.
#[derive(Clone, Debug, PartialEq)]
pub struct StepInfo {
    pub step: u64,
    pub time: Time,
    /// "deliver", "drop", "timer" or "fault".
    pub event: &'static str,
    pub node: NodeId,
    pub peer: Option<NodeId>,
    pub kind: Option<&'static str>,
    pub text: String,
    /// For deliveries and drops: when the message was sent.
    pub sent: Option<Time>,
    /// Messages this step sent: (id, to, kind, deliver time).
    pub sends: Vec<(u64, NodeId, &'static str, Time)>,
}

/// The pictures a run hands out, whatever the protocol.
impl Sim {
    pub fn frame(&self) -> Frame {
        let obs = self.observers();
        let nodes = (0..self.cfg.n())
            .map(|i| NodeFrame {
                id: self.cfg.ids[i],
                up: self.is_up(i),
                view: obs.views[i].clone().unwrap_or_else(|| self.view(i)),
            })
            .collect();
        let kinds = self.machine().kinds();
        let messages = self
            .in_flight()
            .map(|(id, m)| (id, m, self.doom(id)))
            .map(|(id, m, doom)| MsgFrame {
                id,
                kind: kinds[m.kind].name,
                visual: kinds[m.kind].visual,
                label: self.label(id),
                from: m.from,
                to: m.to,
                sent: m.sent,
                deliver: m.deliver,
                doomed: doom.is_some(),
                doom,
            })
            .collect();
        Frame {
            step: self.cursor(),
            time: self.now(),
            nodes,
            messages,
            groups: self.labels().map(|l| l.to_vec()),
            cuts: self.cuts().collect(),
            leaders: obs.leaders.iter().copied().collect(),
            agreement: obs.agreed,
            quiescent: self.quiescent(),
            round: self.cfg.rounds.then(|| self.now()),
            tokens: self.observers().token_id.and_then(|_| self.token_count()),
            store: self.store().map(|st| StoreFrame {
                store: *st,
                writes: self.writes_in_flight().map(|(id, w)| (id, *w)).collect(),
                verdict: self.record(self.cursor()).and_then(|r| match r.kind {
                    EventKind::Store { accepted } => Some((self.write_log()[r.aux as usize], accepted)),
                    _ => None,
                }),
            }),
        }
    }
    pub fn metrics(&self) -> Metrics {
        let obs = self.observers();
        Metrics {
            by_kind: self.machine().kinds().iter().map(|k| k.name).zip(obs.sent_by_kind.iter().copied()).collect(),
            total: obs.total_sent(),
            delivered: obs.delivered,
            dropped: obs.dropped,
            in_flight: obs.in_flight,
            max_simultaneous_leaders: obs.max_simultaneous,
            sent_by_node: self.cfg.ids.iter().copied().zip(obs.sent_by_node.iter().copied()).collect(),
            rounds: self.cfg.rounds.then(|| self.now()),
        }
    }
    /// What step `step` did, in one or a few sentences; in the round model, led by its round.
    pub fn narrate(&self, step: u64, lang: Lang) -> Option<String> {
        let text = self.narrate_step(step, lang)?;
        if !self.cfg.rounds {
            return Some(text);
        }
        let round = self.record(step)?.time;
        Some(k::ENGINE_ROUND_STEP.format(lang, &[&round, &text]))
    }
    fn narrate_step(&self, step: u64, lang: Lang) -> Option<String> {
        let rec = self.record(step)?;
        let notes = self.notes_of(&rec);
        if !notes.is_empty() {
            let parts: Vec<String> = notes.iter().map(|n| n.render(lang)).collect();
            return Some(parts.join(if lang == Lang::Zh { "" } else { " " }));
        }
        Some(match rec.kind {
            EventKind::Deliver => {
                self.message(rec.aux)?;
                let label = self.label(rec.aux);
                k::ENGINE_DELIVER.format(lang, &[&rec.node, &label, &rec.peer])
            }
            EventKind::Drop(reason) => {
                self.message(rec.aux)?;
                let label = self.label(rec.aux);
                let text = match reason {
                    DropReason::Lost => k::ENGINE_DROP_LOST,
                    DropReason::Crashed => k::ENGINE_DROP_CRASHED,
                    DropReason::Partition => k::ENGINE_DROP_PARTITION,
                    DropReason::Manual => k::ENGINE_DROP_MANUAL,
                };
                text.format(lang, &[&label, &rec.peer, &rec.node])
            }
            EventKind::Timer(name) => k::ENGINE_TIMER_IDLE.format(lang, &[&rec.node, &name]),
            EventKind::Write => {
                let writes = &self.write_log()[rec.writes()];
                if writes.is_empty() {
                    return Some(k::ENGINE_WRITE_NONE.get(lang).to_string());
                }
                let parts: Vec<String> =
                    writes.iter().map(|w| k::engine_write(w.node, w.value, w.token).render(lang)).collect();
                parts.join(if lang == Lang::Zh { "" } else { " " })
            }
            EventKind::Store { accepted } => {
                let w = self.write_log()[rec.aux as usize];
                let max = self
                    .verdicts()
                    .iter()
                    .take_while(|v| v.write != rec.aux)
                    .filter(|v| v.accepted)
                    .map(|v| self.write_log()[v.write as usize].token)
                    .max()
                    .unwrap_or(0);
                let text = if accepted { k::ENGINE_STORE_ACCEPTS } else { k::ENGINE_STORE_REJECTS };
                text.fill(lang, &[w.node as u64, w.value, w.token, max])
            }
            EventKind::Fault => {
                let action = self.schedule()[rec.aux as usize].action.describe_in(lang);
                k::ENGINE_AS_SCHEDULED.format(lang, &[&action])
            }
        })
    }
    pub fn step_info_in(&self, step: u64, lang: Lang) -> Option<StepInfo> {
        let rec = self.record(step)?;
        let sends = rec
            .msgs()
            .filter_map(|id| self.message(id).map(|m| (id, m.to, self.machine().kinds()[m.kind].name, m.deliver)))
            .collect();
        let t = rec.time;
        let sent = match rec.kind {
            EventKind::Deliver | EventKind::Drop(_) => self.message(rec.aux).map(|m| m.sent),
            _ => None,
        };
        let (event, peer, kind, text) = match rec.kind {
            EventKind::Deliver | EventKind::Drop(_) => {
                let m = self.message(rec.aux)?;
                let kind = self.machine().kinds()[m.kind].name;
                let (event, tail) = match rec.kind {
                    EventKind::Drop(r) => {
                        ("drop", format!(" {}", k::ENGINE_LOG_DROPPED.format(lang, &[&r.name_in(lang)])))
                    }
                    _ => ("deliver", String::new()),
                };
                (
                    event,
                    Some(rec.peer),
                    Some(kind),
                    format!("t={t} N{} → N{} {}{tail}", rec.peer, rec.node, self.label(rec.aux)),
                )
            }
            EventKind::Timer(name) => {
                ("timer", None, None, format!("t={t} N{} {} {name}", rec.node, k::ENGINE_LOG_TIMER.get(lang)))
            }
            EventKind::Write => {
                let writes = &self.write_log()[rec.writes()];
                let list: Vec<String> = writes.iter().map(|w| format!("N{} {}@{}", w.node, w.value, w.token)).collect();
                let list = if list.is_empty() { "-".to_string() } else { list.join(", ") };
                ("write", None, None, format!("t={t} {} {list}", k::ENGINE_LOG_WRITE.get(lang)))
            }
            EventKind::Store { accepted } => {
                let w = self.write_log()[rec.aux as usize];
                let verdict =
                    if accepted { k::ENGINE_LOG_STORE_ACCEPTED } else { k::ENGINE_LOG_STORE_REJECTED }.get(lang);
                ("store", None, None, format!("t={t} {verdict} N{} {}@{}", w.node, w.value, w.token))
            }
            EventKind::Fault => {
                let action = &self.schedule()[rec.aux as usize].action;
                ("fault", None, None, format!("t={t} {}", action.describe_in(lang)))
            }
        };
        Some(StepInfo { step, time: t, event, node: rec.node, peer, kind, text, sent, sends })
    }
    pub fn kinds(&self) -> &'static [Kind] {
        self.machine().kinds()
    }
    pub fn max_tally(&self) -> Vec<(NodeId, u32)> {
        self.cfg.ids.iter().copied().zip(self.observers().max_tally.iter().copied()).collect()
    }
    pub fn store_history(&self) -> Vec<(WriteEntry, Verdict)> {
        self.verdicts().iter().map(|v| (self.write_log()[v.write as usize], *v)).collect()
    }
    pub fn store_writes(&self, rec: &Rec) -> Vec<WriteEntry> {
        self.write_log().get(rec.writes()).map(<[WriteEntry]>::to_vec).unwrap_or_default()
    }
}
