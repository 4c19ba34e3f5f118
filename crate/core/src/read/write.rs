//! JSON text written byte for byte as `serde_json::to_string` and `to_string_pretty` write it
//! (keys in order, the same escapes, floats in the same shortest form: `1.0`, `0.001`, `1e-7`,
//! `1.5e+300`), so that what the page stores or shares — links, traces, handoffs, localStorage —
//! is unchanged, while the player's first load links none of serde_json's serializer (issue 29).
//! The twin of [`super::parse_json`].

use serde_json::{Number, Value};

/// `v` as compact JSON text, as `serde_json::to_string` writes it.
pub fn write_json(v: &Value) -> String {
    let mut out = String::new();
    write(&mut out, v, None);
    out
}

/// `v` as JSON text indented by two spaces, as `serde_json::to_string_pretty` writes it.
pub fn write_json_pretty(v: &Value) -> String {
    let mut out = String::new();
    write(&mut out, v, Some(0));
    out
}

/// Writes `v`; `level` is the indentation depth when pretty, `None` when compact.
fn write(out: &mut String, v: &Value, level: Option<usize>) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => number(out, n),
        Value::String(s) => string(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                next_item(out, i, level);
                write(out, item, level.map(|l| l + 1));
            }
            close(out, !items.is_empty(), level, ']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (key, item)) in map.iter().enumerate() {
                next_item(out, i, level);
                string(out, key);
                out.push_str(if level.is_some() { ": " } else { ":" });
                write(out, item, level.map(|l| l + 1));
            }
            close(out, !map.is_empty(), level, '}');
        }
    }
}

/// The comma before an item after the first, and when pretty its own indented line.
fn next_item(out: &mut String, i: usize, level: Option<usize>) {
    if i > 0 {
        out.push(',');
    }
    if let Some(l) = level {
        out.push('\n');
        indent(out, l + 1);
    }
}

/// Closes an array or object; a pretty one with items ends on its own line.
fn close(out: &mut String, items: bool, level: Option<usize>, end: char) {
    if let (true, Some(l)) = (items, level) {
        out.push('\n');
        indent(out, l);
    }
    out.push(end);
}

fn indent(out: &mut String, level: usize) {
    for _ in 0..level {
        out.push_str("  ");
    }
}

fn string(out: &mut String, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => {
                out.push_str("\\u00");
                out.push(char::from(HEX[(c as usize) >> 4]));
                out.push(char::from(HEX[(c as usize) & 0xf]));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn number(out: &mut String, n: &Number) {
    if let Some(u) = n.as_u64() {
        out.push_str(&u.to_string());
    } else if let Some(i) = n.as_i64() {
        out.push_str(&i.to_string());
    } else if let Some(x) = n.as_f64() {
        float(out, x);
    }
}

/// A finite float in serde_json's form (the `zmij` crate's layout): the shortest digits that
/// read back to the same bits, written out plainly for magnitudes from 1e-5 to below 1e16 (with
/// `.0` on a whole number), else as `d.ddde+x` or `d.ddde-x`.
fn float(out: &mut String, x: f64) {
    if x.is_sign_negative() {
        out.push('-');
    }
    if x == 0.0 {
        out.push_str("0.0");
        return;
    }
    let (digits, e) = shortest(x.abs());
    let n = digits.len() as isize;
    // The value is 0.d₁d₂… × 10^kk.
    let kk = e + 1;
    let zeros = |out: &mut String, k: isize| (0..k).for_each(|_| out.push('0'));
    if n <= kk && kk <= 16 {
        out.push_str(&digits);
        zeros(out, kk - n);
        out.push_str(".0");
    } else if 0 < kk && kk <= 16 {
        out.push_str(&digits[..kk as usize]);
        out.push('.');
        out.push_str(&digits[kk as usize..]);
    } else if -5 < kk && kk <= 0 {
        out.push_str("0.");
        zeros(out, -kk);
        out.push_str(&digits);
    } else {
        out.push_str(&digits[..1]);
        if n > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push_str(if kk > 0 { "e+" } else { "e-" });
        out.push_str(&(kk - 1).unsigned_abs().to_string());
    }
}

/// The shortest digits that read back to `x` (positive, finite) and the exponent of the first:
/// Rust's, except where two candidates are equally near `x` (`x` lies exactly halfway,
/// `1398632405386553.25` between `…53.2` and `…53.3`): Rust rounds up, serde_json takes the
/// even digit.
fn shortest(x: f64) -> (String, isize) {
    // `{:?}` (not `{:e}`, whose code brings the exact mode too): `0.001234`, `123.0`, `1.5e-7`.
    let text = format!("{x:?}");
    let (mantissa, e) = text.split_once('e').unwrap_or((&text, "0"));
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all = format!("{int}{frac}");
    let lead = all.bytes().take_while(|&b| b == b'0').count();
    let digits = trimmed(all.as_bytes()[lead..].to_vec());
    let e = e.parse::<isize>().unwrap_or(0) + int.len() as isize - 1 - lead as isize;
    let n = digits.len();
    // Halfway: `x` written out exactly is one digit longer and ends in 5.
    let Some((exact, ee)) = exact(x).filter(|(s, _)| s.len() == n + 1 && s.ends_with('5')) else {
        return (digits, e);
    };
    let mut lo = exact.as_bytes()[..n].to_vec();
    if lo[n - 1] % 2 == 1 {
        // The next digit up is the even one (a carry may lengthen it: 99.5 → 100).
        let mut i = n;
        loop {
            if i == 0 {
                lo.insert(0, b'1');
                return (trimmed(lo), ee + 1);
            }
            i -= 1;
            if lo[i] == b'9' {
                lo[i] = b'0';
            } else {
                lo[i] += 1;
                break;
            }
        }
    }
    (trimmed(lo), ee)
}

fn trimmed(mut digits: Vec<u8>) -> String {
    while digits.len() > 1 && digits.last() == Some(&b'0') {
        digits.pop();
    }
    String::from_utf8(digits).unwrap_or_default()
}

/// The exact decimal digits of `x` (positive, finite; trailing zeros dropped) and the exponent of
/// the first, when they are at most 18 digits: `x` is an odd `m` times `2^e`, so its exact value
/// is `m·2^e` or `m·5^-e / 10^-e`.
fn exact(x: f64) -> Option<(String, isize)> {
    let bits = x.to_bits();
    let (biased, fraction) = ((bits >> 52) & 0x7ff, bits & ((1 << 52) - 1));
    let (mut m, mut e) = if biased == 0 { (fraction, -1074) } else { (fraction | 1 << 52, biased as i32 - 1075) };
    while m % 2 == 0 {
        m /= 2;
        e += 1;
    }
    let (n, shift) = if e >= 0 {
        (m.checked_mul(1u64.checked_shl(e as u32)?)?, 0)
    } else {
        ((0..-e).try_fold(m, |n, _| n.checked_mul(5))?, -e as isize)
    };
    if n >= 1_000_000_000_000_000_000 {
        return None;
    }
    let digits = n.to_string();
    let ee = digits.len() as isize - 1 - shift;
    Some((trimmed(digits.into_bytes()), ee))
}
