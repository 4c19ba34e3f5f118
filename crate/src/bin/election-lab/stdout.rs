//! Standard output, written the way `grep` and `rg` write it: when the reader has gone (`| head -1`
//! closed the pipe), nobody is left to read the rest, so the command stops there quietly with exit
//! code 0. Any other write error is named, with exit code 2. Every write to standard output goes
//! through here (`println!` would panic on a closed pipe).

use super::{Failure, BAD_INPUT};
use std::fmt::Display;
use std::io::{self, Write};

/// The failure for an error writing `name` (standard output or a file): quiet, with exit code 0,
/// when the reader closed the pipe.
pub(super) fn write_error(name: &str, e: io::Error) -> Failure {
    if e.kind() == io::ErrorKind::BrokenPipe {
        Failure(0, String::new())
    } else {
        Failure(BAD_INPUT, format!("writing {name}: {e}"))
    }
}

/// Writes `text` to standard output as is, and flushes it.
pub(super) fn print(text: impl Display) -> Result<(), Failure> {
    let mut out = io::stdout().lock();
    write!(out, "{text}").and_then(|()| out.flush()).map_err(|e| write_error("standard output", e))
}

/// Writes `text` and a newline to standard output.
pub(super) fn println(text: impl Display) -> Result<(), Failure> {
    print(format_args!("{text}\n"))
}
