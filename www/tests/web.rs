//! Browser tests (wasm-bindgen-test in headless Chromium): the engine gives the same trace hashes
//! in wasm as natively, the mounted app toggles a node's crashed state on a click, two canvases
//! share a page without interfering, and stepping redraws only what changed.
#![cfg(target_arch = "wasm32")]

use election_lab::{presets, Engine};
use election_lab_www::anim::Dots;
use election_lab_www::app::{canvas_of, Gestures};
use election_lab_www::components::NodeGesture;
use election_lab_www::probe::renders;
use election_lab_www::state::State;
use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::Element;
use yew::prelude::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn trace_hashes_match_the_native_ones() {
    // Every preset of every registered algorithm: the wasm build replays to the same golden
    // hash the native conformance suite checks.
    let table = election_lab_www::golden::table();
    assert!(table.len() >= 10, "golden table is empty");
    for (id, expected) in table {
        assert_eq!(election_lab_www::golden::preset_hash(id), expected, "preset {id}");
    }
}

#[wasm_bindgen_test]
async fn clicking_a_node_toggles_it() {
    let document = web_sys::window().unwrap().document().unwrap();
    let root = document.create_element("div").unwrap();
    document.body().unwrap().append_child(&root).unwrap();
    election_lab_www::mount(root.clone());
    yew::platform::time::sleep(std::time::Duration::from_millis(50)).await;
    let node = root.query_selector("[data-node=\"80\"]").unwrap().expect("node 80 drawn");
    assert_eq!(node.get_attribute("data-status").as_deref(), Some("up"));
    let event = web_sys::MouseEvent::new("click").unwrap();
    node.dispatch_event(&event).unwrap();
    yew::platform::time::sleep(std::time::Duration::from_millis(50)).await;
    let node = root.query_selector("[data-node=\"80\"]").unwrap().unwrap();
    assert_eq!(node.get_attribute("data-status").as_deref(), Some("crashed"));
    let _ = node.dyn_into::<web_sys::Element>();
}

fn fresh_root() -> Element {
    let window = web_sys::window().unwrap();
    // Each app rewrites the URL; start every mount from a page without a query.
    let _ = window.history().unwrap().replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some("?"));
    let document = window.document().unwrap();
    let root = document.create_element("div").unwrap();
    document.body().unwrap().append_child(&root).unwrap();
    root
}

async fn settle() {
    yew::platform::time::sleep(Duration::from_millis(50)).await;
}

fn click(el: &Element) {
    el.dispatch_event(&web_sys::MouseEvent::new("click").unwrap()).unwrap();
}

/// Gestures reported by one lane's canvas: node ids in order.
#[derive(Clone, Default)]
struct Reported(Rc<RefCell<Vec<u32>>>);

impl PartialEq for Reported {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

#[derive(Properties, PartialEq)]
struct LaneProps {
    lane: &'static str,
    preset: &'static str,
    step: u64,
    reported: Reported,
}

/// One canvas with its own engine: node clicks are recorded, then crash the node in this lane.
#[function_component]
fn Lane(p: &LaneProps) -> Html {
    let (preset, step) = (p.preset, p.step);
    let state = use_reducer(move || {
        let mut engine = Engine::new(presets::find(preset).unwrap().scenario()).unwrap();
        engine.seek(step);
        State::new(engine, Some(preset), false)
    });
    let dots = use_memo((), |_| Dots::default());
    let gestures = {
        let on = state.dispatcher().to_callback();
        let reported = p.reported.clone();
        use_memo((), move |_| {
            let mut g = Gestures::to(&on);
            let forward = g.on_node.clone();
            g.on_node = Callback::from(move |gesture: NodeGesture| {
                if let NodeGesture::Toggle(id) | NodeGesture::Menu(id) = gesture {
                    reported.0.borrow_mut().push(id);
                }
                forward.emit(gesture);
            });
            g
        })
    };
    html! { <div class={format!("lane {}", p.lane)}>{ canvas_of(&state, p.lane, &dots, &gestures) }</div> }
}

#[derive(Properties, PartialEq)]
struct PairProps {
    left: Reported,
    right: Reported,
}

#[function_component]
fn Pair(p: &PairProps) -> Html {
    html! {
        <>
            <Lane lane="left" preset="split-brain-bully" step={30} reported={p.left.clone()} />
            <Lane lane="right" preset="split-brain-raft" step={30} reported={p.right.clone()} />
        </>
    }
}

/// (node id, data-role, data-status) of every node drawn in `svg`.
fn drawn(svg: &Element) -> Vec<(u32, String, String)> {
    let list = svg.query_selector_all("[data-node]").unwrap();
    (0..list.length())
        .map(|i| {
            let e: Element = list.item(i).unwrap().dyn_into().unwrap();
            let attr = |k: &str| e.get_attribute(k).unwrap_or_default();
            (attr("data-node").parse().unwrap(), attr("data-role"), attr("data-status"))
        })
        .collect()
}

/// Text of the elements matching `selector` in `root`.
fn texts(root: &Element, selector: &str) -> Vec<String> {
    let list = root.query_selector_all(selector).unwrap();
    (0..list.length()).map(|i| list.item(i).unwrap().text_content().unwrap_or_default()).collect()
}

/// What the engine says the same nodes are at `step`.
fn expected(preset: &str, step: u64) -> Vec<(u32, String, String)> {
    let mut e = Engine::new(presets::find(preset).unwrap().scenario()).unwrap();
    e.seek(step);
    e.frame()
        .nodes
        .iter()
        .map(|n| {
            (
                n.id,
                if n.up { n.view.role } else { "crashed" }.to_string(),
                if n.up { "up" } else { "crashed" }.to_string(),
            )
        })
        .collect()
}

#[wasm_bindgen_test]
async fn two_canvases_on_one_page_do_not_interfere() {
    let root = fresh_root();
    let (left, right) = (Reported::default(), Reported::default());
    yew::Renderer::<Pair>::with_root_and_props(root.clone(), PairProps { left: left.clone(), right: right.clone() })
        .render();
    settle().await;
    let svg =
        |lane: &str| root.query_selector(&format!("svg.canvas[data-lane=\"{lane}\"]")).unwrap().expect("canvas drawn");
    let (l, r) = (svg("left"), svg("right"));

    // Each canvas draws its own engine's frame: same node ids, different algorithms.
    assert_eq!(drawn(&l), expected("split-brain-bully", 30));
    assert_eq!(drawn(&r), expected("split-brain-raft", 30));
    // Raft nodes show their term; Bully nodes have none. Message dots are of each lane's own kinds.
    assert!(texts(&r, "text.sub").iter().any(|t| t.starts_with("t1")), "right: raft terms shown");
    assert!(!texts(&l, "text.sub").iter().any(|t| t.starts_with('t')), "left: no terms in bully");
    for (svg, preset) in [(&l, "split-brain-bully"), (&r, "split-brain-raft")] {
        let kinds = Engine::new(presets::find(preset).unwrap().scenario()).unwrap().kinds();
        let list = svg.query_selector_all("[data-msg]").unwrap();
        for i in 0..list.length() {
            let kind = list.item(i).unwrap().dyn_into::<Element>().unwrap().get_attribute("data-msg").unwrap();
            assert!(kinds.iter().any(|k| k.name == kind), "{preset}: a {kind} dot");
        }
    }
    assert!(l.get_attribute("aria-label").unwrap().starts_with("Bully cluster of 5 nodes at step 30"));
    assert!(r.get_attribute("aria-label").unwrap().starts_with("Raft-style quorum cluster of 5 nodes at step 30"));

    // Element ids are per canvas: no id appears twice on the page.
    let ids = root.query_selector_all("[id]").unwrap();
    let mut seen: Vec<String> =
        (0..ids.length()).map(|i| ids.item(i).unwrap().dyn_into::<Element>().unwrap().id()).collect();
    let n = seen.len();
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), n, "duplicate element ids: {seen:?}");
    assert!(seen.contains(&"left-arrow".to_string()) && seen.contains(&"right-arrow".to_string()));

    // A click in the left canvas is reported by the left canvas only, and crashes N5 there only.
    click(&l.query_selector("[data-node=\"5\"]").unwrap().unwrap());
    settle().await;
    assert_eq!(*left.0.borrow(), vec![5]);
    assert!(right.0.borrow().is_empty());
    let status = |svg: &Element, id: u32| drawn(svg).into_iter().find(|x| x.0 == id).unwrap().2;
    assert_eq!(status(&l, 5), "crashed");
    assert_eq!(status(&r, 5), "up");
    assert_eq!(drawn(&r), expected("split-brain-raft", 30), "the right lane is untouched");

    // And the other way round.
    click(&r.query_selector("[data-node=\"2\"]").unwrap().unwrap());
    settle().await;
    assert_eq!(*right.0.borrow(), vec![2]);
    assert_eq!(*left.0.borrow(), vec![5]);
    assert_eq!(status(&r, 2), "crashed");
    assert_eq!(status(&l, 2), expected("split-brain-bully", 30).into_iter().find(|x| x.0 == 2).unwrap().2);
}

#[wasm_bindgen_test]
async fn stepping_redraws_only_what_changed() {
    let root = fresh_root();
    election_lab_www::mount(root.clone());
    settle().await;
    let count = || ["editor", "scenario-bar", "markers", "help", "canvas", "controls"].map(renders);
    // The side panels (the editor among them) come one frame after the first paint.
    for _ in 0..100 {
        if renders("editor") > 0 {
            break;
        }
        settle().await;
    }
    let before = count();
    let forward = root.query_selector("button[aria-label=\"Step forward\"]").unwrap().expect("step button");
    for _ in 0..3 {
        click(&forward);
        settle().await;
    }
    assert_eq!(root.query_selector("[data-testid=step]").unwrap().unwrap().text_content().as_deref(), Some("3"));
    let after = count();
    assert_eq!(after[..4], before[..4], "editor, scenario bar, timeline markers and help stay as they were");
    assert!(after[4] >= before[4] + 3 && after[5] >= before[5] + 3, "canvas and controls follow the step");
    assert!(before[0] >= 1, "the editor was drawn once");

    // Playing: the canvas follows the steps; the editor and the scenario bar still do not.
    let button = |label: &str| root.query_selector(&format!("button[aria-label=\"{label}\"]")).unwrap().expect(label);
    click(&button("Play"));
    yew::platform::time::sleep(Duration::from_millis(1500)).await;
    click(&button("Pause"));
    settle().await;
    let played = count();
    let step: u64 =
        root.query_selector("[data-testid=step]").unwrap().unwrap().text_content().unwrap().parse().unwrap();
    assert!(step > 3, "playing moved the cursor");
    assert_eq!(played[..2], before[..2], "editor and scenario bar not redrawn while playing");
    assert!(played[4] > after[4]);
}
