//! Reading a trace file of any length: a JSON Lines trace (`run --trace`) is read one line at a
//! time — its header rebuilds the run and every later line is checked against the re-run as it
//! is read — so that what the CLI writes within the history budget it reads back, whatever its
//! size; any other file (a scenario, a one-object trace) is read whole, up to the engine's
//! limit on text ([`MAX_BYTES`]).

use election_lab::scenario::{check_size, MAX_BYTES};
use election_lab::{Engine, ScenarioError};
use serde_json::Value;
use std::io::{self, BufRead, BufReader, Read};

/// A file as read so far.
pub enum Input {
    /// The whole text (not JSON Lines, or short enough to read whole).
    Text(String),
    /// JSON Lines: the header line, and the reader positioned after it.
    Lines { header: String, rest: Reader },
}

/// Lines read one at a time, each at most [`MAX_BYTES`] long, numbered from the file's start.
pub struct Reader {
    inner: BufReader<Box<dyn Read>>,
    /// The number of the last line read.
    line: usize,
    path: String,
}

impl Reader {
    /// The next line (without its end), or None at the end of the file.
    fn next_line(&mut self) -> Result<Option<String>, String> {
        let mut buf = Vec::new();
        let n = (&mut self.inner)
            .take(MAX_BYTES as u64 + 1)
            .read_until(b'\n', &mut buf)
            .map_err(|e| format!("cannot read {}: {e}", self.path))?;
        if n == 0 {
            return Ok(None);
        }
        self.line += 1;
        if buf.len() > MAX_BYTES && buf.last() != Some(&b'\n') {
            return Err(format!(
                "{}: line {} is longer than the {MAX_BYTES} bytes a line may have",
                self.path, self.line
            ));
        }
        while matches!(buf.last(), Some(b'\n' | b'\r')) {
            buf.pop();
        }
        String::from_utf8(buf).map(Some).map_err(|_| format!("{}: line {} is not UTF-8 text", self.path, self.line))
    }
}

/// Opens `path` (`-`: standard input) and reads as much as it takes to know what it is.
pub fn open(path: &str) -> Result<Input, String> {
    let too_big = |bytes: usize| check_size(bytes).map_err(|e| format!("{path}: {e}"));
    let (inner, len): (Box<dyn Read>, Option<usize>) = if path == "-" {
        (Box::new(io::stdin()), None)
    } else {
        let file = std::fs::File::open(path).map_err(|e| format!("cannot read {path}: {e}"))?;
        let len = file.metadata().map_err(|e| format!("cannot read {path}: {e}"))?.len();
        (Box::new(file), Some(usize::try_from(len).unwrap_or(usize::MAX)))
    };
    let mut r = Reader { inner: BufReader::new(inner), line: 0, path: path.to_string() };
    let first = match r.next_line() {
        Ok(Some(first)) => first,
        Ok(None) => return Ok(Input::Text(String::new())),
        // A first line past the limit: the file is too big, whatever it is.
        // (On standard input, what was read: one byte past the limit.)
        Err(e) => return Err(too_big(len.unwrap_or(MAX_BYTES + 1)).err().unwrap_or(e)),
    };
    let object =
        first.trim_start().starts_with('{') && serde_json::from_str::<Value>(&first).is_ok_and(|v| v.is_object());
    let mut text = first;
    if object {
        // A whole object on the first line: JSON Lines if another non-empty line follows.
        let mut blank = String::new();
        while let Some(line) = r.next_line()? {
            if line.trim().is_empty() {
                blank.push('\n');
                continue;
            }
            r.line -= 1;
            let pending = std::mem::replace(&mut r.inner, BufReader::new(Box::new(io::empty())));
            let chained: Box<dyn Read> = Box::new(io::Cursor::new(format!("{line}\n").into_bytes()).chain(pending));
            r.inner = BufReader::new(chained);
            return Ok(Input::Lines { header: text, rest: r });
        }
        text.push_str(&blank);
        return Ok(Input::Text(text));
    }
    // Anything else is read whole, up to the limit.
    text.push('\n');
    let mut rest = String::new();
    (&mut r.inner)
        .take(MAX_BYTES as u64 + 1)
        .read_to_string(&mut rest)
        .map_err(|e| format!("cannot read {path}: {e}"))?;
    text.push_str(&rest);
    too_big(text.len())?;
    Ok(Input::Text(text))
}

/// A trace file's run, every JSON Lines line checked against the re-run.
pub fn load(path: &str) -> Result<Engine, String> {
    match open(path)? {
        Input::Text(text) => Engine::from_trace_json(&text).map_err(|e| format!("{path}: {e}")),
        Input::Lines { header, mut rest } => {
            let mut failed: Option<String> = None;
            let mut lines = std::iter::once(Ok((1, header))).chain(std::iter::from_fn(|| match rest.next_line() {
                Ok(Some(l)) => Some(Ok((rest.line, l))),
                Ok(None) => None,
                Err(e) => {
                    failed = Some(e.clone());
                    Some(Err(ScenarioError::new("", e)))
                }
            }));
            let e = Engine::from_jsonl_lines(&mut lines);
            match (failed, e) {
                (Some(why), _) => Err(why),
                (None, r) => r.map_err(|e| format!("{path}: {e}")),
            }
        }
    }
}

/// The trace a file holds (of JSON Lines: its header), read no further than it takes.
pub fn trace_text(path: &str) -> Result<String, String> {
    match open(path)? {
        Input::Text(text) => Ok(text),
        Input::Lines { header, .. } => Ok(header),
    }
}
