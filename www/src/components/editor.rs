//! The scenario editor: a form for the common fields and the scenario as JSON. Its props change
//! only when the scenario does, so stepping and playing never redraw it.

use crate::i18n::{tr, Lang};
use crate::meta;
use crate::state::Action;
use election_lab::meta::k;
use election_lab::Scenario;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct EditorProps {
    pub scenario: Rc<Scenario>,
    pub on: Callback<Action>,
    pub lang: Lang,
}

/// Builds a scenario from the form's fields (`field(name)` gives a field's trimmed text).
pub fn scenario_from_fields(field: impl Fn(&str) -> String) -> Result<Scenario, String> {
    let num = |name: &str, what: &str| -> Result<u64, String> {
        field(name).parse::<u64>().map_err(|_| format!("{what}: '{}' is not a whole number", field(name)))
    };
    let nodes_raw = field("nodes");
    let nodes: Vec<u64> = if nodes_raw.contains(',') || nodes_raw.contains(' ') {
        nodes_raw
            .split([',', ' '])
            .filter(|x| !x.is_empty())
            .map(|x| x.parse::<u64>().map_err(|_| format!("nodes: '{x}' is not a node id")))
            .collect::<Result<_, _>>()?
    } else {
        let count = nodes_raw
            .parse::<u64>()
            .map_err(|_| format!("nodes: '{nodes_raw}' is neither a count nor a list of ids"))?;
        if !(2..=64).contains(&count) {
            return Err(format!("nodes: the count must be between 2 and 64, found {count}"));
        }
        (1..=count).collect()
    };
    if nodes.len() > 64 {
        return Err(format!("nodes: at most 64 nodes can be drawn, found {}", nodes.len()));
    }
    let mut obj = serde_json::json!({
        "algorithm": field("algorithm"),
        "nodes": nodes,
        "seed": num("seed", "seed")?,
        "network": {"latency": [num("lat_lo", "latency min")?, num("lat_hi", "latency max")?]},
        "stop": {"max_time": 400},
    });
    if !field("hb_interval").is_empty() {
        obj["heartbeats"] = serde_json::json!({"interval": num("hb_interval", "heartbeat interval")?, "timeout": num("hb_timeout", "heartbeat timeout")?});
    }
    if !field("leader").is_empty() {
        obj["initial_leader"] = serde_json::json!(num("leader", "initial leader")?);
    }
    Scenario::from_value(&obj).map_err(|e| e.to_string())
}

fn read_form(form: &NodeRef) -> Result<Scenario, String> {
    let form = form.cast::<Element>().ok_or("the form is not on the page")?;
    scenario_from_fields(|name| {
        form.query_selector(&format!("[name={name}]"))
            .ok()
            .flatten()
            .and_then(|e| {
                e.clone()
                    .dyn_into::<HtmlInputElement>()
                    .map(|i| i.value())
                    .ok()
                    .or_else(|| e.dyn_into::<HtmlSelectElement>().ok().map(|s| s.value()))
            })
            .unwrap_or_default()
            .trim()
            .to_string()
    })
}

#[function_component]
pub fn Editor(p: &EditorProps) -> Html {
    crate::probe::rendered("editor");
    let form = use_node_ref();
    let json = use_node_ref();
    let s = &p.scenario;
    let onsubmit = {
        let form = form.clone();
        p.on.reform(move |e: SubmitEvent| {
            e.prevent_default();
            Action::ApplyScenario(read_form(&form))
        })
    };
    let import = {
        let json = json.clone();
        super::maybe(&p.on, move |_: MouseEvent| json.cast::<HtmlTextAreaElement>().map(|t| Action::Import(t.value())))
    };
    let nodes_text = s.nodes.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(",");
    let hb = s.heartbeats;
    let l = p.lang;
    html! {
        <section class="panel" aria-label={tr(l, k::UI_SCENARIO)}>
            <h2>{ tr(l, k::UI_SCENARIO) }</h2>
            <form ref={form} class="editor" {onsubmit}>
                <label>{ tr(l, k::UI_ALGORITHM) }
                    <select name="algorithm">
                        { for meta::algorithm_choices(l).into_iter().map(|(name, title)| html!{ <option value={name} selected={name == s.algorithm}>{ title }</option> }) }
                    </select>
                </label>
                <label>{ tr(l, k::UI_NODES_A_COUNT_2_64) }<input name="nodes" value={nodes_text} /></label>
                <label>{ tr(l, k::UI_SEED) }<input name="seed" type="number" min="0" value={s.seed.to_string()} /></label>
                <label>{ tr(l, k::UI_LATENCY_MIN) }<input name="lat_lo" type="number" min="1" value={s.network.latency.0.to_string()} /></label>
                <label>{ tr(l, k::UI_LATENCY_MAX) }<input name="lat_hi" type="number" min="1" value={s.network.latency.1.to_string()} /></label>
                <label>{ tr(l, k::UI_HEARTBEAT_INTERVAL_EMPTY_NONE) }<input name="hb_interval" type="number" min="1" value={hb.map(|h| h.interval.to_string()).unwrap_or_default()} /></label>
                <label>{ tr(l, k::UI_HEARTBEAT_TIMEOUT) }<input name="hb_timeout" type="number" min="2" value={hb.map(|h| h.timeout.to_string()).unwrap_or_default()} /></label>
                <label>{ tr(l, k::UI_INITIAL_LEADER_EMPTY_NONE) }<input name="leader" value={s.initial_leader.map(|l| l.to_string()).unwrap_or_default()} /></label>
                <button type="submit">{ tr(l, k::UI_APPLY_SCENARIO) }</button>
            </form>
            <details>
                <summary>{ tr(l, k::UI_SCENARIO_TRACE_JSON) }</summary>
                <textarea ref={json} class="json" aria-label={tr(l, k::UI_SCENARIO_JSON)} rows="10" value={s.to_json_pretty()} />
                <button onclick={import}>{ tr(l, k::UI_LOAD_THIS_JSON) }</button>
            </details>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::scenario_from_fields;

    fn fields(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> String {
        move |name| pairs.iter().find(|p| p.0 == name).map(|p| p.1.to_string()).unwrap_or_default()
    }

    #[test]
    fn the_form_builds_a_scenario_or_says_what_is_wrong() {
        let ok = scenario_from_fields(fields(&[
            ("algorithm", "raft"),
            ("nodes", "5"),
            ("seed", "7"),
            ("lat_lo", "1"),
            ("lat_hi", "3"),
        ]))
        .unwrap();
        assert_eq!(ok.nodes, vec![1, 2, 3, 4, 5]);
        let ids = scenario_from_fields(fields(&[
            ("algorithm", "bully"),
            ("nodes", "3, 9,12"),
            ("seed", "0"),
            ("lat_lo", "1"),
            ("lat_hi", "1"),
            ("leader", "12"),
        ]))
        .unwrap();
        assert_eq!((ids.nodes.clone(), ids.initial_leader), (vec![3, 9, 12], Some(12)));
        let bad = scenario_from_fields(fields(&[
            ("algorithm", "bully"),
            ("nodes", "99"),
            ("seed", "0"),
            ("lat_lo", "1"),
            ("lat_hi", "1"),
        ]));
        assert_eq!(bad.unwrap_err(), "nodes: the count must be between 2 and 64, found 99");
        let bad = scenario_from_fields(fields(&[("algorithm", "bully"), ("nodes", "4"), ("seed", "x")]));
        assert_eq!(bad.unwrap_err(), "seed: 'x' is not a whole number");
    }
}
