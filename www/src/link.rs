//! What a link carries: the scenario, the interventions and the step, so that opening it shows
//! the same state. Two forms are read:
//! * `?preset=ring-worst&step=5` — short and readable, for a preset without interventions;
//! * `?trace=<base64url of the exported trace JSON>&step=5` — anything else.
//!
//! `embed=1` asks for the compact embed view. Nothing here touches the DOM, so it is tested
//! natively; a bad link yields an error message naming what is wrong.

use election_lab::{presets, Engine};

/// What the page should show, read from a query string.
pub struct Link {
    pub engine: Engine,
    pub preset: Option<&'static str>,
    pub embed: bool,
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

pub fn b64_encode(data: &[u8]) -> String {
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        let chars = chunk.len() + 1;
        for i in 0..chars {
            out.push(B64[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
    }
    out
}

pub fn b64_decode(text: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let mut acc: u32 = 0;
    let mut bits = 0;
    for (i, c) in text.trim_end_matches('=').bytes().enumerate() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'-' | b'+' => 62,
            b'_' | b'/' => 63,
            _ => return Err(format!("character {} ('{}') is not base64url", i + 1, c as char)),
        };
        acc = acc << 6 | v as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Ok(out)
}

/// Splits `a=1&b=2` (with or without a leading `?` or `#`) and percent-decodes values.
pub fn params(query: &str) -> Vec<(String, String)> {
    let q = query.trim_start_matches(['?', '#']);
    q.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (percent_decode(k), percent_decode(v))
        })
        .collect()
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => {
                match u8::from_str_radix(std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("zz"), 16) {
                    Ok(b) => {
                        out.push(b);
                        i += 3;
                        continue;
                    }
                    Err(_) => out.push(b'%'),
                }
            }
            b'+' => out.push(b' '),
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Reads a link. `Ok(None)` when the query names no scenario (show the default).
pub fn read(query: &str) -> Result<Option<Link>, String> {
    let ps = params(query);
    let get = |k: &str| ps.iter().find(|(key, _)| key == k).map(|(_, v)| v.as_str());
    let embed = matches!(get("embed"), Some("1" | "true" | ""));
    let step = match get("step") {
        None => None,
        Some(s) => Some(s.parse::<u64>().map_err(|_| format!("link: step '{s}' is not a step number"))?),
    };
    let (mut engine, preset) = if let Some(t) = get("trace") {
        let bytes = b64_decode(t).map_err(|e| format!("link: trace is damaged ({e})"))?;
        let text = String::from_utf8(bytes).map_err(|_| "link: trace is damaged (not UTF-8 text)".to_string())?;
        (Engine::from_trace_json(&text).map_err(|e| format!("link: {e}"))?, None)
    } else if let Some(id) = get("preset") {
        let p = presets::find(id).ok_or_else(|| format!("link: no preset named '{id}'"))?;
        (Engine::new(p.scenario()).map_err(|e| format!("link: {e}"))?, Some(p.id))
    } else {
        return Ok(None);
    };
    if let Some(s) = step {
        engine.seek(s);
        if engine.cursor() != s {
            return Err(format!("link: step {s} is past the end of this run (it ends at step {})", engine.cursor()));
        }
    }
    Ok(Some(Link { engine, preset, embed }))
}

/// The query string for the engine's current state.
pub fn write(engine: &Engine, preset: Option<&str>, embed: bool) -> String {
    let mut q = String::from("?");
    match preset {
        Some(id) if engine.interventions().is_empty() => {
            q.push_str("preset=");
            q.push_str(id);
        }
        _ => {
            let mut trace = engine.trace_value();
            if let Some(o) = trace.as_object_mut() {
                o.remove("step");
            }
            q.push_str("trace=");
            q.push_str(&b64_encode(trace.to_string().as_bytes()));
        }
    }
    q.push_str(&format!("&step={}", engine.cursor()));
    if embed {
        q.push_str("&embed=1");
    }
    q
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
        fresh.apply(Action::Partition { groups: vec![vec![1, 2], vec![3, 4, 5]], lines: vec![[10, 0, 10, 1000]] }).unwrap();
        fresh.run(25);
        assert_eq!(old.cursor(), 67);
        assert_eq!(old.cursor(), fresh.cursor());
        assert_eq!(old.frame(), fresh.frame());
        assert_eq!(old.trace_hash(), fresh.trace_hash());
        assert_eq!(old.trace_value(), serde_json::from_str::<serde_json::Value>(text).unwrap());
    }

    #[test]
    fn a_link_reopens_the_same_step_and_state() {
        let e = split_brain_partitioned();
        let q = write(&e, Some("split-brain-bully"), false);
        assert!(q.contains("trace="));
        let l = read(&q).unwrap().unwrap();
        assert_eq!(l.engine.cursor(), e.cursor());
        assert_eq!(l.engine.frame(), e.frame());
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
        assert!(read("?preset=ring-worst&step=x").err().unwrap().contains("step 'x'"));
        assert!(read("?preset=ring-worst&step=99999").err().unwrap().contains("past the end"));
        assert!(read("?trace=%%%").err().unwrap().starts_with("link: trace is damaged"));
        let bad = b64_encode(br#"{"scenario":{"algorithm":"bully","nodes":[1,1]}}"#);
        assert_eq!(read(&format!("?trace={bad}")).err().unwrap(), "link: scenario.nodes: duplicate id 1");
    }
}
