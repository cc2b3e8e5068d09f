//! `arclab top`: the ARC live. Full-screen (ratatui) on a terminal, drawn
//! from [`arclab_zfs::live`]; per-interval rate lines like `arcstat` when
//! standard output is not a terminal, or with `--lines`, `--json`,
//! `--on-stdin`.

mod draw;
mod screen;

use crate::args::HostArgs;
use crate::output::{self, si};
use anyhow::Result;
use arclab_arc::units::format_bytes;
use arclab_zfs::host::{self, Kstats};
use arclab_zfs::live::Sample;
use arclab_zfs::rates::{self, TopRow};
use std::io::{BufRead, IsTerminal};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The ARC live. On a terminal, a full-screen view refreshed every
/// --interval: a RAM bar (applications, ARC evictable and non-evictable,
/// free, and what is really available: MemAvailable + the ARC's reclaimable
/// part), the ARC panel (size, c, c_min, c_max and its default for the
/// inferred release, MRU/MFU data/metadata, why size is above c), per-second
/// rates with sparklines and colour thresholds, and events as they happen (c
/// falling, arc_no_grow, memory throttle, zfs_arc_max changed, counter resets,
/// missed intervals). Keys: q quit, p pause, h help, 1/2/3 panels.
///
/// Otherwise (standard output not a terminal, or --lines / --json /
/// --on-stdin) one line per interval, like arcstat: reads, hits, misses, hit
/// %, demand and prefetch misses, size, c and available memory. The first line
/// is the average since the module loaded. A counter that goes down (module
/// reload, reboot) is shown as a reset, never as a negative rate.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:\n  \
    arclab top                          (full-screen on a terminal; q quits, h explains)\n  \
    arclab top --interval 5s --lines --count 13\n  \
    arclab top --procfs /host/proc --sysfs /host/sys --interval 100ms --count 3 --json\n  \
    arclab top --arcstats saved-arcstats.txt --lines --count 1")]
pub(crate) struct TopArgs {
    /// Time between samples: 1s, 500ms, 2m, 1h, or plain seconds (at most a day). The rate uses
    /// the kstat snaptime when present, so sleep jitter does not skew it.
    #[arg(long, short = 'i', default_value = "1s", value_parser = crate::args::interval)]
    interval: Duration,
    /// Number of samples: lines to print, the since-load line included; full-screen, refreshes
    /// before quitting, the first screen included (default: until interrupted or q).
    #[arg(long, short = 'c')]
    count: Option<u64>,
    #[command(flatten)]
    host: HostArgs,
    /// sysfs root for the zfs_arc_max module parameter (DIR/module/zfs/parameters/zfs_arc_max),
    /// so a runtime change and whether ZFS accepted it are shown [default: /sys when --procfs
    /// and --arcstats are not given; otherwise not read].
    #[arg(long, value_name = "DIR", conflicts_with = "arcstats")]
    sysfs: Option<PathBuf>,
    /// Print lines (like arcstat) even on a terminal.
    #[arg(long)]
    lines: bool,
    /// Take each next sample when a line arrives on standard input instead of
    /// after --interval (for scripted sampling; stops at end of input; implies --lines).
    #[arg(long)]
    on_stdin: bool,
    /// Print one JSON object per line (implies --lines).
    #[arg(long)]
    json: bool,
}

impl TopArgs {
    /// One full sample (kstats, meminfo, module parameters) for the full-screen view.
    fn sample(&self) -> Result<Sample, host::HostError> {
        match (&self.host.arcstats, &self.host.procfs) {
            (Some(f), _) => Sample::read_file(f),
            (None, Some(d)) => Sample::read(d, self.sysfs.as_deref()),
            (None, None) => Sample::read(
                Path::new("/proc"),
                Some(self.sysfs.as_deref().unwrap_or(Path::new("/sys"))),
            ),
        }
    }
}

pub(crate) fn run(args: TopArgs) -> Result<()> {
    if args.lines || args.json || args.on_stdin || !std::io::stdout().is_terminal() {
        return run_lines(args);
    }
    screen::run(&args)
}

fn read(args: &TopArgs) -> Result<Kstats> {
    Ok(match (&args.host.arcstats, &args.host.procfs) {
        (Some(f), _) => host::read_kstat_file(f)?,
        (None, Some(d)) => host::read_procfs(d)?,
        (None, None) => host::read_procfs(Path::new("/proc"))?,
    })
}

const HEADERS: [&str; 13] = [
    "time", "int", "read/s", "hit/s", "iohit/s", "miss/s", "hit%", "dmis/s", "pmis/s", "size", "c",
    "avail", "note",
];

/// Seconds since the epoch now.
fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// `HH:MM:SS` (UTC) of a time in seconds since the epoch.
fn hms(unix: u64) -> String {
    let s = unix % 86_400;
    format!("{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

fn clock() -> String {
    hms(unix_now())
}

fn note(r: &TopRow) -> String {
    let bad = r.avail_implausible.map_or(String::new(), |a| {
        format!("; memory_available_bytes {a} is implausible, ignored")
    });
    let n: String = if r.time_source == "since load" {
        "average since module load".into()
    } else if r.reloaded {
        "RESET: module reloaded or host rebooted; counters restarted".into()
    } else if !r.resets.is_empty() {
        format!("RESET: {} went down", r.resets.join(", "))
    } else {
        String::new()
    };
    (n + &bad).trim_start_matches("; ").to_string()
}

fn cells(r: &TopRow) -> Vec<String> {
    let reset = |names: &[&str]| r.reset_in(names);
    let rate = |v: Option<f64>, names: &[&str]| match v {
        Some(v) => si(v),
        None if reset(names) => "reset".into(),
        None => "-".into(),
    };
    let reads = ["hits", "iohits", "misses"];
    vec![
        clock(),
        if r.time_source == "since load" {
            "load".into()
        } else {
            format!("{:.2}s", r.seconds)
        },
        rate(r.reads, &reads),
        rate(r.hits, &["hits"]),
        rate(r.iohits, &["iohits"]),
        rate(r.misses, &["misses"]),
        match r.hit_pct {
            Some(p) => format!("{p:.2}"),
            None if reset(&reads) => "reset".into(),
            None => "-".into(),
        },
        rate(
            r.demand_misses,
            &["demand_data_misses", "demand_metadata_misses"],
        ),
        rate(
            r.prefetch_misses,
            &["prefetch_data_misses", "prefetch_metadata_misses"],
        ),
        r.size.map_or("-".into(), format_bytes),
        r.c.map_or("-".into(), format_bytes),
        match (r.avail, r.avail_implausible) {
            (Some(a), _) if a < 0 => format!("-{}", format_bytes(a.unsigned_abs())),
            (Some(a), _) => format_bytes(a.unsigned_abs()),
            (None, Some(_)) => "invalid".into(),
            (None, None) => "-".into(),
        },
        note(r),
    ]
}

fn json_row(r: &TopRow) -> serde_json::Value {
    serde_json::json!({
        "seconds": r.seconds,
        "time_source": r.time_source,
        "reads_per_s": r.reads,
        "hits_per_s": r.hits,
        "iohits_per_s": r.iohits,
        "misses_per_s": r.misses,
        "hit_pct": r.hit_pct,
        "demand_misses_per_s": r.demand_misses,
        "prefetch_misses_per_s": r.prefetch_misses,
        "size_bytes": r.size,
        "c_bytes": r.c,
        "avail_bytes": r.avail,
        "avail_implausible_bytes": r.avail_implausible,
        "resets": r.resets,
        "reloaded": r.reloaded,
    })
}

fn line(r: &TopRow, json: bool) -> String {
    if json {
        return json_row(r).to_string() + "\n";
    }
    let c = cells(r);
    let w = [8, 7, 8, 8, 8, 8, 6, 8, 8, 11, 11, 11, 0];
    let mut s = String::new();
    for (i, cell) in c.iter().enumerate() {
        if i + 1 == c.len() {
            s.push_str(cell);
        } else {
            s.push_str(&format!("{cell:>width$} ", width = w[i]));
        }
    }
    s.trim_end().to_string() + "\n"
}

fn run_lines(args: TopArgs) -> Result<()> {
    let mut prev = read(&args)?;
    let mut taken = Instant::now();
    if !args.json {
        let w = [8, 7, 8, 8, 8, 8, 6, 8, 8, 11, 11, 11, 0];
        let mut h = String::new();
        for (i, c) in HEADERS.iter().enumerate() {
            h.push_str(&format!("{c:>width$} ", width = w[i]));
        }
        let first = rates::first_row(&prev.arc);
        output::print(&if first.seconds > 0.0 {
            format!(
                "First row (int \"load\"): averages over the {:.2} s ({:.2} days) since the module loaded; then one row per interval.\n",
                first.seconds,
                first.seconds / 86_400.0
            )
        } else {
            "First row (int \"load\"): since module load, whose time this source does not record; then one row per interval.\n".into()
        })?;
        output::print(&(h.trim_end().to_string() + "\n"))?;
    }
    output::print(&line(&rates::first_row(&prev.arc), args.json))?;
    let mut printed = 1u64;
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    while args.count.is_none_or(|n| printed < n) {
        if args.on_stdin {
            let mut buf = String::new();
            if input.read_line(&mut buf)? == 0 {
                break;
            }
        } else {
            std::thread::sleep(args.interval);
        }
        let cur = read(&args)?;
        let now = Instant::now();
        let r = rates::row(&prev.arc, &cur.arc, now.duration_since(taken).as_secs_f64());
        output::print(&line(&r, args.json))?;
        printed += 1;
        prev = cur;
        taken = now;
    }
    Ok(())
}
