//! The page's links, written and read without the page: `?t=1.<payload>&step=N`, where the
//! payload is the trace JSON ([`Engine::trace_value`] without `step`) compressed with
//! lz-string (`compress_to_uint8_array`: its UTF-16 code units, big-endian), then base64url
//! without padding (RFC 4648 §5). This is exactly the format of the page's `www/src/link.rs`
//! (version 1), so a link `election-lab run --link` prints opens in the page, and the page's
//! links decode here. A trace whose payload would pass [`MAX_PAYLOAD`] falls back to the
//! uncompressed `?trace=<base64url JSON>` form, which the page also reads.

use crate::engine::Engine;

/// The current encoding of `t=`: its version number, written before the dot.
pub const TRACE_VERSION: &str = "1";
/// The longest `t=` payload (in characters) read or written. lz-string's output, and its
/// dictionary, can grow with the square of its input: a crafted payload of this length expands
/// to under 10 million characters (measured natively: 8,336 characters gave 10 million in
/// 0.12 s; the same JSON then fails to parse at once).
/// A real trace this long holds well over a hundred interventions.
pub const MAX_PAYLOAD: usize = 8 << 10;

/// The base64url alphabet (RFC 4648 §5).
const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// `data` in base64url without padding.
pub fn b64_encode(data: &[u8]) -> String {
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, &b)| n | (u32::from(b) << (16 - 8 * i)));
        for k in 0..=chunk.len() {
            out.push(char::from(ALPHABET[((n >> (18 - 6 * k)) & 63) as usize]));
        }
    }
    out
}

/// Why a text is not base64url: the byte at this offset, or its length.
#[derive(Debug, PartialEq)]
enum NotBase64 {
    Byte(usize),
    Length,
}

/// The value of a base64url character.
fn sextet(b: u8) -> Option<u32> {
    ALPHABET.iter().position(|&a| a == b).map(|v| v as u32)
}

/// Decodes base64url with or without padding, ignoring the unused low bits of the last
/// character. The last quad (or the 1 to 3 characters after the whole quads) may end in `=`
/// after its second character; a wrong character anywhere else is named by its offset, and
/// one character alone at the end is a wrong length. These are the `base64` crate's rules and
/// offsets (version 0.23, padding indifferent, trailing bits allowed), which the page's links
/// were read with, so a damaged link is described as before (checked against it in the tests).
fn decode(input: &[u8]) -> Result<Vec<u8>, NotBase64> {
    let n = input.len();
    let rem = n % 4;
    // A stray last character (a newline, say) is named before anything else.
    if rem == 1 && input[n - 1] != b'=' && sextet(input[n - 1]).is_none() {
        return Err(NotBase64::Byte(n - 1));
    }
    // The whole quads before the last, which alone may hold padding.
    let body = n.saturating_sub(rem).saturating_sub(if rem == 0 { 4 } else { 0 });
    let mut out = Vec::with_capacity(n / 4 * 3 + 2);
    let (mut bits, mut held) = (0u32, 0u32);
    let mut take = |v: u32, out: &mut Vec<u8>| {
        bits = (bits << 6) | v;
        held += 6;
        if held >= 8 {
            held -= 8;
            out.push((bits >> held) as u8);
        }
    };
    for (i, &b) in input[..body].iter().enumerate() {
        take(sextet(b).ok_or(NotBase64::Byte(i))?, &mut out);
    }
    let (mut first_pad, mut symbols) = (None, 0);
    for (i, &b) in input[body..].iter().enumerate() {
        if b == b'=' {
            if i < 2 {
                return Err(NotBase64::Byte(body + i));
            }
            first_pad.get_or_insert(body + i);
        } else if let Some(at) = first_pad {
            return Err(NotBase64::Byte(at));
        } else {
            take(sextet(b).ok_or(NotBase64::Byte(body + i))?, &mut out);
            symbols += 1;
        }
    }
    if n > 0 && symbols < 2 {
        return Err(NotBase64::Length);
    }
    Ok(out)
}

/// Decodes base64url (with or without padding); `+` and `/` are read as `-` and `_`.
pub fn b64_decode(text: &str) -> Result<Vec<u8>, String> {
    let text = text.replace('+', "-").replace('/', "_");
    decode(text.as_bytes()).map_err(|e| match e {
        NotBase64::Byte(at) => {
            let c = text.get(at..).and_then(|s| s.chars().next()).unwrap_or('?');
            format!("character {} ('{c}') is not base64url", text.get(..at).map_or(at, |s| s.chars().count()) + 1)
        }
        NotBase64::Length => "its length is not a whole number of base64url characters".to_string(),
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
        Some(t) => format!("?t={t}&step={step}&a={}", engine.scenario().algorithm),
        None => format!("?trace={}&step={step}&a={}", b64_encode(json.as_bytes()), engine.scenario().algorithm),
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
                let bytes = b64_decode(v).map_err(|_| "link: trace is damaged (not base64url)".to_string())?;
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
        assert!(q.starts_with("?t=1.") && q.ends_with("&step=20&a=bully"), "{q}");
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

    /// The `base64` crate as the links were read and written with it before: the same bytes,
    /// the same refusals at the same offsets.
    const REFERENCE: base64::engine::GeneralPurpose = base64::engine::GeneralPurpose::new(
        &base64::alphabet::URL_SAFE,
        base64::engine::GeneralPurposeConfig::new()
            .with_encode_padding(false)
            .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent)
            .with_decode_allow_trailing_bits(true),
    );

    fn same_as_reference(text: &[u8]) {
        use base64::Engine as _;
        let want = REFERENCE.decode(text).map_err(|e| match e {
            base64::DecodeError::InvalidByte(at, _) => NotBase64::Byte(at),
            base64::DecodeError::InvalidLength(_) => NotBase64::Length,
            other => panic!("{other:?} cannot happen with this configuration"),
        });
        assert_eq!(decode(text), want, "{:?}", String::from_utf8_lossy(text));
    }

    #[test]
    fn base64url_matches_the_base64_crate() {
        use base64::Engine as _;
        let mut rng = crate::rng::Pcg32::for_seed(29);
        for len in 0..200 {
            let data: Vec<u8> = (0..len).map(|_| rng.next_u32() as u8).collect();
            let text = b64_encode(&data);
            assert_eq!(text, REFERENCE.encode(&data), "{len} bytes");
            assert_eq!(decode(text.as_bytes()), Ok(data), "{len} bytes");
        }
        // Texts from a small alphabet, so that padding, stray characters and lengths mix.
        let chars = b"AQgw_-=Z9 .";
        for _ in 0..50_000 {
            let len = rng.range_inclusive(0, 13) as usize;
            let text: Vec<u8> =
                (0..len).map(|_| chars[rng.range_inclusive(0, chars.len() as u64 - 1) as usize]).collect();
            same_as_reference(&text);
        }
        for text in
            ["", "=", "==", "A", "A=", "AB", "AB=", "AB==", "AB===", "ABC=", "ABCD", "ABCD=", "AB=C", "A===", "ABCDA\n"]
        {
            same_as_reference(text.as_bytes());
        }
        assert_eq!(decode(b"QUI="), Ok(b"AB".to_vec()));
        assert_eq!(decode(b"QR"), Ok(b"A".to_vec()), "the unused low bits of R are ignored");
        assert_eq!(b64_decode("Q+/").unwrap(), b64_decode("Q-_").unwrap());
        assert_eq!(b64_decode("QUJD%").unwrap_err(), "character 5 ('%') is not base64url");
        assert_eq!(b64_decode("QUJDR").unwrap_err(), "its length is not a whole number of base64url characters");
    }
}
