//! Slices merged back into one sweep (`sweep --shard K/N --part`, then `sweep --merge PART...`):
//! for every ready-made experiment and N in {1, 3, 8}, the merge of the N parts (CSV or JSON
//! Lines, in any order) writes the whole sweep's rows, summary, Markdown tables and plots byte
//! for byte; a missing, duplicated, foreign, cut-short or edited slice is refused by name; and
//! `--shard slurm`, `slurm/N`, `k8s/N` read the slice from a scheduler's environment.
//!
//! Each ready-made experiment is run whole once and cut into 3 slices run as real shards; the
//! parts of 1 and 8 slices are written by sharded sweeps that adopt the whole sweep's rows of
//! their slice (that a shard's rows are those rows is what `tests/parallel.rs` checks), so the
//! test runs every experiment twice, not four times.

use election_lab::experiment::{parse_shard, Format, Merge, Sweep, READY};
use election_lab::meta::Lang;
use serde_json::{json, Value};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_election-lab");

/// Every output the whole sweep writes, by name.
fn outputs(s: &Sweep) -> Vec<(&'static str, String)> {
    let table = |summary, format| s.render(summary, None, format).unwrap();
    vec![
        ("rows (CSV)", table(false, Format::Csv)),
        ("rows (JSON Lines)", table(false, Format::JsonLines)),
        ("rows (Markdown)", table(false, Format::Markdown)),
        ("summary (CSV)", table(true, Format::Csv)),
        ("summary (JSON Lines)", table(true, Format::JsonLines)),
        ("summary (Markdown)", table(true, Format::Markdown)),
        ("plot (SVG, en)", s.svg(Lang::En)),
        ("plot (SVG, zh)", s.svg(Lang::Zh)),
    ]
}

/// Slice `k` of `n` of `spec`: run for real, or given the whole sweep's rows of the slice.
fn slice(spec: &str, k: u64, n: u64, whole: Option<&Sweep>) -> Sweep {
    let mut s = Sweep::from_json(spec).unwrap();
    s.shard(k, n).unwrap();
    match whole {
        None => {
            s.run_parallel();
        }
        Some(w) => {
            let (lo, hi) = s.span();
            s.adopt(w.rows()[lo as usize..hi as usize].to_vec()).unwrap();
        }
    }
    s
}

fn merge(parts: &[(String, String)]) -> Result<Sweep, String> {
    let mut m = Merge::new();
    for (name, text) in parts {
        m.add(name, &mut text.as_bytes())?;
    }
    m.finish()
}

fn merges_to_the_whole(id: &str) {
    let spec = READY.iter().find(|r| r.0 == id).unwrap().1;
    let mut whole = Sweep::from_json(spec).unwrap();
    whole.run_parallel();
    let expected = outputs(&whole);
    for n in [1, 3, 8] {
        let slices: Vec<Sweep> = (1..=n).map(|k| slice(spec, k, n, (n != 3).then_some(&whole))).collect();
        for format in [Format::Csv, Format::JsonLines] {
            // Given in reverse order, as a shell glob may list part-10 before part-2.
            let parts: Vec<(String, String)> = slices
                .iter()
                .rev()
                .map(|s| (format!("part-{}", s.slice().unwrap().0), s.part(format).unwrap()))
                .collect();
            let merged = merge(&parts).unwrap_or_else(|e| panic!("{id}, {n} slices, {format:?}: {e}"));
            assert_eq!(merged.steps(), whole.steps(), "{id}, {n} slices");
            assert!(merged.rows() == whole.rows(), "{id}, {n} slices as {format:?} parts: the rows differ");
            // Every output is written from the rows and the spec; each is compared once per N.
            if format == Format::Csv {
                for ((what, got), (_, want)) in outputs(&merged).iter().zip(&expected) {
                    assert!(got == want, "{id}, {n} slices: the merged {what} differs from the whole sweep's");
                }
            }
        }
    }
}

#[test]
fn messages_vs_n_merges_to_the_whole() {
    merges_to_the_whole("messages-vs-n");
}
#[test]
fn raft_figure_16_randomness_merges_to_the_whole() {
    merges_to_the_whole("raft-figure-16-randomness");
}
#[test]
fn raft_figure_16_scale_merges_to_the_whole() {
    merges_to_the_whole("raft-figure-16-scale");
}
#[test]
fn raft_figure_16_network_merges_to_the_whole() {
    merges_to_the_whole("raft-figure-16-network");
}
#[test]
fn gossip_convergence_merges_to_the_whole() {
    merges_to_the_whole("gossip-convergence");
}
#[test]
fn one_partition_merges_to_the_whole() {
    merges_to_the_whole("one-partition");
}
#[test]
fn split_brain_random_partitions_merges_to_the_whole() {
    merges_to_the_whole("split-brain-random-partitions");
}

#[test]
fn graphs_merges_to_the_whole() {
    merges_to_the_whole("graphs");
}
#[test]
fn graphs_rounds_merges_to_the_whole() {
    merges_to_the_whole("graphs-rounds");
}

#[test]
fn every_ready_made_experiment_is_tested() {
    let src = include_str!("merge.rs");
    for (id, _) in READY {
        let name = format!("fn {}_merges_to_the_whole()", id.replace('-', "_"));
        assert!(src.contains(&name), "{id} has a test {name}");
    }
}

/// A small spec with shuffled rings (the `order` column), drawn faults (`faults`, quoted
/// nowhere) and a label with a comma (a quoted CSV cell).
fn small() -> Value {
    json!({
        "title": "Small, with a comma",
        "algorithms": [
            {"algorithm": "chang-roberts", "label": "ring, shuffled", "order": "random", "schedule": [{"at": 0, "start": "all"}]},
            {"algorithm": "bully", "schedule": [{"at": 3, "crash": "random"}, {"at": 4, "start": "min"}]}
        ],
        "nodes": [3, 5],
        "seeds": {"count": 7},
        "measure": "messages"
    })
}

fn parts_of(spec: &Value, n: u64, format: Format) -> Vec<(String, String)> {
    (1..=n)
        .map(|k| {
            let s = slice(&spec.to_string(), k, n, None);
            (format!("part-{k}-of-{n}"), s.part(format).unwrap())
        })
        .collect()
}

#[test]
fn a_small_sweep_with_quoted_cells_merges_to_the_whole() {
    let mut whole = Sweep::from_value(&small()).unwrap();
    whole.run_parallel();
    assert!(whole.csv().contains("\"ring, shuffled\""), "the label is a quoted cell");
    for format in [Format::Csv, Format::JsonLines] {
        // More slices than runs: some slices are empty, and merge all the same.
        for n in [2, 5, 40] {
            let merged = merge(&parts_of(&small(), n, format)).unwrap();
            assert_eq!(outputs(&merged), outputs(&whole), "{n} slices, {format:?}");
        }
    }
    // Parts of both formats mix.
    let mut mixed = parts_of(&small(), 3, Format::Csv);
    mixed[1] = parts_of(&small(), 3, Format::JsonLines).swap_remove(1);
    assert_eq!(outputs(&merge(&mixed).unwrap()), outputs(&whole));
}

/// The error merging `parts` gives (it must fail).
fn refused(parts: &[(String, String)]) -> String {
    match merge(parts) {
        Ok(_) => panic!("merged: {:?}", parts.iter().map(|p| &p.0).collect::<Vec<_>>()),
        Err(e) => e,
    }
}

fn edit(part: &(String, String), f: impl Fn(&str) -> String) -> (String, String) {
    (part.0.clone(), f(&part.1))
}

#[test]
fn a_missing_duplicated_or_foreign_slice_is_refused_by_name() {
    let parts = parts_of(&small(), 3, Format::Csv);
    let e = refused(&[parts[0].clone(), parts[2].clone()]);
    assert!(e.starts_with("missing slice 2/3 (given: part-1-of-3, part-3-of-3)"), "{e}");
    let e = refused(&parts[1..2]);
    assert!(e.starts_with("missing slices 1/3, 3/3"), "{e}");
    let again = ("again".to_string(), parts[1].1.clone());
    let e = refused(&[parts[0].clone(), parts[1].clone(), again, parts[2].clone()]);
    assert_eq!(e, "again: slice 2/3 is given twice (also part-2-of-3)");

    // A slice of another spec (other seeds), however alike.
    let mut other = small();
    other["seeds"]["start"] = json!(2);
    let foreign = ("foreign".to_string(), parts_of(&other, 3, Format::Csv).swap_remove(1).1);
    let e = refused(&[parts[0].clone(), foreign, parts[2].clone()]);
    assert!(e.starts_with("foreign: slice 2/3 of another spec (spec hash "), "{e}");
    assert!(e.contains("part-1-of-3 is of spec hash"), "{e}");
    // A slice of another cut of the same spec.
    let cut = ("cut".to_string(), parts_of(&small(), 4, Format::Csv).swap_remove(1).1);
    let e = refused(&[parts[0].clone(), cut]);
    assert!(e.starts_with("cut: slice 2/4, but part-1-of-3 is a slice of 3"), "{e}");
    // The same spec spaced and ordered otherwise is the same spec.
    let text = small().to_string();
    let pretty = serde_json::to_string_pretty(&small()).unwrap();
    assert_ne!(text, pretty);
    let s = Sweep::from_json(&pretty).unwrap();
    assert_eq!(s.spec_hash(), Sweep::from_json(&text).unwrap().spec_hash());
}

#[test]
fn a_cut_short_or_edited_part_is_refused_by_name() {
    for format in [Format::Csv, Format::JsonLines] {
        let parts = parts_of(&small(), 3, format);
        let with = |i: usize, p: (String, String)| {
            let mut v = parts.clone();
            v[i] = p;
            v
        };
        // The last row lost (a task killed while writing).
        let short = edit(&parts[1], |t| {
            let mut lines: Vec<&str> = t.lines().collect();
            lines.pop();
            lines.join("\n") + "\n"
        });
        let e = refused(&with(1, short));
        assert!(e.starts_with("part-2-of-3: slice 2/3 holds 8 of its 9 rows"), "{format:?}: {e}");
        // A row twice.
        let twice = edit(&parts[1], |t| {
            let last = t.lines().last().unwrap();
            format!("{t}{last}\n")
        });
        let e = refused(&with(1, twice));
        assert!(e.starts_with("part-2-of-3: line ") && e.contains("more rows than slice 2/3 has (9)"), "{e}");
        // A number edited where the spec fixes it (the seed), and where it does not (but then
        // the cell must still read back as written).
        let seed = edit(&parts[0], |t| {
            let lines: Vec<String> = t.lines().map(String::from).collect();
            let at = lines.len() - 1;
            let edited = match format {
                Format::Csv => {
                    let mut cells: Vec<&str> = lines[at].split(',').collect();
                    let i = cells.len() - 18; // the seed: 5th of 22 columns, the label has a comma
                    cells[i] = "99";
                    cells.join(",")
                }
                _ => {
                    let mut v: Value = serde_json::from_str(&lines[at]).unwrap();
                    v["seed"] = json!(99);
                    v.to_string()
                }
            };
            lines[..at].iter().chain([&edited]).map(|l| format!("{l}\n")).collect()
        });
        let e = refused(&with(0, seed));
        assert!(e.starts_with("part-1-of-3: line ") && e.contains("and seed 99"), "{format:?}: {e}");
        if format == Format::Csv {
            // The messages of slice 3's last row (Bully's: no quoted cell) with a leading zero.
            let zero = edit(&parts[2], |t| {
                let mut lines: Vec<String> = t.lines().map(String::from).collect();
                let last = lines.pop().unwrap();
                let mut cells: Vec<String> = last.split(',').map(String::from).collect();
                cells[5] = format!("0{}", cells[5]);
                lines.push(cells.join(","));
                lines.iter().map(|l| format!("{l}\n")).collect()
            });
            let e = refused(&with(2, zero));
            assert!(e.starts_with("part-3-of-3: line 12: column messages is '0"), "{e}");
            assert!(e.contains("where run 27 of this spec writes '"), "{e}");
        }
        // The spec in the first line edited: its hash no longer holds.
        let spec = edit(&parts[2], |t| t.replacen("\"count\":7", "\"count\":8", 1));
        let e = refused(&with(2, spec));
        assert!(e.starts_with("part-3-of-3: its spec does not have its spec hash"), "{e}");
        // Not a part: the plain output of a shard, or nothing at all.
        let plain = Sweep::from_value(&small()).unwrap();
        let e = refused(&with(0, ("plain.csv".into(), plain.csv())));
        assert!(e.starts_with("plain.csv: not a part of a sweep"), "{e}");
        let e = refused(&with(0, ("empty".into(), String::new())));
        assert!(e.starts_with("empty: not a part of a sweep"), "{e}");
    }
    assert_eq!(Merge::new().finish().unwrap_err(), "no parts");
    // Only a finished slice writes a part.
    let mut s = Sweep::from_value(&small()).unwrap();
    assert!(s.part(Format::Csv).is_err());
    s.shard(1, 2).unwrap();
    assert!(s.part(Format::Csv).unwrap_err().contains("not finished"));
    s.run_parallel();
    assert!(s.part(Format::Markdown).is_err());
}

#[test]
fn the_shard_comes_from_the_schedulers_environment() {
    let env = |vars: &'static [(&'static str, &'static str)]| {
        move |k: &str| vars.iter().find(|v| v.0 == k).map(|v| v.1.to_string())
    };
    // An array task's environment: its id, the array's task count, lowest and highest id.
    let task = |id: &'static str, count: &'static str, min: &'static str, max: &'static str| {
        let vars = [
            ("SLURM_ARRAY_TASK_ID", id),
            ("SLURM_ARRAY_TASK_COUNT", count),
            ("SLURM_ARRAY_TASK_MIN", min),
            ("SLURM_ARRAY_TASK_MAX", max),
        ];
        move |k: &str| vars.iter().find(|v| v.0 == k).map(|v| v.1.to_string())
    };
    let none = |_: &str| None;
    assert_eq!(parse_shard("3/8", &none), Ok((3, 8)));
    assert!(parse_shard("9/8", &none).unwrap_err().contains("K must be between 1 and N"));
    let array = task("3", "4", "1", "4");
    assert_eq!(parse_shard("slurm", &array), Ok((3, 4)));
    assert_eq!(parse_shard("slurm/4", &array), Ok((3, 4)));
    // A task resubmitted alone (sbatch --array=3): its count and bounds are its own.
    let alone = task("3", "1", "3", "3");
    assert_eq!(parse_shard("slurm/4", &alone), Ok((3, 4)));
    let e = parse_shard("slurm", &alone).unwrap_err();
    assert!(e.contains("SLURM_ARRAY_TASK_MIN is 3") && e.contains("--shard slurm/N"), "{e}");
    let zero = task("0", "4", "0", "3");
    assert!(parse_shard("slurm", &zero).unwrap_err().contains("--array=1-N"));
    let stepped = task("3", "2", "1", "3");
    assert!(parse_shard("slurm", &stepped).unwrap_err().contains("SLURM_ARRAY_TASK_MAX is 3"));
    let e = parse_shard("slurm", &none).unwrap_err();
    assert!(e.contains("SLURM_ARRAY_TASK_ID is not set") && e.contains("sbatch --array=1-N"), "{e}");
    let bad = env(&[("SLURM_ARRAY_TASK_ID", "three"), ("SLURM_ARRAY_TASK_COUNT", "4")]);
    assert!(parse_shard("slurm", &bad).unwrap_err().contains("SLURM_ARRAY_TASK_ID is 'three'"));
    let past = env(&[("SLURM_ARRAY_TASK_ID", "5")]);
    assert!(parse_shard("slurm/4", &past).unwrap_err().contains("gives slice 5/4"));
    // Kubernetes: the completion index is 0-based.
    let pod = env(&[("JOB_COMPLETION_INDEX", "0")]);
    assert_eq!(parse_shard("k8s/8", &pod), Ok((1, 8)));
    assert!(parse_shard("k8s", &pod).unwrap_err().contains("k8s/N"));
    assert!(parse_shard("k8s/8", &none).unwrap_err().contains("JOB_COMPLETION_INDEX is not set"));
    assert!(parse_shard("pbs", &none).unwrap_err().contains("is not K/N"));
}

fn cli(args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let mut c = Command::new(BIN);
    c.args(args);
    for k in ["SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_MAX"] {
        c.env_remove(k);
    }
    c.envs(env.iter().copied()).output().unwrap()
}

/// The command line: parts written by `--shard ... --part` (from Slurm's variables too) merge
/// into what `sweep` prints, with `--summary`, `--markdown` and `--svg`; refusals exit 2.
#[test]
fn the_command_line_merges_parts_and_refuses_by_name() {
    let dir = std::env::temp_dir().join(format!("election-lab-merge-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = |f: &str| dir.join(f).to_str().unwrap().to_string();
    std::fs::write(path("spec.json"), small().to_string()).unwrap();
    let spec = path("spec.json");
    let ok = |o: std::process::Output| {
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    let mut names = Vec::new();
    for k in 1..=3 {
        let id = k.to_string();
        let vars = [("SLURM_ARRAY_TASK_ID", id.as_str()), ("SLURM_ARRAY_TASK_COUNT", "3")];
        // Slice 2 as JSON Lines, the others as CSV.
        let format: &[&str] = if k == 2 { &["--json"] } else { &[] };
        let part = ok(cli(&[&["sweep", &spec, "--shard", "slurm", "--part"][..], format].concat(), &vars));
        names.push(path(&format!("part-{k}")));
        std::fs::write(names.last().unwrap(), part).unwrap();
    }
    let parts: Vec<&str> = names.iter().map(String::as_str).collect();
    for extra in [&[][..], &["--summary"], &["--markdown"], &["--summary", "--json"], &["--columns", "seed,run"]] {
        let whole = ok(cli(&[&["sweep", &spec][..], extra].concat(), &[]));
        let merged = ok(cli(&[&["sweep", "--merge"][..], &parts, extra].concat(), &[]));
        assert_eq!(merged, whole, "{extra:?}");
    }
    ok(cli(&["sweep", &spec, "--svg", &path("whole.svg")], &[]));
    ok(cli(&[&["sweep", "--svg", &path("merged.svg"), "--lang", "en", "--merge"][..], &parts].concat(), &[]));
    assert_eq!(std::fs::read(path("whole.svg")).unwrap(), std::fs::read(path("merged.svg")).unwrap());

    let o = cli(&["sweep", "--merge", parts[0], parts[2]], &[]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.starts_with("election-lab: --merge: missing slice 2/3"), "{err}");
    let o = cli(&["sweep", "--merge", parts[0], parts[1], parts[1], parts[2]], &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("slice 2/3 is given twice"));
    let o = cli(&["sweep", "--merge", &path("nothing-here")], &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot read"));
    // --shard slurm outside an array, --part without --shard, --merge with a spec.
    let o = cli(&["sweep", &spec, "--shard", "slurm"], &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("SLURM_ARRAY_TASK_ID is not set"));
    assert_eq!(cli(&["sweep", &spec, "--part"], &[]).status.code(), Some(2));
    assert_eq!(cli(&["sweep", &spec, "--merge", parts[0]], &[]).status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}
