//! Running a sweep: the runs one by one or on every core, each built from its line and seed,
//! stopped where the spec says, and measured into a [`Row`].

use super::*;

/// Runs done on every core before their rows are taken ([`Sweep::run_parallel`]): enough that
/// the cores stay busy, few enough that their rows (about 1 KB each) stay small.
#[cfg(not(target_arch = "wasm32"))]
pub const PARALLEL_SLICE: u64 = 16_384;

impl Sweep {
    /// The runs this sweep does: `lo..hi` in sweep order (every run unless [`Sweep::shard`]ed).
    /// `rows()[i]` is run `lo + i`.
    pub fn span(&self) -> (u64, u64) {
        self.shard.unwrap_or((0, self.total))
    }

    /// Keeps only the `k`-th of `n` consecutive slices of the runs (1 ≤ k ≤ n), before any run:
    /// slice k is runs ⌊(k−1)·T/n⌋ .. ⌊k·T/n⌋ of the T runs, so the slices' rows, one after the
    /// other, are the rows of the whole sweep — `election-lab sweep --shard K/N` on N machines,
    /// concatenated, prints what one machine prints.
    pub fn shard(&mut self, k: u64, n: u64) -> Result<(), String> {
        if n == 0 || k == 0 || k > n {
            return Err(format!("{k}/{n}: K must be between 1 and N"));
        }
        if self.done > 0 {
            return Err("a sweep is sharded before it runs".into());
        }
        self.shard = Some(slice_runs(self.total, k, n));
        self.slice = Some((k, n));
        Ok(())
    }

    /// The slice [`Sweep::shard`] kept (`k` of `n`), if any.
    pub fn slice(&self) -> Option<(u64, u64)> {
        self.slice
    }
    /// Does up to `max_runs` more runs.
    pub fn advance(&mut self, max_runs: u64) -> Progress {
        for _ in 0..max_runs {
            if !self.run_next() {
                break;
            }
        }
        self.progress()
    }

    /// Takes rows of runs done elsewhere as if they had been run here: the page's Web Worker
    /// runs the sweep of this very spec and posts its rows back, and the page's sweep then draws
    /// and writes them exactly as it would its own. They must be the next runs, in order (their
    /// `run` numbers follow on), on this sweep's lines; otherwise nothing is taken.
    pub fn adopt(&mut self, rows: Vec<Row>) -> Result<Progress, String> {
        let (lo, hi) = self.span();
        let next = lo + self.done;
        for (i, r) in rows.iter().enumerate() {
            let k = next + i as u64;
            if k >= hi || r.run != k || r.line >= self.lines.len() {
                return Err(format!("row {i}: run {} on line {} where run {k} was expected", r.run, r.line));
            }
        }
        self.take(rows);
        Ok(self.progress())
    }

    /// Does whole runs until at least `max_steps` simulation steps have been run (at least one
    /// run): a budget that follows the work better than a run count when runs differ in size.
    pub fn advance_steps(&mut self, max_steps: u64) -> Progress {
        let start = self.steps;
        while self.run_next() && self.steps - start < max_steps {}
        self.progress()
    }

    fn run_next(&mut self) -> bool {
        let (lo, hi) = self.span();
        let k = lo + self.done;
        if k >= hi {
            return false;
        }
        let row = self.run_k(k);
        self.take(vec![row]);
        true
    }

    /// Run `k` of the sweep (0-based, in sweep order).
    fn run_k(&self, k: u64) -> Row {
        let j = self.jobs.partition_point(|j| j.first <= k) - 1;
        self.run(&self.jobs[j], k - self.jobs[j].first)
    }

    /// Does every remaining run on every core (natively; rayon's threads, `RAYON_NUM_THREADS`
    /// to choose how many). Each run is independent and deterministic, and the rows are kept in
    /// sweep order, so the result is byte for byte that of [`Sweep::advance`] on one thread. Not
    /// in wasm32, where the page advances a sweep a few runs per frame. The runs go in slices
    /// of [`PARALLEL_SLICE`], each taken before the next starts, so that a sweep that keeps no
    /// rows ([`Sweep::keep_rows`]) never holds more than one slice's rows.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn run_parallel(&mut self) -> Progress {
        use rayon::prelude::*;
        let (_, hi) = self.span();
        loop {
            let from = self.span().0 + self.done;
            if from >= hi {
                break;
            }
            let to = hi.min(from.saturating_add(PARALLEL_SLICE));
            let rows: Vec<Row> = (from..to).into_par_iter().map(|k| self.run_k(k)).collect();
            self.take(rows);
        }
        self.progress()
    }

    /// Replays run `k` (0-based, in sweep order; it need not have been run yet) and returns its
    /// engine where the sweep stopped it: `trace_value()` then opens that very run in the lab.
    pub fn replay(&self, k: u64) -> Option<Engine> {
        if k >= self.total {
            return None;
        }
        let j = self.jobs.partition_point(|j| j.first <= k) - 1;
        Some(self.play(&self.jobs[j], k - self.jobs[j].first, false).0)
    }

    /// Builds and runs the `k`-th seed of `job` (in summary-only mode, keeping no history, for
    /// a row); also returns the time of its last fault and the faults it drew or placed (time,
    /// action), which the row carries so that the run can be replayed.
    fn play(&self, job: &Job, k: u64, summary_only: bool) -> (Engine, Time, Vec<(Time, Action)>) {
        let line = &self.lines[job.line];
        let seed = line.seeds.start + k;
        let mut rng = Pcg32::new(seed, STREAM);
        let mut s = job.scenario.clone();
        s.seed = seed;
        if line.shuffle {
            shuffle(&mut s.nodes, &mut rng);
        }
        let mut since = s.schedule.iter().map(|x| x.at).max().unwrap_or(0);
        let mut later = Vec::new();
        let mut drawn = Vec::new();
        for f in &line.faults {
            match f.at {
                Some(at) => {
                    let nodes = s.nodes.clone();
                    for action in f.what.resolve(&nodes, None, &mut rng) {
                        drawn.push((at, action.clone()));
                        s.schedule.push(Scheduled { at, action });
                    }
                    since = since.max(at);
                }
                None => later.push(f),
            }
        }
        let nodes = s.nodes.clone();
        let build = if summary_only { Engine::summary_only } else { Engine::new };
        let mut e = build(s).expect("checked when the sweep was built");
        for f in later {
            let Some(leader) = agreement(&mut e) else { break };
            let at = e.now() + f.delay;
            e.run_until(at);
            let at = at.max(e.now());
            for a in f.what.resolve(&nodes, Some(leader), &mut rng) {
                drawn.push((at, a.clone()));
                // Checked on these nodes when the sweep was built.
                let _ = e.apply_at(a, at);
            }
            since = since.max(at);
        }
        match self.until {
            Until::End => e.run_to_end(),
            Until::Agreement => while e.elections().last().is_none_or(|x| x.to <= since) && e.step() {},
        }
        (e, since, drawn)
    }

    fn run(&self, job: &Job, k: u64) -> Row {
        let line = &self.lines[job.line];
        let (e, since, drawn) = self.play(job, k, true);
        let faults: Vec<String> = drawn.iter().map(|(at, a)| fault_text(*at, a)).collect();
        let order =
            line.shuffle.then(|| e.scenario().nodes.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(" "));
        let seed = line.seeds.start + k;
        let n = e.scenario().nodes.len() as u32;
        let m = e.metrics();
        let (leaders, groups) = (e.leaders(), e.groups());
        let counted = if line.kinds.is_empty() {
            m.total
        } else {
            m.by_kind.iter().filter(|(k, _)| line.kinds.contains(k)).map(|x| x.1).sum()
        };
        let downtime = e.elections().iter().find(|x| x.to > since).map(|x| x.to - x.from.max(since));
        let minority_leaders = groups.map(|labels| {
            let mut sizes: BTreeMap<u32, u32> = BTreeMap::new();
            for &l in labels {
                *sizes.entry(l).or_default() += 1;
            }
            let minor = sizes.iter().min_by_key(|(l, c)| (**c, **l)).map(|(l, _)| *l);
            e.scenario().nodes.iter().zip(labels).filter(|(id, &l)| Some(l) == minor && leaders.contains(id)).count()
                as u32
        });
        Row {
            line: job.line,
            nodes: n,
            seed,
            messages: m.total,
            counted,
            theory: line.formula.and_then(|f| e.algorithm().theory(f, e.scenario())),
            end_time: e.now(),
            steps: e.cursor(),
            quiescent: e.quiescent(),
            agreement: e.agreement(),
            leaders: leaders.len() as u32,
            max_leaders: m.max_simultaneous_leaders,
            violations: e.violations().len() as u32,
            elections: e.elections().len() as u32,
            downtime,
            minority_leaders,
            trace_hash: e.trace_hash(),
            run: job.first + k,
            faults: faults.join(" "),
            order,
        }
    }
}

/// Runs `lo..hi` of slice `k` of `n` (1 ≤ k ≤ n) of `total` runs: ⌊(k−1)·T/n⌋ .. ⌊k·T/n⌋.
pub(super) fn slice_runs(total: u64, k: u64, n: u64) -> (u64, u64) {
    let at = |i: u64| (i as u128 * total as u128 / n as u128) as u64;
    (at(k - 1), at(k))
}

/// One fault of a row's `faults` column, without commas (a CSV cell stays unquoted):
/// `20:crash=5`, `20:partition=1+2/3+4+5`, `20:cut=1>2`, `250:heal`.
pub fn fault_text(at: Time, a: &Action) -> String {
    let what = match a {
        Action::Crash(n) => format!("crash={n}"),
        Action::Recover(n) => format!("recover={n}"),
        Action::Start(n) => format!("start={n}"),
        Action::Isolate(n) => format!("isolate={n}"),
        Action::Drop(m) => format!("drop={m}"),
        Action::Defer(m) => format!("defer={m}"),
        Action::Deliver(m) => format!("deliver={m}"),
        Action::Fire { node, timer } => format!("fire={node}:{timer}"),
        Action::Cut { from, to } => format!("cut={from}>{to}"),
        Action::Heal => "heal".to_string(),
        Action::Partition { groups, .. } => {
            let g: Vec<String> =
                groups.iter().map(|g| g.iter().map(|x| x.to_string()).collect::<Vec<_>>().join("+")).collect();
            format!("partition={}", g.join("/"))
        }
    };
    format!("{at}:{what}")
}

/// Every live node names the same live leader: now, or at the end of the next election.
fn agreement(e: &mut Engine) -> Option<NodeId> {
    if let Some(l) = e.agreement() {
        return Some(l);
    }
    let seen = e.elections().len();
    while e.step() {
        if e.elections().len() > seen {
            return e.elections().last().map(|x| x.leader);
        }
    }
    None
}
