//! Dialogs: the share dialog (link or embed code) and the keyboard-shortcut help.

use crate::i18n::{tr, Lang};
use crate::keyboard::HELP;
use crate::state::Action;
use election_lab::meta::k;
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
                <p>{ tr(p.lang, k::UI_COPIED_TO_THE_CLIPBOARD_IF) }</p>
                <textarea readonly=true rows="4" data-testid="share-text" value={text.clone()} />
                <button onclick={p.on.reform(|_| Action::CloseShare)}>{ tr(p.lang, k::UI_CLOSE) }</button>
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
        <div class="overlay" role="dialog" aria-modal="true" aria-label={tr(p.lang, k::UI_KEYBOARD_SHORTCUTS)} onclick={p.on.reform(|_| Action::ToggleHelp)}>
            <div class="dialog">
                <h2>{ tr(p.lang, k::UI_KEYBOARD_SHORTCUTS) }</h2>
                <dl class="kv">{ for HELP.iter().map(|(key, more, t)| html!{ <><dt><kbd>{ *key }</kbd>{ more.map(|m| tr(p.lang, m)).unwrap_or_default() }</dt><dd>{ tr(p.lang, *t) }</dd></> }) }</dl>
                <p>{ tr(p.lang, k::UI_MOUSE_DRAG_ON_EMPTY_CANVAS) }</p>
                // The guide is published beside the page (`guide/`), but not in the offline file.
                if !crate::lesson_io::is_offline_file() {
                    <p><a href="guide/" target="_blank" rel="noopener">{ tr(p.lang, k::UI_HELP_GUIDE) }</a></p>
                }
            </div>
        </div>
    }
}
