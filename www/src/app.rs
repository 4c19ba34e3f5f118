//! The Lab: one reducer state, the browser effects, and the components laid out on the page.
//!
//! Every callback handed to a component is made once (they dispatch to the reducer, whose
//! dispatcher never changes), so a component's props change only when what it shows does.

use crate::anim::Dots;
use crate::components::banners::Banners;
use crate::components::controls::Controls;
use crate::components::dialogs::{HelpDialog, ShareDialog};
use crate::components::editor::Editor;
use crate::components::panels::{Checks, EventLog, Inspected, Inspector, Invariants, MetricsPanel, SpaceTime};
use crate::components::scenario_bar::{Request, ScenarioBar};
use crate::components::teach::{CardDialog, Legend, Narration};
use crate::components::timeline::Timeline;
use crate::i18n::{tr, Lang};
use crate::components::{Canvas, DrawOptions, NodeGesture};
use crate::state::{Action, State};
use crate::{effects, keyboard, meta, nodes_text};
use election_lab::Action as Intervention;
use yew::prelude::*;

/// The canvas's gesture callbacks, wired to a reducer.
#[derive(Clone, PartialEq)]
pub struct Gestures {
    pub on_node: Callback<NodeGesture>,
    pub on_act: Callback<Intervention>,
    pub on_close_menu: Callback<()>,
    pub on_lines: Callback<Vec<crate::geometry::Line>>,
}

impl Gestures {
    pub fn to(on: &Callback<Action>) -> Gestures {
        Gestures {
            on_node: on.reform(|g| match g {
                NodeGesture::Toggle(id) => Action::NodeClick(id),
                NodeGesture::Menu(id) => Action::NodeMenu(id),
            }),
            on_act: on.reform(Action::Act),
            on_close_menu: on.reform(|_| Action::CloseMenu),
            on_lines: on.reform(Action::SetLines),
        }
    }
}

/// The canvas of a state, drawn in lane `lane` and wired to `gestures`.
pub fn canvas_of(state: &State, lane: &'static str, dots: &Dots, gestures: &Gestures) -> Html {
    let algorithm = meta::algorithm_of(&state.scenario);
    let options = DrawOptions {
        algorithm,
        ring: meta::is_ring(algorithm),
        lang: state.lang,
        title: algorithm.title.get(state.lang).into(),
        selected: state.selected,
        menu: state.menu,
        animate: state.playing,
        cancel: state.cancel,
    };
    let g = gestures.clone();
    html! {
        <Canvas lane={lane} frame={state.frame.clone()} positions={state.positions.clone()} lines={state.lines.clone()}
                drops={state.drops.clone()} {options} dots={dots.clone()}
                on_node={g.on_node} on_act={g.on_act} on_close_menu={g.on_close_menu} on_lines={g.on_lines} />
    }
}

/// The latest violation other than split brain (which has its own banner), in words.
fn violation_text(engine: &election_lab::Engine, lang: Lang) -> Option<String> {
    let v = engine.violations().iter().rev().find(|v| v.kind != election_lab::meta::SPLIT_BRAIN)?;
    let name = engine.algorithm().property(v.kind).map_or(v.kind, |p| p.title.get(lang));
    let term = v.term.map(|t| format!(" {} {t}", tr(lang, "in term", "任期"))).unwrap_or_default();
    Some(format!("{name} {} t={} ({} {}): {}{term}", tr(lang, "violated at", "被违反于"), v.time, tr(lang, "step", "步"), v.step, nodes_text(&v.nodes)))
}

#[function_component]
pub fn Lab() -> Html {
    let state = use_reducer(|| State::open_in(&effects::location_query(), effects::browser_lang().as_deref()));
    let on: Callback<Action> = state.dispatcher().to_callback();
    let gestures = use_memo((), {
        let on = on.clone();
        move |_| Gestures::to(&on)
    });
    let dots = use_memo((), |_| Dots::default());
    let request = {
        // Reads the live state when the user asks (the handle always derefs to the latest).
        let state = state.clone();
        use_callback((), move |r: Request, _| match r {
            Request::Share(embed) => state.dispatch(effects::share(&state, embed)),
            Request::Export => effects::export(&state),
            Request::ImportFile(file) => effects::read_file(file, state.dispatcher().to_callback().reform(Action::Import)),
            Request::Picture(options) => crate::export::picture(&state, "lab", options),
            Request::Animation(options, range, delay) => crate::export::animation(&state, "lab", options, range, delay, state.dispatcher().to_callback().reform(Action::Seek)),
        })
    };

    effects::use_url_sync(&state);
    effects::use_document_lang(state.lang);
    effects::use_play_loop(state.playing, state.speed, state.frame.time, on.clone(), (*dots).clone());
    keyboard::use_shortcuts(state.embed, on.clone());
    crate::embed_api::use_embed_api(state.embed, state.frame.clone(), state.head, state.playing, on.clone());

    let lang = state.lang;
    let frame = &state.frame;
    let algorithm = meta::algorithm_of(&state.scenario);
    let canvas = canvas_of(&state, "lab", &dots, &gestures);
    let controls = html! {
        <Controls step={frame.step} time={frame.time} playing={state.playing} speed={state.speed} embed={state.embed} {lang} on={on.clone()} />
    };
    let narration = html! { <Narration step={frame.step} text={state.narration.clone()} {lang} /> };
    let engine = state.engine.get();
    let violation = violation_text(&engine, lang);
    let banners = html! {
        <Banners alert={state.alert.clone()} notice={state.notice.clone()} leaders={frame.leaders.clone()} {violation} {lang} on={on.clone()} />
    };
    let card = html! { <CardDialog open={state.card} {algorithm} {lang} on={on.clone()} /> };
    if state.embed {
        // The embed: a title, the canvas with banners laid over it (they never push the
        // controls out of the frame), a compact legend, the narration, the controls, and a way
        // out to the full lab.
        let full = format!("./{}", state.query(false));
        let title = state.preset.and_then(election_lab::presets::find).map_or(algorithm.title.get(lang), |p| p.title.get(lang));
        return html! {
            <div class="lab embed">
                <div class="embed-head">
                    <b class="embed-title">{ title }</b>
                    <a class="open-full" href={full} target="_blank" rel="noopener">{ tr(lang, "Open in Election Lab ↗", "在 Election Lab 中打开 ↗") }</a>
                </div>
                <div class="embed-stage">
                    { canvas }
                    <div class="embed-banners">{ banners }</div>
                </div>
                <Legend {algorithm} {lang} compact=true />
                { narration }
                { controls }
                { card }
            </div>
        };
    }
    let checks = Checks::of(&engine, frame, lang);
    let inspected = state.selected.and_then(|id| Inspected::of(&engine, id));
    let formulas = meta::formulas(algorithm, &state.scenario, &state.metrics, lang);
    drop(engine);
    html! {
        <div class="lab">
            <header class="top">
                <h1>{"Election Lab"}<span class="subtitle">{ tr(lang, " — leader election, step by step", " — 领导者选举，一步一步看") }</span></h1>
                <ScenarioBar preset={state.preset} {lang} on={on.clone()} {request} />
            </header>
            { banners }
            <div class="main">
                <section class="stage" aria-label={tr(lang, "Cluster", "集群")}>
                    { canvas }
                    { narration }
                    { controls }
                    <Timeline cursor={frame.step} head={state.head} markers={state.markers.clone()} {lang} on={on.clone()} />
                    <Legend {algorithm} {lang} />
                </section>
                <aside class="panels">
                    <Invariants ..checks />
                    <Inspector node={inspected} {lang} on={on.clone()} />
                    <MetricsPanel metrics={state.metrics.clone()} {algorithm} {formulas} {lang} />
                    <EventLog engine={state.engine.clone()} cursor={frame.step} interventions={state.interventions.clone()} {lang} on={on.clone()} />
                    <SpaceTime engine={state.engine.clone()} frame={frame.clone()} {lang} on={on.clone()} />
                    <Editor scenario={state.scenario.clone()} on={on.clone()} lang={state.lang} />
                </aside>
            </div>
            <ShareDialog share={state.share.clone()} {lang} on={on.clone()} />
            <HelpDialog open={state.help} {lang} on={on.clone()} />
            { card }
        </div>
    }
}
