//! `election-lab import KIND LOG...` (KIND: a shipped mapping, etcd, zookeeper or sentinel: the
//! same as `--mapping KIND`), `import events FILE` (the event format, `election-lab-events/1`) and
//! `import --mapping MAPPING LOG...` (any text log through a mapping of regular expressions,
//! shipped or the user's own): each writes the recorded run's trace and a report of what was read
//! (see the guide's "Any system's election").

use super::*;
use election_lab::protocols::events::{self, mapping::Mapping};

pub(super) const IMPORT_HELP: &str = "\
KIND is etcd (3.4: the default text logger or --logger=zap), zookeeper (3.8, log4j pattern
'%d{ISO8601} [myid:%X{myid}] %-5p [%t] %c{1} - %m%n') or sentinel (Redis Sentinel 7.0), each read
by its shipped mapping (the same as --mapping KIND), or events: one file of the event format
(election-lab-events/1, JSON Lines: a header, then one event per line). With --mapping, there is
no KIND: every argument is a log, read through the mapping (a shipped one: etcd, zookeeper,
sentinel; or a mapping file, election-lab-mapping/1), and --events OUT also writes the events the
mapping produced. Give one log per member, in any order, or one merged log. The trace goes to
standard output (or -o OUT); a report of what was read (lines, skipped lines, damaged lines with
file:line, matched messages, crashes found) goes to standard error. With --model, the textbook
algorithm's scenario (same members, faults and timeouts) is written too.
scripts/real-cluster.sh makes such logs from real 3-member clusters.";

#[derive(clap::Args)]
pub(super) struct Import {
    /// The kind of logs (etcd, zookeeper, sentinel or events) then the files; with --mapping, only the logs
    #[arg(value_name = "KIND LOG", required = true, num_args = 1..)]
    args: Vec<String>,
    /// Read the logs through this mapping: etcd, zookeeper, sentinel, or a mapping file (JSON)
    #[arg(long, value_name = "MAPPING")]
    mapping: Option<String>,
    /// With --mapping: also write the events the mapping produced (election-lab-events/1) to OUT
    #[arg(long, value_name = "OUT.jsonl", requires = "mapping")]
    events: Option<String>,
    /// The faults a harness wrote (crash, recover, pause, resume, note events), placed as stated
    #[arg(long, value_name = "FAULTS.jsonl")]
    faults: Option<String>,
    /// Write the trace to OUT instead of standard output
    #[arg(short = 'o', long = "out", value_name = "OUT.json")]
    out: Option<String>,
    /// Also write the model's scenario (Raft for etcd and Sentinel, fast leader election for ZooKeeper) to FILE
    #[arg(long, value_name = "FILE")]
    model: Option<String>,
}

fn read(path: &str) -> Result<String, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

pub(super) fn import(a: Import) -> Result<(), Failure> {
    let (kind, logs) = match &a.mapping {
        Some(_) => (None, &a.args[..]),
        None => {
            if a.args.len() < 2 {
                return Err(format!("give the kind of logs ({}, events) and at least one log", kinds()).into());
            }
            (Some(a.args[0].as_str()), &a.args[1..])
        }
    };
    let mut texts = Vec::new();
    for path in logs {
        texts.push((path.clone(), read(path)?));
    }
    let files: Vec<recorded::LogFile> = texts.iter().map(|(name, text)| recorded::LogFile { name, text }).collect();
    let faults_text = a.faults.as_deref().map(read).transpose()?;
    let faults = a.faults.as_deref().zip(faults_text.as_deref()).map(|(name, text)| recorded::LogFile { name, text });
    let imported = match (kind, &a.mapping) {
        (_, Some(m)) => {
            let text = match Mapping::shipped(m) {
                Some(t) => t.to_string(),
                None if std::path::Path::new(m).exists() => read(m)?,
                None => {
                    let names: Vec<&str> = events::mapping::SHIPPED.iter().map(|s| s.0).collect();
                    return Err(
                        format!("--mapping {m}: neither a shipped mapping ({}) nor a file", names.join(", ")).into()
                    );
                }
            };
            let mapping = Mapping::read(&text).map_err(|e| format!("mapping {m}: {e}"))?;
            if let Some(path) = &a.events {
                let applied = mapping.apply(&files);
                std::fs::write(path, events::write(&applied.header, &applied.events, &files))
                    .map_err(|e| format!("cannot write {path}: {e}"))?;
            }
            mapping.import_with(&files, faults)?
        }
        (Some("events"), None) => {
            if files.len() != 1 {
                return Err("import events takes one events file (merge the events into one file)".to_string().into());
            }
            events::import_with(files[0].name, files[0].text, faults)?
        }
        (Some(kind), None) => {
            // `import etcd LOG...` is `import --mapping etcd LOG...`: the shipped mapping.
            let source = recorded::source(kind).map_err(|_| {
                format!("unknown log kind '{kind}' (expected one of: {}, events; or --mapping)", kinds())
            })?;
            source.mapping().import_with(&files, faults)?
        }
        (None, None) => unreachable!("a kind without --mapping"),
    };
    eprint!("{}", imported.report.text());
    let engine =
        Engine::from_trace_value(&imported.scenario).map_err(|e| format!("the imported run does not build: {e}"))?;
    let trace = format!("{}\n", engine.trace_value());
    match a.out {
        Some(path) => std::fs::write(&path, trace).map_err(|e| format!("cannot write {path}: {e}"))?,
        None => print(trace)?,
    }
    if let Some(path) = a.model {
        let m =
            recorded::model_scenario(engine.scenario()).ok_or_else(|| "the imported run has no model".to_string())?;
        std::fs::write(&path, m.to_json_pretty() + "\n").map_err(|e| format!("cannot write {path}: {e}"))?;
    }
    Ok(())
}

fn kinds() -> String {
    recorded::SOURCES.iter().map(|s| s.name).collect::<Vec<_>>().join(", ")
}
