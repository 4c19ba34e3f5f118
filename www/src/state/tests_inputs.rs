//! Bad inputs in the page: links, imports and runs that once broke it are refused or stopped
//! with a message naming why, and the page goes on with a drawn run.

use super::*;
use election_lab::sim::Budget;
use serde_json::json;

use crate::state::tests::run;

/// The recorded etcd run with a message received 2⁶⁴−1 ticks after it was sent, as a trace.
fn late_message() -> String {
    let mut s = presets::find("etcd-leader-killed").unwrap().scenario().to_value();
    s["params"]["messages"][2]["received"] = json!(u64::MAX);
    json!({"format": "election-lab-trace/2", "scenario": s, "interventions": []}).to_string()
}

#[test]
fn a_link_or_import_of_a_message_received_too_late_is_named_and_the_page_draws_on() {
    let q = format!("?t={}", election_lab::link::pack(&late_message()).unwrap());
    let s = Rc::new(State::open(&q));
    let alert = s.messages.alert.as_deref().unwrap();
    assert!(alert.starts_with("link: scenario.params.messages[2].received: "), "{alert}");
    assert_eq!(s.preset, Some(presets::DEFAULT), "the default scenario instead");
    assert!(!s.frame.nodes.is_empty() && s.head > 0, "drawn and computed");
    let s = run(Rc::new(State::open("?preset=ring-best")), [Action::Import(late_message())]);
    let alert = s.messages.alert.as_deref().unwrap();
    assert!(alert.starts_with("Import failed, nothing changed: scenario.params.messages[2].received"), "{alert}");
    assert_eq!(s.preset, Some("ring-best"));
}

#[test]
fn a_scenario_file_that_is_not_utf8_is_refused_by_name() {
    let mut bytes = presets::find("ring-best").unwrap().scenario().to_json_pretty().into_bytes();
    bytes.insert(10, 0xff);
    let s = run(
        Rc::new(State::open("?preset=bully-heartbeats")),
        [Action::ImportBytes(vec![("x.json".into(), Some(bytes))])],
    );
    assert_eq!(
        s.messages.alert.as_deref(),
        Some("Import failed, nothing changed: x.json: not UTF-8 text (the first bad byte is at offset 10)")
    );
    assert_eq!(s.preset, Some("bully-heartbeats"), "nothing changed");
    // Text that is UTF-8 imports as before.
    let text = presets::find("ring-best").unwrap().scenario().to_json_pretty().into_bytes();
    let s = run(Rc::new(State::open("")), [Action::ImportBytes(vec![("x.json".into(), Some(text))])]);
    assert_eq!(s.messages.notice.as_deref(), Some("Imported."));
}

/// Logs are read by the shipped mappings, which only the workbench has.
#[cfg(feature = "mappings")]
#[test]
fn a_damaged_byte_in_a_log_is_replaced_as_the_cli_does() {
    // A damaged byte in a log is replaced, as `election-lab import` does: the logs still open.
    let mut logs = vec![];
    for name in ["a.log", "b.log", "c.log"] {
        let text = std::fs::read(format!("{}/../crate/tests/data/real/etcd-zap/{name}", env!("CARGO_MANIFEST_DIR")));
        logs.push((name.to_string(), Some(text.unwrap())));
    }
    logs[0].1.as_mut().unwrap().extend_from_slice(b"\xff\n");
    let s = run(Rc::new(State::open("?preset=ring-best")), [Action::ImportBytes(logs)]);
    assert_eq!(s.scenario.algorithm, "etcd-log", "{:?}", s.messages.alert);
}

#[test]
fn a_file_the_browser_could_not_read_is_refused_by_name_and_nothing_changes() {
    // A file deleted between the picker and the read: the browser gives no bytes.
    let logs = vec![("a.log".to_string(), Some(b"x\n".to_vec())), ("gone.json".to_string(), None)];
    let s = run(Rc::new(State::open("?preset=bully-heartbeats")), [Action::ImportBytes(logs)]);
    let alert = s.messages.alert.as_deref().unwrap_or_default();
    assert!(alert.starts_with("Import failed, nothing changed: gone.json: the browser could not read"), "{alert}");
    assert_eq!(s.preset, Some("bully-heartbeats"), "nothing changed");
}

#[test]
fn a_run_stopped_by_the_history_budget_says_so() {
    // The tab's budget (the default in wasm32) is far above every preset.
    assert!(presets::all().all(|p| {
        let mut e = Engine::new(p.scenario()).unwrap();
        e.run_to_end();
        e.head() < Budget::TAB.steps / 100
    }));
    let mut e = Engine::new(presets::find("gossip-16").unwrap().scenario()).unwrap();
    e.set_budget(Budget { steps: 300, messages: 100_000 });
    let s = State::new(e, None, false);
    assert_eq!(s.head, 300);
    assert_eq!(
        s.messages.notice.as_deref(),
        Some("The run stops at step 300: a browser tab keeps the history of at most 300 steps and 100000 messages. The command line (election-lab run) goes further.")
    );
    // Only when the head gets there: stepping back and forth does not say it again.
    let s = run(Rc::new(s), [Action::Dismiss, Action::StepForward, Action::Seek(0)]);
    assert_eq!(s.messages.notice, None);
}

#[test]
fn the_presenter_view_opens_from_its_link_keeps_it_and_escape_leaves_it_after_the_menus() {
    let s = Rc::new(State::open_in("?preset=ring-best&step=2&present=1", None));
    assert!(s.present);
    assert!(s.query(false).ends_with("&present=1"), "{}", s.query(false));
    // Escape closes an open menu first, then leaves the view.
    let s = run(s, [Action::NodeMenu(1), Action::Escape]);
    assert!(s.present && s.selection.menu.is_none());
    let s = run(s, [Action::Escape]);
    assert!(!s.present && !s.query(false).contains("present"));
    let s = run(s, [Action::TogglePresent]);
    assert!(s.present);
    // An embed is never a presenter view.
    let e = Rc::new(State::open_in("?preset=ring-best&embed=1&present=1", None));
    assert!(!e.present && !run(e, [Action::TogglePresent]).present);
}
