//! `arclab change`: record a change marker in a recording database.

use super::UsageError;
use anyhow::Result;
use arclab_metrics::store::Store;
use arclab_metrics::time::{format_time, parse_time};
use std::path::PathBuf;

/// Record a change ("zfs_arc_max=8G") in a recording database, so that
/// `arclab compare --around` can find it and warn when another change falls
/// inside a compared window.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:\n  \
    arclab change \"zfs_arc_max=8G\" --db arc.db\n  \
    arclab change \"autotrim=on\" --at 2025-09-21T14:05:00Z --db arc.db")]
pub(crate) struct ChangeArgs {
    /// What changed, free text.
    what: String,
    /// When: RFC 3339, unix seconds, now-2h [default: now].
    #[arg(long)]
    at: Option<String>,
    /// The recording database (created if missing).
    #[arg(long, value_name = "FILE")]
    db: PathBuf,
}

pub(crate) fn run(args: ChangeArgs) -> Result<()> {
    let now = arclab_metrics::time::now();
    let t = match &args.at {
        Some(s) => parse_time(s, now).map_err(|e| UsageError(format!("--at: {e}")))?,
        None => now,
    };
    if args.what.trim().is_empty() {
        return Err(
            UsageError("the change needs a description, e.g. \"zfs_arc_max=8G\"".into()).into(),
        );
    }
    let mut store = Store::create_or_open(&args.db, &arclab_zfs::host::hostname())?;
    store.add_change(t, args.what.trim())?;
    eprintln!(
        "arclab: recorded `{}` at {} in {}",
        args.what.trim(),
        format_time(t),
        args.db.display()
    );
    Ok(())
}
