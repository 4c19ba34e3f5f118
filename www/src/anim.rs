//! A requestAnimationFrame loop owned by the component: started when playing, stopped on pause,
//! and dropped with the component. Each frame sends the frame timestamp to a callback.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

type Slot = Rc<RefCell<Option<Closure<dyn FnMut(f64)>>>>;

pub struct FrameLoop {
    slot: Slot,
    running: Rc<Cell<bool>>,
    id: Rc<Cell<i32>>,
}

fn request(cb: &Closure<dyn FnMut(f64)>) -> i32 {
    web_sys::window()
        .and_then(|w| w.request_animation_frame(cb.as_ref().unchecked_ref()).ok())
        .unwrap_or(0)
}

impl FrameLoop {
    pub fn new() -> Self {
        FrameLoop { slot: Rc::new(RefCell::new(None)), running: Rc::new(Cell::new(false)), id: Rc::new(Cell::new(0)) }
    }

    pub fn is_running(&self) -> bool {
        self.running.get()
    }

    pub fn start(&mut self, mut on_frame: impl FnMut(f64) + 'static) {
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
            on_frame(ts);
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
