//! Reading a lesson's JSON into its raw parts (strings, lists and values, not yet checked against
//! each other), by hand rather than by serde derives: one small reader over `serde_json::Value`
//! serves every part of a lesson, where a derive compiled a deserializer per part into the page.
//! Errors name the field as the derives did: `stops[3].question.colour: unknown field `colour`,
//! expected one of …`, `stops[0]: missing field `caption``, `title.en: expected a string, found
//! a number`.

use crate::error::ScenarioError;
use crate::read::Obj;
use crate::NodeId;
use serde_json::{Map, Value};

pub(super) struct RawText {
    pub en: String,
    pub zh: String,
}

pub(super) struct RawLesson {
    pub id: String,
    pub title: RawText,
    pub summary: RawText,
    pub scenario: Option<Value>,
    pub preset: Option<String>,
    pub stops: Vec<RawStop>,
    pub challenge: Option<RawChallenge>,
}

pub(super) struct RawStop {
    pub at: Value,
    pub caption: RawText,
    pub question: Option<RawQuestion>,
    pub act: Option<RawAct>,
    pub notes: Option<RawText>,
    pub checked: Option<super::Badge>,
}

pub(super) struct RawQuestion {
    pub check: String,
    pub prompt: RawText,
    pub explain: RawText,
    pub choices: Vec<String>,
    pub when: Option<Value>,
    pub kinds: Vec<String>,
    pub nodes: Vec<NodeId>,
    pub property: Option<String>,
    pub sweep: Option<RawSweep>,
    pub orders: Option<u64>,
    pub resize: Option<usize>,
    pub tolerance: Option<Value>,
    pub about: Option<bool>,
}

pub(super) struct RawSweep {
    pub field: String,
    pub values: Vec<Value>,
}

pub(super) struct RawAct {
    pub prompt: RawText,
    pub until: String,
    pub action: Map<String, Value>,
}

pub(super) struct RawChallenge {
    pub caption: RawText,
    pub property: String,
    pub hint: RawText,
    pub search: bool,
}

impl RawLesson {
    /// The lesson object's fields (the format tag is checked by the caller).
    pub fn read(v: &Value) -> Result<RawLesson, ScenarioError> {
        let keys = ["format", "id", "title", "summary", "scenario", "preset", "stops", "challenge"];
        let o = Obj::new(v, String::new(), &keys)?;
        o.string("format")?;
        let mut stops = Vec::new();
        let list = o.need("stops")?.as_array().ok_or_else(|| o.wrong("stops", "a list", &o.map["stops"]))?;
        for (i, s) in list.iter().enumerate() {
            stops.push(RawStop::read(s, format!("stops[{i}]"))?);
        }
        Ok(RawLesson {
            id: o.string("id")?,
            title: text(&o, "title")?,
            summary: text(&o, "summary")?,
            scenario: o.get("scenario").cloned(),
            preset: o.opt_string("preset")?,
            stops,
            challenge: o.get("challenge").map(RawChallenge::read).transpose()?,
        })
    }
}

impl RawStop {
    fn read(v: &Value, path: String) -> Result<RawStop, ScenarioError> {
        let o = Obj::new(v, path, &["at", "caption", "question", "act", "notes", "checked"])?;
        let question = o.get("question").map(|q| RawQuestion::read(q, o.field("question"))).transpose()?;
        let act = match o.get("act") {
            Some(a) => {
                let a = Obj::new(a, o.field("act"), &["prompt", "until", "do"])?;
                let action = a.need("do")?;
                let action = action.as_object().ok_or_else(|| a.wrong("do", "an object", action))?.clone();
                Some(RawAct { prompt: text(&a, "prompt")?, until: a.string("until")?, action })
            }
            None => None,
        };
        let notes = o.get("notes").map(|_| text(&o, "notes")).transpose()?;
        let checked = o.get("checked").map(|c| super::Badge::read(c, o.field("checked"))).transpose()?;
        Ok(RawStop { at: o.need("at")?.clone(), caption: text(&o, "caption")?, question, act, notes, checked })
    }
}

impl RawQuestion {
    fn read(v: &Value, path: String) -> Result<RawQuestion, ScenarioError> {
        let keys = [
            "check",
            "prompt",
            "explain",
            "choices",
            "when",
            "kinds",
            "nodes",
            "property",
            "sweep",
            "orders",
            "resize",
            "tolerance",
            "about",
        ];
        let o = Obj::new(v, path, &keys)?;
        let nodes = o.ids("nodes")?;
        let sweep = match o.get("sweep") {
            Some(s) => {
                let s = Obj::new(s, o.field("sweep"), &["field", "values"])?;
                let values = s.need("values")?;
                let values = values.as_array().ok_or_else(|| s.wrong("values", "a list", values))?.clone();
                Some(RawSweep { field: s.string("field")?, values })
            }
            None => None,
        };
        let resize = match o.opt_u64("resize")? {
            Some(n) => Some(usize::try_from(n).map_err(|_| {
                ScenarioError::new(o.field("resize"), format!("{n} is more nodes than this machine can address"))
            })?),
            None => None,
        };
        Ok(RawQuestion {
            check: o.string("check")?,
            prompt: text(&o, "prompt")?,
            explain: text(&o, "explain")?,
            choices: o.strings("choices")?,
            when: o.get("when").cloned(),
            kinds: o.strings("kinds")?,
            nodes,
            property: o.opt_string("property")?,
            sweep,
            orders: o.opt_u64("orders")?,
            resize,
            tolerance: o.get("tolerance").cloned(),
            about: o.get("about").map(|_| o.bool_or("about", false)).transpose()?,
        })
    }
}

impl RawChallenge {
    fn read(v: &Value) -> Result<RawChallenge, ScenarioError> {
        let o = Obj::new(v, "challenge".into(), &["caption", "property", "hint", "search"])?;
        let search = o.bool_or("search", false)?;
        Ok(RawChallenge {
            caption: text(&o, "caption")?,
            property: o.string("property")?,
            hint: text(&o, "hint")?,
            search,
        })
    }
}

fn text(o: &Obj, k: &str) -> Result<RawText, ScenarioError> {
    let t = Obj::new(o.need(k)?, o.field(k), &["en", "zh"])?;
    Ok(RawText { en: t.string("en")?, zh: t.string("zh")? })
}
