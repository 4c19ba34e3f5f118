//! Narration is no longer cut to three arguments: a typed text and a scripted note with more
//! keep every one, wide values included, through the history and back.

use election_lab::meta::{k, Lang};

#[test]
fn a_typed_text_keeps_all_its_arguments() {
    let bar = k::ui_lease_bar(4, 11, 20, 5_000_000_000, 5_000_000_020);
    assert_eq!(bar.args(), [4, 11, 20, 5_000_000_000, 5_000_000_020]);
    let en = bar.render(Lang::En);
    assert!(en.starts_with("N4: 11 of 20 ticks") && en.contains("5000000000") && en.contains("5000000020"), "{en}");
}

#[cfg(feature = "script")]
#[test]
fn a_scripted_note_with_five_arguments_is_narrated_whole() {
    use election_lab::protocols::script;
    use election_lab::{registry, Engine};
    let src = "fn on_start() { note(\"wide\", #{ a: me(), b: 2, c: 3, d: 8589934592, e: 5 }); }\n\
               #{ id: \"wide_note\", title: \"t\", kinds: [#{ name: \"X\" }],\n\
                  notes: #{ wide: #{ en: \"N{a} says {b} {c} {d} {e}\", zh: \"N{a} 说 {b} {c} {d} {e}\" } } }";
    let a = script::load(src).unwrap_or_else(|e| panic!("the script loads: {e}"));
    let mut s = registry::find("bully").unwrap().preset("bully-worst-8").unwrap().scenario();
    s.algorithm = a.id.to_string();
    let mut e = Engine::new(s).unwrap();
    e.run_to_end();
    let said: Vec<String> = (1..=e.cursor()).filter_map(|k| e.narrate(k, Lang::En)).collect();
    assert!(said.iter().any(|n| n.contains("says 2 3 8589934592 5")), "{said:?}");
    // Seeking back reads the note from the history, not from the handler.
    e.seek(0);
    e.run_to_end();
    let again: Vec<String> = (1..=e.cursor()).filter_map(|k| e.narrate(k, Lang::En)).collect();
    assert_eq!(said, again);
}
