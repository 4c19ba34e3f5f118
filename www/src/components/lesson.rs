//! The lesson panel: the current stop's caption, its question (answered by clicking a node on
//! the canvas, a choice, a number, yes or no) and the verdict with its explanation, an act's
//! prompt while the run waits for it, Free play / Resume, and the course list.

use crate::i18n::{tr, Lang};
use crate::lesson_io::Entry;
use crate::state::lesson::{LabView, LessonAction, LessonState, Phase, Progress};
use election_lab::lesson::{Answer, AnswerKind};
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct PanelProps {
    pub lesson: UseReducerHandle<LessonState>,
    /// The lab now (what Continue starts from), and its trace JSON maker for Free play.
    pub lab: LabView,
    pub lang: Lang,
    pub embed: bool,
    pub on_courses: Callback<()>,
}

fn yes_no(lang: Lang, b: bool) -> &'static str {
    if b {
        tr(lang, "yes", "是")
    } else {
        tr(lang, "no", "否")
    }
}

/// An answer in words, in the page's language.
fn answer_text(a: &Answer, lang: Lang) -> String {
    match a {
        Answer::Node(None) => tr(lang, "nobody", "没有节点").to_string(),
        Answer::YesNo(b) => yes_no(lang, *b).to_string(),
        other => other.text(),
    }
}

/// The controls that answer a question of `kind`.
fn ask(kind: AnswerKind, choices: &[String], lang: Lang, on: &Callback<LessonAction>) -> Html {
    let answer = |a: Answer| on.reform(move |_: MouseEvent| LessonAction::Answer(a.clone()));
    match kind {
        AnswerKind::Node => html! {
            <p class="lesson-answer" key="ask-node" data-testid="lesson-ask-node">
                { tr(lang, "Click the node on the canvas (or press Enter on it). ", "在画布上点击该节点（或在节点上按 Enter）。") }
                <button onclick={answer(Answer::Node(None))}>{ tr(lang, "Nobody", "没有节点") }</button>
            </p>
        },
        AnswerKind::Choice => html! {
            <p class="lesson-answer" role="group" aria-label={tr(lang, "Choices", "选项")}>
                { for choices.iter().map(|c| html!{ <button data-testid="lesson-choice" onclick={answer(Answer::Choice(c.clone()))}>{ c.clone() }</button> }) }
            </p>
        },
        AnswerKind::YesNo => html! {
            <p class="lesson-answer" role="group" aria-label={tr(lang, "Yes or no", "是或否")}>
                <button data-testid="lesson-yes" onclick={answer(Answer::YesNo(true))}>{ tr(lang, "Yes", "是") }</button>
                <button data-testid="lesson-no" onclick={answer(Answer::YesNo(false))}>{ tr(lang, "No", "否") }</button>
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
                let text = input.map(|i| i.value()).unwrap_or_default();
                let digits: String = text.chars().filter(|c| c.is_ascii_digit()).collect();
                if let Ok(n) = digits.parse::<u64>() {
                    on.emit(LessonAction::Answer(Answer::Number(n)));
                }
            });
            html! {
                <form class="lesson-answer" {onsubmit}>
                    <label>{ tr(lang, "Your answer: ", "你的答案：") }
                        <input name="n" type="text" inputmode="numeric" size="10" data-testid="lesson-number" /></label>
                    <button type="submit" data-testid="lesson-check">{ tr(lang, "Check", "检查") }</button>
                </form>
            }
        }
    }
}

/// The lesson panel (nothing when no lesson is open).
#[function_component]
pub fn LessonPanel(p: &PanelProps) -> Html {
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
            <section class="lesson-panel free" aria-label={tr(lang, "Lesson", "课程")} data-testid="lesson">
                <span>{ tr(lang, "Free play: the lesson waits at stop ", "自由探索：课程停在第 ") }{ s.stop + 1 }{ tr(lang, ".", " 站。") }</span>
                <button data-testid="lesson-resume" onclick={on.reform(|_| LessonAction::Resume)}>{ tr(lang, "Resume lesson", "继续课程") }</button>
            </section>
        };
    }
    let n = lesson.stops.len();
    let stop = lesson.stops.get(s.stop);
    let body = match (&s.phase, stop) {
        (Phase::Done, _) | (_, None) => html! { <>
            <p class="lesson-caption" data-testid="lesson-caption">{ lesson.challenge.caption.get(lang).to_string() }</p>
            <details><summary>{ tr(lang, "Hint", "提示") }</summary><p>{ lesson.challenge.hint.get(lang).to_string() }</p></details>
            <p class="lesson-done" data-testid="lesson-done">{ tr(lang, "Lesson complete. Free play is yours: try the challenge.", "课程完成。现在可以自由探索：试试这个挑战。") }</p>
        </> },
        (Phase::Opening, _) => html! { <p>{ tr(lang, "Opening the lesson…", "正在打开课程…") }</p> },
        (Phase::Travel { act: false, .. }, Some(_)) => html! {
            // Keyed, here and at a stop, so that the page replaces this button rather than
            // turning it into an answer button in place when the stop arrives: a click in flight
            // on "Jump there" must not answer the question.
            <p class="lesson-travel" key="travel">{ tr(lang, "On the way to the next stop…", "正在前往下一站…") }
                <button data-testid="lesson-skip" onclick={skip.clone()}>{ tr(lang, "Jump there", "直接跳到那里") }</button></p>
        },
        (phase, Some(stop)) => {
            let caption = html! { <p class="lesson-caption" key={format!("stop-{}", s.stop)} data-testid="lesson-caption">{ stop.caption.get(lang).to_string() }</p> };
            let next = html! { <button class="lesson-next" data-testid="lesson-continue" onclick={cont.clone()}>{ if s.stop + 1 < n { tr(lang, "Continue ▶", "继续 ▶") } else { tr(lang, "Finish", "完成") } }</button> };
            let rest = if let Some(act) = &stop.act {
                if s.act_met {
                    html! { <><p class="lesson-verdict right" role="status" data-testid="lesson-act-met">{ tr(lang, "✓ The run shows it.", "✓ 运行已经显示出来了。") }</p>{ next }</> }
                } else {
                    let waiting = matches!(phase, Phase::Travel { act: true, .. });
                    html! { <>
                        <p class="lesson-prompt" data-testid="lesson-act">{ act.prompt.get(lang).to_string() }</p>
                        <p class="lesson-wait" role="status">{ if waiting { tr(lang, "Playing until the run shows it…", "正在播放，直到运行显示出来…") } else { tr(lang, "The lesson waits until the run shows it.", "课程会一直等到运行显示出来。") } }
                            <button data-testid="lesson-show-me" onclick={on.reform(|_| LessonAction::ShowMe)}>{ tr(lang, "Show me", "演示给我看") }</button></p>
                    </> }
                }
            } else if let Some(q) = &stop.question {
                let prompt = html! { <p class="lesson-prompt" data-testid="lesson-prompt">{ q.prompt.get(lang).to_string() }</p> };
                match (&s.verdict, &s.expected) {
                    (Some(v), _) => html! { <>
                        { prompt }
                        <p class={classes!("lesson-verdict", if v.right { "right" } else { "wrong" })} role="status" data-testid="lesson-verdict">
                            { if v.right { tr(lang, "✓ Right: ", "✓ 正确：") } else { tr(lang, "✗ Not quite. You said ", "✗ 不对。你的答案是 ") } }
                            { if v.right { String::new() } else { format!("{}{}", answer_text(&v.given, lang), tr(lang, "; the run says ", "；运行结果是 ")) } }
                            <b>{ answer_text(&v.expected, lang) }</b>{ "." }
                        </p>
                        <p class="lesson-explain" data-testid="lesson-explain">{ q.explain.get(lang).to_string() }</p>
                        { next.clone() }
                    </> },
                    (None, Some(Err(e))) => html! { <>{ prompt }<p role="alert">{ e.clone() }</p>{ next.clone() }</> },
                    (None, _) => html! { <>{ prompt }{ ask(q.check.answer_kind(), &q.choices, lang, &on) }</> },
                }
            } else {
                next
            };
            html! { <>{ caption }{ rest }</> }
        }
    };
    let free = {
        let (on, lab) = (on.clone(), lab.clone());
        Callback::from(move |_: MouseEvent| on.emit(LessonAction::FreePlay(lab.engine.get().trace_value().to_string())))
    };
    let position = match s.phase {
        Phase::Done => tr(lang, "challenge", "挑战").to_string(),
        _ => format!("{}{} / {n}{}", tr(lang, "stop ", "第 "), (s.stop + 1).min(n), tr(lang, "", " 站")),
    };
    html! {
        <section class={classes!("lesson-panel", p.embed.then_some("compact"))} aria-label={tr(lang, "Lesson", "课程")} data-testid="lesson" data-stop={s.stop.to_string()}>
            <header class="lesson-head">
                <h2>{ lesson.title.get(lang).to_string() }<span class="lesson-pos" data-testid="lesson-pos">{ position }</span></h2>
                <span class="lesson-tools">
                    <button data-testid="lesson-free" onclick={free}>{ tr(lang, "Free play", "自由探索") }</button>
                    <button onclick={on.reform(|_| LessonAction::Restart)}>{ tr(lang, "Restart", "重新开始") }</button>
                    { if p.embed { html!{} } else { html!{ <button onclick={p.on_courses.reform(|_| ())}>{ tr(lang, "All lessons", "全部课程") }</button> } } }
                </span>
            </header>
            { body }
        </section>
    }
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
        None => html! { <p>{ tr(lang, "Loading the course…", "正在加载课程…") }</p> },
        Some(Err(e)) => html! { <p role="alert">{ e.clone() }</p> },
        Some(Ok(entries)) => html! {
            <ol class="course-list" data-testid="course-list">
                { for entries.iter().map(|e| {
                    let saved = p.progress.lessons.get(&e.id);
                    let status = match saved {
                        Some(s) if s.done => tr(lang, "done ✓", "已完成 ✓").to_string(),
                        Some(s) => format!("{} {}", tr(lang, "at stop", "进行到第"), s.stop + 1),
                        None => String::new(),
                    };
                    let title = if lang == Lang::Zh { &e.title.1 } else { &e.title.0 };
                    let href = format!("./?lesson={}&lang={}", crate::link::encode(&e.id), lang.tag());
                    html!{ <li><a href={href}>{ title.clone() }</a>{" "}<span class="course-status">{ status }</span></li> }
                }) }
            </ol>
        },
    };
    html! {
        <div class="overlay" role="dialog" aria-modal="true" aria-label={tr(lang, "Lessons", "课程")} onclick={p.on_close.reform(|_| ())}>
            <div class="dialog course" data-testid="course" onclick={Callback::from(|e: MouseEvent| e.stop_propagation())}>
                <h2>{ tr(lang, "Lessons", "课程") }</h2>
                <p>{ tr(lang, "Your progress is kept in this browser only.", "你的进度只保存在这个浏览器中。") }</p>
                { list }
                <p>
                    <button data-testid="reset-progress" onclick={p.on_reset.reform(|_| ())}>{ tr(lang, "Reset progress", "清除进度") }</button>
                    {" "}<button onclick={p.on_close.reform(|_| ())}>{ tr(lang, "Close", "关闭") }</button>
                </p>
            </div>
        </div>
    }
}
