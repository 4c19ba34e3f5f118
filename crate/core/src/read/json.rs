//! JSON text read into a [`Value`] the way `serde_json::from_str` reads it — the same values
//! (numbers rounded by serde_json's own method, so a float reads to the same bits) and the same
//! messages (`expected value at line 1 column 1`) — except that an object with a key given twice
//! is refused, naming the key's field (`nodes`, `schedule[2].at`): serde_json keeps the last
//! value silently, so a scenario that says `"seed": 1, …, "seed": 2` would run with a seed its
//! author may not have meant. Every reader of scenarios, traces, JSON Lines traces, lessons and
//! experiment specs parses through here. A reader written out by hand rather than serde_json's
//! `Deserializer`: the player's first load then links none of serde's parsing machinery (issue
//! 29); its twin, [`super::write`], writes JSON text as serde_json writes it.

use crate::error::{prefixed, ScenarioError};
use serde_json::{Map, Number, Value};
use std::fmt;

/// Parses `text` as one JSON value; a key given twice in one object is refused by its field.
pub fn parse_json(text: &str) -> Result<Value, ScenarioError> {
    let mut p = Parser { s: text.as_bytes(), i: 0, depth: 128 };
    let value = p.value(&Path::Root).and_then(|v| match p.ws() {
        Some(_) => Err(p.peek_err(TRAILING)),
        None => Ok(v),
    });
    value.map_err(|e| match e {
        Fail::Twice(field) => ScenarioError::new(field, "given twice (a key may appear once in an object)"),
        Fail::Json(e) => ScenarioError::new("", format!("not valid JSON: {e}")),
    })
}

/// Where a value is, rendered only when a key is found twice.
enum Path<'a> {
    Root,
    Key(&'a Path<'a>, &'a str),
    Index(&'a Path<'a>, usize),
}

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Path::Root => Ok(()),
            Path::Key(up, k) => write!(f, "{}", prefixed(&up.to_string(), k)),
            Path::Index(up, i) => write!(f, "{up}[{i}]"),
        }
    }
}

/// Why reading stopped: a key given twice (its field), or text that is not JSON (serde_json's
/// words and position).
enum Fail {
    Twice(String),
    Json(String),
}

const EOF_LIST: &str = "EOF while parsing a list";
const EOF_OBJECT: &str = "EOF while parsing an object";
const EOF_STRING: &str = "EOF while parsing a string";
const EOF_VALUE: &str = "EOF while parsing a value";
const COLON: &str = "expected `:`";
const LIST_COMMA: &str = "expected `,` or `]`";
const OBJECT_COMMA: &str = "expected `,` or `}`";
const IDENT: &str = "expected ident";
const VALUE: &str = "expected value";
const ESCAPE: &str = "invalid escape";
const NUMBER: &str = "invalid number";
const RANGE: &str = "number out of range";
const CONTROL: &str = "control character (\\u0000-\\u001F) found while parsing a string";
const KEY: &str = "key must be a string";
const SURROGATE: &str = "lone leading surrogate in hex escape";
const HEX_END: &str = "unexpected end of hex escape";
const TRAILING_COMMA: &str = "trailing comma";
const TRAILING: &str = "trailing characters";
const DEPTH: &str = "recursion limit exceeded";

/// The powers of ten serde_json scales a decimal's digits by, each as the compiler rounds it.
#[rustfmt::skip]
const POW10: [f64; 309] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22, 1e23, 1e24, 1e25, 1e26, 1e27, 1e28, 1e29, 1e30, 1e31, 1e32,
    1e33, 1e34, 1e35, 1e36, 1e37, 1e38, 1e39, 1e40, 1e41, 1e42, 1e43, 1e44, 1e45, 1e46, 1e47, 1e48,
    1e49, 1e50, 1e51, 1e52, 1e53, 1e54, 1e55, 1e56, 1e57, 1e58, 1e59, 1e60, 1e61, 1e62, 1e63, 1e64,
    1e65, 1e66, 1e67, 1e68, 1e69, 1e70, 1e71, 1e72, 1e73, 1e74, 1e75, 1e76, 1e77, 1e78, 1e79, 1e80,
    1e81, 1e82, 1e83, 1e84, 1e85, 1e86, 1e87, 1e88, 1e89, 1e90, 1e91, 1e92, 1e93, 1e94, 1e95, 1e96,
    1e97, 1e98, 1e99, 1e100, 1e101, 1e102, 1e103, 1e104, 1e105, 1e106, 1e107, 1e108, 1e109, 1e110,
    1e111, 1e112, 1e113, 1e114, 1e115, 1e116, 1e117, 1e118, 1e119, 1e120, 1e121, 1e122, 1e123,
    1e124, 1e125, 1e126, 1e127, 1e128, 1e129, 1e130, 1e131, 1e132, 1e133, 1e134, 1e135, 1e136,
    1e137, 1e138, 1e139, 1e140, 1e141, 1e142, 1e143, 1e144, 1e145, 1e146, 1e147, 1e148, 1e149,
    1e150, 1e151, 1e152, 1e153, 1e154, 1e155, 1e156, 1e157, 1e158, 1e159, 1e160, 1e161, 1e162,
    1e163, 1e164, 1e165, 1e166, 1e167, 1e168, 1e169, 1e170, 1e171, 1e172, 1e173, 1e174, 1e175,
    1e176, 1e177, 1e178, 1e179, 1e180, 1e181, 1e182, 1e183, 1e184, 1e185, 1e186, 1e187, 1e188,
    1e189, 1e190, 1e191, 1e192, 1e193, 1e194, 1e195, 1e196, 1e197, 1e198, 1e199, 1e200, 1e201,
    1e202, 1e203, 1e204, 1e205, 1e206, 1e207, 1e208, 1e209, 1e210, 1e211, 1e212, 1e213, 1e214,
    1e215, 1e216, 1e217, 1e218, 1e219, 1e220, 1e221, 1e222, 1e223, 1e224, 1e225, 1e226, 1e227,
    1e228, 1e229, 1e230, 1e231, 1e232, 1e233, 1e234, 1e235, 1e236, 1e237, 1e238, 1e239, 1e240,
    1e241, 1e242, 1e243, 1e244, 1e245, 1e246, 1e247, 1e248, 1e249, 1e250, 1e251, 1e252, 1e253,
    1e254, 1e255, 1e256, 1e257, 1e258, 1e259, 1e260, 1e261, 1e262, 1e263, 1e264, 1e265, 1e266,
    1e267, 1e268, 1e269, 1e270, 1e271, 1e272, 1e273, 1e274, 1e275, 1e276, 1e277, 1e278, 1e279,
    1e280, 1e281, 1e282, 1e283, 1e284, 1e285, 1e286, 1e287, 1e288, 1e289, 1e290, 1e291, 1e292,
    1e293, 1e294, 1e295, 1e296, 1e297, 1e298, 1e299, 1e300, 1e301, 1e302, 1e303, 1e304, 1e305,
    1e306, 1e307, 1e308,
];

struct Parser<'a> {
    s: &'a [u8],
    /// Bytes consumed.
    i: usize,
    /// Arrays and objects that may still open (serde_json's recursion limit, 128).
    depth: u32,
}

type Res<T> = Result<T, Fail>;

impl Parser<'_> {
    /// The error `what` at byte `at`, placed as serde_json places it (line from 1, column = bytes
    /// since the line's start).
    fn err_at(&self, what: &str, at: usize) -> Fail {
        let before = &self.s[..at];
        let start = before.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
        let line = 1 + before[..start].iter().filter(|&&b| b == b'\n').count();
        Fail::Json(format!("{what} at line {line} column {}", at - start))
    }
    /// At the last byte consumed.
    fn err(&self, what: &str) -> Fail {
        self.err_at(what, self.i)
    }
    /// At the next byte.
    fn peek_err(&self, what: &str) -> Fail {
        self.err_at(what, (self.i + 1).min(self.s.len()))
    }
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }
    fn next(&mut self) -> Option<u8> {
        let c = self.peek();
        self.i += usize::from(c.is_some());
        c
    }
    /// Skips whitespace and peeks.
    fn ws(&mut self) -> Option<u8> {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.peek() {
            self.i += 1;
        }
        self.peek()
    }

    fn value(&mut self, at: &Path) -> Res<Value> {
        let Some(c) = self.ws() else { return Err(self.peek_err(EOF_VALUE)) };
        match c {
            b'n' => self.ident(b"null").map(|()| Value::Null),
            b't' => self.ident(b"true").map(|()| Value::Bool(true)),
            b'f' => self.ident(b"false").map(|()| Value::Bool(false)),
            b'-' => {
                self.i += 1;
                self.number(false)
            }
            b'0'..=b'9' => self.number(true),
            b'"' => {
                self.i += 1;
                self.string().map(Value::String)
            }
            b'[' | b'{' => {
                self.depth -= 1;
                if self.depth == 0 {
                    return Err(self.peek_err(DEPTH));
                }
                self.i += 1;
                let v = if c == b'[' { self.array(at) } else { self.object(at) };
                self.depth += 1;
                v
            }
            _ => Err(self.peek_err(VALUE)),
        }
    }

    fn ident(&mut self, word: &[u8]) -> Res<()> {
        self.i += 1;
        for &want in &word[1..] {
            match self.next() {
                None => return Err(self.err(EOF_VALUE)),
                Some(c) if c != want => return Err(self.err(IDENT)),
                Some(_) => {}
            }
        }
        Ok(())
    }

    fn array(&mut self, at: &Path) -> Res<Value> {
        let mut out = Vec::new();
        loop {
            let c = match self.ws() {
                Some(b']') => {
                    self.i += 1;
                    return Ok(Value::Array(out));
                }
                Some(b',') if !out.is_empty() => {
                    self.i += 1;
                    self.ws()
                }
                Some(c) if out.is_empty() => Some(c),
                Some(_) => return Err(self.peek_err(LIST_COMMA)),
                None => return Err(self.peek_err(EOF_LIST)),
            };
            match c {
                Some(b']') => return Err(self.peek_err(TRAILING_COMMA)),
                Some(_) => {}
                None => return Err(self.peek_err(EOF_VALUE)),
            }
            let v = self.value(&Path::Index(at, out.len()))?;
            out.push(v);
        }
    }

    fn object(&mut self, at: &Path) -> Res<Value> {
        let mut out = Map::new();
        let mut first = true;
        loop {
            let c = match self.ws() {
                Some(b'}') => {
                    self.i += 1;
                    return Ok(Value::Object(out));
                }
                Some(b',') if !first => {
                    self.i += 1;
                    self.ws()
                }
                Some(c) if first => Some(c),
                Some(_) => return Err(self.peek_err(OBJECT_COMMA)),
                None => return Err(self.peek_err(EOF_OBJECT)),
            };
            first = false;
            match c {
                Some(b'"') => {}
                Some(b'}') => return Err(self.peek_err(TRAILING_COMMA)),
                Some(_) => return Err(self.peek_err(KEY)),
                None => return Err(self.peek_err(EOF_VALUE)),
            }
            self.i += 1;
            let key = self.string()?;
            let here = Path::Key(at, &key);
            if out.contains_key(&key) {
                return Err(Fail::Twice(here.to_string()));
            }
            match self.ws() {
                Some(b':') => self.i += 1,
                Some(_) => return Err(self.peek_err(COLON)),
                None => return Err(self.peek_err(EOF_OBJECT)),
            }
            let v = self.value(&here)?;
            out.insert(key, v);
        }
    }

    /// The rest of a string whose opening quote is consumed.
    fn string(&mut self) -> Res<String> {
        let mut out = String::new();
        loop {
            let start = self.i;
            while let Some(c) = self.peek() {
                if c == b'"' || c == b'\\' || c < 0x20 {
                    break;
                }
                self.i += 1;
            }
            // The text is a `&str` and the stops are ASCII, so each run is whole UTF-8.
            out.push_str(std::str::from_utf8(&self.s[start..self.i]).unwrap_or_default());
            match self.next() {
                None => return Err(self.err(EOF_STRING)),
                Some(b'"') => return Ok(out),
                Some(b'\\') => self.escape(&mut out)?,
                Some(_) => return Err(self.err(CONTROL)),
            }
        }
    }

    fn escape(&mut self, out: &mut String) -> Res<()> {
        let c = match self.next() {
            None => return Err(self.err(EOF_STRING)),
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => return self.unicode(out),
            Some(_) => return Err(self.err(ESCAPE)),
        };
        out.push(c);
        Ok(())
    }

    fn hex4(&mut self) -> Res<u32> {
        let Some(digits) = self.s.get(self.i..self.i + 4) else {
            self.i = self.s.len();
            return Err(self.err(EOF_STRING));
        };
        self.i += 4;
        let digits = std::str::from_utf8(digits).ok().filter(|d| d.bytes().all(|b| b.is_ascii_hexdigit()));
        digits.and_then(|d| u32::from_str_radix(d, 16).ok()).ok_or_else(|| self.err(ESCAPE))
    }

    /// `\uXXXX`, a surrogate pair as one character; a lone surrogate is refused.
    fn unicode(&mut self, out: &mut String) -> Res<()> {
        let n = self.hex4()?;
        if (0xDC00..=0xDFFF).contains(&n) {
            return Err(self.err(SURROGATE));
        }
        if !(0xD800..=0xDBFF).contains(&n) {
            out.push(char::from_u32(n).unwrap_or_default());
            return Ok(());
        }
        for want in [b'\\', b'u'] {
            match self.peek() {
                None => return Err(self.err(EOF_STRING)),
                Some(c) => {
                    self.i += 1;
                    if c != want {
                        return Err(self.err(HEX_END));
                    }
                }
            }
        }
        let n2 = self.hex4()?;
        if !(0xDC00..=0xDFFF).contains(&n2) {
            return Err(self.err(SURROGATE));
        }
        out.push(char::from_u32((((n - 0xD800) << 10) | (n2 - 0xDC00)) + 0x1_0000).unwrap_or_default());
        Ok(())
    }

    /// A number whose sign is consumed: an integer as `u64` or `i64` while it fits, else a float
    /// from its digits as serde_json computes it (the digits as a `u64`, scaled by one power of
    /// ten; digits past a `u64`'s reach are dropped or counted into the exponent).
    fn number(&mut self, positive: bool) -> Res<Value> {
        let mut m: u64 = match self.next() {
            None => return Err(self.err(EOF_VALUE)),
            Some(b'0') => {
                if let Some(b'0'..=b'9') = self.peek() {
                    return Err(self.peek_err(NUMBER));
                }
                0
            }
            Some(c @ b'1'..=b'9') => u64::from(c - b'0'),
            Some(_) => return Err(self.err(NUMBER)),
        };
        let mut exp: i32 = 0;
        // Past a `u64`'s reach, further integer digits only count into the exponent.
        let mut long = false;
        while let Some(c @ b'0'..=b'9') = self.peek() {
            self.i += 1;
            match m.checked_mul(10).and_then(|x| x.checked_add(u64::from(c - b'0'))) {
                Some(x) if !long => m = x,
                _ => {
                    long = true;
                    exp += 1;
                }
            }
        }
        let float = long || matches!(self.peek(), Some(b'.' | b'e' | b'E'));
        if self.peek() == Some(b'.') {
            self.i += 1;
            // serde_json tries each fraction digit anew, then drops the rest at the first that
            // does not fit.
            let (mut digits, mut dropped) = (0, false);
            while let Some(c @ b'0'..=b'9') = self.peek() {
                self.i += 1;
                digits += 1;
                match m.checked_mul(10).and_then(|x| x.checked_add(u64::from(c - b'0'))) {
                    Some(x) if !dropped => {
                        m = x;
                        exp -= 1;
                    }
                    _ => dropped = true,
                }
            }
            if digits == 0 {
                return Err(self.peek_err(if self.peek().is_some() { NUMBER } else { EOF_VALUE }));
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.i += 1;
            let up = match self.peek() {
                Some(b'+') => {
                    self.i += 1;
                    true
                }
                Some(b'-') => {
                    self.i += 1;
                    false
                }
                _ => true,
            };
            let mut e: i32 = match self.next() {
                None => return Err(self.err(EOF_VALUE)),
                Some(c @ b'0'..=b'9') => i32::from(c - b'0'),
                Some(_) => return Err(self.err(NUMBER)),
            };
            while let Some(c @ b'0'..=b'9') = self.peek() {
                self.i += 1;
                match e.checked_mul(10).and_then(|x| x.checked_add(i32::from(c - b'0'))) {
                    Some(x) => e = x,
                    None => {
                        if m != 0 && up {
                            return Err(self.err(RANGE));
                        }
                        while let Some(b'0'..=b'9') = self.peek() {
                            self.i += 1;
                        }
                        return Ok(float_value(if positive { 0.0 } else { -0.0 }));
                    }
                }
            }
            exp = if up { exp.saturating_add(e) } else { exp.saturating_sub(e) };
        }
        if !float {
            if positive {
                return Ok(Value::from(m));
            }
            let neg = (m as i64).wrapping_neg();
            return Ok(if neg >= 0 { float_value(-(m as f64)) } else { Value::from(neg) });
        }
        self.scaled(positive, m, exp).map(float_value)
    }

    /// `m × 10^exp` as serde_json computes it (one multiplication or division by a power of ten).
    fn scaled(&self, positive: bool, m: u64, mut exp: i32) -> Res<f64> {
        let mut f = m as f64;
        loop {
            match POW10.get(exp.unsigned_abs() as usize) {
                Some(&p) => {
                    if exp >= 0 {
                        f *= p;
                        if f.is_infinite() {
                            return Err(self.err(RANGE));
                        }
                    } else {
                        f /= p;
                    }
                    break;
                }
                None => {
                    if f == 0.0 {
                        break;
                    }
                    if exp >= 0 {
                        return Err(self.err(RANGE));
                    }
                    f /= 1e308;
                    exp += 308;
                }
            }
        }
        Ok(if positive { f } else { -f })
    }
}

fn float_value(x: f64) -> Value {
    Number::from_f64(x).map_or(Value::Null, Value::Number)
}

#[cfg(test)]
mod tests {
    use super::parse_json;
    use serde_json::Value;

    #[test]
    fn reads_what_serde_json_reads_and_refuses_a_key_given_twice() {
        for text in [
            r#"{"a": [1, -2, 3.5, 1e300, "x", null, true, {"b": {}}], "c": 18446744073709551615}"#,
            "[]",
            " 7 ",
            r#""\u00e9\n""#,
        ] {
            assert_eq!(parse_json(text).unwrap(), serde_json::from_str::<Value>(text).unwrap(), "{text}");
        }
        let err = |t: &str| parse_json(t).unwrap_err().to_string();
        assert_eq!(err(r#"{"seed": 1, "seed": 2}"#), "seed: given twice (a key may appear once in an object)");
        assert!(err(r#"{"schedule": [{"at": 1}, {"at": 2, "crash": 1, "at": 3}]}"#)
            .starts_with("schedule[1].at: given twice"));
        assert!(err(r#"{"a": 1} x"#).starts_with("not valid JSON: trailing characters"));
        assert!(err("{").starts_with("not valid JSON: EOF while parsing"));
        // Deep nesting stops at serde_json's recursion limit, as from_str does.
        assert!(err(&"[".repeat(100_000)).starts_with("not valid JSON: recursion limit exceeded"));
    }
}
