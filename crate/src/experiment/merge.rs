//! A sweep cut into slices that ran elsewhere (other machines, a Slurm job array, a Kubernetes
//! indexed job), put back together. Each slice writes a *part* ([`Sweep::part`]): the slice's
//! per-run table, every column, after a first line that names the spec (the spec itself and a
//! hash of it) and the slice. [`Merge`] reads the parts in any order, refuses a missing,
//! duplicated or foreign slice by name, checks every row against the run of the spec it claims
//! to be, and gives back the whole sweep: its rows, summary, Markdown tables and plot are then
//! byte for byte those of the same sweep run on one machine, since they are written by the same
//! code from the same rows.
//!
//! The first line of a part:
//! * CSV: `# election-lab sweep part {...}`, then the header and one row per run;
//! * JSON Lines: `{"election_lab_part": {...}}`, then one object per run;
//!
//! where `{...}` is `{"slice": "K/N", "runs": [lo, hi], "total": T, "spec_hash": "…",
//! "version": "…", "spec": {...}}`: the slice, the runs it holds (`lo..hi` of the sweep's `T`),
//! the spec's hash (64-bit FNV-1a of the spec as compact JSON with sorted keys, in hex), the
//! version of election-lab that ran it, and the spec.

use super::runs::slice_runs;
use super::*;
use std::io::BufRead;

/// How the first line of a CSV part begins (a comment line, as CSV readers skip with `#`).
pub const PART_CSV_MARK: &str = "# election-lab sweep part ";
/// The key of the first line of a JSON Lines part.
pub const PART_JSON_KEY: &str = "election_lab_part";
/// The longest line a part may have: the first carries the spec (at most [`MAX_BYTES`]).
const MAX_LINE: usize = crate::scenario::MAX_BYTES + 4096;

fn fnv(s: &str) -> u64 {
    crate::fnv::fnv1a_64(s.as_bytes())
}

impl Sweep {
    /// The hash a part gives of its spec: 64-bit FNV-1a of the spec as compact JSON, keys sorted
    /// (so the same spec however it is spaced or its keys ordered).
    pub fn spec_hash(&self) -> u64 {
        hash_of(&self.spec)
    }

    /// What a finished slice ([`Sweep::shard`]) writes for [`Merge`]: the first line naming the
    /// spec and the slice, then every column of its rows (CSV with its header, or JSON Lines).
    pub fn part(&self, format: Format) -> Result<String, String> {
        let (k, n) = self.slice.ok_or("a part is one slice of a sweep (--shard K/N)")?;
        if format == Format::Markdown {
            return Err("a part is CSV or JSON Lines".into());
        }
        if !self.progress().finished() {
            return Err(format!("slice {k}/{n} has not finished"));
        }
        let (lo, hi) = self.span();
        let meta = format!(
            "{{\"slice\":\"{k}/{n}\",\"runs\":[{lo},{hi}],\"total\":{},\"spec_hash\":\"{:016x}\",\"version\":\"{}\",\"spec\":{}}}",
            self.total,
            self.spec_hash(),
            env!("CARGO_PKG_VERSION"),
            self.spec
        );
        let first = match format {
            Format::Csv => format!("{PART_CSV_MARK}{meta}\n"),
            _ => format!("{{\"{PART_JSON_KEY}\":{meta}}}\n"),
        };
        Ok(first + self.render(false, None, format)?.as_str())
    }

    /// Which line, node count and seed run `run` has in this sweep.
    fn run_key(&self, run: u64) -> (usize, u32, u64) {
        let j = &self.jobs[self.jobs.partition_point(|j| j.first <= run) - 1];
        (j.line, j.scenario.nodes.len() as u32, self.lines[j.line].seeds.start + (run - j.first))
    }

    /// The row that `cells` (every column, as text) write, which must be run `run` of this
    /// sweep: the columns the spec fixes (line, algorithm, variant, nodes, seed, theory) must be
    /// that run's, and every cell must read back as it is written.
    fn row_from(&self, cells: &[String], run: u64) -> Result<Row, String> {
        if cells.len() != COLUMNS.len() {
            return Err(format!("{} cells where a row has {}", cells.len(), COLUMNS.len()));
        }
        let get = |c: &str| cells[COLUMNS.iter().position(|x| *x == c).expect("a column")].as_str();
        let int =
            |c: &str| get(c).parse::<u64>().map_err(|_| format!("column {c}: '{}' is not a whole number", get(c)));
        let small =
            |c: &str| int(c).and_then(|v| u32::try_from(v).map_err(|_| format!("column {c}: {v} is too large")));
        let opt = |c: &str| if get(c).is_empty() { Ok(None) } else { int(c).map(Some) };
        let opt_small = |c: &str| if get(c).is_empty() { Ok(None) } else { small(c).map(Some) };
        let got = int("run")?;
        if got != run {
            return Err(format!("run {got} where run {run} was expected (a slice holds its runs in order)"));
        }
        let (line, nodes, seed) = self.run_key(run);
        let row = Row {
            line,
            nodes: small("nodes")?,
            seed: int("seed")?,
            messages: int("messages")?,
            counted: int("counted")?,
            theory: opt("theory")?,
            end_time: int("end_time")?,
            steps: int("steps")?,
            quiescent: match get("quiescent") {
                "0" => false,
                "1" => true,
                x => return Err(format!("column quiescent: '{x}' is not 0 or 1")),
            },
            agreement: opt_small("agreement")?,
            leaders: small("leaders")?,
            max_leaders: small("max_leaders")?,
            violations: small("violations")?,
            elections: small("elections")?,
            downtime: opt("downtime")?,
            minority_leaders: opt_small("minority_leaders")?,
            trace_hash: u64::from_str_radix(get("trace_hash"), 16)
                .map_err(|_| format!("column trace_hash: '{}' is not a hexadecimal hash", get("trace_hash")))?,
            run,
            faults: get("faults").to_string(),
            order: self.lines[line].shuffle.then(|| get("order").to_string()),
        };
        if (row.nodes, row.seed) != (nodes, seed) {
            return Err(format!(
                "run {run} of this spec has N = {nodes} and seed {seed}, not N = {} and seed {}",
                row.nodes, row.seed
            ));
        }
        for ((c, cell), text) in COLUMNS.iter().zip(self.row_cells(&row)).zip(cells) {
            let written = cell.text();
            if written != *text {
                return Err(format!("column {c} is '{text}', where run {run} of this spec writes '{written}'"));
            }
        }
        Ok(row)
    }
}

fn hash_of(spec: &Value) -> u64 {
    fnv(&spec.to_string())
}

/// `--shard`: `K/N` (1 ≤ K ≤ N), or the slice a batch scheduler's environment (`env`) gives:
/// * `slurm`: K = `SLURM_ARRAY_TASK_ID`, N = `SLURM_ARRAY_TASK_COUNT`, for an array submitted
///   as `--array=1-N` (its ids are the slices' numbers; `SLURM_ARRAY_TASK_MIN` must be 1 and
///   `SLURM_ARRAY_TASK_MAX` N, so that a 0-based, stepped or partial array is refused rather
///   than cut wrongly);
/// * `slurm/N`: K = `SLURM_ARRAY_TASK_ID`, N given: for tasks resubmitted alone
///   (`sbatch --array=3,5 ...`, whose count and bounds are no longer the sweep's);
/// * `k8s/N`: K = `JOB_COMPLETION_INDEX` + 1 (a Kubernetes indexed job's completion index is
///   0-based, and the number of completions is not in the environment: give it).
pub fn parse_shard(s: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<(u64, u64), String> {
    let bad = || format!("'{s}' is not K/N (e.g. 2/8), slurm, slurm/N or k8s/N");
    let num = |x: &str| x.trim().parse::<u64>().map_err(|_| bad());
    let var = |name: &str, inside: &str| -> Result<Option<u64>, String> {
        match env(name) {
            None => Ok(None),
            Some(v) => v
                .trim()
                .parse::<u64>()
                .map(Some)
                .map_err(|_| format!("--shard {s}: {name} is '{v}', not a whole number ({inside})")),
        }
    };
    let need = |name: &str, inside: &str| -> Result<u64, String> {
        var(name, inside)?.ok_or_else(|| format!("--shard {s}: {name} is not set ({inside})"))
    };
    const SLURM: &str = "`--shard slurm` runs as a task of a Slurm job array: sbatch --array=1-N";
    const K8S: &str = "`--shard k8s/N` runs in a pod of a Kubernetes indexed job";
    let (k, n) = match s.split_once('/') {
        None if s == "slurm" => {
            let (k, n) = (need("SLURM_ARRAY_TASK_ID", SLURM)?, need("SLURM_ARRAY_TASK_COUNT", SLURM)?);
            if let Some(min) = var("SLURM_ARRAY_TASK_MIN", SLURM)?.filter(|&m| m != 1) {
                return Err(format!(
                    "--shard slurm: SLURM_ARRAY_TASK_MIN is {min}: the task ids are the slices' numbers, so submit \
                     the array as --array=1-N (for tasks resubmitted alone, give N: --shard slurm/N)"
                ));
            }
            if let Some(max) = var("SLURM_ARRAY_TASK_MAX", SLURM)?.filter(|&m| m != n) {
                return Err(format!(
                    "--shard slurm: SLURM_ARRAY_TASK_MAX is {max} but SLURM_ARRAY_TASK_COUNT is {n}: submit the \
                     array as --array=1-N, without steps or gaps (for tasks resubmitted alone, give N: --shard slurm/N)"
                ));
            }
            (k, n)
        }
        None if s == "k8s" => {
            return Err("--shard k8s needs the number of completions: --shard k8s/N (Kubernetes does not put it in \
                        the environment)"
                .to_string())
        }
        None => return Err(bad()),
        Some(("slurm", n)) => (need("SLURM_ARRAY_TASK_ID", SLURM)?, num(n)?),
        Some(("k8s", n)) => {
            let index = need("JOB_COMPLETION_INDEX", K8S)?;
            (index.saturating_add(1), num(n)?)
        }
        Some((k, n)) => (num(k)?, num(n)?),
    };
    if n == 0 || k == 0 || k > n {
        return Err(if s.contains(|c: char| c.is_ascii_alphabetic()) {
            format!("'{s}' gives slice {k}/{n}: K must be between 1 and N")
        } else {
            format!("'{s}': K must be between 1 and N")
        });
    }
    Ok((k, n))
}

/// The slices of one sweep, read part by part ([`Merge::add`]) and put together
/// ([`Merge::finish`]). Memory: the rows of the sweep, as the sweep run whole keeps them; a
/// part's lines are read one at a time, each at most the size of a spec.
#[derive(Default)]
pub struct Merge {
    /// The sweep of the first part's spec, the part's name, its N and version.
    first: Option<(Sweep, String, u64, String)>,
    /// The rows of each slice read so far, by slice number, with the part's name.
    parts: BTreeMap<u64, (String, Vec<Row>)>,
}

impl std::fmt::Debug for Merge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Merge({} parts)", self.parts.len())
    }
}

/// Reads one line (without its line break) of at most [`MAX_LINE`] bytes; `None` at the end.
fn read_line(input: &mut dyn BufRead, name: &str, no: usize) -> Result<Option<String>, String> {
    let mut buf = String::new();
    let n = std::io::Read::take(&mut *input, MAX_LINE as u64 + 1)
        .read_line(&mut buf)
        .map_err(|e| format!("{name}: line {no}: {e}"))?;
    if n == 0 {
        return Ok(None);
    }
    if buf.len() > MAX_LINE {
        return Err(format!("{name}: line {no} is longer than {MAX_LINE} bytes: not a part of a sweep"));
    }
    if buf.ends_with('\n') {
        buf.pop();
    }
    Ok(Some(buf))
}

/// The cells of one CSV record (quoted cells may hold commas, doubled quotes and line breaks).
fn csv_cells(record: &str) -> Result<Vec<String>, String> {
    let (mut cells, mut cell, mut quoted, mut fresh) = (Vec::new(), String::new(), false, true);
    let mut chars = record.chars().peekable();
    while let Some(c) = chars.next() {
        if quoted {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    chars.next();
                    cell.push('"');
                }
                '"' => quoted = false,
                _ => cell.push(c),
            }
        } else {
            match c {
                ',' => {
                    cells.push(std::mem::take(&mut cell));
                    fresh = true;
                    continue;
                }
                '"' if fresh => quoted = true,
                _ => cell.push(c),
            }
        }
        fresh = false;
    }
    if quoted {
        return Err("a quoted cell is not closed".into());
    }
    cells.push(cell);
    Ok(cells)
}

/// The cells of one JSON Lines row, as the CSV writes them.
fn json_cells(line: &str) -> Result<Vec<String>, String> {
    let v: Value = serde_json::from_str(line).map_err(|e| format!("not a JSON object: {e}"))?;
    let o = v.as_object().ok_or("not a JSON object")?;
    if let Some(k) = o.keys().find(|k| !COLUMNS.contains(&k.as_str())) {
        return Err(format!("unknown column '{k}'"));
    }
    COLUMNS
        .iter()
        .map(|c| match o.get(*c) {
            None => Err(format!("no column '{c}'")),
            Some(Value::Null) => Ok(String::new()),
            Some(Value::String(s)) => Ok(s.clone()),
            Some(Value::Number(x)) => Ok(x.to_string()),
            Some(x) => Err(format!("column {c}: unexpected {x}")),
        })
        .collect()
}

impl Merge {
    pub fn new() -> Merge {
        Merge::default()
    }

    /// Reads the part called `name` (its file name, for the messages). Refused, by name: what
    /// is not a part, a part of another spec or another cut (N) or another version, a slice
    /// already read, and a part whose rows are not exactly its slice's runs.
    pub fn add(&mut self, name: &str, input: &mut dyn BufRead) -> Result<(), String> {
        let not_a_part = || format!("{name}: not a part of a sweep (`sweep SPEC --shard K/N --part` writes one)");
        let first = read_line(input, name, 1)?.ok_or_else(not_a_part)?;
        let (format, meta) = if let Some(rest) = first.strip_prefix(PART_CSV_MARK) {
            (Format::Csv, serde_json::from_str::<Value>(rest).map_err(|_| not_a_part())?)
        } else {
            let mut v = serde_json::from_str::<Value>(&first).map_err(|_| not_a_part())?;
            (Format::JsonLines, v.get_mut(PART_JSON_KEY).map(Value::take).ok_or_else(not_a_part)?)
        };
        let text =
            |k: &str| meta.get(k).and_then(Value::as_str).ok_or_else(|| format!("{name}: its first line has no {k}"));
        let slice = text("slice")?;
        let (k, n) = parse_shard(slice, &|_| None).map_err(|e| format!("{name}: slice {e}"))?;
        let (hash, version) = (text("spec_hash")?.to_string(), text("version")?.to_string());
        let spec = meta.get("spec").ok_or_else(|| format!("{name}: its first line has no spec"))?;
        if format!("{:016x}", hash_of(spec)) != hash {
            return Err(format!("{name}: its spec does not have its spec hash {hash} (was the part edited?)"));
        }
        if self.first.is_none() {
            let sweep = Sweep::from_value(spec).map_err(|e| format!("{name}: its spec: {e}"))?;
            self.first = Some((sweep, name.to_string(), n, version.clone()));
        }
        let (sweep, first, first_n, first_version) = self.first.as_ref().expect("set");
        let first_hash = format!("{:016x}", sweep.spec_hash());
        if hash != first_hash {
            return Err(format!(
                "{name}: slice {k}/{n} of another spec (spec hash {hash}; {first} is of spec hash {first_hash})"
            ));
        }
        if n != *first_n {
            return Err(format!(
                "{name}: slice {k}/{n}, but {first} is a slice of {first_n}: the parts must come from one cut (--shard K/{first_n})"
            ));
        }
        if version != *first_version {
            return Err(format!("{name}: made by election-lab {version}, but {first} by {first_version}"));
        }
        if let Some((other, _)) = self.parts.get(&k) {
            return Err(format!("{name}: slice {k}/{n} is given twice (also {other})"));
        }
        let (lo, hi) = slice_runs(sweep.total, k, n);
        if meta.get("runs") != Some(&json!([lo, hi])) || meta.get("total") != Some(&json!(sweep.total)) {
            return Err(format!(
                "{name}: its first line does not give runs [{lo}, {hi}] of {} for slice {k}/{n}",
                sweep.total
            ));
        }
        let mut no = 1;
        if format == Format::Csv {
            no += 1;
            if read_line(input, name, no)?.as_deref() != Some(&COLUMNS.join(",")) {
                return Err(format!("{name}: line {no} is not the header of the per-run table"));
            }
        }
        let mut rows = Vec::with_capacity((hi - lo).min(1 << 16) as usize);
        while let Some(mut record) = read_line(input, name, no + 1)? {
            no += 1;
            if record.is_empty() {
                continue;
            }
            // A quoted CSV cell may hold a line break: the record goes on while a quote is open.
            while format == Format::Csv && record.matches('"').count() % 2 == 1 {
                if record.len() > MAX_LINE {
                    return Err(format!("{name}: line {no}: a row longer than {MAX_LINE} bytes"));
                }
                let more = read_line(input, name, no + 1)?
                    .ok_or_else(|| format!("{name}: line {no}: a quoted cell is not closed"))?;
                no += 1;
                record.push('\n');
                record.push_str(&more);
            }
            let run = lo + rows.len() as u64;
            if run >= hi {
                return Err(format!("{name}: line {no}: more rows than slice {k}/{n} has ({})", hi - lo));
            }
            let cells = match format {
                Format::Csv => csv_cells(&record),
                _ => json_cells(&record),
            };
            let row =
                cells.and_then(|cells| sweep.row_from(&cells, run)).map_err(|e| format!("{name}: line {no}: {e}"))?;
            rows.push(row);
        }
        if (rows.len() as u64) < hi - lo {
            return Err(format!(
                "{name}: slice {k}/{n} holds {} of its {} rows (was it cut short?)",
                rows.len(),
                hi - lo
            ));
        }
        self.parts.insert(k, (name.to_string(), rows));
        Ok(())
    }

    /// The whole sweep, once every slice has been read; otherwise the missing slices, named.
    pub fn finish(self) -> Result<Sweep, String> {
        let (mut sweep, _, n, _) = self.first.ok_or("no parts")?;
        let missing: Vec<String> =
            (1..=n).filter(|k| !self.parts.contains_key(k)).map(|k| format!("{k}/{n}")).collect();
        if !missing.is_empty() {
            let given: Vec<&str> = self.parts.values().map(|p| p.0.as_str()).collect();
            return Err(format!(
                "missing slice{} {} (given: {})",
                if missing.len() > 1 { "s" } else { "" },
                missing.join(", "),
                given.join(", ")
            ));
        }
        for (name, rows) in self.parts.into_values() {
            sweep.adopt(rows).map_err(|e| format!("{name}: {e}"))?;
        }
        Ok(sweep)
    }
}
