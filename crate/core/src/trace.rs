//! The trace format: a scenario plus the interventions a person made while it ran, and the step
//! to show. This triple is what an exported file, a link and a bug report carry, and replaying
//! it rebuilds the exact run.
//!
//! ```json
//! { "format": "election-lab-trace/2",
//!   "scenario": { "algorithm": "bully", "nodes": [1, 2, 3, 4, 5], ... },
//!   "interventions": [ {"step": 7, "time": 13, "partition": [[1, 2], [3, 4, 5]]} ],
//!   "step": 47 }
//! ```
//!
//! Each intervention is anchored twice: by `step` (how many events had run when it was applied)
//! and by virtual `time`. The step replays the same algorithm exactly; the time lets the same
//! faults be applied to *another* algorithm on the same nodes, whose steps differ. Traces of
//! format 1 have no `time`: it is filled in on replay. A bare scenario is read as a trace
//! without interventions.

use crate::error::ScenarioError;
use crate::scenario::{Action, Scenario};
use crate::Time;
use serde_json::{json, Map, Value};

pub const FORMAT: &str = "election-lab-trace/2";
const FORMATS_READ: &[&str] = &["election-lab-trace/1", FORMAT];
/// The most breakpoints a trace carries (as [`crate::breakpoint::MAX_BREAKPOINTS`]).
const MAX_UNTIL: usize = 64;

/// An action applied by hand while the run was at `step` (after that step's event) and `time`.
#[derive(Clone, Debug, PartialEq)]
pub struct Intervention {
    pub step: u64,
    pub time: Time,
    pub action: Action,
}

impl Intervention {
    /// `{"step": 7, "time": 13, "crash": 80}`.
    pub fn to_value(&self) -> Value {
        let mut o = Map::new();
        o.insert("step".into(), json!(self.step));
        o.insert("time".into(), json!(self.time));
        self.action.write_json(&mut o);
        Value::Object(o)
    }
}

/// An intervention as read from a file: the time may be missing (format 1).
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub step: u64,
    pub time: Option<Time>,
    pub action: Action,
}

/// A parsed trace. Its scenario's format is checked; its algorithm and interventions are
/// checked when it is replayed.
#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    pub scenario: Scenario,
    pub interventions: Vec<Entry>,
    /// The step to show; `None` means the end of the replayed interventions.
    pub step: Option<u64>,
    /// Read from a bare scenario: errors found later name its fields without `scenario.`.
    pub bare: bool,
    /// Breakpoints the run was stopped at (texts, see [`crate::breakpoint`]); checked
    /// against the algorithm when they are parsed. Older traces have none.
    pub until: Vec<String>,
}

impl Trace {
    pub fn from_json(text: &str) -> Result<Trace, ScenarioError> {
        crate::scenario::check_size(text.len())?;
        let value: Value = crate::parse_json(text)?;
        Trace::from_value(&value)
    }

    pub fn from_value(value: &Value) -> Result<Trace, ScenarioError> {
        let Some(obj) = value.as_object() else {
            return Err(ScenarioError::new("", "a trace must be a JSON object"));
        };
        if !obj.contains_key("scenario") {
            return Ok(Trace {
                scenario: Scenario::from_value(value)?,
                interventions: vec![],
                step: None,
                bare: true,
                until: vec![],
            });
        }
        for k in obj.keys() {
            // `search`: what a counterexample search changed of the scenario (read by people).
            if !["scenario", "interventions", "step", "format", "until", "search"].contains(&k.as_str()) {
                return Err(ScenarioError::new(
                    k.clone(),
                    "unknown field (a trace has format, scenario, interventions, step, until, search)",
                ));
            }
        }
        if let Some(f) = obj.get("format") {
            if !f.as_str().is_some_and(|f| FORMATS_READ.contains(&f)) {
                return Err(ScenarioError::new(
                    "format",
                    format!("unknown trace format {f} (this version reads {})", FORMATS_READ.join(", ")),
                ));
            }
        }
        crate::scenario::check_len(
            obj.get("interventions"),
            "interventions",
            crate::scenario::MAX_ACTIONS,
            "interventions",
        )?;
        let scenario = Scenario::from_value(&obj["scenario"]).map_err(|e| e.within("scenario"))?;
        let list = match obj.get("interventions") {
            None | Some(Value::Null) => &[][..],
            Some(Value::Array(a)) => &a[..],
            Some(_) => return Err(ScenarioError::new("interventions", "expected a list")),
        };
        let mut interventions = Vec::with_capacity(list.len());
        let mut last = 0;
        for (i, iv) in list.iter().enumerate() {
            let path = format!("interventions[{i}]");
            let o = iv.as_object().ok_or_else(|| {
                ScenarioError::new(path.clone(), "expected an object like {\"step\": 4, \"crash\": 80}")
            })?;
            let step = o.get("step").and_then(Value::as_u64).ok_or_else(|| {
                ScenarioError::new(format!("{path}.step"), "expected the step number it was applied at")
            })?;
            if step < last {
                return Err(ScenarioError::new(format!("{path}.step"), "interventions must be in step order"));
            }
            last = step;
            let time =
                match o.get("time") {
                    None | Some(Value::Null) => None,
                    Some(v) => Some(v.as_u64().ok_or_else(|| {
                        ScenarioError::new(format!("{path}.time"), "expected a whole number of ticks")
                    })?),
                };
            let action = Action::from_object(o, &["step", "time"], &path)?;
            action.validate(&scenario.nodes, &path)?;
            interventions.push(Entry { step, time, action });
        }
        let step = match obj.get("step") {
            None | Some(Value::Null) => None,
            Some(v) => Some(v.as_u64().ok_or_else(|| ScenarioError::new("step", "expected a step number"))?),
        };
        let until = match obj.get("until") {
            None | Some(Value::Null) => vec![],
            Some(Value::Array(a)) if a.len() <= MAX_UNTIL => a
                .iter()
                .enumerate()
                .map(|(i, v)| match v.as_str() {
                    Some(t) if t.len() <= 200 => Ok(t.to_string()),
                    _ => Err(ScenarioError::new(
                        format!("until[{i}]"),
                        "expected a breakpoint text of at most 200 characters, like \"role:3=leader\"",
                    )),
                })
                .collect::<Result<_, _>>()?,
            Some(_) => {
                return Err(ScenarioError::new(
                    "until",
                    format!("expected a list of at most {MAX_UNTIL} breakpoint texts, like [\"violation\"]"),
                ))
            }
        };
        Ok(Trace { scenario, interventions, step, bare: false, until })
    }

    /// The trace as JSON (what `from_value` reads back).
    pub fn value(scenario: &Scenario, interventions: &[Intervention], step: Option<u64>) -> Value {
        let ivs: Vec<Value> = interventions.iter().map(Intervention::to_value).collect();
        let mut o = json!({"format": FORMAT, "scenario": scenario.to_value(), "interventions": ivs});
        if let Some(s) = step {
            o["step"] = json!(s);
        }
        o
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_format_1_without_times_and_writes_format_2_with_them() {
        let old = r#"{"format":"election-lab-trace/1","scenario":{"algorithm":"bully","nodes":[1,2,3]},
                      "interventions":[{"step":2,"crash":3},{"step":5,"partition":[[1],[2,3]],"lines":[[0,0,9,9]]}],"step":9}"#;
        let t = Trace::from_json(old).unwrap();
        assert_eq!(t.interventions[0], Entry { step: 2, time: None, action: Action::Crash(3) });
        assert_eq!(t.step, Some(9));
        let ivs = vec![Intervention { step: 2, time: 4, action: Action::Crash(3) }];
        let v = Trace::value(&t.scenario, &ivs, Some(9));
        assert_eq!(v["format"], FORMAT);
        assert_eq!(v["interventions"][0], json!({"step": 2, "time": 4, "crash": 3}));
        let back = Trace::from_value(&v).unwrap();
        assert_eq!(back.interventions[0].time, Some(4));
    }

    #[test]
    fn errors_name_the_field() {
        let e = |t: &str| Trace::from_json(t).unwrap_err().to_string();
        assert_eq!(e(r#"{"scenario":{"algorithm":"bully","nodes":[1,1]}}"#), "scenario.nodes: duplicate id 1");
        assert_eq!(
            e(r#"{"scenario":{"algorithm":"bully","nodes":[1,2]},"interventions":[{"step":1,"time":"x","crash":1}]}"#),
            "interventions[0].time: expected a whole number of ticks"
        );
        assert_eq!(
            e(r#"{"scenario":{"algorithm":"bully","nodes":[1,2]},"interventions":[{"step":1,"crash":7}]}"#),
            "interventions[0].crash: unknown node 7"
        );
        assert!(e(r#"{"scenario":{"algorithm":"bully","nodes":[1,2]},"format":"x/9"}"#)
            .starts_with("format: unknown trace format"));
        assert!(
            e(r#"{"scenario":{"algorithm":"bully","nodes":[1,2]},"colour":1}"#).starts_with("colour: unknown field")
        );
    }
}
