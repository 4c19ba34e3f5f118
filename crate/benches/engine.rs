//! Engine benchmarks (`cargo bench -p election-lab`), timed with `std::time::Instant`, printing
//! the median of several runs:
//!
//! * (a) Bully worst case, N = 1000: node 1000 crashed, nodes 1..999 start at t = 0, no
//!   heartbeats (about 10⁶ messages: the worst-case triangle of Garcia-Molina's algorithm), with the full trace recorded
//!   as always. Target: ≤ 150 ms.
//! * (b) Seeking to random steps of a 100 000-step trace (Raft, N = 5, heartbeats): median and
//!   p95 of 1000 seeks. Target: ≤ 1 ms.
//!
//! * (c) An experiment: the 150–300 ms line of Raft's Figure 16 (`experiments/`), 1000 trials
//!   of a 5-node cluster whose leader crashes, each run until a new leader is agreed on; the
//!   median of several sweeps, and how much of it is building the 1000 engines. Target: well
//!   under the browser's 5 s.
//!
//! * (y) The yardstick: a minimal discrete-event simulation of the same Bully worst case with a
//!   binary heap, no trace, no observers, no narration ([`yardstick`]), timed in the same run as
//!   (a), in interleaved pairs; the ratio engine / yardstick is the figure docs/performance.md tracks
//!   (target ≤ 0.7 with the full trace recorded). Also the engine's memory: peak bytes allocated
//!   per recorded step with the full trace (target ≤ 96), and the peak of the summary-only mode
//!   ([`Engine::summary_only`]: no history, memory for the nodes and the messages in flight).
//! * (d) Debugging a trace, on the 100 000-step Raft trace of (b): writing its JSON Lines with
//!   the per-node state of every step (`Engine::trace_lines`), reading them back against a
//!   re-run (`Engine::from_jsonl`), running to the end under three breakpoints
//!   (`breakpoint::run_until`, going on after each hit) against a plain run, and `diff` of two copies of the run.
//!
//! `BENCH_RUNS=<n>` changes the number of runs of (a) and (c) (default 9).

use election_lab::breakpoint::{run_until, Breakpoint, Watch};
use election_lab::engine::Stop;
use election_lab::experiment::{Sweep, READY};
use election_lab::rng::Pcg32;
use election_lab::{Engine, Scenario};
use serde_json::json;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::{Duration, Instant};

/// The system allocator, counting the bytes live and their peak (for bytes per step).
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = LIVE.fetch_add(layout.size(), Relaxed) + layout.size();
            PEAK.fetch_max(now, Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size >= layout.size() {
                let now = LIVE.fetch_add(new_size - layout.size(), Relaxed) + new_size - layout.size();
                PEAK.fetch_max(now, Relaxed);
            } else {
                LIVE.fetch_sub(layout.size() - new_size, Relaxed);
            }
        }
        p
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Runs `f` and returns its result with the peak of bytes allocated meanwhile, above what was
/// live before.
fn peak_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = LIVE.load(Relaxed);
    PEAK.store(base, Relaxed);
    let out = f();
    (out, PEAK.load(Relaxed) - base)
}

/// The yardstick: Garcia-Molina's Bully algorithm, worst case (the top id crashed at t = 0 and
/// every other node starting an election at t = 0), simulated as plainly as a discrete-event
/// simulation goes: one binary heap of (time, sequence, event), latency 1 tick, the same
/// WAIT_OK / WAIT_COORD deadlines as the engine's defaults, no trace, no observers, no
/// narration, no random draws. Returns the messages sent (N²−N−1) and the events applied.
fn yardstick(n: u32) -> (u64, u64) {
    #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
    enum Ev {
        Crash(u32),
        Start(u32),
        Election { from: u32, to: u32 },
        Ok { to: u32 },
        Coordinator { from: u32, to: u32 },
        Deadline { node: u32, token: u64 },
    }
    #[derive(Clone, Copy, PartialEq)]
    enum Stage {
        Idle,
        WaitOk,
        WaitCoord,
    }
    struct Node {
        up: bool,
        elected: Option<u32>,
        in_elect: bool,
        stage: Stage,
        deadline: u64,
    }
    struct World {
        heap: BinaryHeap<Reverse<(u64, u64, Ev)>>,
        seq: u64,
        now: u64,
        sent: u64,
        nodes: Vec<Node>,
        n: u32,
    }
    const T_OUT: u64 = 3; // 2·latency + 1, the engine's default
    const T_COORD: u64 = 3 * T_OUT;
    impl World {
        fn push(&mut self, at: u64, ev: Ev) {
            self.heap.push(Reverse((at, self.seq, ev)));
            self.seq += 1;
        }
        fn send(&mut self, ev: Ev) {
            self.sent += 1;
            self.push(self.now + 1, ev);
        }
        fn deadline(&mut self, me: u32, after: u64) {
            let node = &mut self.nodes[me as usize - 1];
            node.deadline += 1;
            let token = node.deadline;
            self.push(self.now + after, Ev::Deadline { node: me, token });
        }
        fn start(&mut self, me: u32) {
            let node = &mut self.nodes[me as usize - 1];
            if node.elected == Some(me) {
                return;
            }
            node.in_elect = true;
            node.stage = Stage::WaitOk;
            node.elected = None;
            self.deadline(me, T_OUT);
            if me == self.n {
                self.lead(me);
                return;
            }
            for to in me + 1..=self.n {
                self.send(Ev::Election { from: me, to });
            }
        }
        fn lead(&mut self, me: u32) {
            let node = &mut self.nodes[me as usize - 1];
            node.in_elect = false;
            node.stage = Stage::Idle;
            node.elected = Some(me);
            node.deadline += 1; // cancels the deadline
            for to in 1..me {
                self.send(Ev::Coordinator { from: me, to });
            }
        }
    }
    let mut w = World {
        heap: BinaryHeap::new(),
        seq: 0,
        now: 0,
        sent: 0,
        nodes: (1..=n)
            .map(|_| Node { up: true, elected: Some(n), in_elect: false, stage: Stage::Idle, deadline: 0 })
            .collect(),
        n,
    };
    w.push(0, Ev::Crash(n));
    for i in 1..n {
        w.push(0, Ev::Start(i));
    }
    let mut events = 0;
    while let Some(Reverse((at, _, ev))) = w.heap.pop() {
        w.now = at;
        let to = match ev {
            Ev::Crash(i) | Ev::Start(i) | Ev::Deadline { node: i, .. } => i,
            Ev::Election { to, .. } | Ev::Ok { to } | Ev::Coordinator { to, .. } => to,
        };
        if let Ev::Deadline { token, .. } = ev {
            if token != w.nodes[to as usize - 1].deadline {
                continue; // replaced or cancelled: not an event
            }
        }
        events += 1;
        if !w.nodes[to as usize - 1].up {
            continue; // a message to a crashed node is dropped
        }
        match ev {
            Ev::Crash(i) => w.nodes[i as usize - 1].up = false,
            Ev::Start(i) => w.start(i),
            Ev::Election { from, to } => {
                w.send(Ev::Ok { to: from });
                let node = &w.nodes[to as usize - 1];
                if node.elected == Some(to) {
                    w.send(Ev::Coordinator { from: to, to: from });
                } else if !node.in_elect {
                    w.start(to);
                }
            }
            Ev::Ok { to } => {
                let node = &mut w.nodes[to as usize - 1];
                if node.in_elect && node.stage == Stage::WaitOk {
                    node.stage = Stage::WaitCoord;
                    w.deadline(to, T_COORD);
                }
            }
            Ev::Coordinator { from, to } => {
                let node = &mut w.nodes[to as usize - 1];
                if from >= to || node.elected.is_none() {
                    node.elected = Some(from);
                }
                node.in_elect = false;
                node.stage = Stage::Idle;
                node.deadline += 1;
            }
            Ev::Deadline { node, .. } => {
                let st = &w.nodes[node as usize - 1];
                if st.in_elect {
                    if st.stage == Stage::WaitOk {
                        w.lead(node);
                    } else {
                        w.start(node);
                    }
                }
            }
        }
    }
    (w.sent, events)
}

fn bully_worst(n: u32) -> Scenario {
    let mut schedule = vec![json!({"at": 0, "crash": n})];
    schedule.extend((1..n).map(|i| json!({"at": 0, "start": i})));
    let s = json!({
        "algorithm": "bully", "nodes": (1..=n).collect::<Vec<_>>(), "seed": 425,
        "initial_leader": n, "heartbeats": null, "schedule": schedule,
        "stop": {"max_time": 1_000_000, "max_steps": 10_000_000},
    });
    Scenario::from_value(&s).expect("scenario")
}

fn raft_long(steps: u64) -> Scenario {
    let s = json!({
        "algorithm": "raft", "nodes": [1, 2, 3, 4, 5], "seed": 7,
        "network": {"latency": [1, 3], "loss": 0.01},
        "heartbeats": {"interval": 2, "timeout": 12},
        "schedule": [{"at": 500, "crash": 5}, {"at": 900, "recover": 5},
                     {"at": 4000, "partition": [[1, 2], [3, 4, 5]]}, {"at": 6000, "heal": true}],
        "stop": {"max_time": 100_000_000, "max_steps": steps},
    });
    Scenario::from_value(&s).expect("scenario")
}

fn median(v: &mut [Duration]) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn percentile(v: &mut [Duration], p: f64) -> Duration {
    v.sort();
    let k = ((v.len() as f64 - 1.0) * p).round() as usize;
    v[k]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn bench_bully_worst(runs: usize) {
    let n = 1000;
    let scenario = bully_worst(n);
    // Interleaved: engine with the full trace, the yardstick, the engine in summary-only mode.
    let (mut full, mut yard, mut lean) = (Vec::new(), Vec::new(), Vec::new());
    let mut summary = None;
    let mut yard_out = (0, 0);
    for _ in 0..runs {
        let s = scenario.clone();
        let t0 = Instant::now();
        let mut e = Engine::new(s).expect("engine");
        e.run_to_end();
        full.push(t0.elapsed());
        summary = Some((e.metrics(), e.cursor(), e.trace_hash(), e.quiescent()));
        drop(black_box(e));

        let t0 = Instant::now();
        yard_out = black_box(yardstick(n));
        yard.push(t0.elapsed());

        let s = scenario.clone();
        let t0 = Instant::now();
        let mut e = Engine::summary_only(s).expect("engine");
        e.run_to_end();
        lean.push(t0.elapsed());
        assert_eq!(Some(e.trace_hash()), summary.as_ref().map(|x| x.2), "summary-only: the same run");
        drop(black_box(e));
    }
    let (m, steps, hash, quiescent) = summary.unwrap();
    let n = n as u64;
    assert!(quiescent, "the worst case must run to the end");
    assert_eq!(m.total, n * n - n - 1, "N²-N-1 messages (Bully's worst case)");
    assert_eq!(yard_out.0, m.total, "the yardstick sends the engine's messages");
    let ratios: Vec<f64> = full.iter().zip(&yard).map(|(a, b)| a.as_secs_f64() / b.as_secs_f64()).collect();
    let lean_ratios: Vec<f64> = lean.iter().zip(&yard).map(|(a, b)| a.as_secs_f64() / b.as_secs_f64()).collect();
    let fmed = |v: &[f64]| {
        let mut v = v.to_vec();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let best = *full.iter().min().unwrap();
    let med = median(&mut full);
    println!(
        "(a) bully worst case N={n}, full trace: median {:.1} ms (best {:.1}, {runs} runs), {} messages, {} steps, {:.0} ns/message, hash {hash:016x}",
        ms(med),
        ms(best),
        m.total,
        steps,
        med.as_secs_f64() * 1e9 / m.total as f64,
    );
    println!(
        "(y) yardstick (binary-heap DES, no trace): median {:.1} ms, {} events; engine / yardstick: median of {runs} interleaved pairs {:.2}  [target <= 0.7, goal 0.5]",
        ms(median(&mut yard)),
        yard_out.1,
        fmed(&ratios),
    );
    println!(
        "(a') the same run in summary-only mode: median {:.1} ms, {:.2} x the yardstick",
        ms(median(&mut lean)),
        fmed(&lean_ratios),
    );
    // Memory, measured apart from the timings (the allocator counts all along).
    let (steps_full, peak_full) = peak_of(|| {
        let mut e = Engine::new(scenario.clone()).expect("engine");
        e.run_to_end();
        e.cursor()
    });
    let (_, peak_lean) = peak_of(|| {
        let mut e = Engine::summary_only(scenario.clone()).expect("engine");
        e.run_to_end();
        e.cursor()
    });
    let (_, peak_yard) = peak_of(|| yardstick(n as u32));
    println!(
        "(m) memory, N={n}: full trace peak {:.1} MiB = {:.0} bytes per recorded step ({steps_full} steps)  [target <= 96]; summary-only peak {:.1} MiB; yardstick peak {:.1} MiB",
        peak_full as f64 / 1048576.0,
        peak_full as f64 / steps_full as f64,
        peak_lean as f64 / 1048576.0,
        peak_yard as f64 / 1048576.0,
    );
}

fn bench_seek() {
    let steps = 100_000;
    let t0 = Instant::now();
    let mut e = Engine::new(raft_long(steps)).expect("engine");
    e.run_to_end();
    let build = t0.elapsed();
    assert_eq!(e.cursor(), steps, "the trace must have {steps} steps");
    let end_hash = e.trace_hash();
    let mut rng = Pcg32::for_seed(1);
    let mut times = Vec::with_capacity(1000);
    for _ in 0..1000 {
        let target = rng.range_inclusive(0, steps);
        let t = Instant::now();
        e.seek(target);
        times.push(t.elapsed());
        black_box(e.cursor());
    }
    e.seek(steps);
    assert_eq!(e.trace_hash(), end_hash, "seeking must not change the run");
    let max = *times.iter().max().unwrap();
    let p95 = percentile(&mut times, 0.95);
    let med = median(&mut times);
    println!(
        "(b) seek in a {steps}-step raft trace (built in {:.0} ms): median {:.1} us, p95 {:.1} us, max {:.1} us over 1000 seeks  [target <= 1000 us]",
        ms(build),
        us(med),
        us(p95),
        us(max),
    );
}

/// The 150–300 ms line of the Figure 16 experiment, `trials` runs.
fn figure_16_line(trials: u64) -> serde_json::Value {
    let text = READY.iter().find(|r| r.0 == "raft-figure-16-randomness").expect("ready-made").1;
    let mut spec: serde_json::Value = serde_json::from_str(text).expect("spec");
    let line = spec["variants"].as_array().unwrap().iter().find(|v| v["label"] == "150–300 ms").cloned().expect("line");
    spec["variants"] = json!([line]);
    spec["seeds"] = json!({"count": trials});
    spec["reference"] = json!([]);
    spec
}

fn bench_sweep(runs: usize) {
    let trials = 1000;
    let spec = figure_16_line(trials);
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..runs {
        let t0 = Instant::now();
        let mut sweep = Sweep::from_value(&spec).expect("spec");
        while !sweep.advance(50).finished() {}
        times.push(t0.elapsed());
        last = Some(sweep);
    }
    let sweep = last.unwrap();
    let steps = sweep.steps();
    let g = &sweep.summary()[0];
    let median_downtime = g.stats.as_ref().map_or(f64::NAN, |s| s.median);
    // The part of a run that is not stepping: building its engine (scenario clone, protocol
    // params, the first checkpoint).
    let mut s = election_lab::Scenario::from_value(&spec["scenario"]).expect("scenario");
    s.params.insert("election_timeout".into(), json!([150, 300]));
    let t0 = Instant::now();
    for k in 0..trials {
        let mut sk = s.clone();
        sk.seed = k + 1;
        black_box(Engine::new(sk).expect("engine"));
    }
    let build = t0.elapsed();
    let best = *times.iter().min().unwrap();
    let med = median(&mut times);
    println!(
        "(c) sweep: Raft Figure 16, 150-300 ms, {trials} trials: median {:.1} ms (best {:.1}, {runs} runs), {:.1} us/run, {steps} steps ({:.0} ns/step), building the engines alone {:.1} ms; median downtime {median_downtime} ms  [browser target < 5 s]",
        ms(med),
        ms(best),
        us(med) / trials as f64,
        med.as_secs_f64() * 1e9 / steps as f64,
        ms(build),
    );
}

fn bench_debugging(runs: usize) {
    let steps = 100_000;
    let (mut write, mut read, mut plain, mut until, mut diffs) = (vec![], vec![], vec![], vec![], vec![]);
    let mut bytes = 0;
    for _ in 0..runs.min(5) {
        let t = Instant::now();
        let mut e = Engine::new(raft_long(steps)).expect("engine");
        e.run_to_end();
        plain.push(t.elapsed());
        let t = Instant::now();
        let mut text = String::new();
        e.trace_lines::<()>(&mut |v| {
            text.push_str(&v.to_string());
            text.push('\n');
            Ok::<(), Stop<()>>(())
        })
        .unwrap();
        write.push(t.elapsed());
        bytes = text.len();
        let t = Instant::now();
        let back = Engine::from_trace_json(&text).expect("reads back");
        read.push(t.elapsed());
        assert_eq!(back.trace_hash(), e.trace_hash());
        let t = Instant::now();
        let mut u = Engine::new(raft_long(steps)).expect("engine");
        let bps: Vec<Breakpoint> = ["violation:two-leaders-in-term", "term:1>=1000000", "deliver:VOTE_GRANT:to=1"]
            .iter()
            .map(|b| Breakpoint::parse(b, &u).expect("breakpoint"))
            .collect();
        let mut w = Watch::new(bps, &u);
        // Go on after every hit, to the end: the cost of evaluating three breakpoints a step.
        while run_until(&mut u, &mut w, u64::MAX).is_some() {}
        until.push(t.elapsed());
        assert_eq!(u.trace_hash(), e.trace_hash());
        let t = Instant::now();
        let d = election_lab::diff::diff(&e, &back);
        diffs.push(t.elapsed());
        assert!(d.identical());
    }
    println!(
        "(d) debugging a {steps}-step raft trace: plain run {:.0} ms; JSON Lines written {:.0} ms ({:.1} MB), read back against a re-run {:.0} ms; run to the end under 3 breakpoints {:.0} ms; diff of two copies {:.0} ms",
        ms(median(&mut plain)),
        ms(median(&mut write)),
        bytes as f64 / 1e6,
        ms(median(&mut read)),
        ms(median(&mut until)),
        ms(median(&mut diffs)),
    );
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` does not and only wants a smoke run.
    let bench = std::env::args().any(|a| a == "--bench");
    if !bench {
        println!("engine benchmarks: run with `cargo bench -p election-lab`");
        return;
    }
    let runs = std::env::var("BENCH_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(9).max(1);
    bench_bully_worst(runs);
    bench_seek();
    bench_sweep(runs);
    bench_debugging(runs);
}
