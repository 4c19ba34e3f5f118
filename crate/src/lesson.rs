//! Lessons: a scenario plus an ordered list of stops, each with a caption in both languages and
//! optionally a question whose answer the engine computes, or an act the student must perform.
//!
//! A lesson cannot contradict its run: a question names *what to compare* (the leader at a
//! point, the next delivery's kind, a message count, whether the minority elects, ...), never
//! the answer itself; [`check::answers`] runs the engine and computes every answer.
//!
//! # Format (`"format": "election-lab-lesson/1"`)
//!
//! ```json
//! { "format": "election-lab-lesson/1", "id": "bully",
//!   "title": {"en": "…", "zh": "…"}, "summary": {"en": "…", "zh": "…"},
//!   "scenario": { …a scenario (see crate::scenario)… }      // or "preset": "bully-worst-8"
//!   "stops": [
//!     { "at": "start", "caption": {"en": "…", "zh": "…"} },
//!     { "at": 12, "caption": {…},                            // a step number
//!       "question": { "check": "leader_at", "prompt": {…}, "explain": {…} } },
//!     { "at": "deliver:COORDINATOR", "caption": {…},          // a breakpoint (crate::breakpoint)
//!       "question": { "check": "next_delivery_kind", "choices": ["OK", "COORDINATOR"], … } },
//!     { "at": "time>=20", "caption": {…},
//!       "act": { "prompt": {…}, "until": "isolated:5", "do": {"isolate": 5} } } ],
//!   "challenge": { "caption": {…}, "property": "split-brain", "hint": {…}, "search": true } }
//! ```
//!
//! **`at`** is `"start"` (before step 1), a step number, a breakpoint text (the first step
//! after the previous stop where it hits), `"now"` (where the previous stop and its act
//! left the run), or `"end"` (the end of the run, as its acts left it: where a lesson shows how a
//! prediction came out). Stops come in run order.
//!
//! **`question.check`** ([`Check`]) decides the kind of answer the page asks for:
//!
//! | check | answer ([`Answer`]) | what the engine computes, from the stop on |
//! |---|---|---|
//! | `leader_at` | a node, or nobody | the leader every live node names at `when` (a step or a breakpoint; default: the end of the run) |
//! | `next_delivery_kind` | one of `choices` (message kinds) | the kind of the next message delivered |
//! | `messages_until_agreement` | a number | messages sent (of `kinds`, default all) until the next election completes |
//! | `messages_until_end` | a number | messages sent (of `kinds`) until the run ends (quiet, or its stop limits) |
//! | `mean_messages_over_orders` | a number | the mean (exact, to the thousandth) of `messages_until_end` over `orders` random orders of the nodes (rings) |
//! | `minority_elects` | yes / no | whether a node of the minority side (`nodes`, or the smaller group of the partition) that did not lead at the stop comes to lead |
//! | `violated` | yes / no | whether `property` (default: any claimed property) is violated |
//! | `max_leaders` | a number | the most live self-declared leaders at once |
//! | `writes_rejected` | a number | writes the fenced store rejects |
//! | `elected` | yes / no | whether any election completes |
//! | `violations_over_sweep` | a number | at how many of `sweep.values` (set at the scenario path `sweep.field`, e.g. `heartbeats.timeout`) `property` is violated, each run from the start with the interventions made so far replayed at their times |
//!
//! Number answers are graded exactly unless the question says otherwise: `"tolerance": 3`
//! (absolute), `"tolerance": "10%"` (relative), or `"about": true` (±5 %, also the default of
//! `mean_messages_over_orders`); the student's text is read as typed on any keyboard (`21.7`,
//! `21,7`, `２２`; see [`grade`]).
//!
//! `resize: N` (any check) computes the answer on the scenario scaled to nodes `1..=N`: the
//! lower half of the original ids (by rank) map to `1, 2, …`, the upper half to `…, N−1, N`,
//! so "the lowest starts, the highest crashed" stays true; when every node starts at one tick,
//! every node of the scaled scenario does. A question with `resize` above
//! [`LIGHT_NODES`], or a sweep, is *heavy*: [`check::answers`] leaves it
//! [`Checked::Deferred`] unless asked, and the page computes it ([`check::answer_stop`]) only
//! when the student reaches that stop.
//!
//! **`notes`** (optional, any stop, both languages): the lecturer's notes — what to say, what
//! the class usually answers — shown only in the presenter view's notes window, beside the
//! stop's caption, the next stop and the expected answer.
//!
//! **`checked`** (optional, any stop): a checker badge, `{"property", "nodes", "crashes",
//! "partitions", "depth", "states"}`, shown under the caption; see [`badge`], whose test runs the
//! check and pins the number of states.
//!
//! **`act`**: the run waits until `until` holds — a breakpoint, or a state condition
//! ([`Condition`]): `down:5`, `up:5`, `isolated:5`, `partitioned`, `healed`. `do` is the
//! action that satisfies it (what "show me" applies, and what the computed run applies there).
//!
//! **`challenge`** (optional): a claimed property of the algorithm to break by hand, watched by
//! the invariants panel; `search: true` offers the counterexample search as the hint (only where
//! the search finds one: `tests/lessons.rs` checks it).
//!
//! API for the page: [`Lesson::from_json`] / [`Lesson::from_value`] (format and fields),
//! [`check::answers`] (steps and answers of every stop; also validates breakpoints, kinds and
//! properties against the engine), [`check::answer_stop`], [`check::answer_on`] (the answer
//! from the student's own run at the stop), [`Waiter`] (an act's condition, checked after every
//! step or intervention), [`course::all`] / [`course::find`] (the built-in course), [`pack`] /
//! [`unpack`] (`?lesson=<packed>` links; built-in lessons are linked by id).

use crate::error::ScenarioError;
use crate::link;
use crate::meta::Lang;
use crate::presets;
use crate::scenario::{check_size, Action, Scenario};
use crate::NodeId;
use serde_json::Value;

pub mod badge;
pub mod check;
pub mod course;
pub mod grade;
mod read;
mod report;
pub mod truth;
mod wait;

use read::{RawQuestion, RawText};

pub use badge::Badge;
pub use check::{answer_on, answer_stop, answers, Checked, StopResult};
pub use grade::{parse_number, Tolerance};
pub use report::{render, report};
pub use wait::{Condition, Waiter};

/// The format tag every lesson carries.
pub const FORMAT: &str = "election-lab-lesson/1";
/// Above this many nodes (after `resize`), a question is heavy: computed only on demand.
pub const LIGHT_NODES: usize = 64;
/// The most stops a lesson may have.
pub const MAX_STOPS: usize = 64;
/// The most values a sweep may run.
pub const MAX_SWEEP: usize = 32;
/// The most random orders `mean_messages_over_orders` may run.
pub const MAX_ORDERS: u64 = 500;
/// The largest `resize`.
pub const MAX_RESIZE: usize = 2000;

/// A text in both languages.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Bilingual {
    pub en: String,
    pub zh: String,
}

impl Bilingual {
    pub fn get(&self, lang: Lang) -> &str {
        match lang {
            Lang::En => &self.en,
            Lang::Zh => &self.zh,
        }
    }
}

/// Where a stop is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum At {
    /// Before the first step.
    Start,
    /// At this step (the state after it).
    Step(u64),
    /// At the first step after the previous stop where this breakpoint hits.
    When(String),
    /// Where the previous stop (and its act) left the run.
    Now,
    /// The end of the run (as the acts so far left it).
    End,
}

/// What a question compares (see the module's table).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    LeaderAt,
    NextDeliveryKind,
    MessagesUntilAgreement,
    MessagesUntilEnd,
    MeanMessagesOverOrders,
    MinorityElects,
    Violated,
    MaxLeaders,
    WritesRejected,
    Elected,
    ViolationsOverSweep,
}

/// The form of an answer, which decides how the page asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnswerKind {
    /// Click a node (or "nobody").
    Node,
    /// Pick one of the question's choices.
    Choice,
    /// Type a whole number.
    Number,
    /// Yes or no.
    YesNo,
}

impl Check {
    pub const ALL: &'static [(&'static str, Check)] = &[
        ("leader_at", Check::LeaderAt),
        ("next_delivery_kind", Check::NextDeliveryKind),
        ("messages_until_agreement", Check::MessagesUntilAgreement),
        ("messages_until_end", Check::MessagesUntilEnd),
        ("mean_messages_over_orders", Check::MeanMessagesOverOrders),
        ("minority_elects", Check::MinorityElects),
        ("violated", Check::Violated),
        ("max_leaders", Check::MaxLeaders),
        ("writes_rejected", Check::WritesRejected),
        ("elected", Check::Elected),
        ("violations_over_sweep", Check::ViolationsOverSweep),
    ];

    pub fn name(self) -> &'static str {
        Check::ALL.iter().find(|(_, c)| *c == self).map_or("?", |(n, _)| n)
    }

    pub fn answer_kind(self) -> AnswerKind {
        match self {
            Check::LeaderAt => AnswerKind::Node,
            Check::NextDeliveryKind => AnswerKind::Choice,
            Check::MinorityElects | Check::Violated | Check::Elected => AnswerKind::YesNo,
            _ => AnswerKind::Number,
        }
    }
}

/// A checked answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// A node, or `None`: nobody (no agreed leader).
    Node(Option<NodeId>),
    Choice(String),
    Number(u64),
    /// A number with a fraction, in thousandths (`21.7` is `Decimal(21_700)`): a student's typed
    /// answer (see [`grade::parse_number`]), or a mean over random orders.
    Decimal(u64),
    YesNo(bool),
}

impl Answer {
    /// One line: `N7`, `nobody`, `COORDINATOR`, `55`, `yes`.
    pub fn text(&self) -> String {
        match self {
            Answer::Node(Some(n)) => format!("N{n}"),
            Answer::Node(None) => "nobody".into(),
            Answer::Choice(c) => c.clone(),
            Answer::Number(n) => n.to_string(),
            Answer::Decimal(_) => grade::show(self.value().unwrap_or_default()),
            Answer::YesNo(b) => if *b { "yes" } else { "no" }.into(),
        }
    }
    /// Whether the student's answer (same form) is right.
    pub fn matches(&self, given: &Answer) -> bool {
        match (self, given) {
            (Answer::Choice(a), Answer::Choice(b)) => a.eq_ignore_ascii_case(b),
            (a, b) => a == b,
        }
    }
}

/// A sweep: the scenario value at `field` (a dotted path, e.g. `heartbeats.timeout`,
/// `params.ttl`) set to each of `values` in turn.
#[derive(Clone, Debug, PartialEq)]
pub struct Sweep {
    pub field: String,
    pub values: Vec<Value>,
}

/// A question.
#[derive(Clone, Debug, PartialEq)]
pub struct Question {
    pub check: Check,
    pub prompt: Bilingual,
    /// Shown after the answer, right or wrong.
    pub explain: Bilingual,
    /// `next_delivery_kind`: the message kinds offered.
    pub choices: Vec<String>,
    /// `leader_at`: where to read the leader (a step, or a breakpoint); default the run's end.
    pub when: Option<At>,
    /// Message counts: the kinds counted (default all).
    pub kinds: Vec<String>,
    /// `minority_elects`: the minority's nodes (default the smaller side of the partition).
    pub nodes: Vec<NodeId>,
    /// `violated`, `violations_over_sweep`: the property (default any).
    pub property: Option<String>,
    pub sweep: Option<Sweep>,
    /// `mean_messages_over_orders`: how many random orders.
    pub orders: u64,
    /// Compute on the scenario scaled to this many nodes.
    pub resize: Option<usize>,
    /// Number answers: how far from the run's value an answer may be (see [`grade`]).
    pub tolerance: Option<Tolerance>,
    /// An "about" question: graded ±5 % unless `tolerance` says otherwise.
    pub about: bool,
}

impl Question {
    /// Whether this question's answer is computed only on demand (see the module doc).
    pub fn heavy(&self) -> bool {
        self.resize.is_some_and(|n| n > LIGHT_NODES) || self.sweep.is_some() || self.orders > 50
    }
}

/// An act: the run waits until `until` holds.
#[derive(Clone, Debug, PartialEq)]
pub struct Act {
    pub prompt: Bilingual,
    /// The condition's text (a breakpoint or a [`Condition`]).
    pub until: String,
    /// The action that satisfies it ("show me", and the computed run).
    pub action: Action,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stop {
    pub at: At,
    pub caption: Bilingual,
    pub question: Option<Question>,
    pub act: Option<Act>,
    /// The lecturer's notes: shown in the presenter's notes window, never to the class.
    pub notes: Option<Bilingual>,
    /// A checker badge: the property checked in every schedule within bounds (`lesson/badge.rs`).
    pub checked: Option<Badge>,
}

/// The closing challenge: a claimed property to break by hand.
#[derive(Clone, Debug, PartialEq)]
pub struct Challenge {
    pub caption: Bilingual,
    pub property: String,
    pub hint: Bilingual,
    /// Offer the counterexample search as the hint.
    pub search: bool,
}

/// A parsed lesson (its format and fields checked; the breakpoints, kinds and properties are
/// checked against the engine by [`check::answers`] or [`Lesson::validate`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Lesson {
    pub id: String,
    pub title: Bilingual,
    pub summary: Bilingual,
    pub scenario: Scenario,
    /// The preset the scenario came from, if any.
    pub preset: Option<String>,
    pub stops: Vec<Stop>,
    /// Optional (a lesson recorded in the page has none).
    pub challenge: Option<Challenge>,
}

fn text(raw: RawText, path: &str) -> Result<Bilingual, ScenarioError> {
    if raw.en.trim().is_empty() {
        return Err(ScenarioError::new(format!("{path}.en"), "is empty"));
    }
    if !raw.zh.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)) {
        return Err(ScenarioError::new(format!("{path}.zh"), "has no Chinese text"));
    }
    Ok(Bilingual { en: raw.en, zh: raw.zh })
}

fn at(v: &Value, path: &str) -> Result<At, ScenarioError> {
    match v {
        Value::String(s) if s == "start" => Ok(At::Start),
        Value::String(s) if s == "now" => Ok(At::Now),
        Value::String(s) if s == "end" => Ok(At::End),
        Value::String(s) if !s.trim().is_empty() => Ok(At::When(s.trim().to_string())),
        Value::Number(n) => {
            n.as_u64().map(At::Step).ok_or_else(|| ScenarioError::new(path, format!("'{n}' is not a step number")))
        }
        _ => Err(ScenarioError::new(
            path,
            format!(
                "expected \"start\", \"now\", \"end\", a step number or a breakpoint, found {}",
                crate::write_json(v)
            ),
        )),
    }
}

fn question(raw: RawQuestion, path: &str) -> Result<Question, ScenarioError> {
    let check = Check::ALL.iter().find(|(n, _)| *n == raw.check).map(|(_, c)| *c).ok_or_else(|| {
        let names: Vec<&str> = Check::ALL.iter().map(|(n, _)| *n).collect();
        ScenarioError::new(
            format!("{path}.check"),
            format!("unknown value '{}' (expected one of: {})", raw.check, names.join(", ")),
        )
    })?;
    let field = |f: &str| format!("{path}.{f}");
    let unused = |f: &str, set: bool, allowed: bool| -> Result<(), ScenarioError> {
        if set && !allowed {
            return Err(ScenarioError::new(field(f), format!("is not read by the check '{}'", check.name())));
        }
        Ok(())
    };
    let counts =
        matches!(check, Check::MessagesUntilAgreement | Check::MessagesUntilEnd | Check::MeanMessagesOverOrders);
    unused("choices", !raw.choices.is_empty(), check == Check::NextDeliveryKind)?;
    unused("when", raw.when.is_some(), check == Check::LeaderAt)?;
    unused("kinds", !raw.kinds.is_empty(), counts)?;
    unused("nodes", !raw.nodes.is_empty(), check == Check::MinorityElects)?;
    unused("property", raw.property.is_some(), matches!(check, Check::Violated | Check::ViolationsOverSweep))?;
    unused("sweep", raw.sweep.is_some(), check == Check::ViolationsOverSweep)?;
    unused("orders", raw.orders.is_some(), check == Check::MeanMessagesOverOrders)?;
    let number = check.answer_kind() == AnswerKind::Number;
    unused("tolerance", raw.tolerance.is_some(), number)?;
    unused("about", raw.about.is_some(), number)?;
    let tolerance = raw.tolerance.as_ref().map(|t| Tolerance::read(t, &field("tolerance"))).transpose()?;
    if check == Check::NextDeliveryKind && raw.choices.len() < 2 {
        return Err(ScenarioError::new(field("choices"), "needs at least two message kinds to choose from"));
    }
    let sweep = match raw.sweep {
        Some(s) => {
            if s.values.is_empty() || s.values.len() > MAX_SWEEP {
                return Err(ScenarioError::new(field("sweep.values"), format!("needs 1 to {MAX_SWEEP} values")));
            }
            if s.field.trim().is_empty() {
                return Err(ScenarioError::new(
                    field("sweep.field"),
                    "must name a scenario field, e.g. heartbeats.timeout",
                ));
            }
            Some(Sweep { field: s.field, values: s.values })
        }
        None if check == Check::ViolationsOverSweep => {
            return Err(ScenarioError::new(field("sweep"), "missing (the field and the values to sweep)"));
        }
        None => None,
    };
    let orders = match (check, raw.orders) {
        (Check::MeanMessagesOverOrders, Some(n)) if (1..=MAX_ORDERS).contains(&n) => n,
        (Check::MeanMessagesOverOrders, Some(_)) => {
            return Err(ScenarioError::new(field("orders"), format!("must be 1 to {MAX_ORDERS}")));
        }
        (Check::MeanMessagesOverOrders, None) => {
            return Err(ScenarioError::new(field("orders"), "missing (how many random orders of the nodes)"));
        }
        _ => 0,
    };
    if let Some(n) = raw.resize {
        if !(2..=MAX_RESIZE).contains(&n) {
            return Err(ScenarioError::new(field("resize"), format!("must be 2 to {MAX_RESIZE} nodes, found {n}")));
        }
    }
    Ok(Question {
        check,
        prompt: text(raw.prompt, &field("prompt"))?,
        explain: text(raw.explain, &field("explain"))?,
        choices: raw.choices,
        when: raw.when.as_ref().map(|w| at(w, &field("when"))).transpose()?,
        kinds: raw.kinds,
        nodes: raw.nodes,
        property: raw.property,
        sweep,
        orders,
        resize: raw.resize,
        tolerance,
        about: raw.about.unwrap_or(false),
    })
}

impl Lesson {
    /// Reads a lesson's JSON text; errors name the field (`stops[3].question.check: …`).
    pub fn from_json(text: &str) -> Result<Lesson, ScenarioError> {
        check_size(text.len())?;
        let value: Value = crate::parse_json(text)?;
        Lesson::from_value(&value)
    }

    pub fn from_value(value: &Value) -> Result<Lesson, ScenarioError> {
        let Some(obj) = value.as_object() else {
            return Err(ScenarioError::new("", "a lesson must be a JSON object"));
        };
        match obj.get("format").and_then(Value::as_str) {
            Some(FORMAT) => {}
            Some(f) => {
                return Err(ScenarioError::new(
                    "format",
                    format!("'{f}' is not a format this version reads (it reads '{FORMAT}')"),
                ))
            }
            None => return Err(ScenarioError::new("format", format!("missing (expected \"{FORMAT}\")"))),
        }
        if obj.get("stops").and_then(Value::as_array).is_some_and(|s| s.len() > MAX_STOPS) {
            return Err(ScenarioError::new("stops", format!("more than {MAX_STOPS} stops")));
        }
        let raw = read::RawLesson::read(value)?;
        if raw.id.is_empty() || !raw.id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
            return Err(ScenarioError::new("id", "must be letters, digits and '-', e.g. \"bully\""));
        }
        let (scenario, preset) = match (raw.scenario, raw.preset) {
            (Some(_), Some(_)) => {
                return Err(ScenarioError::new("preset", "give a scenario or a preset, not both"));
            }
            (Some(s), None) => (Scenario::from_value(&s).map_err(|e| e.within("scenario"))?, None),
            (None, Some(p)) => match presets::find(&p) {
                Some(found) => (found.scenario(), Some(p)),
                None => return Err(ScenarioError::new("preset", format!("unknown preset '{p}'"))),
            },
            (None, None) => return Err(ScenarioError::new("scenario", "missing (give a scenario or a preset)")),
        };
        if raw.stops.is_empty() {
            return Err(ScenarioError::new("stops", "needs at least one stop"));
        }
        let mut stops = Vec::with_capacity(raw.stops.len());
        for (i, s) in raw.stops.into_iter().enumerate() {
            let path = format!("stops[{i}]");
            let act = match s.act {
                Some(a) => {
                    let p = format!("{path}.act");
                    let action = Action::from_object(&a.action, &[], &format!("{p}.do"))?;
                    action.validate(&scenario.nodes, &format!("{p}.do"))?;
                    if a.until.trim().is_empty() {
                        return Err(ScenarioError::new(format!("{p}.until"), "is empty"));
                    }
                    Some(Act { prompt: text(a.prompt, &format!("{p}.prompt"))?, until: a.until, action })
                }
                None => None,
            };
            if s.question.is_some() && act.is_some() {
                return Err(ScenarioError::new(path, "has both a question and an act; give each its own stop"));
            }
            stops.push(Stop {
                at: at(&s.at, &format!("{path}.at"))?,
                caption: text(s.caption, &format!("{path}.caption"))?,
                question: s.question.map(|q| question(q, &format!("{path}.question"))).transpose()?,
                act,
                notes: s.notes.map(|n| text(n, &format!("{path}.notes"))).transpose()?,
                checked: s.checked,
            });
        }
        let challenge = match raw.challenge {
            Some(c) => Some(Challenge {
                caption: text(c.caption, "challenge.caption")?,
                property: c.property,
                hint: text(c.hint, "challenge.hint")?,
                search: c.search,
            }),
            None => None,
        };
        Ok(Lesson {
            id: raw.id,
            title: text(raw.title, "title")?,
            summary: text(raw.summary, "summary")?,
            scenario,
            preset,
            stops,
            challenge,
        })
    }

    /// Everything a page needs checked before it shows the lesson: [`Lesson::from_json`] and
    /// the light part of [`check::answers`] (breakpoints, kinds, properties, stop order).
    pub fn validate(text: &str) -> Result<Lesson, ScenarioError> {
        let lesson = Lesson::from_json(text)?;
        check::answers(&lesson, false)?;
        Ok(lesson)
    }
}

/// The `?lesson=` value for a lesson's JSON text (`1.<lz-string, base64url>`, the encoding of
/// [`crate::link`]), or `None` when it would be longer than [`link::MAX_PAYLOAD`]. Built-in
/// lessons are linked by their id instead (`?lesson=bully`).
pub fn pack(json: &str) -> Option<String> {
    link::pack(json)
}

/// Reads a `?lesson=` value: a built-in lesson's id, or a packed lesson.
pub fn unpack(value: &str) -> Result<Lesson, ScenarioError> {
    if let Some(l) = course::find(value) {
        return Ok(l);
    }
    if !value.contains('.') {
        let ids = course::ids();
        return Err(ScenarioError::new(
            "lesson",
            format!("no built-in lesson '{value}' (lessons: {})", ids.join(", ")),
        ));
    }
    let json = link::unpack(value).map_err(|e| ScenarioError::new("lesson", e.replace("trace", "lesson")))?;
    Lesson::from_json(&json)
}
