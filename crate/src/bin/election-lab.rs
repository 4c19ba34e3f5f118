//! `election-lab`: run a scenario file and print what happened as one JSON object.

use election_lab::presets;
use election_lab::Engine;
use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

const USAGE: &str = "\
election-lab — run leader-election scenarios deterministically

USAGE:
    election-lab run FILE [--trace OUT.jsonl]   run a scenario (or exported trace) file
    election-lab check FILE                     validate a scenario file
    election-lab preset [NAME]                  list presets, or print one as a scenario file
    election-lab help                           this text

`run` prints one JSON object: algorithm, seed, end_time, steps, quiescent, leaders, views,
agreement, messages, total_messages, max_simultaneous_leaders, violations, trace_hash.
`--trace` also writes every step as JSON Lines (first line: the trace header).
FILE may be `-` for standard input. Exit code 2: bad arguments or a bad scenario.";

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

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("run") => {
            let mut file = None;
            let mut trace = None;
            let mut i = 1;
            let mut bad = None;
            while i < args.len() {
                match args[i].as_str() {
                    "--trace" => {
                        trace = args.get(i + 1).cloned();
                        if trace.is_none() {
                            bad = Some("--trace needs a file name".to_string());
                        }
                        i += 2;
                    }
                    a if file.is_none() && (!a.starts_with("--") || a == "-") => {
                        file = Some(a.to_string());
                        i += 1;
                    }
                    a => {
                        bad = Some(format!("unexpected argument '{a}'"));
                        i += 1;
                    }
                }
            }
            match (bad, file) {
                (Some(b), _) => Err(b),
                (None, None) => Err("run needs a scenario FILE".into()),
                (None, Some(f)) => load(&f).and_then(|mut engine| {
                    engine.run_to_end();
                    if let Some(out) = trace {
                        write_trace(&engine, &out)?;
                    }
                    println!("{}", engine.summary());
                    if let Some(why) = engine.halted() {
                        eprintln!("election-lab: warning: {why}");
                    }
                    Ok(())
                }),
            }
        }
        Some("check") => match args.get(1) {
            Some(f) => load(f).map(|e| println!("ok: {} with {} nodes", e.algorithm().id, e.scenario().nodes.len())),
            None => Err("check needs a scenario FILE".into()),
        },
        Some("preset") => match args.get(1) {
            None => {
                for p in presets::all() {
                    println!("{:<20} {}", p.id, p.title.en);
                }
                Ok(())
            }
            Some(name) => match presets::find(name) {
                Some(p) => {
                    println!("{}", p.scenario().to_json_pretty());
                    Ok(())
                }
                None => Err(format!("no preset '{name}' (see `election-lab preset`)")),
            },
        },
        Some("help" | "--help" | "-h") => {
            println!("{USAGE}");
            Ok(())
        }
        Some(other) => Err(format!("unknown command '{other}'\n\n{USAGE}")),
        None => Err(USAGE.to_string()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("election-lab: {msg}");
            ExitCode::from(2)
        }
    }
}
