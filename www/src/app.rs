//! The Lab: one reducer state, the browser effects, what every mode shows (header, banners,
//! dialogs), and one page per mode: `single.rs`, `compare.rs`, `embed.rs`, `experiments.rs`.
//!
//! Every callback handed to a component is made once (they dispatch to the reducer, whose
//! dispatcher never changes), so a component's props change only when what it shows does.

mod compare;
mod embed;
mod experiments;
mod single;

use crate::anim::Dots;
use crate::components::banners::Banners;
use crate::components::compare::{self as cmp, Picker, LANES};
use crate::components::controls::Controls;
use crate::components::dialogs::{HelpDialog, ShareDialog};
use crate::components::lesson::{CourseDialog, LessonPanel};
use crate::components::scenario_bar::{Request, ScenarioBar};
use crate::components::teach::{CardDialog, Narration};
use crate::components::{Canvas, DrawOptions, NodeGesture};
use crate::geometry::{Line, Pt};
use crate::i18n::{tr, Lang};
use crate::state::lesson::{LabView, LessonAction};
use crate::state::{Action, DropMark, State};
use crate::{effects, keyboard, meta, nodes_text};
use election_lab::lesson::Answer;
use election_lab::meta::k;
use election_lab::Action as Intervention;
use election_lab::{Algorithm, Frame};
use std::rc::Rc;
use yew::prelude::*;

/// The canvas's gesture callbacks, wired to a reducer.
#[derive(Clone, PartialEq)]
pub struct Gestures {
    pub on_node: Callback<NodeGesture>,
    pub on_act: Callback<Intervention>,
    pub on_close_menu: Callback<()>,
    pub on_lines: Callback<Vec<crate::geometry::Line>>,
    pub on_peek: Callback<u32>,
}

impl Gestures {
    pub fn to(on: &Callback<Action>) -> Gestures {
        Gestures::in_lane(on, None)
    }

    /// The gestures of a canvas; in compare mode, of lane `lane` (its node menu opens there).
    pub fn in_lane(on: &Callback<Action>, lane: Option<usize>) -> Gestures {
        Gestures {
            on_node: on.reform(move |g| match (g, lane) {
                (NodeGesture::Toggle(id), _) => Action::NodeClick(id),
                (NodeGesture::Menu(id), None) => Action::NodeMenu(id),
                (NodeGesture::Menu(id), Some(k)) => Action::LaneMenu(k, id),
                (NodeGesture::Side(id), _) => Action::ToggleSide(id),
            }),
            on_peek: on.reform(Action::Peek),
            on_act: on.reform(Action::Act),
            on_close_menu: on.reform(|_| Action::CloseMenu),
            on_lines: on.reform(Action::SetLines),
        }
    }
}

/// The canvas of a state, drawn in lane `lane` and wired to `gestures`.
pub fn canvas_of(state: &State, lane: &'static str, dots: &Dots, gestures: &Gestures) -> Html {
    let algorithm = meta::algorithm_of(&state.scenario);
    let drawn = (state.frame.clone(), state.positions.clone(), state.lines.clone(), state.drops.clone());
    draw(state, algorithm, lane, drawn, state.selection.menu, dots, gestures)
}

type Drawn = (Rc<Frame>, Rc<Vec<Pt>>, Rc<Vec<Line>>, Rc<Vec<DropMark>>);

fn draw(
    state: &State,
    algorithm: &'static Algorithm,
    lane: &'static str,
    (frame, positions, lines, drops): Drawn,
    menu: Option<u32>,
    dots: &Dots,
    gestures: &Gestures,
) -> Html {
    let options = DrawOptions {
        algorithm,
        ring: meta::is_ring(algorithm),
        two_way: algorithm.topology == election_lab::meta::Topology::BidirectionalRing,
        lang: state.lang,
        title: algorithm.title.get(state.lang).into(),
        selected: state.selection.selected,
        menu,
        animate: state.playback.playing,
        cancel: state.cancel,
        bare: state.lanes().is_some(),
        chosen: state.selection.side.clone(),
        present: state.present,
        links: Rc::new(state.scenario.topology.as_ref().map(|g| g.edges.clone()).unwrap_or_default()),
    };
    let g = gestures.clone();
    html! {
        <Canvas {lane} {frame} {positions} {lines} {drops} {options} dots={dots.clone()}
                on_node={g.on_node} on_act={g.on_act} on_close_menu={g.on_close_menu} on_lines={g.on_lines} on_peek={g.on_peek} />
    }
}

/// The keyboard partition's bar: the nodes chosen for one side, and a button that cuts them off
/// with one line (as if drawn) or forgets them. Shown while some are chosen.
fn side_bar(side: &[u32], lang: Lang, on: &Callback<Action>) -> Html {
    if side.is_empty() {
        return html! {};
    }
    html! {
        <div class="side-bar" role="group" aria-label={tr(lang, k::UI_PARTITION_BY_KEYBOARD)} data-testid="side-bar">
            <span>{ tr(lang, k::UI_ONE_SIDE) }<b>{ nodes_text(side) }</b></span>
            <button onclick={on.reform(|_| Action::CommitSide)} data-testid="cut-side">{ tr(lang, k::UI_CUT_THEM_OFF) }</button>
            <button onclick={on.reform(|_| Action::ClearSide)}>{ tr(lang, k::UI_CANCEL) }</button>
        </div>
    }
}

/// The latest violation other than split brain (which has its own banner), in words.
fn violation_text(engine: &election_lab::Engine, lang: Lang) -> Option<String> {
    let v = engine.violations().iter().rev().find(|v| v.kind != election_lab::meta::SPLIT_BRAIN)?;
    let name = engine.algorithm().property(v.kind).map_or(v.kind, |p| p.title.get(lang));
    let term = v.term.map(|t| format!(" {} {t}", tr(lang, k::UI_IN_TERM))).unwrap_or_default();
    Some(format!(
        "{name} {} t={} ({} {}): {}{term}",
        tr(lang, k::UI_VIOLATED_AT),
        v.time,
        tr(lang, k::UI_STEP),
        v.step,
        nodes_text(&v.nodes)
    ))
}

#[function_component]
pub fn Lab() -> Html {
    let state = use_reducer(|| {
        effects::early_catalog_now();
        let s = State::open_in(&effects::location_query(), effects::browser_lang().as_deref());
        // The first render is committed in this task: the page's first frame can go now.
        effects::take_first_frame();
        crate::probe::mark("lab:state");
        s
    });
    let on: Callback<Action> = state.dispatcher().to_callback();
    // The compare lane whose narration is shown: the one last pointed at or focused.
    let lane_focus = use_state_eq(|| 0usize);
    let gestures = use_memo((), {
        let on = on.clone();
        move |_| Gestures::to(&on)
    });
    // One handle per canvas: the one run's, then one per compare lane.
    let dots = use_memo((), |_| (0..=LANES.len()).map(|_| Dots::default()).collect::<Vec<_>>());
    let lane_gestures = use_memo((), {
        let on = on.clone();
        move |_| (0..LANES.len()).map(|k| Gestures::in_lane(&on, Some(k))).collect::<Vec<_>>()
    });
    let request = {
        // Reads the live state when the user asks (the handle always derefs to the latest).
        let state = state.clone();
        use_callback((), move |r: Request, _| match r {
            Request::Share(embed) => state.dispatch(effects::share(&state, embed)),
            Request::Export => effects::export(&state),
            Request::TogglePreVote => {
                let trace = crate::request::toggled_pre_vote(state.engine.get().trace_value());
                state.dispatch(Action::Import(election_lab::write_json(&trace)));
            }
            // In the player, the files go to the workbench, which reads them.
            Request::ImportFiles(files) if !crate::WORKBENCH => {
                crate::workbench::stash_files(&files);
                state.dispatch(Action::OpenTool(crate::state::handoff::IMPORT));
            }
            Request::ImportFiles(files) => {
                // A file past the engine's limit is refused by its size, before anything is read.
                let big = files.iter().find_map(|f| {
                    election_lab::scenario::check_size(f.size() as usize)
                        .err()
                        .map(|e| format!("{}: {}", f.name(), e.message))
                });
                match big {
                    // A JSON Lines trace (what `run --trace` writes) of any length: its header
                    // line rebuilds the run, so only the file's head is read.
                    Some(why) if files.len() == 1 => {
                        let (file, d) = (files[0].clone(), state.dispatcher());
                        let name = file.name();
                        let limit = election_lab::scenario::MAX_BYTES as u32 + 1;
                        effects::read_head(
                            file,
                            limit,
                            Callback::from(move |head: String| match election_lab::engine::header_line(&head) {
                                Some(h) => d.dispatch(Action::ImportFiles(vec![(name.clone(), h.to_string())])),
                                None => d.dispatch(Action::ImportRefused(why.clone())),
                            }),
                        );
                    }
                    Some(why) => state.dispatch(Action::ImportRefused(why)),
                    None => effects::read_files(files, state.dispatcher().to_callback().reform(Action::ImportBytes)),
                }
            }
            Request::Picture(options) => crate::export::picture(&state, "lab", options, export_failed(&state)),
            Request::Animation(options, range, delay) => crate::export::animation(
                &state,
                "lab",
                options,
                range,
                delay,
                state.dispatcher().to_callback().reform(Action::Seek),
                export_failed(&state),
            ),
            Request::SpaceTimeTikz(scheme) => crate::export::space_time_tikz(&state, scheme, export_failed(&state)),
            Request::Strip(options, steps) => crate::export::strip(
                &state,
                "lab",
                options,
                &steps,
                state.dispatcher().to_callback().reform(Action::Seek),
                export_failed(&state),
            ),
        })
    };

    {
        // A coarse pointer (a phone, a tablet): the narration names taps, not keys.
        let on = on.clone();
        use_effect_with((), move |_| {
            crate::probe::mark("lab:rendered");
            let coarse = web_sys::window()
                .and_then(|w| w.match_media("(pointer: coarse)").ok().flatten())
                .is_some_and(|m| m.matches());
            if coarse {
                on.emit(Action::SetTouch(true));
            }
        });
    }
    let lesson = crate::lesson_io::use_lesson(&state, on.clone());
    // The lecturer's notes window, kept in step from the presenter view.
    crate::notes::sync(state.present, || crate::notes::content(&lesson, state.lang));
    // A lesson is walked, not forked, and the log shows no step the student has not reached
    // (free play lifts both).
    let in_lesson = lesson.active() && !lesson.free;
    // The course list, also opened by an empty `?lesson=` (the Lessons button of a build
    // without the lesson player hands the run over so).
    let courses = use_state_eq(|| {
        crate::LESSONS && crate::state::lesson_asked(&effects::location_query()).is_some_and(|v| v.is_empty())
    });
    let recording = use_state_eq(|| false);
    let editing = use_state_eq(|| false);
    {
        // The workbench, started by the player: the tool it was asked for, once the page's
        // language is ready (a Chinese page fetches its catalog again in this wasm), so that what
        // the tool says first (an import's refusal, say) is in that language.
        let (on, request, recording, editing) = (on.clone(), request.clone(), recording.clone(), editing.clone());
        let ready = state.pending_lang.is_none();
        use_effect_with(ready, move |&ready| {
            // `arrived` takes the handoff: not before the language is ready.
            let arrived = if ready && crate::WORKBENCH { crate::workbench::arrived() } else { None };
            if let Some((arrival, files)) = arrived {
                for action in arrival.actions {
                    on.emit(action);
                }
                recording.set(arrival.record);
                editing.set(arrival.edit);
                if arrival.import && !files.is_empty() {
                    request.emit(Request::ImportFiles(files));
                }
            }
        });
    }
    let answer_gestures = use_memo((), {
        let (on, to) = (on.clone(), lesson.dispatcher());
        move |_| Gestures {
            on_node: Callback::from({
                let on = on.clone();
                move |g| match g {
                    NodeGesture::Toggle(id) => to.dispatch(LessonAction::Answer(Answer::Node(Some(id)))),
                    NodeGesture::Menu(id) => on.emit(Action::NodeMenu(id)),
                    NodeGesture::Side(id) => on.emit(Action::ToggleSide(id)),
                }
            }),
            ..Gestures::to(&on)
        }
    });
    effects::use_url_sync(&state);
    let painted = effects::use_painted();
    let grading = state.assignment.clone();
    crate::worker::use_workers(
        state.search.current.clone(),
        state.check.current.clone(),
        state.sweep_job(),
        grading,
        state.lang,
        on.clone(),
    );
    crate::bundle::use_bundles(state.handoff.clone(), on.clone());
    effects::use_document_lang(state.lang);
    effects::use_catalog(state.pending_lang, on.clone());
    let now = state.lanes().map_or(state.frame.time, |c| c.time);
    let quiet = if state.playback.playing { state.quiet_stretch() } else { None };
    effects::use_play_loop(state.playback.playing, state.playback.speed, now, quiet, on.clone(), dots.clone());
    let computing = state.computing();
    // The first slice waits for the first frame (the nodes first, then the run ahead of them).
    effects::use_compute(painted && state.computes(), state.sl.count, on.clone());
    keyboard::use_shortcuts(state.embed, state.present, on.clone());
    // In compare mode the host hears the shared time (and the anchor lane's step and leaders).
    let (api_frame, api_head) =
        state.lanes().map_or((state.frame.clone(), state.head), |c| (c.anchor().frame.clone(), c.end));
    crate::embed_api::use_embed_api(state.embed, api_frame, api_head, state.playback.playing, on.clone());

    let lang = state.lang;
    // An algorithm that can ask a pre-vote (it declares the PRE_VOTE kind) offers the switch:
    // the same run replayed with it the other way.
    let pre_vote = meta::algorithm_of(&state.scenario)
        .kinds
        .iter()
        .any(|k| k.name == "PRE_VOTE")
        .then(|| state.scenario.params.get("pre_vote").and_then(|v| v.as_bool()).unwrap_or(false));
    let lesson_head = lesson.lesson.as_ref().map(|l| (l.title.get(lang).to_string(), l.summary.get(lang).to_string()));
    let frame = &state.frame;
    let algorithm = meta::algorithm_of(&state.scenario);
    let comparing = state.lanes();
    let (step, time) = comparing.map_or((frame.step, frame.time), |c| (c.time, c.time));
    // A scripted run computed in slices says how far it got (`state/slices.rs`).
    let computing =
        computing.map(|step| html! { <p class="computing" role="status">{ k::ui_computing(step).render(lang) }</p> });
    let controls = html! {
        <>
        <Controls {step} {time} playing={state.playback.playing} speed={state.playback.speed} embed={state.embed} compare={comparing.is_some()} rounds={state.scenario.network.rounds} {lang} on={on.clone()} />
        { for computing }
        </>
    };
    let engine = state.engine.get();
    // In compare mode each lane shows its own split brain; the banners keep alerts and notices.
    // The experiments view hides the run, so its split brain and violations wait until it is back.
    let (leaders, violation) = match comparing {
        _ if state.experiments().is_some() => (Vec::new(), None),
        Some(_) => (Vec::new(), None),
        None => (frame.leaders.clone(), violation_text(&engine, lang)),
    };
    // Only an imported recording has paused members, and importing is the workbench's.
    let stale = (crate::WORKBENCH && comparing.is_none() && state.experiments().is_none())
        .then(|| crate::state::paused_leader_text(frame, lang))
        .flatten();
    // A recording's leaders of different epochs at once: a stale leader, told as such, not a split brain.
    let imported = election_lab::registry::is_recorded(algorithm.id);
    let epochs = (crate::WORKBENCH && imported && comparing.is_none() && state.experiments().is_none())
        .then(|| crate::state::stale_term_text(frame, lang))
        .flatten();
    let leaders = if epochs.is_some() { Vec::new() } else { leaders };
    let stale = epochs.or(stale);
    let per_group = meta::leader_per_group(algorithm);
    let conformance = state.conformance.clone();
    let banners = html! { <Banners alert={state.messages.alert.clone()} notice={state.messages.notice.clone()} {conformance} {leaders} {stale} {violation} {per_group} {lang} on={on.clone()} /> };
    let card = html! { <CardDialog open={state.dialogs.card} {algorithm} {lang} on={on.clone()} /> };
    let canvas = || canvas_of(&state, "lab", &dots[0], if lesson.wants_node() { &answer_gestures } else { &gestures });
    let lab = LabView {
        engine: state.engine.clone(),
        playing: state.playback.playing,
        ivs_rev: state.ivs_rev,
        gen: state.gen,
    };
    let open_courses = {
        let (c, on) = (courses.clone(), on.clone());
        Callback::from(move |_| if crate::LESSONS { c.set(true) } else { on.emit(Action::Courses) })
    };
    let lesson_panel = match crate::LESSONS {
        true => {
            html! { <LessonPanel lesson={lesson.clone()} {lab} {lang} embed={state.embed} touch={state.touch} on_courses={open_courses.clone()} /> }
        }
        false => html! {},
    };
    let side_bar = side_bar(&state.selection.side, lang, &on);
    let narration =
        html! { <Narration step={frame.step} text={state.narration.clone()} {lang} scrolls={state.embed} /> };
    if state.embed && comparing.is_none() {
        let (state, canvas, lesson) = (&*state, canvas(), lesson.clone());
        return embed::page(embed::EmbedProps {
            state,
            canvas,
            lesson,
            banners,
            lesson_panel,
            side_bar,
            narration,
            controls,
            card,
        });
    }
    let (subtitle, body) = match (state.experiments(), comparing) {
        // The experiments view, in place of the simulator (whose state is kept meanwhile).
        (Some(_), _) => {
            (String::new(), experiments::page(experiments::ExperimentsProps { state: &state, on: on.clone() }))
        }
        // Compare mode: the lanes, one set of controls on one clock, the table.
        (None, Some(c)) => (
            compare::names(c, lang),
            compare::page(compare::CompareProps {
                state: &state,
                on: on.clone(),
                lane_focus: lane_focus.clone(),
                dots: dots.clone(),
                lane_gestures: lane_gestures.clone(),
                side_bar,
                controls,
            }),
        ),
        (None, None) => (
            String::new(),
            single::page(single::SingleProps {
                state: &state,
                on: on.clone(),
                canvas: canvas(),
                editing: editing.clone(),
                recording: recording.clone(),
                painted,
                in_lesson,
                lesson_panel,
                side_bar,
                narration,
                controls,
            }),
        ),
    };
    drop(engine);
    let head = match (state.embed, comparing.is_some()) {
        // The presenter view: no header, one way out (Escape does the same).
        _ if state.present => html! {
            <header class="present-head">
                <button data-testid="present-exit" onclick={on.reform(|_| Action::TogglePresent)}>{ tr(lang, k::UI_LEAVE_PRESENTER_VIEW) }</button>
                <button data-testid="present-notes" title={tr(lang, k::UI_LECTURERS_NOTES_TITLE)} onclick={Callback::from(|_: MouseEvent| crate::notes::open())}>{ tr(lang, k::UI_LECTURERS_NOTES) }</button>
            </header>
        },
        // A compare embed: the lanes' names and a way out to the full lab.
        (true, _) => html! {
            <header class="embed-head">
                <h1 class="embed-title">{ subtitle }</h1>
                <a class="open-full" href={format!("./{}", state.query(false))} target="_blank" rel="noopener">{ tr(lang, k::UI_OPEN_IN_ELECTION_LAB) }</a>
            </header>
        },
        (false, comparing) => html! {
            <header class="top">
                <h1>{"Election Lab"}<span class="subtitle">{ match (state.experiments().is_some(), comparing) {
                    (true, _) => tr(lang, k::UI_EXPERIMENTS),
                    (false, true) => tr(lang, k::UI_COMPARE_2),
                    (false, false) => tr(lang, k::UI_LEADER_ELECTION_STEP_BY_STEP),
                } }{ subtitle }</span></h1>
                <ScenarioBar preset={state.preset} {comparing} runs={state.lanes().is_some_and(|c| c.runs.is_some())} experiments={state.experiments().is_some()} recorded={election_lab::registry::is_recorded(&state.scenario.algorithm)} lesson={lesson_head} pre_vote={pre_vote} touch={state.touch} {painted} {lang} on={on.clone()} request={request.clone()} />
                // One compact group, under the title on wide screens (see extras.css).
                <div class="top-lessons" role="group" aria-label={tr(lang, k::UI_LESSONS)}>
                    <button class="lessons-button" data-testid="lessons" onclick={open_courses.reform(|_: MouseEvent| ())}>{ tr(lang, k::UI_LESSONS) }</button>
                    <button class="lessons-button" data-testid="record" onclick={{ let (r, on) = (recording.clone(), on.clone()); Callback::from(move |_: MouseEvent| match crate::WORKBENCH {
                        true => r.set(!*r),
                        false => on.emit(Action::OpenTool(crate::state::handoff::RECORD)),
                    }) }}>{ tr(lang, k::UI_RECORD_A_LESSON) }</button>
                    <button class="lessons-button" data-testid="edit-network" aria-pressed={(*editing).to_string()} onclick={{ let (e, on) = (editing.clone(), on.clone()); Callback::from(move |_: MouseEvent| match crate::WORKBENCH {
                        true => e.set(!*e),
                        false => on.emit(Action::OpenTool(crate::state::handoff::TOPOLOGY)),
                    }) }}>{ tr(lang, k::TOPO_EDIT_NETWORK) }</button>
                    <button class="lessons-button" data-testid="present" aria-pressed="false" title={tr(lang, k::UI_PRESENT_TITLE)} onclick={on.reform(|_| Action::TogglePresent)}>{ tr(lang, k::UI_PRESENT) }</button>
                </div>
            </header>
        },
    };
    let picker = match state.dialogs.picker && crate::WORKBENCH {
        true => {
            html! { <Picker scenario={comparing.map_or(state.scenario.clone(), |c| c.scenario.clone())} chosen={cmp::first_choice(&state)} comparing={comparing.is_some()} {lang} on={on.clone()} /> }
        }
        false => html! {},
    };
    // Files dropped anywhere on the page are imported like files chosen with Import….
    let ondragover = Callback::from(|e: DragEvent| e.prevent_default());
    let ondrop = {
        let request = request.clone();
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            let Some(list) = e.data_transfer().and_then(|d| d.files()) else { return };
            let files: Vec<web_sys::File> = (0..list.length()).filter_map(|k| list.get(k)).collect();
            if !files.is_empty() {
                request.emit(Request::ImportFiles(files));
            }
        })
    };
    html! {
        <div class={classes!("lab", comparing.map(|_| "compare"), state.embed.then_some("embed"), state.present.then_some("present"))} {ondragover} {ondrop}>
            { head }
            <main class="lab-main">
                { banners }
                { body }
            </main>
            <ShareDialog share={state.dialogs.share.clone()} {lang} on={on.clone()} />
            <HelpDialog open={state.dialogs.help} {lang} on={on.clone()} />
            { if *courses && crate::LESSONS { html! { <CourseDialog progress={lesson.progress.clone()} {lang} on_close={{ let c = courses.clone(); Callback::from(move |_| c.set(false)) }} on_reset={lesson.dispatcher().to_callback().reform(|_| LessonAction::ResetProgress)} /> } } else { html! {} } }
            { card }
            { picker }
        </div>
    }
}

/// Where a failed load of picture export's DOM side is reported (an alert; the page goes on).
fn export_failed(state: &UseReducerHandle<State>) -> Callback<String> {
    state.dispatcher().to_callback().reform(Action::ExportFailed)
}
