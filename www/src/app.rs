//! The Lab component: owns the engine, turns gestures into interventions, and draws frames.
//!
//! Structure is rendered when the step changes; while playing, an animation-frame loop moves the
//! message dots between renders by writing their coordinates directly (no virtual-DOM rebuild).

use crate::anim::FrameLoop;
use crate::geometry::{self, Line, Pt};
use crate::link;
use crate::palette::{kind_colour, kind_short, GROUP_FILLS};
use election_lab::layout;
use election_lab::presets;
use election_lab::registry;
use election_lab::{Action, Engine, Frame, Scenario};
use std::collections::BTreeMap;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};
use yew::prelude::*;

/// How far ahead of the cursor the run is computed, for the scrubber and its markers.
const LOOKAHEAD: u64 = 20_000;
/// Above this many messages in flight, dots are drawn without edges and labels.
const DENSE: usize = 150;
const SPEEDS: &[(f64, &str)] = &[(0.5, "0.5 tick/s"), (1.0, "1 tick/s"), (2.0, "2 ticks/s"), (5.0, "5 ticks/s"), (10.0, "10 ticks/s"), (30.0, "30 ticks/s")];

#[derive(Clone, Copy, PartialEq, Debug)]
enum Drag {
    /// Drawing a new line from its first point.
    Draw { from: Pt, to: Pt },
    /// Moving line `i`; `grab` is where the pointer took it.
    Move { i: usize, grab: Pt, now: Pt },
}

/// A message dot's animation data, cached after each render.
struct Dot {
    el: Element,
    a: Pt,
    b: Pt,
    sent: f64,
    deliver: f64,
}

pub enum Msg {
    TogglePlay,
    Pause,
    StepForward,
    StepBack,
    Seek(u64),
    Home,
    End,
    Reset,
    Speed(f64),
    Tick(f64),
    NodeClick(u32),
    NodeMenu(u32),
    CloseMenu,
    Act(Action),
    PointerDown(PointerEvent),
    PointerMove(PointerEvent),
    PointerUp(PointerEvent),
    LineDown(usize, PointerEvent),
    RemoveLine(usize),
    ClearLines,
    LoadPreset(String),
    ApplyEditor,
    Import(String),
    ImportFile(web_sys::File),
    Export,
    Share(bool),
    CloseShare,
    Dismiss,
    ToggleHelp,
    Key(KeyboardEvent),
}

pub struct Lab {
    engine: Engine,
    preset: Option<&'static str>,
    embed: bool,
    playing: bool,
    speed: f64,
    /// Virtual time shown while playing (fractional ticks).
    clock: f64,
    last_ts: Option<f64>,
    selected: Option<u32>,
    menu: Option<u32>,
    alert: Option<String>,
    notice: Option<String>,
    help: bool,
    share: Option<(String, String)>,
    drag: Option<Drag>,
    frames: FrameLoop,
    dots: Vec<Dot>,
    /// Dot endpoints and times as last drawn (filled by `view`, read by `rendered`).
    dot_data: std::cell::RefCell<Vec<(Pt, Pt, f64, f64)>>,
    svg: NodeRef,
    dots_ref: NodeRef,
    editor: NodeRef,
    import_text: NodeRef,
    keydown: Option<Closure<dyn FnMut(KeyboardEvent)>>,
    /// Timeline markers up to the head: (step, class, title). Recomputed when the head moves.
    markers: Vec<(u64, &'static str, String)>,
    markers_head: u64,
}

fn window() -> web_sys::Window {
    web_sys::window().expect("window")
}

fn location_query() -> String {
    window().location().search().unwrap_or_default()
}

impl Lab {
    fn default_engine() -> (Engine, &'static str) {
        let p = presets::find(presets::DEFAULT).expect("default preset");
        (Engine::new(p.scenario()).expect("valid preset"), p.id)
    }

    /// Computes the run ahead of the cursor (for the scrubber), then returns to the cursor.
    fn extend(&mut self) {
        let c = self.engine.cursor();
        if self.engine.head() < c + LOOKAHEAD {
            self.engine.seek(c + LOOKAHEAD);
            self.engine.seek(c);
        }
        self.update_markers();
    }

    fn update_markers(&mut self) {
        let head = self.engine.head();
        if head == self.markers_head {
            return;
        }
        let mut m = Vec::new();
        for step in 1..=head {
            if let Some(r) = self.engine.record(step) {
                if r.kind == election_lab::sim::EventKind::Fault {
                    if let Some(info) = self.engine.step_info(step) {
                        m.push((step, "fault", info.text));
                    }
                }
            }
        }
        for iv in self.engine.interventions() {
            m.push((iv.step, "fault", format!("you: {}", iv.action.describe())));
        }
        for e in self.engine.all_elections() {
            m.push((e.step, "elected", format!("t={} N{} leads (after {} ticks)", e.to, e.leader, e.latency())));
        }
        for v in self.engine.all_violations() {
            m.push((v.step, "violation", format!("t={} {} {}", v.time, v.kind, nodes_text(&v.nodes))));
        }
        m.sort_by_key(|x| x.0);
        self.markers = m;
        self.markers_head = head;
    }

    fn positions(&self, frame: &Frame) -> Vec<Pt> {
        let n = frame.nodes.len();
        (0..n).map(|i| layout::position(i, n)).collect()
    }

    /// Lines drawn by the user, as of the cursor: those of the last partition intervention.
    fn lines(&self) -> Vec<Line> {
        let cursor = self.engine.cursor();
        let mut lines = Vec::new();
        for iv in self.engine.interventions() {
            if iv.step > cursor {
                break;
            }
            match &iv.action {
                Action::Partition { lines: l, .. } => lines = l.clone(),
                Action::Heal => lines.clear(),
                _ => {}
            }
        }
        lines
    }

    fn set_lines(&mut self, lines: Vec<Line>) {
        // Node positions depend only on the scenario order, not on the run.
        let ids = &self.engine.scenario().nodes;
        let nodes: Vec<(u32, Pt)> = ids.iter().enumerate().map(|(i, &id)| (id, layout::position(i, ids.len()))).collect();
        let action = match (lines.is_empty(), geometry::groups(&lines, &nodes)) {
            (true, _) => Action::Heal,
            (false, Some(groups)) => Action::Partition { groups, lines },
            // Lines that separate nobody still show, as a partition with one group.
            (false, None) => Action::Partition { groups: vec![nodes.iter().map(|n| n.0).collect()], lines },
        };
        self.act(action);
    }

    fn act(&mut self, action: Action) {
        match self.engine.apply(action) {
            Ok(()) => {
                self.markers_head = u64::MAX;
                self.extend();
                self.sync_url();
            }
            Err(e) => self.alert = Some(e.to_string()),
        }
    }

    fn replace_engine(&mut self, engine: Engine, preset: Option<&'static str>) {
        self.engine = engine;
        self.preset = preset;
        self.selected = None;
        self.menu = None;
        self.markers.clear();
        self.markers_head = u64::MAX;
        self.playing = false;
        self.frames.stop();
        self.clock = self.engine.now() as f64;
        self.extend();
        self.sync_url();
    }

    /// The query for the current state, with the selected node (a viewing aid, kept on reload).
    fn query(&self, embed: bool) -> String {
        let mut q = link::write(&self.engine, self.preset, embed);
        if let Some(id) = self.selected {
            q.push_str(&format!("&sel={id}"));
        }
        q
    }

    fn sync_url(&self) {
        let q = self.query(self.embed);
        if let Ok(h) = window().history() {
            let _ = h.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&q));
        }
        crate::remember_trace(self.engine.trace_value().to_string());
    }

    fn page_url(&self, embed: bool) -> String {
        let loc = window().location();
        let base = format!("{}{}", loc.origin().unwrap_or_default(), loc.pathname().unwrap_or_default());
        format!("{base}{}", self.query(embed))
    }

    /// Converts a pointer event to viewBox coordinates.
    fn svg_point(&self, e: &PointerEvent) -> Option<Pt> {
        let svg = self.svg.cast::<Element>()?;
        let r = svg.get_bounding_client_rect();
        let scale = r.width().min(r.height()) / geometry::BOX;
        if scale <= 0.0 {
            return None;
        }
        let ox = r.left() + (r.width() - geometry::BOX * scale) / 2.0;
        let oy = r.top() + (r.height() - geometry::BOX * scale) / 2.0;
        Some(((e.client_x() as f64 - ox) / scale, (e.client_y() as f64 - oy) / scale))
    }

    fn start_playing(&mut self, ctx: &Context<Self>) {
        if self.at_end() {
            self.notice = Some("The run has ended: nothing left to play. Step back, reset, or act on the cluster.".into());
            return;
        }
        self.playing = true;
        self.clock = self.engine.now() as f64;
        self.last_ts = None;
        let link = ctx.link().clone();
        self.frames.start(move |ts| link.send_message(Msg::Tick(ts)));
    }

    fn pause(&mut self) {
        self.playing = false;
        self.frames.stop();
    }

    fn at_end(&mut self) -> bool {
        match self.engine.next_event_time() {
            None => true,
            Some(t) => t > self.engine.stop_time(),
        }
    }

    fn step_forward(&mut self) -> bool {
        let moved = self.engine.step();
        if self.engine.head() < self.engine.cursor() + LOOKAHEAD / 2 {
            self.extend();
        }
        self.clock = self.engine.now() as f64;
        moved
    }

    /// Moves the dots to the animation clock (no re-render).
    fn place_dots(&self) {
        for d in &self.dots {
            let p = progress(self.clock, d.sent, d.deliver);
            let (x, y) = lerp(d.a, d.b, p);
            let _ = d.el.set_attribute("transform", &format!("translate({x:.1} {y:.1})"));
        }
    }
}

fn progress(t: f64, sent: f64, deliver: f64) -> f64 {
    if deliver <= sent {
        1.0
    } else {
        ((t - sent) / (deliver - sent)).clamp(0.0, 1.0)
    }
}

fn lerp(a: Pt, b: Pt, p: f64) -> Pt {
    (a.0 + (b.0 - a.0) * p, a.1 + (b.1 - a.1) * p)
}

fn nodes_text(nodes: &[u32]) -> String {
    nodes.iter().map(|n| format!("N{n}")).collect::<Vec<_>>().join(", ")
}

/// Pulls the dot's endpoints back from the node centres so dots start and end at the discs' rims.
fn edge(a: Pt, b: Pt, r: f64) -> (Pt, Pt) {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let len = dx.hypot(dy);
    if len < 2.0 * r + 1.0 {
        return (a, b);
    }
    let (ux, uy) = (dx / len, dy / len);
    ((a.0 + ux * r, a.1 + uy * r), (b.0 - ux * r, b.1 - uy * r))
}

impl Component for Lab {
    type Message = Msg;
    type Properties = ();

    fn create(ctx: &Context<Self>) -> Self {
        let query = location_query();
        let (engine, preset, embed, alert) = match link::read(&query) {
            Ok(Some(l)) => (l.engine, l.preset, l.embed, None),
            Ok(None) => {
                let (e, p) = Lab::default_engine();
                (e, Some(p), false, None)
            }
            Err(msg) => {
                let (e, p) = Lab::default_engine();
                let embed = link::params(&query).iter().any(|(k, v)| k == "embed" && v == "1");
                (e, Some(p), embed, Some(format!("{msg}. Showing the default scenario instead.")))
            }
        };
        let link = ctx.link().clone();
        let keydown = Closure::<dyn FnMut(KeyboardEvent)>::new(move |e: KeyboardEvent| link.send_message(Msg::Key(e)));
        let _ = window().add_event_listener_with_callback("keydown", keydown.as_ref().unchecked_ref());
        let mut lab = Lab {
            clock: engine.now() as f64,
            engine,
            preset,
            embed,
            playing: false,
            speed: 2.0,
            last_ts: None,
            selected: None,
            menu: None,
            alert,
            notice: None,
            help: false,
            share: None,
            drag: None,
            frames: FrameLoop::new(),
            dots: Vec::new(),
            dot_data: Default::default(),
            svg: NodeRef::default(),
            dots_ref: NodeRef::default(),
            editor: NodeRef::default(),
            import_text: NodeRef::default(),
            keydown: Some(keydown),
            markers: Vec::new(),
            markers_head: u64::MAX,
        };
        lab.selected = link::params(&query)
            .iter()
            .find(|(k, _)| k == "sel")
            .and_then(|(_, v)| v.parse::<u32>().ok())
            .filter(|id| lab.engine.scenario().nodes.contains(id));
        lab.extend();
        lab.sync_url();
        lab
    }

    fn destroy(&mut self, _ctx: &Context<Self>) {
        if let Some(k) = self.keydown.take() {
            let _ = window().remove_event_listener_with_callback("keydown", k.as_ref().unchecked_ref());
        }
        self.frames.stop();
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        match msg {
            Msg::TogglePlay => {
                if self.playing {
                    self.pause();
                } else {
                    self.start_playing(ctx);
                }
            }
            Msg::Pause => self.pause(),
            Msg::StepForward => {
                self.pause();
                if !self.step_forward() {
                    self.notice = Some("The run has ended.".into());
                }
                self.sync_url();
            }
            Msg::StepBack => {
                self.pause();
                let c = self.engine.cursor();
                if c > 0 {
                    self.engine.seek(c - 1);
                }
                self.clock = self.engine.now() as f64;
                self.sync_url();
            }
            Msg::Seek(s) => {
                self.pause();
                self.engine.seek(s);
                if self.engine.head() < s + LOOKAHEAD / 2 {
                    self.extend();
                }
                self.clock = self.engine.now() as f64;
                self.sync_url();
            }
            Msg::Home => return <Self as Component>::update(self, ctx, Msg::Seek(0)),
            Msg::End => {
                let head = self.engine.head();
                return <Self as Component>::update(self, ctx, Msg::Seek(head));
            }
            Msg::Reset => {
                let scenario = self.engine.scenario().clone();
                match Engine::new(scenario) {
                    Ok(e) => self.replace_engine(e, self.preset),
                    Err(e) => self.alert = Some(e.to_string()),
                }
            }
            Msg::Speed(s) => self.speed = s,
            Msg::Tick(ts) => {
                if !self.playing {
                    return false;
                }
                let dt = self.last_ts.map_or(0.0, |last| ((ts - last) / 1000.0).min(0.25));
                self.last_ts = Some(ts);
                self.clock += dt * self.speed;
                let mut stepped = false;
                loop {
                    match self.engine.next_event_time() {
                        Some(t) if t <= self.engine.stop_time() && (t as f64) <= self.clock => {
                            let before = self.engine.now();
                            if !self.step_forward() {
                                break;
                            }
                            self.clock = self.clock.max(before as f64);
                            stepped = true;
                        }
                        Some(t) if t <= self.engine.stop_time() => break,
                        _ => {
                            self.pause();
                            self.notice = Some("The run has ended.".into());
                            stepped = true;
                            break;
                        }
                    }
                }
                if stepped {
                    self.sync_url();
                    return true;
                }
                self.place_dots();
                return false;
            }
            Msg::NodeClick(id) => {
                self.menu = None;
                self.selected = Some(id);
                let up = self.engine.is_up(id).unwrap_or(false);
                self.act(if up { Action::Crash(id) } else { Action::Recover(id) });
            }
            Msg::NodeMenu(id) => {
                self.selected = Some(id);
                self.menu = if self.menu == Some(id) { None } else { Some(id) };
                self.sync_url();
            }
            Msg::CloseMenu => self.menu = None,
            Msg::Act(a) => {
                self.menu = None;
                self.act(a);
            }
            Msg::PointerDown(e) => {
                if e.button() != 0 {
                    return false;
                }
                self.menu = None;
                let on_backdrop = e.target().and_then(|t| t.dyn_into::<Element>().ok()).is_some_and(|t| t.get_attribute("class").is_some_and(|c| c.contains("backdrop")));
                if !on_backdrop {
                    return true;
                }
                if let Some(p) = self.svg_point(&e) {
                    self.drag = Some(Drag::Draw { from: p, to: p });
                    capture(&e);
                }
            }
            Msg::LineDown(i, e) => {
                e.stop_propagation();
                if let Some(p) = self.svg_point(&e) {
                    self.drag = Some(Drag::Move { i, grab: p, now: p });
                    capture(&e);
                }
            }
            Msg::PointerMove(e) => {
                let Some(p) = self.svg_point(&e) else { return false };
                match &mut self.drag {
                    Some(Drag::Draw { to, .. }) => *to = p,
                    Some(Drag::Move { now, .. }) => *now = p,
                    None => return false,
                }
            }
            Msg::PointerUp(_) => match self.drag.take() {
                Some(Drag::Draw { from, to }) => {
                    let line = [from.0 as i32, from.1 as i32, to.0 as i32, to.1 as i32];
                    if geometry::is_usable(&line) {
                        let mut lines = self.lines();
                        lines.push(line);
                        self.set_lines(lines);
                    }
                }
                Some(Drag::Move { i, grab, now }) => {
                    let (dx, dy) = ((now.0 - grab.0) as i32, (now.1 - grab.1) as i32);
                    if dx != 0 || dy != 0 {
                        let mut lines = self.lines();
                        if let Some(l) = lines.get_mut(i) {
                            *l = [l[0] + dx, l[1] + dy, l[2] + dx, l[3] + dy];
                            self.set_lines(lines);
                        }
                    }
                }
                None => return false,
            },
            Msg::RemoveLine(i) => {
                let mut lines = self.lines();
                if i < lines.len() {
                    lines.remove(i);
                    self.set_lines(lines);
                }
            }
            Msg::ClearLines => self.set_lines(vec![]),
            Msg::LoadPreset(id) => match presets::find(&id) {
                Some(p) => match Engine::new(p.scenario()) {
                    Ok(e) => self.replace_engine(e, Some(p.id)),
                    Err(e) => self.alert = Some(e.to_string()),
                },
                None => self.alert = Some(format!("no preset named '{id}'")),
            },
            Msg::ApplyEditor => match self.read_editor() {
                Ok(s) => match Engine::new(s) {
                    Ok(e) => {
                        self.replace_engine(e, None);
                        self.alert = None;
                    }
                    Err(e) => self.alert = Some(format!("Scenario not applied: {e}")),
                },
                Err(e) => self.alert = Some(format!("Scenario not applied: {e}")),
            },
            Msg::Import(text) => match Engine::from_trace_json(&text) {
                Ok(e) => {
                    self.replace_engine(e, None);
                    self.alert = None;
                    self.notice = Some("Imported.".into());
                }
                Err(e) => self.alert = Some(format!("Import failed, nothing changed: {e}")),
            },
            Msg::ImportFile(file) => {
                let link = ctx.link().clone();
                let promise = file.text();
                wasm_bindgen_futures::spawn_local(async move {
                    match wasm_bindgen_futures::JsFuture::from(promise).await {
                        Ok(v) => link.send_message(Msg::Import(v.as_string().unwrap_or_default())),
                        Err(_) => link.send_message(Msg::Import(String::new())),
                    }
                });
                return false;
            }
            Msg::Export => {
                let text = serde_json::to_string_pretty(&self.engine.trace_value()).unwrap_or_default();
                crate::download("election-lab-trace.json", &text);
            }
            Msg::Share(embed) => {
                let url = self.page_url(embed);
                let text = if embed {
                    format!("<iframe src=\"{url}\" width=\"640\" height=\"640\" style=\"border:0\" title=\"Election Lab\"></iframe>")
                } else {
                    url
                };
                crate::copy_to_clipboard(&text);
                self.share = Some((if embed { "Embed code".into() } else { "Link".into() }, text));
            }
            Msg::CloseShare => self.share = None,
            Msg::Dismiss => {
                self.alert = None;
                self.notice = None;
            }
            Msg::ToggleHelp => self.help = !self.help,
            Msg::Key(e) => return self.key(ctx, e),
        }
        true
    }

    fn rendered(&mut self, _ctx: &Context<Self>, _first: bool) {
        // Pair the dots drawn by `view` with their elements, for the animation loop.
        self.dots.clear();
        let Some(group) = self.dots_ref.cast::<Element>() else { return };
        let children = group.children();
        for (k, &(a, b, sent, deliver)) in self.dot_data.borrow().iter().enumerate() {
            let Some(el) = children.item(k as u32) else { break };
            self.dots.push(Dot { el, a, b, sent, deliver });
        }
        if self.playing {
            self.place_dots();
        }
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let frame = self.engine.frame();
        let canvas = self.view_canvas(ctx, &frame);
        let controls = self.view_controls(ctx, &frame);
        let banners = self.view_banners(ctx, &frame);
        if self.embed {
            return html! {
                <div class="lab embed">
                    { banners }
                    <div class="canvas-wrap">{ canvas }</div>
                    { controls }
                </div>
            };
        }
        html! {
            <div class="lab">
                <header class="top">
                    <h1>{"Election Lab"}</h1>
                    { self.view_scenario_bar(ctx) }
                </header>
                { banners }
                <div class="main">
                    <section class="stage" aria-label="Cluster">
                        <div class="canvas-wrap">{ canvas }</div>
                        { controls }
                        { self.view_timeline(ctx) }
                    </section>
                    <aside class="panels">
                        { self.view_invariants(&frame) }
                        { self.view_inspector(ctx, &frame) }
                        { self.view_metrics() }
                        { self.view_log(ctx) }
                        { self.view_spacetime(ctx, &frame) }
                        { self.view_editor(ctx) }
                    </aside>
                </div>
                { self.view_share(ctx) }
                { self.view_help(ctx) }
            </div>
        }
    }
}

fn capture(e: &PointerEvent) {
    if let Some(t) = e.target().and_then(|t| t.dyn_into::<Element>().ok()) {
        let _ = t.set_pointer_capture(e.pointer_id());
    }
}

// ---------- drawing ----------

impl Lab {
    fn view_canvas(&self, ctx: &Context<Self>, frame: &Frame) -> Html {
        let n = frame.nodes.len();
        let pos = self.positions(frame);
        let r = layout::node_radius(n);
        let ring = self.engine.algorithm().topology.is_ring();
        let link = ctx.link();
        let mut lines = self.lines();
        if let Some(Drag::Move { i, grab, now }) = self.drag {
            if let Some(l) = lines.get_mut(i) {
                let (dx, dy) = ((now.0 - grab.0) as i32, (now.1 - grab.1) as i32);
                *l = [l[0] + dx, l[1] + dy, l[2] + dx, l[3] + dy];
            }
        }

        // Shaded regions: one per group of nodes that no line separates.
        let regions = {
            let mut seen: Vec<Vec<bool>> = Vec::new();
            let mut out = Vec::new();
            if !lines.is_empty() {
                for &p in &pos {
                    let sig = geometry::signature(&lines, p);
                    if !seen.contains(&sig) {
                        let poly = geometry::region(&lines, &sig);
                        let pts = poly.iter().map(|(x, y)| format!("{x:.0},{y:.0}")).collect::<Vec<_>>().join(" ");
                        let fill = GROUP_FILLS[seen.len() % GROUP_FILLS.len()];
                        out.push(html! { <polygon class="region" points={pts} fill={fill} /> });
                        seen.push(sig);
                    }
                }
            }
            out
        };

        // Group halos for partitions that have no drawn lines (scheduled ones, isolate).
        let halos = match (&frame.groups, lines.is_empty()) {
            (Some(groups), true) => pos
                .iter()
                .zip(groups)
                .map(|(&(x, y), &g)| {
                    let fill = GROUP_FILLS[g as usize % GROUP_FILLS.len()];
                    html! { <circle class="halo" cx={fmt(x)} cy={fmt(y)} r={fmt(r * 1.55)} fill={fill} /> }
                })
                .collect::<Vec<_>>(),
            _ => vec![],
        };

        let ring_edges = if ring && n > 1 {
            (0..n)
                .map(|i| {
                    let (a, b) = edge(pos[i], pos[(i + 1) % n], r + 4.0);
                    html! { <line class="ring-edge" x1={fmt(a.0)} y1={fmt(a.1)} x2={fmt(b.0)} y2={fmt(b.1)} marker-end="url(#arrow)" /> }
                })
                .collect::<Vec<_>>()
        } else {
            vec![]
        };

        let index: BTreeMap<u32, usize> = frame.nodes.iter().enumerate().map(|(i, nd)| (nd.id, i)).collect();
        let now = frame.time as f64;

        // With many messages in flight, dots are drawn bare (no edge, label or tooltip) so that
        // painting stays within a frame.
        let dense = frame.messages.len() > DENSE;
        // Faint edges under messages in flight.
        let edges = frame.messages.iter().filter(|_| !dense).filter_map(|m| {
            let (fi, ti) = (*index.get(&m.from)?, *index.get(&m.to)?);
            let (a, b) = edge(pos[fi], pos[ti], r);
            Some(html! { <line class="msg-edge" x1={fmt(a.0)} y1={fmt(a.1)} x2={fmt(b.0)} y2={fmt(b.1)} stroke={kind_colour(self.engine.algorithm(), m.kind)} /> })
        });

        let mut dot_data = self.dot_data.borrow_mut();
        dot_data.clear();
        let dots = frame
            .messages
            .iter()
            .filter_map(|m| {
                let (fi, ti) = (*index.get(&m.from)?, *index.get(&m.to)?);
                let (a, b) = edge(pos[fi], pos[ti], r);
                dot_data.push((a, b, m.sent as f64, m.deliver as f64));
                let (x, y) = lerp(a, b, progress(now, m.sent as f64, m.deliver as f64));
                let colour = kind_colour(self.engine.algorithm(), m.kind);
                Some(html! {
                    <g key={m.id} class={classes!("dot", m.doomed.then_some("doomed"))} data-msg={m.kind} data-id={m.id.to_string()}
                       transform={format!("translate({x:.1} {y:.1})")}>
                        { if dense { html!{} } else { html!{ <title>{ format!("#{} {} N{} → N{} (sent t={}, arrives t={})", m.id, m.label, m.from, m.to, m.sent, m.deliver) }</title> } } }
                        <circle r="9" fill={colour} />
                        { if dense { html!{} } else { html!{ <text class="dot-label" y="-13" text-anchor="middle">{ kind_short(self.engine.algorithm(), m.kind) }</text> } } }
                    </g>
                })
            })
            .collect::<Vec<_>>();
        drop(dot_data);

        // Messages dropped during this tick fade out where they were lost.
        let ghosts = self.recent_drops().into_iter().filter_map(|(from, to, kind)| {
            let (fi, ti) = (*index.get(&from)?, *index.get(&to)?);
            let (a, b) = edge(pos[fi], pos[ti], r);
            let (x, y) = lerp(a, b, 0.85);
            Some(html! {
                <g class="ghost" data-dropped={kind} transform={format!("translate({x:.1} {y:.1})")}>
                    <circle r="9" fill={kind_colour(self.engine.algorithm(), kind)} />
                    <text y="4" text-anchor="middle" class="ghost-x">{"✕"}</text>
                </g>
            })
        });

        let nodes = frame.nodes.iter().enumerate().map(|(i, node)| {
            let (x, y) = pos[i];
            let id = node.id;
            let v = &node.view;
            let status = if node.up { "up" } else { "crashed" };
            let role = if node.up { v.role } else { "crashed" };
            let onclick = link.callback(move |e: MouseEvent| {
                if e.shift_key() || e.alt_key() {
                    Msg::NodeMenu(id)
                } else {
                    Msg::NodeClick(id)
                }
            });
            let oncontextmenu = link.callback(move |e: MouseEvent| {
                e.prevent_default();
                Msg::NodeMenu(id)
            });
            let onkeydown = link.batch_callback(move |e: KeyboardEvent| match e.key().as_str() {
                "Enter" | " " => {
                    e.prevent_default();
                    e.stop_propagation();
                    Some(Msg::NodeClick(id))
                }
                "m" | "ContextMenu" => {
                    e.stop_propagation();
                    Some(Msg::NodeMenu(id))
                }
                "s" => {
                    e.stop_propagation();
                    Some(Msg::Act(Action::Start(id)))
                }
                _ => None,
            });
            let onpointerdown = Callback::from(|e: PointerEvent| e.stop_propagation());
            let leader_text = match (node.up, v.leader) {
                (false, _) => "crashed".to_string(),
                (true, Some(l)) if l == id => "leader".to_string(),
                (true, Some(l)) => format!("→ N{l}"),
                (true, None) => "no leader".to_string(),
            };
            let mut sub = Vec::new();
            if let Some(t) = v.term {
                sub.push(format!("t{t}{}", v.vote.map(|x| format!(" · voted N{x}")).unwrap_or_default()));
            }
            if let Some((held, need)) = v.tally {
                sub.push(format!("votes {held} / {need}"));
            }
            if node.up && v.role != "leader" && v.role != "follower" {
                sub.push(v.role.replace('-', " "));
            }
            let label = format!(
                "Node {id}, {status}, {}{}. Click to {}.",
                leader_text,
                if sub.is_empty() { String::new() } else { format!(", {}", sub.join(", ")) },
                if node.up { "crash it" } else { "recover it" }
            );
            let selected = self.selected == Some(id);
            let below = y > layout::CENTRE + 1.0 || (y - layout::CENTRE).abs() < 1.0 && x > layout::CENTRE;
            let ty = if below { y + r + 26.0 } else { y - r - 34.0 };
            html! {
                <g class={classes!("node", status, role, selected.then_some("selected"))} data-node={id.to_string()}
                   data-status={status} data-role={role} role="button" tabindex="0" aria-label={label}
                   {onclick} {oncontextmenu} {onkeydown} {onpointerdown}>
                    <circle class="disc" cx={fmt(x)} cy={fmt(y)} r={fmt(r)} />
                    { if !node.up { html!{ <path class="cross" d={format!("M{} {}L{} {}M{} {}L{} {}", x - r*0.5, y - r*0.5, x + r*0.5, y + r*0.5, x + r*0.5, y - r*0.5, x - r*0.5, y + r*0.5)} /> } } else { html!{} } }
                    <text class="id" x={fmt(x)} y={fmt(y)} text-anchor="middle" dominant-baseline="central">{ format!("N{id}") }</text>
                    <text class="view" x={fmt(x)} y={fmt(ty)} text-anchor="middle">{ leader_text }</text>
                    { for sub.iter().enumerate().map(|(k, s)| html!{ <text class="sub" x={fmt(x)} y={fmt(ty + 22.0 * (k as f64 + 1.0))} text-anchor="middle">{ s.clone() }</text> }) }
                </g>
            }
        });

        let line_els = lines.iter().enumerate().filter_map(|(i, l)| {
            let (a, b) = geometry::clip_to_box(l)?;
            let ondown = link.callback(move |e: PointerEvent| Msg::LineDown(i, e));
            let ondbl = link.callback(move |_: MouseEvent| Msg::RemoveLine(i));
            let (mx, my) = ((l[0] + l[2]) as f64 / 2.0, (l[1] + l[3]) as f64 / 2.0);
            let onremove = link.callback(move |e: MouseEvent| {
                e.stop_propagation();
                Msg::RemoveLine(i)
            });
            Some(html! {
                <g class="cut" data-partition={i.to_string()}>
                    <line class="cut-hit" x1={fmt(a.0)} y1={fmt(a.1)} x2={fmt(b.0)} y2={fmt(b.1)} onpointerdown={ondown} ondblclick={ondbl} />
                    <line class="cut-line" x1={fmt(a.0)} y1={fmt(a.1)} x2={fmt(b.0)} y2={fmt(b.1)} />
                    <g class="cut-remove" role="button" aria-label={format!("Remove partition line {}", i + 1)} tabindex="0"
                       onclick={onremove} onpointerdown={Callback::from(|e: PointerEvent| e.stop_propagation())}
                       transform={format!("translate({mx:.0} {my:.0})")}>
                        <circle r="16" />
                        <text y="6" text-anchor="middle">{"✕"}</text>
                    </g>
                </g>
            })
        });

        let preview = match self.drag {
            Some(Drag::Draw { from, to }) => html! {
                <line class="cut-preview" x1={fmt(from.0)} y1={fmt(from.1)} x2={fmt(to.0)} y2={fmt(to.1)} />
            },
            _ => html! {},
        };

        let menu = self.menu.and_then(|id| {
            let i = *index.get(&id)?;
            let node = &frame.nodes[i];
            let (x, y) = pos[i];
            let up = node.up;
            let items: Vec<(String, Action)> = vec![
                (if up { "Crash".into() } else { "Recover".into() }, if up { Action::Crash(id) } else { Action::Recover(id) }),
                ("Start election here".into(), Action::Start(id)),
                ("Isolate".into(), Action::Isolate(id)),
            ];
            let (mx, my) = ((x + r + 8.0).min(640.0), (y - 20.0).clamp(10.0, 800.0));
            let style = format!("left: {:.1}%; top: {:.1}%", mx / 10.0, my / 10.0);
            Some(html! {
                <div class="node-menu" role="menu" aria-label={format!("Actions for N{id}")} {style}>
                    <div class="menu-title">{ format!("N{id}") }</div>
                    { for items.into_iter().map(|(text, a)| {
                        let cb = link.callback(move |_| Msg::Act(a.clone()));
                        let disabled = !up && text != "Recover";
                        html!{ <button role="menuitem" onclick={cb} {disabled}>{ text }</button> }
                    }) }
                    <button role="menuitem" onclick={link.callback(|_| Msg::CloseMenu)}>{"Close"}</button>
                </div>
            })
        });

        let onpointerdown = link.callback(Msg::PointerDown);
        let onpointermove = link.callback(Msg::PointerMove);
        let onpointerup = link.callback(Msg::PointerUp);
        html! {
            <>
            { for menu }
            <svg ref={self.svg.clone()} class="canvas" viewBox="0 0 1000 1000" preserveAspectRatio="xMidYMid meet"
                 role="group" aria-label={format!("{} cluster of {} nodes at step {}", self.engine.algorithm().title.en, n, frame.step)}
                 {onpointerdown} {onpointermove} {onpointerup}>
                <defs>
                    <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
                        <path d="M 0 0 L 10 5 L 0 10 z" class="arrow-head" />
                    </marker>
                </defs>
                <rect class="backdrop" x="0" y="0" width="1000" height="1000" />
                { for regions }
                { for halos }
                { for ring_edges }
                { for edges }
                { for line_els }
                { for nodes }
                <g ref={self.dots_ref.clone()} class="dots">{ for dots }</g>
                { for ghosts }
                { preview }
                { if frame.nodes.is_empty() { html!{ <text x="500" y="500" text-anchor="middle">{"No nodes"}</text> } } else { html!{} } }
            </svg>
            </>
        }
    }

    /// Drops that happened at the cursor's tick, up to the cursor: (from, to, kind).
    fn recent_drops(&self) -> Vec<(u32, u32, &'static str)> {
        let mut out = Vec::new();
        let now = self.engine.now();
        let mut step = self.engine.cursor();
        while step > 0 {
            let Some(info) = self.engine.step_info(step) else { break };
            if info.time != now {
                break;
            }
            if info.event == "drop" {
                if let (Some(peer), Some(kind)) = (info.peer, info.kind) {
                    out.push((peer, info.node, kind));
                }
            }
            step -= 1;
            if out.len() > 200 {
                break;
            }
        }
        out
    }

    fn view_controls(&self, ctx: &Context<Self>, frame: &Frame) -> Html {
        let link = ctx.link();
        let play_label = if self.playing { "Pause" } else { "Play" };
        let speed_change = link.batch_callback(|e: Event| {
            let v = e.target_dyn_into::<HtmlSelectElement>()?.value();
            v.parse::<f64>().ok().map(Msg::Speed)
        });
        html! {
            <div class="controls" role="toolbar" aria-label="Playback">
                <button onclick={link.callback(|_| Msg::StepBack)} aria-label="Step back" title="Step back (←)" disabled={frame.step == 0}>{ icon("M15 5 L7 12 L15 19 Z M6 5 V19") }</button>
                <button class="play" onclick={link.callback(|_| Msg::TogglePlay)} aria-label={play_label} title="Play / pause (Space)">
                    { if self.playing { icon("M7 5 H10 V19 H7 Z M14 5 H17 V19 H14 Z") } else { icon("M8 5 L18 12 L8 19 Z") } }
                </button>
                <button onclick={link.callback(|_| Msg::StepForward)} aria-label="Step forward" title="Step forward (→)">{ icon("M9 5 L17 12 L9 19 Z M18 5 V19") }</button>
                <button onclick={link.callback(|_| Msg::Reset)} aria-label="Reset" title="Reset: drop your interventions and go back to step 0 (R)">{"Reset"}</button>
                <span class="readout">
                    {"step "}<b data-testid="step">{ frame.step }</b>
                    <span class="sep">{" · "}</span>{"t = "}<b data-testid="time">{ frame.time }</b>
                </span>
                { if !self.embed { html!{
                    <label class="speed">{"Speed "}
                        <select onchange={speed_change} aria-label="Speed">
                            { for SPEEDS.iter().map(|&(v, label)| html!{ <option value={v.to_string()} selected={(v - self.speed).abs() < 1e-9}>{ label }</option> }) }
                        </select>
                    </label>
                }} else { html!{} } }
            </div>
        }
    }

    fn view_timeline(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let head = self.engine.head().max(1);
        let cursor = self.engine.cursor();
        let oninput = link.batch_callback(|e: InputEvent| {
            let v = e.target_dyn_into::<HtmlInputElement>()?.value();
            v.parse::<u64>().ok().map(Msg::Seek)
        });
        html! {
            <div class="timeline">
                <input type="range" min="0" max={head.to_string()} value={cursor.to_string()} {oninput}
                       aria-label="Timeline" aria-valuetext={format!("step {cursor} of {head}")} />
                <div class="markers" aria-hidden="true">
                    { for self.markers.iter().map(|(step, class, title)| {
                        let s = *step;
                        let left = format!("left: calc({}% - 4px)", s as f64 / head as f64 * 100.0);
                        html!{ <button class={classes!("marker", *class)} style={left} title={title.clone()} tabindex="-1"
                                       onclick={link.callback(move |_| Msg::Seek(s))}></button> }
                    }) }
                </div>
                <div class="legend"><span class="marker fault"></span>{"fault "}<span class="marker elected"></span>{"leader elected "}<span class="marker violation"></span>{"violation"}</div>
            </div>
        }
    }

    fn view_banners(&self, ctx: &Context<Self>, frame: &Frame) -> Html {
        let link = ctx.link();
        let violations = self.engine.violations();
        let split = frame.leaders.len() >= 2;
        html! {
            <div class="banners">
                { if let Some(a) = &self.alert { html!{
                    <div class="banner error" role="alert">
                        <span>{ a.clone() }</span>
                        <button onclick={link.callback(|_| Msg::Dismiss)} aria-label="Dismiss">{"✕"}</button>
                    </div>
                }} else { html!{} } }
                { if split { html!{
                    <div class="banner violation" role="alert" data-testid="split-brain">
                        { format!("Split brain: {} all believe they lead.", nodes_text(&frame.leaders)) }
                    </div>
                }} else if let Some(v) = violations.iter().rev().find(|v| v.kind != "split-brain") { html!{
                    <div class="banner violation" role="alert">
                        { format!("{} at t={} (step {}): {}{}", v.kind, v.time, v.step, nodes_text(&v.nodes), v.term.map(|t| format!(" in term {t}")).unwrap_or_default()) }
                    </div>
                }} else { html!{} } }
                { if let Some(n) = &self.notice { html!{
                    <div class="banner notice" role="status">
                        <span>{ n.clone() }</span>
                        <button onclick={link.callback(|_| Msg::Dismiss)} aria-label="Dismiss">{"✕"}</button>
                    </div>
                }} else { html!{} } }
            </div>
        }
    }

    fn view_scenario_bar(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let onchange = link.batch_callback(|e: Event| Some(Msg::LoadPreset(e.target_dyn_into::<HtmlSelectElement>()?.value())));
        let onfile = link.batch_callback(|e: Event| {
            let input = e.target_dyn_into::<HtmlInputElement>()?;
            let file = input.files()?.get(0)?;
            input.set_value("");
            Some(Msg::ImportFile(file))
        });
        let hint = self.preset.and_then(presets::find).map(|p| p.hint.en).unwrap_or("Your own scenario.");
        html! {
            <div class="scenario-bar">
                <label>{"Preset "}
                    <select {onchange} aria-label="Preset">
                        <option value="" selected={self.preset.is_none()} disabled=true>{"(custom)"}</option>
                        { for presets::all().map(|p| html!{ <option value={p.id} selected={self.preset == Some(p.id)}>{ p.title.en }</option> }) }
                    </select>
                </label>
                <button onclick={link.callback(|_| Msg::Share(false))}>{"Copy link"}</button>
                <button onclick={link.callback(|_| Msg::Share(true))}>{"Copy embed code"}</button>
                <button onclick={link.callback(|_| Msg::Export)}>{"Export trace"}</button>
                <label class="file-button">{"Import…"}
                    <input type="file" accept=".json,application/json" onchange={onfile} aria-label="Import scenario or trace" data-testid="import" />
                </label>
                <button onclick={link.callback(|_| Msg::ToggleHelp)} aria-label="Keyboard shortcuts" title="Keyboard shortcuts (?)">{"?"}</button>
                <p class="hint">{ hint }{" Drag on empty canvas to cut the network; click a node to crash or recover it; right-click (or Shift-click) for more."}</p>
            </div>
        }
    }

    fn view_invariants(&self, frame: &Frame) -> Html {
        let vs = self.engine.violations();
        let row = |name: &str, ok: bool, text: String| {
            html! {
                <li class={classes!(if ok { "ok" } else { "bad" })}>
                    <span class="mark" aria-hidden="true">{ if ok { "✓" } else { "✗" } }</span>
                    <b>{ name.to_string() }</b>{" "}{ text }
                </li>
            }
        };
        // Exactly the properties the running algorithm claims, with the step of each violation.
        let claimed = self.engine.algorithm().properties.iter().map(|p| {
            let seen: Vec<&election_lab::observe::Violation> = vs.iter().filter(|v| v.kind == p.id).collect();
            let now_broken = p.id == election_lab::meta::SPLIT_BRAIN && frame.leaders.len() >= 2;
            let text = if now_broken {
                format!("no: {} lead now", nodes_text(&frame.leaders))
            } else if let Some(first) = seen.first() {
                let steps = seen.iter().take(5).map(|v| v.step.to_string()).collect::<Vec<_>>().join(", ");
                format!("violated {}× (step {steps}{}); first: {} at t={}", seen.len(), if seen.len() > 5 { ", …" } else { "" }, nodes_text(&first.nodes), first.time)
            } else {
                format!("holds so far — {} ({})", p.explain.en, p.holds.describe().en)
            };
            row(p.title.en, seen.is_empty() && !now_broken, text)
        });
        let latency = self.engine.elections().last().map(|e| format!("last election took {} ticks", e.latency())).unwrap_or_else(|| "no election has run yet".into());
        html! {
            <section class="panel" aria-label="Invariants">
                <h2>{"Invariants"}</h2>
                <ul class="invariants">
                    { for claimed }
                    { row("Agreement", frame.agreement.is_some(), match frame.agreement { Some(l) => format!("every live node names N{l}; {latency}"), None => format!("not (yet): live nodes disagree or name a dead leader; {latency}") }) }
                </ul>
            </section>
        }
    }

    fn view_inspector(&self, ctx: &Context<Self>, frame: &Frame) -> Html {
        let body = match self.selected.and_then(|id| frame.nodes.iter().find(|n| n.id == id)) {
            None => html! { <p class="empty">{"Select a node (click it, or Tab to it) to see its state. Right-click or Shift-click for more actions."}</p> },
            Some(node) => {
                let id = node.id;
                let rows = self.engine.inspect(id);
                let link = ctx.link();
                html! {
                    <>
                        <p><b>{ format!("N{id}") }</b>{ if node.up { " — up" } else { " — crashed (state kept for recovery)" } }</p>
                        <dl class="kv">{ for rows.into_iter().map(|(k, v)| html!{ <><dt>{ k }</dt><dd>{ v }</dd></> }) }</dl>
                        <div class="row">
                            <button onclick={link.callback(move |_| Msg::NodeClick(id))}>{ if node.up { "Crash" } else { "Recover" } }</button>
                            <button onclick={link.callback(move |_| Msg::Act(Action::Start(id)))} disabled={!node.up}>{"Start election here"}</button>
                            <button onclick={link.callback(move |_| Msg::Act(Action::Isolate(id)))}>{"Isolate"}</button>
                        </div>
                    </>
                }
            }
        };
        html! { <section class="panel" aria-label="Inspector"><h2>{"Inspector"}</h2>{ body }</section> }
    }

    fn view_metrics(&self) -> Html {
        let m = self.engine.metrics();
        let s = self.engine.scenario();
        let n = s.nodes.len() as u64;
        let count = |k: &str| m.by_kind.iter().find(|x| x.0 == k).map_or(0, |x| x.1);
        let formulas: Vec<(String, u64, u64)> = self
            .engine
            .algorithm()
            .formulas
            .iter()
            .map(|f| (format!("{} ({})", f.name, f.applies.en), (f.value)(n), f.counts.iter().map(|k| count(k)).sum()))
            .collect();
        html! {
            <section class="panel" aria-label="Metrics">
                <h2>{"Messages"}</h2>
                <table class="metrics">
                    <tbody>
                        { for m.by_kind.iter().map(|&(k, c)| html!{
                            <tr><td><span class="swatch" style={format!("background:{}", kind_colour(self.engine.algorithm(), k))}></span>{ k }</td><td class="num" data-kind={k}>{ c }</td></tr>
                        }) }
                        <tr class="total"><td>{"total sent"}</td><td class="num" data-testid="total-messages">{ m.total }</td></tr>
                        <tr><td>{"delivered / dropped / in flight"}</td><td class="num">{ format!("{} / {} / {}", m.delivered, m.dropped, m.in_flight) }</td></tr>
                    </tbody>
                </table>
                { for formulas.into_iter().map(|(name, value, counted)| html!{
                    <p class="formula">{ format!("Theory: {name} = {value} for N = {n}; counted here: {counted}.") }</p>
                }) }
            </section>
        }
    }

    fn view_log(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let cursor = self.engine.cursor();
        let head = self.engine.head();
        let first = cursor.saturating_sub(40).max(1);
        let last = (cursor + 12).min(head);
        let mut ivs: BTreeMap<u64, Vec<String>> = BTreeMap::new();
        for iv in self.engine.interventions() {
            ivs.entry(iv.step).or_default().push(iv.action.describe());
        }
        let mut rows = Vec::new();
        for step in first.saturating_sub(1)..=last {
            if let Some(list) = ivs.get(&step) {
                for text in list {
                    rows.push(html! { <li class="iv">{ format!("after step {step}: you — {text}") }</li> });
                }
            }
            if step == 0 {
                continue;
            }
            if let Some(info) = self.engine.step_info(step) {
                let class = classes!(info.event, (step == cursor).then_some("current"), (step > cursor).then_some("future"));
                rows.push(html! {
                    <li class={class}>
                        <button onclick={link.callback(move |_| Msg::Seek(step))} aria-current={(step == cursor).then_some("step")}>
                            <span class="step-no">{ step }</span>{ info.text }
                        </button>
                    </li>
                });
            }
        }
        html! {
            <section class="panel log" aria-label="Event log">
                <h2>{"Event log"}</h2>
                { if rows.is_empty() { html!{ <p class="empty">{"Nothing has happened yet. Press Step forward (→) or Play (Space)."}</p> } } else { html!{ <ol>{ for rows }</ol> } } }
            </section>
        }
    }

    fn view_spacetime(&self, ctx: &Context<Self>, frame: &Frame) -> Html {
        let link = ctx.link();
        let n = frame.nodes.len().max(1);
        let now = frame.time;
        let span: u64 = 30;
        let t0 = now.saturating_sub(span * 3 / 4);
        let t1 = t0 + span;
        let (w, h) = (320.0, 260.0);
        let col = |i: usize| 20.0 + (w - 40.0) * (i as f64 + 0.5) / n as f64;
        let row = |t: f64| 16.0 + (h - 24.0) * (t - t0 as f64) / span as f64;
        let index: BTreeMap<u32, usize> = frame.nodes.iter().enumerate().map(|(i, nd)| (nd.id, i)).collect();
        // Steps whose events fall in [t0, t1], up to the head.
        let mut arrows = Vec::new();
        let mut step = self.first_step_at(t0);
        let head = self.engine.head();
        while step <= head && arrows.len() < 400 {
            let Some(info) = self.engine.step_info(step) else { break };
            if info.time > t1 {
                break;
            }
            let s = step;
            let onclick = link.callback(move |_| Msg::Seek(s));
            let future = step > frame.step;
            match (info.peer, info.sent, index.get(&info.node)) {
                (Some(peer), Some(sent), Some(&ti)) => {
                    if let Some(&fi) = index.get(&peer) {
                        let colour = kind_colour(self.engine.algorithm(), info.kind.unwrap_or(""));
                        let class = classes!("st-msg", future.then_some("future"), (info.event == "drop").then_some("dropped"));
                        arrows.push(html! {
                            <line class={class} x1={fmt(col(fi))} y1={fmt(row(sent as f64))} x2={fmt(col(ti))} y2={fmt(row(info.time as f64))}
                                  stroke={colour} {onclick}><title>{ format!("step {step}: {}", info.text) }</title></line>
                        });
                    }
                }
                (_, _, Some(&i)) => arrows.push(html! {
                    <circle class={classes!("st-event", info.event, future.then_some("future"))} cx={fmt(col(i))} cy={fmt(row(info.time as f64))} r="4" {onclick}>
                        <title>{ format!("step {step}: {}", info.text) }</title>
                    </circle>
                }),
                _ => {}
            }
            step += 1;
        }
        html! {
            <section class="panel" aria-label="Space-time diagram">
                <h2>{"Space-time diagram"}</h2>
                <svg class="spacetime" viewBox={format!("0 0 {w} {h}")} role="img" aria-label={format!("Messages between t={t0} and t={t1}; click one to go to its step")}>
                    { for frame.nodes.iter().enumerate().map(|(i, nd)| html!{
                        <>
                            <line class={classes!("lifeline", (!nd.up).then_some("down"))} x1={fmt(col(i))} y1="14" x2={fmt(col(i))} y2={fmt(h)} />
                            <text class="st-head" x={fmt(col(i))} y="10" text-anchor="middle">{ format!("N{}", nd.id) }</text>
                        </>
                    }) }
                    { for arrows }
                    <line class="st-now" x1="0" x2={fmt(w)} y1={fmt(row(now as f64))} y2={fmt(row(now as f64))} />
                    <text class="st-time" x="2" y={fmt(row(now as f64) - 3.0)}>{ format!("t={now}") }</text>
                </svg>
            </section>
        }
    }

    /// First step at or after tick `t` (binary search over the records).
    fn first_step_at(&self, t: u64) -> u64 {
        let (mut lo, mut hi) = (1u64, self.engine.head() + 1);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.engine.record(mid) {
                Some(r) if r.time < t => lo = mid + 1,
                _ => hi = mid,
            }
        }
        lo
    }

    fn view_editor(&self, ctx: &Context<Self>) -> Html {
        let s = self.engine.scenario();
        let link = ctx.link();
        let onsubmit = link.callback(|e: SubmitEvent| {
            e.prevent_default();
            Msg::ApplyEditor
        });
        let text = s.to_json_pretty();
        let import = {
            let r = self.import_text.clone();
            link.batch_callback(move |_| r.cast::<HtmlTextAreaElement>().map(|t| Msg::Import(t.value())))
        };
        let nodes_text = s.nodes.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(",");
        let hb = s.heartbeats;
        html! {
            <section class="panel" aria-label="Scenario">
                <h2>{"Scenario"}</h2>
                <form ref={self.editor.clone()} class="editor" {onsubmit}>
                    <label>{"Algorithm"}
                        <select name="algorithm">
                            { for registry::all().iter().map(|a| html!{ <option value={a.id} selected={a.id == s.algorithm}>{ a.title.en }</option> }) }
                        </select>
                    </label>
                    <label>{"Nodes (a count 2–64, or ids)"}<input name="nodes" value={nodes_text} /></label>
                    <label>{"Seed"}<input name="seed" type="number" min="0" value={s.seed.to_string()} /></label>
                    <label>{"Latency min"}<input name="lat_lo" type="number" min="1" value={s.network.latency.0.to_string()} /></label>
                    <label>{"Latency max"}<input name="lat_hi" type="number" min="1" value={s.network.latency.1.to_string()} /></label>
                    <label>{"Heartbeat interval (empty: none)"}<input name="hb_interval" type="number" min="1" value={hb.map(|h| h.interval.to_string()).unwrap_or_default()} /></label>
                    <label>{"Heartbeat timeout"}<input name="hb_timeout" type="number" min="2" value={hb.map(|h| h.timeout.to_string()).unwrap_or_default()} /></label>
                    <label>{"Initial leader (empty: none)"}<input name="leader" value={s.initial_leader.map(|l| l.to_string()).unwrap_or_default()} /></label>
                    <button type="submit">{"Apply scenario"}</button>
                </form>
                <details>
                    <summary>{"Scenario / trace JSON"}</summary>
                    <textarea ref={self.import_text.clone()} class="json" aria-label="Scenario JSON" rows="10" value={text} />
                    <button onclick={import}>{"Load this JSON"}</button>
                </details>
            </section>
        }
    }

    fn read_editor(&self) -> Result<Scenario, String> {
        let form = self.editor.cast::<Element>().ok_or("the form is not on the page")?;
        let field = |name: &str| -> String {
            form.query_selector(&format!("[name={name}]"))
                .ok()
                .flatten()
                .and_then(|e| {
                    e.clone().dyn_into::<HtmlInputElement>().map(|i| i.value()).ok().or_else(|| e.dyn_into::<HtmlSelectElement>().ok().map(|s| s.value()))
                })
                .unwrap_or_default()
                .trim()
                .to_string()
        };
        let num = |name: &str, what: &str| -> Result<u64, String> { field(name).parse::<u64>().map_err(|_| format!("{what}: '{}' is not a whole number", field(name))) };
        let nodes_raw = field("nodes");
        let nodes: Vec<u64> = if nodes_raw.contains(',') || nodes_raw.contains(' ') {
            nodes_raw
                .split([',', ' '])
                .filter(|x| !x.is_empty())
                .map(|x| x.parse::<u64>().map_err(|_| format!("nodes: '{x}' is not a node id")))
                .collect::<Result<_, _>>()?
        } else {
            let count = nodes_raw.parse::<u64>().map_err(|_| format!("nodes: '{nodes_raw}' is neither a count nor a list of ids"))?;
            if !(2..=64).contains(&count) {
                return Err(format!("nodes: the count must be between 2 and 64, found {count}"));
            }
            (1..=count).collect()
        };
        if nodes.len() > 64 {
            return Err(format!("nodes: at most 64 nodes can be drawn, found {}", nodes.len()));
        }
        let mut obj = serde_json::json!({
            "algorithm": field("algorithm"),
            "nodes": nodes,
            "seed": num("seed", "seed")?,
            "network": {"latency": [num("lat_lo", "latency min")?, num("lat_hi", "latency max")?]},
            "stop": {"max_time": 400},
        });
        if !field("hb_interval").is_empty() {
            obj["heartbeats"] = serde_json::json!({"interval": num("hb_interval", "heartbeat interval")?, "timeout": num("hb_timeout", "heartbeat timeout")?});
        }
        if !field("leader").is_empty() {
            obj["initial_leader"] = serde_json::json!(num("leader", "initial leader")?);
        }
        Scenario::from_value(&obj).map_err(|e| e.to_string())
    }

    fn view_share(&self, ctx: &Context<Self>) -> Html {
        let Some((title, text)) = &self.share else { return html! {} };
        let link = ctx.link();
        html! {
            <div class="overlay" role="dialog" aria-modal="true" aria-label={title.clone()} onclick={link.callback(|_| Msg::CloseShare)}>
                <div class="dialog" onclick={Callback::from(|e: MouseEvent| e.stop_propagation())}>
                    <h2>{ title.clone() }</h2>
                    <p>{"Copied to the clipboard (if the browser allowed it). It opens this exact scenario at this exact step."}</p>
                    <textarea readonly=true rows="4" data-testid="share-text" value={text.clone()} />
                    <button onclick={link.callback(|_| Msg::CloseShare)}>{"Close"}</button>
                </div>
            </div>
        }
    }

    fn view_help(&self, ctx: &Context<Self>) -> Html {
        if !self.help {
            return html! {};
        }
        let link = ctx.link();
        let keys = [
            ("Space", "play / pause"),
            ("← / →", "step back / forward"),
            ("Home / End", "first step / last computed step"),
            ("R", "reset (drop your interventions)"),
            ("+ / −", "faster / slower"),
            ("Tab, Enter", "focus a node, crash or recover it"),
            ("M or right-click", "node menu: start election, isolate"),
            ("S (on a node)", "start an election there"),
            ("C", "remove all partition lines"),
            ("?", "this help"),
            ("Esc", "close menus and dialogs"),
        ];
        html! {
            <div class="overlay" role="dialog" aria-modal="true" aria-label="Keyboard shortcuts" onclick={link.callback(|_| Msg::ToggleHelp)}>
                <div class="dialog">
                    <h2>{"Keyboard shortcuts"}</h2>
                    <dl class="kv">{ for keys.iter().map(|(k, v)| html!{ <><dt><kbd>{ *k }</kbd></dt><dd>{ *v }</dd></> }) }</dl>
                    <p>{"Mouse: drag on empty canvas to draw a partition line; drag a line to move it; double-click it (or its ✕) to remove it."}</p>
                </div>
            </div>
        }
    }

    fn key(&mut self, ctx: &Context<Self>, e: KeyboardEvent) -> bool {
        if e.ctrl_key() || e.meta_key() || e.alt_key() {
            return false;
        }
        // Leave typing in form fields alone.
        if let Some(t) = e.target().and_then(|t| t.dyn_into::<Element>().ok()) {
            let tag = t.tag_name().to_lowercase();
            if tag == "input" || tag == "textarea" || tag == "select" {
                return false;
            }
        }
        let msg = match e.key().as_str() {
            " " => Msg::TogglePlay,
            "ArrowRight" => Msg::StepForward,
            "ArrowLeft" => Msg::StepBack,
            "Home" => Msg::Home,
            "End" => Msg::End,
            "r" | "R" => Msg::Reset,
            "?" => Msg::ToggleHelp,
            "c" | "C" if !self.embed => Msg::ClearLines,
            "+" | "=" => Msg::Speed(SPEEDS.iter().map(|s| s.0).find(|&s| s > self.speed + 1e-9).unwrap_or(self.speed)),
            "-" => Msg::Speed(SPEEDS.iter().rev().map(|s| s.0).find(|&s| s < self.speed - 1e-9).unwrap_or(self.speed)),
            "Escape" => {
                self.help = false;
                self.share = None;
                self.menu = None;
                self.drag = None;
                return true;
            }
            _ => return false,
        };
        e.prevent_default();
        <Self as Component>::update(self, ctx, msg)
    }
}

fn icon(d: &'static str) -> Html {
    html! { <svg class="icon" viewBox="0 0 24 24" width="18" height="18" aria-hidden="true"><path d={d} /></svg> }
}

fn fmt(v: f64) -> String {
    format!("{v:.1}")
}
