//! Argument types shared by the commands that replay (`sim`, `whatif`).
//! The values they stand for (policies, caps, sizes) are parsed by the
//! libraries; this module only adapts them to clap.

use super::UsageError;
use anyhow::Result;

/// `on` / `off`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum OnOff {
    On,
    Off,
}

/// A size in bytes (`16G`, `31.24GiB`), through the one size parser.
pub(crate) fn parse_size(s: &str) -> Result<u64, String> {
    arclab_arc::units::parse_bytes(s).map_err(|e| e.to_string())
}

/// `--threads`: at least 1; default all cores.
pub(crate) fn threads(n: Option<usize>) -> Result<usize> {
    match n {
        Some(0) => Err(UsageError("--threads must be at least 1".into()).into()),
        Some(t) => Ok(t),
        None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
    }
}
