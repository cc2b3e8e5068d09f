//! Printing: stdout handling that treats a closed pipe as success, and the
//! table model every command prints with ([`Table`], from `arclab-report`:
//! text, JSON, CSV, Markdown and HTML exporters).

use std::io::{self, Write};

/// Write to stdout; a closed pipe surfaces as an `io::Error` of kind `BrokenPipe`.
pub(crate) fn print(s: &str) -> anyhow::Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(s.as_bytes())?;
    out.flush()?;
    Ok(())
}

/// Whether an error is only the reader of our output going away.
pub(crate) fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<io::Error>()
            .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
    })
}

pub(crate) use arclab_report::Table;

/// A rate with an SI suffix, e.g. `25.3 M`.
pub(crate) fn si(v: f64) -> String {
    let (d, u) = if v >= 1e9 {
        (1e9, " G")
    } else if v >= 1e6 {
        (1e6, " M")
    } else if v >= 1e3 {
        (1e3, " k")
    } else {
        (1.0, " ")
    };
    format!("{:.1}{u}", v / d).trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn si_units() {
        assert_eq!(si(25_300_000.0), "25.3 M");
        assert_eq!(si(12.0), "12.0");
    }
}
