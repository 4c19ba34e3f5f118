//! The header's scenario bar: preset picker, share, export, import, help.

use crate::i18n::{tr, Lang};
use crate::state::compare::{PICKER_VALUE, SPLIT_BRAIN};
use crate::state::script::{ScriptAction, WRITE_YOUR_OWN};
use crate::state::Action;
use election_lab::meta::k;
use election_lab::presets;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

pub use crate::request::Request;

#[derive(Properties, PartialEq)]
pub struct ScenarioBarProps {
    pub preset: Option<&'static str>,
    /// Compare mode: the lanes share the preset; one run's tools (card, exports, import) are hidden.
    #[prop_or_default]
    pub comparing: bool,
    /// Compare mode shows two runs (a fork, or an imported trace beside the run).
    #[prop_or_default]
    pub runs: bool,
    /// The experiments view is shown: only the language and the help are offered here.
    #[prop_or_default]
    pub experiments: bool,
    /// The run shown is a real cluster's, read from its logs: offer to replay it in the model.
    #[prop_or_default]
    pub recorded: bool,
    /// A lesson is open on its own scenario: its title and summary, in the page's language; the
    /// title stands where a preset's hint would (not "(custom)" and "Your own scenario").
    #[prop_or_default]
    pub lesson: Option<(String, String)>,
    /// A Raft run: whether it asks pre-votes (the switch replays the run the other way).
    #[prop_or_default]
    pub pre_vote: Option<bool>,
    /// The page is used by touch: the hint names taps, not clicks.
    #[prop_or_default]
    pub touch: bool,
    /// The page's first frame is painted: until then the preset list holds only the preset shown
    /// (its 120-odd options follow a frame later, `effects::use_painted`).
    #[prop_or(true)]
    pub painted: bool,
    pub lang: Lang,
    pub on: Callback<Action>,
    pub request: Callback<Request>,
}

#[function_component]
pub fn ScenarioBar(p: &ScenarioBarProps) -> Html {
    crate::probe::rendered("scenario-bar");
    let onchange = super::maybe(&p.on, |e: Event| {
        let v = e.target_dyn_into::<HtmlSelectElement>()?.value();
        Some(match v.as_str() {
            PICKER_VALUE => Action::ComparePreset,
            WRITE_YOUR_OWN => Action::Script(ScriptAction::Open),
            _ => Action::LoadPreset(v),
        })
    });
    let compare_preset = p.comparing && p.preset == Some(SPLIT_BRAIN.preset);
    // After a swap of bundles asked for here, the focus returns to the picker (once its whole
    // list is drawn: the list of the first frame is another element).
    let picker = use_node_ref();
    use_effect_with(p.painted, {
        let picker = picker.clone();
        move |&painted| {
            if painted && crate::bundle::arrived_from_picker() {
                if let Some(select) = picker.cast::<HtmlSelectElement>() {
                    let _ = select.focus();
                }
            }
        }
    });
    let onfile = super::maybe(&p.request, |e: Event| {
        let input = e.target_dyn_into::<web_sys::HtmlInputElement>()?;
        let list = input.files()?;
        let files: Vec<web_sys::File> = (0..list.length()).filter_map(|k| list.get(k)).collect();
        input.set_value("");
        (!files.is_empty()).then_some(Request::ImportFiles(files))
    });
    let l = p.lang;
    let hint = match (p.comparing, p.preset) {
        (true, _) if p.runs => tr(l, k::UI_TWO_RUNS_ON_ONE_CLOCK),
        (true, Some(id)) if id == SPLIT_BRAIN.preset => SPLIT_BRAIN.hint.get(l),
        (true, _) => tr(l, k::UI_EVERY_LANE_RUNS_THIS_SCENARIO),
        // A lesson's scenario is no "own scenario": the picker says "Lesson" and the lesson's
        // panel gives its title; the hint line keeps to the gestures (one line at 1280 px).
        (false, None) if p.lesson.is_some() => "",
        (false, p) => p.and_then(presets::find).map(|x| x.hint.get(l)).unwrap_or(tr(l, k::UI_YOUR_OWN_SCENARIO)),
    };
    // On touch the gestures are named as taps. A lesson's line holds the gestures only (a phone
    // hides it there: the lesson's card needs the room).
    let gestures =
        if p.touch { tr(l, k::UI_DRAG_ON_EMPTY_CANVAS_TO_TOUCH) } else { tr(l, k::UI_DRAG_ON_EMPTY_CANVAS_TO) };
    let custom = match (&p.lesson, p.preset) {
        (Some(_), None) => tr(l, k::UI_LESSON),
        _ => tr(l, k::UI_CUSTOM),
    };
    let one = !p.comparing;
    let other = if l == Lang::En { Lang::Zh } else { Lang::En };
    let lang_button = html! {
        <button onclick={p.on.reform(move |_| Action::SetLang(other))} data-testid="lang" lang={other.tag()}
                aria-label={tr(l, k::UI_SWITCH_TO_CHINESE)} title={tr(l, k::UI_L)}>{ tr(l, k::UI_OTHER_LANGUAGE) }</button>
    };
    let help_button = html! {
        <button onclick={p.on.reform(|_| Action::ToggleHelp)} aria-label={tr(l, k::UI_KEYBOARD_SHORTCUTS_3)} title={tr(l, k::UI_KEYBOARD_SHORTCUTS_2)}>{"?"}</button>
    };
    if p.experiments {
        return html! { <div class="scenario-bar">{ lang_button }{ help_button }</div> };
    }
    // Presets grouped by algorithm, in registry order; real clusters' recorded runs last: every
    // algorithm of every family (the directory), those of another family than a family player's
    // opening in the full player (`bundle::elsewhere`). Before the first paint, only the group
    // of the preset shown, with that preset alone.
    let listed = |id: &str| p.painted || p.preset == Some(id);
    let algorithms = election_lab::registry::directory().iter();
    let groups = algorithms.filter(|a| a.presets.iter().any(|x| listed(x.id))).map(|a| {
        html! {
            <optgroup label={a.title.get(l)}>
                { for a.presets.iter().filter(|x| listed(x.id)).map(|x| html!{ <option value={x.id} selected={!compare_preset && p.preset == Some(x.id)}>{ x.title.get(l) }</option> }) }
            </optgroup>
        }
    });
    // The hint is the bar's sibling: a phone scrolls the bar sideways and keeps the hint below it.
    html! { <>
        <div class="scenario-bar">
            <label>{ tr(l, k::UI_PRESET) }
                // Made anew with the whole list (a key of its own), so that the option selected is
                // the preset's from the start, not patched into place.
                <select key={if p.painted { "all" } else { "one" }} ref={picker} {onchange} aria-label={tr(l, k::UI_PRESET_2)}>
                    <option value="" selected={p.preset.is_none()} disabled=true>{ custom }</option>
                    <optgroup label={tr(l, k::UI_COMPARE_SIDE_BY_SIDE)}>
                        <option value={PICKER_VALUE} selected={compare_preset}>{ tr(l, k::COMPARE_TITLE) }</option>
                    </optgroup>
                    { for groups }
                    <optgroup label={tr(l, k::UI_SCRIPT_YOUR_ALGORITHM)}>
                        <option value={WRITE_YOUR_OWN} data-testid="write-your-own">{ tr(l, k::UI_SCRIPT_WRITE_YOUR_OWN) }</option>
                    </optgroup>
                </select>
            </label>
            <button onclick={p.on.reform(|_| Action::TogglePicker)} data-testid="compare" title={tr(l, k::UI_COMPARE_2_TO_4_ALGORITHMS)}>{ tr(l, k::UI_COMPARE_4) }</button>
            { if p.comparing { html!{
                <button onclick={p.on.reform(|_| Action::CloseCompare)} data-testid="close-compare" title={tr(l, k::UI_BACK_TO_ONE_ALGORITHM_THE)}>{ tr(l, k::UI_CLOSE_COMPARE) }</button>
            } } else { html!{} } }
            { if one { html!{ <button onclick={p.on.reform(|_| Action::ToggleCard)} data-testid="how-it-works">{ tr(l, k::UI_HOW_IT_WORKS) }</button> } } else { html!{} } }
            { match p.pre_vote.filter(|_| one) {
                Some(on) => {
                    let state = if on { tr(l, k::UI_ON) } else { tr(l, k::UI_OFF) };
                    html!{ <button onclick={p.request.reform(|_| Request::TogglePreVote)} data-testid="pre-vote" aria-pressed={on.to_string()}
                                   title={tr(l, k::UI_PRE_VOTE_TITLE)}>{ k::UI_PRE_VOTE_TOGGLE.format(l, &[&state]) }</button> }
                }
                None => html!{},
            } }
            <button onclick={p.request.reform(|_| Request::Share(false))}>{ tr(l, k::UI_COPY_LINK) }</button>
            <button onclick={p.request.reform(|_| Request::Share(true))}>{ tr(l, k::UI_COPY_EMBED_CODE) }</button>
            { if one { html!{ <>
                <button onclick={p.request.reform(|_| Request::Export)}>{ tr(l, k::UI_EXPORT_TRACE) }</button>
                <super::picture::PictureExport request={p.request.clone()} lang={p.lang} />
                <label class="file-button" title={tr(l, k::UI_IMPORT_A_SCENARIO_OR_TRACE)}>{ tr(l, k::UI_IMPORT) }
                    <input type="file" multiple=true accept=".json,.log,.txt,application/json,text/plain" onchange={onfile} aria-label={tr(l, k::UI_IMPORT_SCENARIO_OR_TRACE)} data-testid="import" />
                </label>
                { if p.recorded { html!{
                    <button onclick={p.on.reform(|_| Action::ReplayModel)} data-testid="replay-model" title={tr(l, k::UI_THE_TEXTBOOK_ALGORITHM_ON_THE)}>{ tr(l, k::UI_REPLAY_IN_THE_SIMULATOR) }</button>
                } } else { html!{} } }
            </> } } else { html!{} } }
            <button onclick={p.on.reform(|_| Action::ToggleExperiments)} data-testid="open-experiments"
                    title={tr(l, k::UI_EXPERIMENTS_MANY_RUNS_OVER_RANDOM)}>{ tr(l, k::UI_EXPERIMENTS_3) }</button>
            { lang_button }
            { help_button }
        </div>
        <p class={classes!("hint", hint.is_empty().then_some("gestures-only"))}>{ hint }{ gestures }</p>
    </> }
}
