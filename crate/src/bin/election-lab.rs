//! `election-lab`: run a scenario file and print what happened as one JSON object, or run an
//! experiment (many runs) and print one CSV row per run.
//!
//! The arguments are declared with `clap`'s derive API, which gives every subcommand its
//! `--help`, `--version`, errors that name the bad argument, and exit code 2 for usage errors.
//! Errors found in the input itself (an unreadable file, a bad scenario) also exit with 2, with
//! one line `election-lab: FILE: field: what is wrong` on standard error.

use clap::builder::PossibleValuesParser;
use clap::{CommandFactory, Parser, Subcommand};
use election_lab::experiment::{Format, Sweep};
use election_lab::meta::Lang;
use election_lab::presets;
use election_lab::Engine;
use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

/// Exit code for bad input, the same as clap uses for bad arguments.
const BAD_INPUT: u8 = 2;

#[derive(Parser)]
#[command(
    name = "election-lab",
    version,
    about = "Run leader-election scenarios deterministically",
    after_help = "Exit code 2: bad arguments or a bad scenario (the message names the field).",
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
{value, max_token, accepted, rejected, history}.
With --trace, the first line of OUT is the trace header, then one line per step (an intervention
is marked by a line {\"intervention_at_step\": k, ...} after step k), then {\"summary\": ...}.")]
    Run {
        /// Scenario or exported trace (JSON); `-` reads standard input
        #[arg(value_name = "FILE")]
        file: String,
        /// Also write every step as JSON Lines to OUT
        #[arg(long, value_name = "OUT.jsonl")]
        trace: Option<String>,
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
at the end), trace_hash.
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

fn write_trace(engine: &Engine, out: &str) -> Result<(), String> {
    let file = std::fs::File::create(out).map_err(|e| format!("cannot create {out}: {e}"))?;
    let mut w = BufWriter::new(file);
    let io_err = |e: io::Error| format!("writing {out}: {e}");
    writeln!(w, "{}", engine.trace_value()).map_err(io_err)?;
    let ivs = engine.interventions();
    let mut next_iv = 0;
    for step in 0..=engine.cursor() {
        if step > 0 {
            if let Some(line) = engine.trace_line(step) {
                writeln!(w, "{line}").map_err(io_err)?;
            }
        }
        // An intervention recorded at step k was applied after step k's event, before step k+1.
        while next_iv < ivs.len() && ivs[next_iv].step == step {
            let mut o = serde_json::Map::new();
            o.insert("intervention_at_step".into(), step.into());
            ivs[next_iv].action.write_json(&mut o);
            writeln!(w, "{}", serde_json::Value::Object(o)).map_err(io_err)?;
            next_iv += 1;
        }
    }
    writeln!(w, "{}", serde_json::json!({"summary": engine.summary()})).map_err(io_err)?;
    w.flush().map_err(io_err)
}

fn run(cmd: Cmd) -> Result<(), String> {
    match cmd {
        Cmd::Run { file, trace } => {
            let mut engine = load(&file)?;
            engine.run_to_end();
            if let Some(out) = trace {
                write_trace(&engine, &out)?;
            }
            println!("{}", engine.summary());
            if let Some(why) = engine.halted() {
                eprintln!("election-lab: warning: {why}");
            }
        }
        Cmd::Sweep { file, json, summary, columns, markdown, svg, lang } => {
            let text = read(&file)?;
            let mut sweep = Sweep::from_json(&text).map_err(|e| format!("{file}: {e}"))?;
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
                println!("{:<20} {}", p.id, p.title.get(election_lab::meta::Lang::En));
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
        Err(msg) => {
            eprintln!("election-lab: {msg}");
            ExitCode::from(BAD_INPUT)
        }
    }
}
