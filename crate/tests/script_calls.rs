//! Handler calls are independent of one another although the interpreter's state (its function
//! table and function-resolution cache) is kept from one call to the next: a variable made in
//! one handler is not seen by the next, each call has its own budget of operations, and a
//! handler may nest calls as deep as the limit says, however many calls came before.
#![cfg(feature = "script")]

use election_lab::protocols::script;
use election_lab::{registry, Engine};

/// Runs `source` on Bully's worst case with 8 nodes (every node but the crashed N8 starts).
fn run(source: &str) -> Engine {
    let a = script::load(source).unwrap_or_else(|e| panic!("the script loads: {e}"));
    let mut s = registry::find("bully").unwrap().preset("bully-worst-8").unwrap().scenario();
    s.algorithm = a.id.to_string();
    let mut e = Engine::new(s).unwrap();
    e.run_to_end();
    e
}

#[test]
fn a_variable_made_in_one_handler_is_not_seen_by_the_next() {
    let probe = "fn on_start() { let leaked = 1; set_timer(\"T\", 1); }\n\
                 fn on_timer(name) { if is_def_var(\"leaked\") { throw \"on_start's variable is still there\"; } }\n\
                 #{ id: \"calls-leak\", title: \"t\", kinds: [#{ name: \"X\" }], timers: [\"T\"] }";
    let e = run(probe);
    assert_eq!(e.halted(), None);
    assert!(e.cursor() >= 14, "every node started and its timer fired: {} steps", e.cursor());
    // The probe does see a variable of its own handler.
    let e = run(&probe
        .replace("calls-leak", "calls-leak-own")
        .replace("set_timer(\"T\", 1);", "if is_def_var(\"leaked\") { throw \"seen\"; }"));
    let why = e.halted().expect("the probe sees its own variable");
    assert!(why.contains("on_start: seen"), "{why}");
}

#[test]
fn each_handler_call_has_its_own_budget() {
    // Each call takes well over a tenth of the budget, and each node makes twelve: one budget
    // for all of them would run out.
    let src = "fn on_start() { this.left = 12; this.on_timer(\"T\"); }\n\
               fn on_timer(name) {\n    let x = 0; for i in 0..60000 { x += i; }\n    this.left -= 1;\n    if this.left > 0 { set_timer(\"T\", 1); }\n}\n\
               #{ id: \"calls-budget\", title: \"t\", kinds: [#{ name: \"X\" }], timers: [\"T\"] }";
    let e = run(src);
    assert_eq!(e.halted(), None, "no call ran out of its budget");
    // And one call over it is stopped, with its line.
    let e = run(&src.replace("calls-budget", "calls-budget-over").replace("0..60000", "0..600000"));
    let why = e.halted().expect("a call over its budget is stopped");
    assert!(why.contains("ran out of its budget") && why.contains("line 3"), "{why}");
}

#[test]
fn every_call_may_nest_as_deep_as_the_limit() {
    let deep = |id: &str, depth: usize| {
        format!(
            "fn deep(n) {{ if n > 0 {{ deep(n - 1) }} }}\n\
             fn on_start() {{ deep({depth}); set_timer(\"T\", 1); }}\n\
             fn on_timer(name) {{ deep({depth}); }}\n\
             #{{ id: \"{id}\", title: \"t\", kinds: [#{{ name: \"X\" }}], timers: [\"T\"] }}"
        )
    };
    let levels = script::LIMITS.call_levels;
    // The handler is the first level: `deep(levels - 1)` nests `levels` calls below it.
    let e = run(&deep("calls-depth", levels - 1));
    assert_eq!(e.halted(), None, "{levels} nested calls are allowed in every handler call");
    let e = run(&deep("calls-depth-over", levels));
    let why = e.halted().expect("one more level is refused");
    assert!(why.contains("calls nested deeper than") && why.contains("on_start"), "{why}");
}

/// A handler that fails changes nothing in `this`, also when it had changed, added and pushed
/// into fields before failing, and when its state came from a `view()` that is remembered (the
/// handler then works on the state's own map and the remembered copy puts it back).
#[test]
fn a_failed_handler_leaves_this_as_it_was() {
    let src = "fn init() { this.x = 1; this.list = [1]; }\n\
               fn on_start() { this.x = 2; set_timer(\"T\", 1); }\n\
               fn on_timer(name) { this.x = 99; this.list.push(5); this.added = 1; throw \"stop\"; }\n\
               fn view() { #{ role: if this.x == 2 { \"candidate\" } else { \"follower\" } } }\n\
               #{ id: \"calls-undo\", title: \"t\", kinds: [#{ name: \"X\" }], timers: [\"T\"],\n\
                  fields: [#{ name: \"x\" }, #{ name: \"list\" }, #{ name: \"added\" }] }";
    let e = run(src);
    let why = e.halted().expect("the timer's handler fails");
    assert!(why.contains("on_timer") && why.contains("stop"), "{why}");
    let failed: u32 = why
        .split(": N")
        .nth(1)
        .and_then(|w| w.split(',').next())
        .and_then(|n| n.parse().ok())
        .expect("the node named first");
    let values: Vec<String> = e.inspect(failed).iter().map(|f| format!("{}={:?}", f.id, f.value)).collect();
    assert_eq!(values, ["x=Num(2)", "list=Text(\"[1]\")", "added=None"], "N{failed}");
    assert_eq!(e.node_view(failed).map(|v| v.role), Some("candidate"));
}
