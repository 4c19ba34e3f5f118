//! What the player hands to the workbench (see `workbench.rs`): the tool asked for and the page's
//! query, as JSON text, written by the player's reducer and read back by the workbench.

use super::{Action, Offer, State};
use crate::i18n::tr;
use election_lab::meta::k;
use serde_json::{json, Value};
use std::rc::Rc;

/// The family this build holds, or `None` for the full player and the workbench.
pub const FAMILY: Option<&str> = election_lab::registry::FAMILY;
/// The bundles a handoff can name, as `index.html`'s loader knows them: the workbench.
pub const WORKBENCH: &str = "workbench";
/// The full player (`election-lab-www`).
pub const PLAYER: &str = "player";

/// The tools that live in the workbench, as a handoff names them.
pub const EXPERIMENTS: &str = "experiments";
pub const SEARCH: &str = "search";
pub const CHECK: &str = "check";
pub const IMPORT: &str = "import";
pub const RECORD: &str = "record";
pub const COMPARE: &str = "compare";
pub const COMPARE_PRESET: &str = "compare-preset";
pub const PICKER: &str = "picker";
pub const FORK: &str = "fork";
/// The network editor (`components/topology_editor.rs`).
pub const TOPOLOGY: &str = "topology";
/// The watch panel's sparklines of an inspector value.
pub const WATCH: &str = "watch";
/// The breakpoint editor (`components/breakpoints.rs`): the player's "Set breakpoints…".
pub const BREAKPOINTS: &str = "breakpoints";
/// The editor of users' own algorithms ("Write your own…").
pub const SCRIPT: &str = "script";
/// A link the player cannot open itself (`?experiment=…`, `?compare=…`): the workbench opens
/// the query.
pub const LINK: &str = "link";

/// The handoff for a workbench tool asked for by `action` in the player, with the page's query
/// `query` (and the run kept, for a fork); `None` for an action that asks for no tool.
pub fn handoff(action: &Action, query: &str, offer: Option<&Offer>) -> Option<String> {
    let (open, extra) = match action {
        Action::Compare(algs) => (COMPARE, json!({ "algorithms": algs.iter().map(|a| a.id).collect::<Vec<_>>() })),
        Action::ComparePreset => (COMPARE_PRESET, Value::Null),
        Action::TogglePicker => (PICKER, Value::Null),
        Action::Fork => (FORK, Value::Object([("offer".to_string(), offer?.to_value())].into_iter().collect())),
        Action::ToggleExperiments => (EXPERIMENTS, Value::Null),
        Action::PickExperiment(id) => (EXPERIMENTS, json!({ "experiment": id })),
        Action::FindCounterexample(p) => (SEARCH, json!({ "property": p })),
        Action::CheckEverySchedule(p, b) => (
            CHECK,
            json!({ "property": p, "crashes": b.crashes, "partitions": b.partitions, "depth": b.depth, "horizon": b.horizon }),
        ),
        Action::OpenTool(tool) => (*tool, Value::Null),
        // A trace's text the player does not read (JSON Lines), read by the workbench.
        Action::Import(text) => (IMPORT, json!({ "text": text })),
        Action::Script(super::script::ScriptAction::Open) => (SCRIPT, Value::Null),
        // By the field's id (a text key's name would bring the catalog's names table into the player).
        Action::Watch(Some(id)) => (WATCH, json!({ "value": id })),
        _ => return None,
    };
    let mut v = json!({ "open": open, "query": query });
    if let Value::Object(more) = extra {
        v.as_object_mut()?.extend(more);
    }
    Some(election_lab::write_json(&v))
}

/// What the workbench does on arrival: the query to open, the actions to apply, and whether to
/// import the files handed over and to open the lesson recorder.
#[derive(Debug, Default, PartialEq)]
pub struct Arrival {
    pub query: String,
    pub actions: Vec<Action>,
    pub import: bool,
    pub record: bool,
    /// Open the network editor.
    pub edit: bool,
}

/// The bundle a handoff asks for (`bundle::WORKBENCH` or `bundle::PLAYER`), or `None` where it
/// is the bundle running (the workbench asked for in the workbench, the full player in itself).
pub fn bundle_of(text: &str) -> Option<&'static str> {
    let v: Value = election_lab::parse_json(text).ok()?;
    match v.get("to").and_then(Value::as_str) {
        Some(PLAYER) => FAMILY.map(|_| PLAYER),
        _ => (!crate::WORKBENCH).then_some(WORKBENCH),
    }
}

/// Reads a handoff (`None` if it is not one).
pub fn arrival(text: &str) -> Option<Arrival> {
    let v: Value = election_lab::parse_json(text).ok()?;
    let mut a = Arrival { query: v.get("query")?.as_str()?.to_string(), ..Arrival::default() };
    match v.get("open")?.as_str()? {
        EXPERIMENTS => {
            let id = v.get("experiment").and_then(Value::as_str).and_then(super::ready_experiment);
            a.actions.push(id.map_or(Action::ToggleExperiments, Action::PickExperiment));
        }
        SEARCH => a.actions.push(Action::FindCounterexample(v.get("property")?.as_str()?.to_string())),
        // The player's "Check every schedule…": the workbench opens with the form.
        CHECK if v.get("property").is_none() => {}
        CHECK => {
            let n = |key: &str| v.get(key).and_then(Value::as_u64).and_then(|n| u32::try_from(n).ok());
            let bounds = super::CheckBounds {
                crashes: n("crashes")?,
                partitions: n("partitions")?,
                depth: n("depth")?,
                horizon: v.get("horizon").and_then(Value::as_u64),
            };
            a.actions.push(Action::CheckEverySchedule(v.get("property")?.as_str()?.to_string(), bounds));
        }
        COMPARE => {
            let all = election_lab::registry::all();
            let ids = v.get("algorithms")?.as_array()?;
            let algs = ids.iter().map(|id| all.iter().copied().find(|a| Some(a.id) == id.as_str()));
            a.actions.push(Action::Compare(algs.collect::<Option<Vec<_>>>()?));
        }
        COMPARE_PRESET => a.actions.push(Action::ComparePreset),
        PICKER => a.actions.push(Action::TogglePicker),
        SCRIPT => a.actions.push(Action::Script(super::script::ScriptAction::Open)),
        WATCH => {
            a.actions.push(Action::Watch(Some(v.get("value")?.as_str()?.to_string())));
        }
        FORK => {
            a.actions.push(Action::Offered(Rc::new(Offer::from_value(v.get("offer")?)?)));
            a.actions.push(Action::Fork);
        }
        IMPORT => match v.get("text").and_then(Value::as_str) {
            Some(text) => a.actions.push(Action::Import(text.to_string())),
            None => a.import = true,
        },
        RECORD => a.record = true,
        TOPOLOGY => a.edit = true,
        // The workbench shows the breakpoint editor beside the controls of every run.
        BREAKPOINTS | LINK => {}
        _ => return None,
    }
    Some(a)
}

impl State {
    /// In the player, `action` asks for a tool of the workbench: the run pauses and the workbench
    /// loads (the app's `workbench::use_workbench`) while a notice says so. Anything else, and
    /// everything in the workbench and in an embed, changes nothing.
    pub(super) fn hand_off(&mut self, action: Action) -> bool {
        let query = self.query(false);
        self.hand_off_on(action, &query)
    }

    fn hand_off_on(&mut self, action: Action, query: &str) -> bool {
        // An embed hands off only a link it cannot open itself (compare lanes).
        if crate::WORKBENCH || (self.embed && action != Action::OpenTool(LINK)) {
            return false;
        }
        let query = if query.starts_with('?') { query.to_string() } else { format!("?{query}") };
        let Some(text) = handoff(&action, &query, self.offer.as_deref()) else { return false };
        let changed = self.playback.playing && self.apply(Action::Pause);
        self.handoff = Some(Rc::new(text));
        self.messages.notice = Some(tr(self.lang, k::UI_LOADING_THE_WORKBENCH).to_string());
        changed
    }

    /// A query this build cannot show (`bundle::elsewhere`: another family's algorithm, or a
    /// lesson without the lesson player): the address bar gets it and the full player loads
    /// (`bundle::use_bundles`) while the run goes on, paused, and a notice says so. The full
    /// player shows every query itself. The query keeps the language shown: the other bundle
    /// would otherwise open in the browser's.
    pub(super) fn elsewhere(&mut self, query: &str) -> bool {
        if FAMILY.is_none() && crate::LESSONS {
            return false;
        }
        let mut query = if query.starts_with('?') { query.to_string() } else { format!("?{query}") };
        if !super::link::params(&query).iter().any(|(k, _)| k == "lang") {
            query.push_str(&format!("&lang={}", self.lang.tag()));
        }
        let changed = self.playback.playing && self.apply(Action::Pause);
        let text = json!({ "open": LINK, "query": query, "to": PLAYER });
        self.handoff = Some(Rc::new(election_lab::write_json(&text)));
        self.messages.notice = Some(tr(self.lang, k::UI_LOADING_THE_FULL_PLAYER).to_string());
        changed
    }

    /// `?experiment=…` (not in an embed, which ignores it), `?compare=…` or breakpoints in the
    /// player: the workbench opens the link as it is.
    pub(super) fn hand_off_link(&mut self, query: &str) {
        let ps = super::link::params(query);
        let has = |name: &str| ps.iter().any(|(k, _)| k == name);
        // A trace as JSON Lines: the player leaves their reader to the workbench.
        let lines = || super::link::trace_text(&ps).ok().flatten().is_some_and(|t| election_lab::engine::is_jsonl(&t));
        // Breakpoints (`until=`, or inside a trace): the workbench plays to them and lists them.
        let until = || !self.engine.get().until().is_empty();
        if has("compare")
            || has("script")
            || has("assignment")
            || (has("experiment") && !self.embed)
            || lines()
            || until()
        {
            self.hand_off_on(Action::OpenTool(LINK), query);
        }
    }

    /// The run kept in the player, arrived in the workbench.
    pub(super) fn offered(&mut self, offer: Rc<Offer>) -> bool {
        self.offer = Some(offer);
        false
    }

    /// The workbench (or the full player) could not be loaded: said in an alert, and the run goes on.
    pub(super) fn workbench_failed(&mut self, why: String) -> bool {
        let player = self.handoff.take().and_then(|h| bundle_of(&h)) == Some(PLAYER);
        let key = if player { k::UI_THE_FULL_PLAYER_COULD_NOT_LOAD } else { k::UI_THE_WORKBENCH_COULD_NOT_LOAD };
        self.messages.notice = None;
        self.messages.alert = Some(key.format(self.lang, &[&why]));
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_handoff_reads_back_as_the_tool_it_asks_for_on_the_same_query() {
        let q = "?preset=bully-heartbeats&step=12";
        let cases = [
            (Action::ToggleExperiments, vec![Action::ToggleExperiments]),
            (Action::PickExperiment("one-partition"), vec![Action::PickExperiment("one-partition")]),
            (
                Action::CheckEverySchedule(
                    "split-brain".into(),
                    super::super::CheckBounds { crashes: 1, partitions: 0, depth: 6, horizon: Some(40) },
                ),
                vec![Action::CheckEverySchedule(
                    "split-brain".into(),
                    super::super::CheckBounds { crashes: 1, partitions: 0, depth: 6, horizon: Some(40) },
                )],
            ),
            (Action::FindCounterexample("split-brain".into()), vec![Action::FindCounterexample("split-brain".into())]),
        ];
        for (asked, done) in cases {
            let a = arrival(&handoff(&asked, q, None).unwrap()).unwrap();
            assert_eq!((a.query.as_str(), a.actions, a.import, a.record), (q, done, false, false));
        }
        let two: Vec<_> = election_lab::registry::all().iter().copied().rev().take(2).collect();
        for (asked, done) in [
            (Action::Compare(two.clone()), vec![Action::Compare(two)]),
            (Action::ComparePreset, vec![Action::ComparePreset]),
            (Action::TogglePicker, vec![Action::TogglePicker]),
            (
                Action::Script(super::super::script::ScriptAction::Open),
                vec![Action::Script(super::super::script::ScriptAction::Open)],
            ),
        ] {
            assert_eq!(arrival(&handoff(&asked, q, None).unwrap()).unwrap().actions, done);
        }
        // A fork carries the run kept; without one there is nothing to fork.
        assert_eq!(handoff(&Action::Fork, q, None), None);
        let trace = election_lab::presets::find("bully-heartbeats").unwrap().scenario().to_json_pretty();
        let offer =
            Offer::from_value(&json!({ "at": 3, "seen": 9, "old": serde_json::from_str::<Value>(&trace).unwrap() }))
                .unwrap();
        assert_eq!(offer.kind, super::super::OfferKind::Fork { at: 3, seen: 9 });
        let a = arrival(&handoff(&Action::Fork, q, Some(&offer)).unwrap()).unwrap();
        assert_eq!(a.actions, vec![Action::Offered(Rc::new(offer)), Action::Fork]);
        let a = arrival(&handoff(&Action::OpenTool(IMPORT), q, None).unwrap()).unwrap();
        assert!(a.import && !a.record && a.actions.is_empty());
        // A trace as JSON Lines, pasted in the player, is read by the workbench.
        let lines = "{\"election_lab_trace\": 1}\n{\"step\": 1}".to_string();
        let a = arrival(&handoff(&Action::Import(lines.clone()), q, None).unwrap()).unwrap();
        assert!(!a.import && a.actions == vec![Action::Import(lines)]);
        let a = arrival(&handoff(&Action::OpenTool(RECORD), q, None).unwrap()).unwrap();
        assert!(a.record && !a.import && a.actions.is_empty());
        let a = arrival(&handoff(&Action::OpenTool(CHECK), q, None).unwrap()).unwrap();
        assert_eq!((a.query.as_str(), a.actions.len()), (q, 0), "the form is opened, no check started");
        let a = arrival(&handoff(&Action::OpenTool(TOPOLOGY), q, None).unwrap()).unwrap();
        assert!(a.edit && !a.record && a.actions.is_empty());
        // The breakpoint editor is drawn beside every run in the workbench: the run is all it needs.
        let a = arrival(&handoff(&Action::OpenTool(BREAKPOINTS), q, None).unwrap()).unwrap();
        assert_eq!((a.query.as_str(), a.actions.len(), a.edit, a.import), (q, 0, false, false));
        let a = arrival(&handoff(&Action::OpenTool(LINK), "?experiment=one-partition", None).unwrap()).unwrap();
        assert_eq!((a.query.as_str(), a.actions.len()), ("?experiment=one-partition", 0));
    }

    #[test]
    fn what_is_not_a_handoff_is_refused() {
        assert_eq!(handoff(&Action::TogglePlay, "?", None), None);
        for text in [
            "",
            "{}",
            "[1]",
            r#"{"open":"experiments"}"#,
            r#"{"open":"nothing","query":"?"}"#,
            r#"{"open":"search","query":"?"}"#,
        ] {
            assert_eq!(arrival(text), None, "{text}");
        }
        // An experiment the workbench does not know opens the view on its first one.
        let a = arrival(r#"{"open":"experiments","query":"?","experiment":"nope"}"#).unwrap();
        assert_eq!(a.actions, vec![Action::ToggleExperiments]);
    }
}
