//! Compare mode: 2 to 4 algorithms run one scenario in lanes, in sync by virtual time.
//!
//! One shared clock, `time`: every lane shows its run after every event at or before `time`
//! (its engine runs forward with `run_until`, or seeks back to its last step at or before that
//! tick). One step moves the clock to the next tick at which *any* lane has an event. A fault
//! made in any lane (a click, a partition line, a heal, a menu action) is applied to every lane
//! at the shared time with `Engine::apply_at`, so every algorithm meets the same faults at the
//! same virtual time, whatever it did before.
//!
//! The lanes differ by algorithm only: same nodes, seed, network, heartbeats, schedule and stop.
//! The scenario's `params` belong to its own algorithm; the other lanes run with their defaults.
//! The lane running the scenario's own algorithm is the *anchor*: its interventions (with their
//! steps and times) are what a link carries, and the other lanes replay them by time.

use super::derived::{lines_at, recent_drops, DropMark};
use super::positions;
use super::EngineRef;
use crate::geometry::{Line, Pt};
use crate::markers::{self, Marker};
use election_lab::meta::k;
use election_lab::meta::{Lang, Property, Text, Topology};
use election_lab::{presets, registry, Action as Intervention, Algorithm, Engine, Frame, Scenario, Time};
use std::rc::Rc;

pub const MAX_LANES: usize = 4;
/// Steps each lane is computed ahead of its cursor, for the scrubber's reach.
const LOOKAHEAD: u64 = 4_000;

/// A compare preset: a preset's scenario on every algorithm that fits it (up to four lanes).
pub struct ComparePreset {
    /// The preset whose scenario the lanes share.
    pub preset: &'static str,
    pub title: Text,
    pub hint: Text,
}

/// The split-brain experiment of Garcia-Molina (1982) against Ongaro & Ousterhout (2014): N5
/// leads five nodes; cutting {1,2} from {3,4,5} gives Bully two leaders while a quorum protocol
/// keeps one.
pub const SPLIT_BRAIN: ComparePreset =
    ComparePreset { preset: "split-brain-bully", title: k::COMPARE_TITLE, hint: k::COMPARE_HINT };

/// The preset picker's value for [`SPLIT_BRAIN`] (no preset has this id).
pub const PICKER_VALUE: &str = "compare";

/// What a lane's row of the comparison table shows, at the shared time.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// Each side of the partition (all nodes when there is none): its nodes and who leads there.
    pub sides: Vec<(Vec<u32>, Vec<u32>)>,
    pub leaders: Vec<u32>,
    /// Each claimed safety property with the number of its violations so far.
    pub claims: Vec<(&'static Property, usize)>,
    pub messages: u64,
    /// Every live node names this leader; with the last election's (latency, end time), if one ran.
    pub agreement: Option<(u32, Option<(Time, Time)>)>,
    pub step: u64,
}

#[derive(Clone)]
pub struct Lane {
    pub algorithm: &'static Algorithm,
    pub engine: EngineRef,
    pub frame: Rc<Frame>,
    pub drops: Rc<Vec<DropMark>>,
    pub row: Rc<Row>,
    /// A slow lane's work left to the slices (`compare/slow.rs`).
    pub job: Option<Rc<slow::LaneJob>>,
}

#[derive(Clone)]
pub struct Compare {
    pub lanes: Vec<Lane>,
    /// The scenario, with the anchor lane's algorithm and params.
    pub scenario: Rc<Scenario>,
    pub positions: Rc<Vec<Pt>>,
    /// The shared clock: every lane has run every event at or before it.
    pub time: Time,
    /// The last tick computed in any lane (the scrubber's end).
    pub end: Time,
    pub lines: Rc<Vec<Line>>,
    /// Timeline markers, placed by time.
    pub markers: Rc<Vec<Marker>>,
    markers_key: (u64, usize, bool, Lang),
    /// The language of the markers' titles (the page's).
    pub lang: Lang,
    /// The lane whose node menu is open.
    pub menu_lane: usize,
    /// Playing: lanes without a new event are left as they are.
    live: bool,
    /// Two runs of one world (a fork, or an imported trace beside the run) rather than several
    /// algorithms: their roles and first divergence.
    pub runs: Option<Rc<Runs>>,
}

/// Reads a link's `compare=a,b,c`: 2 to 4 distinct registered algorithm ids.
pub fn parse_ids(list: &str) -> Result<Vec<&'static Algorithm>, String> {
    let ids: Vec<&str> = list.split(',').map(str::trim).filter(|s| !s.is_empty()).collect();
    let mut out: Vec<&'static Algorithm> = Vec::new();
    for id in &ids {
        let Some(a) = registry::find(id) else {
            let known: Vec<&str> = registry::all().iter().map(|a| a.id).collect();
            return Err(format!("compare: no algorithm named '{id}' (known: {})", known.join(", ")));
        };
        if out.contains(&a) {
            return Err(format!("compare: '{id}' is listed twice"));
        }
        out.push(a);
    }
    if !(2..=MAX_LANES).contains(&out.len()) {
        return Err(format!(
            "compare: {} algorithm(s) given ('{list}'); compare mode shows 2 to {MAX_LANES}",
            out.len()
        ));
    }
    Ok(out)
}

/// The scenario of one lane: `base` with another algorithm, whose params are its defaults.
pub fn lane_scenario(base: &Scenario, alg: &Algorithm) -> Scenario {
    let mut s = base.clone();
    if s.algorithm != alg.id {
        s.algorithm = alg.id.to_string();
        s.params.clear();
    }
    s
}

/// Whether `alg` can run `base` and is drawn like its own algorithm: ring or not, with a
/// resource or not, and its nodes in the same places (a partition line must cut every lane
/// alike).
pub fn fits(base: &Scenario, alg: &Algorithm) -> bool {
    let shape = |t: Topology| (t.is_ring(), t == Topology::WithResource);
    let same = registry::find(&base.algorithm).is_none_or(|own| shape(own.topology) == shape(alg.topology));
    let layout = |s: Scenario| Engine::new(s.clone()).ok().map(|e| positions(&s, &e.frame()));
    same && layout(lane_scenario(base, alg)).is_some_and(|p| Some(p) == layout(base.clone()))
}

/// Two scenarios of one world: equal but for the algorithm and its params.
pub fn same_world(a: &Scenario, b: &Scenario) -> bool {
    let mut a = a.clone();
    a.algorithm.clone_from(&b.algorithm);
    a.params.clone_from(&b.params);
    a == *b
}

/// The lanes of a compare preset: every algorithm that fits its scenario, at most four. Those
/// that declare this very scenario as a preset of their own come first (the course's pair),
/// then one for each set of claimed properties not shown yet, then the rest in registry order.
pub fn preset_lanes(base: &Scenario) -> Vec<&'static Algorithm> {
    let declares = |a: &Algorithm| a.presets.iter().any(|p| same_world(&p.scenario(), base));
    let claims = |a: &Algorithm| a.properties.iter().map(|p| (p.id, p.holds)).collect::<Vec<_>>();
    let fit: Vec<&'static Algorithm> = registry::all().iter().copied().filter(|a| fits(base, a)).collect();
    let mut out: Vec<&'static Algorithm> = fit.iter().copied().filter(|a| declares(a)).collect();
    for &a in &fit {
        if !out.contains(&a) && !out.iter().any(|b| claims(b) == claims(a)) {
            out.push(a);
        }
    }
    let rest: Vec<_> = fit.iter().copied().filter(|a| !out.contains(a)).collect();
    out.extend(rest);
    out.truncate(MAX_LANES);
    out
}

impl Lane {
    pub(crate) fn new(algorithm: &'static Algorithm, engine: Engine) -> Lane {
        let frame = Rc::new(engine.frame());
        Lane {
            algorithm,
            frame,
            engine: EngineRef::new(engine),
            drops: Rc::default(),
            row: Rc::new(Row { sides: vec![], leaders: vec![], claims: vec![], messages: 0, agreement: None, step: 0 }),
            job: None,
        }
    }

    /// `live`: the play loop moves the dots, so a lane with no new event keeps its frame (and
    /// its canvas is not drawn again).
    fn refresh(&mut self, time: Time, live: bool) {
        if live && self.frame.step == self.engine.get().cursor() {
            return;
        }
        self.engine.bump();
        let e = self.engine.get();
        let mut frame = e.frame();
        // Drawn at the shared time (a message in flight sits where it is at that tick).
        frame.time = time;
        if *self.frame != frame {
            self.frame = Rc::new(frame);
        }
        let drops = recent_drops(&e);
        if *self.drops != drops {
            self.drops = Rc::new(drops);
        }
        let f = &self.frame;
        let mut sides: Vec<(u32, Vec<u32>, Vec<u32>)> = Vec::new();
        for (i, n) in f.nodes.iter().enumerate() {
            let g = f.groups.as_ref().and_then(|g| g.get(i).copied()).unwrap_or(0);
            let k = sides.iter().position(|s| s.0 == g).unwrap_or_else(|| {
                sides.push((g, vec![], vec![]));
                sides.len() - 1
            });
            sides[k].1.push(n.id);
            if f.leaders.contains(&n.id) {
                sides[k].2.push(n.id);
            }
        }
        let row = Row {
            sides: sides.into_iter().map(|(_, nodes, leaders)| (nodes, leaders)).collect(),
            leaders: f.leaders.clone(),
            claims: self
                .algorithm
                .properties
                .iter()
                .map(|p| (p, e.violations().iter().filter(|v| v.kind == p.id).count()))
                .collect(),
            messages: e.metrics().total,
            agreement: f.agreement.map(|l| (l, e.elections().last().map(|x| (x.latency(), x.to)))),
            step: e.cursor(),
        };
        drop(e);
        if *self.row != row {
            self.row = Rc::new(row);
        }
    }
}

impl Compare {
    /// Builds the lanes of `algs` on `base`, replays `faults` (time, action) in each by time, and
    /// sets the clock to `time`.
    pub fn build(
        base: &Scenario,
        algs: &[&'static Algorithm],
        faults: &[(Time, Intervention)],
        time: Time,
    ) -> Result<Compare, String> {
        // The anchor must be one of the lanes.
        let scenario = match algs.iter().any(|a| a.id == base.algorithm) {
            true => base.clone(),
            false => lane_scenario(base, algs[0]),
        };
        if let Some(a) = algs.iter().find(|a| !fits(&scenario, a)) {
            return Err(format!(
                "compare: '{}' does not fit this scenario: it connects or places the nodes differently from '{}'",
                a.id, scenario.algorithm
            ));
        }
        let mut lanes = Vec::with_capacity(algs.len());
        for &a in algs {
            let err = |e: election_lab::ScenarioError| format!("compare: {}: {e}", a.id);
            if crate::state::script::is_script(a.id) {
                lanes.push(Lane::later(a, lane_scenario(&scenario, a), faults).map_err(err)?);
                continue;
            }
            let mut e = Engine::new(lane_scenario(&scenario, a)).map_err(err)?;
            for (t, action) in faults {
                e.run_until(*t);
                e.apply_at(action.clone(), *t).map_err(err)?;
            }
            lanes.push(Lane::new(a, e));
        }
        let anchor = lanes.iter().position(|l| l.algorithm.id == scenario.algorithm).unwrap_or(0);
        let at = positions(&scenario, &lanes[anchor].frame);
        let mut c = Compare::empty(lanes, Rc::new(scenario), at);
        c.go_to(time);
        Ok(c)
    }

    fn empty(lanes: Vec<Lane>, scenario: Rc<Scenario>, positions: Vec<Pt>) -> Compare {
        Compare {
            positions: Rc::new(positions),
            lanes,
            scenario,
            time: 0,
            end: 0,
            lines: Rc::default(),
            markers: Rc::default(),
            markers_key: (u64::MAX, 0, false, Lang::En),
            lang: Lang::En,
            menu_lane: 0,
            live: false,
            runs: None,
        }
    }

    /// The algorithms, lane by lane.
    pub fn algorithms(&self) -> Vec<&'static Algorithm> {
        self.lanes.iter().map(|l| l.algorithm).collect()
    }

    /// The lane running the scenario's own algorithm.
    pub fn anchor(&self) -> &Lane {
        if let Some(r) = &self.runs {
            return &self.lanes[r.anchor];
        }
        self.lanes.iter().find(|l| l.algorithm.id == self.scenario.algorithm).unwrap_or(&self.lanes[0])
    }

    pub fn faults_len(&self) -> usize {
        if let Some(faults) = self.faults_pending() {
            return faults.len();
        }
        self.anchor().engine.get().interventions().len()
    }

    /// The faults applied so far: (time, action), from the anchor lane.
    pub fn faults(&self) -> Vec<(Time, Intervention)> {
        if let Some(faults) = self.faults_pending() {
            return faults;
        }
        self.anchor().engine.get().interventions().iter().map(|iv| (iv.time, iv.action.clone())).collect()
    }

    fn stop_time(&self) -> Time {
        self.lanes[0].engine.get().stop_time()
    }

    /// Sets the shared clock: every lane to its last step at or before `t`.
    pub fn go_to(&mut self, t: Time) {
        let t = t.min(self.stop_time());
        for lane in &mut self.lanes {
            if slow::slow(lane) {
                Compare::place_slow(lane, t);
                continue;
            }
            let mut e = lane.engine.get_mut();
            e.seek_time(t);
            let c = e.cursor();
            if e.head() < c + LOOKAHEAD / 2 {
                e.seek(c + LOOKAHEAD);
                e.seek(c);
            }
        }
        self.time = t;
        self.refresh();
    }

    /// The next tick at which any lane has an event (within the stop time).
    pub fn next_tick(&self) -> Option<Time> {
        // A lane still computing has no next tick yet: the clock moves on by the others', or
        // by one tick if every lane is computing.
        let waiting = self.lanes.iter().all(Lane::computing).then_some(self.time + 1);
        self.lanes
            .iter()
            .filter(|l| !l.computing())
            .filter_map(|l| {
                let mut e = l.engine.get_mut();
                e.next_event_time().filter(|&n| n <= e.stop_time())
            })
            .min()
            .or(waiting.filter(|&t| t <= self.stop_time()))
    }

    /// The last tick before the clock at which any lane had an event (0 if none).
    pub fn prev_tick(&self) -> Option<Time> {
        if self.time == 0 {
            return None;
        }
        let last = |e: &Engine| e.record(e.first_step_at(self.time) - 1).map(|r| r.time);
        Some(self.lanes.iter().filter_map(|l| last(&l.engine.get())).max().unwrap_or(0))
    }

    /// Applies `action` to every lane at the shared time.
    pub fn act(&mut self, action: Intervention) -> Result<(), String> {
        for lane in &mut self.lanes {
            if Compare::act_later(lane, self.time, &action) {
                continue;
            }
            lane.engine.get_mut().apply_at(action.clone(), self.time).map_err(|e| e.to_string())?;
        }
        self.go_to(self.time);
        Ok(())
    }

    /// Re-derives what is drawn, after any change.
    pub fn refresh(&mut self) {
        let time = self.time;
        let mut end = time;
        for lane in &mut self.lanes {
            lane.refresh(time, self.live);
            let e = lane.engine.get();
            end = end.max(e.record(e.head()).map_or(0, |r| r.time));
        }
        self.end = end.min(self.stop_time()).max(time);
        let anchor = self.anchor().engine.get();
        let lines = lines_at(anchor.interventions(), anchor.cursor());
        drop(anchor);
        self.compare_runs();
        let anchor = self.anchor().engine.get();
        let found = self.runs.as_ref().is_some_and(|r| r.first.is_some());
        let key =
            (self.lanes.iter().map(|l| l.engine.get().head()).sum(), anchor.interventions().len(), found, self.lang);
        drop(anchor);
        if *self.lines != lines {
            self.lines = Rc::new(lines);
        }
        if key != self.markers_key {
            self.markers = Rc::new(self.compute_markers());
            self.markers_key = key;
        }
    }

    /// Every lane's elections and violations, and the faults, placed by time.
    fn compute_markers(&self) -> Vec<Marker> {
        let anchor = self.anchor().algorithm.id;
        let mut out: Vec<Marker> = Vec::new();
        for (k, lane) in self.lanes.iter().enumerate() {
            let e = lane.engine.get();
            let title = match self.runs {
                // Both lanes run one algorithm: they are told apart by their number.
                Some(_) => format!("{} ({})", lane.algorithm.title.get(self.lang), k + 1),
                None => lane.algorithm.title.get(self.lang).to_string(),
            };
            for m in markers::compute(&e, self.lang) {
                // Faults are the same in every lane: the anchor's are enough.
                if m.class == "fault" && lane.algorithm.id != anchor && self.runs.is_none() {
                    continue;
                }
                let time = e.record(m.step).map_or(0, |r| r.time);
                // Two runs' faults: those they share are shown once, unnamed.
                let marker = match m.class {
                    "fault" if self.runs.is_some() => Marker { step: time, class: m.class, title: m.title },
                    _ => Marker { step: time, class: m.class, title: format!("{title}: {}", m.title) },
                };
                if self.runs.is_none() || m.class != "fault" || !out.contains(&marker) {
                    out.push(marker);
                }
            }
        }
        // The first divergence of two runs (the timeline names it in the page's language).
        if let Some(d) = self.runs.as_ref().and_then(|r| r.first.as_ref()) {
            out.push(Marker { step: d.time, class: "diverge", title: String::new() });
        }
        // Markers are placed by their time: their order does not matter.
        out
    }
}

/// The scenario of a compare preset.
pub fn preset_scenario(p: &ComparePreset) -> Option<Scenario> {
    presets::find(p.preset).map(|x| x.scenario())
}

mod mode;
pub use mode::CompareAction;
pub mod runs;
pub mod slow;
pub use runs::{Diverged, Role, Runs};

#[cfg(test)]
mod tests;
