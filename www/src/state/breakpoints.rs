//! Breakpoints in the page (the workbench's: the player hands a run to it to edit them, see
//! `handoff.rs`): Play stops at the next hit, "next hit" runs on to it, "previous hit" searches
//! back. The breakpoints are the engine's own `until` texts (see `election_lab::breakpoint`), so
//! they travel in exported traces and links as they are; a link that carries them opens in the
//! workbench (`State::hand_off_link`). Every function here does nothing in the player's build,
//! which leaves their code out (the lesson player keeps the engine's breakpoint reader and search:
//! its stops use them; a build without it, feature `lessons`, has neither).

use super::State;
use crate::i18n::{tr, Lang};
use election_lab::breakpoint::{self, Breakpoint, Hit, Watch, MAX_BREAKPOINTS};
use election_lab::meta::k;
use std::rc::Rc;

/// How many steps "next hit" looks ahead before it gives up (a frame's worth of work).
pub const NEXT_HIT_STEPS: u64 = 200_000;

impl State {
    /// The breakpoints, parsed for the running engine (an entry that no longer parses is skipped).
    pub(super) fn parsed_breakpoints(&self) -> Vec<Breakpoint> {
        if !crate::WORKBENCH {
            return Vec::new();
        }
        let e = self.engine.get();
        e.until().iter().filter_map(|t| Breakpoint::parse(t, &e).ok()).collect()
    }

    /// Starts watching for hits from the cursor on (Play was pressed); none without breakpoints.
    pub(super) fn start_watch(&mut self) {
        if !crate::WORKBENCH {
            return;
        }
        let bps = self.parsed_breakpoints();
        self.playback.watch = (!bps.is_empty()).then(|| {
            let e = self.engine.get();
            Rc::new(std::cell::RefCell::new(Watch::new(bps, &e)))
        });
    }

    /// After a step of Play: stops there if a breakpoint hit.
    pub(super) fn check_watch(&mut self) -> bool {
        if !crate::WORKBENCH {
            return false;
        }
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
        if !crate::WORKBENCH {
            return false;
        }
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
        if !crate::WORKBENCH {
            return false;
        }
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
        let Some(bps) = self.breakpoints_to_seek() else { return false };
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
        let Some(bps) = self.breakpoints_to_seek() else { return false };
        let found = breakpoint::previous_hit(&mut self.engine_mut(), &bps);
        match found {
            Some(h) => self.stop_at(h),
            None => {
                self.messages.notice = Some(tr(self.lang, k::UI_NO_BREAKPOINT_HITS_BEFORE_THIS).into());
            }
        }
        true
    }

    /// The breakpoints a seek to the next or previous hit looks for, Play paused; none (and the
    /// notice that says to add one) without any, and none in the player, which has no such seek.
    fn breakpoints_to_seek(&mut self) -> Option<Vec<Breakpoint>> {
        if !crate::WORKBENCH {
            return None;
        }
        let bps = self.parsed_breakpoints();
        if bps.is_empty() {
            self.messages.notice = Some(tr(self.lang, k::UI_ADD_A_BREAKPOINT_FIRST).into());
            return None;
        }
        self.playback.playing = false;
        Some(bps)
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
