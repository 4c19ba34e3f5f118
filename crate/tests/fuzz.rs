//! The fuzz target: every reader of outside input — scenario, trace, JSON Lines trace, lesson,
//! experiment spec, link, etcd, ZooKeeper and Sentinel log lines (through the hand-written
//! importers and the shipped mappings), the event format — fed inputs mutated from real ones
//! (the presets, their traces and links, the built-in lessons, the ready experiments, the
//! committed cluster logs), and whatever it accepts run further (built, run within a small
//! history budget, summarised, written back, diffed, swept, checked). A panic is a failure: the
//! message names the reader and the case, and `FUZZ_CASE=<k>` replays that case alone.
//!
//! Structured on stable Rust: each case draws its choices from a byte stream (`arbitrary`'s
//! `Unstructured`) made by the engine's own generator seeded by the case number, so a case is
//! the same on every machine. Mutations act on the JSON tree (a value replaced by an edge value
//! — 0, 2³², 2⁶⁴−1, −1, 1e308, a string of another field, an empty list —, a field removed or
//! added, a node copied elsewhere) or on the text (cut, a byte flipped, a token inserted, a key
//! given twice, a line dropped or repeated).
//!
//! `make test` runs `FUZZ_CASES` (default 300) cases per reader; `make fuzz` runs as many as
//! asked, in release: `FUZZ_CASES=1000000 make fuzz`. An input whose run would be long rather
//! than wrong (stop limits above 20 000 ticks or 1 000 000 steps, more than 100 nodes) is read
//! but not run further, so that every case takes milliseconds.

use arbitrary::{Result as AResult, Unstructured};
use election_lab::experiment::{Sweep, READY};
use election_lab::protocols::events::{self, mapping::Mapping};
use election_lab::protocols::recorded::{self, LogFile};
use election_lab::rng::Pcg32;
use election_lab::sim::Budget;
use election_lab::{diff, lesson, link, presets, Engine};
use rayon::prelude::*;
use serde_json::{json, Value};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::OnceLock;

mod common;

/// A small history budget for what the fuzzer runs further: bad input must fail fast or run.
const RUN_BUDGET: Budget = Budget { steps: 3_000, messages: 20_000 };

fn cases() -> u64 {
    std::env::var("FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(300)
}

/// Runs `case` for every case number (or only `FUZZ_CASE`), on every core; fails naming the
/// cases that panicked.
fn fuzz(reader: &str, case: impl Fn(&mut Unstructured) -> AResult<()> + Sync) {
    let only: Option<u64> = std::env::var("FUZZ_CASE").ok().and_then(|v| v.parse().ok());
    let range = only.map_or(0..cases(), |k| k..k + 1);
    let stream = reader.bytes().fold(7u64, |h, b| h.wrapping_mul(31).wrapping_add(b as u64));
    let failed: Vec<u64> = range
        .into_par_iter()
        .filter(|&k| {
            let mut rng = Pcg32::new(k, stream);
            let bytes: Vec<u8> = (0..4096).map(|_| rng.range_inclusive(0, 255) as u8).collect();
            let mut u = Unstructured::new(&bytes);
            catch_unwind(AssertUnwindSafe(|| {
                let _ = case(&mut u);
            }))
            .is_err()
        })
        .collect();
    assert!(
        failed.is_empty(),
        "{reader}: {} case(s) panicked, FUZZ_CASE={:?}",
        failed.len(),
        &failed[..failed.len().min(20)]
    );
}

// ---------- the corpus ----------

struct Corpus {
    scenarios: Vec<Value>,
    traces: Vec<Value>,
    jsonl: Vec<String>,
    lessons: Vec<Value>,
    specs: Vec<Value>,
    links: Vec<String>,
    logs: Vec<(&'static str, Vec<(String, String)>)>,
    /// Every string value in the corpus: realistic replacements (ids, kinds, actions).
    strings: Vec<String>,
}

fn corpus() -> &'static Corpus {
    static C: OnceLock<Corpus> = OnceLock::new();
    C.get_or_init(|| {
        let scenarios: Vec<Value> = presets::all().map(|p| p.scenario().to_value()).collect();
        let mut traces = vec![];
        let mut jsonl = vec![];
        let mut links = vec![];
        for (i, p) in presets::all().enumerate() {
            let mut e = Engine::new(p.scenario()).unwrap();
            e.seek(5);
            if let Some(&id) = e.scenario().nodes.first() {
                let _ = e.apply(election_lab::Action::Crash(id));
            }
            e.seek(12);
            traces.push(e.trace_value());
            links.push(link::query(&e, 9));
            if i % 6 == 0 {
                let mut lines = String::new();
                e.trace_lines::<()>(&mut |l| {
                    lines.push_str(&l.to_string());
                    lines.push('\n');
                    Ok(())
                })
                .unwrap();
                jsonl.push(lines);
            }
        }
        links.push("?preset=split-brain-bully&step=40&sel=3".into());
        let lessons = lesson::course::ids()
            .iter()
            .filter_map(|id| lesson::course::source(id))
            .map(|t| serde_json::from_str(t).unwrap())
            .collect();
        let specs = READY.iter().map(|(_, t)| serde_json::from_str(t).unwrap()).collect();
        let logs = [("etcd", "etcd-zap"), ("etcd", "etcd-text"), ("zookeeper", "zookeeper"), ("sentinel", "sentinel")]
            .into_iter()
            .map(|(kind, dir)| (kind, common::real_logs(dir)))
            .collect();
        let mut strings = vec![];
        for v in scenarios.iter().chain(&lessons).chain(&specs) {
            collect_strings(v, &mut strings);
        }
        strings.sort();
        strings.dedup();
        Corpus { scenarios, traces, jsonl, lessons, specs, links, logs, strings }
    })
}

fn collect_strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) if s.len() < 40 => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| collect_strings(x, out)),
        Value::Object(o) => o.iter().for_each(|(k, x)| {
            out.push(k.clone());
            collect_strings(x, out)
        }),
        _ => {}
    }
}

// ---------- mutations ----------

/// An edge value, a corpus string, or a small structure.
fn edge(u: &mut Unstructured) -> AResult<Value> {
    Ok(match u.int_in_range(0..=21)? {
        0 => json!(0),
        1 => json!(1),
        2 => json!(2),
        3 => json!(u32::MAX),
        4 => json!(u32::MAX as u64 + 1),
        5 => json!(u64::MAX),
        6 => json!(-1),
        7 => json!(i64::MIN),
        8 => json!(0.5),
        9 => json!(1e308),
        10 => json!(-0.0),
        11 => json!(""),
        12 => json!([]),
        13 => json!({}),
        14 => Value::Null,
        15 => json!(true),
        16 => json!([[1, 2], [3]]),
        17 => json!(1u64 << 53),
        18 => json!(u.int_in_range(0..=100_000u64)?),
        19 => json!("x".repeat(u.int_in_range(0..=300)?)),
        _ => {
            let s = &corpus().strings;
            json!(s[u.choose_index(s.len())?])
        }
    })
}

/// Keys whose values bound how long a run is: left alone by the tree mutations.
const LIMITS: &[&str] = &["max_time", "max_steps"];

/// A step of a path into a JSON tree.
enum Step {
    Key(String),
    Index(usize),
}

/// The paths of every node under `v` (itself included), but not under the stop limits.
fn paths(v: &Value, here: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    out.push(
        here.iter()
            .map(|s| match s {
                Step::Key(k) => Step::Key(k.clone()),
                Step::Index(i) => Step::Index(*i),
            })
            .collect(),
    );
    match v {
        Value::Object(o) => {
            for (k, x) in o.iter().filter(|(k, _)| !LIMITS.contains(&k.as_str())) {
                here.push(Step::Key(k.clone()));
                paths(x, here, out);
                here.pop();
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                here.push(Step::Index(i));
                paths(x, here, out);
                here.pop();
            }
        }
        _ => {}
    }
}

/// One mutation at a node of the tree under `v`, every node as likely (so a long list of
/// messages gets as much attention as the few fields around it).
fn mutate(v: &mut Value, root_copy: &Value, u: &mut Unstructured) -> AResult<()> {
    let mut all = vec![];
    paths(v, &mut vec![], &mut all);
    let mut v = v;
    for step in &all[u.choose_index(all.len())?] {
        v = match step {
            Step::Key(k) => v.get_mut(k.as_str()).unwrap(),
            Step::Index(i) => v.get_mut(*i).unwrap(),
        };
    }
    match u.int_in_range(0..=5)? {
        0 | 1 => *v = edge(u)?,
        2 => match v {
            Value::Object(o) if !o.is_empty() => {
                let keys: Vec<String> = o.keys().cloned().collect();
                o.remove(&keys[u.choose_index(keys.len())?]);
            }
            Value::Array(a) if !a.is_empty() => {
                a.remove(u.choose_index(a.len())?);
            }
            _ => *v = edge(u)?,
        },
        3 => match v {
            Value::Object(o) => {
                let s = &corpus().strings;
                o.insert(s[u.choose_index(s.len())?].clone(), edge(u)?);
            }
            Value::Array(a) => {
                let x = if a.is_empty() { edge(u)? } else { a[u.choose_index(a.len())?].clone() };
                a.push(x);
            }
            _ => *v = edge(u)?,
        },
        // A node of the original document copied here (a list where a number was, ...).
        _ => *v = pick_node(root_copy, u)?.clone(),
    }
    Ok(())
}

fn pick_node<'a>(v: &'a Value, u: &mut Unstructured) -> AResult<&'a Value> {
    if u.ratio(1, 3)? {
        return Ok(v);
    }
    match v {
        Value::Object(o) if !o.is_empty() => {
            let i = u.choose_index(o.len())?;
            pick_node(o.values().nth(i).unwrap(), u)
        }
        Value::Array(a) if !a.is_empty() => pick_node(&a[u.choose_index(a.len())?], u),
        _ => Ok(v),
    }
}

/// One mutation of the text.
fn mutate_text(t: &mut String, u: &mut Unstructured) -> AResult<()> {
    let mut b = std::mem::take(t).into_bytes();
    let at = |u: &mut Unstructured, n: usize| u.int_in_range(0..=n);
    match u.int_in_range(0..=5)? {
        0 => b.truncate(at(u, b.len())?),
        1 if !b.is_empty() => {
            let i = at(u, b.len() - 1)?;
            b[i] = u.arbitrary::<u8>()?;
        }
        2 => {
            let tokens: &[&str] =
                &["{", "}", "[", "]", ",", "\"", ":", "0", "-", "18446744073709551615", "\n", "null", "1e999"];
            let i = at(u, b.len())?;
            let tok = tokens[u.choose_index(tokens.len())?];
            b.splice(i..i, tok.bytes());
        }
        3 => {
            // A key given twice: the first `"key": value` repeated right after itself.
            let text = String::from_utf8_lossy(&b).into_owned();
            let starts: Vec<usize> = text.match_indices("\":").map(|(i, _)| i).collect();
            if !starts.is_empty() {
                let colon = starts[u.choose_index(starts.len())?];
                if let Some(open) = text[..colon].rfind('"') {
                    let end = text[colon..].find([',', '}']).map_or(text.len(), |e| colon + e);
                    let pair = format!("{},", &text[open..end]);
                    b.splice(open..open, pair.into_bytes());
                }
            }
        }
        _ => {
            // A line (or a slice) dropped or repeated.
            let text = String::from_utf8_lossy(&b).into_owned();
            let mut lines: Vec<&str> = text.lines().collect();
            if !lines.is_empty() {
                let i = u.choose_index(lines.len())?;
                if u.arbitrary::<bool>()? {
                    lines.remove(i);
                } else {
                    lines.insert(i, lines[i]);
                }
            }
            b = (lines.join("\n") + "\n").into_bytes();
        }
    }
    *t = String::from_utf8_lossy(&b).into_owned();
    Ok(())
}

/// A corpus document, mutated 1 to 4 times in its tree, then perhaps in its text.
fn mutated(docs: &[Value], u: &mut Unstructured) -> AResult<String> {
    let mut v = docs[u.choose_index(docs.len())?].clone();
    let copy = v.clone();
    for _ in 0..u.int_in_range(1..=4)? {
        mutate(&mut v, &copy, u)?;
    }
    let mut text = if u.arbitrary::<bool>()? { v.to_string() } else { serde_json::to_string_pretty(&v).unwrap() };
    if u.ratio(1, 3)? {
        mutate_text(&mut text, u)?;
    }
    Ok(text)
}

/// Whether a document accepted by a reader would make a long run rather than a wrong one.
fn long(v: &Value) -> bool {
    match v {
        Value::Object(o) => o.iter().any(|(k, x)| big(k, x) || long(x)),
        Value::Array(a) => a.len() > 100 && a.iter().all(Value::is_number) || a.iter().any(long),
        _ => false,
    }
}

fn big(k: &str, v: &Value) -> bool {
    let n = v.as_f64().unwrap_or(0.0);
    match k {
        "max_time" => n > 20_000.0,
        "max_steps" => n > 1_000_000.0,
        "to" | "resize" => n > 100.0,
        "count" | "orders" => n > 50.0,
        "nodes" => v.as_array().is_some_and(|a| a.iter().any(|x| x.as_f64().is_some_and(|n| n > 100.0))),
        _ => false,
    }
}

fn is_long(text: &str) -> bool {
    serde_json::from_str::<Value>(text).is_ok_and(|v| long(&v))
}

/// What `check` accepted, run as `run`, `run --trace` and `diff` would.
fn exercise(mut e: Engine) {
    e.set_budget(RUN_BUDGET);
    let other = Engine::from_trace_value(&e.trace_value()).expect("a trace the engine wrote reads back");
    e.run_to_end();
    let _ = e.summary();
    let _ = diff::diff(&e, &other);
    if e.head() < 400 {
        e.trace_lines::<()>(&mut |_| Ok(())).unwrap();
    }
}

// ---------- one target per reader ----------

/// A whole document mutated and read as `run` reads it: a scenario or a saved trace.
fn fuzz_document(reader: &str, docs: fn(&Corpus) -> &[Value]) {
    fuzz(reader, |u| {
        let text = mutated(docs(corpus()), u)?;
        if !is_long(&text) {
            read_and_run(&text);
        }
        Ok(())
    });
}

/// What `run` does with a file: read it as a scenario or a trace, and run what it accepts.
fn read_and_run(text: &str) {
    if let Ok(e) = Engine::from_trace_json(text) {
        exercise(e);
    }
}

#[test]
fn fuzz_scenario() {
    fuzz_document("scenario", |c| &c.scenarios);
}

#[test]
fn fuzz_trace() {
    fuzz_document("trace", |c| &c.traces);
}

#[test]
fn fuzz_json_lines() {
    fuzz("json-lines", |u| {
        let docs = &corpus().jsonl;
        let mut lines: Vec<String> = docs[u.choose_index(docs.len())?].lines().map(String::from).collect();
        for _ in 0..u.int_in_range(1..=3)? {
            let i = u.choose_index(lines.len())?;
            let mut v: Value = serde_json::from_str(&lines[i]).unwrap();
            let copy = v.clone();
            mutate(&mut v, &copy, u)?;
            lines[i] = v.to_string();
        }
        let mut text = lines.join("\n") + "\n";
        if u.ratio(1, 3)? {
            mutate_text(&mut text, u)?;
        }
        if !text.lines().next().is_some_and(is_long) {
            read_and_run(&text);
        }
        Ok(())
    });
}

#[test]
fn fuzz_lesson() {
    fuzz("lesson", |u| {
        let text = mutated(&corpus().lessons, u)?;
        if let Ok(l) = lesson::Lesson::from_json(&text) {
            if !is_long(&text) {
                let _ = lesson::report(&l, false);
            }
        }
        Ok(())
    });
}

#[test]
fn fuzz_experiment() {
    fuzz("experiment", |u| {
        let text = mutated(&corpus().specs, u)?;
        if is_long(&text) {
            // Reading builds every line at every node count once: still read, not run.
            let _ = Sweep::from_json(&text).map(|s| s.summary_csv());
            return Ok(());
        }
        if let Ok(mut s) = Sweep::from_json(&text) {
            s.advance(1);
            let _ = (s.csv(), s.summary_csv(), s.json_lines(true), s.svg(election_lab::meta::Lang::Zh));
            if let Some(mut e) = s.replay(0) {
                e.set_budget(RUN_BUDGET);
                let _ = e.summary();
            }
        }
        Ok(())
    });
}

#[test]
fn fuzz_link() {
    fuzz("link", |u| {
        let links = &corpus().links;
        let mut q = links[u.choose_index(links.len())?].clone();
        match u.int_in_range(0..=2)? {
            // The trace inside, mutated, packed again.
            0 => {
                let text = mutated(&corpus().traces, u)?;
                if is_long(&text) {
                    return Ok(());
                }
                let Some(t) = link::pack(&text) else { return Ok(()) };
                q = format!("?t={t}&step={}", u.int_in_range(0..=3000)?);
            }
            // The link's text itself: cut, flipped, a parameter added.
            1 => mutate_text(&mut q, u)?,
            _ => {
                let params = ["step=", "sel=", "preset=", "t=1.", "trace=", "embed=1", "lang=zh", "&&", "%zz", "=="];
                let p = params[u.choose_index(params.len())?];
                q.push('&');
                q.push_str(p);
                q.push_str(&u.int_in_range(0..=4000u32)?.to_string());
            }
        }
        if let Ok(e) = link::open(&q) {
            exercise(e);
        }
        Ok(())
    });
}

#[test]
fn fuzz_log_lines() {
    fuzz("log-lines", |u| {
        let logs = &corpus().logs;
        let (kind, files) = &logs[u.choose_index(logs.len())?];
        let mut files = files.clone();
        for _ in 0..u.int_in_range(1..=4)? {
            let f = u.choose_index(files.len())?;
            let text = &mut files[f].1;
            let mut lines: Vec<String> = text.lines().map(String::from).collect();
            if lines.is_empty() {
                continue;
            }
            let i = u.choose_index(lines.len())?;
            match u.int_in_range(0..=2)? {
                // A zap line (JSON) mutated in its tree.
                0 if lines[i].starts_with('{') => {
                    if let Ok(mut v) = serde_json::from_str::<Value>(&lines[i]) {
                        let copy = v.clone();
                        mutate(&mut v, &copy, u)?;
                        lines[i] = v.to_string();
                    }
                }
                // A number in the line replaced by an edge number.
                1 => {
                    let line = &lines[i];
                    let digits: Vec<(usize, usize)> = digit_runs(line);
                    if !digits.is_empty() {
                        let (a, b) = digits[u.choose_index(digits.len())?];
                        let nums = ["0", "4294967296", "18446744073709551615", "99999999999999999999", "-1"];
                        lines[i] = format!("{}{}{}", &line[..a], nums[u.choose_index(nums.len())?], &line[b..]);
                    }
                }
                _ => {
                    let mut l = std::mem::take(&mut lines[i]);
                    mutate_text(&mut l, u)?;
                    lines[i] = l;
                }
            }
            *text = lines.join("\n") + "\n";
        }
        let logs: Vec<LogFile> = files.iter().map(|(name, text)| LogFile { name, text }).collect();
        // One reader a case: the shipped mapping, or the events the mapping wrote, mutated in
        // their turn.
        let mapping = Mapping::read(Mapping::shipped(kind).unwrap()).unwrap();
        let imported = match u.int_in_range(0..=1)? {
            0 => Some(mapping.import(&logs)),
            _ => {
                let applied = mapping.apply(&logs);
                let mut text = events::write(&applied.header, &applied.events, &logs);
                if u.arbitrary::<bool>()? {
                    text = with_clocks(&text, u)?;
                }
                mutate_text(&mut text, u)?;
                Some(events::import("events.jsonl", &text))
            }
        };
        if let Some(Ok(imp)) = imported {
            if !long(&imp.scenario) {
                if let Ok(e) = Engine::from_trace_value(&imp.scenario) {
                    exercise(e);
                }
            }
        }
        let _ = recorded::detect(&logs);
        Ok(())
    });
}

/// The events with vector clocks: each member's own count going up, and a count of another
/// member's now and then, edge numbers included (the reader places them or names the line).
fn with_clocks(text: &str, u: &mut Unstructured) -> AResult<String> {
    let mut counts: std::collections::BTreeMap<String, u64> = Default::default();
    let mut out = String::new();
    for line in text.lines() {
        let mut v: Value = serde_json::from_str(line).unwrap_or(Value::Null);
        if let Some(node) = v.get("node").and_then(Value::as_str).map(str::to_string) {
            let own = counts.entry(node.clone()).or_default();
            *own += u.int_in_range(0..=2)?;
            let mut vc = serde_json::json!({ node.clone(): *own });
            if let Some(other) = counts.keys().nth(u.choose_index(counts.len())?).cloned() {
                let edge = [0, 1, u64::MAX, counts[&other]][u.choose_index(4)?];
                vc[other] = serde_json::json!(edge);
            }
            v["vc"] = vc;
            out.push_str(&v.to_string());
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    Ok(out)
}

fn digit_runs(s: &str) -> Vec<(usize, usize)> {
    let mut out = vec![];
    let mut start = None;
    for (i, c) in s.char_indices().chain([(s.len(), ' ')]) {
        match (c.is_ascii_digit(), start) {
            (true, None) => start = Some(i),
            (false, Some(a)) => {
                out.push((a, i));
                start = None;
            }
            _ => {}
        }
    }
    out
}
