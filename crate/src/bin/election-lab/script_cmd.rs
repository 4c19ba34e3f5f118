//! `--script FILE.rhai` of `run` and `search`: the scenario runs the script's algorithm instead
//! of the one it names (see the guide's "Your own algorithm" chapter).

use super::*;
use election_lab::protocols::script;
use election_lab::Scenario;

/// Loads the script at `path` and returns its algorithm's id. Errors name the file, line and
/// column.
pub(super) fn load_script(path: &str) -> Result<&'static str, String> {
    let source = read(path)?;
    let algorithm = script::load(&source).map_err(|e| format!("{path}: {e}"))?;
    Ok(algorithm.id)
}

/// The engine of `file` (a scenario or an exported trace, JSON), running the algorithm of the
/// script at `script` if one is given.
pub(super) fn engine(file: &str, script: Option<&str>, summary_only: bool) -> Result<Engine, String> {
    let Some(script) = script else {
        return if summary_only { load_summary_only(file) } else { load(file) };
    };
    let id = load_script(script)?;
    let text = read(file)?;
    let mut value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{file}: with --script, a scenario or trace in JSON: {e}"))?;
    let target = match value.get_mut("scenario") {
        Some(s) => s,
        None => &mut value,
    };
    match target.as_object_mut() {
        Some(obj) => obj.insert("algorithm".into(), id.into()),
        None => return Err(format!("{file}: not a scenario (a JSON object)")),
    };
    let text = value.to_string();
    let built = if summary_only { Engine::from_trace_json_summary_only(&text) } else { Engine::from_trace_json(&text) };
    built.map_err(|e| format!("{file}: {e}"))
}

/// `scenario` running the script's algorithm, if a script is given.
pub(super) fn retarget(mut scenario: Scenario, script: Option<&str>) -> Result<Scenario, String> {
    if let Some(path) = script {
        scenario.algorithm = load_script(path)?.to_string();
    }
    Ok(scenario)
}

/// The message and exit code 3 when the script failed during the run (a runtime error or a
/// handler over its budget): the run stopped after that step; the summary printed before says
/// so in `halted`.
pub(super) fn fault_check(engine: &Engine) -> Option<String> {
    engine.fault().map(|why| format!("the script stopped the run: {why}"))
}
