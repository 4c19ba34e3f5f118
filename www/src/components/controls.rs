//! Playback controls: step back, play/pause, step forward, reset, the step readout and speed.

use super::icon;
use crate::i18n::{tr, Lang};
use crate::state::{Action, SPEEDS};
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
    pub lang: Lang,
    pub on: Callback<Action>,
}

#[function_component]
pub fn Controls(p: &ControlsProps) -> Html {
    crate::probe::rendered("controls");
    let on = &p.on;
    let l = p.lang;
    let (back, forward) = match p.compare {
        true => (
            tr(
                l,
                "Step back: to the previous tick at which any lane had an event (←)",
                "后退一步：回到任一通道有事件的上一个时刻（←）",
            ),
            tr(
                l,
                "Step forward: to the next tick at which any lane has an event (→)",
                "前进一步：到任一通道有事件的下一个时刻（→）",
            ),
        ),
        false => (tr(l, "Step back (←)", "后退一步（←）"), tr(l, "Step forward (→)", "前进一步（→）")),
    };
    let play_label = if p.playing { tr(l, "Pause", "暂停") } else { tr(l, "Play", "播放") };
    let speed_change = super::maybe(on, |e: Event| {
        let v = e.target_dyn_into::<HtmlSelectElement>()?.value();
        // The option whose value this is, rather than parsing it: no float parser in the wasm.
        SPEEDS.iter().find(|s| s.0.to_string() == v).map(|s| Action::Speed(s.0))
    });
    html! {
        <div class="controls" role="toolbar" aria-label={tr(l, "Playback", "播放控制")}>
            <button onclick={on.reform(|_| Action::StepBack)} aria-label={tr(l, "Step back", "后退一步")} title={back} disabled={p.step == 0}>{ icon("M15 5 L7 12 L15 19 Z M6 5 V19") }</button>
            <button class="play" onclick={on.reform(|_| Action::TogglePlay)} aria-label={play_label} title={tr(l, "Play / pause (Space)", "播放 / 暂停（空格）")}>
                { if p.playing { icon("M7 5 H10 V19 H7 Z M14 5 H17 V19 H14 Z") } else { icon("M8 5 L18 12 L8 19 Z") } }
            </button>
            <button onclick={on.reform(|_| Action::StepForward)} aria-label={tr(l, "Step forward", "前进一步")} title={forward}>{ icon("M9 5 L17 12 L9 19 Z M18 5 V19") }</button>
            <button onclick={on.reform(|_| Action::Reset)} aria-label={tr(l, "Reset", "重置")}
                    title={if p.embed { tr(l, "Reset: back to the step and faults this embed opened with (R)", "重置：回到嵌入页面打开时的步骤与故障（R）") } else { tr(l, "Reset: drop your interventions and go back to step 0 (R)", "重置：撤去所有干预，回到第 0 步（R）") }}>{ tr(l, "Reset", "重置") }</button>
            <span class="readout">
                { if p.compare { html!{} } else { html!{ <>{ tr(l, "step ", "步 ") }<b data-testid="step">{ p.step }</b><span class="sep">{" · "}</span></> } } }
                {"t = "}<b data-testid="time">{ p.time }</b>
            </span>
            { if !p.embed { html!{
                <label class="speed">{ tr(l, "Speed ", "速度 ") }
                    <select onchange={speed_change} aria-label={tr(l, "Speed", "速度")}>
                        { for SPEEDS.iter().map(|&(v, label)| html!{ <option value={v.to_string()} selected={(v - p.speed).abs() < 1e-9}>{ label }</option> }) }
                    </select>
                </label>
            }} else { html!{} } }
        </div>
    }
}
