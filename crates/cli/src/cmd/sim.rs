//! `arclab sim`: replay a trace through policies at several cache sizes.

use super::{FormatArgs, UsageError};
use crate::args::{OnOff, ThreadArgs, TraceInput};
use crate::output::{self, Table};
use crate::progress::Progress;
use anyhow::Result;
use arclab_arc::limits::Os;
use arclab_arc::model::{ArcConfig, ArcStats, Behaviour};
use arclab_arc::units::{SizeSpec, format_bytes, format_size_compact};
use arclab_arc::zfetch::ZfetchStats;
use arclab_sim::model::ZfsSpec;
use arclab_sim::replay::{Job, JobResult, MAX_RUNS, ReplayConfig, Target, replay};
use arclab_sim::whatif::plan::{Cap, MAX_CAPS, PolicyName};
use arclab_trace::clock::{Clock, Clocked};

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
    /// Policies, comma-separated: lru, fifo, arc, s3fifo, sieve, zfs-arc.
    #[arg(
        long,
        short = 'p',
        value_delimiter = ',',
        default_value = "lru,fifo,arc,s3fifo,sieve"
    )]
    policy: Vec<PolicyName>,
    /// Cache sizes, comma-separated: bytes (objects with --ignore-obj-size)
    /// or a fraction of the working set. Binary units, like ZFS: 32G, 32GB and 32GiB all mean 32 GiB = 34359738368 bytes; a plain number is bytes.
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
    #[command(flatten)]
    threads: ThreadArgs,
    /// zfs-arc: the OpenZFS behaviour to model: 0.7, 2.1, 2.2, 2.3 / latest,
    /// or a full release such as 2.2.7 (comma-separated for several).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "latest",
        help_heading = "ZFS ARC model"
    )]
    zfs_version: Vec<String>,
    /// zfs-arc: the host's RAM. Binary units, like ZFS: 32G, 32GB and 32GiB all mean 32 GiB = 34359738368 bytes; a plain number is bytes.
    #[arg(long, default_value = "32GiB", value_parser = crate::args::ram, help_heading = "ZFS ARC model")]
    ram: u64,
    /// zfs-arc: zfs_arc_max values (`default` = the version's own limit);
    /// `--size` is a synonym. Binary units, like ZFS: 32G, 32GB and 32GiB all mean 32 GiB = 34359738368 bytes; a plain number is bytes.
    #[arg(long, value_delimiter = ',', help_heading = "ZFS ARC model")]
    arc_max: Vec<Cap>,
    /// zfs-arc: run the predictive prefetcher (`on,off` runs both).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "on",
        help_heading = "ZFS ARC model"
    )]
    prefetch: Vec<OnOff>,
    /// zfs-arc: read each data block's indirect blocks through the dbuf
    /// cache first, as the DMU does (demand metadata hits and misses, pinned
    /// L1 blocks). Default: on with --blocks-per-file, whose files have a
    /// known size; off for a trace read as one unbounded file, whose keys
    /// (sector numbers, object ids) say nothing of how full its indirect
    /// blocks are. A capture carries its own metadata reads.
    #[arg(long, help_heading = "ZFS ARC model")]
    indirect_reads: Option<OnOff>,
    /// zfs-arc: the trace's ids are blocks of files of N blocks each (id `k`
    /// is block `k % N` of file `k / N`): each file gets its own prefetch
    /// streams and indirect blocks. Default: one file of unbounded size.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1u64 << 40), help_heading = "ZFS ARC model")]
    blocks_per_file: Option<u64>,
    /// zfs-arc: the pool's compression ratio for data, as `zfs get
    /// compressratio` prints it (`1.5x` or 1.5): the ARC charges compressed
    /// blocks (compressed ARC), so a cap holds that much more logical data.
    #[arg(long, default_value = "1", value_parser = crate::args::compress_ratio, help_heading = "ZFS ARC model")]
    compress_ratio: f64,
    /// zfs-arc: set a model tunable, NAME=N (repeatable; the names of a
    /// scenario's `[tunables]` table, e.g. txg_timeout=5, evict_delay_ns=2000000).
    #[arg(long, value_name = "NAME=N", value_parser = crate::args::tunable, help_heading = "ZFS ARC model")]
    tunable: Vec<(String, u64)>,
    /// zfs-arc: memory the ARC holds and cannot evict from the start, as
    /// arcstats' `dnode_size`, `dbuf_size` and `bonus_size` show it for the
    /// host's open files, and `metadata`: metadata buffers held (arcstats'
    /// `mru_metadata` + `mfu_metadata` less their evictable parts), e.g.
    /// dnode=3890016,bonus=5120,metadata=860672 (each must fit in --ram). It
    /// counts in `size` and against `c`, so a cap near what the ARC holds
    /// overflows sooner.
    #[arg(long, value_name = "dnode=SIZE,dbuf=SIZE,bonus=SIZE,metadata=SIZE", value_parser = crate::args::pinned, help_heading = "ZFS ARC model")]
    pinned: Option<[u64; 4]>,
    /// zfs-arc: read arcstats every N requests of the trace, as a monitoring
    /// agent or the oracle's harness (`arcoracle replay -S`, 1000 by
    /// default) does: each read folds `arcstat_size`'s per-CPU sums, so the
    /// next overflow check sees the exact size instead of a lagging bound.
    /// 0 (the default): never.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 0,
        help_heading = "ZFS ARC model"
    )]
    kstat_every: u64,
    /// zfs-arc: the host's operating system.
    #[arg(long, default_value = "linux", help_heading = "ZFS ARC model")]
    os: Os,
    /// zfs-arc: requests per second for traces without a clock (txt, lis).
    #[arg(long, default_value_t = 10_000.0, help_heading = "ZFS ARC model")]
    rate: f64,
    #[command(flatten)]
    format: FormatArgs,
    /// Also write the results to FILE, as JSON (`.json`), CSV (`.csv`),
    /// Markdown (`.md`) or the text table (any other name); written
    /// atomically, and stdout still gets the format asked for.
    #[arg(long, short = 'o', value_name = "FILE")]
    output: Option<std::path::PathBuf>,
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
    #[serde(skip_serializing_if = "Option::is_none")]
    zfs_version: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    prefetch: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    arcstats: Option<ArcStats>,
    #[serde(skip_serializing_if = "Option::is_none")]
    zfetchstats: Option<ZfetchStats>,
}

#[derive(Serialize, Debug)]
struct Report {
    trace: String,
    format: String,
    mode: &'static str,
    threads: usize,
    working_set: Option<WorkingSet>,
    #[serde(skip_serializing_if = "Option::is_none")]
    zfs: Option<ZfsRun>,
    results: Vec<Row>,
}

/// How the ZFS model rows were run.
#[derive(Serialize, Debug, Clone)]
struct ZfsRun {
    ram_bytes: u64,
    os: String,
    clock: String,
    behaviours: Vec<String>,
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
    if let Some(out) = &args.output {
        // Refuse a link or a directory before the replay, not after it.
        arclab_io::check_target(out)?;
    }
    for (flag, n) in [
        ("--size", args.size.len()),
        ("--arc-max", args.arc_max.len()),
    ] {
        if n > MAX_CAPS {
            return Err(UsageError(format!(
                "{flag}: {n} sizes given; at most {MAX_CAPS} (each is a full replay of the trace)"
            ))
            .into());
        }
    }
    let object_mode = args.ignore_obj_size;
    let threads = args.threads.get();

    // Fractions need the working set first: one extra pass over the trace,
    // taken only when a run uses one (zfs-arc given --arc-max ignores --size).
    let fraction_size = args.size.iter().any(|s| matches!(s, SizeSpec::Fraction(_)));
    let fraction_cap = args
        .arc_max
        .iter()
        .any(|c| matches!(c, Cap::Size(SizeSpec::Fraction(_))));
    let needs_wss = args.policy.iter().any(|p| match p {
        PolicyName::Baseline(_) => fraction_size,
        PolicyName::ZfsArc if args.arc_max.is_empty() => fraction_size,
        PolicyName::ZfsArc => fraction_cap,
    });
    let wss = if needs_wss {
        Some(working_set(&args.input, &args.trace)?)
    } else {
        None
    };
    let capacity_of = |spec: SizeSpec| match spec {
        SizeSpec::Absolute(v) => v,
        SizeSpec::Fraction(f) => {
            let w = wss.expect("computed when a fraction is given");
            let base = if object_mode { w.objects } else { w.bytes };
            // libCacheSim truncates fractional sizes the same way.
            ((base as f64 * f) as u64).max(1)
        }
    };
    let label_of = |spec: SizeSpec| match spec {
        SizeSpec::Absolute(v) if object_mode => v.to_string(),
        SizeSpec::Absolute(v) => format_size_compact(v),
        SizeSpec::Fraction(f) => f.to_string(),
    };
    // A capture's keys carry files and levels, so the prefetcher sees the
    // host's own streams; other traces are one file.
    let block_keys = args.input.open(&args.trace)?.format().block_keys();
    if let Some(p) = args.pinned
        && let Some(&held) = p.iter().find(|&&b| b > args.ram)
    {
        return Err(UsageError(format!(
            "--pinned: {held} bytes held in a host of {} bytes of RAM",
            args.ram
        ))
        .into());
    }
    let mut jobs = Vec::new();
    let mut labels = Vec::new();
    let mut behaviours = Vec::new();
    for &policy in &args.policy {
        match policy {
            PolicyName::Baseline(kind) => {
                for &spec in &args.size {
                    jobs.push(Job::policy(kind, capacity_of(spec)));
                    labels.push(label_of(spec));
                }
            }
            PolicyName::ZfsArc => {
                let caps: Vec<Cap> = if args.arc_max.is_empty() {
                    args.size.iter().map(|&s| Cap::Size(s)).collect()
                } else {
                    args.arc_max.clone()
                };
                for v in &args.zfs_version {
                    let behaviour = Behaviour::preset(v)
                        .map_err(|e| UsageError(format!("--zfs-version: {e}")))?;
                    behaviours.push(behaviour.describe());
                    for &cap in &caps {
                        for &pf in &args.prefetch {
                            let mut config = ArcConfig::new(args.ram)
                                .with_behaviour(behaviour.clone())
                                .with_os(args.os);
                            for (name, v) in &args.tunable {
                                arclab_sim::scenario::apply_tunable(&mut config.tunables, name, *v)
                                    .map_err(|e| UsageError(format!("--tunable: {e}")))?;
                            }
                            let (capacity, label) = match cap {
                                // The version's own c_max for this RAM and OS,
                                // as the model computes it.
                                Cap::Default => (
                                    arclab_arc::limits(
                                        config.ram_bytes,
                                        config.os,
                                        config.behaviour.limits,
                                        None,
                                        config.arc_min,
                                    )
                                    .c_max_bytes,
                                    "default".to_string(),
                                ),
                                Cap::Size(spec) => {
                                    let c = capacity_of(spec);
                                    config = config.with_arc_max(c);
                                    (c, label_of(spec))
                                }
                            };
                            let mut spec = ZfsSpec::new(config, pf == OnOff::On, block_keys);
                            spec.blocks_per_file = args.blocks_per_file;
                            spec.compress_ratio = args.compress_ratio;
                            let [dnode, dbuf, bonus, metadata] = args.pinned.unwrap_or_default();
                            spec.pinned = [dnode, dbuf, bonus];
                            spec.held_metadata = metadata;
                            spec.kstat_every = args.kstat_every;
                            spec.indirect_reads = !block_keys
                                && args
                                    .indirect_reads
                                    .map_or(args.blocks_per_file.is_some(), |v| v == OnOff::On);
                            jobs.push(Job {
                                target: Target::Zfs(Box::new(spec)),
                                capacity,
                            });
                            labels.push(label);
                        }
                    }
                }
            }
        }
    }
    if jobs.len() > MAX_RUNS {
        return Err(UsageError(format!(
            "{} runs asked for (policies × sizes × versions × prefetch settings); at most \
             {MAX_RUNS}: every run keeps its own cache in memory while the trace passes through \
             all of them",
            jobs.len()
        ))
        .into());
    }
    let has_zfs = args.policy.contains(&PolicyName::ZfsArc);
    if has_zfs && object_mode {
        return Err(UsageError(
            "zfs-arc models bytes: drop --ignore-obj-size (or run zfs-arc separately)".into(),
        )
        .into());
    }
    let reader = args.input.open(&args.trace)?;
    // The ZFS model needs a clock finer than whole seconds (its promotion
    // window is 62 ms): the format's clock adapter spreads requests that
    // share a timestamp across their tick, or synthesises a clock for
    // traces that have none. Baselines ignore time.
    let clock =
        Clock::for_format(reader.format(), args.rate).map_err(|e| UsageError(e.to_string()))?;
    let mut trace = Clocked::new(reader, clock);
    let (_, total) = trace.reader().progress();
    let mut bar = Progress::new("replaying", total);
    let cfg = ReplayConfig {
        object_mode,
        threads,
        // Reserve by the trace's objects when known, never by --size alone.
        expected_objects: wss.map_or(0, |w| w.objects),
        ..ReplayConfig::default()
    };
    let path = args.trace.display().to_string();
    let format = trace.reader().format().to_string();
    let results = replay(
        &jobs,
        &cfg,
        |buf, max| {
            let n = trace.next_batch(buf, max);
            bar.set(trace.reader().progress().0);
            n
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
        zfs: has_zfs.then(|| ZfsRun {
            ram_bytes: args.ram,
            os: args.os.to_string(),
            clock: clock.describe(),
            behaviours: behaviours.clone(),
        }),
        results: results
            .iter()
            .zip(&labels)
            .map(|(r, label)| row(r, label))
            .collect(),
    };
    if let Some(out) = &args.output {
        let ext = out
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        let (fmt, name) = match ext.as_deref() {
            Some("json") => (
                FormatArgs {
                    json: true,
                    ..FormatArgs::default()
                },
                "JSON",
            ),
            Some("csv") => (
                FormatArgs {
                    csv: true,
                    ..FormatArgs::default()
                },
                "CSV",
            ),
            Some("md") => (
                FormatArgs {
                    markdown: true,
                    ..FormatArgs::default()
                },
                "Markdown",
            ),
            _ => (FormatArgs::default(), "a text table"),
        };
        arclab_io::write_atomic(out, render_report(&report, &fmt, object_mode)?.as_bytes())?;
        eprintln!(
            "arclab: wrote {} rows ({}) to {} as {name}",
            report.results.len(),
            row_summary(&report.results),
            out.display()
        );
    }
    output::print(&render_report(&report, &args.format, object_mode)?)
}

/// Which rows: `lru, arc × 2 sizes; zfs-arc 2.2.7 prefetch on/off × 2 sizes`.
fn row_summary(rows: &[Row]) -> String {
    let mut policies: Vec<String> = Vec::new();
    let mut sizes: Vec<&str> = Vec::new();
    for r in rows {
        let mut p = r.policy.clone();
        if let Some(v) = &r.zfs_version {
            p.push_str(&format!(" {v}"));
        }
        if let Some(on) = r.prefetch {
            p.push_str(if on { " prefetch on" } else { " prefetch off" });
        }
        if !policies.contains(&p) {
            policies.push(p);
        }
        if !sizes.contains(&r.size.as_str()) {
            sizes.push(&r.size);
        }
    }
    format!("{} × size {}", policies.join(", "), sizes.join(", "))
}

fn row(r: &JobResult, label: &str) -> Row {
    let zfs = match &r.job.target {
        Target::Zfs(spec) => Some(spec),
        Target::Policy(_) => None,
    };
    Row {
        policy: r.job.name().to_string(),
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
        zfs_version: zfs.map(|s| s.config.behaviour.release.to_string()),
        prefetch: zfs.map(|s| s.prefetch),
        arcstats: r.arcstats.as_deref().cloned(),
        zfetchstats: r.zfetchstats,
    }
}

/// The report in the format `fmt` asks for.
fn render_report(report: &Report, fmt: &FormatArgs, object_mode: bool) -> Result<String> {
    if fmt.json {
        let mut s = serde_json::to_string_pretty(report)?;
        s.push('\n');
        return Ok(s);
    }
    let machine = fmt.csv;
    // zfs-arc rows differing in version or prefetch get a column each, so
    // every row says which run it is.
    let differs = |f: &dyn Fn(&Row) -> Option<String>| {
        let mut zfs = report.results.iter().filter_map(f);
        zfs.next().is_some_and(|first| zfs.any(|x| x != first))
    };
    let version_col = differs(&|r| r.zfs_version.clone());
    let prefetch_col = differs(&|r| r.prefetch.map(|p| p.to_string()));
    let mut headers = vec!["policy"];
    if version_col {
        headers.push("zfs_version");
    }
    if prefetch_col {
        headers.push("prefetch");
    }
    headers.extend([
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
    let mut t = Table::new(&headers);
    for r in &report.results {
        let cap = if machine {
            r.capacity.to_string()
        } else if object_mode {
            format!("{} obj", r.capacity)
        } else {
            format_bytes(r.capacity)
        };
        let mut cells = vec![r.policy.clone()];
        if version_col {
            cells.push(r.zfs_version.clone().unwrap_or_else(|| "–".into()));
        }
        if prefetch_col {
            cells.push(match r.prefetch {
                Some(true) => "on".into(),
                Some(false) => "off".into(),
                None => "–".into(),
            });
        }
        cells.extend([
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
        t.push(cells);
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
        if let Some(z) = &report.zfs {
            for b in &z.behaviours {
                s.push_str(&format!("zfs-arc: {}\n", b.lines().next().unwrap_or("")));
            }
            s.push_str(&format!(
                "zfs-arc: {} of RAM ({}), {}\n",
                format_bytes(z.ram_bytes),
                z.os,
                z.clock
            ));
            // One prefetch setting: said once here (several: a column).
            if let Some(p) = report.results.iter().find_map(|r| r.prefetch)
                && !prefetch_col
            {
                s.push_str(if p {
                    "zfs-arc: prefetch on\n"
                } else {
                    "zfs-arc: prefetch off\n"
                });
            }
        }
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
    Ok(text)
}

/// Unique objects and their bytes (each object counted at its first size).
fn working_set(input: &TraceInput, path: &std::path::Path) -> Result<WorkingSet> {
    let mut reader = input.open(path)?;
    let w = arclab_trace::stats::WorkingSet::compute(&mut reader)?;
    Ok(WorkingSet {
        objects: w.objects,
        bytes: w.bytes,
    })
}
