//! Animation between renders: a requestAnimationFrame loop (started when playing, stopped on
//! pause, dropped with its owner) and [`Dots`], the handle through which the loop moves a canvas's
//! message dots by writing their `transform` attributes (no re-render).

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::Element;

use crate::geometry::Pt;

type Slot = Rc<RefCell<Option<Closure<dyn FnMut(f64)>>>>;

pub struct FrameLoop {
    slot: Slot,
    running: Rc<Cell<bool>>,
    id: Rc<Cell<i32>>,
}

fn request(cb: &Closure<dyn FnMut(f64)>) -> i32 {
    web_sys::window().and_then(|w| w.request_animation_frame(cb.as_ref().unchecked_ref()).ok()).unwrap_or(0)
}

impl Default for FrameLoop {
    fn default() -> Self {
        FrameLoop::new()
    }
}

impl FrameLoop {
    pub fn new() -> Self {
        FrameLoop { slot: Rc::new(RefCell::new(None)), running: Rc::new(Cell::new(false)), id: Rc::new(Cell::new(0)) }
    }

    pub fn is_running(&self) -> bool {
        self.running.get()
    }

    pub fn start(&mut self, mut on_frame: impl FnMut(f64) + 'static) {
        self.start_while(move |ts| {
            on_frame(ts);
            true
        });
    }

    /// Like [`FrameLoop::start`], until `on_frame` returns `false` (the loop then stops itself).
    pub fn start_while(&mut self, mut on_frame: impl FnMut(f64) -> bool + 'static) {
        self.stop();
        // A fresh flag per run, so a frame already queued by an old loop does nothing.
        let running = Rc::new(Cell::new(true));
        self.running = running.clone();
        let slot = self.slot.clone();
        let id = self.id.clone();
        let cb = Closure::<dyn FnMut(f64)>::new(move |ts: f64| {
            if !running.get() {
                return;
            }
            if !on_frame(ts) {
                running.set(false);
            }
            if running.get() {
                if let Some(cb) = slot.borrow().as_ref() {
                    id.set(request(cb));
                }
            }
        });
        self.id.set(request(&cb));
        // Replacing the slot drops the previous loop's closure, which is not running now.
        *self.slot.borrow_mut() = Some(cb);
    }

    pub fn stop(&mut self) {
        self.running.set(false);
        // Outside a browser (the first frames' native tool) no frame was ever asked for.
        if cfg!(not(target_arch = "wasm32")) {
            return;
        }
        if let Some(w) = web_sys::window() {
            let _ = w.cancel_animation_frame(self.id.get());
        }
    }
}

impl Drop for FrameLoop {
    fn drop(&mut self) {
        self.stop();
        // Break the closure's reference to its own slot.
        self.slot.borrow_mut().take();
    }
}

/// The longest a quiet stretch plays for, in seconds of wall time: virtual time in which nothing
/// visible happens (no message travels) is played faster, so that it never stands still for long.
pub const QUIET_SECONDS: f64 = 0.4;

/// The playback schedule: where the animation clock goes from virtual time `t` after `dt`
/// seconds of wall time at `speed` ticks a second. Inside a quiet stretch `[from, to)` (nothing
/// moves until `to`, the next event) the clock runs fast enough to cross the whole stretch in
/// [`QUIET_SECONDS`] — at least `speed` — and visibly: it still moves every frame. Past `to`
/// the rest of the frame's time runs at `speed` again.
pub fn advance(t: f64, dt: f64, speed: f64, quiet: Option<(f64, f64)>) -> f64 {
    match quiet {
        Some((from, to)) if t >= from && t < to => {
            let rate = speed.max((to - from) / QUIET_SECONDS);
            let next = t + dt * rate;
            if next <= to {
                next
            } else {
                to + (dt - (to - t) / rate) * speed
            }
        }
        _ => t + dt * speed,
    }
}

/// Where a message dot travels: from `a` (sent at `sent`) to `b` (arrives at `deliver`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DotPath {
    pub a: Pt,
    pub b: Pt,
    pub sent: f64,
    pub deliver: f64,
}

impl DotPath {
    /// The dot's position at virtual time `t`.
    pub fn at(&self, t: f64) -> Pt {
        lerp(self.a, self.b, progress(t, self.sent, self.deliver))
    }
}

pub fn progress(t: f64, sent: f64, deliver: f64) -> f64 {
    if deliver <= sent {
        1.0
    } else {
        ((t - sent) / (deliver - sent)).clamp(0.0, 1.0)
    }
}

pub fn lerp(a: Pt, b: Pt, p: f64) -> Pt {
    (a.0 + (b.0 - a.0) * p, a.1 + (b.1 - a.1) * p)
}

#[derive(Default)]
struct DotsInner {
    bound: RefCell<Vec<(Element, DotPath)>>,
    /// The animation clock last placed, while playing.
    clock: Cell<Option<f64>>,
}

/// One canvas's dots, as last rendered. Each canvas gets its own handle; equal only to itself.
#[derive(Clone, Default)]
pub struct Dots(Rc<DotsInner>);

impl PartialEq for Dots {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl Dots {
    /// Called by the canvas after each render with its dot elements (drawn at [`Dots::clock`]
    /// while playing, so they need no move now).
    pub fn bind(&self, dots: Vec<(Element, DotPath)>) {
        *self.0.bound.borrow_mut() = dots;
    }

    /// The animation clock last placed, while playing.
    pub fn clock(&self) -> Option<f64> {
        self.0.clock.get()
    }

    /// Moves every dot to virtual time `t` (called by the animation loop each frame).
    pub fn place(&self, t: f64) {
        self.0.clock.set(Some(t));
        self.move_to(t);
    }

    /// Forgets the clock (paused: dots stay where the last render put them).
    pub fn rest(&self) {
        self.0.clock.set(None);
    }

    fn move_to(&self, t: f64) {
        for (el, path) in self.0.bound.borrow().iter() {
            let (x, y) = path.at(t);
            let _ = el.set_attribute("transform", &format!("translate({x:.1} {y:.1})"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Frames of `dt` seconds from the start of `[from, to)` until the clock reaches `to`.
    fn wall_time(from: f64, to: f64, speed: f64, dt: f64) -> f64 {
        let (mut t, mut wall) = (from, 0.0);
        while t < to {
            let next = advance(t, dt, speed, Some((from, to)));
            assert!(next > t, "the clock moves every frame");
            t = next;
            wall += dt;
        }
        wall
    }

    #[test]
    fn any_quiet_stretch_plays_in_half_a_second_at_most() {
        for speed in [0.5, 1.0, 2.0, 5.0, 10.0, 30.0] {
            for len in [1.0, 3.0, 12.0, 40.0, 250.0, 5000.0] {
                for dt in [1.0 / 120.0, 1.0 / 60.0, 1.0 / 30.0] {
                    let wall = wall_time(7.0, 7.0 + len, speed, dt);
                    // At most one frame beyond QUIET_SECONDS (the frame that crosses the end).
                    assert!(wall <= 0.5, "speed {speed}, stretch {len} ticks, frame {dt}: {wall} s");
                }
            }
        }
    }

    #[test]
    fn outside_a_quiet_stretch_the_clock_keeps_the_chosen_speed() {
        assert_eq!(advance(3.0, 0.5, 2.0, None), 4.0);
        // Past the stretch, or before it: the normal speed.
        assert_eq!(advance(20.0, 0.5, 2.0, Some((0.0, 12.0))), 21.0);
        // A short stretch is never played slower than the speed asked for.
        assert_eq!(advance(0.0, 0.1, 30.0, Some((0.0, 10.0))), 3.0);
        // The frame that crosses the end of the stretch goes on at the normal speed after it.
        let t = advance(11.0, 0.1, 2.0, Some((0.0, 12.0)));
        assert!(t > 12.0 && t < 12.2, "{t}");
    }
}
