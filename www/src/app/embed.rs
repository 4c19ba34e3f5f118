//! An embed's page (`?embed=1`, one run): a title, the canvas with banners laid over it, a
//! compact legend, the narration, the controls, and a way out to the full lab.

use crate::components::teach::Legend;
use crate::i18n::tr;
use crate::meta;
use crate::state::lesson::LessonState;
use crate::state::State;
use election_lab::meta::k;
use yew::prelude::*;

pub struct EmbedProps<'a> {
    pub state: &'a State,
    /// The run's canvas, wired by the Lab.
    pub canvas: Html,
    /// The lesson player's state: an open lesson's own words take the legend's and the
    /// narration's room.
    pub lesson: UseReducerHandle<LessonState>,
    pub banners: Html,
    pub lesson_panel: Html,
    pub side_bar: Html,
    pub narration: Html,
    pub controls: Html,
    pub card: Html,
}

pub fn page(props: EmbedProps) -> Html {
    let EmbedProps { state, canvas, lesson, banners, lesson_panel, side_bar, narration, controls, card } = props;
    let canvas = move || canvas;
    let lang = state.lang;
    let frame = &state.frame;
    let algorithm = meta::algorithm_of(&state.scenario);
    // The embed: a title, the canvas with banners laid over it (they never push the
    // controls out of the frame), a compact legend, the narration, the controls, and a way
    // out to the full lab.
    let full = format!("./{}", state.query(false));
    let title =
        state.preset.and_then(election_lab::presets::find).map_or(algorithm.title.get(lang), |p| p.title.get(lang));
    html! {
        <div class="lab embed">
            <header class="embed-head">
                <h1 class="embed-title">{ title }</h1>
                <a class="open-full" href={full} target="_blank" rel="noopener">{ tr(lang, k::UI_OPEN_IN_ELECTION_LAB) }</a>
            </header>
            <main class="embed-main">
                <div class="embed-stage">
                    { canvas() }
                    <div class="embed-banners">{ banners }</div>
                </div>
                { lesson_panel }
                { side_bar }
                // A lesson's own words take the legend's and the narration's room.
                { if lesson.active() { html! {} } else { html! { <>
                    <Legend {algorithm} {lang} compact=true frame={frame.clone()} links={state.scenario.topology.is_some()} />
                    { narration }
                </> } } }
                { controls }
            </main>
            { card }
        </div>
    }
}
