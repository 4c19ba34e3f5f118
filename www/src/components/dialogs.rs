//! Dialogs: the share dialog (link or embed code) and the keyboard-shortcut help.

use crate::keyboard::HELP;
use crate::state::Action;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ShareProps {
    /// (title, text) while open.
    pub share: Option<Rc<(String, String)>>,
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
                <p>{"Copied to the clipboard (if the browser allowed it). It opens this exact scenario at this exact step."}</p>
                <textarea readonly=true rows="4" data-testid="share-text" value={text.clone()} />
                <button onclick={p.on.reform(|_| Action::CloseShare)}>{"Close"}</button>
            </div>
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct HelpProps {
    pub open: bool,
    pub on: Callback<Action>,
}

#[function_component]
pub fn HelpDialog(p: &HelpProps) -> Html {
    crate::probe::rendered("help");
    if !p.open {
        return html! {};
    }
    html! {
        <div class="overlay" role="dialog" aria-modal="true" aria-label="Keyboard shortcuts" onclick={p.on.reform(|_| Action::ToggleHelp)}>
            <div class="dialog">
                <h2>{"Keyboard shortcuts"}</h2>
                <dl class="kv">{ for HELP.iter().map(|(k, v)| html!{ <><dt><kbd>{ *k }</kbd></dt><dd>{ *v }</dd></> }) }</dl>
                <p>{"Mouse: drag on empty canvas to draw a partition line; drag a line to move it; double-click it (or its ✕) to remove it."}</p>
            </div>
        </div>
    }
}
