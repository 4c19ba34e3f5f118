//! Reading a lesson's JSON into its raw parts (strings, lists and values, not yet checked against
//! each other), by hand rather than by serde derives: one small reader over `serde_json::Value`
//! serves every part of a lesson, where a derive compiled a deserializer per part into the page.
//! Errors name the field as the derives did: `stops[3].question.colour: unknown field `colour`,
//! expected one of …`, `stops[0]: missing field `caption``, `title.en: expected a string, found
//! a number`.

use crate::error::{prefixed, ScenarioError};
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
    pub challenge: RawChallenge,
}

pub(super) struct RawStop {
    pub at: Value,
    pub caption: RawText,
    pub question: Option<RawQuestion>,
    pub act: Option<RawAct>,
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

/// What a JSON value is, for messages (never the value itself, which may be large).
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "true or false",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// One JSON object of the lesson, its fields read by name.
struct Obj<'a> {
    map: &'a Map<String, Value>,
    path: String,
}

impl<'a> Obj<'a> {
    /// `v` as an object with no field outside `keys`.
    fn new(v: &'a Value, path: String, keys: &[&str]) -> Result<Obj<'a>, ScenarioError> {
        let Some(map) = v.as_object() else {
            return Err(ScenarioError::new(path, format!("expected an object, found {}", kind(v))));
        };
        if let Some(k) = map.keys().find(|k| !keys.contains(&k.as_str())) {
            return Err(ScenarioError::new(
                prefixed(&path, k),
                format!("unknown field `{k}`, expected one of `{}`", keys.join("`, `")),
            ));
        }
        Ok(Obj { map, path })
    }

    fn field(&self, k: &str) -> String {
        prefixed(&self.path, k)
    }

    /// The field's value (absent or `null`: `None`).
    fn get(&self, k: &str) -> Option<&'a Value> {
        self.map.get(k).filter(|v| !v.is_null())
    }

    /// A field that must be there (`null` included: the reader of its value refuses it).
    fn need(&self, k: &str) -> Result<&'a Value, ScenarioError> {
        self.map.get(k).ok_or_else(|| ScenarioError::new(self.path.clone(), format!("missing field `{k}`")))
    }

    fn wrong(&self, k: &str, what: &str, v: &Value) -> ScenarioError {
        ScenarioError::new(self.field(k), format!("expected {what}, found {}", kind(v)))
    }

    fn string_of(&self, k: &str, v: &Value) -> Result<String, ScenarioError> {
        v.as_str().map(String::from).ok_or_else(|| self.wrong(k, "a string", v))
    }

    fn string(&self, k: &str) -> Result<String, ScenarioError> {
        self.string_of(k, self.need(k)?)
    }

    fn opt_string(&self, k: &str) -> Result<Option<String>, ScenarioError> {
        self.get(k).map(|v| self.string_of(k, v)).transpose()
    }

    fn opt_u64(&self, k: &str) -> Result<Option<u64>, ScenarioError> {
        self.get(k).map(|v| v.as_u64().ok_or_else(|| self.wrong(k, "a whole number", v))).transpose()
    }

    /// A list (absent: empty; `null` is refused, as a list field has no null).
    fn list(&self, k: &str) -> Result<&'a [Value], ScenarioError> {
        match self.map.get(k) {
            None => Ok(&[]),
            Some(v) => v.as_array().map(Vec::as_slice).ok_or_else(|| self.wrong(k, "a list", v)),
        }
    }

    fn strings(&self, k: &str) -> Result<Vec<String>, ScenarioError> {
        let path = self.field(k);
        self.list(k)?
            .iter()
            .enumerate()
            .map(|(i, v)| {
                v.as_str().map(String::from).ok_or_else(|| {
                    ScenarioError::new(format!("{path}[{i}]"), format!("expected a string, found {}", kind(v)))
                })
            })
            .collect()
    }

    fn text(&self, k: &str) -> Result<RawText, ScenarioError> {
        let o = Obj::new(self.need(k)?, self.field(k), &["en", "zh"])?;
        Ok(RawText { en: o.string("en")?, zh: o.string("zh")? })
    }
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
            title: o.text("title")?,
            summary: o.text("summary")?,
            scenario: o.get("scenario").cloned(),
            preset: o.opt_string("preset")?,
            stops,
            challenge: RawChallenge::read(o.need("challenge")?)?,
        })
    }
}

impl RawStop {
    fn read(v: &Value, path: String) -> Result<RawStop, ScenarioError> {
        let o = Obj::new(v, path, &["at", "caption", "question", "act"])?;
        let question = o.get("question").map(|q| RawQuestion::read(q, o.field("question"))).transpose()?;
        let act = match o.get("act") {
            Some(a) => {
                let a = Obj::new(a, o.field("act"), &["prompt", "until", "do"])?;
                let action = a.need("do")?;
                let action = action.as_object().ok_or_else(|| a.wrong("do", "an object", action))?.clone();
                Some(RawAct { prompt: a.text("prompt")?, until: a.string("until")?, action })
            }
            None => None,
        };
        Ok(RawStop { at: o.need("at")?.clone(), caption: o.text("caption")?, question, act })
    }
}

impl RawQuestion {
    fn read(v: &Value, path: String) -> Result<RawQuestion, ScenarioError> {
        let keys = [
            "check", "prompt", "explain", "choices", "when", "kinds", "nodes", "property", "sweep", "orders", "resize",
        ];
        let o = Obj::new(v, path, &keys)?;
        let nodes = o
            .list("nodes")?
            .iter()
            .map(|n| n.as_u64().and_then(|n| NodeId::try_from(n).ok()).ok_or_else(|| o.wrong("nodes", "a node id", n)))
            .collect::<Result<_, _>>()?;
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
            prompt: o.text("prompt")?,
            explain: o.text("explain")?,
            choices: o.strings("choices")?,
            when: o.get("when").cloned(),
            kinds: o.strings("kinds")?,
            nodes,
            property: o.opt_string("property")?,
            sweep,
            orders: o.opt_u64("orders")?,
            resize,
        })
    }
}

impl RawChallenge {
    fn read(v: &Value) -> Result<RawChallenge, ScenarioError> {
        let o = Obj::new(v, "challenge".into(), &["caption", "property", "hint", "search"])?;
        let search = match o.map.get("search") {
            Some(v) => v.as_bool().ok_or_else(|| o.wrong("search", "true or false", v))?,
            None => false,
        };
        Ok(RawChallenge { caption: o.text("caption")?, property: o.string("property")?, hint: o.text("hint")?, search })
    }
}
