//! `check-model --swarm K/N` and `--merge-swarm`: swarm verification (Holzmann, Joshi & Groce,
//! "Swarm Verification", ASE 2008) as the tasks of a job array. Each task explores the same
//! bounded space breadth-first in a successor order of its own, within its own state limit;
//! the merge reports the union of what they found. A swarm covers; it does not exhaust.

use super::*;
use election_lab::check::{Bounds, Report, Verdict};
use election_lab::machine::Fnv64;
use election_lab::scenario::Scenario;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::hash::Hasher;

/// What every task of one swarm must share: the scenario, the property, the bounds (its state
/// limit included) and the link order, as a 64-bit FNV-1a fingerprint in hex.
pub(super) fn key(scenario: &Scenario, property: &str, bounds: &Bounds, unordered: bool) -> String {
    let mut h = Fnv64::default();
    let b = bounds;
    let text = format!(
        "{}\n{property}\n{} {} {} {} {:?} {}\n{unordered}",
        scenario.to_json(),
        b.crashes,
        b.recoveries,
        b.partitions,
        b.drops,
        b.depth,
        b.max_states
    );
    h.write(text.as_bytes());
    format!("{:016x}", h.finish())
}

/// A swarm task's one line: what it explored, never more.
pub(super) fn task_sentence(r: &Report) -> String {
    let bounds = r.bounds.describe();
    match &r.verdict {
        Verdict::Limit | Verdict::Holds { complete: false } if !r.eventually => format!(
            "{}: no {} among the {} states this task explored ({bounds}; {}): a swarm task covers part of the space, it does not exhaust it",
            r.property,
            if r.sometimes { "witness" } else { "violation" },
            r.states,
            match r.verdict {
                Verdict::Limit => format!("its state limit {} reached", r.bounds.max_states),
                _ => "states at the depth bound not expanded".to_string(),
            }
        ),
        _ => r.sentence(),
    }
}

/// One task's output, as the merge needs it.
struct Part {
    name: String,
    of: u64,
    seed: u64,
    key: String,
    property: String,
    verdict: String,
    states: u64,
    bounds: Value,
    counterexample: Value,
}

fn part(name: &str) -> Result<(u64, Part), String> {
    let text = read(name)?;
    let v: Value = serde_json::from_str(text.trim()).map_err(|e| format!("--merge-swarm: {name}: not JSON: {e}"))?;
    let not = |what: &str| format!("--merge-swarm: {name}: not the output of a check-model --swarm task (no {what})");
    let sw = v.get("swarm").ok_or_else(|| not("swarm"))?;
    let num = |o: &Value, k: &str| o.get(k).and_then(Value::as_u64).ok_or_else(|| not(k));
    let text_of = |o: &Value, k: &str| o.get(k).and_then(Value::as_str).map(str::to_string).ok_or_else(|| not(k));
    let task = num(sw, "task")?;
    let p = Part {
        name: name.to_string(),
        of: num(sw, "of")?,
        seed: num(sw, "seed")?,
        key: text_of(sw, "key")?,
        property: text_of(&v, "property")?,
        verdict: text_of(&v, "verdict")?,
        states: num(&v, "states")?,
        bounds: v.get("bounds").cloned().ok_or_else(|| not("bounds"))?,
        counterexample: v.get("counterexample").cloned().unwrap_or(Value::Null),
    };
    if task == 0 || task > p.of {
        return Err(format!("--merge-swarm: {name}: task {task} of {}: not between 1 and {}", p.of, p.of));
    }
    Ok((task, p))
}

/// `--merge-swarm PART...`: the union of a swarm's tasks.
pub(super) fn merge_swarm(names: &[String]) -> Result<(), Failure> {
    let mut tasks: BTreeMap<u64, Part> = BTreeMap::new();
    for name in names {
        let (k, p) = part(name)?;
        if let Some(first) = tasks.values().next() {
            if p.key != first.key || p.property != first.property || p.of != first.of || p.seed != first.seed {
                return Err(format!(
                    "--merge-swarm: {} is task {k}/{} of another swarm than {} (task of {}): another scenario, property, bounds, seed or task count",
                    p.name, p.of, first.name, first.of
                )
                .into());
            }
        }
        if let Some(other) = tasks.get(&k) {
            return Err(format!("--merge-swarm: {} and {} are both task {k}/{}", other.name, p.name, p.of).into());
        }
        tasks.insert(k, p);
    }
    let first = tasks.values().next().ok_or_else(|| "--merge-swarm: no part given".to_string())?;
    let of = first.of;
    let missing: Vec<String> = (1..=of).filter(|k| !tasks.contains_key(k)).map(|k| format!("{k}/{of}")).collect();
    if !missing.is_empty() {
        return Err(format!("--merge-swarm: task {} missing (of {of}): resubmit it alone", missing.join(", ")).into());
    }
    let witness = first.verdict == "witnessed" || first.verdict == "never" || first.property.starts_with("sometimes:");
    let found: Vec<(u64, &Part)> =
        tasks.iter().filter(|(_, p)| !p.counterexample.is_null()).map(|(k, p)| (*k, p)).collect();
    let moves = |p: &Part| p.counterexample.get("moves").and_then(Value::as_u64).unwrap_or(u64::MAX);
    // The shortest; of equally short ones, the lowest task's.
    let shortest = found.iter().min_by_key(|(k, p)| (moves(p), *k));
    let exhausted: Vec<u64> = tasks.iter().filter(|(_, p)| p.verdict == "exhausted").map(|(k, _)| *k).collect();
    let total: u64 = tasks.values().map(|p| p.states).sum();
    let covers = "a swarm covers but does not exhaust: together the tasks explored at most the sum of their states (they overlap), and a state none of them reached was not checked";
    let (property, what) = (first.property.clone(), if witness { "witness" } else { "violation" });
    let sentence = match shortest {
        Some((k, p)) => format!(
            "{property}: {} tasks of {of} found a {what}; the shortest: {} moves (task {k}, {}){}",
            found.len(),
            moves(p),
            p.name,
            if exhausted.is_empty() { format!("; {covers}") } else { String::new() }
        ),
        None if !exhausted.is_empty() => format!(
            "{property}: no {what}: task {} exhausted the whole reachable space ({} states)",
            exhausted[0], tasks[&exhausted[0]].states
        ),
        None => format!("{property}: no {what} among the states the {of} tasks explored ({total} in sum, overlaps counted); {covers}"),
    };
    eprintln!("election-lab: check-model: {sentence}");
    let verdict = match (shortest.is_some(), witness, exhausted.is_empty()) {
        (true, true, _) => "witnessed",
        (true, false, _) => "violated",
        (false, _, false) => "exhausted",
        (false, _, true) => "covered",
    };
    let shortest_json = shortest.map(|(k, p)| json!({"task": k, "part": p.name, "counterexample": p.counterexample}));
    let summary = json!({
        "property": property,
        "verdict": verdict,
        "sentence": sentence,
        "bounds": first.bounds,
        "swarm": {"of": of, "seed": first.seed, "key": first.key},
        "found": found.iter().map(|(k, p)| json!({"task": k, "part": p.name, "moves": moves(p)})).collect::<Vec<_>>(),
        "shortest": shortest_json,
        "tasks": tasks.iter().map(|(k, p)| json!({"task": k, "part": p.name, "verdict": p.verdict, "states": p.states})).collect::<Vec<_>>(),
        "states_sum": total,
        "states_sum_note": "the sum of each task's unique states: a state two tasks both reached is counted twice",
        "exhaustive": exhausted.first(),
        "note": covers,
    });
    println(summary)?;
    if shortest.is_some() && !witness {
        return Err(Failure(FOUND, String::new()));
    }
    Ok(())
}
