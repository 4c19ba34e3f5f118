//! The header's scenario bar: preset picker, share, export, import, help.

use crate::state::Action;
use election_lab::presets;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

/// What the bar asks of the browser (handled by the app's effects).
#[derive(Clone, Debug, PartialEq)]
pub enum Request {
    /// Copy a link (`false`) or embed code (`true`) and show it.
    Share(bool),
    Export,
    ImportFile(web_sys::File),
    /// A picture of the canvas (SVG or PNG) to download.
    Picture(crate::export::Options),
}

#[derive(Properties, PartialEq)]
pub struct ScenarioBarProps {
    pub preset: Option<&'static str>,
    pub on: Callback<Action>,
    pub request: Callback<Request>,
}

#[function_component]
pub fn ScenarioBar(p: &ScenarioBarProps) -> Html {
    crate::probe::rendered("scenario-bar");
    let onchange = super::maybe(&p.on, |e: Event| Some(Action::LoadPreset(e.target_dyn_into::<HtmlSelectElement>()?.value())));
    let onfile = super::maybe(&p.request, |e: Event| {
        let input = e.target_dyn_into::<web_sys::HtmlInputElement>()?;
        let file = input.files()?.get(0)?;
        input.set_value("");
        Some(Request::ImportFile(file))
    });
    let hint = p.preset.and_then(presets::find).map(|x| x.hint.en).unwrap_or("Your own scenario.");
    html! {
        <div class="scenario-bar">
            <label>{"Preset "}
                <select {onchange} aria-label="Preset">
                    <option value="" selected={p.preset.is_none()} disabled=true>{"(custom)"}</option>
                    { for presets::all().map(|x| html!{ <option value={x.id} selected={p.preset == Some(x.id)}>{ x.title.en }</option> }) }
                </select>
            </label>
            <button onclick={p.request.reform(|_| Request::Share(false))}>{"Copy link"}</button>
            <button onclick={p.request.reform(|_| Request::Share(true))}>{"Copy embed code"}</button>
            <button onclick={p.request.reform(|_| Request::Export)}>{"Export trace"}</button>
            <super::picture::PictureExport request={p.request.clone()} />
            <label class="file-button">{"Import…"}
                <input type="file" accept=".json,application/json" onchange={onfile} aria-label="Import scenario or trace" data-testid="import" />
            </label>
            <button onclick={p.on.reform(|_| Action::ToggleHelp)} aria-label="Keyboard shortcuts" title="Keyboard shortcuts (?)">{"?"}</button>
            <p class="hint">{ hint }{" Drag on empty canvas to cut the network; click a node to crash or recover it; right-click (or Shift-click) for more."}</p>
        </div>
    }
}
