//! `election-lab check-model`: the exhaustive checker's command line (its arguments, help text,
//! and the run that prints the verdict, the coverage and a JSON summary).

use super::*;
use election_lab::check::{move_counts, Bounds, Checker, Verdict};

pub(super) const CHECK_MODEL_HELP: &str = "\
Explores every reachable world state of the scenario breadth-first: node states with their pending
timers, messages in flight (a multiset; per link in send order when the network is FIFO or its
latency fixed), which nodes are up, the partition, the fault budget used, and how far the
scenario's schedule has gone. A state is known by a fingerprint (64-bit FNV-1a) of all that, so two
schedules that reach the same world are one state.
Time is asynchronous (unless --timed): any pending timer of a live node may fire next and any message in flight may
arrive next (on a FIFO link, the oldest); handlers see the clock at 0. The scenario's own schedule
runs in its order, each entry at any moment. Within the bounds: crash a live node, recover a
crashed one, split the cluster in two (when whole; heal is free), lose a message in flight.
The result says what was proved:
  exhausted: the whole reachable space (under the fault bounds) is N states, no violation;
  no violation: all N unique states (depth <= D, ...) — states at the depth bound not expanded;
  violated after K moves: a shortest schedule (breadth-first), replayed in the simulator as
  interventions ({\"deliver\": message} and {\"fire\": [node, timer]} forced steps, crashes, ...);
  with --out its trace opens at the violating step (election-lab run OUT, or Import in the page);
  state limit reached: nothing is proved beyond the states counted.
--timed (or --horizon T): the timed model. The clock is part of the state and runs in whole ticks
up to the horizon T (default the scenario's stop.max_time); a message sent at t arrives at any tick
of [t+lo, t+hi] (the network's latency), a timer armed for [lo, hi] fires at any tick of its range,
the schedule's entries happen at their times; events of one tick happen in any order, and time
moves on only when nothing pending is due. Handlers read the clock (leases). A counterexample
replays on the scenario with \"latest\": true in its network (every delay the top of its range),
each move forced at its tick. --max-drift RHO (implies --timed): clocks drift; a timer armed for d
ticks of its node's clock fires at any real tick of [floor(d/(1+RHO)), ceil(d/(1-RHO))], each timer on
its own (a clock whose rate varies within 1 +- RHO); a counterexample that needs a drifted timer is
not replayed by the simulator (which has no drift): its moves are printed. Not with --symmetry, --swarm, --unordered or an eventually property.
Coverage: how often each narration rule fired over every move explored, and the algorithm's rules
that never did.
sometimes:leader-agreed is a sometimes property: witnessed after K moves (a shortest path, with
--out its trace) or never (no state explored has every live node naming the same live leader).
eventually:leader-agreed needs the whole reachable space (no --depth cut): it holds, or a lasso
breaks it: a shortest path to a state with no move left, or to a loop that repeats forever
without agreement and is weakly fair (every delivery or timer possible all along the loop is
taken in it); counterexample.lasso is the index of the loop's first move. Exit code 3 when the
space was cut.
Swarm (Holzmann, Joshi & Groce 2008): --swarm K/N (or slurm, slurm/N, k8s/N) runs task K of N,
which explores each state's moves in an order shuffled from (--seed, K), within the same bounds
and its own --max-states; it says what it explored (never 'all states' unless it exhausted the
space) and exits 0 at its state limit. --merge-swarm PART.json... reads the N tasks' outputs
(refusing a missing, duplicated or foreign part by name) and reports the union: the violations
found, the shortest of them, the states of each task. A swarm covers; it does not exhaust.
--symmetry (Ip & Dill 1996): for an algorithm that declares that its nodes act on ids only as
identities (Raft), a state is known by the least fingerprint over the renamings of the nodes that
keep what the scenario says of particular nodes (initial leader, schedule, per-node parameters):
one state per orbit, reported as 'N unique states up to symmetry'. Counterexamples are still real
schedules. Refused for other algorithms, above 5 nodes and for eventually properties.
Standard output: one JSON object {property, verdict, states, transitions, depth, bounds, fifo,
coverage, never, handler_error (a scripted handler's first failure, or null), counterexample} (and symmetry: {renamings} with --symmetry; swarm: {task, of, seed, key} with --swarm). Exit code 0: no violation (or witnessed); 1: violated (or never); 2: bad arguments or a
bad scenario, or an algorithm whose handlers read the clock (verdict reads-clock: the asynchronous
model has no clock to give them); 3: the state limit was reached first.";

#[derive(clap::Args)]
pub(super) struct CheckModel {
    /// Scenario or exported trace (JSON; its interventions are ignored); `-` reads standard input
    #[arg(value_name = "FILE", required_unless_present = "merge_swarm")]
    file: Option<String>,
    /// A safety property the algorithm claims (split-brain, two-leaders-in-term, chosen-once,
    /// ...), split-brain on any algorithm, or sometimes:leader-agreed (a state where every live
    /// node names the same live leader is reachable: a witness path), or eventually:leader-agreed
    /// (every weakly fair schedule reaches one: a lasso if not)
    #[arg(long, value_name = "ID", required_unless_present = "merge_swarm")]
    property: Option<String>,
    /// Crashes allowed, at most
    #[arg(long, value_name = "K", default_value_t = 0)]
    crashes: u32,
    /// Recoveries allowed, at most
    #[arg(long, value_name = "K", default_value_t = 0)]
    recoveries: u32,
    /// Partitions (into two sides) allowed, at most
    #[arg(long, value_name = "K", default_value_t = 0)]
    partitions: u32,
    /// Messages the network may lose, at most
    #[arg(long, value_name = "K", default_value_t = 0)]
    drops: u32,
    /// Explore schedules of at most this many moves [default: no bound]
    #[arg(long, value_name = "D")]
    depth: Option<u32>,
    /// Stop after this many unique states (memory: about 64 bytes each, frontier included)
    #[arg(long, value_name = "N", default_value_t = 2_000_000)]
    max_states: usize,
    /// Let messages on a link overtake each other even on a FIFO network
    #[arg(long)]
    unordered: bool,
    /// Write the counterexample's trace to OUT, if one is found
    #[arg(long, value_name = "OUT.json")]
    out: Option<String>,
    /// Run as task K of a swarm of N (K/N, slurm, slurm/N, k8s/N): a search order of its own
    #[arg(long, value_name = "K/N", value_parser = swarm_arg)]
    swarm: Option<(u64, u64)>,
    /// The swarm's seed (each task's order comes from it and the task's number)
    #[arg(long, value_name = "S", default_value_t = 0, requires = "swarm")]
    seed: u64,
    /// Symmetry reduction: one state per renaming of the nodes (for an algorithm that declares
    /// its nodes act alike whatever their ids, such as Raft)
    #[arg(long, conflicts_with_all = ["swarm", "merge_swarm"])]
    symmetry: bool,
    /// Merge the JSON outputs of a swarm's tasks into one report
    #[arg(long, value_name = "PART.json", num_args = 1.., conflicts_with_all = ["file", "swarm", "out"])]
    merge_swarm: Vec<String>,
    /// Check the algorithm of this Rhai script instead of the one the scenario names
    #[arg(long, value_name = "FILE.rhai", conflicts_with = "merge_swarm")]
    script: Option<String>,
    /// The timed model: discrete ticks up to the horizon (default: the scenario's
    /// stop.max_time), every latency and timer delay any value in its range
    #[arg(long, conflicts_with_all = ["swarm", "merge_swarm", "symmetry", "unordered"])]
    timed: bool,
    /// The timed model's horizon: every event at or before tick T (implies --timed)
    #[arg(long, value_name = "T", conflicts_with_all = ["swarm", "merge_swarm", "symmetry", "unordered"])]
    horizon: Option<u64>,
    /// The timed model with drifting clocks: each timer of a node's clock fires at any real tick
    /// its length allows at a rate within 1 ± RHO (0 ≤ RHO < 1; implies --timed)
    #[arg(long, value_name = "RHO", conflicts_with_all = ["swarm", "merge_swarm", "symmetry", "unordered"])]
    max_drift: Option<f64>,
}

/// `--swarm` reads what `--shard` reads (see `experiment::parse_shard`), named as itself.
fn swarm_arg(s: &str) -> Result<(u64, u64), String> {
    shard_arg(s).map_err(|e| e.replace("--shard", "--swarm"))
}

/// Exit code of `check-model` when the state limit stopped it.
const LIMIT: u8 = 3;

pub(super) fn check_model(a: CheckModel) -> Result<(), Failure> {
    if !a.merge_swarm.is_empty() {
        return super::swarm_cmd::merge_swarm(&a.merge_swarm);
    }
    let (file, property) = (a.file.clone().unwrap_or_default(), a.property.clone().unwrap_or_default());
    let text = read(&file)?;
    let mut trace = election_lab::trace::Trace::from_json(&text).map_err(|e| format!("{file}: {e}"))?;
    trace.scenario = super::script_cmd::retarget(trace.scenario, a.script.as_deref())?;
    if a.max_states == 0 {
        return Err("--max-states: at least 1".to_string().into());
    }
    let drift = match a.max_drift {
        None => 0,
        Some(r) if (0.0..1.0).contains(&r) => (r * 1000.0).round() as u32,
        Some(r) => return Err(format!("--max-drift: {r} is not a clock drift (at least 0, below 1)").into()),
    };
    let timed = a.timed || a.horizon.is_some() || a.max_drift.is_some();
    let bounds = Bounds {
        crashes: a.crashes,
        recoveries: a.recoveries,
        partitions: a.partitions,
        drops: a.drops,
        depth: a.depth,
        max_states: a.max_states,
        horizon: timed.then(|| a.horizon.unwrap_or(trace.scenario.stop.max_time)),
        max_drift: drift,
    };
    let key = super::swarm_cmd::key(&trace.scenario, &property, &bounds, a.unordered);
    let mut checker = Checker::new(&trace.scenario, &property, bounds).map_err(field_error(&file))?;
    if a.unordered {
        checker.unordered();
    }
    if let Some((k, _)) = a.swarm {
        checker.swarm(a.seed, k);
    }
    if a.symmetry {
        let renamings = checker.symmetry().map_err(|e| format!("--{e}"))?;
        eprintln!(
            "election-lab: check-model: symmetry: {renamings} renaming{} of the nodes (those that keep what the scenario says of particular nodes)",
            if renamings == 1 { "" } else { "s" }
        );
    }
    let start = std::time::Instant::now();
    let r = checker.run();
    let secs = start.elapsed().as_secs_f64();
    let sentence = match a.swarm {
        Some(_) => super::swarm_cmd::task_sentence(&r),
        None => r.sentence(),
    };
    eprintln!("election-lab: check-model: {sentence}");
    eprintln!(
        "election-lab: check-model: {} transitions, deepest state {} moves, {:.2} s ({:.0} unique states/s)",
        r.transitions,
        r.depth,
        secs,
        r.states as f64 / secs.max(1e-9)
    );
    let fired: Vec<String> = r.coverage.iter().map(|(k, c)| format!("{k} ×{c}")).collect();
    eprintln!(
        "election-lab: check-model: rules fired: {}",
        if fired.is_empty() { "none".into() } else { fired.join(", ") }
    );
    if let Some(why) = &r.handler_error {
        eprintln!("election-lab: check-model: a handler failed (that move changed nothing): {why}");
    }
    if !r.never.is_empty() {
        eprintln!("election-lab: check-model: rules never fired: {}", r.never.join(", "));
    }
    let (verdict, code) = match &r.verdict {
        Verdict::Limit | Verdict::Holds { complete: false } if a.swarm.is_some() && !r.eventually => ("covered", None),
        Verdict::Violated(_) if r.sometimes => ("witnessed", None),
        Verdict::Holds { complete: false } if r.eventually => ("undecided", Some(LIMIT)),
        Verdict::Holds { .. } if r.sometimes => ("never", Some(FOUND)),
        Verdict::Holds { complete: true } => ("exhausted", None),
        Verdict::Holds { complete: false } => ("no-violation", None),
        Verdict::Violated(_) => ("violated", Some(FOUND)),
        Verdict::Limit => ("state-limit", Some(LIMIT)),
        Verdict::ReadsClock => ("reads-clock", Some(BAD_INPUT)),
    };
    let counterexample = match &r.verdict {
        Verdict::Violated(c) => {
            if let Some(path) = &a.out {
                std::fs::write(path, format!("{}\n", c.trace)).map_err(|e| format!("cannot write {path}: {e}"))?;
            }
            serde_json::json!({
                "moves": c.moves.len(),
                "by_kind": move_counts(&c.moves),
                "step": c.step,
                "time": c.time,
                "nodes": c.nodes,
                "replayed": c.replayed,
                "lasso": c.lasso,
                "trace": c.trace,
            })
        }
        _ => serde_json::Value::Null,
    };
    let b = &r.bounds;
    let mut summary = serde_json::json!({
        "property": r.property,
        "sometimes": r.sometimes,
        "eventually": r.eventually,
        "verdict": verdict,
        "states": r.states,
        "transitions": r.transitions,
        "depth": r.depth,
        "bounds": {"crashes": b.crashes, "recoveries": b.recoveries, "partitions": b.partitions,
                   "drops": b.drops, "depth": b.depth, "max_states": b.max_states},
        "time_model": if b.horizon.is_some() { "timed" } else { "asynchronous" },
        "horizon": b.horizon,
        "max_drift": b.max_drift as f64 / 1000.0,
        "fifo": r.fifo,
        "coverage": r.coverage.iter().map(|(k, c)| serde_json::json!([k, c])).collect::<Vec<_>>(),
        "never": r.never,
        "handler_error": r.handler_error,
        "counterexample": counterexample,
    });
    if let Some(renamings) = r.symmetry {
        summary["symmetry"] = serde_json::json!({"renamings": renamings});
    }
    if let Some((k, n)) = a.swarm {
        summary["swarm"] = serde_json::json!({"task": k, "of": n, "seed": a.seed, "key": key, "sentence": sentence});
    }
    println(summary)?;
    match code {
        Some(c) => Err(Failure(c, String::new())),
        None => Ok(()),
    }
}

/// How a refused scenario field or property reads: a property names its option (`--property`),
/// anything else the file it came from.
pub fn field_error<E: std::fmt::Display>(file: &str) -> impl Fn(E) -> String + '_ {
    move |e| {
        let field = e.to_string();
        if field.starts_with("property") {
            format!("--{field}")
        } else {
            format!("{file}: {field}")
        }
    }
}
