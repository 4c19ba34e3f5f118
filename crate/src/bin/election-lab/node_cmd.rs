//! `--node-cmd` of `run`: every node of the scenario runs as a child process speaking JSON Lines
//! (see the guide's "Nodes in any language" chapter and `protocols::process`).

use super::*;
use election_lab::protocols::process::{self, Launched};
use election_lab::{NodeId, Scenario};
use std::time::Duration;

/// The engine of `file` running on the node processes `specs` name (`CMD` for every node,
/// `ID=CMD` for one), each answer within `timeout_ms`: a scenario or a one-object trace (JSON)
/// runs their algorithm instead of the one it names; a JSON Lines trace they wrote (`--trace`)
/// is re-run on them, every line checked. The guard kills the processes when dropped.
pub(super) fn engine(
    file: &str,
    specs: &[String],
    timeout_ms: Option<u64>,
    summary_only: bool,
) -> Result<(Engine, Launched), String> {
    let timeout = Duration::from_millis(timeout_ms.unwrap_or(process::DEFAULT_TIMEOUT_MS));
    let (text, lines) = match input::open(file)? {
        input::Input::Text(text) => (text, false),
        input::Input::Lines { header, .. } => (header, true),
    };
    let mut value: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| format!("{file}: with --node-cmd, a scenario or trace in JSON: {e}"))?;
    let target = match value.get_mut("scenario") {
        Some(s) => s,
        None => &mut value,
    };
    let scenario = Scenario::from_value(target).map_err(|e| format!("{file}: {e}"))?;
    let commands = commands(specs, &scenario.nodes)?;
    let launched = process::launch(&commands, timeout).map_err(|e| format!("--node-cmd: {e}"))?;
    if lines {
        // A trace of these processes' algorithm: re-run on them, line by line.
        if scenario.algorithm != launched.id() {
            return Err(format!(
                "{file}: a trace of `{}`, and the node processes declare `{}`",
                scenario.algorithm,
                launched.id()
            ));
        }
        if file == "-" {
            return Err("--node-cmd: read a JSON Lines trace from a file, not from standard input".into());
        }
        let engine = if summary_only {
            Engine::from_trace_json_summary_only(&text).map_err(|e| format!("{file}: {e}"))?
        } else {
            input::load(file)?
        };
        return Ok((engine, launched));
    }
    if let Some(obj) = target.as_object_mut() {
        obj.insert("algorithm".into(), launched.id().into());
    }
    let text = value.to_string();
    let built = if summary_only { Engine::from_trace_json_summary_only(&text) } else { Engine::from_trace_json(&text) };
    Ok((built.map_err(|e| format!("{file}: {e}"))?, launched))
}

/// `scenario` retargeted to the algorithm of node processes started for its nodes (`specs` as
/// for `run`), for the search: the guard kills them when dropped.
pub(super) fn retarget(
    mut scenario: Scenario,
    specs: &[String],
    timeout_ms: Option<u64>,
) -> Result<(Scenario, Launched), String> {
    let timeout = Duration::from_millis(timeout_ms.unwrap_or(process::DEFAULT_TIMEOUT_MS));
    let commands = commands(specs, &scenario.nodes)?;
    let launched = process::launch(&commands, timeout).map_err(|e| format!("--node-cmd: {e}"))?;
    scenario.algorithm = launched.id().to_string();
    Ok((scenario, launched))
}

/// Each node's command, in the scenario's order: `ID=CMD` for that node, else the `CMD` given
/// for all.
fn commands(specs: &[String], nodes: &[NodeId]) -> Result<Vec<(NodeId, String)>, String> {
    let mut all: Option<&str> = None;
    let mut one = std::collections::BTreeMap::new();
    for spec in specs {
        let per_node = spec.split_once('=').filter(|(id, _)| !id.is_empty() && id.chars().all(|c| c.is_ascii_digit()));
        match per_node {
            Some((id, cmd)) => {
                let id: NodeId = id.parse().map_err(|_| format!("--node-cmd {spec}: {id} is not a node id"))?;
                if !nodes.contains(&id) {
                    return Err(format!("--node-cmd {spec}: the scenario has no node {id}"));
                }
                if one.insert(id, cmd).is_some() {
                    return Err(format!("--node-cmd: node {id} is given two commands"));
                }
            }
            None if all.is_some() => return Err("--node-cmd: two commands for every node; give one".into()),
            None => all = Some(spec),
        }
    }
    let mut out = Vec::new();
    for &id in nodes {
        let cmd = one.get(&id).copied().or(all).ok_or_else(|| {
            format!("--node-cmd: no command for node {id} (give `--node-cmd CMD` for every node, or `{id}=CMD`)")
        })?;
        process::words(cmd).map_err(|e| format!("--node-cmd: {e}"))?;
        out.push((id, cmd.to_string()));
    }
    Ok(out)
}

/// The message for exit code 3 when a node process failed during the run (it exited, did not
/// answer in time, or wrote something that is not an answer): the run stopped after that step.
pub(super) fn fault_check(engine: &Engine) -> Option<String> {
    engine.fault().map(|why| format!("a node process stopped the run: {why}"))
}
