//! "Find a counterexample" on the invariants panel: a button beside each claimed property (and
//! "two leaders at once" where the algorithm does not claim a single leader), then the search's
//! progress bar, Cancel, and how it ended. The search runs in a Web Worker (`crate::worker`).

use crate::i18n::{tr, Lang};
use crate::search_job::Tried;
use crate::state::{Action, Finding, SearchStatus};
use election_lab::meta::k;
use std::rc::Rc;
use yew::prelude::*;

/// The button that starts a search for a counterexample to `property` (named `name`).
pub fn button(property: &'static str, name: &str, busy: bool, lang: Lang, on: &Callback<Action>) -> Html {
    let label = format!("{}{name}", tr(lang, k::UI_FIND_A_COUNTEREXAMPLE_TO));
    html! {
        <button class="find" disabled={busy} aria-label={label} data-testid={format!("find-{property}")}
                onclick={on.reform(move |_| Action::FindCounterexample(property.to_string()))}>
            { tr(lang, k::UI_FIND_A_COUNTEREXAMPLE) }
        </button>
    }
}

fn counts(t: &Tried, lang: Lang) -> String {
    k::ui_0_schedules_1_distinct_states(t.schedules, t.states).render(lang)
}

/// Where the last search stands: progress and Cancel while it runs, then its outcome (one
/// paragraph, with what was tried as data attributes for the benchmark).
pub fn status(search: &Option<Rc<Finding>>, lang: Lang, on: &Callback<Action>) -> Html {
    let Some(s) = search else { return html! {} };
    let name = s.name(lang);
    let (class, text, tried, ms, step) = match &s.status {
        SearchStatus::Running(t) => {
            let what = if t.shrinking {
                k::ui_violated_shrinking_the_schedule_0(t.shrink_runs).render(lang)
            } else {
                format!("{}{name}…", tr(lang, k::UI_SEARCHING_FOR_A_COUNTEREXAMPLE_TO))
            };
            let label = tr(lang, k::UI_COUNTEREXAMPLE_SEARCH);
            let max = t.budget_steps.max(1);
            return html! {
                <div class="search-status running" data-testid="search" data-status="running" aria-live="polite">
                    <p>{ what }</p>
                    <div class="search-bar">
                        <progress max={max.to_string()} value={t.steps.min(max).to_string()} aria-label={label}
                                  aria-valuetext={counts(t, lang)} data-steps={t.steps.to_string()}></progress>
                        <button onclick={on.reform(|_| Action::CancelSearch)} data-testid="search-cancel">{ tr(lang, k::UI_CANCEL) }</button>
                    </div>
                    <p class="search-counts">{ counts(t, lang) }</p>
                </div>
            };
        }
        SearchStatus::Found { step, tried, ms, .. } => (
            "found",
            format!(
                "{}{}{name}{}{}{}",
                k::ui_counterexample_opened_at_step_0(*step).render(lang),
                tr(lang, k::UI_TEXT_6),
                tr(lang, k::UI_TEXT_7),
                counts(tried, lang),
                tr(lang, k::UI_TEXT_8)
            ),
            *tried,
            *ms,
            Some(*step),
        ),
        SearchStatus::NoneFound { tried, ms } => (
            "none",
            format!(
                "{}{name}{}{}",
                tr(lang, k::UI_NO_COUNTEREXAMPLE_TO),
                tr(lang, k::UI_TEXT_9),
                k::ui_none_found_in_0_schedules(tried.schedules, tried.states, tried.steps).render(lang)
            ) + capped(tried, lang).as_str(),
            *tried,
            *ms,
            None,
        ),
        SearchStatus::Cancelled(t) => (
            "cancelled",
            format!("{}{}{}", tr(lang, k::UI_SEARCH_CANCELLED_AFTER), counts(t, lang), tr(lang, k::UI_TEXT_10)),
            *t,
            0.0,
            None,
        ),
        SearchStatus::Failed(why) => {
            ("failed", format!("{}{why}", tr(lang, k::UI_THE_SEARCH_COULD_NOT_RUN)), Tried::default(), 0.0, None)
        }
    };
    let changes = match &s.status {
        SearchStatus::Found { changes: Some(c), .. } => html! {
            <p class="search-changes" data-testid="search-changes">{ format!("{}{}", tr(lang, k::UI_SEARCH_SHRUNK), c.describe(lang)) }</p>
        },
        _ => html! {},
    };
    html! {
        <div class={classes!("search-status", class)} data-testid="search" data-status={class} aria-live="polite">
            <p data-step={step.map(|s| s.to_string())} data-ms={ms.to_string()} data-schedules={tried.schedules.to_string()}
               data-steps={tried.steps.to_string()}>{ text }</p>
            { changes }
        </div>
    }
}

/// Why a search ended before its budget: its tree of explored histories reached the memory cap.
fn capped(tried: &Tried, lang: Lang) -> String {
    if tried.capped_mib == 0 {
        return String::new();
    }
    format!(" {}", k::ui_search_capped(tried.capped_mib).render(lang))
}
