//! Playback controls: step back, play/pause, step forward, reset, the step readout and speed.

use super::icon;
use crate::i18n::{tr, Lang};
use crate::state::{Action, SPEEDS};
use election_lab::meta::k;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ControlsProps {
    pub step: u64,
    pub time: u64,
    pub playing: bool,
    pub speed: f64,
    /// The compact embed view has no speed picker.
    pub embed: bool,
    /// Compare mode: the readout is the shared clock, and a step is a tick of any lane.
    #[prop_or_default]
    pub compare: bool,
    /// The run is in synchronous rounds (`network.model: "rounds"`): the clock reads rounds.
    #[prop_or_default]
    pub rounds: bool,
    pub lang: Lang,
    pub on: Callback<Action>,
}

#[function_component]
pub fn Controls(p: &ControlsProps) -> Html {
    crate::probe::rendered("controls");
    let on = &p.on;
    let l = p.lang;
    let (back, forward) = match p.compare {
        true => (tr(l, k::UI_STEP_BACK_TO_THE_PREVIOUS), tr(l, k::UI_STEP_FORWARD_TO_THE_NEXT)),
        false => (tr(l, k::UI_STEP_BACK), tr(l, k::UI_STEP_FORWARD)),
    };
    let play_label = if p.playing { tr(l, k::UI_PAUSE) } else { tr(l, k::UI_PLAY) };
    let speed_change = super::maybe(on, |e: Event| {
        let v = e.target_dyn_into::<HtmlSelectElement>()?.value();
        // The option whose value this is, rather than parsing it: no float parser in the wasm.
        SPEEDS.iter().find(|s| s.to_string() == v).map(|&s| Action::Speed(s))
    });
    html! {
        <div class="controls" role="toolbar" aria-label={tr(l, k::UI_PLAYBACK)}>
            <button onclick={on.reform(|_| Action::StepBack)} aria-label={tr(l, k::UI_STEP_BACK_2)} title={back} disabled={p.step == 0}>{ icon("M15 5 L7 12 L15 19 Z M6 5 V19") }</button>
            <button class="play" onclick={on.reform(|_| Action::TogglePlay)} aria-label={play_label} title={tr(l, k::UI_PLAY_PAUSE_SPACE)}>
                { if p.playing { icon("M7 5 H10 V19 H7 Z M14 5 H17 V19 H14 Z") } else { icon("M8 5 L18 12 L8 19 Z") } }
            </button>
            <button onclick={on.reform(|_| Action::StepForward)} aria-label={tr(l, k::UI_STEP_FORWARD_2)} title={forward}>{ icon("M9 5 L17 12 L9 19 Z M18 5 V19") }</button>
            <button onclick={on.reform(|_| Action::Reset)} aria-label={tr(l, k::UI_RESET)}
                    title={if p.embed { tr(l, k::UI_RESET_BACK_TO_THE_STEP) } else { tr(l, k::UI_RESET_DROP_YOUR_INTERVENTIONS_AND) }}>{ tr(l, k::UI_RESET) }</button>
            <span class="readout">
                { if p.compare { html!{} } else { html!{ <>{ tr(l, k::UI_STEP_2) }<b data-testid="step">{ p.step }</b><span class="sep">{" · "}</span></> } } }
                { if p.rounds {
                    html!{ <b data-testid="round">{ k::UI_ROUND_N.format(l, &[&p.time]) }</b> }
                } else {
                    html!{ <>{"t = "}<b data-testid="time">{ p.time }</b></> }
                } }
            </span>
            { if !p.embed { html!{
                <label class="speed">{ tr(l, k::UI_SPEED) }
                    <select onchange={speed_change} aria-label={tr(l, k::UI_SPEED_2)}>
                        { for SPEEDS.iter().map(|&v| html!{ <option value={v.to_string()} selected={(v - p.speed).abs() < 1e-9}>{ k::UI_SPEED_RATE.format(p.lang, &[&v]) }</option> }) }
                    </select>
                </label>
            }} else { html!{} } }
        </div>
    }
}
