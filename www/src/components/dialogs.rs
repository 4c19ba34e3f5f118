//! Dialogs: the share dialog (link or embed code) and the keyboard-shortcut help.

use crate::i18n::{tr, Lang};
use crate::keyboard::HELP;
use crate::state::Action;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ShareProps {
    /// (title, text) while open.
    pub share: Option<Rc<(String, String)>>,
    pub lang: Lang,
    pub on: Callback<Action>,
}

#[function_component]
pub fn ShareDialog(p: &ShareProps) -> Html {
    let Some(share) = &p.share else { return html! {} };
    let (title, text) = &**share;
    html! {
        <div class="overlay" role="dialog" aria-modal="true" aria-label={title.clone()} onclick={p.on.reform(|_| Action::CloseShare)}>
            <div class="dialog" onclick={Callback::from(|e: MouseEvent| e.stop_propagation())}>
                <h2>{ title.clone() }</h2>
                <p>{ tr(p.lang, "Copied to the clipboard (if the browser allowed it). It opens this exact scenario at this exact step.", "已复制到剪贴板（若浏览器允许）。打开它会看到完全相同的场景和步骤。") }</p>
                <textarea readonly=true rows="4" data-testid="share-text" value={text.clone()} />
                <button onclick={p.on.reform(|_| Action::CloseShare)}>{ tr(p.lang, "Close", "关闭") }</button>
            </div>
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct HelpProps {
    pub open: bool,
    pub lang: Lang,
    pub on: Callback<Action>,
}

#[function_component]
pub fn HelpDialog(p: &HelpProps) -> Html {
    crate::probe::rendered("help");
    if !p.open {
        return html! {};
    }
    html! {
        <div class="overlay" role="dialog" aria-modal="true" aria-label={tr(p.lang, "Keyboard shortcuts", "键盘快捷键")} onclick={p.on.reform(|_| Action::ToggleHelp)}>
            <div class="dialog">
                <h2>{ tr(p.lang, "Keyboard shortcuts", "键盘快捷键") }</h2>
                <dl class="kv">{ for HELP.iter().map(|(k, en, zh)| html!{ <><dt><kbd>{ *k }</kbd></dt><dd>{ tr(p.lang, en, zh) }</dd></> }) }</dl>
                <p>{ tr(p.lang, "Mouse: drag on empty canvas to draw a partition line; drag a line to move it; double-click it (or its ✕) to remove it.", "鼠标：在画布空白处拖动画出分区线；拖动分区线可移动它；双击它（或点 ✕）可删除。") }</p>
            </div>
        </div>
    }
}
