//! Browser tests (wasm-bindgen-test in headless Chromium): the engine gives the same trace hashes
//! in wasm as natively, and the mounted app toggles a node's crashed state on a click.
#![cfg(target_arch = "wasm32")]

use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

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
