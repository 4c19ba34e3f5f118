//! The lesson panel: the current stop's caption, its question (answered by clicking a node on
//! the canvas, a choice, a number, yes or no) and the verdict with its explanation, an act's
//! prompt while the run waits for it, Free play / Resume, and the course list.

use crate::i18n::{tr, Lang};
use crate::lesson_io::Entry;
use crate::state::lesson::{LabView, LessonAction, LessonState, Phase, Progress, COMPUTE_SLICE};
use election_lab::lesson::{Answer, AnswerKind};
use election_lab::meta::k;
use std::rc::Rc;
use yew::prelude::*;

mod touch;

#[derive(Properties, PartialEq)]
pub struct PanelProps {
    pub lesson: UseReducerHandle<LessonState>,
    /// The lab now (what Continue starts from), and its trace JSON maker for Free play.
    pub lab: LabView,
    pub lang: Lang,
    pub embed: bool,
    /// The page is used by touch: a node is tapped, not clicked.
    #[prop_or_default]
    pub touch: bool,
    pub on_courses: Callback<()>,
}

fn yes_no(lang: Lang, b: bool) -> &'static str {
    if b {
        tr(lang, k::UI_YES)
    } else {
        tr(lang, k::UI_NO)
    }
}

/// An answer in words, in the page's language.
pub(crate) fn answer_text(a: &Answer, lang: Lang) -> String {
    match a {
        Answer::Node(None) => tr(lang, k::UI_NOBODY).to_string(),
        Answer::YesNo(b) => yes_no(lang, *b).to_string(),
        other => other.text(),
    }
}

/// The controls that answer a question of `kind`.
fn ask(kind: AnswerKind, choices: &[String], lang: Lang, touch: bool, on: &Callback<LessonAction>) -> Html {
    let answer = |a: Answer| on.reform(move |_: MouseEvent| LessonAction::Answer(a.clone()));
    match kind {
        AnswerKind::Node => html! {
            <p class="lesson-answer" key="ask-node" data-testid="lesson-ask-node">
                { tr(lang, if touch { k::UI_TAP_THE_NODE_ON_THE_CANVAS } else { k::UI_CLICK_THE_NODE_ON_THE }) }
                <button onclick={answer(Answer::Node(None))}>{ tr(lang, k::UI_NOBODY_2) }</button>
            </p>
        },
        AnswerKind::Choice => html! {
            <p class="lesson-answer" role="group" aria-label={tr(lang, k::UI_CHOICES)}>
                { for choices.iter().map(|c| html!{ <button data-testid="lesson-choice" onclick={answer(Answer::Choice(c.clone()))}>{ c.clone() }</button> }) }
            </p>
        },
        AnswerKind::YesNo => html! {
            <p class="lesson-answer" role="group" aria-label={tr(lang, k::UI_YES_OR_NO)}>
                <button data-testid="lesson-yes" onclick={answer(Answer::YesNo(true))}>{ tr(lang, k::UI_YES_2) }</button>
                <button data-testid="lesson-no" onclick={answer(Answer::YesNo(false))}>{ tr(lang, k::UI_NO_2) }</button>
            </p>
        },
        AnswerKind::Number => {
            let on = on.clone();
            let onsubmit = Callback::from(move |e: SubmitEvent| {
                e.prevent_default();
                use wasm_bindgen::JsCast;
                let form = e.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok());
                let input = form
                    .and_then(|f| f.query_selector("input").ok().flatten())
                    .and_then(|i| i.dyn_into::<web_sys::HtmlInputElement>().ok());
                let Some(input) = input else { return };
                // Read as typed on any keyboard (21.7, 21,7, ２２); anything else is refused by
                // name, in the field.
                match election_lab::lesson::parse_number(&input.value()) {
                    Some(a) => {
                        input.set_custom_validity("");
                        on.emit(LessonAction::Answer(a));
                    }
                    None => {
                        input.set_custom_validity(tr(lang, k::UI_LESSON_NOT_A_NUMBER));
                        input.report_validity();
                    }
                }
            });
            let clear = Callback::from(|e: InputEvent| {
                use wasm_bindgen::JsCast;
                if let Some(i) = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) {
                    i.set_custom_validity("");
                }
            });
            html! {
                <form class="lesson-answer" {onsubmit}>
                    <label>{ tr(lang, k::UI_YOUR_ANSWER) }
                        <input name="n" type="text" inputmode="decimal" size="10" data-testid="lesson-number" oninput={clear} /></label>
                    <button type="submit" data-testid="lesson-check">{ tr(lang, k::UI_CHECK) }</button>
                </form>
            }
        }
    }
}

/// A number answer's grading: the run's exact value and the range accepted around it (for a
/// question with a tolerance; an exact question says nothing more).
fn range(q: &election_lab::lesson::Question, expected: &Answer, lang: Lang) -> Html {
    use election_lab::lesson::{grade::show, Tolerance};
    let (Some((lo, hi)), Some(value)) = (q.accepted(expected), expected.value()) else { return html! {} };
    let tol = match q.tolerance() {
        Tolerance::Relative(r) => format!("±{} %", show(r * 100.0)),
        Tolerance::Absolute(d) => format!("±{}", show(d)),
        Tolerance::Exact => String::new(),
    };
    let text = k::UI_LESSON_ACCEPTED_RANGE.format(lang, &[&show(value), &show(lo.max(0.0)), &show(hi), &tol]);
    html! { <p class="lesson-range" data-testid="lesson-range">{ text }</p> }
}

/// While a heavy answer is computed: one slice per task (a timeout), so the page draws between.
#[hook]
fn use_compute(lesson: &UseReducerHandle<LessonState>) {
    let slot = use_mut_ref(|| None::<gloo_timers::callback::Timeout>);
    let on = lesson.dispatcher();
    use_effect_with((lesson.computing.is_some(), lesson.computed), move |(busy, _)| {
        *slot.borrow_mut() = busy
            .then(|| gloo_timers::callback::Timeout::new(0, move || on.dispatch(LessonAction::Compute(COMPUTE_SLICE))));
    });
}

/// How far a heavy answer is, and the student's answer waiting for it.
fn computing(s: &LessonState, lang: Lang) -> Html {
    if s.computing.is_none() {
        return html! {};
    }
    let (done, runs, steps) = s.computed;
    let text = if runs > 1 {
        k::ui_lesson_computing_runs(done, runs).render(lang)
    } else {
        k::ui_lesson_computing_steps(steps).render(lang)
    };
    html! { <>
        <p class="lesson-wait" role="status" data-testid="lesson-computing">{ text }</p>
        { for s.pending.as_ref().map(|a| html! { <p class="lesson-pending">{ k::UI_LESSON_ANSWER_PENDING.format(lang, &[&answer_text(a, lang)]) }</p> }) }
    </> }
}

/// The lesson panel (nothing when no lesson is open).
#[function_component]
pub fn LessonPanel(p: &PanelProps) -> Html {
    use_compute(&p.lesson);
    let s = &*p.lesson;
    let Some(lesson) = s.lesson.clone() else {
        return match &s.error {
            Some(e) => {
                html! { <section class="lesson-panel" role="alert" data-testid="lesson-error">{ e.to_string() }</section> }
            }
            None => html! {},
        };
    };
    let lang = p.lang;
    let on: Callback<LessonAction> = p.lesson.dispatcher().to_callback();
    let lab = p.lab.clone();
    let cont = {
        let (on, lab) = (on.clone(), lab.clone());
        Callback::from(move |_: MouseEvent| on.emit(LessonAction::Continue(lab.clone(), true)))
    };
    let skip = {
        let (on, lab) = (on.clone(), lab.clone());
        Callback::from(move |_: MouseEvent| on.emit(LessonAction::Continue(lab.clone(), false)))
    };
    if s.free {
        return html! {
            <section class="lesson-panel free" aria-label={tr(lang, k::UI_LESSON)} data-testid="lesson">
                <span>{ tr(lang, k::UI_FREE_PLAY_THE_LESSON_WAITS) }{ s.stop + 1 }{ tr(lang, k::UI_TEXT_4) }</span>
                <button data-testid="lesson-resume" onclick={on.reform(|_| LessonAction::Resume)}>{ tr(lang, k::UI_RESUME_LESSON) }</button>
            </section>
        };
    }
    // On a touch screen the lesson's words name taps and long presses, not clicks.
    let say = |t: &election_lab::lesson::Bilingual| {
        if p.touch {
            touch::words(t.get(lang), lang)
        } else {
            t.get(lang).to_string()
        }
    };
    let n = lesson.stops.len();
    let stop = lesson.stops.get(s.stop);
    let body = match (&s.phase, stop) {
        (Phase::Done, _) | (_, None) => html! { <>
            // A lesson without a challenge (one recorded in the page) just ends.
            { for lesson.challenge.as_ref().map(|c| html! { <>
                <p class="lesson-caption" data-testid="lesson-caption">{ say(&c.caption) }</p>
                <details><summary>{ tr(lang, k::UI_HINT) }</summary><p>{ say(&c.hint) }</p></details>
            </> }) }
            <p class="lesson-done" data-testid="lesson-done">{ tr(lang, k::UI_LESSON_COMPLETE_FREE_PLAY_IS) }</p>
        </> },
        (Phase::Opening, _) => html! { <p>{ tr(lang, k::UI_OPENING_THE_LESSON) }</p> },
        (Phase::Travel { act: false, .. }, Some(_)) => html! {
            // Keyed, here and at a stop, so that the page replaces this button rather than
            // turning it into an answer button in place when the stop arrives: a click in flight
            // on "Jump there" must not answer the question.
            <p class="lesson-travel" key="travel">{ tr(lang, k::UI_ON_THE_WAY_TO_THE) }
                <button data-testid="lesson-skip" onclick={skip.clone()}>{ tr(lang, k::UI_JUMP_THERE) }</button></p>
        },
        (phase, Some(stop)) => {
            let caption = html! { <p class="lesson-caption" key={format!("stop-{}", s.stop)} data-testid="lesson-caption">{ say(&stop.caption) }</p> };
            let next = html! { <button class="lesson-next" data-testid="lesson-continue" onclick={cont.clone()}>{ if s.stop + 1 < n { tr(lang, k::UI_CONTINUE) } else { tr(lang, k::UI_FINISH) } }</button> };
            let rest = if let Some(act) = &stop.act {
                if s.act_met {
                    html! { <><p class="lesson-verdict right" role="status" data-testid="lesson-act-met">{ tr(lang, k::UI_THE_RUN_SHOWS_IT) }</p>{ next }</> }
                } else {
                    let waiting = matches!(phase, Phase::Travel { act: true, .. });
                    html! { <>
                        <p class="lesson-prompt" data-testid="lesson-act">{ say(&act.prompt) }</p>
                        <p class="lesson-wait" role="status">{ if waiting { tr(lang, k::UI_PLAYING_UNTIL_THE_RUN_SHOWS) } else { tr(lang, k::UI_THE_LESSON_WAITS_UNTIL_THE) } }
                            <button data-testid="lesson-show-me" onclick={on.reform(|_| LessonAction::ShowMe)}>{ tr(lang, k::UI_SHOW_ME) }</button></p>
                    </> }
                }
            } else if let Some(q) = &stop.question {
                let prompt = html! { <p class="lesson-prompt" data-testid="lesson-prompt">{ say(&q.prompt) }</p> };
                match (&s.verdict, &s.expected) {
                    (Some(v), _) => html! { <>
                        { prompt }
                        <p class={classes!("lesson-verdict", if v.right { "right" } else { "wrong" })} role="status" data-testid="lesson-verdict">
                            { if v.right { tr(lang, k::UI_RIGHT) } else { tr(lang, k::UI_NOT_QUITE_YOU_SAID) } }
                            { if v.right { String::new() } else { format!("{}{}", answer_text(&v.given, lang), tr(lang, k::UI_THE_RUN_SAYS)) } }
                            <b>{ answer_text(&v.expected, lang) }</b>{ tr(lang, k::UI_TEXT_10) }
                        </p>
                        { range(q, &v.expected, lang) }
                        <p class="lesson-explain" data-testid="lesson-explain">{ say(&q.explain) }</p>
                        { next.clone() }
                    </> },
                    (None, Some(Err(e))) => html! { <>{ prompt }<p role="alert">{ e.clone() }</p>{ next.clone() }</> },
                    (None, _) if s.pending.is_some() => html! { <>{ prompt }{ computing(s, lang) }</> },
                    (None, _) => {
                        html! { <>{ prompt }{ ask(q.check.answer_kind(), &q.choices, lang, p.touch, &on) }{ computing(s, lang) }</> }
                    }
                }
            } else {
                next
            };
            html! { <>{ caption }{ badge(stop, &lesson.scenario.algorithm, lang) }{ rest }</> }
        }
    };
    let free = {
        let (on, lab) = (on.clone(), lab.clone());
        Callback::from(move |_: MouseEvent| {
            on.emit(LessonAction::FreePlay(election_lab::write_json(&lab.engine.get().trace_value())))
        })
    };
    let position = match s.phase {
        Phase::Done if lesson.challenge.is_some() => tr(lang, k::UI_CHALLENGE).to_string(),
        _ => format!("{}{} / {n}{}", tr(lang, k::UI_STOP), (s.stop + 1).min(n), tr(lang, k::UI_TEXT_5)),
    };
    html! {
        <section class={classes!("lesson-panel", p.embed.then_some("compact"))} aria-label={tr(lang, k::UI_LESSON)} data-testid="lesson" data-stop={s.stop.to_string()}>
            <header class="lesson-head">
                <h2>{ lesson.title.get(lang).to_string() }<span class="lesson-pos" data-testid="lesson-pos">{ position }</span></h2>
                <span class="lesson-tools">
                    <button data-testid="lesson-free" onclick={free}>{ tr(lang, k::UI_FREE_PLAY) }</button>
                    <button onclick={on.reform(|_| LessonAction::Restart)}>{ tr(lang, k::UI_RESTART) }</button>
                    { if p.embed { html!{} } else { html!{ <button onclick={p.on_courses.reform(|_| ())}>{ tr(lang, k::UI_ALL_LESSONS) }</button> } } }
                </span>
            </header>
            { body }
        </section>
    }
}

/// The course as SCORM packages for an LMS (`make build` publishes them under `scorm/`; the
/// offline file has nothing beside it, so it offers none). Raw markup, the cheapest for the first
/// load; the catalog's texts carry no markup.
fn scorm_links(lang: Lang) -> Html {
    if crate::lesson_io::is_offline_file() {
        return html! {};
    }
    let link = |v: &str, text| format!(r#"<a href="./scorm/election-lab-course-scorm{v}.zip" download>{text}</a>"#);
    Html::from_html_unchecked(AttrValue::from(format!(
        r#"<p class="course-scorm" data-testid="course-scorm">{} {} · {}</p>"#,
        tr(lang, k::UI_SCORM_PACKAGES),
        link("12", tr(lang, k::UI_SCORM_12)),
        link("2004", tr(lang, k::UI_SCORM_2004)),
    )))
}

#[derive(Properties, PartialEq)]
pub struct CourseProps {
    pub progress: Rc<Progress>,
    pub lang: Lang,
    pub on_close: Callback<()>,
    pub on_reset: Callback<()>,
}

/// The course: every built-in lesson with the student's progress, and a way to forget it.
#[function_component]
pub fn CourseDialog(p: &CourseProps) -> Html {
    let lang = p.lang;
    let course = use_state(|| None::<Rc<Result<Vec<Entry>, String>>>);
    {
        let course = course.clone();
        use_effect_with((), move |_| {
            crate::lesson_io::load_course(Callback::from(move |r| course.set(Some(Rc::new(r)))))
        });
    }
    let list = match (*course).as_deref() {
        None => html! { <p>{ tr(lang, k::UI_LOADING_THE_COURSE) }</p> },
        Some(Err(e)) => html! { <p role="alert">{ e.clone() }</p> },
        Some(Ok(entries)) => html! {
            <ol class="course-list" data-testid="course-list">
                { for entries.iter().map(|e| {
                    let saved = p.progress.lessons.get(&e.id);
                    let status = match saved {
                        Some(s) if s.done => tr(lang, k::UI_DONE).to_string(),
                        Some(s) => format!("{} {}", tr(lang, k::UI_AT_STOP), s.stop + 1),
                        None => String::new(),
                    };
                    let title = if lang == Lang::Zh { &e.title.1 } else { &e.title.0 };
                    // Only the query changes, so the link stays on this page whatever its file's name
                    // (the offline file, a package's copy in an LMS).
                    let href = format!("?lesson={}&lang={}", crate::link::encode(&e.id), lang.tag());
                    html!{ <li><a href={href}>{ title.clone() }</a>{" "}<span class="course-status">{ status }</span></li> }
                }) }
            </ol>
        },
    };
    html! {
        <div class="overlay" role="dialog" aria-modal="true" aria-label={tr(lang, k::UI_LESSONS)} onclick={p.on_close.reform(|_| ())}>
            <div class="dialog course" data-testid="course" onclick={Callback::from(|e: MouseEvent| e.stop_propagation())}>
                <h2>{ tr(lang, k::UI_LESSONS) }</h2>
                <p>{ tr(lang, k::UI_YOUR_PROGRESS_IS_KEPT_IN) }</p>
                { list }
                { scorm_links(lang) }
                <p>
                    <button data-testid="reset-progress" onclick={p.on_reset.reform(|_| ())}>{ tr(lang, k::UI_RESET_PROGRESS) }</button>
                    {" "}<button onclick={p.on_close.reform(|_| ())}>{ tr(lang, k::UI_CLOSE) }</button>
                </p>
            </div>
        </div>
    }
}

/// A stop's checker badge (`"checked"`), its property named in the page's language.
fn badge(stop: &election_lab::lesson::Stop, algorithm: &str, lang: Lang) -> Html {
    let Some(b) = &stop.checked else { return html! {} };
    let property = election_lab::registry::find(algorithm)
        .and_then(|a| a.property(&b.property))
        .map_or(b.property.clone(), |p| tr(lang, p.title).to_string());
    let text =
        k::UI_LESSON_CHECKED.format(lang, &[&property, &b.nodes, &b.crashes, &b.partitions, &b.depth, &b.states]);
    html! { <p class="lesson-badge" data-testid="lesson-badge">{ text }</p> }
}
