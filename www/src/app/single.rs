//! One run's page: the canvas (or the network editor) with what steers and tells the run, and
//! the panels beside it.

use crate::components::authoring::Recorder;
use crate::components::editor::Editor;
use crate::components::panels::{Checks, EventLog, Inspected, Inspector, Invariants, MetricsPanel, SpaceTime, Watch};
use crate::components::script_editor::ScriptEditor;
use crate::components::teach::Legend;
use crate::components::timeline::Timeline;
use crate::i18n::tr;
use crate::meta;
use crate::state::{Action, State};
use election_lab::meta::k;
use std::rc::Rc;
use yew::prelude::*;

pub struct SingleProps<'a> {
    pub state: &'a State,
    pub on: Callback<Action>,
    /// The run's canvas, wired by the Lab (a lesson's question may take its clicks).
    pub canvas: Html,
    /// Whether the network editor is shown in place of the canvas (workbench only).
    pub editing: UseStateHandle<bool>,
    /// Whether the lesson recorder is shown (workbench only).
    pub recording: UseStateHandle<bool>,
    /// Whether the first frame is painted (the panels come with the second).
    pub painted: bool,
    /// Whether a lesson is walked (not in free play): no fork offered, no future step logged.
    pub in_lesson: bool,
    pub lesson_panel: Html,
    pub side_bar: Html,
    pub narration: Html,
    pub controls: Html,
}

/// The network editor in place of the canvas (workbench only), closed by its Done.
fn topology_editor(state: &State, editing: &UseStateHandle<bool>, on: &Callback<Action>) -> Html {
    let e = editing.clone();
    html! {
        <crate::components::topology_editor::TopologyEditor scenario={state.scenario.clone()} positions={state.positions.clone()}
            lang={state.lang} touch={state.touch} on={on.clone()} on_close={Callback::from(move |_| e.set(false))} />
    }
}

pub fn page(props: SingleProps) -> Html {
    let SingleProps {
        state,
        on,
        canvas,
        editing,
        recording,
        painted,
        in_lesson,
        lesson_panel,
        side_bar,
        narration,
        controls,
    } = props;
    let canvas = move || canvas;
    let lang = state.lang;
    let frame = &state.frame;
    let algorithm = meta::algorithm_of(&state.scenario);
    let engine = state.engine.get();
    let mut checks = Checks::of(&engine, frame, lang);
    checks.on = on.clone();
    checks.search = state.search.current.clone().filter(|_| crate::WORKBENCH);
    checks.check = state.check.current.clone().filter(|_| crate::WORKBENCH);
    let inspected = state.selection.peek.or(state.selection.selected).and_then(|id| Inspected::of(&engine, id));
    let formulas = meta::formulas(algorithm, &state.scenario, &state.metrics, lang);
    let body = html! {
        <div class="main">
            <section class="stage" aria-label={tr(lang, k::UI_CLUSTER)}>
                { if *editing && crate::WORKBENCH { topology_editor(state, &editing, &on) } else { canvas() } }
                { side_bar.clone() }
                { crate::components::fork::offer_bar(state.offer.as_deref().filter(|_| !in_lesson), lang, &on) }
                { narration }
                { controls }
                { crate::components::debugging::breakpoints(state, engine.until(), algorithm, &on) }
                <Timeline cursor={frame.step} head={state.head} markers={state.markers.clone()} {lang} on={on.clone()} />
                <Legend {algorithm} {lang} frame={frame.clone()} links={state.scenario.topology.is_some()} />
            </section>
            <aside class="panels">
                // Beside the canvas, so that the caption and the nodes it speaks of are seen together.
                { lesson_panel }
                { for state.assignment.clone().filter(|_| crate::WORKBENCH).map(|taking| html! {
                    <crate::components::assignment::Assignment {taking} {lang} on={on.clone()} />
                }) }
                { for state.script.clone().filter(|_| crate::WORKBENCH).map(|edit| html! {
                    <ScriptEditor {edit} fault={engine.fault().map(Rc::new)} {lang} on={on.clone()} />
                }) }
                { if *recording && crate::WORKBENCH { html! { <Recorder engine={state.engine.clone()} step={frame.step} {lang} on_close={{ let r = recording.clone(); Callback::from(move |_| r.set(false)) }} /> } } else { html! {} } }
                // The panels come with the second frame: the first one shows the nodes.
                if painted { <>
                <Invariants ..checks />
                <Inspector node={inspected} {lang} touch={state.touch} on={on.clone()} />
                <MetricsPanel metrics={state.metrics.clone()} {algorithm} {formulas} {lang} />
                <EventLog engine={state.engine.clone()} cursor={frame.step} interventions={state.interventions.clone()} filter={state.log_filter.clone()} {lang} touch={state.touch} hide_future={in_lesson} on={on.clone()} />
                <SpaceTime engine={state.engine.clone()} frame={frame.clone()} {lang} on={on.clone()} />
                <Watch engine={state.engine.clone()} run={(state.gen, state.ivs_rev, state.head)} time={frame.time} step={frame.step} watching={state.watching.clone()} {lang} on={on.clone()} />
                <Editor scenario={state.scenario.clone()} on={on.clone()} lang={state.lang} />
                </> }
            </aside>
        </div>
    };
    drop(engine);
    body
}
