//! The header's scenario bar: preset picker, share, export, import, help.

use crate::i18n::{tr, Lang};
use crate::state::compare::{PICKER_VALUE, SPLIT_BRAIN};
use crate::state::Action;
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
    pub lang: Lang,
    pub on: Callback<Action>,
    pub request: Callback<Request>,
}

#[function_component]
pub fn ScenarioBar(p: &ScenarioBarProps) -> Html {
    crate::probe::rendered("scenario-bar");
    let onchange = super::maybe(&p.on, |e: Event| {
        let v = e.target_dyn_into::<HtmlSelectElement>()?.value();
        Some(if v == PICKER_VALUE { Action::ComparePreset } else { Action::LoadPreset(v) })
    });
    let compare_preset = p.comparing && p.preset == Some(SPLIT_BRAIN.preset);
    let onfile = super::maybe(&p.request, |e: Event| {
        let input = e.target_dyn_into::<web_sys::HtmlInputElement>()?;
        let list = input.files()?;
        let files: Vec<web_sys::File> = (0..list.length()).filter_map(|k| list.get(k)).collect();
        input.set_value("");
        (!files.is_empty()).then_some(Request::ImportFiles(files))
    });
    let l = p.lang;
    let hint = match (p.comparing, p.preset) {
        (true, _) if p.runs => tr(
            l,
            "Two runs on one clock: a fault made in either lane happens in both.",
            "两次运行共用一个时钟：在任一通道制造的故障会同时发生在两个通道。",
        ),
        (true, Some(id)) if id == SPLIT_BRAIN.preset => SPLIT_BRAIN.hint.get(l),
        (true, _) => {
            tr(l, "Every lane runs this scenario with its own algorithm.", "每个通道用自己的算法运行这个场景。")
        }
        (false, p) => {
            p.and_then(presets::find).map(|x| x.hint.get(l)).unwrap_or(tr(l, "Your own scenario.", "你自己的场景。"))
        }
    };
    let one = !p.comparing;
    let other = if l == Lang::En { Lang::Zh } else { Lang::En };
    let lang_button = html! {
        <button onclick={p.on.reform(move |_| Action::SetLang(other))} data-testid="lang" lang={other.tag()}
                aria-label={tr(l, "中文 — switch to Chinese", "English — 切换到英文")} title={tr(l, "中文 (L)", "English (L)")}>{ tr(l, "中文", "English") }</button>
    };
    let help_button = html! {
        <button onclick={p.on.reform(|_| Action::ToggleHelp)} aria-label={tr(l, "? Keyboard shortcuts", "? 键盘快捷键")} title={tr(l, "Keyboard shortcuts (?)", "键盘快捷键（?）")}>{"?"}</button>
    };
    if p.experiments {
        return html! { <div class="scenario-bar">{ lang_button }{ help_button }</div> };
    }
    // Presets grouped by algorithm, in registry order; real clusters' recorded runs last.
    let groups = election_lab::registry::all().iter().chain(election_lab::registry::recorded()).map(|a| {
        html! {
            <optgroup label={a.title.get(l)}>
                { for a.presets.iter().map(|x| html!{ <option value={x.id} selected={!compare_preset && p.preset == Some(x.id)}>{ x.title.get(l) }</option> }) }
            </optgroup>
        }
    });
    html! {
        <div class="scenario-bar">
            <label>{ tr(l, "Preset ", "预设 ") }
                <select {onchange} aria-label={tr(l, "Preset", "预设")}>
                    <option value="" selected={p.preset.is_none()} disabled=true>{ tr(l, "(custom)", "（自定义）") }</option>
                    <optgroup label={tr(l, "Compare side by side", "并排对比")}>
                        <option value={PICKER_VALUE} selected={compare_preset}>{ SPLIT_BRAIN.title.get(l) }</option>
                    </optgroup>
                    { for groups }
                </select>
            </label>
            <button onclick={p.on.reform(|_| Action::TogglePicker)} data-testid="compare" title={tr(l, "Compare 2 to 4 algorithms side by side (V)", "并排对比 2 到 4 个算法（V）")}>{ tr(l, "Compare…", "对比…") }</button>
            { if p.comparing { html!{
                <button onclick={p.on.reform(|_| Action::CloseCompare)} data-testid="close-compare" title={tr(l, "Back to one algorithm, the scenario's own, with the faults and the time kept", "回到单个算法（场景本身的算法），保留故障与时间")}>{ tr(l, "Close compare", "退出对比") }</button>
            } } else { html!{} } }
            { if one { html!{ <button onclick={p.on.reform(|_| Action::ToggleCard)} data-testid="how-it-works">{ tr(l, "How it works", "原理") }</button> } } else { html!{} } }
            <button onclick={p.request.reform(|_| Request::Share(false))}>{ tr(l, "Copy link", "复制链接") }</button>
            <button onclick={p.request.reform(|_| Request::Share(true))}>{ tr(l, "Copy embed code", "复制嵌入代码") }</button>
            { if one { html!{ <>
                <button onclick={p.request.reform(|_| Request::Export)}>{ tr(l, "Export trace", "导出轨迹") }</button>
                <super::picture::PictureExport request={p.request.clone()} lang={p.lang} />
                <label class="file-button" title={crate::state::import_title(l)}>{ tr(l, "Import…", "导入…") }
                    <input type="file" multiple=true accept=".json,.log,.txt,application/json,text/plain" onchange={onfile} aria-label={tr(l, "Import scenario or trace", "导入场景或轨迹")} data-testid="import" />
                </label>
                { if p.recorded { html!{
                    <button onclick={p.on.reform(|_| Action::ReplayModel)} data-testid="replay-model" title={crate::state::replay_title(l)}>{ crate::state::replay_label(l) }</button>
                } } else { html!{} } }
            </> } } else { html!{} } }
            <button onclick={p.on.reform(|_| Action::ToggleExperiments)} data-testid="open-experiments"
                    title={tr(l, "Experiments: many runs over random seeds, plotted (X)", "实验：用许多随机种子运行并绘图（X）")}>{ tr(l, "Experiments…", "实验…") }</button>
            { lang_button }
            { help_button }
            <p class="hint">{ hint }{ tr(l, " Drag on empty canvas to cut the network; click a node to crash or recover it; right-click (or Shift-click) for more.", " 在画布空白处拖动可切断网络；点击节点使其崩溃或恢复；右键（或 Shift+点击）查看更多操作。") }</p>
        </div>
    }
}
