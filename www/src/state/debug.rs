//! Debugging a run in the page: breakpoints (Play stops at the next hit, "previous hit" searches
//! back), and the event-log filter. The breakpoints are the engine's own `until` texts (see
//! `election_lab::breakpoint`), so they travel in exported traces and links as they are.

use super::State;
use crate::i18n::{tr, Lang};
use election_lab::breakpoint::{self, Breakpoint, Hit, Watch, MAX_BREAKPOINTS};
use election_lab::meta::k;
use election_lab::Engine;
use std::rc::Rc;

/// How many steps "next hit" looks ahead before it gives up (a frame's worth of work).
pub const NEXT_HIT_STEPS: u64 = 200_000;

/// The kinds of event the log can be narrowed to: the engine's step kinds, and your notes
/// (interventions) between the steps.
pub const LOG_TYPES: &[&str] = &["deliver", "drop", "timer", "fault", "note"];

/// What the event log shows: everything, or only the events of a node, a message kind, a type.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LogFilter {
    pub node: Option<u32>,
    pub kind: Option<String>,
    pub event: Option<&'static str>,
}

impl LogFilter {
    pub fn is_empty(&self) -> bool {
        *self == LogFilter::default()
    }

    /// Whether step info `info` passes the filter.
    pub fn keeps(&self, info: &election_lab::StepInfo) -> bool {
        self.node.is_none_or(|n| info.node == n || info.peer == Some(n))
            && self.kind.as_deref().is_none_or(|k| info.kind == Some(k))
            && self.event.is_none_or(|e| e == info.event)
    }

    /// Whether your interventions (notes) show: only when no node or kind is asked for and the
    /// type, if any, is `note`.
    pub fn keeps_notes(&self) -> bool {
        self.node.is_none() && self.kind.is_none() && self.event.is_none_or(|e| e == "note")
    }

    /// `log=node:3&log=kind:VOTE&log=type:deliver`.
    pub fn query(&self) -> String {
        let mut q = String::new();
        if let Some(n) = self.node {
            q.push_str(&format!("&log=node:{n}"));
        }
        if let Some(k) = &self.kind {
            q.push_str(&format!("&log=kind:{}", crate::link::encode(k)));
        }
        if let Some(e) = self.event {
            q.push_str(&format!("&log=type:{e}"));
        }
        q
    }

    /// Reads the `log=` values of a link for this engine; what is not understood is named.
    pub fn read(values: &[&str], engine: &Engine) -> (LogFilter, Vec<String>) {
        let mut f = LogFilter::default();
        let mut bad = Vec::new();
        for v in values {
            match v.split_once(':') {
                Some(("node", n)) => match n.trim().trim_start_matches('N').parse::<u32>() {
                    Ok(id) if engine.scenario().nodes.contains(&id) => f.node = Some(id),
                    _ => bad.push(format!("log=node:{n}: no such node")),
                },
                Some(("kind", k)) => match engine.kinds().iter().find(|x| x.name.eq_ignore_ascii_case(k.trim())) {
                    Some(kind) => f.kind = Some(kind.name.to_string()),
                    None => bad.push(format!("log=kind:{k}: no such message kind")),
                },
                Some(("type", t)) => match LOG_TYPES.iter().find(|x| **x == t.trim()) {
                    Some(t) => f.event = Some(t),
                    None => bad.push(format!("log=type:{t}: expected one of {}", LOG_TYPES.join(", "))),
                },
                _ => bad.push(format!("log={v}: expected node:<id>, kind:<KIND> or type:<type>")),
            }
        }
        (f, bad)
    }
}

impl State {
    /// The breakpoints, parsed for the running engine (an entry that no longer parses is skipped).
    pub(super) fn parsed_breakpoints(&self) -> Vec<Breakpoint> {
        let e = self.engine.get();
        e.until().iter().filter_map(|t| Breakpoint::parse(t, &e).ok()).collect()
    }

    /// Starts watching for hits from the cursor on (Play was pressed); none without breakpoints.
    pub(super) fn start_watch(&mut self) {
        let bps = self.parsed_breakpoints();
        self.playback.watch = (!bps.is_empty()).then(|| {
            let e = self.engine.get();
            Rc::new(std::cell::RefCell::new(Watch::new(bps, &e)))
        });
    }

    /// After a step of Play: stops there if a breakpoint hit.
    pub(super) fn check_watch(&mut self) -> bool {
        let Some(w) = self.playback.watch.clone() else { return false };
        let hit = w.borrow_mut().check(&self.engine.get());
        match hit {
            Some(h) => {
                self.stop_at(h);
                true
            }
            None => false,
        }
    }

    fn stop_at(&mut self, h: Hit) {
        self.playback.playing = false;
        self.playback.watch = None;
        if let Some(n) = h.nodes.first() {
            self.selection.selected = Some(*n);
        }
        self.playback.hit = Some(Rc::new(h));
    }

    pub(super) fn add_breakpoint(&mut self, text: &str) -> bool {
        let parsed = {
            let e = self.engine.get();
            if e.until().len() >= MAX_BREAKPOINTS {
                Err(format!("more than {MAX_BREAKPOINTS} breakpoints"))
            } else {
                Breakpoint::parse(text, &e).map(|b| b.to_string())
            }
        };
        match parsed {
            Ok(t) => {
                let mut e = self.engine_mut();
                let mut until = e.until().to_vec();
                if !until.contains(&t) {
                    until.push(t);
                }
                e.set_until(until);
                drop(e);
                self.bp_error = None;
                self.playback.watch = None;
                true
            }
            Err(why) => {
                self.bp_error = Some(Rc::new(format!("{} {why}", tr(self.lang, k::UI_NOT_A_BREAKPOINT))));
                false
            }
        }
    }

    pub(super) fn remove_breakpoint(&mut self, i: usize) -> bool {
        let mut e = self.engine_mut();
        let mut until = e.until().to_vec();
        if i >= until.len() {
            return false;
        }
        let gone = until.remove(i);
        e.set_until(until);
        drop(e);
        if self.playback.hit.as_ref().is_some_and(|h| h.breakpoint == gone) {
            self.playback.hit = None;
        }
        self.playback.watch = None;
        true
    }

    /// Runs on to the next hit at once (no animation); says so when there is none ahead.
    pub(super) fn next_hit(&mut self) -> bool {
        let bps = self.parsed_breakpoints();
        if bps.is_empty() {
            self.messages.notice = Some(self.no_breakpoints().into());
            return false;
        }
        self.playback.playing = false;
        let found = {
            let mut e = self.engine_mut();
            let start = e.cursor();
            let mut w = Watch::new(bps, &e);
            let hit = breakpoint::run_until(&mut e, &mut w, NEXT_HIT_STEPS);
            if hit.is_none() {
                e.seek(start);
            }
            hit
        };
        match found {
            Some(h) => {
                self.stop_at(h);
                self.extend();
            }
            None => {
                self.messages.notice = Some(tr(self.lang, k::UI_NO_BREAKPOINT_HITS_AFTER_THIS).into());
            }
        }
        true
    }

    /// Goes back to the last hit before the cursor (replaying from step 0).
    pub(super) fn previous_hit(&mut self) -> bool {
        let bps = self.parsed_breakpoints();
        if bps.is_empty() {
            self.messages.notice = Some(self.no_breakpoints().into());
            return false;
        }
        self.playback.playing = false;
        let found = breakpoint::previous_hit(&mut self.engine_mut(), &bps);
        match found {
            Some(h) => self.stop_at(h),
            None => {
                self.messages.notice = Some(tr(self.lang, k::UI_NO_BREAKPOINT_HITS_BEFORE_THIS).into());
            }
        }
        true
    }

    fn no_breakpoints(&self) -> &'static str {
        tr(self.lang, k::UI_ADD_A_BREAKPOINT_FIRST)
    }

    /// The hit shown, if the cursor still stands on its step.
    pub fn hit_here(&self) -> Option<&Hit> {
        self.playback.hit.as_deref().filter(|h| h.step == self.cursor())
    }
}

/// The hit in one line: the step, the time, the breakpoint, the nodes (and, in English, what
/// happened as the engine says it).
pub fn hit_text(h: &Hit, lang: Lang) -> String {
    // The engine's description of what happened is English: in Chinese, the nodes instead.
    let what = match lang {
        Lang::En => h.what.clone(),
        Lang::Zh => crate::nodes_text(&h.nodes),
    };
    election_lab::meta::k::UI_BREAKPOINT_HIT.format(lang, &[&h.step, &h.time, &h.breakpoint, &what])
}
