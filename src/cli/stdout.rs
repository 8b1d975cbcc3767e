//! Writing a command's output to stdout, where a closed pipe (`ralph pin search … | head -1`) is
//! not an error. A leaf every handler and the envelope print through.

use anyhow::Context;

/// Write to stdout; a closed pipe (`ralph pin search … | head -1`) is not an error.
pub(crate) fn emit(text: &str) -> anyhow::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(e).context("cannot write to stdout")
        }
        _ => Ok(()),
    }
}
