//! The presentation half of `arclab whatif`: one result struct ([`Report`])
//! and one exporter per output format, all fed by it.
//!
//! - [`table`]: the human table (text, Markdown) and the machine ones (CSV,
//!   JSON);
//! - [`verdict`]: the one-paragraph plain-language verdict;
//! - [`plot`]: PNG and SVG charts (`plotters`, DejaVu Sans embedded, so no
//!   system font is needed);
//! - [`html`]: one self-contained HTML page (inline SVG, inline CSS, no
//!   external URL);
//!
//! The report itself ([`Report`], one [`Row`] per run), the disk model
//! behind `disk_busy_ratio` and the verdict live in the library
//! (`arclab_sim::whatif::{report, device, verdict}`).
//!
//! Every file is written through [`write_atomic`], i.e. `arclab-io`'s one
//! atomic writer: a randomly named temporary file beside the target, then a
//! rename, so an existing output is never left partial and no planted
//! symlink is followed.

pub(crate) mod html;
pub(crate) mod plot;
pub(crate) mod table;

pub(crate) use arclab_sim::whatif::report::{Report, Row, RunSeries};
pub(crate) use arclab_sim::whatif::verdict;

use anyhow::Result;
use std::path::Path;

/// Write `bytes` to `path` atomically ([`arclab_io::write_atomic`]).
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    Ok(arclab_io::write_atomic(path, bytes)?)
}

#[cfg(test)]
pub(crate) mod fixture {
    //! A report built by hand, shaped like the blog's numbers.

    pub(crate) use arclab_sim::whatif::report::example as report;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_whole_file_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("out.txt");
        std::fs::write(&p, "old").unwrap();
        write_atomic(&p, b"new contents").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "new contents");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1);
        // A directory that does not exist: an error naming the file, nothing left behind.
        let bad = dir.path().join("missing/out.txt");
        let e = write_atomic(&bad, b"x").unwrap_err();
        assert!(format!("{e:#}").contains("missing/out.txt"));
    }
}
