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
//! Every file is written through [`write_atomic`]: a temporary file beside
//! the target, then a rename, so an existing output is never left partial.

pub(crate) mod html;
pub(crate) mod plot;
pub(crate) mod table;

pub(crate) use arclab_sim::whatif::report::{Report, Row, RunSeries};
pub(crate) use arclab_sim::whatif::verdict;

use anyhow::{Context, Result};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Write `bytes` to `path` atomically: a temporary file in the same
/// directory, flushed, then renamed over the target.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = temp_path(path, "");
    let result = (|| -> std::io::Result<()> {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.with_context(|| format!("cannot write {}", path.display()))
}

/// A hidden temporary name beside `path`, ending in `suffix` (plotters picks
/// the image format from the extension).
pub(crate) fn temp_path(path: &Path, suffix: &str) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    let tmp = format!(".{name}.{}.tmp{suffix}", std::process::id());
    path.with_file_name(tmp)
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
