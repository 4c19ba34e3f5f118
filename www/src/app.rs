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
use crate::components::timeline::Timeline;
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
        title: algorithm.title.en.into(),
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

#[function_component]
pub fn Lab() -> Html {
    let state = use_reducer(|| State::open(&effects::location_query()));
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
        })
    };

    effects::use_url_sync(&state);
    effects::use_play_loop(state.playing, state.speed, state.frame.time, on.clone(), (*dots).clone());
    keyboard::use_shortcuts(state.embed, on.clone());
    crate::embed_api::use_embed_api(state.embed, state.frame.clone(), state.head, state.playing, on.clone());

    let frame = &state.frame;
    let canvas = canvas_of(&state, "lab", &dots, &gestures);
    let controls = html! {
        <Controls step={frame.step} time={frame.time} playing={state.playing} speed={state.speed} embed={state.embed} on={on.clone()} />
    };
    let engine = state.engine.get();
    let violation = engine.violations().iter().rev().find(|v| v.kind != election_lab::meta::SPLIT_BRAIN).map(|v| {
        format!("{} at t={} (step {}): {}{}", v.kind, v.time, v.step, nodes_text(&v.nodes), v.term.map(|t| format!(" in term {t}")).unwrap_or_default())
    });
    let banners = html! {
        <Banners alert={state.alert.clone()} notice={state.notice.clone()} leaders={frame.leaders.clone()} {violation} on={on.clone()} />
    };
    if state.embed {
        return html! {
            <div class="lab embed">
                { banners }
                { canvas }
                { controls }
            </div>
        };
    }
    let checks = Checks::of(&engine, frame, election_lab::meta::Lang::En);
    let inspected = state.selected.and_then(|id| Inspected::of(&engine, id));
    let algorithm = engine.algorithm();
    let formulas = meta::formulas(algorithm, &state.scenario, &state.metrics, election_lab::meta::Lang::En);
    drop(engine);
    html! {
        <div class="lab">
            <header class="top">
                <h1>{"Election Lab"}</h1>
                <ScenarioBar preset={state.preset} on={on.clone()} {request} />
            </header>
            { banners }
            <div class="main">
                <section class="stage" aria-label="Cluster">
                    { canvas }
                    { controls }
                    <Timeline cursor={frame.step} head={state.head} markers={state.markers.clone()} on={on.clone()} />
                </section>
                <aside class="panels">
                    <Invariants ..checks />
                    <Inspector node={inspected} on={on.clone()} />
                    <MetricsPanel metrics={state.metrics.clone()} {algorithm} {formulas} />
                    <EventLog engine={state.engine.clone()} cursor={frame.step} interventions={state.interventions.clone()} on={on.clone()} />
                    <SpaceTime engine={state.engine.clone()} frame={frame.clone()} on={on.clone()} />
                    <Editor scenario={state.scenario.clone()} on={on.clone()} />
                </aside>
            </div>
            <ShareDialog share={state.share.clone()} on={on.clone()} />
            <HelpDialog open={state.help} on={on} />
        </div>
    }
}
