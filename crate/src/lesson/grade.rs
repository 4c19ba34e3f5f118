//! Number answers graded as a teacher grades them: the student's text read whatever the keyboard
//! (`21.7`, `21,7`, `1,024`, full-width `２２`, `≈ 130`), and judged against the run's value
//! within the question's tolerance — exact by default, ±5 % for a question about an average
//! (`mean_messages_over_orders`, or `"about": true`), or what the author set
//! (`"tolerance": 3` absolute, `"tolerance": "10%"` relative).

use super::{Answer, Check, Question};
use crate::error::ScenarioError;
use serde_json::Value;

/// The relative tolerance of an "about" question when its author set none.
pub const ABOUT: f64 = 0.05;
/// The most decimals kept of a typed number (it is held in thousandths).
const DECIMALS: u32 = 3;
/// The largest number a student may type (counts of messages stay far below it).
const MAX: f64 = 1e15;

/// How far from the run's value an answer may be.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Tolerance {
    Exact,
    /// At most this far either way.
    Absolute(f64),
    /// At most this fraction of the run's value either way (`0.05`: ±5 %).
    Relative(f64),
}

impl Tolerance {
    /// Reads a question's `tolerance`: a number (absolute) or `"N%"` (relative).
    pub fn read(v: &Value, path: &str) -> Result<Tolerance, ScenarioError> {
        let bad = || {
            ScenarioError::new(
                path,
                format!(
                    "expected a number (absolute, e.g. 3) or a percentage (relative, e.g. \"5%\"), found {}",
                    crate::write_json(v)
                ),
            )
        };
        let t = match v {
            Value::Number(n) => Tolerance::Absolute(n.as_f64().ok_or_else(bad)?),
            Value::String(s) => {
                let p = s.trim().strip_suffix('%').ok_or_else(bad)?;
                Tolerance::Relative(p.trim().parse::<f64>().map_err(|_| bad())? / 100.0)
            }
            _ => return Err(bad()),
        };
        match t {
            Tolerance::Absolute(x) if !(0.0..=MAX).contains(&x) => Err(bad()),
            Tolerance::Relative(x) if !(0.0..=1.0).contains(&x) => {
                Err(ScenarioError::new(path, format!("must be 0% to 100%, found {}", crate::write_json(v))))
            }
            t => Ok(t),
        }
    }
}

/// The lowest and highest number accepted against `value`.
pub fn range(t: Tolerance, value: f64) -> (f64, f64) {
    let d = match t {
        Tolerance::Exact => 0.0,
        Tolerance::Absolute(x) => x,
        Tolerance::Relative(r) => r * value.abs(),
    };
    (value - d, value + d)
}

impl Question {
    /// The tolerance this question grades with (see the module doc).
    pub fn tolerance(&self) -> Tolerance {
        match self.tolerance {
            Some(t) => t,
            None if self.about || self.check == Check::MeanMessagesOverOrders => Tolerance::Relative(ABOUT),
            None => Tolerance::Exact,
        }
    }

    /// The accepted range for a number answer, or `None` when only the exact value counts (or
    /// the answer is no number).
    pub fn accepted(&self, expected: &Answer) -> Option<(f64, f64)> {
        let value = expected.value()?;
        match self.tolerance() {
            Tolerance::Exact => None,
            t => Some(range(t, value)),
        }
    }

    /// Whether `given` is right against the run's `expected`.
    pub fn accepts(&self, expected: &Answer, given: &Answer) -> bool {
        match (expected.value(), given.value()) {
            (Some(want), Some(got)) => {
                let (lo, hi) = range(self.tolerance(), want);
                // A hair of slack for the thousandths a typed decimal is held in.
                got >= lo - 1e-9 && got <= hi + 1e-9
            }
            _ => expected.matches(given),
        }
    }
}

impl Answer {
    /// A number answer's value (`Number`, `Decimal`).
    pub fn value(&self) -> Option<f64> {
        match self {
            Answer::Number(n) => Some(*n as f64),
            Answer::Decimal(m) => Some(*m as f64 / 10f64.powi(DECIMALS as i32)),
            _ => None,
        }
    }
}

/// A number as written for a reader: `128`, `121.6`, `21.75`.
pub fn show(x: f64) -> String {
    let s = format!("{:.2}", x);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.into()
    }
}

/// Reads what a student typed as a number answer: `Answer::Number` when whole, otherwise
/// `Answer::Decimal` (to 3 decimals). Accepts a decimal point or comma (`21.7`, `21,7`),
/// thousands grouped by commas, points, spaces or apostrophes (`1,024`, `1.024,5`, `1 024`),
/// full-width digits and marks (`２２`, `２１．７`), and words around the number (`≈ 130`,
/// `about 130 messages`, `约 130 条`). `None` when it is no number: empty, two numbers, a sign,
/// an exponent.
pub fn parse_number(text: &str) -> Option<Answer> {
    // Full-width forms to ASCII; the ideographic full stop as a point between digits.
    let norm: String = text
        .chars()
        .map(|c| match c {
            '０'..='９' => char::from(b'0' + (c as u32 - '０' as u32) as u8),
            '．' | '。' => '.',
            '，' | '、' => ',',
            '\u{00a0}' | '\u{202f}' | '\u{2009}' | '\u{3000}' | '\'' | '’' | '_' => ' ',
            c => c,
        })
        .collect();
    let is_num = |c: char| c.is_ascii_digit() || c == '.' || c == ',' || c == ' ';
    // The number is the one run of digits and separators; words may stand around it.
    let first = norm.find(|c: char| c.is_ascii_digit())?;
    let last = norm.rfind(|c: char| c.is_ascii_digit())?;
    let body = &norm[first..=last];
    if !body.chars().all(is_num) || norm[..first].contains(['-', '−', '+']) {
        return None;
    }
    let before = norm[..first].trim_end();
    // A point right before the number: ".5" is 0.5.
    let lead_point = before.ends_with(['.', ',']);
    // Spaces only group thousands ("1 024"), never join two numbers ("12 13").
    let chunks: Vec<&str> = body.split(' ').filter(|c| !c.is_empty()).collect();
    if chunks[1..].iter().any(|c| c.split(['.', ',']).next().is_none_or(|g| g.len() != 3)) {
        return None;
    }
    let mut body: String = body.chars().filter(|c| *c != ' ').collect();
    if lead_point {
        body.insert(0, '.');
    }
    // Which separator is the decimal mark: the last one, unless it groups thousands (a single
    // kind of separator, each followed by exactly three digits, the first group 1-3 digits).
    let seps: Vec<(usize, char)> = body.char_indices().filter(|(_, c)| *c == '.' || *c == ',').collect();
    let decimal = match seps.last() {
        None => None,
        Some(&(i, c)) => {
            let kinds = seps.iter().filter(|(_, s)| *s != c).count();
            let groups: Vec<&str> = body.split(['.', ',']).collect();
            let grouping = kinds == 0
                && groups.len() >= 2
                && (1..=3).contains(&groups[0].len())
                && groups[1..].iter().all(|g| g.len() == 3)
                && (seps.len() > 1 || c == ',');
            if grouping {
                None
            } else if seps.iter().filter(|(_, s)| *s == c).count() > 1 {
                // "1.2.3": two decimal marks.
                return None;
            } else {
                Some(i)
            }
        }
    };
    let (whole, frac) = match decimal {
        Some(i) => (&body[..i], &body[i + 1..]),
        None => (&body[..], ""),
    };
    let whole: String = whole.chars().filter(|c| c.is_ascii_digit()).collect();
    if frac.contains(['.', ',']) {
        return None;
    }
    let whole_n: f64 = if whole.is_empty() { 0.0 } else { whole.parse().ok()? };
    let frac_n: f64 = if frac.is_empty() { 0.0 } else { format!("0.{frac}").parse().ok()? };
    let x = whole_n + frac_n;
    if !x.is_finite() || x > MAX {
        return None;
    }
    let milli = (x * 10f64.powi(DECIMALS as i32)).round() as u64;
    if milli % 10u64.pow(DECIMALS) == 0 {
        Some(Answer::Number(milli / 10u64.pow(DECIMALS)))
    } else {
        Some(Answer::Decimal(milli))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(s: &str) -> Option<f64> {
        parse_number(s).and_then(|a| a.value())
    }

    #[test]
    fn reads_numbers_as_typed_on_any_keyboard() {
        for (text, want) in [
            ("21.7", 21.7),
            ("21,7", 21.7),
            ("２２", 22.0),
            ("２１．７", 21.7),
            ("２１，７", 21.7),
            ("130", 130.0),
            ("1,024", 1024.0),
            ("1.024,5", 1024.5),
            ("1,024.5", 1024.5),
            ("1 024", 1024.0),
            ("499,500", 499500.0),
            ("998,999", 998999.0),
            ("≈ 130", 130.0),
            ("about 21.7 messages", 21.7),
            ("约 130 条", 130.0),
            (" 7 ", 7.0),
            ("0,5", 0.5),
            (".5", 0.5),
            ("21.", 21.0),
            ("1.5", 1.5),
            ("1.234", 1.234),
        ] {
            assert_eq!(read(text), Some(want), "{text:?}");
        }
        assert_eq!(parse_number("21.7"), Some(Answer::Decimal(21_700)));
        assert_eq!(parse_number("２２"), Some(Answer::Number(22)));
        for bad in ["", "abc", "-5", "1e3", "12 or 13", "12 13", "1.2.3", "1,2,3", "1/2", "99999999999999999999"] {
            assert_eq!(parse_number(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn shows_numbers_without_trailing_zeros() {
        assert_eq!(show(128.0), "128");
        assert_eq!(show(121.6), "121.6");
        assert_eq!(show(134.4), "134.4");
        assert_eq!(show(20.9), "20.9");
    }

    #[test]
    fn reads_tolerances_and_refuses_bad_ones() {
        use serde_json::json;
        assert_eq!(Tolerance::read(&json!(3), "t").unwrap(), Tolerance::Absolute(3.0));
        assert_eq!(Tolerance::read(&json!("10%"), "t").unwrap(), Tolerance::Relative(0.1));
        for bad in [json!(-1), json!("150%"), json!("ten"), json!(true), json!("5")] {
            let e = Tolerance::read(&bad, "stops[2].question.tolerance").unwrap_err().to_string();
            assert!(e.starts_with("stops[2].question.tolerance"), "{e}");
        }
    }
}
