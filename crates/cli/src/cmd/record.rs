//! `arclab record` and helpers shared with `arclab change`: sample arcstats
//! into a SQLite recording for hosts without Prometheus.

use anyhow::{Context, Result};
use arclab_metrics::store::Store;
use arclab_metrics::time::parse_duration;
use arclab_zfs::arcstats::{self, KstatKind};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

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
    /// Time between samples: 10s, 1m, 500ms.
    #[arg(long, short = 'i', default_value = "10s", value_parser = interval)]
    interval: Duration,
    /// procfs root: reads DIR/spl/kstat/zfs/arcstats [default: /proc].
    #[arg(long, value_name = "DIR", conflicts_with = "arcstats")]
    procfs: Option<PathBuf>,
    /// Re-read this arcstats file instead (Linux kstat or FreeBSD sysctl text).
    #[arg(long, value_name = "FILE")]
    arcstats: Option<PathBuf>,
    /// Stop after this many samples (default: until killed).
    #[arg(long, short = 'c')]
    count: Option<u64>,
    /// Instance name stored with a new database [default: this host's name].
    #[arg(long)]
    host: Option<String>,
}

fn interval(s: &str) -> Result<Duration, String> {
    let v = parse_duration(s).map_err(|e| e.to_string())?;
    if v > 86_400.0 {
        return Err("interval must be at most a day".into());
    }
    Ok(Duration::from_secs_f64(v))
}

/// Unix seconds now.
pub(crate) fn now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// This host's name (kernel hostname, else `local`).
pub(crate) fn hostname() -> String {
    ["/proc/sys/kernel/hostname", "/etc/hostname"]
        .iter()
        .find_map(|p| std::fs::read_to_string(p).ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "local".into())
}

fn sample(path: &Path) -> Result<Vec<(String, f64)>> {
    let snap = if path.file_name().is_some_and(|n| n == "arcstats") {
        arcstats::read_kstat(path, KstatKind::ArcStats)?
    } else {
        let text = std::fs::read_to_string(path).with_context(|| path.display().to_string())?;
        arcstats::parse_arcstats(&text, &path.display().to_string())?
    };
    Ok(snap
        .fields
        .iter()
        .map(|f| (f.name.clone(), f.value.as_i128() as f64))
        .collect())
}

pub(crate) fn run(args: RecordArgs) -> Result<()> {
    let path = match (&args.arcstats, &args.procfs) {
        (Some(f), _) => f.clone(),
        (None, Some(d)) => d.join("spl/kstat/zfs/arcstats"),
        (None, None) => PathBuf::from("/proc/spl/kstat/zfs/arcstats"),
    };
    // Read once before touching the database: a wrong path creates no file.
    sample(&path)?;
    let host = args.host.clone().unwrap_or_else(hostname);
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
    let step = args.interval.as_secs_f64();
    loop {
        let t = now();
        let values = sample(&path)?;
        let refs: Vec<(&str, f64)> = values.iter().map(|(n, v)| (n.as_str(), *v)).collect();
        store.insert_sample(t, &refs)?;
        taken += 1;
        if args.count.is_some_and(|n| taken >= n) {
            break;
        }
        // Sleep to the next multiple of the interval, so samples stay on a grid.
        let next = ((now() / step).floor() + 1.0) * step;
        std::thread::sleep(Duration::from_secs_f64((next - now()).max(0.0)));
    }
    eprintln!(
        "arclab: {} samples in {}",
        store.sample_count()?,
        args.db.display()
    );
    Ok(())
}
