//! One node's process: started from its command line (split into words as a shell would, but
//! without a shell, so that killing it kills the node), fed one JSON line per event on its
//! standard input and read one line back from its standard output within a time limit. Three
//! threads do its I/O, so that nothing the process does (or fails to do) blocks the run: one
//! writes the events (a process that reads none cannot stall it), one reads standard output
//! line by line into a bounded channel (a silent process is noticed by `recv_timeout`, never
//! waited for), one keeps the last [`STDERR_TAIL`] bytes of standard error for the report.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc::{channel, sync_channel, Receiver, RecvTimeoutError, Sender, TryRecvError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How much of a process's standard error the report quotes (its end).
pub const STDERR_TAIL: usize = 4096;
/// The longest line a process may answer with.
pub const MAX_LINE: usize = 1 << 20;

/// A running node process.
pub struct Child {
    proc: std::process::Child,
    stdin: Option<Sender<String>>,
    lines: Receiver<Result<String, String>>,
    stderr: Arc<Mutex<VecDeque<u8>>>,
    stderr_done: Receiver<()>,
    /// Whether it was stopped (killed and waited for).
    stopped: bool,
    /// Whether it was given an event yet.
    asked: bool,
}

/// `cmd` split into words: blanks separate words, `'...'` is taken literally, `"..."` allows
/// `\"` and `\\`, and a backslash outside quotes escapes the next character.
pub fn words(cmd: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = cmd.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => out.extend(word.take()),
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => w.push(c),
                        None => return Err(format!("`{cmd}`: a quote ' is not closed")),
                    }
                }
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\')) => w.push(c),
                            Some(c) => {
                                w.push('\\');
                                w.push(c);
                            }
                            None => return Err(format!("`{cmd}`: a quote \" is not closed")),
                        },
                        Some(c) => w.push(c),
                        None => return Err(format!("`{cmd}`: a quote \" is not closed")),
                    }
                }
            }
            '\\' => match chars.next() {
                Some(c) => word.get_or_insert_with(String::new).push(c),
                None => return Err(format!("`{cmd}`: it ends with a lone backslash")),
            },
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    out.extend(word);
    if out.is_empty() {
        return Err("an empty command".into());
    }
    Ok(out)
}

impl Child {
    /// Starts `cmd` with piped standard input, output and error.
    pub fn spawn(cmd: &str) -> Result<Child, String> {
        let argv = words(cmd)?;
        let mut proc = Command::new(&argv[0])
            .args(&argv[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start `{cmd}`: {e}"))?;
        let mut stdin_pipe = proc.stdin.take().expect("piped above");
        let (stdin, events) = channel::<String>();
        std::thread::spawn(move || {
            for line in events {
                let wrote = stdin_pipe.write_all(line.as_bytes()).and_then(|_| stdin_pipe.flush());
                if wrote.is_err() {
                    break;
                }
            }
        });
        let stdout = proc.stdout.take().expect("piped above");
        let mut stderr_pipe = proc.stderr.take().expect("piped above");
        let (tx, lines) = sync_channel(16);
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            loop {
                let mut buf = Vec::new();
                match (&mut r).take(MAX_LINE as u64 + 1).read_until(b'\n', &mut buf) {
                    Ok(0) => break,
                    Ok(_) if buf.len() > MAX_LINE => {
                        let _ = tx.send(Err(format!("a line longer than {MAX_LINE} bytes")));
                        break;
                    }
                    Ok(_) => {
                        let line = String::from_utf8_lossy(&buf).trim_end_matches(['\n', '\r']).to_string();
                        if tx.send(Ok(line)).is_err() {
                            break;
                        }
                    }
                    Err(e) => {
                        let _ = tx.send(Err(format!("its output cannot be read: {e}")));
                        break;
                    }
                }
            }
        });
        let stderr = Arc::new(Mutex::new(VecDeque::new()));
        let (done, stderr_done) = channel();
        let tail = stderr.clone();
        std::thread::spawn(move || {
            let mut chunk = [0u8; 1024];
            while let Ok(n) = stderr_pipe.read(&mut chunk) {
                if n == 0 {
                    break;
                }
                let mut t = tail.lock().unwrap_or_else(|e| e.into_inner());
                t.extend(&chunk[..n]);
                let extra = t.len().saturating_sub(STDERR_TAIL);
                t.drain(..extra);
            }
            let _ = done.send(());
        });
        Ok(Child { proc, stdin: Some(stdin), lines, stderr, stderr_done, stopped: false, asked: false })
    }

    /// Writes `line` and waits at most `timeout` for the answer line. On any failure the process
    /// is stopped and the error says what happened (it exited, with its status; it did not
    /// answer in time; its output broke), followed by the end of its standard error.
    pub fn ask(&mut self, line: &str, timeout: Duration) -> Result<String, String> {
        if self.stopped {
            return Err("the process was stopped after an earlier failure".into());
        }
        // One answer an event: a line already waiting answers no event (before the first
        // event, it is the declaration of a process that did not wait to be asked).
        match if self.asked { self.lines.try_recv() } else { Err(TryRecvError::Empty) } {
            Ok(Ok(extra)) => {
                let shown: String = extra.chars().take(200).collect();
                return Err(self.fail(&format!("the process wrote a line after its last answer: `{shown}`")));
            }
            Ok(Err(why)) => return Err(self.fail(&why)),
            Err(TryRecvError::Empty | TryRecvError::Disconnected) => {}
        }
        // The writer thread is gone only if the pipe broke: the process closed its input.
        self.asked = true;
        let sent = self.stdin.as_ref().is_some_and(|w| w.send(format!("{line}\n")).is_ok());
        let got = if sent { self.lines.recv_timeout(timeout) } else { Err(RecvTimeoutError::Disconnected) };
        match got {
            Ok(Ok(answer)) => Ok(answer),
            Ok(Err(why)) => Err(self.fail(&why)),
            Err(RecvTimeoutError::Timeout) => {
                Err(self
                    .fail(&format!("the process did not answer within {} ms (--node-timeout)", timeout.as_millis())))
            }
            Err(RecvTimeoutError::Disconnected) => {
                let status = self.exit_status();
                Err(self.fail(&format!("the process exited ({status}) instead of answering")))
            }
        }
    }

    /// Stops the process and returns `why` with the end of its standard error.
    pub fn fail(&mut self, why: &str) -> String {
        self.stop();
        format!("{why}{}", self.stderr_report())
    }

    /// How the process ended, once its output has closed: it is given a second to exit by itself.
    fn exit_status(&mut self) -> String {
        for _ in 0..100 {
            if let Ok(Some(status)) = self.proc.try_wait() {
                return status.to_string();
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        self.stop();
        "it closed its output and was killed".into()
    }

    /// `; its standard error ends with: ...`, or nothing when it wrote none.
    fn stderr_report(&self) -> String {
        // Its standard error is read to its end once the process is gone (bounded: a process
        // that passed the pipe to another keeps it open).
        let _ = self.stderr_done.recv_timeout(Duration::from_secs(1));
        let tail = self.stderr.lock().unwrap_or_else(|e| e.into_inner());
        let bytes: Vec<u8> = tail.iter().copied().collect();
        let text = String::from_utf8_lossy(&bytes).trim().to_string();
        if text.is_empty() {
            "; it wrote nothing on its standard error".into()
        } else {
            format!("; its standard error ends with:\n{text}")
        }
    }

    /// Kills the process (if it still runs) and waits for it: nothing is left behind.
    pub fn stop(&mut self) {
        if self.stopped {
            return;
        }
        self.stopped = true;
        self.stdin.take();
        let _ = self.proc.kill();
        let _ = self.proc.wait();
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        self.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::words;

    #[test]
    fn commands_split_into_words_as_a_shell_would() {
        assert_eq!(words("python3  my_bully.py --x").unwrap(), ["python3", "my_bully.py", "--x"]);
        assert_eq!(words(r#"node 'a b.js' "c \"d\"" e\ f"#).unwrap(), ["node", "a b.js", "c \"d\"", "e f"]);
        assert_eq!(words("''").unwrap(), [""]);
        assert!(words("python3 'open").unwrap_err().contains("not closed"));
        assert!(words("  ").unwrap_err().contains("empty"));
    }
}
