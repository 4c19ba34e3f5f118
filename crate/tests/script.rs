//! Scripted algorithms: each template equals its built-in counterpart on every one of the
//! built-in's presets (leaders, message counts by kind, claimed-property verdicts, and here the
//! trace hash and, for Bully, the narration of every step too), and hostile scripts are stopped
//! with a message.
#![cfg(feature = "script")]

use election_lab::meta::Lang;
use election_lab::protocols::script;
use election_lab::registry;
use election_lab::Engine;

const BULLY: &str = include_str!("../scripts/bully.rhai");
const CHANG_ROBERTS: &str = include_str!("../scripts/chang_roberts.rhai");
const RAFT: &str = include_str!("../scripts/raft.rhai");

struct Outcome {
    leaders: Vec<u32>,
    counts: Vec<(&'static str, u64)>,
    verdicts: Vec<(String, u64, Vec<u32>)>,
    narration: Vec<Option<String>>,
    steps: u64,
    hash: String,
    views: Vec<election_lab::run::NodeFrame>,
}

fn outcome(e: &mut Engine) -> Outcome {
    e.run_to_end();
    assert_eq!(e.halted(), None, "the run ends by itself");
    let verdicts = e.all_violations().iter().map(|v| (v.kind.to_string(), v.step, v.nodes.clone())).collect();
    let narration = (1..=e.cursor()).map(|k| e.narrate(k, Lang::En)).collect();
    let hash = format!("{:016x}", e.trace_hash());
    Outcome {
        leaders: e.frame().leaders,
        counts: e.metrics().by_kind,
        verdicts,
        narration,
        steps: e.cursor(),
        hash,
        views: e.frame().nodes,
    }
}

/// Runs every preset of `builtin` natively and with `source` (as given, and with each of
/// `variants` of its parameters), and compares them.
fn same_as_builtin(builtin: &str, source: &str, same_narration: bool, variants: &[serde_json::Value]) {
    let scripted = script::load(source).unwrap_or_else(|e| panic!("the template loads: {e}"));
    let algorithm = registry::find(builtin).expect("the built-in");
    assert!(!algorithm.presets.is_empty());
    let claims = |a: &election_lab::algorithm::Algorithm| -> Vec<(&str, election_lab::meta::Faults)> {
        a.properties.iter().map(|p| (p.id, p.holds)).collect()
    };
    assert_eq!(claims(scripted), claims(algorithm), "the same claimed properties");
    let kinds = |a: &election_lab::algorithm::Algorithm| -> Vec<(&str, &str)> {
        a.kinds.iter().map(|k| (k.name, k.visual.name())).collect()
    };
    // The built-in's kinds, less those of an option the template does not offer (Raft's
    // pre-vote, off by default: no preset sends them).
    let offered = |a: &election_lab::algorithm::Algorithm| -> Vec<(&str, &str)> {
        kinds(a).into_iter().filter(|(name, _)| !name.starts_with("PRE_VOTE")).collect()
    };
    assert_eq!(kinds(scripted), offered(algorithm), "the same kinds and visual roles");
    let plain = serde_json::json!({});
    for (preset, params) in
        algorithm.presets.iter().flat_map(|p| std::iter::once(&plain).chain(variants).map(move |v| (p, v)))
    {
        let mut base = preset.scenario();
        for (k, v) in params.as_object().unwrap() {
            base.params.insert(k.clone(), v.clone());
        }
        let mut a = Engine::new(base.clone()).unwrap();
        let mut s = base;
        s.algorithm = scripted.id.to_string();
        let mut b = Engine::new(s).unwrap_or_else(|e| panic!("{}: {e}", preset.id));
        let (x, y) = (outcome(&mut a), outcome(&mut b));
        assert_eq!(x.leaders, y.leaders, "{} {params}: leaders", preset.id);
        if params.as_object().unwrap().is_empty() {
            assert_eq!(x.leaders, preset.leaders, "{}: the preset's leaders", preset.id);
            // The trace hash covers events, deliveries, timers and faults, not names: the
            // script's run is the built-in's, step for step, and replays to the preset's golden
            // hash (which the page's wasm build checks too).
            assert_eq!(y.hash, preset.golden, "{}: the scripted run hashes to the preset's golden hash", preset.id);
        }
        assert_eq!(x.hash, y.hash, "{} {params}: trace hashes", preset.id);
        // The built-in counts every kind it has, the pre-vote's too (none sent with it off).
        let builtin_counts: Vec<_> =
            x.counts.iter().filter(|(name, n)| !(name.starts_with("PRE_VOTE") && *n == 0)).cloned().collect();
        assert_eq!(builtin_counts, y.counts, "{} {params}: message counts by kind", preset.id);
        assert_eq!(x.verdicts, y.verdicts, "{} {params}: violations of the claimed properties", preset.id);
        assert_eq!(x.steps, y.steps, "{}: steps", preset.id);
        assert_eq!(
            x.views, y.views,
            "{} {params}: the nodes' views at the end (role, leader, term, vote, tally)",
            preset.id
        );
        if same_narration {
            for (k, (p, q)) in x.narration.iter().zip(&y.narration).enumerate() {
                assert_eq!(p, q, "{}: the narration of step {}", preset.id, k + 1);
            }
        }
    }
}

#[test]
fn the_bully_template_equals_the_builtin_on_every_preset() {
    same_as_builtin("bully", BULLY, true, &[serde_json::json!({"t_out": 4, "t_coord": 9})]);
}

#[test]
fn the_chang_roberts_template_equals_the_builtin_on_every_preset() {
    let variants = [serde_json::json!({"suppress_initiators": true}), serde_json::json!({"retry": 25})];
    same_as_builtin("chang-roberts", CHANG_ROBERTS, false, &variants);
}

#[test]
fn the_raft_template_equals_the_builtin_on_every_preset() {
    let variants = [
        serde_json::json!({"election_timeout": [5, 30]}),
        serde_json::json!({"log": {"1": [3, 2], "2": [1, 1]}, "ack_window": 9}),
    ];
    same_as_builtin("raft", RAFT, true, &variants);
}

#[test]
fn a_script_run_is_deterministic_and_hashes_its_states() {
    let scripted = script::load(BULLY).unwrap();
    let preset = registry::find("bully").unwrap().preset("bully-heal").unwrap();
    let hash = || {
        let mut s = preset.scenario();
        s.algorithm = scripted.id.to_string();
        let mut e = Engine::new(s).unwrap();
        e.run_to_end();
        (e.trace_hash(), e.cursor())
    };
    assert_eq!(hash(), hash());
    assert_eq!(script::load(BULLY).unwrap() as *const _, scripted as *const _, "loading again reuses the descriptor");
}

fn run_script(source: &str) -> Result<Engine, String> {
    let a = script::load(source).map_err(|e| e.to_string())?;
    let mut s = registry::find("bully").unwrap().preset("bully-worst-8").unwrap().scenario();
    s.algorithm = a.id.to_string();
    let mut e = Engine::new(s).map_err(|e| e.to_string())?;
    e.run_to_end();
    Ok(e)
}

/// A script whose `on_start` is `body`, declared under `id`.
fn hostile(id: &str, body: &str) -> String {
    format!(
        "fn on_start() {{\n{body}\n}}\nfn deep(n) {{ deep(n + 1) }}\n#{{ id: \"{id}\", title: \"t\", kinds: [#{{ name: \"X\" }}] }}"
    )
}

#[test]
fn hostile_scripts_are_stopped_at_their_step_with_node_handler_line_and_column() {
    let cases = [
        ("loop", "    let x = 0;\n    loop { x += 1; }", "ran out of its budget of", "line 3"),
        ("empty-loop", "    loop { }", "ran out of its budget of", "on_start"),
        ("recursion", "    deep(0);", "calls nested deeper than", "line 4"),
        ("huge", "    let s = \"x\"; loop { s += s; }", "too large", "line 2"),
        ("array", "    let a = []; loop { a.push(1); }", "too large", "line 2"),
        ("kind", "    send(1, \"NOPE\");", "unknown message kind `NOPE`", "line 2, column 5"),
        ("field", "    let m = #{}; let x = m.nope;", "nope", "line 2"),
    ];
    for (id, body, says, at) in cases {
        let e = run_script(&hostile(&format!("hostile-{id}"), body)).unwrap();
        let why = e.halted().unwrap_or_else(|| panic!("{id}: the run is stopped"));
        assert!(why.contains(says), "{id}: {why}");
        assert!(why.contains(at), "{id}: {why}");
        assert!(why.contains("N1, t=0, ") && why.contains("on_start"), "{id}: names the node and handler: {why}");
        // The run so far survives: the crash at t=0 and the failing step are there.
        assert!(e.cursor() >= 1, "{id}");
    }
}

#[test]
fn syntax_and_declaration_errors_name_line_and_column() {
    let e = script::load("fn init() {\n  let x = ;\n}\n#{ id: \"bad\" }").unwrap_err();
    assert_eq!((e.line, e.column), (Some(2), Some(11)), "{e}");
    assert!(e.to_string().starts_with("line 2, column 11: syntax error"), "{e}");
    let e = script::load("#{ id: \"bully\", title: \"x\", kinds: [#{ name: \"A\" }] }").unwrap_err();
    assert!(e.message.contains("built-in"), "{e}");
    let e = script::load("#{ id: \"v\", title: \"x\", kinds: [#{ name: \"A\", visual: \"shout\" }] }").unwrap_err();
    assert!(e.message.contains("kinds[0].visual") && e.message.contains("request"), "{e}");
    let e = script::load("loop {}").unwrap_err();
    assert!(e.message.contains("budget"), "{e}");
    let e = script::load("fn on_message(m) {}\n#{ id: \"ar\", title: \"x\", kinds: [#{ name: \"A\" }] }").unwrap_err();
    assert!(e.message.contains("on_message") && e.message.contains("from, msg"), "{e}");
}

#[test]
fn parameters_are_checked_by_name() {
    let a = script::load(BULLY).unwrap();
    let mut s = registry::find("bully").unwrap().preset("bully-worst-8").unwrap().scenario();
    s.algorithm = a.id.to_string();
    s.params.insert("t_outt".into(), 3.into());
    let Err(e) = Engine::new(s.clone()) else { panic!("an unknown parameter is refused") };
    assert!(e.to_string().contains("params.t_outt"), "{e}");
    s.params.remove("t_outt");
    s.params.insert("t_out".into(), 0.into());
    let Err(e) = Engine::new(s) else { panic!("t_out = 0 is refused by the script's configure") };
    assert!(e.to_string().contains("params.t_out") && e.to_string().contains("at least 1 tick"), "{e}");
}

/// A run stopped by a failing handler can still be seeked back and replayed, and a fork before
/// the failure runs on: the failure belonged to the discarded future.
#[test]
fn a_failed_run_seeks_back_and_forks_before_the_failure() {
    // N3 fails when it receives ELECTION from N1 (at t = 1 or later).
    let src = BULLY.replace("bully-script", "bully-fails-at-n3").replace(
        "fn on_message(from, msg) {\n    let me = me();",
        "fn on_message(from, msg) {\n    let me = me();\n    if me == 3 && msg.kind == \"ELECTION\" { let m = #{}; m.boom; }",
    );
    let a = script::load(&src).unwrap();
    let mut s = registry::find("bully").unwrap().preset("bully-worst-8").unwrap().scenario();
    s.algorithm = a.id.to_string();
    let mut e = Engine::new(s).unwrap();
    e.run_to_end();
    let why = e.fault().expect("the run failed");
    assert!(why.contains("N3") && why.contains("on_message(ELECTION from N"), "{why}");
    let failed_at = e.cursor();
    let frame = e.frame();
    e.seek(1);
    e.seek(failed_at);
    assert_eq!(e.frame(), frame, "a replay to the failing step gives the same picture");
    assert!(e.fault().is_some());
    // Crash N3 before its first delivery: the failure never happens and the run goes on.
    e.seek(8);
    e.apply(election_lab::Action::Crash(3)).unwrap();
    assert_eq!(e.fault(), None, "the fork discarded the failure");
    e.run_to_end();
    assert_eq!(e.fault(), None);
    assert_eq!(e.frame().leaders, vec![7]);
}

/// `view()` is not run again while `this` stays the same (its last result is reused), except
/// when it read the clock or set the role itself: then it runs after every handler. Here the
/// timer changes nothing in `this`, and the role still follows the clock.
#[test]
fn a_view_that_reads_the_clock_runs_after_every_handler() {
    let src = "fn init() { this.x = 1; set_timer(\"T\", 5); }\n\
               fn on_timer(name) { this.x = 1; }\n\
               fn view() { #{ role: if now() >= 5 { \"candidate\" } else { \"follower\" } } }\n\
               #{ id: \"clock-view\", title: \"t\", kinds: [#{ name: \"X\" }], timers: [\"T\"] }";
    let e = run_script(src).unwrap();
    assert_eq!(e.halted(), None);
    let up: Vec<_> = e.frame().nodes.into_iter().filter(|n| n.up).collect();
    assert!(!up.is_empty());
    for n in up {
        assert_eq!(n.view.role, "candidate", "N{} at t=5 and later", n.id);
    }
}
