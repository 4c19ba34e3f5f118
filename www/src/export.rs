//! Pictures for slides and notes: the canvas as it is drawn now, as a standalone SVG or PNG file,
//! with a caption (algorithm, preset, step, time, leaders) and a legend of what it shows; its TikZ
//! and the space-time diagram's for LaTeX notes; a figure strip of chosen steps; an animation.
//!
//! The picture is the canvas's own markup: the live `<svg>` is cloned and every element gets
//! the styles the page computed for it written inline (only what differs from its parent, for
//! inherited properties), so the file needs no stylesheet; hit areas are left out. Light or
//! dark: "as the page" takes the computed styles as they are; "light" or "dark" first sets the
//! custom properties (`--ink`, `--panel`, …) of that scheme, read from the page's own
//! stylesheets (`:root` and its `prefers-color-scheme: dark` block), on the canvas's box, so the
//! browser's cascade does the rest, then takes them off again. A PNG is the same SVG drawn into
//! an `<img>`, then onto a `<canvas>` at the chosen width, then `toBlob`.
//!
//! The page does only what needs its DOM: it grabs the drawing of each step asked for (`export_dom.js`,
//! smaller there than as wasm, fetched on the first figure through `export.js`: not part of the
//! first load; a failed fetch is said in an alert and the page goes on) and saves the file. Everything a figure says and how it is laid
//! out — [`caption`], [`legend`], [`compose`], the strip, greyscale, TikZ — runs in the page's
//! Web Worker (`export/job.rs`), which rebuilds the run from its trace: none of it is in the first
//! load. Those parts are pure and tested natively.

use crate::i18n::k;
use crate::state::State;
use job::{Job, What};
use wasm_bindgen::prelude::*;

pub mod compose;
pub mod job;
mod legend;
pub mod space_time;
pub mod strip;
pub mod tikz;
pub use compose::{caption, compose, file_name, in_scheme};
pub use legend::{greyscale, legend, Entry, Legend, RoleEntry};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Svg,
    Png,
    /// A LaTeX document with the drawing in TikZ ([`tikz`]), drawn from the run, not the page.
    Tikz,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    /// The colours the page shows now.
    Page,
    Light,
    Dark,
    /// The light colours in greys, for print: kinds differ by shape and dash.
    Grey,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// 16:9, the drawing on the left, caption and legend beside it: 1920 wide is 1920 × 1080.
    Slide,
    /// For notes: caption above the drawing, legend below.
    Tall,
}

/// What the picture menu asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    pub format: Format,
    /// Width of the picture in pixels (the height follows).
    pub width: u32,
    pub scheme: Scheme,
    pub shape: Shape,
}

/// The widths offered, in pixels.
pub const WIDTHS: &[u32] = &[1280, 1920, 2560];

impl Format {
    pub fn tag(self) -> &'static str {
        match self {
            Format::Svg => "svg",
            Format::Png => "png",
            Format::Tikz => "tikz",
        }
    }

    pub fn parse(tag: &str) -> Option<Format> {
        [Format::Svg, Format::Png, Format::Tikz].into_iter().find(|f| f.tag() == tag)
    }
}

impl Scheme {
    pub fn tag(self) -> &'static str {
        match self {
            Scheme::Page => "page",
            Scheme::Light => "light",
            Scheme::Dark => "dark",
            Scheme::Grey => "grey",
        }
    }

    pub fn parse(tag: &str) -> Option<Scheme> {
        [Scheme::Page, Scheme::Light, Scheme::Dark, Scheme::Grey].into_iter().find(|s| s.tag() == tag)
    }
}

/// The picture's colours and font.
#[derive(Clone, Debug, PartialEq)]
pub struct Look {
    pub background: String,
    pub ink: String,
    pub muted: String,
    /// The ring of a dot that will not arrive.
    pub bad: String,
    pub font: String,
    /// The node looks' colours (style.css's `--leader`, `--candidate`, `--waiting`, `--node`,
    /// `--line`, `--crashed`), for the legend's swatches.
    pub leader: String,
    pub candidate: String,
    pub waiting: String,
    pub node: String,
    pub line: String,
    pub crashed: String,
}

impl Look {
    /// The look from what `export.js` read: [background, ink, muted, bad, font, leader,
    /// candidate, waiting, node, line, crashed].
    pub fn from_parts(parts: &[String]) -> Option<Look> {
        let [background, ink, muted, bad, font, leader, candidate, waiting, node, line, crashed] =
            <[String; 11]>::try_from(parts.to_vec()).ok()?;
        Some(Look { background, ink, muted, bad, font, leader, candidate, waiting, node, line, crashed })
    }
}

// ----- the DOM side (src/export_dom.js, loaded by src/export.js) -----

#[wasm_bindgen(module = "/src/export.js")]
extern "C" {
    /// Resolves once the DOM side (`export_dom.js`) is loaded; rejects naming what failed.
    fn ready() -> js_sys::Promise;
    /// Grabs the canvas of `lane` for the next figure: [markup, background, ink, muted, bad,
    /// font, leader, candidate, waiting, node, line, crashed], kept in `export_dom.js` until the
    /// figure's job is posted; false without the canvas.
    #[wasm_bindgen(js_name = grabFor)]
    fn grab_for(lane: &str, scheme: &str) -> bool;
    /// Posts a figure's job (the drawings grabbed added) to the worker at `loader`; the file it
    /// makes is offered as a download.
    #[wasm_bindgen(js_name = postFigure)]
    fn post_figure(loader: &str, job: &str);
}

/// Loads the DOM side if it is not yet; a failed load is reported to `failed` (false).
async fn loaded(failed: &yew::Callback<String>) -> bool {
    match wasm_bindgen_futures::JsFuture::from(ready()).await {
        Ok(_) => true,
        Err(e) => {
            failed.emit(crate::bundle::why(e));
            false
        }
    }
}

/// Runs `then` once the DOM side is loaded.
fn when_loaded(failed: yew::Callback<String>, then: impl FnOnce() + 'static) {
    wasm_bindgen_futures::spawn_local(async move {
        if loaded(&failed).await {
            then();
        }
    });
}

/// Waits `ms` milliseconds (lets the page draw).
async fn sleep(ms: i32) {
    let p = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(w) = web_sys::window() {
            let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms);
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(p).await;
}

/// The most frames one animation takes (at 1280 px a frame is about 100 KB of PNG).
pub const MAX_FRAMES: u64 = 120;

/// Which steps an animation covers: `from` (default: the cursor) to `to` (default: 40 steps
/// on), within the run and at most [`MAX_FRAMES`] frames.
pub fn frame_range(cursor: u64, head: u64, from: Option<u64>, to: Option<u64>) -> (u64, u64) {
    let from = from.unwrap_or(cursor).min(head);
    let to = to.unwrap_or(from + 40).clamp(from, head).min(from + MAX_FRAMES - 1);
    (from, to)
}

/// Grabs the canvas of `lane` (its styles inline, the picture's colours and font) for the next
/// figure; false without the canvas.
fn grab(lane: &str, scheme: Scheme) -> bool {
    grab_for(
        lane,
        match scheme {
            Scheme::Page => "",
            Scheme::Light | Scheme::Grey => "light",
            Scheme::Dark => "dark",
        },
    )
}

/// Hands `job` to the worker, which makes the file.
fn post(job: Job) {
    post_figure(crate::worker::LOADER, &job.to_json());
}

/// The job of a figure of `steps` of the run shown (the drawings are added in `export.js`).
fn job(state: &State, what: What, options: Options, steps: Vec<u64>) -> Job {
    Job {
        what,
        trace: state.engine.get().trace_value(),
        preset: state.preset.map(str::to_string),
        lang: state.lang,
        steps,
        options,
        grabs: Vec::new(),
        delay_ms: 0,
    }
}

/// Moves the page through `steps` with `seek` (each is drawn exactly as on screen), grabs each
/// drawing, returns the page to where it was, and hands the job to the worker.
#[allow(clippy::too_many_arguments)]
fn grab_steps(
    state: &State,
    lane: &'static str,
    what: What,
    options: Options,
    steps: Vec<u64>,
    delay_ms: u32,
    seek: yew::Callback<u64>,
    failed: yew::Callback<String>,
) {
    let cursor = state.frame.step;
    let mut job = job(state, what, options, Vec::new());
    job.delay_ms = delay_ms;
    wasm_bindgen_futures::spawn_local(async move {
        if !loaded(&failed).await {
            return;
        }
        for step in steps {
            seek.emit(step);
            // Let the page draw the step before grabbing it.
            sleep(30).await;
            if !grab(lane, options.scheme) {
                break;
            }
            job.steps.push(step);
        }
        seek.emit(cursor);
        if !job.steps.is_empty() {
            post(job);
        }
    });
}

/// Exports steps `from..=to` of the canvas of `lane` as an animated PNG, `delay_ms` a frame.
pub fn animation(
    state: &State,
    lane: &'static str,
    options: Options,
    range: (Option<u64>, Option<u64>),
    delay_ms: u32,
    seek: yew::Callback<u64>,
    failed: yew::Callback<String>,
) {
    let (from, to) = frame_range(state.frame.step, state.head, range.0, range.1);
    grab_steps(state, lane, What::Animation, options, (from..=to).collect(), delay_ms, seek, failed);
}

/// Exports `steps` of the canvas of `lane` side by side as one picture (a figure strip), or as
/// TikZ. `steps` is the list typed in the menu; a part that is not a step number is named on
/// its input.
pub fn strip(
    state: &State,
    lane: &'static str,
    options: Options,
    steps: &str,
    seek: yew::Callback<u64>,
    failed: yew::Callback<String>,
) {
    let input = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.query_selector("[data-testid=\"strip-steps\"]").ok().flatten())
        .and_then(|e| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlInputElement>(e).ok());
    let steps = match strip::parse_steps(steps, state.frame.step, state.head) {
        Ok(steps) => steps,
        Err(part) => {
            if let Some(i) = &input {
                i.set_custom_validity(&k::UI_STRIP_NOT_A_STEP.format(state.lang, &[&part]));
                i.report_validity();
            }
            return;
        }
    };
    if let Some(i) = &input {
        i.set_custom_validity("");
    }
    match options.format {
        Format::Tikz => {
            let job = job(state, What::Tikz, options, steps);
            when_loaded(failed, move || post(job));
        }
        _ => grab_steps(state, lane, What::Strip, options, steps, 0, seek, failed),
    }
}

/// The space-time diagram of the last [`space_time::SPAN`] ticks up to the step shown, as TikZ.
pub fn space_time_tikz(state: &State, scheme: Scheme, failed: yew::Callback<String>) {
    let options = Options { format: Format::Tikz, width: WIDTHS[1], scheme, shape: Shape::Slide };
    let job = job(state, What::SpaceTime, options, vec![state.frame.step]);
    when_loaded(failed, move || post(job));
}

/// Exports the canvas of `lane` as the picture `options` asks for, and offers it as a download.
/// The first figure waits for the DOM side to load; a failed load is reported to `failed`.
pub fn picture(state: &State, lane: &'static str, options: Options, failed: yew::Callback<String>) {
    let step = state.frame.step;
    if options.format == Format::Tikz {
        let job = job(state, What::Tikz, options, vec![step]);
        return when_loaded(failed, move || post(job));
    }
    let job = job(state, What::Picture, options, vec![step]);
    when_loaded(failed, move || {
        if !grab(lane, options.scheme) {
            web_sys::console::error_1(&"Export picture: the canvas was not found".into());
            return;
        }
        post(job);
    });
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn look() -> Look {
        Look {
            background: "#fff".into(),
            ink: "#111".into(),
            muted: "#666".into(),
            bad: "#b00".into(),
            font: "system-ui, \"Segoe UI\"".into(),
            leader: "#0072B2".into(),
            candidate: "#E69F00".into(),
            waiting: "#CC79A7".into(),
            node: "#fff".into(),
            line: "#ddd".into(),
            crashed: "#9e9e9e".into(),
        }
    }

    #[test]
    fn an_animation_covers_the_asked_steps_within_the_run_and_the_frame_limit() {
        assert_eq!(frame_range(7, 100, Some(2), Some(6)), (2, 6));
        assert_eq!(frame_range(7, 100, None, None), (7, 47), "from the cursor, 40 steps on");
        assert_eq!(frame_range(7, 20, None, None), (7, 20), "not past the head");
        assert_eq!(frame_range(7, 100, Some(9), Some(3)), (9, 9), "a reversed range is one frame");
        assert_eq!(frame_range(0, 10_000, Some(0), Some(5000)), (0, MAX_FRAMES - 1));
        assert_eq!(frame_range(50, 30, Some(40), None), (30, 30), "a start past the head clamps");
    }

    #[test]
    fn options_travel_by_their_tags() {
        for f in [Format::Svg, Format::Png, Format::Tikz] {
            assert_eq!(Format::parse(f.tag()), Some(f));
        }
        for s in [Scheme::Page, Scheme::Light, Scheme::Dark, Scheme::Grey] {
            assert_eq!(Scheme::parse(s.tag()), Some(s));
        }
        assert_eq!(Format::parse("gif"), None);
        assert_eq!(Look::from_parts(&vec!["#fff".to_string(); 11]).map(|l| l.ink), Some("#fff".to_string()));
        assert_eq!(Look::from_parts(&vec!["#fff".to_string(); 10]), None);
    }
}
