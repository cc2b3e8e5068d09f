//! The command line's shared vocabulary: one place for how sizes,
//! durations, thread counts, cap lists, host inputs and output formats are
//! spelled and checked. The parsing itself lives in the libraries
//! ([`arclab_arc::units::parse_bytes`], [`arclab_arc::units::parse_duration`]);
//! this module adapts them to clap and adds the command line's bounds.

use crate::cmd::UsageError;
use anyhow::Result;
use arclab_arc::units;
use arclab_report::Format;
use arclab_trace::{CsvOptions, OpenOptions, TraceReader};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Clap value parser: a byte count (`8G`, `512MiB`, `4096`; binary units).
pub(crate) fn size(s: &str) -> Result<u64, String> {
    units::parse_bytes(s).map_err(|e| e.to_string())
}

/// Clap value parser: a host's RAM, a [`size`] within the one range arclab
/// models ([`arclab_arc::limits::check_ram`]: 64 MiB to 1 PiB), for every
/// command's `--ram`.
pub(crate) fn ram(s: &str) -> Result<u64, String> {
    let bytes = size(s)?;
    arclab_arc::limits::check_ram(bytes).map_err(|e| e.to_string())?;
    Ok(bytes)
}

/// Clap value parser: a pool's compression ratio as `zfs get compressratio`
/// prints it (`1.52x`) or a plain number, from 1 (no compression) to 100.
pub(crate) fn compress_ratio(s: &str) -> Result<f64, String> {
    let t = s.trim();
    let t = t.strip_suffix(['x', 'X']).unwrap_or(t);
    let v: f64 = t
        .parse()
        .map_err(|_| format!("`{s}` is not a ratio such as 1.5 or 1.52x"))?;
    if !(1.0..=100.0).contains(&v) {
        return Err(format!("`{s}`: a compression ratio is between 1 and 100"));
    }
    Ok(v)
}

/// Clap value parser: memory the ARC holds and cannot evict from the start,
/// `dnode=SIZE,dbuf=SIZE,bonus=SIZE,metadata=SIZE` (any of the four, each at
/// most once; [`size`]s), as arcstats' `dnode_size`, `dbuf_size` and
/// `bonus_size` show it for the host's open files, and `metadata` as the
/// metadata buffers held (`mru_metadata` + `mfu_metadata` less their
/// evictable parts). Returns the four byte counts in that order.
pub(crate) fn pinned(s: &str) -> Result<[u64; 4], String> {
    const NAMES: [&str; 4] = ["dnode", "dbuf", "bonus", "metadata"];
    let mut out = [0u64; 4];
    let mut seen = [false; 4];
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (name, v) = part
            .split_once('=')
            .ok_or_else(|| format!("`{part}` is not NAME=SIZE, e.g. dnode=3890016"))?;
        let name = name.trim();
        let i = NAMES
            .iter()
            .position(|n| *n == name)
            .ok_or_else(|| format!("`{name}` is not one of {} (in `{s}`)", NAMES.join(", ")))?;
        if std::mem::replace(&mut seen[i], true) {
            return Err(format!("`{name}` is given twice in `{s}`"));
        }
        out[i] = size(v).map_err(|e| format!("{name}: {e}"))?;
    }
    if !seen.iter().any(|&b| b) {
        return Err(format!("`{s}` names none of {}", NAMES.join(", ")));
    }
    Ok(out)
}

/// Clap value parser: `NAME=N`, a model tunable (as a scenario's
/// `[tunables]` table names it) set to the whole number `N`.
pub(crate) fn tunable(s: &str) -> Result<(String, u64), String> {
    let (name, v) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}` is not NAME=N, e.g. txg_timeout=5"))?;
    let v: u64 = v
        .trim()
        .parse()
        .map_err(|_| format!("`{s}`: the value of {name} is not a whole number ≥ 0"))?;
    let mut scratch = arclab_arc::model::Tunables::default();
    arclab_sim::scenario::apply_tunable(&mut scratch, name.trim(), v)?;
    Ok((name.trim().to_string(), v))
}

/// Clap value parser: a duration (`500ms`, `15s`, `5m`, `2h`, `1d`, `1w`,
/// plain seconds; above zero, at most 100 years).
pub(crate) fn duration(s: &str) -> Result<Duration, String> {
    units::parse_duration(s).map_err(|e| e.to_string())
}

/// Clap value parser: a duration in seconds (see [`duration`]).
pub(crate) fn seconds(s: &str) -> Result<f64, String> {
    duration(s).map(|d| d.as_secs_f64())
}

/// The longest sampling interval (`record`, `top`): a day.
pub(crate) const MAX_INTERVAL: Duration = Duration::from_secs(86_400);

/// Clap value parser: a sampling interval, a [`duration`] of at most a day.
pub(crate) fn interval(s: &str) -> Result<Duration, String> {
    let d = duration(s)?;
    if d > MAX_INTERVAL {
        return Err(format!("interval `{s}` must be at most a day"));
    }
    Ok(d)
}

/// The most worker threads `--threads` accepts.
pub(crate) const MAX_THREADS: usize = 1024;

/// `--threads N`: worker threads, all cores by default.
#[derive(clap::Args, Debug, Clone, Copy, Default)]
pub(crate) struct ThreadArgs {
    /// Worker threads (default: all cores; 1 runs everything on one thread).
    #[arg(long, value_name = "N", value_parser = threads)]
    pub(crate) threads: Option<usize>,
}

fn threads(s: &str) -> Result<usize, String> {
    let n: usize = s
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a whole number"))?;
    if !(1..=MAX_THREADS).contains(&n) {
        return Err(format!("must be between 1 and {MAX_THREADS}"));
    }
    Ok(n)
}

impl ThreadArgs {
    /// The number of threads to use: the one given, else the cores available.
    pub(crate) fn get(&self) -> usize {
        self.threads.unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(1, |n| n.get().min(MAX_THREADS))
        })
    }
}

/// Where live arcstats come from: a procfs root, or a file to re-read.
#[derive(clap::Args, Debug, Clone, Default)]
pub(crate) struct HostArgs {
    /// procfs root: reads DIR/spl/kstat/zfs/arcstats [default: /proc].
    #[arg(long, value_name = "DIR", conflicts_with = "arcstats")]
    pub(crate) procfs: Option<PathBuf>,
    /// Re-read this arcstats file instead (Linux kstat or FreeBSD sysctl text).
    #[arg(long, value_name = "FILE")]
    pub(crate) arcstats: Option<PathBuf>,
}

impl HostArgs {
    /// The arcstats file to read.
    pub(crate) fn arcstats_path(&self) -> PathBuf {
        match (&self.arcstats, &self.procfs) {
            (Some(f), _) => f.clone(),
            (None, Some(d)) => d.join("spl/kstat/zfs/arcstats"),
            (None, None) => Path::new("/proc/spl/kstat/zfs/arcstats").to_path_buf(),
        }
    }
}

/// The output format of a command that prints a table: text unless one of
/// `--json`, `--csv`, `--markdown` is given.
#[derive(clap::Args, Debug, Clone, Copy, Default)]
#[group(multiple = false)]
pub(crate) struct FormatArgs {
    /// Print JSON.
    #[arg(long)]
    pub(crate) json: bool,
    /// Print CSV with a header row.
    #[arg(long)]
    pub(crate) csv: bool,
    /// Print a Markdown table.
    #[arg(long)]
    pub(crate) markdown: bool,
}

impl FormatArgs {
    /// The format asked for.
    pub(crate) fn format(&self) -> Format {
        if self.json {
            Format::Json
        } else if self.csv {
            Format::Csv
        } else if self.markdown {
            Format::Markdown
        } else {
            Format::Text
        }
    }
}

/// `on` / `off`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum OnOff {
    On,
    Off,
}

/// How to read a trace file.
#[derive(clap::Args, Debug, Clone)]
pub(crate) struct TraceInput {
    /// Trace format: oracleGeneral, lcs, vscsi, csv, txt, lis, arct (an `arclab capture`).
    /// Default: detected from the extension and the file's first bytes.
    #[arg(long, short = 'f')]
    format: Option<arclab_trace::Format>,
    /// csv: 1-based column of the object id.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 1,
        help_heading = "CSV input"
    )]
    csv_id_col: usize,
    /// csv: 1-based column of the time in seconds.
    #[arg(long, value_name = "N", help_heading = "CSV input")]
    csv_time_col: Option<usize>,
    /// csv: 1-based column of the object size in bytes.
    #[arg(long, value_name = "N", help_heading = "CSV input")]
    csv_size_col: Option<usize>,
    /// csv: 1-based column of the operation (read/write, get/set, 28/2a).
    #[arg(long, value_name = "N", help_heading = "CSV input")]
    csv_op_col: Option<usize>,
    /// csv: the first line is a header (default: detected).
    #[arg(long, help_heading = "CSV input", conflicts_with = "csv_no_header")]
    csv_header: bool,
    /// csv: the first line is data.
    #[arg(long, help_heading = "CSV input")]
    csv_no_header: bool,
    /// csv: field delimiter (one character; `\t` for tab).
    #[arg(
        long,
        value_name = "C",
        default_value = ",",
        help_heading = "CSV input"
    )]
    csv_delimiter: String,
    /// csv: object ids are not numbers; hash them.
    #[arg(long, help_heading = "CSV input")]
    csv_hash_ids: bool,
}

impl TraceInput {
    /// The open options these flags give.
    pub(crate) fn options(&self) -> Result<OpenOptions> {
        let delimiter = match self.csv_delimiter.as_str() {
            "\\t" | "tab" => b'\t',
            d if d.len() == 1 => d.as_bytes()[0],
            d => {
                return Err(UsageError(format!(
                    "--csv-delimiter takes one ASCII character, not `{d}`"
                ))
                .into());
            }
        };
        if self.csv_id_col == 0 {
            return Err(UsageError("csv columns are numbered from 1".into()).into());
        }
        Ok(OpenOptions {
            format: self.format,
            csv: CsvOptions {
                time_col: self.csv_time_col,
                id_col: self.csv_id_col,
                size_col: self.csv_size_col,
                op_col: self.csv_op_col,
                has_header: if self.csv_header {
                    Some(true)
                } else if self.csv_no_header {
                    Some(false)
                } else {
                    None
                },
                delimiter,
                id_is_num: !self.csv_hash_ids,
            },
            ..OpenOptions::default()
        })
    }

    /// Open `path` with these options.
    pub(crate) fn open(&self, path: &Path) -> Result<TraceReader> {
        let opts = self.options()?;
        Ok(arclab_trace::open(path, &opts)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_durations_come_from_the_library() {
        assert_eq!(size("8G").unwrap(), 8 << 30);
        // `limits` refused --ram 1M while `sim --ram 1M` ran (issue 14): one rule.
        assert_eq!(ram("64M").unwrap(), 64 << 20);
        assert!(ram("1M").unwrap_err().contains("below 64 MiB"));
        assert!(ram("2P").unwrap_err().contains("above 1 PiB"));
        assert!(size("8X").unwrap_err().contains("`8X`"));
        assert_eq!(duration("1h").unwrap(), Duration::from_secs(3600));
        assert_eq!(seconds("500ms").unwrap(), 0.5);
        // `top --interval 1h` failed while `record --interval 1h` worked (issue 12).
        assert_eq!(interval("1h").unwrap(), Duration::from_secs(3600));
        assert!(interval("25h").unwrap_err().contains("at most a day"));
        assert!(duration("1e20").unwrap_err().contains("100 years"));
        assert!(duration("nan").is_err() && duration("-1s").is_err());
    }

    #[test]
    fn pinned_memory_names_its_fields() {
        assert_eq!(
            pinned("dnode=3890016,bonus=5K").unwrap(),
            [3_890_016, 0, 5120, 0]
        );
        assert_eq!(pinned(" dbuf = 1M ").unwrap(), [0, 1 << 20, 0, 0]);
        assert_eq!(pinned("metadata=860672").unwrap(), [0, 0, 0, 860_672]);
        assert!(
            pinned("inode=1")
                .unwrap_err()
                .contains("not one of dnode, dbuf, bonus, metadata")
        );
        assert!(pinned("dnode=1,dnode=2").unwrap_err().contains("twice"));
        assert!(pinned("dnode").unwrap_err().contains("NAME=SIZE"));
        assert!(pinned("dnode=lots").unwrap_err().starts_with("dnode: "));
        assert!(pinned(",").unwrap_err().contains("names none"));
    }

    #[test]
    fn threads_are_bounded() {
        assert_eq!(threads("4").unwrap(), 4);
        assert!(threads("0").unwrap_err().contains("between 1 and 1024"));
        assert!(threads("1025").is_err() && threads("x").is_err());
        assert!(ThreadArgs::default().get() >= 1);
        assert_eq!(ThreadArgs { threads: Some(3) }.get(), 3);
    }

    #[test]
    fn host_and_format() {
        let h = HostArgs {
            procfs: Some("/host/proc".into()),
            arcstats: None,
        };
        assert_eq!(
            h.arcstats_path(),
            Path::new("/host/proc/spl/kstat/zfs/arcstats")
        );
        assert_eq!(
            HostArgs::default().arcstats_path(),
            Path::new("/proc/spl/kstat/zfs/arcstats")
        );
        let f = FormatArgs {
            csv: true,
            ..FormatArgs::default()
        };
        assert_eq!(f.format(), Format::Csv);
        assert_eq!(FormatArgs::default().format(), Format::Text);
    }
}
