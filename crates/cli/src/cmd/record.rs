//! `arclab record` and helpers shared with `arclab change`: sample arcstats
//! into a SQLite recording for hosts without Prometheus.

use crate::args::HostArgs;
use anyhow::Result;
use arclab_metrics::store::Store;
use arclab_metrics::time;
use arclab_zfs::arcstats::{self, KstatKind};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Sample arcstats into a SQLite database (WAL mode: a killed recorder loses
/// at most the sample in flight; running it again appends to the same file).
/// Compare windows of it later with `arclab compare FILE`.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:\n  \
    arclab record --db /var/lib/arclab/arc.db\n  \
    arclab change \"zfs_arc_max=8G\" --db /var/lib/arclab/arc.db\n  \
    arclab record --db arc.db --procfs /host/proc --interval 1m --count 60")]
pub(crate) struct RecordArgs {
    /// The recording database (created if missing).
    #[arg(long, value_name = "FILE")]
    db: PathBuf,
    /// Time between samples: 10s, 1m, 500ms (at most a day).
    #[arg(long, short = 'i', default_value = "10s", value_parser = crate::args::interval)]
    interval: Duration,
    #[command(flatten)]
    host_input: HostArgs,
    /// Stop after this many samples (default: until killed).
    #[arg(long, short = 'c')]
    count: Option<u64>,
    /// Instance name stored with a new database [default: this host's name].
    #[arg(long)]
    host: Option<String>,
}

/// The largest arcstats text `record` reads: a real one is under 16 KiB
/// (Linux kstat and FreeBSD sysctl alike); 1 MiB leaves room for any
/// future fields and refuses a runaway file.
const MAX_ARCSTATS_BYTES: u64 = 1 << 20;

fn sample(path: &Path) -> Result<Vec<(String, f64)>> {
    let snap = if path.file_name().is_some_and(|n| n == "arcstats") {
        arcstats::read_kstat(path, KstatKind::ArcStats)?
    } else {
        let text = arclab_io::read_to_string_limited(path, MAX_ARCSTATS_BYTES)?;
        arcstats::parse_arcstats(&text, &path.display().to_string())?
    };
    Ok(snap
        .fields
        .iter()
        .map(|f| (f.name.clone(), f.value.as_i128() as f64))
        .collect())
}

pub(crate) fn run(args: RecordArgs) -> Result<()> {
    let path = args.host_input.arcstats_path();
    // Read once before touching the database: a wrong path creates no file.
    sample(&path)?;
    let host = args.host.clone().unwrap_or_else(arclab_zfs::host::hostname);
    let mut store = Store::create_or_open(&args.db, &host)?;
    eprintln!(
        "arclab: recording {} into {} every {:?}{}",
        path.display(),
        args.db.display(),
        args.interval,
        args.count
            .map_or(String::new(), |n| format!(", {n} samples"))
    );
    let mut taken = 0u64;
    let mut skipped = 0u64;
    let step = args.interval.as_secs_f64();
    loop {
        let t = time::now();
        // One unreadable arcstats (a module reload, a half-written file) costs
        // that sample only: say so, count it and go on.
        match sample(&path) {
            Ok(values) => {
                let refs: Vec<(&str, f64)> = values.iter().map(|(n, v)| (n.as_str(), *v)).collect();
                store.insert_sample(t, &refs)?;
            }
            Err(e) => {
                skipped += 1;
                eprintln!(
                    "arclab: warning: skipped the sample at {} ({skipped} so far): {e:#}",
                    time::format_time(t)
                );
            }
        }
        taken += 1;
        if args.count.is_some_and(|n| taken >= n) {
            break;
        }
        // Sleep to the next multiple of the interval, so samples stay on a grid.
        let next = ((time::now() / step).floor() + 1.0) * step;
        std::thread::sleep(Duration::from_secs_f64((next - time::now()).max(0.0)));
    }
    eprintln!(
        "arclab: wrote {} samples to {} ({} in all){}",
        taken - skipped,
        args.db.display(),
        store.sample_count()?,
        if skipped > 0 {
            format!("; {skipped} skipped (arcstats unreadable)")
        } else {
            String::new()
        }
    );
    Ok(())
}
