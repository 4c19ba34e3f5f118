//! `election-lab`: run a scenario file and print what happened as one JSON object, or run an
//! experiment (many runs) and print one CSV row per run.
//!
//! The arguments are declared with `clap`'s derive API, which gives every subcommand its
//! `--help`, `--version`, errors that name the bad argument, and exit code 2 for usage errors.
//! Errors found in the input itself (an unreadable file, a bad scenario) also exit with 2, with
//! one line `election-lab: FILE: field: what is wrong` on standard error.

use clap::builder::PossibleValuesParser;
use clap::{CommandFactory, Parser, Subcommand};
use election_lab::breakpoint::{self, Breakpoint, Watch};
use election_lab::engine::Stop;
use election_lab::experiment::{parse_shard, Format, Merge, Sweep};
use election_lab::meta::Lang;
use election_lab::protocols::recorded;
use election_lab::scenario::{check_size, MAX_BYTES};
use election_lab::sim::Budget;
use election_lab::Engine;
use election_lab::{diff, lesson, link, presets};
use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

#[path = "election-lab/input.rs"]
mod input;
#[path = "election-lab/node_cmd.rs"]
mod node_cmd;
#[path = "election-lab/script_cmd.rs"]
mod script_cmd;
#[path = "election-lab/search_cmd.rs"]
mod search_cmd;
use search_cmd::{search, Search, SEARCH_HELP};
#[path = "election-lab/check_cmd.rs"]
mod check_cmd;
#[path = "election-lab/swarm_cmd.rs"]
mod swarm_cmd;
use check_cmd::{check_model, CheckModel, CHECK_MODEL_HELP};
#[path = "election-lab/conform_cmd.rs"]
mod conform_cmd;
use conform_cmd::{conform, Conform, CONFORM_HELP};
#[path = "election-lab/import_cmd.rs"]
mod import_cmd;
use import_cmd::{import, Import, IMPORT_HELP};
#[path = "election-lab/grade_cmd.rs"]
mod grade_cmd;
use grade_cmd::{grade, Grade, GRADE_HELP};
#[path = "election-lab/stdout.rs"]
mod stdout;
use stdout::{print, println, write_error};

/// Exit code for bad input, the same as clap uses for bad arguments.
const BAD_INPUT: u8 = 2;
/// Exit code of `diff` when the runs differ (like diff(1)).
const DIFFERENT: u8 = 1;
/// Exit code of a run stopped by its history budget (memory) before its scenario's limits.
const OUT_OF_BUDGET: u8 = 3;

/// The page `run --link` points at, unless `--base` says otherwise (`make serve`).
const DEFAULT_BASE: &str = "http://127.0.0.1:8080/";
/// Exit code of `search` when it found a counterexample (0: none within the budget).
const FOUND: u8 = 1;
/// Exit code of `lesson check` when a stop says what its run does not show (`lesson::truth`).
const UNTRUE: u8 = 1;

#[derive(Parser)]
#[command(
    name = "election-lab",
    version,
    about = "Run leader-election scenarios deterministically",
    after_help = "Exit codes: 0 done (`search`: no counterexample within the budget); 1 `diff`: the runs \
differ, `search`: a counterexample was found; 2 bad arguments or bad input (the message names the field, file and \
line); 3 `run`/`sweep --replay`: the run was stopped by its history budget (memory), the message says which \
(steps or messages).",
    arg_required_else_help = true
)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run a scenario (or exported trace) file and print its summary as one JSON object
    #[command(after_help = "\
The summary has the keys: algorithm, seed, end_time, steps, quiescent, leaders, views, agreement,
messages, total_messages, max_simultaneous_leaders, violations, elections (each stretch without
agreement that ended in agreement: {from, to, leader, latency}, in ticks), trace_hash, halted (null,
or why the run stopped at its history budget), and, when the scenario asks for fencing, store:
{value, max_token, accepted, rejected, history}. With --until: hit (null, or the first hit:
{step, time, breakpoint, what, nodes, msg}). With --link: link.
With --trace, the first line of OUT is the trace header, then one line per step (step, time, event,
msg, kind, from, to, text, sends, state: the nodes whose state the step changed, violations: those
that began there; an intervention is marked by a line {\"intervention_at_step\": k, ...} after step k),
then {\"summary\": ...}. `run` and `check` read such a file back: its header rebuilds the run and every
later line is checked against a re-run (a line that disagrees is named).
Breakpoints (--until, several are or-ed; the run stops at the first hit, --trace ends there):
  violation | violation:<property>      a claimed property is violated (split-brain, ...)
  leaders-change                        the set of self-declared leaders changes
  role:<node>=<role>                    the node takes the role (role:3=leader)
  send|deliver|drop:<KIND>[:to=<node>][:from=<node>]   (deliver:VOTE_GRANT:to=3)
  timer:<node>[:<name>]                 a timer fires at the node
  <field>:<node><op><value>             a numeric field passes the value (term:3>=5; fields: the
                                        view's term/ballot/round/..., vote, leader, votes, zxid,
                                        and the inspector's numeric values; op: >= > <= < =)
  time>=<ticks>                         virtual time reaches the value
  <condition> and <condition> ...       every one holds at the same step (role:2=leader and term:2>=3)
Names (kinds, roles, timers, fields) are those of the algorithm, in any case; others are refused.
From an exported trace, the run goes on from the trace's step (the breakpoints it carries are kept, not
applied: give --until again).
Exit codes: 0 done (whether a breakpoint hit or not); 2 bad input; 3 stopped by the history budget
(memory: too many steps or messages kept), with a message on stderr naming which, or by a --script
handler or a --node-cmd process that failed (named: node, time, event).
--node-cmd: each node is a child process reading one JSON event a line on stdin and answering each
with one line on stdout (the guide's chapter \"Nodes in any language\"). CMD is split into words
as a shell would (quotes work) but runs without a shell; ID=CMD gives node ID its own command.")]
    Run {
        /// Scenario or exported trace (JSON, or the JSON Lines of --trace); `-` reads standard input
        #[arg(value_name = "FILE")]
        file: String,
        /// Also write every step as JSON Lines to OUT
        #[arg(long, value_name = "OUT.jsonl")]
        trace: Option<String>,
        /// Keep no history while running (summary-only mode): memory for the nodes and the
        /// messages in flight only, whatever the length of the run; the same summary
        #[arg(long, conflicts_with_all = ["trace", "until", "link"])]
        no_trace: bool,
        /// Stop at the first step where this breakpoint hits (repeat for "or")
        #[arg(long, value_name = "BREAKPOINT")]
        until: Vec<String>,
        /// Add "link": a link that opens the run in the page at the first violation (or --step)
        #[arg(long)]
        link: bool,
        /// With --link: the step the link opens at
        #[arg(long, value_name = "N", requires = "link")]
        step: Option<u64>,
        /// With --link: the page's address
        #[arg(long, value_name = "URL", default_value = DEFAULT_BASE, requires = "link")]
        base: String,
        /// History budget in steps (default 4000000): past it the run stops, exit code 3
        #[arg(long, value_name = "STEPS")]
        budget: Option<u64>,
        /// Run the algorithm of this Rhai script instead of the one the scenario names (errors
        /// name its line and column; a handler that fails stops the run, exit code 3)
        #[arg(long, value_name = "FILE.rhai")]
        script: Option<String>,
        /// Run every node as a child process of this command, speaking JSON Lines on its standard
        /// input and output; `ID=CMD` runs node ID with its own command (repeat the flag). A
        /// process that exits, hangs or writes what is not an answer stops the run, exit code 3
        /// (not with --link: the page cannot start processes)
        #[arg(long, value_name = "CMD", conflicts_with_all = ["script", "link"])]
        node_cmd: Vec<String>,
        /// With --node-cmd: how long a process may take to answer one event (default 5000)
        #[arg(long, value_name = "MS", requires = "node_cmd", value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
        node_timeout: Option<u64>,
    },
    /// Compare two runs (scenarios or traces): the first divergence and a summary of differences
    #[command(after_help = "\
The runs are walked from step 0 side by side, aligned by virtual time; the first divergence is the
first step where the events differ (delivered in one and dropped in the other, another kind, another
time) or, after the same event, the leaders differ. Then: leaders over time, elections, message
counts by kind and violations, where they differ. A scenario runs to its end; a trace stands at its
step. Exit codes: 0 no difference, 1 the runs differ, 2 bad input.")]
    Diff {
        /// First run: scenario or trace (JSON or JSON Lines)
        #[arg(value_name = "A")]
        a: String,
        /// Second run
        #[arg(value_name = "B")]
        b: String,
        /// Print one JSON object instead of text
        #[arg(long)]
        json: bool,
    },
    /// Run an experiment (many runs over seeds, node counts and variants) and print one CSV row per run
    #[command(after_help = SWEEP_HELP)]
    Sweep {
        /// Experiment spec (JSON; see experiments/*.json); `-` reads standard input
        #[arg(value_name = "SPEC.json", required_unless_present = "merge")]
        file: Option<String>,
        /// Print JSON Lines (one object per row) instead of CSV
        #[arg(long)]
        json: bool,
        /// Print one row per line and node count (statistics of the measure) instead of one per run
        #[arg(long)]
        summary: bool,
        /// Print only these columns, in this order (comma-separated)
        #[arg(long, value_name = "A,B,...", value_delimiter = ',')]
        columns: Option<Vec<String>>,
        /// Print a Markdown table instead of CSV
        #[arg(long, conflicts_with = "json")]
        markdown: bool,
        /// Also write the plot as SVG to OUT
        #[arg(long, value_name = "OUT.svg")]
        svg: Option<String>,
        /// Language of the plot's texts
        #[arg(long, default_value = "en", value_parser = PossibleValuesParser::new(["en", "zh"]))]
        lang: String,
        /// Run only the K-th of N slices of the runs (1 ≤ K ≤ N): the shards' outputs, in order,
        /// concatenate to the whole sweep's (only shard 1 prints the CSV header). `slurm`,
        /// `slurm/N`, `k8s/N`: K (and N) from a Slurm array task's or a Kubernetes indexed job's
        /// environment (see below)
        #[arg(long, value_name = "K/N", value_parser = shard_arg, conflicts_with_all = ["summary", "markdown", "svg"])]
        shard: Option<(u64, u64)>,
        /// With --shard: write the slice as a part for --merge (a first line naming the spec and
        /// the slice, then every column; CSV, or JSON Lines with --json)
        #[arg(long, requires = "shard", conflicts_with = "columns")]
        part: bool,
        /// Instead of running SPEC, merge the parts of its N slices (`--shard K/N --part`, in any
        /// order) and write what the whole sweep writes (rows, --summary, --markdown, --svg)
        #[arg(long, value_name = "PART", num_args = 1.., conflicts_with_all = ["file", "shard", "replay"])]
        merge: Option<Vec<String>>,
        /// Instead of the table, write run K's trace (0-based, the `run` column) as JSON Lines,
        /// as `run --trace` writes it
        #[arg(long, value_name = "K", conflicts_with_all = ["json", "summary", "columns", "markdown", "svg"])]
        replay: Option<u64>,
        /// Load this Rhai script first: a spec line whose algorithm is the script's id runs it
        #[arg(long, value_name = "FILE.rhai")]
        script: Option<String>,
    },
    /// Search fault schedules for a counterexample to a property, shrink it, write it as a trace
    #[command(after_help = SEARCH_HELP)]
    Search(Search),
    /// Check a property in every schedule of a small cluster, within bounds (exhaustive,
    /// breadth-first): prove it or give a shortest counterexample
    #[command(after_help = CHECK_MODEL_HELP)]
    CheckModel(CheckModel),
    /// Grade students' scripts against an assignment: a CSV of scores, one JSON report each
    #[command(after_help = GRADE_HELP)]
    Grade(Grade),
    /// Validate a scenario (or exported trace) file without running it
    Check {
        /// Scenario or exported trace (JSON); `-` reads standard input
        #[arg(value_name = "FILE")]
        file: String,
    },
    /// Check a lesson (a file, or a built-in lesson's id), print each stop's step and answer, and
    /// list every stop whose caption or question the run does not bear out (exit 1)
    Lesson {
        /// `check`
        #[arg(value_parser = PossibleValuesParser::new(["check"]))]
        action: String,
        /// Lesson file (JSON) or a built-in lesson's id
        #[arg(value_name = "FILE|ID")]
        lesson: String,
        /// Skip the heavy questions (large N, sweeps), as the page does until a student gets there
        #[arg(long)]
        light: bool,
    },
    /// List the presets, or print one as a scenario file
    Preset {
        /// Print this preset's scenario (omit to list them all)
        #[arg(value_name = "NAME", value_parser = PossibleValuesParser::new(presets::all().map(|p| p.id)))]
        name: Option<String>,
    },
    /// Read a real cluster's logs (etcd, ZooKeeper, the event format, or any log through a mapping) into a trace
    #[command(after_help = IMPORT_HELP)]
    Import(Import),
    /// Check that a recorded run (an imported trace) conforms to its model: the first step the
    /// model does not allow, or that every election line is one; and the coverage of its rules
    #[command(after_help = CONFORM_HELP)]
    Conform(Conform),
    /// Print a shell completion script
    ///
    /// For example, for bash:
    /// `election-lab completions bash > ~/.local/share/bash-completion/completions/election-lab`
    Completions {
        #[arg(value_name = "SHELL")]
        shell: clap_complete::Shell,
    },
}

const SWEEP_HELP: &str = "\
Per-run columns: line, algorithm, variant, nodes, seed, messages, counted (the kinds the line's
formula counts), theory (the formula at N), end_time, steps, quiescent, agreement (the agreed
leader, or empty), leaders, max_leaders, violations, elections, downtime (ticks from the last fault
until agreement; empty if none), minority_leaders (on the smallest side of the partition in force
at the end), trace_hash, then what replays the run: run (its index K: `--replay K` writes its
trace), faults (what the sweep drew or placed, `<time>:<action>` separated by spaces:
20:partition=1+2/3+4+5 250:heal 30:crash=5 30:cut=1>2), order (the shuffled node order, if any).
Summary columns (--summary): line, algorithm, variant, nodes, runs, measure, n, mean, sd, min,
median, p90, max (of the spec's measure), theory, claim (what the algorithm claims about a single
leader: any, crash-stop, none), agreement, ever_two, end_two, end_one, end_none, minority_leader
(counts of runs).
Slices (--shard K/N) run anywhere; with --part each writes a part (its first line names the spec,
by its text and hash, and the slice), and `sweep --merge PART...` checks the parts are the N slices
of one spec (a missing, duplicated or foreign slice is named, exit 2) and writes what the whole sweep
writes: rows, --summary, --markdown, --svg, byte for byte. --shard slurm takes K and N from a Slurm
array task (SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT; the array submitted as --array=1-N);
slurm/N takes K from SLURM_ARRAY_TASK_ID (tasks resubmitted alone); k8s/N takes K from a Kubernetes
indexed job's JOB_COMPLETION_INDEX + 1. scripts/slurm-sweep.sh submits a whole sweep to Slurm.
The spec format is documented in the guide (docs/guide/src/experiments.md) and in crate/src/experiment.rs.";

/// `--shard K/N`, `slurm`, `slurm/N`, `k8s/N` (see `experiment::parse_shard`).
fn shard_arg(s: &str) -> Result<(u64, u64), String> {
    parse_shard(s, &|name| std::env::var(name).ok())
}

/// `--merge PART...`: the whole sweep from its slices' parts.
fn merge(parts: &[String]) -> Result<Sweep, String> {
    let mut m = Merge::new();
    for path in parts {
        let file = std::fs::File::open(path).map_err(|e| format!("cannot read {path}: {e}"))?;
        m.add(path, &mut io::BufReader::new(file)).map_err(|e| format!("--merge: {e}"))?;
    }
    m.finish().map_err(|e| format!("--merge: {e}"))
}

/// Reads a scenario, trace or experiment file (`-`: standard input), refusing one larger than
/// the engine accepts before reading it whole.
fn read(path: &str) -> Result<String, String> {
    let too_big = |bytes: usize| check_size(bytes).map_err(|e| format!("{path}: {e}"));
    let mut s = String::new();
    if path == "-" {
        // Read one byte past the limit at most: enough to know it is too big.
        io::Read::read_to_string(&mut io::Read::take(io::stdin(), MAX_BYTES as u64 + 1), &mut s)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        too_big(s.len())?;
    } else {
        let file = std::fs::File::open(path).map_err(|e| format!("cannot read {path}: {e}"))?;
        let len = file.metadata().map_err(|e| format!("cannot read {path}: {e}"))?.len();
        too_big(usize::try_from(len).unwrap_or(usize::MAX))?;
        io::Read::read_to_string(&mut io::Read::take(file, MAX_BYTES as u64 + 1), &mut s)
            .map_err(|e| format!("cannot read {path}: {e}"))?;
        too_big(s.len())?;
    }
    Ok(s)
}

/// A trace file's run (JSON Lines of any length, read a line at a time: see `input`).
fn load(path: &str) -> Result<Engine, String> {
    input::load(path)
}

fn load_summary_only(path: &str) -> Result<Engine, String> {
    let text = input::trace_text(path)?;
    Engine::from_trace_json_summary_only(&text).map_err(|e| format!("{path}: {e}"))
}

/// Writes the run up to its cursor as JSON Lines (see `Engine::trace_lines`) to `out`, or to
/// standard output for `-`.
fn write_trace(engine: &mut Engine, out: &str) -> Result<(), Failure> {
    let sink: Box<dyn Write> = if out == "-" {
        Box::new(io::stdout().lock())
    } else {
        Box::new(std::fs::File::create(out).map_err(|e| format!("cannot create {out}: {e}"))?)
    };
    let mut w = BufWriter::new(sink);
    let name = if out == "-" { "standard output" } else { out };
    engine.trace_lines(&mut |line| writeln!(w, "{line}").map_err(|e| Stop::Err(write_error(name, e))))?;
    w.flush().map_err(|e| write_error(name, e))
}

/// The budget message, and the exit code for it, if the run was stopped by its budget.
fn budget_check(engine: &Engine) -> Option<String> {
    engine.halted().map(|why| format!("stopped by the history budget: {why}"))
}

/// A failure with its exit code (and a message for stderr, if any).
struct Failure(u8, String);

impl From<String> for Failure {
    fn from(msg: String) -> Failure {
        Failure(BAD_INPUT, msg)
    }
}

fn run(cmd: Cmd) -> Result<(), Failure> {
    match cmd {
        Cmd::CheckModel(a) => check_model(a)?,
        Cmd::Grade(a) => grade(a)?,
        Cmd::Search(a) => {
            if search(a)? {
                return Err(Failure(FOUND, String::new()));
            }
        }
        Cmd::Run { file, trace, no_trace, until, link, step, base, budget, script, node_cmd, node_timeout } => {
            // The node processes (if any) are killed when `_processes` goes out of scope.
            let (mut engine, _processes) = if node_cmd.is_empty() {
                (script_cmd::engine(&file, script.as_deref(), no_trace)?, None)
            } else {
                let (engine, launched) = node_cmd::engine(&file, &node_cmd, node_timeout, no_trace)?;
                (engine, Some(launched))
            };
            if let Some(steps) = budget {
                engine.set_budget(Budget { steps, ..Budget::default() });
            }
            let mut hit = None;
            // Only --until stops the run: breakpoints a trace carries are kept in the trace
            // it writes, not applied.
            let watching = !until.is_empty();
            if !watching {
                engine.run_to_end();
            } else {
                let bps = Breakpoint::parse_all(&until, &engine, "--until").map_err(|e| e.to_string())?;
                engine.set_until(until);
                let mut watch = Watch::new(bps, &engine);
                hit = breakpoint::run_until(&mut engine, &mut watch, u64::MAX);
            }
            if let Some(out) = trace {
                write_trace(&mut engine, &out)?;
            }
            let mut summary = engine.summary();
            if watching {
                summary["hit"] = hit.map_or(serde_json::Value::Null, |h| h.to_value());
            }
            if link {
                let at = step.or_else(|| engine.violations().first().map(|v| v.step)).unwrap_or(engine.cursor());
                summary["link"] = format!("{base}{}", link::query(&engine, at)).into();
            }
            println(summary)?;
            let fault =
                if node_cmd.is_empty() { script_cmd::fault_check(&engine) } else { node_cmd::fault_check(&engine) };
            if let Some(why) = fault.or_else(|| budget_check(&engine)) {
                return Err(Failure(OUT_OF_BUDGET, why));
            }
        }
        Cmd::Diff { a, b, json } => {
            let mut ea = load(&a)?;
            let mut eb = load(&b)?;
            for e in [&mut ea, &mut eb] {
                if e.cursor() == 0 {
                    e.run_to_end();
                }
            }
            let d = diff::diff(&ea, &eb);
            if json {
                println(d.to_value())?;
            } else {
                print(d.text())?;
            }
            if !d.identical() {
                return Err(Failure(DIFFERENT, String::new()));
            }
        }
        Cmd::Sweep { file, json, summary, columns, markdown, svg, lang, shard, part, merge: parts, replay, script } => {
            if let Some(path) = &script {
                script_cmd::load_script(path)?;
            }
            let mut sweep = match (parts, file) {
                (Some(parts), _) => merge(&parts)?,
                (None, file) => {
                    let file = file.unwrap_or_default();
                    Sweep::from_json(&read(&file)?).map_err(|e| format!("{file}: {e}"))?
                }
            };
            if let Some(k) = replay {
                let total = sweep.progress().total;
                let mut engine = sweep.replay(k).ok_or_else(|| {
                    format!("--replay: no run {k} (this sweep has {total} runs: 0 to {})", total.saturating_sub(1))
                })?;
                write_trace(&mut engine, "-")?;
                if let Some(why) = budget_check(&engine) {
                    return Err(Failure(OUT_OF_BUDGET, why));
                }
                return Ok(());
            }
            if let Some((k, n)) = shard {
                sweep.shard(k, n).map_err(|e| format!("--shard: {e}"))?;
            }
            if summary {
                // Only the summary (and the plot) are written: keep their values, not every run's row.
                sweep.keep_rows(false);
            }
            sweep.run_parallel();
            let format = if json {
                Format::JsonLines
            } else if markdown {
                Format::Markdown
            } else {
                Format::Csv
            };
            let mut text = if part {
                sweep.part(format)?
            } else {
                sweep.render(summary, columns.as_deref(), format).map_err(|e| format!("--columns: {e}"))?
            };
            if !part && shard.is_some_and(|(k, _)| k > 1) && format == Format::Csv {
                // The header once, from shard 1: the shards concatenate to the whole table.
                text = text.split_once('\n').map_or(String::new(), |(_, rows)| rows.to_string());
            }
            print(text)?;
            if let Some(path) = svg {
                let lang = Lang::parse(&lang).unwrap_or_default();
                std::fs::write(&path, sweep.svg(lang)).map_err(|e| format!("cannot write {path}: {e}"))?;
            }
        }
        Cmd::Check { file } => {
            let e = load(&file)?;
            println(format_args!("ok: {} with {} nodes", e.algorithm().id, e.scenario().nodes.len()))?;
        }
        Cmd::Lesson { action: _, lesson, light } => {
            let text = match lesson::course::source(&lesson) {
                Some(t) => t.to_string(),
                None => read(&lesson)?,
            };
            let l = lesson::Lesson::from_json(&text).map_err(|e| format!("{lesson}: {e}"))?;
            print(lesson::report(&l, !light).map_err(|e| format!("{lesson}: {e}"))?)?;
            let untrue = lesson::truth::check(&l).map_err(|e| format!("{lesson}: {e}"))?;
            if !untrue.is_empty() {
                return Err(Failure(UNTRUE, untrue.join("\n")));
            }
        }
        Cmd::Preset { name: None } => {
            for p in presets::all() {
                println(format_args!("{:<20} {}", p.id, p.title.get(election_lab::meta::Lang::En)))?;
            }
        }
        Cmd::Preset { name: Some(name) } => {
            // The value parser only lets preset ids through.
            let p = presets::find(&name).ok_or_else(|| format!("no preset '{name}'"))?;
            println(p.scenario().to_json_pretty())?;
        }
        Cmd::Import(a) => import(a)?,
        Cmd::Conform(a) => conform(a)?,
        Cmd::Completions { shell } => {
            // Into memory first: `generate` panics on a write error, such as a closed pipe.
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "election-lab", &mut script);
            print(String::from_utf8_lossy(&script))?;
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    // Usage errors print clap's message (naming the argument) and exit with 2.
    let cli = Cli::parse();
    match run(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure(code, msg)) => {
            if !msg.is_empty() {
                eprintln!("election-lab: {msg}");
            }
            ExitCode::from(code)
        }
    }
}
