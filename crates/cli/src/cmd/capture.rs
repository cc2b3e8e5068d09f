//! `arclab capture`: record the host's own ARC reads into a `.arct` trace.

use super::UsageError;
use crate::args;
use crate::output;
use anyhow::{Context, Result};
use arclab_arc::units::format_bytes;
use arclab_trace::capture::{CaptureHeader, CaptureWriter};
use arclab_zfs::capture::{self, CaptureOptions, Captured, Progress, SizeRule};
use arclab_zfs::host;
use serde::Serialize;
use std::io::{BufWriter, IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// Record this host's ARC reads (Linux OpenZFS `zfs_read_history`) into a
/// trace that `whatif --trace` and `sim` replay. Needs root: it sets the
/// module parameters `zfs_read_history` and `zfs_read_history_hits` while it
/// runs and puts the previous values back when it stops (time limit, Ctrl-C,
/// SIGTERM, error). Block sizes are nominal (the dataset's recordsize; the
/// read history has no sizes).
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:\n  \
    sudo arclab capture --for 10m -o capture.arct            (Ctrl-C stops early)\n  \
    sudo arclab capture --for 1h --sample-rate 0.1 -o capture.arct\n  \
    sudo arclab capture --for 10m --zfs-get rs.txt -o capture.arct   (rs.txt: zfs get -Hp recordsize,volblocksize)\n  \
    arclab trace info capture.arct\n  \
    arclab whatif --trace capture.arct --scenario host.toml")]
pub(crate) struct CaptureArgs {
    /// Write the trace here (a new file: an existing one is never replaced).
    #[arg(long, short = 'o', value_name = "FILE")]
    output: PathBuf,
    /// Stop after this long (`30s`, `10m`, `2h`); without it, until Ctrl-C or SIGTERM.
    #[arg(long = "for", value_name = "DURATION", value_parser = args::duration)]
    duration: Option<Duration>,
    /// procfs root: polls DIR/spl/kstat/zfs/*/reads.
    #[arg(long, value_name = "DIR", default_value = "/proc")]
    procfs: PathBuf,
    /// sysfs root: sets DIR/module/zfs/parameters/zfs_read_history{,_hits}.
    #[arg(long, value_name = "DIR", default_value = "/sys")]
    sysfs: PathBuf,
    /// Read-history entries per pool while capturing, fixed [default:
    /// 100,000 — one second at 100,000 reads/s — doubled, up to 2,000,000,
    /// whenever polling every 5 ms is not fast enough].
    #[arg(long, value_name = "N")]
    ring: Option<u32>,
    /// The first poll interval; halved whenever a poll finds the ring more than half new.
    #[arg(long, value_name = "DURATION", value_parser = args::duration, default_value = "100ms")]
    poll: Duration,
    /// Keep this fraction of the blocks (all reads of a kept block), so a busy host can be captured for hours.
    #[arg(long, value_name = "R", default_value_t = 1.0)]
    sample_rate: f64,
    /// Nominal size of data blocks of datasets not in --zfs-get. Binary units, like ZFS: 32G, 32GB and 32GiB all mean 32 GiB = 34359738368 bytes; a plain number is bytes.
    #[arg(long, value_name = "SIZE", value_parser = args::size, default_value = "128K")]
    recordsize: u64,
    /// The output of `zfs get -Hp recordsize,volblocksize` (per-dataset block sizes).
    #[arg(long, value_name = "FILE")]
    zfs_get: Option<PathBuf>,
    /// Do not log hits (`zfs_read_history_hits` left alone): misses only, not a replayable workload.
    #[arg(long)]
    no_hits: bool,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct Report<'a> {
    output: String,
    records: u64,
    lost: u64,
    polls: u64,
    duration_secs: f64,
    records_per_sec: f64,
    stopped_by: &'a str,
    sample_rate: f64,
    kernel_demand_hit_ratio: Option<f64>,
    parameters_restored: Vec<String>,
    tally: &'a arclab_zfs::capture::Tally,
}

pub(crate) fn run(args: CaptureArgs) -> Result<()> {
    if !(args.sample_rate > 0.0 && args.sample_rate <= 1.0) {
        return Err(UsageError("--sample-rate must be in (0, 1]".into()).into());
    }
    let recordsize = capture::valid_block_size(args.recordsize)
        .ok_or_else(|| UsageError("--recordsize must be a power of two in 512..16M".into()))?;
    let mut sizes = SizeRule {
        default_recordsize: recordsize,
        ..SizeRule::default()
    };
    if let Some(f) = &args.zfs_get {
        let text = arclab_io::read_to_string_limited(f, 64 << 20)?;
        sizes.per_dataset = capture::parse_zfs_get(&text, &f.display().to_string())?;
    }
    let header = header(&args)?;
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&args.output)
        .with_context(|| {
            format!(
                "cannot create {} (an existing file or link is never replaced)",
                args.output.display()
            )
        })?;
    let out_name = args.output.display().to_string();
    let mut writer = CaptureWriter::new(BufWriter::new(file), &header)
        .with_context(|| format!("cannot write {out_name}"))?;

    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(sig, Arc::clone(&stop))
            .context("cannot install the signal handler")?;
    }
    let opts = CaptureOptions {
        procfs: args.procfs.clone(),
        sysfs: args.sysfs.clone(),
        ring: args.ring.unwrap_or(capture::DEFAULT_RING),
        grow_ring: args.ring.is_none(),
        hits: !args.no_hits,
        poll: args.poll,
        duration: args.duration,
        sample_rate: args.sample_rate,
        sizes,
    };
    let tty = std::io::stderr().is_terminal();
    let mut last_line = Instant::now();
    let mut progress = |p: &Progress| {
        if tty && last_line.elapsed() >= Duration::from_millis(250) {
            last_line = Instant::now();
            let secs = p.elapsed.as_secs_f64().max(1e-9);
            eprint!(
                "\r\x1b[Kcapturing: {} records ({:.0}/s), {} lost, {:.0} s, polling every {} ms",
                p.records,
                p.records as f64 / secs,
                p.lost,
                secs,
                p.poll.as_millis()
            );
        }
    };
    let result = capture::capture(&opts, &mut writer, &out_name, &stop, &mut progress);
    if tty {
        eprint!("\r\x1b[K");
    }
    let captured = match result {
        Ok(x) => x,
        Err(e) => {
            // What was captured stays readable; say so.
            let kept = writer.records();
            let _ = writer.flush();
            let what = if kept > 0 {
                format!("; the {kept} records captured so far are in {out_name}")
            } else {
                // Nothing captured: the file this run created goes.
                drop(writer);
                let _ = std::fs::remove_file(&args.output);
                String::new()
            };
            return Err(anyhow::anyhow!("{e}{what}"));
        }
    };
    let mut inner = writer
        .finish(&captured.summary)
        .with_context(|| format!("cannot write {out_name}"))?;
    inner
        .flush()
        .with_context(|| format!("cannot write {out_name}"))?;
    let file = inner
        .into_inner()
        .map_err(|e| anyhow::anyhow!("cannot write {out_name}: {}", e.error()))?;
    file.sync_all()
        .with_context(|| format!("cannot write {out_name}"))?;
    print_report(&args, &captured)
}

fn header(args: &CaptureArgs) -> Result<CaptureHeader> {
    let kstats = host::read_procfs(&args.procfs)?;
    let snap = &kstats.arc;
    let params = host::read_sysfs(&args.sysfs)?;
    let ram = match snap.get_u64("memory_all_bytes") {
        Some(r) => Some(r),
        None => host::procfs_meminfo(&args.procfs)?.map(|m| m.total_bytes),
    };
    let inferred = arclab_zfs::version::infer(snap);
    let zfs_version = params
        .version
        .clone()
        .or_else(|| Some(inferred.to_string()));
    let mut notes = vec![
        "sizes are nominal: data blocks take the dataset's recordsize (or --recordsize), indirect blocks 128 KiB, dnode blocks 16 KiB".to_string(),
    ];
    if args.no_hits {
        notes.push("hits were not logged (--no-hits): misses only".into());
    }
    if args.sample_rate < 1.0 {
        notes.push(format!(
            "spatially sampled at {}: a block is kept when hash(objset, object, blkid) < rate * 2^64",
            args.sample_rate
        ));
    }
    if params.prefetch_disable == Some(1) {
        notes.push("prefetch was off on this host (zfs_prefetch_disable=1)".into());
    }
    Ok(CaptureHeader {
        tool: format!("arclab {}", env!("CARGO_PKG_VERSION")),
        created_unix_s: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64),
        host: host::hostname(),
        os: "linux".into(),
        zfs_version,
        sample_rate: args.sample_rate,
        ram_bytes: ram,
        arc_c_bytes: snap.get_u64("c"),
        arc_c_min_bytes: snap.get_u64("c_min"),
        arc_c_max_bytes: snap.get_u64("c_max"),
        sizes_nominal: true,
        hits_logged: !args.no_hits,
        prefetch: params.prefetch_disable.map(|d| d == 0),
        notes,
    })
}

fn print_report(args: &CaptureArgs, c: &Captured) -> Result<()> {
    let (s, tally) = (&c.summary, &c.tally);
    let secs = s.duration_ns as f64 / 1e9;
    let hit_ratio = (tally.demand > 0).then(|| tally.demand_cached as f64 / tally.demand as f64);
    let restored: Vec<String> = c
        .restored
        .iter()
        .map(|p| format!("{}={} (was {} during the capture)", p.name, p.before, p.set))
        .collect();
    let report = Report {
        output: args.output.display().to_string(),
        records: s.records,
        lost: s.lost,
        polls: s.polls,
        duration_secs: secs,
        records_per_sec: s.records as f64 / secs.max(1e-9),
        stopped_by: &s.stopped_by,
        sample_rate: args.sample_rate,
        kernel_demand_hit_ratio: hit_ratio,
        parameters_restored: restored,
        tally,
    };
    if args.json {
        return output::print(&format!("{}\n", serde_json::to_string_pretty(&report)?));
    }
    let mut text = format!(
        "wrote {}: {} records in {:.1} s ({:.0}/s; {} demand, {} prefetch), stopped by {}\n",
        report.output,
        s.records,
        secs,
        report.records_per_sec,
        tally.demand,
        tally.prefetch,
        s.stopped_by
    );
    if s.lost > 0 {
        text.push_str(&format!(
            "LOST {} reads: the ring ({} entries) wrapped between polls (shortest poll {:.0} ms); use a larger --ring\n",
            s.lost, tally.ring, tally.min_poll_ms
        ));
    } else {
        text.push_str("no reads lost\n");
    }
    if let Some(h) = hit_ratio {
        text.push_str(&format!(
            "your kernel served {:.2} % of the demand reads from the ARC\n",
            h * 100.0
        ));
    }
    if args.sample_rate < 1.0 {
        text.push_str(&format!(
            "sampled: {} of {} reads kept (rate {})\n",
            s.records, tally.seen, args.sample_rate
        ));
    }
    if report.parameters_restored.is_empty() {
        text.push_str("module parameters were already set; nothing to restore\n");
    } else {
        text.push_str(&format!(
            "restored {}\n",
            report.parameters_restored.join(", ")
        ));
    }
    text.push_str(&format!(
        "sizes are nominal: {} data blocks unless --zfs-get says otherwise\n",
        format_bytes(args.recordsize)
    ));
    output::print(&text)
}
