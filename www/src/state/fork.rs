//! Keeping both futures. Acting at a past step (before the furthest step you had shown) makes a
//! new future, as it always did; the old one is kept, and the page offers to **fork**: both
//! futures in two compare lanes on one clock, their first divergence marked and named.
//! Importing a trace keeps the run you had the same way, and offers to compare the two.
//!
//! Why an offer rather than two lanes at once: the page is a classroom tool as much as a
//! debugger, and a click in the past is how a student asks "what if N3 had crashed here?" —
//! the lanes would change the whole layout under that click. Nothing is lost by waiting: the
//! old future is kept until you act again, and one button (reachable by Tab) opens the lanes.

use super::compare::{Compare, Role};
use super::State;
use crate::i18n::tr;
use election_lab::meta::k;
use election_lab::trace::Trace;
use election_lab::Engine;
use serde_json::Value;

/// What the two lanes would show.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OfferKind {
    /// You acted at step `at`, before step `seen`, the furthest you had shown.
    Fork { at: u64, seen: u64 },
    /// A trace was imported while another run was shown.
    Import,
}

/// The run kept when another replaced it: its trace (scenario, interventions, step).
#[derive(Clone, Debug, PartialEq)]
pub struct Offer {
    pub kind: OfferKind,
    old: Value,
}

impl Offer {
    /// The kept run as the workbench's handoff carries it: its kind and its trace.
    pub(super) fn to_value(&self) -> Value {
        let (at, seen) = match self.kind {
            OfferKind::Fork { at, seen } => (Some(at), Some(seen)),
            OfferKind::Import => (None, None),
        };
        // Built by hand: `json!` would copy the trace through serde's serializer.
        let mut v = serde_json::json!({ "at": at, "seen": seen });
        v["old"] = self.old.clone();
        v
    }

    /// Reads back [`Offer::to_value`].
    pub(super) fn from_value(v: &Value) -> Option<Offer> {
        let kind = match (v.get("at").and_then(Value::as_u64), v.get("seen").and_then(Value::as_u64)) {
            (Some(at), Some(seen)) => OfferKind::Fork { at, seen },
            _ => OfferKind::Import,
        };
        Some(Offer { kind, old: v.get("old").filter(|o| o.is_object())?.clone() })
    }
}

impl State {
    /// The trace of the run as it is now, if acting at the cursor would discard a future you
    /// have seen (the part computed ahead only for the scrubber does not count).
    pub(super) fn future_kept(&self) -> Option<Offer> {
        let e = self.engine.get();
        let (at, seen) = (e.cursor(), self.playback.furthest);
        if self.lanes().is_some() || at >= seen {
            return None;
        }
        let mut old = e.trace_value();
        old["step"] = seen.into();
        Some(Offer { kind: OfferKind::Fork { at, seen }, old })
    }

    /// The run shown before an import, to compare with the imported one.
    pub(super) fn run_kept(&self) -> Option<Offer> {
        let old = self.lanes().is_none().then(|| self.engine.get().trace_value())?;
        Some(Offer { kind: OfferKind::Import, old })
    }

    /// Opens the offer: the kept run and the run shown, in two lanes at the time shown.
    pub(super) fn fork(&mut self) -> bool {
        let Some(offer) = self.offer.take() else { return false };
        let roles = match offer.kind {
            OfferKind::Fork { .. } => [Role::OldFuture, Role::NewFuture],
            OfferKind::Import => [Role::Current, Role::Imported],
        };
        if super::script::is_script(self.engine.get().algorithm().id) {
            // A script's runs (whose steps may each be slow) are rebuilt in slices.
            let now = self.engine.get().trace_value();
            return self.fork_later(roles, [&offer.old, &now]);
        }
        let old = match Engine::from_trace_value(&offer.old) {
            Ok(e) => e,
            Err(e) => {
                self.messages.alert = Some(e.to_string());
                return false;
            }
        };
        let now = Engine::from_trace_value(&self.engine.get().trace_value());
        let Ok(now) = now else { return false };
        let lanes = Compare::of_runs([(roles[0], old), (roles[1], now)], 1, self.frame.time);
        self.show_runs(lanes)
    }

    /// [`State::fork`] of two traces of a script's runs, each rebuilt in slices in its lane.
    fn fork_later(&mut self, roles: [Role; 2], traces: [&Value; 2]) -> bool {
        let mut built = Vec::new();
        for (role, value) in roles.into_iter().zip(traces) {
            let later = Trace::from_value(value).and_then(|trace| {
                let faults = trace.interventions.iter().filter_map(|iv| Some((iv.time?, iv.action.clone()))).collect();
                Engine::from_trace_later(trace).map(|(e, job)| (role, e, job, faults))
            });
            match later {
                Ok(b) => built.push(b),
                Err(e) => {
                    self.messages.alert = Some(e.to_string());
                    return false;
                }
            }
        }
        let Ok(runs) = <[_; 2]>::try_from(built) else { return false };
        let lanes = Compare::of_runs_later(runs, 1, self.frame.time);
        self.show_runs(lanes)
    }

    fn show_runs(&mut self, lanes: Option<Compare>) -> bool {
        match lanes {
            Some(c) => self.show_compare(c),
            None => {
                self.messages.alert = Some(tr(self.lang, k::UI_THESE_TWO_RUNS_CANNOT_SHARE).into());
                false
            }
        }
    }
}

#[cfg(test)]
mod tests;
