//! Printing a command's result on stdout. `println!` panics when stdout is a pipe whose reader
//! has gone (`dispatch webhooks failed | head`); a command's output is written here instead,
//! where a reader that stopped reading ends the command quietly and successfully, as Unix tools
//! do, and any other write failure is an error message with a non-zero exit status.

use std::io::{ErrorKind, Write};

/// Writes `text` and a newline to stdout and flushes it.
pub fn line(text: &str) -> Result<(), String> {
    let mut out = std::io::stdout().lock();
    match writeln!(out, "{text}").and_then(|()| out.flush()) {
        Err(e) if e.kind() != ErrorKind::BrokenPipe => {
            Err(format!("cannot write to standard output: {e}"))
        }
        _ => Ok(()),
    }
}
