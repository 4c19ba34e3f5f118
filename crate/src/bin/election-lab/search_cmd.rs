//! `election-lab search`: the counterexample search's command line (its help text, the budget
//! parser, and the run that prints progress and the summary).

use super::{println, Failure, OUT_OF_BUDGET};
use election_lab::search::{FaultSet, Options};

#[derive(clap::Args)]
pub(super) struct Search {
    /// Scenario or exported trace (JSON; its interventions are ignored); `-` reads standard input
    #[arg(value_name = "FILE")]
    file: String,
    /// The property to break: one the algorithm claims (split-brain, two-leaders-in-term,
    /// lease-overlap, duplicate-token, chosen-once, ...), split-brain on any algorithm, or
    /// no-leader-within:T
    #[arg(long, value_name = "ID")]
    property: String,
    /// Give up after this much wall-clock time (30s, 2m, 500ms): for people; the result then
    /// depends on the machine's speed
    #[arg(long, value_name = "TIME", conflicts_with = "budget_steps")]
    budget: Option<String>,
    /// Give up after this many simulation steps (deterministic) [default: 1000000]
    #[arg(long, value_name = "N")]
    budget_steps: Option<u64>,
    /// The faults to inject (comma-separated)
    #[arg(long, value_name = "KINDS", default_value = "crash,recover,partition,heal,drop,delay")]
    faults: String,
    /// Seeds the stream the schedules are drawn from
    #[arg(long, value_name = "S", default_value_t = 0)]
    seed: u64,
    /// At most this many faults per schedule (at least 1)
    #[arg(long, value_name = "K", default_value_t = 4)]
    max_faults: u64,
    /// Run each schedule until this tick [default: the scenario's stop.max_time, at most 1000]
    #[arg(long, value_name = "TICK")]
    until: Option<u64>,
    /// Write the shrunk counterexample's trace to OUT, if one is found (it opens in the page at
    /// the violating step)
    #[arg(long, value_name = "OUT.json")]
    out: Option<String>,
    /// Search the algorithm of this Rhai script instead of the one the scenario names
    #[arg(long, value_name = "FILE.rhai")]
    script: Option<String>,
    /// Search the algorithm of node processes, as `run --node-cmd` runs them (`CMD` for every
    /// node, `ID=CMD` for one); a schedule that takes another way than the processes lived
    /// through starts them again. A process that fails stops the search, exit code 3
    #[arg(long, value_name = "CMD", conflicts_with = "script")]
    node_cmd: Vec<String>,
    /// With --node-cmd: how long a process may take to answer one event (default 5000)
    #[arg(long, value_name = "MS", requires = "node_cmd", value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    node_timeout: Option<u64>,
    /// The memory the search's tree of explored histories may take, in MiB: at the cap it stops
    /// and says what it explored
    #[arg(long, value_name = "MIB", default_value_t = (election_lab::search::MAX_MEMORY >> 20) as u64,
          value_parser = clap::value_parser!(u64).range(1..=65_536))]
    max_memory: u64,
}

pub(super) const SEARCH_HELP: &str = "\
Each schedule runs the scenario with its own seed and 1 to --max-faults faults at random ticks of
the first two thirds of the run: crash, recover, partition (two random sides), heal, drop (a
message in flight), delay (the whole schedule runs with a wider latency range, up to 2*max+2,
and lets another of the messages due at one tick go first at up to 6 such choice points, as
{\"defer\": message} interventions). On clusters of at most 5 nodes every other schedule is
instead the next delivery order of a depth-first enumeration over the first 8 choice points of
the fault-free scenario (3 choices each), until all were tried.
The property is checked after every step. The first violating schedule is shrunk as long as it
still breaks the property: fewer faults, fewer nodes, the simulator's own delivery order, the
scenario's own latency and seed, faults earlier, an earlier violating step; then without each
remaining fault or deferral in turn until none can go (the result is 1-minimal). Every change
is said: faults and deferred deliveries found and kept, and a seed, latency range or nodes
other than the scenario's.
no-leader-within:T is broken when, T ticks after the last fault, the live nodes have not agreed
on a live leader at any instant since that fault.
States seen = distinct trace-hash prefixes (the hash of the history up to a step: events, sends,
timers, faults), not world states: two histories that reach the same world count twice. They are
kept as a tree of explored histories within --max-memory (default 64 MiB): a search that reaches
it stops there, and says so (capped in the JSON, with the cap and what was explored).
Progress goes to standard error. Standard output: one JSON object {found, property, schedules,
states, steps, orders (systematic delivery orders tried), counterexample, capped?}; counterexample is
{step, time, nodes (those involved, e.g. the two leaders), faults_found (before shrinking),
faults (the shrunk schedule's interventions), schedule, algorithm, seed, trace_hash, changes
{faults {found, kept}, deferrals {found, kept}, seed? {scenario, used}, latency? {scenario, used},
nodes_removed}}.
With --out, the trace {format, scenario, interventions, step, search {property, changes}} opens
at the violating step (in the
page: Import; here: election-lab run OUT).
Exit code 0: no violation within the budget; 1: a counterexample was found; 2: bad arguments or a
bad scenario.";

/// `30s`, `2m`, `500ms`, `1h`, or a number of seconds.
pub(super) fn parse_duration(text: &str) -> Result<std::time::Duration, String> {
    let t = text.trim();
    let (num, unit) = t.split_at(t.find(|c: char| !c.is_ascii_digit() && c != '.').unwrap_or(t.len()));
    let v: f64 = num.parse().map_err(|_| format!("--budget: '{text}' is not a duration like 30s, 2m or 500ms"))?;
    let secs = match unit {
        "" | "s" => v,
        "ms" => v / 1000.0,
        "m" | "min" => v * 60.0,
        "h" => v * 3600.0,
        _ => return Err(format!("--budget: unknown unit '{unit}' (use ms, s, m or h)")),
    };
    if !secs.is_finite() || secs <= 0.0 || secs > 1e7 {
        return Err(format!("--budget: '{text}' is out of range"));
    }
    Ok(std::time::Duration::from_secs_f64(secs))
}

/// Runs `election-lab search`; returns whether a counterexample was found.
pub(super) fn search(a: Search) -> Result<bool, Failure> {
    let Search {
        file,
        property,
        budget,
        budget_steps,
        faults,
        seed,
        max_faults,
        until,
        out,
        script,
        node_cmd,
        node_timeout,
        max_memory,
    } = a;
    let file = file.as_str();
    let text = super::input::trace_text(file)?;
    let trace = election_lab::trace::Trace::from_json(&text).map_err(|e| format!("{file}: {e}"))?;
    // The node processes (if any) are killed when `_processes` goes out of scope.
    let (scenario, processes) = if node_cmd.is_empty() {
        (super::script_cmd::retarget(trace.scenario, script.as_deref())?, None)
    } else {
        let (scenario, launched) = super::node_cmd::retarget(trace.scenario, &node_cmd, node_timeout)?;
        (scenario, Some(launched))
    };
    let wall = budget.as_deref().map(parse_duration).transpose()?;
    let faults = FaultSet::parse(&faults).map_err(|e| format!("--{e}"))?;
    if max_faults == 0 || max_faults > election_lab::search::MAX_FAULTS {
        return Err(format!("--max-faults: from 1 to {}", election_lab::search::MAX_FAULTS).into());
    }
    let opts = Options {
        property: property.clone(),
        faults,
        seed,
        budget_steps: if wall.is_some() { u64::MAX } else { budget_steps.unwrap_or(1_000_000) },
        faults_per_schedule: (1, max_faults),
        until,
        max_memory: usize::try_from(max_memory << 20).unwrap_or(usize::MAX),
        ..Options::default()
    };
    let mut s = election_lab::search::Search::new(scenario, opts).map_err(super::check_cmd::field_error(file))?;
    let start = std::time::Instant::now();
    let mut last_report = start;
    let mut p = s.progress();
    while !p.finished() {
        // On node processes, in small slices: a process that failed ends the search.
        p = s.advance(if processes.is_some() { 200 } else { 20_000 });
        if processes.as_ref().is_some_and(|l| l.fault().is_some()) {
            break;
        }
        let now = std::time::Instant::now();
        if now.duration_since(last_report).as_millis() >= 500 || p.finished() {
            last_report = now;
            eprintln!(
                "election-lab: search: {} schedules ({} systematic delivery orders{}), {} distinct states, {} steps{}",
                p.schedules,
                p.orders,
                if p.orders_exhausted { ", all tried" } else { "" },
                p.states,
                p.steps,
                if p.shrink_runs > 0 { format!("; shrinking: {} runs", p.shrink_runs) } else { String::new() }
            );
        }
        if wall.is_some_and(|w| now.duration_since(start) >= w) && p.phase == election_lab::search::Phase::Searching {
            break;
        }
    }
    let result = s.result();
    let mut summary = serde_json::json!({
        "found": result.is_some(),
        "property": property,
        "schedules": p.schedules,
        "states": p.states,
        "steps": p.steps,
        "orders": p.orders,
        "counterexample": result.map(|c| c.summary()),
    });
    match result {
        Some(c) => {
            eprintln!(
                "election-lab: search: {} broken at step {} (t={}) by schedule {}; shrunk: {}",
                c.property,
                c.step,
                c.time,
                c.schedule,
                c.changes.describe(election_lab::meta::Lang::En),
            );
            if let Some(path) = &out {
                std::fs::write(path, format!("{}\n", c.trace)).map_err(|e| format!("cannot write {path}: {e}"))?;
            }
        }
        None => {
            eprintln!("election-lab: search: no violation in {} schedules, {} distinct states", p.schedules, p.states);
            summary["counterexample"] = serde_json::Value::Null;
            if let Some(why) = s.capped() {
                eprintln!("election-lab: search: {why}");
                summary["capped"] = serde_json::Value::String(why);
            }
        }
    }
    println(summary)?;
    if let Some(why) = processes.as_ref().and_then(|p| p.fault()) {
        return Err(Failure(OUT_OF_BUDGET, format!("a node process failed during the search: {why}")));
    }
    Ok(result.is_some())
}
