//! The command line's shared vocabulary: one place for how sizes,
//! durations, thread counts, cap lists, host inputs and output formats are
//! spelled and checked. The parsing itself lives in the libraries
//! ([`arclab_arc::units::parse_bytes`], [`arclab_arc::units::parse_duration`]);
//! this module adapts them to clap and adds the command line's bounds.

use arclab_arc::units::{self, SizeSpec, format_size_compact};
use arclab_report::Format;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

/// Clap value parser: a byte count (`8G`, `512MiB`, `4096`; binary units).
#[allow(dead_code)] // For sim, whatif, limits and status: they switch at merge; drop this then.
pub(crate) fn size(s: &str) -> Result<u64, String> {
    units::parse_bytes(s).map_err(|e| e.to_string())
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

#[allow(dead_code)] // For sim, whatif, limits and status: they switch at merge; drop this then.
impl ThreadArgs {
    /// The number of threads to use: the one given, else the cores available.
    pub(crate) fn get(&self) -> usize {
        self.threads.unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(1, |n| n.get().min(MAX_THREADS))
        })
    }
}

/// One cap on `zfs_arc_max`, with the label its row gets.
#[derive(Clone, Debug, PartialEq)]
#[allow(dead_code)] // For sim, whatif, limits and status: they switch at merge; drop this then.
pub(crate) struct Cap {
    /// `default`, the size as typed (`8G`), or a range member (`12G`).
    pub(crate) label: String,
    /// `None` for the version's own default.
    pub(crate) size: Option<SizeSpec>,
}

/// The most caps one command line may ask for (a range or a list).
#[allow(dead_code)] // For sim, whatif, limits and status: they switch at merge; drop this then.
pub(crate) const MAX_CAPS: usize = 64;

/// A `--caps` list: `default,16G,8G`, and ranges `LOW..HIGH/STEP`
/// (`4G..16G/4G`); at most [`MAX_CAPS`] in all.
#[derive(Clone, Debug, PartialEq, Default)]
#[allow(dead_code)] // For sim, whatif, limits and status: they switch at merge; drop this then.
pub(crate) struct CapList(pub(crate) Vec<Cap>);

impl FromStr for CapList {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut caps = Vec::new();
        for item in s.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            caps.extend(cap_item(item)?);
            if caps.len() > MAX_CAPS {
                return Err(format!("`{s}` gives more than {MAX_CAPS} caps"));
            }
        }
        if caps.is_empty() {
            return Err("no cap given (e.g. default,16G,8G or 4G..16G/4G)".into());
        }
        Ok(CapList(caps))
    }
}

#[allow(dead_code)] // For sim, whatif, limits and status: they switch at merge; drop this then.
fn cap_item(s: &str) -> Result<Vec<Cap>, String> {
    let Some((lo, rest)) = s.split_once("..") else {
        if s.eq_ignore_ascii_case("default") {
            return Ok(vec![Cap {
                label: "default".into(),
                size: None,
            }]);
        }
        let spec: SizeSpec = s.parse().map_err(|e: units::SizeError| e.to_string())?;
        return Ok(vec![Cap {
            label: s.to_string(),
            size: Some(spec),
        }]);
    };
    let (hi, step) = rest
        .split_once('/')
        .ok_or_else(|| format!("range `{s}` needs a step: LOW..HIGH/STEP, e.g. 4G..16G/4G"))?;
    let (lo, hi, step) = (size(lo)?, size(hi)?, size(step)?);
    if step == 0 || lo == 0 || lo > hi {
        return Err(format!("range `{s}`: need 0 < LOW ≤ HIGH and STEP > 0"));
    }
    if (hi - lo) / step >= MAX_CAPS as u64 {
        return Err(format!("range `{s}` gives more than {MAX_CAPS} caps"));
    }
    let short = |b: u64| {
        let c = format_size_compact(b);
        c.strip_suffix("iB").map_or(c.clone(), str::to_string)
    };
    Ok((0..=(hi - lo) / step)
        .map(|i| lo + i * step)
        .map(|b| Cap {
            label: short(b),
            size: Some(SizeSpec::Absolute(b)),
        })
        .collect())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_durations_come_from_the_library() {
        assert_eq!(size("8G").unwrap(), 8 << 30);
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
    fn threads_are_bounded() {
        assert_eq!(threads("4").unwrap(), 4);
        assert!(threads("0").unwrap_err().contains("between 1 and 1024"));
        assert!(threads("1025").is_err() && threads("x").is_err());
        assert!(ThreadArgs::default().get() >= 1);
        assert_eq!(ThreadArgs { threads: Some(3) }.get(), 3);
    }

    #[test]
    fn cap_lists() {
        let c: CapList = "default, 16G,4G..12G/4G".parse().unwrap();
        let labels: Vec<&str> = c.0.iter().map(|c| c.label.as_str()).collect();
        assert_eq!(labels, ["default", "16G", "4G", "8G", "12G"]);
        assert_eq!(c.0[0].size, None);
        assert_eq!(c.0[4].size, Some(SizeSpec::Absolute(12 << 30)));
        assert_eq!(
            "0.5".parse::<CapList>().unwrap().0[0].size,
            Some(SizeSpec::Fraction(0.5))
        );
        assert!(
            "1G..100G/1G"
                .parse::<CapList>()
                .unwrap_err()
                .contains("more than 64")
        );
        assert!(
            "4G..16G"
                .parse::<CapList>()
                .unwrap_err()
                .contains("needs a step")
        );
        let many = vec!["1G"; 65].join(",");
        assert!(
            many.parse::<CapList>()
                .unwrap_err()
                .contains("more than 64")
        );
        assert!(",".parse::<CapList>().is_err());
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
