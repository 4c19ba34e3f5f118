//! The example lecture notes (docs/embed-example.html) embed a link to a recorded run and tell
//! its story by step numbers: the link must keep opening on that run, and the story must hold.
#![cfg(not(target_arch = "wasm32"))]

use election_lab_www::link;

#[test]
fn the_example_notes_link_opens_the_split_brain_they_describe() {
    let page = include_str!("../../docs/embed-example.html");
    let src = page.split("src=\"./").nth(1).and_then(|s| s.split('"').next()).expect("the iframe's src");
    let mut l = link::read(src).unwrap().expect("a run");
    assert!(l.embed);
    assert_eq!(l.engine.cursor(), 7, "the notes open at step 7");
    assert_eq!(l.engine.scenario().algorithm, "bully");
    assert_eq!(l.engine.frame().leaders, [5]);
    assert_eq!(l.engine.interventions().len(), 1, "the partition drawn after step 7");
    // "Jump to the split brain (step 41)": two leaders, N2 and N5, from that step on.
    assert!(page.contains("cmd: 'seek'") || page.contains("send('seek', 41)"));
    l.engine.seek(40);
    assert_eq!(l.engine.frame().leaders, [5]);
    l.engine.seek(41);
    let f = l.engine.frame();
    assert_eq!((f.leaders.as_slice(), f.time), (&[2, 5][..], 16));
}
