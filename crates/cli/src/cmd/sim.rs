//! `arclab sim`: replay a trace through policies at several cache sizes.

use super::trace::TraceInput;
use super::{FormatArgs, UsageError};
use crate::output::{self, Table};
use crate::progress::Progress;
use anyhow::Result;
use arclab_arc::units::{SizeSpec, format_bytes, format_size_compact};
use arclab_sim::PolicyKind;
use arclab_sim::replay::{Job, JobResult, ReplayConfig, replay};
use serde::Serialize;

/// Replay a trace through cache policies at several sizes.
///
/// Sizes: `1000` is 1000 objects in object mode (bytes in byte mode);
/// `64MiB`, `64M`, `1G`, `1GiB` are bytes, and every suffix is binary
/// (K = KiB = 1024, so `8G` = 8589934592, as ZFS tools and loader.conf read
/// them); `0.1` is a fraction of the trace's working set (unique objects in
/// object mode, their bytes in byte mode).
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:\n  \
    arclab sim --trace cloudPhysicsIO.oracleGeneral.bin --policy lru,arc --size 128MiB,1GiB\n  \
    arclab sim --trace OLTP.lis.zst --policy lru,arc --size 1000,15000 --ignore-obj-size --json")]
pub(crate) struct SimArgs {
    /// The trace to replay (`.gz` and `.zst` are read transparently).
    #[arg(long, short = 't', value_name = "FILE")]
    trace: std::path::PathBuf,
    #[command(flatten)]
    input: TraceInput,
    /// Policies, comma-separated: lru, fifo, arc, s3fifo, sieve.
    #[arg(
        long,
        short = 'p',
        value_delimiter = ',',
        default_value = "lru,fifo,arc,s3fifo,sieve"
    )]
    policy: Vec<PolicyKind>,
    /// Cache sizes, comma-separated (see above for units).
    #[arg(
        long,
        short = 's',
        value_delimiter = ',',
        default_value = "0.01,0.05,0.1,0.2,0.4"
    )]
    size: Vec<SizeSpec>,
    /// Count every object as size 1: sizes are then numbers of objects.
    #[arg(long)]
    ignore_obj_size: bool,
    /// Worker threads (default: all cores). 1 runs everything on one thread.
    #[arg(long)]
    threads: Option<usize>,
    #[command(flatten)]
    format: FormatArgs,
}

/// One row of results; the keys are libCacheSim's counter names.
#[derive(Serialize, Debug)]
struct Row {
    policy: String,
    size: String,
    capacity: u64,
    n_req: u64,
    n_miss: u64,
    n_req_byte: u64,
    n_miss_byte: u64,
    miss_ratio: f64,
    byte_miss_ratio: f64,
    req_per_sec: f64,
    tracked_objects: usize,
    bytes_per_object: f64,
}

#[derive(Serialize, Debug)]
struct Report {
    trace: String,
    format: String,
    mode: &'static str,
    threads: usize,
    working_set: Option<WorkingSet>,
    results: Vec<Row>,
}

#[derive(Serialize, Debug, Clone, Copy)]
struct WorkingSet {
    objects: u64,
    bytes: u64,
}

pub(crate) fn run(args: SimArgs) -> Result<()> {
    if args.policy.is_empty() || args.size.is_empty() {
        return Err(UsageError("give at least one --policy and one --size".into()).into());
    }
    let object_mode = args.ignore_obj_size;
    let threads = match args.threads {
        Some(0) => return Err(UsageError("--threads must be at least 1".into()).into()),
        Some(t) => t,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };

    // Fractions need the working set first: one extra pass over the trace.
    let wss = if args.size.iter().any(|s| matches!(s, SizeSpec::Fraction(_))) {
        Some(working_set(&args.input, &args.trace)?)
    } else {
        None
    };
    let mut jobs = Vec::new();
    let mut labels = Vec::new();
    for &policy in &args.policy {
        for spec in &args.size {
            let capacity = match *spec {
                SizeSpec::Absolute(v) => v,
                SizeSpec::Fraction(f) => {
                    let w = wss.expect("computed above");
                    let base = if object_mode { w.objects } else { w.bytes };
                    // libCacheSim truncates fractional sizes the same way.
                    ((base as f64 * f) as u64).max(1)
                }
            };
            jobs.push(Job { policy, capacity });
            labels.push(match *spec {
                SizeSpec::Absolute(v) if object_mode => v.to_string(),
                SizeSpec::Absolute(v) => format_size_compact(v),
                SizeSpec::Fraction(f) => f.to_string(),
            });
        }
    }

    let mut reader = args.input.open(&args.trace)?;
    let (_, total) = reader.progress();
    let mut bar = Progress::new("replaying", total);
    let cfg = ReplayConfig {
        object_mode,
        threads,
        ..ReplayConfig::default()
    };
    let path = args.trace.display().to_string();
    let format = reader.format().to_string();
    let results = replay(
        &jobs,
        &cfg,
        |buf, max| {
            let n = reader.read_batch(buf, max)?;
            bar.set(reader.progress().0);
            Ok::<usize, arclab_trace::TraceError>(n)
        },
        |_| {},
    );
    bar.finish();
    let results = results?;
    if results.first().is_some_and(|r| r.counters.n_req == 0) {
        anyhow::bail!("{path}: the trace holds no requests");
    }

    let report = Report {
        trace: path,
        format,
        mode: if object_mode { "object" } else { "byte" },
        threads,
        working_set: wss,
        results: results
            .iter()
            .zip(&labels)
            .map(|(r, label)| row(r, label))
            .collect(),
    };
    print_report(&report, &args.format, object_mode)
}

fn row(r: &JobResult, label: &str) -> Row {
    Row {
        policy: r.job.policy.to_string(),
        size: label.to_string(),
        capacity: r.job.capacity,
        n_req: r.counters.n_req,
        n_miss: r.counters.n_miss,
        n_req_byte: r.counters.n_req_byte,
        n_miss_byte: r.counters.n_miss_byte,
        miss_ratio: r.miss_ratio(),
        byte_miss_ratio: r.byte_miss_ratio(),
        req_per_sec: r.req_per_sec(),
        tracked_objects: r.tracked,
        bytes_per_object: r.bytes_per_object(),
    }
}

fn print_report(report: &Report, fmt: &FormatArgs, object_mode: bool) -> Result<()> {
    if fmt.json {
        let mut s = serde_json::to_string_pretty(report)?;
        s.push('\n');
        return output::print(&s);
    }
    let machine = fmt.csv;
    let mut t = Table::new(&[
        "policy",
        "size",
        "capacity",
        "n_req",
        "n_miss",
        "n_req_byte",
        "n_miss_byte",
        "miss_ratio",
        "byte_miss_ratio",
        "req_per_sec",
    ]);
    for r in &report.results {
        let cap = if machine {
            r.capacity.to_string()
        } else if object_mode {
            format!("{} obj", r.capacity)
        } else {
            format_bytes(r.capacity)
        };
        t.push(vec![
            r.policy.clone(),
            r.size.clone(),
            cap,
            r.n_req.to_string(),
            r.n_miss.to_string(),
            r.n_req_byte.to_string(),
            r.n_miss_byte.to_string(),
            format!("{:.6}", r.miss_ratio),
            format!("{:.6}", r.byte_miss_ratio),
            if machine {
                format!("{:.0}", r.req_per_sec)
            } else {
                format!("{}/s", output::si(r.req_per_sec))
            },
        ]);
    }
    let text = if fmt.csv {
        t.to_csv()
    } else if fmt.markdown {
        t.to_markdown()
    } else {
        let mut s = format!(
            "trace {} ({}), {} mode, {} thread{}\n",
            report.trace,
            report.format,
            report.mode,
            report.threads,
            if report.threads == 1 { "" } else { "s" }
        );
        if let Some(w) = report.working_set {
            s.push_str(&format!(
                "working set: {} objects, {}\n",
                w.objects,
                format_bytes(w.bytes)
            ));
        }
        s.push('\n');
        s.push_str(&t.to_text());
        s
    };
    output::print(&text)
}

/// Unique objects and their bytes (each object counted at its first size).
fn working_set(input: &TraceInput, path: &std::path::Path) -> Result<WorkingSet> {
    let mut reader = input.open(path)?;
    let mut seen: std::collections::HashSet<u64> = std::collections::HashSet::new();
    let mut bytes = 0u64;
    let mut buf = Vec::with_capacity(1 << 16);
    loop {
        buf.clear();
        if reader.read_batch(&mut buf, 1 << 16)? == 0 {
            break;
        }
        for r in &buf {
            if seen.insert(r.key) {
                bytes += u64::from(r.size);
            }
        }
    }
    Ok(WorkingSet {
        objects: seen.len() as u64,
        bytes,
    })
}
