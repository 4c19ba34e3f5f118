//! A question's answer computed a slice at a time: [`Job::advance`] runs at most a budget of
//! simulation steps and returns, so a page can compute a heavy answer (a run at N = 1000, a
//! sweep, many random orders) between frames, with its progress shown, instead of freezing.
//! The answer does not depend on the slices: [`super::answer_on`] is a job run in one slice.

use super::{resized, set_path, MAX_CHECK_STEPS};
use crate::breakpoint::{run_until, Breakpoint, Watch};
use crate::engine::Engine;
use crate::error::ScenarioError;
use crate::lesson::{Answer, At, Check, Question, LIGHT_NODES};
use crate::rng::Pcg32;
use crate::scenario::Scenario;
use crate::sim::EventKind;
use crate::trace::Intervention;
use crate::NodeId;
use serde_json::Value;

fn within(path: &str) -> impl Fn(ScenarioError) -> ScenarioError + '_ {
    move |e| e.within(path)
}

/// Where the job's runs come from.
enum Source {
    /// One run: the student's (a copy), or the scaled scenario's.
    Single(Option<Box<Engine>>),
    /// `sweep`: the scenario's JSON with each value set, the interventions replayed by time.
    Sweep { scenario: Value, interventions: Vec<Intervention> },
    /// `mean_messages_over_orders`: the nodes shuffled by this stream before each run.
    Orders { base: Scenario, rng: Pcg32 },
}

/// The answer to one question, computed in slices.
pub struct Job {
    q: Question,
    source: Source,
    /// Runs finished, of `runs`; the sum of their numbers (sweep hits, or messages).
    done: u64,
    runs: u64,
    sum: u64,
    current: Option<(Engine, Reader)>,
    steps: u64,
    result: Option<Result<Answer, ScenarioError>>,
    /// The run is read as if it ended at this step ([`Job::within`]); `u64::MAX`: its real end.
    horizon: u64,
}

impl Job {
    /// The job for `q` on the run `engine` holds, at its cursor (the engine is not moved).
    pub fn new(engine: &Engine, q: &Question) -> Result<Job, ScenarioError> {
        let (source, runs) = if let Some(s) = &q.sweep {
            let src = Source::Sweep {
                scenario: engine.scenario().to_value(),
                interventions: engine.interventions().to_vec(),
            };
            (src, s.values.len() as u64)
        } else {
            let base = match q.resize {
                Some(n) => resized(engine.scenario(), n),
                None => engine.scenario().clone(),
            };
            if q.check == Check::MeanMessagesOverOrders {
                let rng = Pcg32::new(base.seed, 0x6c65_7373);
                (Source::Orders { base, rng }, q.orders)
            } else if q.resize.is_some() {
                let light = !matches!(q.check, Check::NextDeliveryKind | Check::LeaderAt);
                let run = if light && base.nodes.len() > LIGHT_NODES {
                    Engine::summary_only(base)
                } else {
                    Engine::new(base)
                }
                .map_err(within("resize"))?;
                (Source::Single(Some(Box::new(run))), 1)
            } else {
                (Source::Single(Some(Box::new(Engine::from_trace_value(&engine.trace_value())?))), 1)
            }
        };
        Ok(Job {
            q: q.clone(),
            source,
            done: 0,
            runs,
            sum: 0,
            current: None,
            steps: 0,
            result: None,
            horizon: u64::MAX,
        })
    }

    /// The same job, reading the run as if it ended at step `horizon`: the answer a class sees
    /// when the lesson shows that run no further (see `lesson::truth`). A moment the question
    /// names beyond it, or a next delivery beyond it, is an error naming the step.
    pub fn within(mut self, horizon: u64) -> Job {
        self.horizon = horizon;
        self
    }

    /// Runs finished and runs in all (a sweep's values, the random orders; else 1), and the
    /// simulation steps spent so far.
    pub fn progress(&self) -> (u64, u64, u64) {
        (self.done, self.runs, self.steps)
    }

    /// Runs about `budget` simulation steps (at least one); the answer once it is computed.
    pub fn advance(&mut self, budget: u64) -> Option<Result<Answer, ScenarioError>> {
        let mut left = budget.max(1);
        while self.result.is_none() && left > 0 {
            if let Err(e) = self.slice(&mut left) {
                self.result = Some(Err(e));
            }
        }
        self.result.clone()
    }

    fn slice(&mut self, left: &mut u64) -> Result<(), ScenarioError> {
        if self.current.is_none() {
            let mut run = self.next_run()?;
            if matches!(self.q.check, Check::LeaderAt | Check::NextDeliveryKind) {
                let from = run.cursor();
                let answer = read_at_once(&mut run, &self.q, self.horizon)?;
                self.steps += run.cursor() - from;
                self.finish_run(&run, answer);
                return Ok(());
            }
            let reader = Reader::new(&run, &self.q)?;
            self.current = Some((run, reader));
        }
        let (run, reader) = self.current.as_mut().expect("a run");
        let before = reader.steps;
        let answer = reader.poll(run, &self.q, left, self.horizon);
        self.steps += reader.steps - before;
        let Some(answer) = answer? else { return Ok(()) };
        let (run, _) = self.current.take().expect("a run");
        self.finish_run(&run, answer);
        Ok(())
    }

    /// One run answered: the job's answer, or its part of the sweep or the mean.
    fn finish_run(&mut self, run: &Engine, answer: Answer) {
        self.done += 1;
        match (&self.source, answer) {
            (Source::Single(_), a) => self.result = Some(Ok(a)),
            (Source::Sweep { .. }, _) => {
                let q = &self.q;
                self.sum += run.violations().iter().any(|v| q.property.as_deref().is_none_or(|p| p == v.kind)) as u64;
            }
            (Source::Orders { .. }, Answer::Number(n)) => self.sum += n,
            (Source::Orders { .. }, _) => unreachable!("orders count messages"),
        }
        if self.result.is_none() && self.done == self.runs {
            self.result = Some(Ok(match self.source {
                // The exact mean (to the thousandth), whole or not: the page shows it and grades
                // an answer within the question's tolerance (±5 % by default for a mean).
                Source::Orders { .. } => {
                    let milli = (self.sum as u128 * 1000 + self.runs as u128 / 2) / self.runs as u128;
                    let milli = u64::try_from(milli).unwrap_or(u64::MAX);
                    if milli % 1000 == 0 {
                        Answer::Number(milli / 1000)
                    } else {
                        Answer::Decimal(milli)
                    }
                }
                _ => Answer::Number(self.sum),
            }));
        }
    }

    fn next_run(&mut self) -> Result<Engine, ScenarioError> {
        let j = self.done as usize;
        match &mut self.source {
            Source::Single(run) => Ok(*run.take().expect("one run")),
            Source::Sweep { scenario, interventions } => {
                let s = self.q.sweep.as_ref().expect("a sweep");
                let mut value = scenario.clone();
                set_path(&mut value, &s.field, s.values[j].clone())
                    .map_err(|m| ScenarioError::new("sweep.field", m))?;
                let path = format!("sweep.values[{j}]");
                let sc = Scenario::from_value(&value).map_err(|e| ScenarioError::new(path.as_str(), e.to_string()))?;
                let mut run = Engine::summary_only(sc).map_err(|e| ScenarioError::new(path.as_str(), e.to_string()))?;
                // The interventions made so far (the student's, or the lesson's acts) at their times.
                run.replay_by_time(interventions).map_err(within(&path))?;
                Ok(run)
            }
            Source::Orders { base, rng } => {
                let mut sc = base.clone();
                for i in (1..sc.nodes.len()).rev() {
                    let j = rng.range_inclusive(0, i as u64) as usize;
                    sc.nodes.swap(i, j);
                }
                Engine::summary_only(sc).map_err(within("orders"))
            }
        }
    }
}

fn count(e: &Engine, kinds: &[String]) -> u64 {
    e.metrics().by_kind.iter().filter(|(k, _)| kinds.is_empty() || kinds.iter().any(|x| x == k)).map(|(_, c)| c).sum()
}

fn ends(e: &Engine) -> String {
    format!("the run ends at step {}", e.cursor())
}

/// Reads a question's answer on one run, from its cursor on, a budget of steps at a time.
struct Reader {
    /// What the run showed when the reader started: messages, elections, violations, leaders,
    /// rejected writes.
    base: u64,
    elections: usize,
    violations: usize,
    led: Vec<NodeId>,
    rejected: u64,
    most: usize,
    steps: u64,
    ended: bool,
}

impl Reader {
    fn new(run: &Engine, q: &Question) -> Result<Reader, ScenarioError> {
        let r = Reader {
            base: count(run, &q.kinds),
            elections: run.elections().len(),
            violations: run.violations().len(),
            led: run.leaders(),
            rejected: run.frame().store.map_or(0, |s| s.store.rejected),
            most: run.leaders().len(),
            steps: 0,
            ended: false,
        };
        if q.check == Check::WritesRejected && run.frame().store.is_none() {
            return Err(ScenarioError::new("check", "the scenario writes through no fenced store (add \"fencing\")"));
        }
        Ok(r)
    }

    /// Steps the run until the answer is known or `left` steps are spent (`left` is reduced).
    fn poll(
        &mut self,
        run: &mut Engine,
        q: &Question,
        left: &mut u64,
        horizon: u64,
    ) -> Result<Option<Answer>, ScenarioError> {
        loop {
            if let Some(a) = self.done(run, q)? {
                return Ok(Some(a));
            }
            if *left == 0 {
                return Ok(None);
            }
            *left -= 1;
            self.steps += 1;
            self.ended = self.steps > MAX_CHECK_STEPS || run.cursor() >= horizon || !run.step();
            if !self.ended {
                self.most = self.most.max(run.leaders().len());
            }
        }
    }

    /// The answer, if the run shows it now.
    fn done(&self, run: &Engine, q: &Question) -> Result<Option<Answer>, ScenarioError> {
        let ended = self.ended;
        Ok(match q.check {
            Check::LeaderAt | Check::NextDeliveryKind => unreachable!("read at once"),
            Check::MessagesUntilEnd | Check::MeanMessagesOverOrders => {
                ended.then(|| Answer::Number(count(run, &q.kinds) - self.base))
            }
            Check::MessagesUntilAgreement if run.elections().len() != self.elections => {
                Some(Answer::Number(count(run, &q.kinds) - self.base))
            }
            Check::MessagesUntilAgreement if ended => {
                return Err(ScenarioError::new(
                    "check",
                    format!("no election completes after the stop ({})", ends(run)),
                ))
            }
            Check::MessagesUntilAgreement => None,
            Check::Elected if run.elections().len() > self.elections => Some(Answer::YesNo(true)),
            Check::Elected => ended.then_some(Answer::YesNo(false)),
            Check::Violated | Check::ViolationsOverSweep => {
                let hit = run.violations()[self.violations..]
                    .iter()
                    .any(|v| q.property.as_deref().is_none_or(|p| p == v.kind));
                (hit || ended).then_some(Answer::YesNo(hit))
            }
            Check::MaxLeaders => ended.then_some(Answer::Number(self.most as u64)),
            Check::WritesRejected => {
                ended.then(|| Answer::Number(run.frame().store.map_or(0, |s| s.store.rejected) - self.rejected))
            }
            Check::MinorityElects => {
                let m = minority(run, q);
                let elects = run.leaders().iter().any(|l| m.contains(l) && !self.led.contains(l));
                (elects || ended).then_some(Answer::YesNo(elects))
            }
        })
    }
}

/// `minority_elects`: the question's nodes, or the smaller side of the partition now.
fn minority(r: &Engine, q: &Question) -> Vec<NodeId> {
    if !q.nodes.is_empty() {
        return q.nodes.clone();
    }
    let Some(g) = r.groups() else { return vec![] };
    let mut sizes = std::collections::BTreeMap::new();
    for l in g {
        *sizes.entry(*l).or_insert(0usize) += 1;
    }
    let Some((&small, _)) = sizes.iter().min_by_key(|(_, c)| **c) else { return vec![] };
    r.scenario().nodes.iter().zip(g).filter(|(_, l)| **l == small).map(|(n, _)| *n).collect()
}

/// The leader at `when`, or the next delivery's kind, read on `run` (moved) in one go, as if
/// the run ended at step `horizon`.
fn read_at_once(run: &mut Engine, q: &Question, horizon: u64) -> Result<Answer, ScenarioError> {
    let mut steps = 0u64;
    let mut step = |run: &mut Engine| {
        steps += 1;
        steps <= MAX_CHECK_STEPS && run.cursor() < horizon && run.step()
    };
    if q.check == Check::LeaderAt {
        match &q.when {
            None => while step(run) {},
            Some(At::Start | At::Now) => {}
            Some(At::End) => while step(run) {},
            Some(At::Step(k)) => {
                while run.cursor() < *k && step(run) {}
                if run.cursor() != *k {
                    return Err(ScenarioError::new("when", format!("{} (before step {k})", ends(run))));
                }
            }
            Some(At::When(t)) => {
                let bp = Breakpoint::parse(t, run).map_err(|m| ScenarioError::new("when", m))?;
                let mut w = Watch::new(vec![bp], run);
                let budget = MAX_CHECK_STEPS.min(horizon.saturating_sub(run.cursor()));
                if run_until(run, &mut w, budget).is_none() {
                    return Err(ScenarioError::new("when", format!("'{t}' never hits ({})", ends(run))));
                }
            }
        }
        return Ok(Answer::Node(run.agreement()));
    }
    loop {
        if !step(run) {
            return Err(ScenarioError::new("check", format!("no message is delivered after the stop ({})", ends(run))));
        }
        let at = run.cursor();
        if run.record(at).is_some_and(|r| matches!(r.kind, EventKind::Deliver)) {
            let kind = run.step_info(at).and_then(|i| i.kind).unwrap_or("?");
            if !q.choices.iter().any(|c| c == kind) {
                return Err(ScenarioError::new(
                    "choices",
                    format!("the next delivery (step {at}) is {kind}, which is not among the choices"),
                ));
            }
            return Ok(Answer::Choice(kind.to_string()));
        }
    }
}
