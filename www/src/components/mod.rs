//! The app's components, each in its own file. Props are cheap to compare (numbers, `Rc`s, small
//! values, stable callbacks), so a component re-renders only when what it shows changed.

pub mod assignment;
pub mod authoring;
pub mod banners;
pub mod breakpoints;
pub mod canvas;
pub mod canvas_parts;
pub mod compare;
pub mod controls;
pub mod debugging;
pub mod dialogs;
pub mod dropping;
pub mod editor;
pub mod experiments;
pub mod fork;
pub mod hash_ring;
pub mod labels;
pub mod lease_bars;
pub mod lesson;
pub mod panels;
pub mod picture;
pub mod runs_table;
pub mod scenario_bar;
pub mod script_editor;
pub mod store;
pub mod teach;
pub mod timeline;
pub mod topology_editor;

pub use canvas::{Canvas, CanvasProps, DrawOptions};
pub use canvas_parts::NodeGesture;

use yew::prelude::*;

/// A coordinate for an SVG attribute.
pub fn fmt(v: f64) -> String {
    format!("{v:.1}")
}

/// A 24×24 icon from one path.
pub fn icon(d: &'static str) -> Html {
    html! { <svg class="icon" viewBox="0 0 24 24" width="18" height="18" aria-hidden="true"><path d={d} /></svg> }
}

/// A callback that sends `f`'s message to `to` when there is one.
pub fn maybe<IN: 'static, OUT: 'static>(to: &Callback<OUT>, f: impl Fn(IN) -> Option<OUT> + 'static) -> Callback<IN> {
    let to = to.clone();
    Callback::from(move |e| {
        if let Some(m) = f(e) {
            to.emit(m)
        }
    })
}
