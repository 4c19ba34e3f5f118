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
use election_lab::experiment::{Format, Sweep};
use election_lab::meta::Lang;
use election_lab::sim::Budget;
use election_lab::Engine;
use election_lab::{diff, link, presets};
use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

/// Exit code for bad input, the same as clap uses for bad arguments.
const BAD_INPUT: u8 = 2;
/// Exit code of `diff` when the runs differ (like diff(1)).
const DIFFERENT: u8 = 1;
/// Exit code of a run stopped by its history budget (memory) before its scenario's limits.
const OUT_OF_BUDGET: u8 = 3;

/// The page `run --link` points at, unless `--base` says otherwise (`make serve`).
const DEFAULT_BASE: &str = "http://127.0.0.1:8080/";

#[derive(Parser)]
#[command(
    name = "election-lab",
    version,
    about = "Run leader-election scenarios deterministically",
    after_help = "Exit codes: 0 done; 1 `diff`: the runs differ; 2 bad arguments or bad input (the message names \
the field, file and line); 3 `run`/`sweep --replay`: the run was stopped by its history budget (memory), the \
message says which (steps or messages).",
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
From an exported trace, the run goes on from the trace's step (the breakpoints it carries are kept, not
applied: give --until again).
Exit codes: 0 done (whether a breakpoint hit or not); 2 bad input; 3 stopped by the history budget
(memory: too many steps or messages kept), with a message on stderr naming which.")]
    Run {
        /// Scenario or exported trace (JSON, or the JSON Lines of --trace); `-` reads standard input
        #[arg(value_name = "FILE")]
        file: String,
        /// Also write every step as JSON Lines to OUT
        #[arg(long, value_name = "OUT.jsonl")]
        trace: Option<String>,
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
        #[arg(value_name = "SPEC.json")]
        file: String,
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
        /// Instead of the table, write run K's trace (0-based, the `run` column) as JSON Lines,
        /// as `run --trace` writes it
        #[arg(long, value_name = "K", conflicts_with_all = ["json", "summary", "columns", "markdown", "svg"])]
        replay: Option<u64>,
    },
    /// Validate a scenario (or exported trace) file without running it
    Check {
        /// Scenario or exported trace (JSON); `-` reads standard input
        #[arg(value_name = "FILE")]
        file: String,
    },
    /// List the presets, or print one as a scenario file
    Preset {
        /// Print this preset's scenario (omit to list them all)
        #[arg(value_name = "NAME", value_parser = PossibleValuesParser::new(presets::all().map(|p| p.id)))]
        name: Option<String>,
    },
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
The spec format is documented in the README (\"Experiments\") and in crate/src/experiment.rs.";

fn read(path: &str) -> Result<String, String> {
    if path == "-" {
        let mut s = String::new();
        io::Read::read_to_string(&mut io::stdin(), &mut s).map_err(|e| format!("cannot read standard input: {e}"))?;
        Ok(s)
    } else {
        std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))
    }
}

fn load(path: &str) -> Result<Engine, String> {
    let text = read(path)?;
    Engine::from_trace_json(&text).map_err(|e| format!("{path}: {e}"))
}

/// Writes the run up to its cursor as JSON Lines (see `Engine::trace_lines`) to `out`, or to
/// standard output for `-`.
fn write_trace(engine: &mut Engine, out: &str) -> Result<(), String> {
    let sink: Box<dyn Write> = if out == "-" {
        Box::new(io::stdout().lock())
    } else {
        Box::new(std::fs::File::create(out).map_err(|e| format!("cannot create {out}: {e}"))?)
    };
    let mut w = BufWriter::new(sink);
    let name = if out == "-" { "standard output" } else { out };
    let io_err = |e: io::Error| format!("writing {name}: {e}");
    engine.trace_lines(&mut |line| writeln!(w, "{line}").map_err(|e| Stop::Err(io_err(e))))?;
    w.flush().map_err(io_err)
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
        Cmd::Run { file, trace, until, link, step, base, budget } => {
            let mut engine = load(&file)?;
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
            println!("{summary}");
            if let Some(why) = budget_check(&engine) {
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
                println!("{}", d.to_value());
            } else {
                print!("{}", d.text());
            }
            if !d.identical() {
                return Err(Failure(DIFFERENT, String::new()));
            }
        }
        Cmd::Sweep { file, json, summary, columns, markdown, svg, lang, replay } => {
            let text = read(&file)?;
            let mut sweep = Sweep::from_json(&text).map_err(|e| format!("{file}: {e}"))?;
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
            while !sweep.advance(64).finished() {}
            let format = if json {
                Format::JsonLines
            } else if markdown {
                Format::Markdown
            } else {
                Format::Csv
            };
            let text = sweep.render(summary, columns.as_deref(), format).map_err(|e| format!("--columns: {e}"))?;
            let mut out = io::stdout().lock();
            let io_err = |e: io::Error| format!("writing standard output: {e}");
            out.write_all(text.as_bytes()).map_err(io_err)?;
            out.flush().map_err(io_err)?;
            if let Some(path) = svg {
                let lang = Lang::parse(&lang).unwrap_or_default();
                std::fs::write(&path, sweep.svg(lang)).map_err(|e| format!("cannot write {path}: {e}"))?;
            }
        }
        Cmd::Check { file } => {
            let e = load(&file)?;
            println!("ok: {} with {} nodes", e.algorithm().id, e.scenario().nodes.len());
        }
        Cmd::Preset { name: None } => {
            for p in presets::all() {
                println!("{:<20} {}", p.id, p.title.en);
            }
        }
        Cmd::Preset { name: Some(name) } => {
            // The value parser only lets preset ids through.
            let p = presets::find(&name).ok_or_else(|| format!("no preset '{name}'"))?;
            println!("{}", p.scenario().to_json_pretty());
        }
        Cmd::Completions { shell } => {
            clap_complete::generate(shell, &mut Cli::command(), "election-lab", &mut io::stdout());
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
