//! Printing: stdout handling that treats a closed pipe as success, and the
//! table model every command prints with ([`Table`], from `arclab-report`:
//! text, JSON, CSV, Markdown and HTML exporters).

use std::io::{self, Write};

/// Write to stdout; a closed pipe surfaces as an `io::Error` of kind
/// `BrokenPipe`. Control characters quoted from input files are escaped
/// ([`arclab_io::escape_controls`]), as in every message arclab prints.
pub(crate) fn print(s: &str) -> anyhow::Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(arclab_io::escape_controls(s).as_bytes())?;
    out.flush()?;
    Ok(())
}

/// Print one message line to stderr, control characters escaped (see
/// [`print()`]): for warnings and notes that may quote input.
pub(crate) fn note(s: &str) {
    eprintln!("{}", arclab_io::escape_controls(s));
}

/// Whether an error is only the reader of our output going away.
pub(crate) fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<io::Error>()
            .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
    })
}

pub(crate) use arclab_report::Table;

/// A rate with an SI suffix, e.g. `25.3 M` (the library's one spelling).
pub(crate) use arclab_sim::whatif::words::si;
