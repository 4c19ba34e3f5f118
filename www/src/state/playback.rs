//! Playback, a concern of the state with its own reducer: playing or paused, the speed, the
//! breakpoint hit Play stopped at, and how far the run has been shown.
//!
//! Pure: what needs the engine (whether the run has ended, the watch for hits) is decided by the
//! one-run reducer, which hands the outcome here.

use super::SPEEDS;
use election_lab::breakpoint::{Hit, Watch};
use std::cell::RefCell;
use std::rc::Rc;

#[derive(Clone)]
pub struct Playback {
    pub playing: bool,
    /// Ticks per second, one of [`SPEEDS`].
    pub speed: f64,
    /// The last breakpoint hit Play (or next / previous hit) stopped at.
    pub hit: Option<Rc<Hit>>,
    /// Watching for hits while playing (set when Play starts, with breakpoints).
    pub(super) watch: Option<Rc<RefCell<Watch>>>,
    /// The furthest step shown since the run last changed: acting before it discards a future.
    pub(super) furthest: u64,
}

impl Default for Playback {
    fn default() -> Self {
        Playback { playing: false, speed: 2.0, hit: None, watch: None, furthest: 0 }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum PlaybackAction {
    Play,
    Pause,
    Speed(f64),
    Faster,
    Slower,
    /// The cursor is at this step: the furthest shown moves on.
    Shown(u64),
    /// Another run (or another future of it): nothing of the old one's playback holds.
    NewRun,
}

impl Playback {
    pub fn reduce(&mut self, action: PlaybackAction) {
        match action {
            PlaybackAction::Play => self.playing = true,
            PlaybackAction::Pause => self.playing = false,
            PlaybackAction::Speed(s) => self.speed = s,
            PlaybackAction::Faster => {
                self.speed = SPEEDS.iter().copied().find(|&s| s > self.speed + 1e-9).unwrap_or(self.speed)
            }
            PlaybackAction::Slower => {
                self.speed = SPEEDS.iter().rev().copied().find(|&s| s < self.speed - 1e-9).unwrap_or(self.speed)
            }
            PlaybackAction::Shown(step) => self.furthest = self.furthest.max(step),
            PlaybackAction::NewRun => {
                self.playing = false;
                self.hit = None;
                self.watch = None;
                self.furthest = 0;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faster_and_slower_walk_the_speeds_and_stop_at_their_ends() {
        let mut p = Playback::default();
        let mut seen = vec![p.speed];
        for _ in 0..SPEEDS.len() {
            p.reduce(PlaybackAction::Faster);
            seen.push(p.speed);
        }
        assert_eq!(p.speed, *SPEEDS.last().unwrap());
        for _ in 0..2 * SPEEDS.len() {
            p.reduce(PlaybackAction::Slower);
        }
        assert_eq!(p.speed, SPEEDS[0]);
        assert!(seen.windows(2).all(|w| w[0] <= w[1]));
        p.reduce(PlaybackAction::Speed(5.0));
        assert_eq!(p.speed, 5.0);
    }

    #[test]
    fn a_new_run_stops_playing_and_forgets_how_far_the_old_one_was_shown() {
        let mut p = Playback::default();
        p.reduce(PlaybackAction::Play);
        p.reduce(PlaybackAction::Shown(40));
        p.reduce(PlaybackAction::Shown(12));
        assert!(p.playing && p.furthest == 40);
        p.reduce(PlaybackAction::NewRun);
        assert!(!p.playing && p.furthest == 0 && p.hit.is_none());
        assert_eq!(p.speed, 2.0, "the speed is the reader's, not the run's");
    }
}
