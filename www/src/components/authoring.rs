//! Recording a lesson in the page: a lecturer plays a run and adds a stop where it is, with a
//! caption in both languages and optionally a question (the check the engine answers, shown as
//! it stands at this step), then exports the lesson as JSON, as a `?lesson=` link, and as
//! embed code. The lesson is checked ([`election_lab::lesson::Lesson::validate`]) before it is
//! offered, so what is exported opens.

use crate::i18n::{tr, Lang};
use crate::state::EngineRef;
use election_lab::lesson::{answer_on, Bilingual, Check, Question};
use election_lab::meta::{k, Text};
use serde_json::{json, Value};
use yew::prelude::*;

/// The checks offered when recording (those that need no extra field).
pub const CHECKS: &[(&str, Text)] = &[
    ("", k::AUTHORING_NO_QUESTION),
    ("leader_at", k::AUTHORING_CLICK_THE_NODE_THAT_WILL),
    ("next_delivery_kind", k::AUTHORING_WHICH_MESSAGE_COMES_NEXT),
    ("messages_until_agreement", k::AUTHORING_MESSAGES_UNTIL_AGREEMENT),
    ("messages_until_end", k::AUTHORING_MESSAGES_UNTIL_THE_RUN_ENDS),
    ("minority_elects", k::AUTHORING_WILL_THE_MINORITY_ELECT_A),
    ("elected", k::AUTHORING_WILL_AN_ELECTION_COMPLETE),
];

/// A text in (English, 中文).
pub type Pair = (String, String);

/// One recorded stop.
#[derive(Clone, Debug, PartialEq)]
pub struct DraftStop {
    pub step: u64,
    pub caption: (String, String),
    /// (check name, prompt, explanation)
    pub question: Option<(String, Pair, Pair)>,
    /// A number question's tolerance as the author typed it: blank (exact), `3`, or `5%`.
    pub tolerance: String,
}

/// The `tolerance` value of a question as typed: a percentage stays a string (`"5%"`), a number
/// becomes one (`3`); anything else is passed on for the lesson's check to refuse by field.
fn tolerance_value(text: &str) -> Option<Value> {
    let t = text.trim();
    if t.is_empty() {
        return None;
    }
    Some(match election_lab::lesson::parse_number(t).and_then(|a| a.value()) {
        Some(x) if !t.ends_with('%') && t.parse::<f64>().is_ok() => json!(x),
        _ => json!(t),
    })
}

fn bi(t: &(String, String)) -> Value {
    json!({"en": t.0, "zh": t.1})
}

/// The lesson JSON for `stops` recorded on `scenario` (`kinds`: the algorithm's message kinds,
/// offered as choices). A recorded lesson has no closing challenge: the lecturer has not written one.
pub fn lesson_json(
    title: &(String, String),
    scenario: &election_lab::Scenario,
    kinds: &[&str],
    stops: &[DraftStop],
) -> Value {
    let stops: Vec<Value> = stops
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let mut v = json!({"at": if i == 0 && s.step == 0 { json!("start") } else { json!(s.step) }, "caption": bi(&s.caption)});
            if let Some((check, prompt, explain)) = &s.question {
                let mut q = json!({"check": check, "prompt": bi(prompt), "explain": bi(explain)});
                if check == "next_delivery_kind" {
                    q["choices"] = json!(kinds);
                }
                if let Some(t) = tolerance_value(&s.tolerance) {
                    q["tolerance"] = t;
                }
                v["question"] = q;
            }
            v
        })
        .collect();
    json!({
        "format": election_lab::lesson::FORMAT,
        "id": "recorded",
        "title": bi(title),
        "summary": bi(title),
        "scenario": scenario.to_value(),
        "stops": stops,
    })
}

/// What the engine answers to `check` at the cursor of `engine` (in one line), for the recorder.
fn engine_value(engine: &election_lab::Engine, check: &str, kinds: &[&str]) -> String {
    let Some(c) = Check::ALL.iter().find(|(n, _)| *n == check).map(|(_, c)| *c) else { return String::new() };
    let q = Question {
        check: c,
        prompt: Bilingual::default(),
        explain: Bilingual::default(),
        choices: kinds.iter().map(|k| k.to_string()).collect(),
        when: None,
        kinds: vec![],
        nodes: vec![],
        property: None,
        sweep: None,
        orders: 0,
        resize: None,
        tolerance: None,
        about: false,
    };
    answer_on(engine, &q).map(|a| a.text()).unwrap_or_else(|e| e.to_string())
}

#[derive(Properties, PartialEq)]
pub struct RecorderProps {
    pub engine: EngineRef,
    pub step: u64,
    pub lang: Lang,
    pub on_close: Callback<()>,
}

fn value_of(e: &Event) -> String {
    use wasm_bindgen::JsCast;
    e.target()
        .and_then(|t| {
            t.clone()
                .dyn_into::<web_sys::HtmlInputElement>()
                .map(|i| i.value())
                .or_else(|_| t.clone().dyn_into::<web_sys::HtmlTextAreaElement>().map(|a| a.value()))
                .or_else(|_| t.dyn_into::<web_sys::HtmlSelectElement>().map(|s| s.value()))
                .ok()
        })
        .unwrap_or_default()
}

/// A text field bound to a state string.
fn field(label: &'static str, v: &UseStateHandle<String>, id: &'static str, area: bool) -> Html {
    let set = {
        let v = v.clone();
        Callback::from(move |e: InputEvent| v.set(value_of(&e)))
    };
    html! {
        <label class="rec-field">{ label }
            { if area { html!{ <textarea rows="2" value={(**v).clone()} oninput={set} data-testid={id} /> } }
              else { html!{ <input type="text" value={(**v).clone()} oninput={set} data-testid={id} /> } } }
        </label>
    }
}

/// The recorder panel.
#[function_component]
pub fn Recorder(p: &RecorderProps) -> Html {
    let lang = p.lang;
    let stops = use_state(Vec::<DraftStop>::new);
    let (title_en, title_zh) = (use_state(String::new), use_state(String::new));
    let (cap_en, cap_zh) = (use_state(String::new), use_state(String::new));
    let (prompt_en, prompt_zh) = (use_state(String::new), use_state(String::new));
    let (explain_en, explain_zh) = (use_state(String::new), use_state(String::new));
    let check = use_state(String::new);
    let tolerance = use_state(String::new);
    let export = use_state(|| None::<Result<(String, String), String>>);
    let engine = p.engine.get();
    let alg = engine.algorithm();
    let kinds: Vec<&str> = alg.kinds.iter().map(|k| k.name).collect();
    let value = engine_value(&engine, &check, &kinds);
    let numeric = Check::ALL
        .iter()
        .any(|(n, c)| *n == check.as_str() && c.answer_kind() == election_lab::lesson::AnswerKind::Number);
    let scenario = engine.scenario().clone();
    drop(engine);
    let add = {
        let (stops, check, step, tolerance) = (stops.clone(), check.clone(), p.step, tolerance.clone());
        let fields = [&cap_en, &cap_zh, &prompt_en, &prompt_zh, &explain_en, &explain_zh].map(|h| (*h).clone());
        Callback::from(move |_: MouseEvent| {
            let t = |k: usize| (*fields[k]).clone();
            let question = (!check.is_empty()).then(|| ((*check).clone(), (t(2), t(3)), (t(4), t(5))));
            let mut list = (*stops).clone();
            let tol = if numeric { (*tolerance).clone() } else { String::new() };
            list.push(DraftStop { step, caption: (t(0), t(1)), question, tolerance: tol });
            tolerance.set(String::new());
            election_lab::sort::sort_by_key(&mut list, |s| s.step);
            stops.set(list);
            for f in &fields {
                f.set(String::new());
            }
        })
    };
    let do_export = {
        let (stops, export) = (stops.clone(), export.clone());
        let title = ((*title_en).clone(), (*title_zh).clone());
        let kinds: Vec<String> = kinds.iter().map(|k| k.to_string()).collect();
        Callback::from(move |_: MouseEvent| {
            let kinds: Vec<&str> = kinds.iter().map(String::as_str).collect();
            let v = lesson_json(&title, &scenario, &kinds, &stops);
            let text = serde_json::to_string_pretty(&v).unwrap_or_default();
            let r = election_lab::lesson::Lesson::validate(&text)
                .map_err(|e| e.to_string())
                .and_then(|_| {
                    election_lab::lesson::pack(&v.to_string()).ok_or_else(|| "too long for a link".to_string())
                })
                .map(|packed| (text, packed));
            export.set(Some(r));
        })
    };
    let select = {
        let check = check.clone();
        Callback::from(move |e: Event| check.set(value_of(&e)))
    };
    let out = match &*export {
        None => html! {},
        Some(Err(e)) => html! { <p role="alert" data-testid="rec-error">{ e.clone() }</p> },
        Some(Ok((json, packed))) => {
            let loc = web_sys::window().map(|w| w.location());
            let base = loc.map_or(String::new(), |l| {
                format!("{}{}", l.origin().unwrap_or_default(), l.pathname().unwrap_or_default())
            });
            let link = format!("{base}?lesson={packed}");
            let embed = format!("<iframe src=\"{link}&embed=1\" width=\"640\" height=\"480\" style=\"border:0\" title=\"Election Lab\"></iframe>");
            let json2 = json.clone();
            html! { <div class="rec-export">
                <button onclick={Callback::from(move |_| crate::download("election-lab-lesson.json", &json2))}>{ tr(lang, k::UI_DOWNLOAD_JSON) }</button>
                <label>{ tr(lang, k::UI_LINK) }<input readonly=true value={link.clone()} data-testid="rec-link" /></label>
                <label>{ tr(lang, k::UI_EMBED_CODE) }<textarea readonly=true rows="2" value={embed} data-testid="rec-embed" /></label>
            </div> }
        }
    };
    html! {
        <section class="recorder panel" aria-label={tr(lang, k::UI_RECORD_A_LESSON)} data-testid="recorder">
            <h2>{ tr(lang, k::UI_RECORD_A_LESSON) }</h2>
            { field(tr(lang, k::UI_TITLE_ENGLISH), &title_en, "rec-title-en", false) }
            { field(tr(lang, k::UI_TITLE), &title_zh, "rec-title-zh", false) }
            <p>{ tr(lang, k::UI_A_STOP_AT_STEP) }<b>{ p.step }</b>{ tr(lang, k::UI_TEXT) }</p>
            { field(tr(lang, k::UI_CAPTION_ENGLISH), &cap_en, "rec-caption-en", true) }
            { field(tr(lang, k::UI_CAPTION), &cap_zh, "rec-caption-zh", true) }
            <label class="rec-field">{ tr(lang, k::UI_QUESTION) }
                <select onchange={select} data-testid="rec-check">
                    { for CHECKS.iter().map(|(id, text)| html!{ <option value={*id} selected={*id == check.as_str()}>{ tr(lang, *text) }</option> }) }
                </select>
            </label>
            { if check.is_empty() { html!{} } else { html!{ <>
                <p data-testid="rec-value">{ tr(lang, k::UI_THE_ENGINES_ANSWER_HERE) }<b>{ value }</b></p>
                { field(tr(lang, k::UI_QUESTION_ENGLISH), &prompt_en, "rec-prompt-en", false) }
                { field(tr(lang, k::UI_QUESTION_2), &prompt_zh, "rec-prompt-zh", false) }
                { field(tr(lang, k::UI_EXPLANATION_ENGLISH), &explain_en, "rec-explain-en", true) }
                { field(tr(lang, k::UI_EXPLANATION), &explain_zh, "rec-explain-zh", true) }
                { if numeric { field(tr(lang, k::UI_REC_TOLERANCE), &tolerance, "rec-tolerance", false) } else { html!{} } }
            </> } } }
            <p>
                <button onclick={add} data-testid="rec-add">{ tr(lang, k::UI_ADD_STOP_HERE) }</button>
                {" "}<button onclick={do_export} data-testid="rec-export">{ tr(lang, k::UI_EXPORT) }</button>
                {" "}<button onclick={p.on_close.reform(|_| ())}>{ tr(lang, k::UI_CLOSE) }</button>
            </p>
            <ol data-testid="rec-stops">
                { for stops.iter().map(|s| html!{ <li>{ format!("{} {}: {}", tr(lang, k::UI_STEP), s.step, if lang == Lang::Zh { &s.caption.1 } else { &s.caption.0 }) }</li> }) }
            </ol>
            { out }
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recorded_lesson_validates_and_keeps_its_stops() {
        let p =
            election_lab::presets::find("bully-worst-8").or_else(|| election_lab::presets::find("ring-best")).unwrap();
        let e = election_lab::Engine::new(p.scenario()).unwrap();
        let kinds: Vec<&str> = e.algorithm().kinds.iter().map(|k| k.name).collect();
        let t = |a: &str, b: &str| (a.to_string(), b.to_string());
        let stops = vec![
            DraftStop { step: 0, caption: t("Start.", "开始。"), question: None, tolerance: String::new() },
            DraftStop {
                step: 3,
                caption: t("Three steps.", "三步。"),
                question: Some(("leader_at".into(), t("Who leads?", "谁是领导者？"), t("The top id.", "最大的 id。"))),
                tolerance: String::new(),
            },
            DraftStop {
                step: 3,
                caption: t("Count.", "数一数。"),
                question: Some(("messages_until_end".into(), t("How many?", "多少条？"), t("Many.", "很多。"))),
                tolerance: "10%".into(),
            },
        ];
        let v = lesson_json(&t("Recorded", "录制的课程"), e.scenario(), &kinds, &stops);
        let lesson = election_lab::lesson::Lesson::validate(&v.to_string()).unwrap();
        assert_eq!(lesson.stops.len(), 3);
        // The author's tolerance is the question's.
        let q = lesson.stops[2].question.as_ref().unwrap();
        assert_eq!(q.tolerance(), election_lab::lesson::Tolerance::Relative(0.1));
        assert_eq!(tolerance_value("3"), Some(json!(3.0)));
        assert_eq!(tolerance_value(" "), None);
        assert_eq!(lesson.stops[1].at, election_lab::lesson::At::Step(3));
        assert_eq!(lesson.stops[1].caption.zh, "三步。");
        let packed = election_lab::lesson::pack(&v.to_string()).unwrap();
        assert_eq!(crate::lesson_io::unpack(&packed).unwrap(), lesson);
        // Without Chinese the lesson is refused, naming the field.
        let mut bad = stops.clone();
        bad[0].caption.1 = "start".into();
        let v = lesson_json(&t("Recorded", "录制的课程"), e.scenario(), &kinds, &bad);
        let err = election_lab::lesson::Lesson::validate(&v.to_string()).unwrap_err().to_string();
        assert!(err.contains("stops[0].caption.zh"), "{err}");
        // A tolerance that is no number is refused by field too.
        let mut bad = stops.clone();
        bad[2].tolerance = "lots".into();
        let v = lesson_json(&t("Recorded", "录制的课程"), e.scenario(), &kinds, &bad);
        let err = election_lab::lesson::Lesson::validate(&v.to_string()).unwrap_err().to_string();
        assert!(err.starts_with("stops[2].question.tolerance"), "{err}");
    }
}
