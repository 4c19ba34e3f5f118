//! An assignment in the page (workbench only): its title and instructions (the checks with their
//! points), Grade with its progress and Cancel, then the checklist — each check's points, passed
//! or failed and why, in the language of the grading, and for a failure the button that opens its
//! run at the failing step — and the report: downloaded as the CLI's JSON, printed (the print
//! style below shows the checklist alone on paper), and posted to a host page that frames the lab
//! as `{type: "election-lab:grade", report}`. The reducer's side is `state/assignment.rs`.

use crate::i18n::{tr, Lang};
use crate::state::assignment::{pick, AssignmentAction, GradeStatus, Taking};
use crate::state::Action;
use election_lab::meta::k;
use serde_json::Value;
use std::rc::Rc;
use wasm_bindgen::JsValue;
use yew::prelude::*;

/// The `type` of the grade event posted to a host page (the embed API's `election-lab`, with the
/// event it carries).
pub const GRADE_EVENT: &str = "election-lab:grade";

/// The panel's look, brought by the workbench; on paper only the checklist and the score show.
const CSS: &str = "\
.assignment .grade-tools { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; margin: 6px 0; }
.assignment ol.checklist { list-style: none; padding: 0; margin: 6px 0; }
.assignment .checklist li { border: 1px solid var(--line); border-left-width: 4px; border-radius: 6px; padding: 6px 8px; margin: 4px 0; }
.assignment .checklist li.pass { border-left-color: var(--ok, #1b6e43); }
.assignment .checklist li.fail { border-left-color: var(--bad); }
.assignment .checklist .head { display: flex; gap: 8px; justify-content: space-between; font-weight: 600; }
.assignment .checklist .reason { margin: 4px 0; white-space: pre-wrap; overflow-wrap: anywhere; }
.assignment .score { font-size: 1.1rem; font-weight: 700; margin: 6px 0; }
@media print {
  body * { visibility: hidden; }
  .assignment, .assignment * { visibility: visible; color: #000 !important; background: #fff !important; }
  .assignment { position: absolute; left: 0; top: 0; width: 100%; border: 0; max-height: none; overflow: visible; }
  .assignment button, .assignment progress, .assignment .hint { display: none !important; }
  .assignment .checklist li { break-inside: avoid; border-color: #000; }
}
";

#[derive(Properties, PartialEq)]
pub struct AssignmentProps {
    pub taking: Rc<Taking>,
    pub lang: Lang,
    pub on: Callback<Action>,
}

/// The page's address, which the report's links point at.
fn base() -> String {
    let Some(loc) = web_sys::window().map(|w| w.location()) else { return String::new() };
    format!("{}{}", loc.origin().unwrap_or_default(), loc.pathname().unwrap_or_default())
}

/// Posts the report to the page that frames the lab, if one does.
fn post_to_host(report: &Value) {
    let Some(window) = web_sys::window() else { return };
    let Some(parent) = window.parent().ok().flatten().filter(|p| !js_sys::Object::is(p, &window)) else { return };
    let o = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&o, &"type".into(), &GRADE_EVENT.into());
    let report = js_sys::JSON::parse(&report.to_string()).unwrap_or(JsValue::NULL);
    let _ = js_sys::Reflect::set(&o, &"report".into(), &report);
    let _ = parent.post_message(&o, "*");
}

fn print() {
    if let Some(w) = web_sys::window() {
        let _ = w.print();
    }
}

/// One check's row: from the report once graded, else from the instructions.
fn row(i: usize, title: &str, points: u64, c: Option<&Value>, lang: Lang, on: &Callback<Action>) -> Html {
    let passed = c.and_then(|c| c["passed"].as_bool());
    let (class, verdict) = match passed {
        Some(true) => ("pass", tr(lang, k::UI_GRADE_PASSED)),
        Some(false) => ("fail", tr(lang, k::UI_GRADE_FAILED)),
        None => ("todo", tr(lang, k::UI_GRADE_NOT_YET)),
    };
    let got = c.and_then(|c| c["points"].as_u64());
    let score = match got {
        Some(g) => k::ui_grade_points(g, points).render(lang),
        None => k::ui_grade_worth(points).render(lang),
    };
    let reason = c.and_then(|c| c["reason"].as_str());
    let step = c.and_then(|c| c["step"].as_u64()).filter(|_| c.is_some_and(|c| c["link"].is_string()));
    html! {
        <li class={class} data-testid="grade-check" data-passed={passed.map(|p| p.to_string())}>
            <div class="head"><span>{ title }</span><span>{ format!("{verdict} · {score}") }</span></div>
            { for reason.map(|r| html! { <p class="reason">{ r }</p> }) }
            { for step.map(|s| html! {
                <button data-testid="grade-open-failure"
                        onclick={on.reform(move |_| Action::Assignment(AssignmentAction::OpenFailure(i)))}>
                    { k::ui_grade_open_failure(s).render(lang) }
                </button>
            }) }
        </li>
    }
}

#[function_component]
pub fn Assignment(p: &AssignmentProps) -> Html {
    let (t, l, on) = (&p.taking, p.lang, &p.on);
    let report = match &t.status {
        GradeStatus::Done(r) => Some(r.clone()),
        _ => None,
    };
    // The host page hears each report once.
    use_effect_with(report.clone(), |r| {
        if let Some(r) = r {
            post_to_host(r);
        }
    });
    let status = match &t.status {
        GradeStatus::Running { done, total } => html! {
            <>
                <progress role="progressbar" aria-label={tr(l, k::UI_GRADING)} value={done.to_string()} max={total.to_string()} />
                <span aria-live="polite">{ k::ui_grading_check(done + 1, *total).render(l) }</span>
                <button data-testid="grade-cancel" onclick={on.reform(|_| Action::Assignment(AssignmentAction::Cancel))}>{ tr(l, k::UI_CANCEL) }</button>
            </>
        },
        GradeStatus::Cancelled => html! { <span role="status">{ tr(l, k::UI_GRADE_CANCELLED) }</span> },
        GradeStatus::Failed(why) => {
            html! { <span role="alert" class="bad">{ k::UI_GRADE_COULD_NOT.format(l, &[why]) }</span> }
        }
        _ => html! {},
    };
    let checks = report.as_ref().and_then(|r| r["checks"].as_array().cloned()).unwrap_or_default();
    let download = report.clone().map(|r| {
        let name = format!("{}-grade.json", t.id);
        Callback::from(move |_: MouseEvent| {
            let text = serde_json::to_string_pretty(&*r).unwrap_or_default();
            crate::effects::download_as(&name, &format!("{text}\n"), "application/json");
        })
    });
    let heading = k::UI_ASSIGNMENT_HEADING.format(l, &[&t.title(l)]);
    html! {
        <section class="panel assignment" aria-label={heading.clone()} data-testid="assignment">
            <style>{ CSS }</style>
            <h2>{ heading }</h2>
            <p class="hint">{ tr(l, k::UI_ASSIGNMENT_HINT) }</p>
            <div class="grade-tools">
                <button class="primary" data-testid="assignment-grade" disabled={t.running()}
                        onclick={on.reform(|_| Action::Assignment(AssignmentAction::Grade(base())))}>{ tr(l, k::UI_GRADE) }</button>
                { status }
                <button data-testid="assignment-close" onclick={on.reform(|_| Action::Assignment(AssignmentAction::Close))}>{ tr(l, k::UI_CLOSE) }</button>
            </div>
            { for report.as_ref().map(|r| html! {
                <p class="score" data-testid="grade-score" data-score={r["score"].to_string()} data-max={r["max"].to_string()}>
                    { k::ui_grade_score(r["score"].as_u64().unwrap_or(0), r["max"].as_u64().unwrap_or(0)).render(l) }
                </p>
            }) }
            <ol class="checklist" data-testid="grade-checklist">
                { for t.checks.iter().enumerate().map(|(i, c)| {
                    let graded = checks.iter().find(|g| g["id"].as_str() == Some(c.id.as_str()));
                    row(i, pick(&c.title, l), c.points, graded, l, on)
                }) }
            </ol>
            { for download.map(|d| html! {
                <div class="grade-tools">
                    <button data-testid="grade-download" onclick={d}>{ tr(l, k::UI_DOWNLOAD_JSON) }</button>
                    <button data-testid="grade-print" onclick={Callback::from(|_: MouseEvent| print())}>{ tr(l, k::UI_GRADE_PRINT) }</button>
                </div>
            }) }
        </section>
    }
}
