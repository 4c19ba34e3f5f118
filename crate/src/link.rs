//! The page's links, written and read without the page: `?t=1.<payload>&step=N`, where the
//! payload is the trace JSON ([`Engine::trace_value`] without `step`) compressed with
//! lz-string (`compress_to_uint8_array`: its UTF-16 code units, big-endian), then base64url
//! without padding (RFC 4648 §5). This is exactly the format of the page's `www/src/link.rs`
//! (version 1), so a link `election-lab run --link` prints opens in the page, and the page's
//! links decode here. A trace whose payload would pass [`MAX_PAYLOAD`] falls back to the
//! uncompressed `?trace=<base64url JSON>` form, which the page also reads.

use crate::engine::Engine;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::DecodePaddingMode;
use base64::{alphabet, DecodeError, Engine as _};

/// The current encoding of `t=`: its version number, written before the dot.
pub const TRACE_VERSION: &str = "1";
/// The longest `t=` payload (in characters) read or written. lz-string's output, and its
/// dictionary, can grow with the square of its input: a crafted payload of this length expands
/// to under 10 million characters (measured natively: 8,336 characters gave 10 million in
/// 0.12 s; the same JSON then fails to parse at once).
/// A real trace this long holds well over a hundred interventions.
pub const MAX_PAYLOAD: usize = 8 << 10;

/// URL-safe alphabet; writes no padding, reads it or its absence, and tolerates non-zero
/// trailing bits, as the hand-written decoder of the first link form did.
const B64URL: GeneralPurpose = GeneralPurpose::new(
    &alphabet::URL_SAFE,
    GeneralPurposeConfig::new()
        .with_encode_padding(false)
        .with_decode_padding_mode(DecodePaddingMode::Indifferent)
        .with_decode_allow_trailing_bits(true),
);

pub fn b64_encode(data: &[u8]) -> String {
    B64URL.encode(data)
}

/// Decodes base64url (with or without padding); `+` and `/` are read as `-` and `_`.
pub fn b64_decode(text: &str) -> Result<Vec<u8>, String> {
    let text = text.replace('+', "-").replace('/', "_");
    B64URL.decode(text.as_bytes()).map_err(|e| match e {
        DecodeError::InvalidByte(at, _) | DecodeError::InvalidLastSymbol { offset: at, .. } => {
            let c = text.get(at..).and_then(|s| s.chars().next()).unwrap_or('?');
            format!("character {} ('{c}') is not base64url", text.get(..at).map_or(at, |s| s.chars().count()) + 1)
        }
        DecodeError::InvalidLength(_) => "its length is not a whole number of base64url characters".to_string(),
        DecodeError::InvalidPadding => "its padding is wrong".to_string(),
    })
}

/// The trace JSON of a `t=` value (`<version>.<payload>`).
pub fn unpack(t: &str) -> Result<String, String> {
    let damaged = |why: String| format!("link: trace is damaged ({why})");
    let (version, payload) = t.split_once('.').ok_or_else(|| damaged("no encoding version before a '.'".into()))?;
    if version != TRACE_VERSION {
        return Err(format!("link: trace encoding '{version}' is not one this version of Election Lab reads (it reads '{TRACE_VERSION}')"));
    }
    if payload.len() > MAX_PAYLOAD {
        return Err(damaged(format!("longer than {MAX_PAYLOAD} characters")));
    }
    let packed = b64_decode(payload).map_err(damaged)?;
    let wide = lz_str::decompress_from_uint8_array(&packed).ok_or_else(|| damaged("cannot decompress".into()))?;
    String::from_utf16(&wide).map_err(|_| damaged("not text".into()))
}

/// The `t=` value for a trace JSON text, or `None` when its payload would be too long to read.
pub fn pack(json: &str) -> Option<String> {
    let payload = b64_encode(&lz_str::compress_to_uint8_array(json));
    (payload.len() <= MAX_PAYLOAD).then(|| format!("{TRACE_VERSION}.{payload}"))
}

/// The query string that opens `engine`'s run in the page at `step`: `?t=1.…&a=ALG&step=N`.
/// `a=` names the run's algorithm, so that the page can choose the bundle that shows it before
/// it reads the trace (index.html; a link without it opens in the full player).
pub fn query(engine: &Engine, step: u64) -> String {
    let mut trace = engine.trace_value();
    if let Some(o) = trace.as_object_mut() {
        o.remove("step");
    }
    let json = crate::write_json(&trace);
    match pack(&json) {
        Some(t) => format!("?t={t}&a={}&step={step}", engine.scenario().algorithm),
        None => format!("?trace={}&a={}&step={step}", B64URL.encode(json.as_bytes()), engine.scenario().algorithm),
    }
}

/// Rebuilds the run a page link opens (its `t=` or `trace=` part), at its `step=` if any.
pub fn open(query: &str) -> Result<Engine, String> {
    let q = query.rsplit_once('?').map_or(query, |(_, q)| q);
    let mut text = None;
    let mut step = None;
    for pair in q.split('&') {
        match pair.split_once('=') {
            Some(("t", v)) => text = Some(unpack(v)?),
            Some(("trace", v)) if text.is_none() => {
                let bytes = B64URL
                    .decode(v.replace('+', "-").replace('/', "_"))
                    .map_err(|_| "link: trace is damaged (not base64url)".to_string())?;
                text = Some(String::from_utf8(bytes).map_err(|_| "link: trace is damaged (not UTF-8)".to_string())?);
            }
            Some(("step", v)) => {
                step = Some(v.parse::<u64>().map_err(|_| format!("link: step '{v}' is not a step number"))?)
            }
            _ => {}
        }
    }
    let text = text.ok_or("link: no trace (t= or trace=) in it")?;
    let mut e = Engine::from_trace_json(&text).map_err(|e| format!("link: {e}"))?;
    if let Some(s) = step {
        e.seek(s);
    }
    Ok(e)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{presets, Action};

    #[test]
    fn a_link_round_trips_and_opens_the_same_state() {
        let mut e = Engine::new(presets::find("split-brain-bully").unwrap().scenario()).unwrap();
        e.run(7);
        e.apply(Action::Partition { groups: vec![vec![1, 2], vec![3, 4, 5]], lines: vec![] }).unwrap();
        e.run(40);
        let q = query(&e, 20);
        assert!(q.starts_with("?t=1.") && q.ends_with("&a=bully&step=20"), "{q}");
        let back = open(&q).unwrap();
        assert_eq!(back.cursor(), 20);
        e.seek(20);
        assert_eq!(back.frame(), e.frame());
        assert_eq!(back.trace_hash(), e.trace_hash());
    }

    #[test]
    fn damaged_links_are_named() {
        assert!(unpack("2.abc").unwrap_err().contains("encoding '2'"));
        assert!(unpack("1.%%").unwrap_err().contains("not base64url"));
        assert!(unpack("nodot").unwrap_err().contains("no encoding version"));
        assert!(open("?step=3").unwrap_err().contains("no trace"));
    }
}
