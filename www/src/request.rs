//! What the header's tools (scenario bar, picture export) ask of the browser; the app's effects
//! carry it out.

/// What the bar asks of the browser (handled by the app's effects).
#[derive(Clone, Debug, PartialEq)]
pub enum Request {
    /// Copy a link (`false`) or embed code (`true`) and show it.
    Share(bool),
    Export,
    /// Files chosen or dropped at once (a scenario or trace, or a real cluster's logs).
    ImportFiles(Vec<web_sys::File>),
    /// A picture of the canvas (SVG or PNG) to download.
    Picture(crate::export::Options),
    /// An animated PNG of steps `from..=to` (None: from the cursor, 40 steps), ms per frame.
    Animation(crate::export::Options, (Option<u64>, Option<u64>), u32),
    /// A figure strip of the steps listed ("3, 10, 25"), side by side (SVG, PNG or TikZ).
    Strip(crate::export::Options, String),
    /// The space-time diagram as TikZ, in these colours.
    SpaceTimeTikz(crate::export::Scheme),
    /// Raft's pre-vote switched: the same run (scenario, interventions, step) replayed with
    /// `params.pre_vote` the other way.
    TogglePreVote,
}

/// The trace `trace` (a trace's JSON value) with its scenario's `params.pre_vote` switched.
pub fn toggled_pre_vote(mut trace: serde_json::Value) -> serde_json::Value {
    let on = trace["scenario"]["params"]["pre_vote"].as_bool().unwrap_or(false);
    if !trace["scenario"]["params"].is_object() {
        trace["scenario"]["params"] = serde_json::json!({});
    }
    trace["scenario"]["params"]["pre_vote"] = serde_json::Value::Bool(!on);
    trace
}

#[cfg(test)]
mod tests {
    use election_lab::{presets, Engine};

    #[test]
    fn the_pre_vote_switch_replays_the_same_run_the_other_way() {
        let mut e = Engine::new(presets::find("raft-cold").unwrap().scenario()).unwrap();
        e.apply(election_lab::scenario::Action::Crash(4)).ok();
        let t = super::toggled_pre_vote(e.trace_value());
        assert_eq!(t["scenario"]["params"]["pre_vote"], true);
        assert_eq!(t["interventions"], e.trace_value()["interventions"], "the same interventions");
        let back = super::toggled_pre_vote(t.clone());
        assert_eq!(back["scenario"]["params"]["pre_vote"], false);
        let on = Engine::from_trace_value(&t).expect("it opens");
        assert_eq!(on.scenario().params.get("pre_vote"), Some(&serde_json::Value::Bool(true)));
    }
}
