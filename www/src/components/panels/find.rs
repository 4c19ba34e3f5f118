//! "Find a counterexample" on the invariants panel: a button beside each claimed property (and
//! "two leaders at once" where the algorithm does not claim a single leader), then the search's
//! progress bar, Cancel, and how it ended. The search runs in a Web Worker (`crate::worker`).

use crate::i18n::{tr, Lang};
use crate::search_job::Tried;
use crate::state::{fill, Action, Finding, SearchStatus};
use std::rc::Rc;
use yew::prelude::*;

/// The button that starts a search for a counterexample to `property` (named `name`).
pub fn button(property: &'static str, name: &str, busy: bool, lang: Lang, on: &Callback<Action>) -> Html {
    let label = format!("{}{name}", tr(lang, "Find a counterexample to ", "寻找反例："));
    html! {
        <button class="find" disabled={busy} aria-label={label} data-testid={format!("find-{property}")}
                onclick={on.reform(move |_| Action::FindCounterexample(property.to_string()))}>
            { tr(lang, "Find a counterexample", "寻找反例") }
        </button>
    }
}

fn counts(t: &Tried, lang: Lang) -> String {
    fill(tr(lang, "{0} schedules, {1} distinct states", "{0} 个调度，{1} 个不同状态"), &[t.schedules, t.states])
}

/// Where the last search stands: progress and Cancel while it runs, then its outcome (one
/// paragraph, with what was tried as data attributes for the benchmark).
pub fn status(search: &Option<Rc<Finding>>, lang: Lang, on: &Callback<Action>) -> Html {
    let Some(s) = search else { return html! {} };
    let name = s.name(lang);
    let (class, text, tried, ms, step) = match &s.status {
        SearchStatus::Running(t) => {
            let what = if t.shrinking {
                fill(
                    tr(
                        lang,
                        "Violated; shrinking the schedule ({0} runs)…",
                        "已违反；正在化简该调度（已运行 {0} 次）…",
                    ),
                    &[t.shrink_runs],
                )
            } else {
                format!("{}{name}…", tr(lang, "Searching for a counterexample to ", "正在寻找反例："))
            };
            let label = tr(lang, "Counterexample search", "反例搜索");
            let max = t.budget_steps.max(1);
            return html! {
                <div class="search-status running" data-testid="search" data-status="running" aria-live="polite">
                    <p>{ what }</p>
                    <div class="search-bar">
                        <progress max={max.to_string()} value={t.steps.min(max).to_string()} aria-label={label}
                                  aria-valuetext={counts(t, lang)} data-steps={t.steps.to_string()}></progress>
                        <button onclick={on.reform(|_| Action::CancelSearch)} data-testid="search-cancel">{ tr(lang, "Cancel", "取消") }</button>
                    </div>
                    <p class="search-counts">{ counts(t, lang) }</p>
                </div>
            };
        }
        SearchStatus::Found { step, tried, ms } => (
            "found",
            format!(
                "{}{}{name}{}{}{}",
                fill(tr(lang, "Counterexample opened at step {0}", "反例已打开，停在第 {0} 步"), &[*step]),
                tr(lang, " (", "（"),
                tr(lang, "; ", "；"),
                counts(tried, lang),
                tr(lang, ").", "）。")
            ),
            *tried,
            *ms,
            Some(*step),
        ),
        SearchStatus::NoneFound { tried, ms } => (
            "none",
            format!(
                "{}{name}{}{}",
                tr(lang, "No counterexample to ", "未找到反例（"),
                tr(lang, ": ", "）："),
                fill(
                    tr(
                        lang,
                        "none found in {0} schedules, {1} distinct states ({2} steps).",
                        "在 {0} 个调度、{1} 个不同状态（{2} 步）中均未找到。"
                    ),
                    &[tried.schedules, tried.states, tried.steps]
                )
            ),
            *tried,
            *ms,
            None,
        ),
        SearchStatus::Cancelled(t) => (
            "cancelled",
            format!(
                "{}{}{}",
                tr(lang, "Search cancelled after ", "搜索已取消，此前已尝试 "),
                counts(t, lang),
                tr(lang, ".", "。")
            ),
            *t,
            0.0,
            None,
        ),
        SearchStatus::Failed(why) => (
            "failed",
            format!("{}{why}", tr(lang, "The search could not run: ", "搜索无法运行：")),
            Tried::default(),
            0.0,
            None,
        ),
    };
    html! {
        <div class={classes!("search-status", class)} data-testid="search" data-status={class} aria-live="polite">
            <p data-step={step.map(|s| s.to_string())} data-ms={ms.to_string()} data-schedules={tried.schedules.to_string()}
               data-steps={tried.steps.to_string()}>{ text }</p>
        </div>
    }
}
