//! The breakpoint list beside the playback controls: add one from a short menu (which fills in
//! the text for this algorithm) or by typing the command line's `--until` text, remove each,
//! step to the previous / next hit. Play stops at the next hit; the hit is named here.
//! Every string of this panel is in this file, in both languages.

use crate::i18n::{tr, Lang};
use crate::state::{hit_text, Action};
use election_lab::breakpoint::Hit;
use election_lab::Algorithm;
use std::rc::Rc;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct BreakpointsProps {
    pub until: Rc<Vec<String>>,
    /// The hit the cursor stands on, if any.
    pub hit: Option<Rc<Hit>>,
    pub error: Option<Rc<String>>,
    pub algorithm: &'static Algorithm,
    pub nodes: Rc<Vec<u32>>,
    pub time: u64,
    pub lang: Lang,
    pub on: Callback<Action>,
}

/// The menu: (value, English, Chinese).
const MENU: &[(&str, &str, &str)] = &[
    ("violation", "a property is violated", "某个性质被违反"),
    ("leaders-change", "the leaders change", "领导者集合变化"),
    ("role", "node X becomes R…", "节点 X 成为角色 R…"),
    ("deliver", "message K delivered…", "K 类消息被送达…"),
    ("time", "time ≥ t…", "时间 ≥ t…"),
];

/// The text a menu entry stands for, for this algorithm (to edit before adding, for the last three).
fn template(choice: &str, alg: &Algorithm, nodes: &[u32], time: u64) -> String {
    let node = nodes.last().copied().unwrap_or(1);
    match choice {
        "role" => {
            let role = alg.roles.iter().map(|r| r.name).find(|r| *r == "leader").or(alg.roles.first().map(|r| r.name));
            format!("role:{node}={}", role.unwrap_or("leader"))
        }
        "deliver" => format!("deliver:{}:to={node}", alg.kinds.first().map_or("MSG", |k| k.name)),
        "time" => format!("time>={}", time + 50),
        other => other.to_string(),
    }
}

#[function_component]
pub fn Breakpoints(p: &BreakpointsProps) -> Html {
    let l = p.lang;
    let input = use_node_ref();
    let add = {
        let (input, on) = (input.clone(), p.on.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            if let Some(i) = input.cast::<HtmlInputElement>() {
                let v = i.value();
                if !v.trim().is_empty() {
                    on.emit(Action::AddBreakpoint(v));
                    i.set_value("");
                }
            }
        })
    };
    let pick = {
        let (input, on, alg, nodes, time) = (input.clone(), p.on.clone(), p.algorithm, p.nodes.clone(), p.time);
        Callback::from(move |e: Event| {
            let Some(sel) = e.target_dyn_into::<HtmlSelectElement>() else { return };
            let choice = sel.value();
            sel.set_value("");
            match choice.as_str() {
                "" => {}
                // Nothing to fill in: added at once.
                "violation" | "leaders-change" => on.emit(Action::AddBreakpoint(choice)),
                _ => {
                    if let Some(i) = input.cast::<HtmlInputElement>() {
                        i.set_value(&template(&choice, alg, &nodes, time));
                        let _ = i.focus();
                    }
                }
            }
        })
    };
    let hit_bp = p.hit.as_ref().map(|h| h.breakpoint.clone());
    html! {
        <section class="breakpoints" aria-label={tr(l, "Breakpoints", "断点")} data-testid="breakpoints">
            <h3>{ tr(l, "Breakpoints", "断点") }
                <span class="hint">{ tr(l, " — Play stops at the next hit", " — 播放会停在下一次命中处") }</span></h3>
            { if p.until.is_empty() { html!{
                <p class="empty">{ tr(l, "None yet: Play runs to the end.", "尚无断点：播放会一直运行到结束。") }</p>
            }} else { html!{
                <ul class="bp-list">
                    { for p.until.iter().enumerate().map(|(i, t)| {
                        let hit = hit_bp.as_deref() == Some(t.as_str());
                        html!{
                            <li class={classes!(hit.then_some("hit"))} data-bp={t.clone()}>
                                <code>{ t }</code>
                                <button class="bp-remove" onclick={p.on.reform(move |_| Action::RemoveBreakpoint(i))}
                                        aria-label={format!("{} {t}", tr(l, "Remove breakpoint", "删除断点"))}
                                        title={tr(l, "Remove", "删除")}>{ "×" }</button>
                            </li>
                        }
                    }) }
                </ul>
            }} }
            <form class="bp-add" onsubmit={add}>
                <select onchange={pick} aria-label={tr(l, "Add a breakpoint: stop when…", "添加断点：在何时停下…")}>
                    <option value="" selected=true>{ tr(l, "Stop when…", "在何时停下…") }</option>
                    { for MENU.iter().map(|(v, en, zh)| html!{ <option value={*v}>{ tr(l, en, zh) }</option> }) }
                </select>
                <input ref={input} type="text" spellcheck="false" placeholder="role:3=leader"
                       aria-label={tr(l, "Breakpoint text (as the command line's --until)", "断点文本（与命令行 --until 相同）")} />
                <button type="submit">{ tr(l, "Add", "添加") }</button>
            </form>
            { match &p.error { Some(e) => html!{ <p class="bp-error" role="alert">{ e.as_str() }</p> }, None => html!{} } }
            <div class="bp-nav">
                <button onclick={p.on.reform(|_| Action::PrevHit)} disabled={p.until.is_empty()}
                        title={tr(l, "Back to the previous hit", "回到上一次命中")}>{ tr(l, "◀ previous hit", "◀ 上一次命中") }</button>
                <button onclick={p.on.reform(|_| Action::NextHit)} disabled={p.until.is_empty()}
                        title={tr(l, "Run on to the next hit at once", "立即运行到下一次命中")}>{ tr(l, "next hit ▶", "下一次命中 ▶") }</button>
            </div>
            { match &p.hit { Some(h) => html!{
                <p class="bp-hit" role="status" data-testid="bp-hit">{ hit_text(h, l) }</p>
            }, None => html!{} } }
        </section>
    }
}
