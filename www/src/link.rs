//! What a link carries: the scenario, the interventions and the step, so that opening it shows
//! the same state. Three forms are read:
//! * `?preset=ring-worst&step=5` — short and readable, for a preset without interventions;
//! * `?t=1.<payload>&step=5` — anything else. The part before the dot is the encoding version.
//!   Version 1: the exported trace JSON (`Engine::trace_value()` without `step`) compressed
//!   with lz-string (the `lz-str` crate, `compress_to_uint8_array`: the compressed UTF-16 code
//!   units, big-endian), then base64url without padding (RFC 4648 §5). The dot never occurs in
//!   base64url, so a later version can change the compression or the payload and still be told
//!   apart;
//! * `?trace=<base64url of the trace JSON>&step=5` — the first form, written before links were
//!   compressed; still read, so every link shared so far opens. Padding and the standard
//!   alphabet (`+`, `/`) are accepted there, as they always were. [`write`] falls back to it
//!   for a trace so long that its `t=` payload would pass [`MAX_PAYLOAD`].
//!
//! Why lz-string rather than DEFLATE: for the split-brain preset with one drawn partition at
//! step 47 (the test `a_link_reopens_the_same_step_and_state`) the first form is 495 characters;
//! raw DEFLATE (`miniz_oxide` 0.9.1, level 9) made it 328 but added 15.3 KB gzipped to the wasm
//! (6.7 KB to inflate, 8.6 KB to deflate), over this app's budget; lz-string makes it 376 for
//! 4.5 KB. Its format is frozen and has ports in many languages, so a link stays readable.
//!
//! `compare=a,b,c` (2 to 4 algorithm ids) opens compare mode: the lanes run the link's scenario,
//! each with its own algorithm, replay its interventions by time, and stand at `time=` (ticks).
//!
//! `embed=1` asks for the compact embed view. The query string is split and percent-decoded by
//! `form_urlencoded`; the `t=` codec is the engine's (`election_lab::link`), so the command line
//! writes the same links. Nothing here touches the DOM, so it is
//! tested natively; a bad link yields an error message naming what is wrong.

use election_lab::engine::Replay;
pub use election_lab::link::{b64_decode, b64_encode, MAX_PAYLOAD};
use election_lab::link::{pack, unpack};
use election_lab::{presets, Engine};

/// What the page should show, read from a query string.
pub struct Link {
    pub engine: Engine,
    pub preset: Option<&'static str>,
    pub embed: bool,
    /// Set when the link asked for a step that does not exist: what was shown instead, and why.
    pub clamped: Option<String>,
}

/// Splits `a=1&b=2` (with or without a leading `?` or `#`) and percent-decodes keys and values
/// (`application/x-www-form-urlencoded`: `+` is a space).
pub fn params(query: &str) -> Vec<(String, String)> {
    let q = query.trim_start_matches(['?', '#']);
    form_urlencoded::parse(q.as_bytes()).map(|(k, v)| (k.into_owned(), v.into_owned())).collect()
}

/// Percent-encodes a value for a query string.
pub fn encode(v: &str) -> String {
    form_urlencoded::byte_serialize(v.as_bytes()).collect()
}

/// Reads a link. `Ok(None)` when the query names no scenario (show the default).
/// The trace a link carries (`t=`, or an old link's `trace=`), as text.
pub fn trace_text(ps: &[(String, String)]) -> Result<Option<String>, String> {
    let get = |k: &str| ps.iter().find(|(key, _)| key == k).map(|(_, v)| v.as_str());
    Ok(match (get("t"), get("trace")) {
        (Some(t), _) => Some(unpack(t)?),
        (None, Some(t)) => {
            let bytes = b64_decode(t).map_err(|e| format!("link: trace is damaged ({e})"))?;
            Some(String::from_utf8(bytes).map_err(|_| "link: trace is damaged (not UTF-8 text)".to_string())?)
        }
        (None, None) => None,
    })
}

/// A trace's text as a run: the exported JSON (or a bare scenario) in both builds, and in the
/// workbench also the JSON Lines of `run --trace`, whose reader the player leaves out (it hands
/// such a text to the workbench).
pub fn trace_engine(text: &str) -> Result<Engine, election_lab::ScenarioError> {
    match crate::WORKBENCH {
        true => Engine::from_trace_json(text),
        false => Engine::from_trace(election_lab::trace::Trace::from_json(text)?),
    }
}

pub fn read(query: &str) -> Result<Option<Link>, String> {
    Ok(read_in(query, false)?.map(|(link, _)| link))
}

/// [`read`], except that a script's run (whose steps may each be slow) is only built: its
/// interventions and the step asked for are the [`Replay`] returned, to be done in slices
/// (`state/slices.rs`). Another link's run is read at once, as [`read`] does.
pub fn read_later(query: &str) -> Result<Option<(Link, Option<Replay>)>, String> {
    read_in(query, crate::WORKBENCH)
}

/// What a link says when the step it asked for is past the end of its run.
pub fn past_end(asked: u64, last: u64) -> String {
    format!("link: step {asked} is past the end of this run; showing its last step, {last}")
}

fn read_in(query: &str, later: bool) -> Result<Option<(Link, Option<Replay>)>, String> {
    let ps = params(query);
    let get = |k: &str| ps.iter().find(|(key, _)| key == k).map(|(_, v)| v.as_str());
    let embed = matches!(get("embed"), Some("1" | "true" | ""));
    // A bad step never throws the scenario away: it is clamped to the run, and the page says so.
    let mut clamped = None;
    let step = match get("step") {
        None => None,
        Some(s) => match s.trim().parse::<i64>() {
            Ok(n) if n >= 0 => Some(n as u64),
            Ok(_) => {
                clamped = Some(format!("link: step {s} is before the first step; showing step 0"));
                Some(0)
            }
            Err(_) => {
                clamped = Some(format!("link: step '{s}' is not a step number; showing step 0"));
                Some(0)
            }
        },
    };
    // A script's link: the script is loaded first, so that the trace can name its algorithm
    // (the player opens nothing here: it hands the link to the workbench).
    for (_, script) in ps.iter().filter(|(k, _)| k == "script") {
        if !crate::state::script::from_link(script)? {
            return Ok(None);
        }
    }
    let text = trace_text(&ps)?;
    // The JSON Lines of `run --trace` are read by the workbench only: the player hands such a
    // link to it (`State::hand_off_link`) and opens nothing here.
    if text.as_deref().is_some_and(|t| !crate::WORKBENCH && election_lab::engine::is_jsonl(t)) {
        return Ok(None);
    }
    let mut job = None;
    let (mut engine, preset) = if let Some(text) = text {
        match later_engine(&text, later) {
            Some(built) => {
                let (engine, replay) = built.map_err(|e| format!("link: {e}"))?;
                job = Some(replay.then_seek(step));
                (engine, None)
            }
            None => (trace_engine(&text).map_err(|e| format!("link: {e}"))?, None),
        }
    } else if let Some(id) = get("preset") {
        let p = presets::find(id).ok_or_else(|| format!("link: no preset named '{id}'"))?;
        (Engine::new(p.scenario()).map_err(|e| format!("link: {e}"))?, Some(p.id))
    } else {
        return Ok(None);
    };
    // Breakpoints: `until=` parameters (the page writes them), else those inside the trace. One
    // this run cannot have (an unknown node, kind, role) is left out, and the page says so.
    let mut until: Vec<String> = ps.iter().filter(|(k, _)| k == "until").map(|(_, v)| v.clone()).collect();
    if until.is_empty() {
        until = engine.until().to_vec();
    }
    if !until.is_empty() && !crate::WORKBENCH {
        // The player hands such a link to the workbench (`State::hand_off_link`), which reads them.
        engine.set_until(until);
    } else if !until.is_empty() {
        let mut kept = Vec::new();
        for (i, t) in until.iter().enumerate().take(election_lab::breakpoint::MAX_BREAKPOINTS) {
            match election_lab::breakpoint::Breakpoint::parse(t, &engine) {
                Ok(b) => kept.push(b.to_string()),
                Err(e) => {
                    let msg = format!("link: until[{i}] '{t}' left out: {e}");
                    clamped = Some(clamped.map_or(msg.clone(), |c| format!("{c}; {msg}")));
                }
            }
        }
        engine.set_until(kept);
    }
    if let Some(s) = step.filter(|_| job.is_none()) {
        engine.seek(s);
        if engine.cursor() != s {
            clamped = Some(past_end(s, engine.cursor()));
        }
    }
    Ok(Some((Link { engine, preset, embed, clamped }, job)))
}

/// A script's run from a trace's text, built with its interventions left to do (`later`, a
/// trace whose algorithm a script runs; of JSON Lines, the check of its lines too); `None` for
/// any other.
fn later_engine(text: &str, later: bool) -> Option<Result<(Engine, Replay), election_lab::ScenarioError>> {
    if !crate::WORKBENCH || !later {
        return None;
    }
    // (Only the workbench runs scripts, so only it reads their JSON Lines in slices.)
    #[cfg(feature = "workbench")]
    if election_lab::engine::is_jsonl(text) {
        let built = Engine::from_jsonl_later(text);
        let script = built.as_ref().is_ok_and(|(e, _)| crate::state::script::runs_script(&e.scenario().algorithm));
        return script.then_some(built);
    }
    let trace = election_lab::trace::Trace::from_json(text).ok()?;
    crate::state::script::runs_script(&trace.scenario.algorithm).then(|| Engine::from_trace_later(trace))
}

/// The query string for the engine's current state.
pub fn write(engine: &Engine, preset: Option<&str>, embed: bool) -> String {
    let run = run_part(engine, preset);
    let mut q = format!("?{run}&step={}", engine.cursor());
    // A trace names its algorithm in `a=`, so that index.html chooses the bundle that shows it
    // before the trace is read (a link without it opens in the full player).
    if !run.starts_with("preset=") {
        q.push_str(&format!("&a={}", encode(&engine.scenario().algorithm)));
    }
    q.push_str(&crate::state::script::link_part(engine));
    for t in engine.until() {
        q.push_str(&format!("&until={}", encode(t)));
    }
    if embed {
        q.push_str("&embed=1");
    }
    q
}

/// The query string of compare mode: the algorithms, lane by lane, then the anchor lane's run
/// (its scenario and faults) and the shared virtual time: `?compare=a,b&preset=…&time=40`.
pub fn write_compare(
    algs: &[&election_lab::Algorithm],
    anchor: &Engine,
    preset: Option<&str>,
    time: u64,
    embed: bool,
) -> String {
    let ids: Vec<&str> = algs.iter().map(|a| a.id).collect();
    let mut q = format!("?compare={}&{}&time={time}", ids.join(","), run_part(anchor, preset));
    for id in ids {
        q.push_str(&crate::state::script::link_part_of(id));
    }
    if embed {
        q.push_str("&embed=1");
    }
    q
}

/// `preset=…` for a preset without interventions, else the compressed trace `t=…`.
fn run_part(engine: &Engine, preset: Option<&str>) -> String {
    if let Some(id) = preset.filter(|_| engine.interventions().is_empty()) {
        return format!("preset={id}");
    }
    let mut trace = engine.trace_value();
    if let Some(o) = trace.as_object_mut() {
        o.remove("step");
        // Breakpoints go in `until=` parameters of their own, readable in the address.
        o.remove("until");
    }
    let json = election_lab::write_json(&trace);
    match pack(&json) {
        Some(t) => format!("t={t}"),
        None => format!("trace={}", b64_encode(json.as_bytes())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use election_lab::Action;

    #[test]
    fn base64url_round_trips_every_length() {
        for n in 0..40u8 {
            let data: Vec<u8> = (0..n).map(|i| i.wrapping_mul(37)).collect();
            assert_eq!(b64_decode(&b64_encode(&data)).unwrap(), data);
        }
        assert!(b64_decode("ab$c").unwrap_err().contains("'$'"));
        // Padding and the standard alphabet are read, as the first decoder read them.
        assert_eq!(b64_decode("-_8=").unwrap(), b64_decode("+/8").unwrap());
        assert_eq!(b64_decode("-_8").unwrap(), vec![0xfb, 0xff]);
    }

    #[test]
    fn query_strings_are_percent_decoded() {
        let ps = params("?a=1&b=x%20y+z&&c&d=%E2%9C%93");
        let want = [("a", "1"), ("b", "x y z"), ("c", ""), ("d", "\u{2713}")];
        assert_eq!(ps.len(), want.len());
        for ((k, v), (wk, wv)) in ps.iter().zip(want) {
            assert_eq!((k.as_str(), v.as_str()), (wk, wv));
        }
        assert_eq!(params("#embed=1"), vec![("embed".to_string(), "1".to_string())]);
    }

    /// The split-brain run of `a_link_reopens_the_same_step_and_state`, built afresh.
    fn split_brain_partitioned() -> Engine {
        let mut e = Engine::new(presets::find("split-brain-bully").unwrap().scenario()).unwrap();
        e.run(7);
        e.apply(Action::Partition { groups: vec![vec![1, 2], vec![3, 4, 5]], lines: vec![[10, 0, 10, 1000]] }).unwrap();
        e.run(40);
        e
    }

    /// A link written by the first link format (uncompressed `?trace=<base64url JSON>`, with the
    /// hand-written codec this module had then), pasted as it was produced. It must keep opening
    /// on the same step and state.
    #[test]
    fn a_link_from_the_first_format_still_opens() {
        const FIRST_FORMAT: &str = "?trace=eyJmb3JtYXQiOiJlbGVjdGlvbi1sYWItdHJhY2UvMSIsImludGVydmVudGlvbnMiOlt7ImxpbmVzIjpbWzEwLDAsMTAsMTAwMF1dLCJwYXJ0aXRpb24iOltbMSwyXSxbMyw0LDVdXSwic3RlcCI6N31dLCJzY2VuYXJpbyI6eyJhbGdvcml0aG0iOiJidWxseSIsImhlYXJ0YmVhdHMiOnsiaW50ZXJ2YWwiOjIsInRpbWVvdXQiOjEwfSwiaW5pdGlhbF9sZWFkZXIiOjUsIm5ldHdvcmsiOnsiZmlmbyI6dHJ1ZSwibGF0ZW5jeSI6WzEsMV0sImxvc3MiOjAuMH0sIm5vZGVzIjpbMSwyLDMsNCw1XSwicGFyYW1zIjp7fSwic2NoZWR1bGUiOltdLCJzZWVkIjo0MjUsInN0b3AiOnsibWF4X3N0ZXBzIjoxMDAwMDAwLCJtYXhfdGltZSI6MzAwfX19&step=47";
        let fresh = split_brain_partitioned();
        let l = read(FIRST_FORMAT).unwrap().unwrap();
        assert_eq!(l.engine.cursor(), 47);
        assert_eq!(l.engine.cursor(), fresh.cursor());
        assert_eq!(l.engine.frame(), fresh.frame());
        assert_eq!(l.engine.trace_hash(), fresh.trace_hash());
        assert_eq!(l.engine.trace_value(), fresh.trace_value());
    }

    /// A trace exported (pretty-printed `Engine::trace_value()`) before the engine's generator
    /// came from `rand_pcg`: Raft with random latency and loss, a crash and a partition, so the
    /// random stream decides the run. It must replay to the same state as a fresh engine.
    #[test]
    fn a_trace_exported_before_still_replays() {
        let text = include_str!("../tests/old-formats/trace-v1.json");
        let old = Engine::from_trace_json(text).unwrap();
        let mut s = presets::find("raft-cold").unwrap().scenario();
        s.network.latency = (1, 6);
        s.network.loss = 0.1;
        let mut fresh = Engine::new(s).unwrap();
        fresh.run(12);
        fresh.apply(Action::Crash(3)).unwrap();
        fresh.run(30);
        fresh
            .apply(Action::Partition { groups: vec![vec![1, 2], vec![3, 4, 5]], lines: vec![[10, 0, 10, 1000]] })
            .unwrap();
        fresh.run(25);
        assert_eq!(old.cursor(), 67);
        assert_eq!(old.cursor(), fresh.cursor());
        assert_eq!(old.frame(), fresh.frame());
        assert_eq!(old.trace_hash(), fresh.trace_hash());
        // Re-exported, it is the same trace in format 2: each intervention now also carries the
        // virtual time it was applied at.
        let mut again = old.trace_value();
        assert_eq!(again["format"], "election-lab-trace/2");
        assert_eq!(again["interventions"][0]["time"], serde_json::json!(fresh.interventions()[0].time));
        for iv in again["interventions"].as_array_mut().unwrap() {
            iv.as_object_mut().unwrap().remove("time");
        }
        again["format"] = "election-lab-trace/1".into();
        assert_eq!(again, serde_json::from_str::<serde_json::Value>(text).unwrap());
    }

    #[test]
    fn a_link_reopens_the_same_step_and_state() {
        let e = split_brain_partitioned();
        let q = write(&e, Some("split-brain-bully"), false);
        assert!(q.starts_with("?t=1."), "{q}");
        // 495 characters in the first (uncompressed) form; the algorithm's id for index.html's
        // choice of bundle comes on top.
        assert!(q.ends_with("&a=bully"), "{q}");
        assert!(q.len() - "&a=bully".len() < 380, "{} characters: {q}", q.len());
        println!("split-brain link, one partition, step 47: {} characters: {q}", q.len());
        let l = read(&q).unwrap().unwrap();
        assert_eq!(l.engine.cursor(), e.cursor());
        assert_eq!(l.engine.frame(), e.frame());
        assert_eq!(l.engine.trace_hash(), e.trace_hash());
    }

    /// Whatever bytes a damaged or crafted `t=` link holds, reading it returns an error or a
    /// run, and never panics (a panic would take the whole page down).
    #[test]
    fn random_payloads_never_panic() {
        let mut rng = election_lab::rng::Pcg32::new(12, 1);
        let mut opened = 0;
        for _ in 0..3000 {
            let len = rng.range_inclusive(0, 300) as usize;
            let mut bytes: Vec<u8> = (0..len).map(|_| rng.next_u32() as u8).collect();
            if rng.chance(0.5) {
                // Start like a real payload, so the decoder gets past the first codes.
                let real = lz_str::compress_to_uint8_array(r#"{"scenario":{"algorithm":"bully","nodes":[1,2]}}"#);
                let keep = rng.range_inclusive(0, real.len() as u64) as usize;
                bytes.splice(0..0, real[..keep].iter().copied());
            }
            if read(&format!("?t=1.{}", b64_encode(&bytes))).is_ok() {
                opened += 1;
            }
        }
        assert!(opened < 3000);
    }

    /// A trace too long for a `t=` payload is written in the first form, which has no limit.
    #[test]
    fn very_long_traces_fall_back_to_the_first_form() {
        let mut e = Engine::new(presets::find("split-brain-bully").unwrap().scenario()).unwrap();
        let mut rng = election_lab::rng::Pcg32::new(3, 3);
        for _ in 0..2000 {
            let mut r = || rng.range_inclusive(0, 1_000_000) as i32;
            e.apply(Action::Partition { groups: vec![vec![1, 2], vec![3, 4, 5]], lines: vec![[r(), r(), r(), r()]] })
                .unwrap();
            e.run(1);
        }
        let q = write(&e, None, false);
        assert!(q.starts_with("?trace="), "{} characters: {}", q.len(), &q[..20]);
        let l = read(&q).unwrap().unwrap();
        assert_eq!(l.engine.trace_hash(), e.trace_hash());
    }

    #[test]
    fn preset_links_are_short() {
        let mut e = Engine::new(presets::find("ring-worst").unwrap().scenario()).unwrap();
        e.run(5);
        assert_eq!(write(&e, Some("ring-worst"), true), "?preset=ring-worst&step=5&embed=1");
        let l = read("?preset=ring-worst&step=5&embed=1").unwrap().unwrap();
        assert!(l.embed);
        assert_eq!(l.engine.cursor(), 5);
    }

    #[test]
    fn bad_links_say_what_is_wrong() {
        assert!(read("").unwrap().is_none());
        assert_eq!(read("?preset=nope").err().unwrap(), "link: no preset named 'nope'");
        // Out-of-range steps clamp, keep the scenario, and say so.
        for (q, at, says) in [
            ("?preset=ring-worst&step=x", Some(0), "step 'x' is not a step number"),
            ("?preset=ring-worst&step=-3", Some(0), "before the first step"),
            ("?preset=ring-worst&step=99999", None, "past the end"),
        ] {
            let l = read(q).unwrap().unwrap();
            assert_eq!(l.preset, Some("ring-worst"), "{q}");
            match at {
                Some(step) => assert_eq!(l.engine.cursor(), step, "{q}"),
                None => assert_eq!(l.engine.cursor(), l.engine.head(), "{q}: the last step"),
            }
            assert!(l.clamped.as_deref().unwrap().contains(says), "{q}");
        }
        assert!(read("?trace=%%%").err().unwrap().starts_with("link: trace is damaged"));
        let bad_json = r#"{"scenario":{"algorithm":"bully","nodes":[1,1]}}"#;
        let bad = b64_encode(bad_json.as_bytes());
        assert_eq!(read(&format!("?trace={bad}")).err().unwrap(), "link: scenario.nodes: duplicate id 1");
        assert_eq!(
            read(&format!("?t={}", pack(bad_json).unwrap())).err().unwrap(),
            "link: scenario.nodes: duplicate id 1"
        );
        assert!(read("?t=1.%%%").err().unwrap().starts_with("link: trace is damaged (character 1 ('%')"));
        assert!(read("?t=abc").err().unwrap().contains("no encoding version"));
        assert!(read("?t=2.abc").err().unwrap().contains("encoding '2'"));
        let not_lz = b64_encode(&[0xff; 12]);
        assert!(read(&format!("?t=1.{not_lz}")).err().unwrap().contains("cannot decompress"));
        let too_long = "A".repeat(MAX_PAYLOAD + 4);
        assert!(read(&format!("?t=1.{too_long}")).err().unwrap().contains("longer than"));
        // Cut short, as a chat client might do to a long link.
        let mut e = Engine::new(presets::find("ring-worst").unwrap().scenario()).unwrap();
        e.apply(Action::Crash(80)).unwrap();
        let q = write(&e, None, false);
        let cut = &q[..q.find('&').unwrap() - 10];
        let err = read(cut).err().unwrap();
        assert!(err.starts_with("link: trace is damaged"), "{cut}: {err}");
    }

    /// The engine writes links for the command line (`election-lab run --link`) with its own
    /// copy of this format (`election_lab::link`): the two must stay the same, both ways.
    #[test]
    fn the_engine_writes_and_reads_the_same_links() {
        let mut e = split_brain_partitioned();
        let json = {
            let mut t = e.trace_value();
            t.as_object_mut().unwrap().remove("step");
            t.to_string()
        };
        assert_eq!(election_lab::link::pack(&json), pack(&json));
        let q = election_lab::link::query(&e, 30);
        assert_eq!(q, write(&e, None, false).replace(&format!("step={}", e.cursor()), "step=30"));
        let page = read(&q).unwrap().unwrap();
        e.seek(30);
        assert_eq!(page.engine.frame(), e.frame());
        let engine = election_lab::link::open(&write(&e, None, false)).unwrap();
        assert_eq!(engine.cursor(), 30);
        assert_eq!(engine.trace_hash(), e.trace_hash());
    }
}
