//! `arclab whatif`: what a cap on `zfs_arc_max` (or prefetch off, or another
//! version or policy) costs, and what it buys, on a built-in workload and
//! memory-pressure scenario or a real trace.
//!
//! The library (`arclab_sim::whatif`) runs one simulation per combination of
//! the axes; this module turns each `RunResult` into a [`Row`], and hands the
//! one [`Report`] to the exporters in [`crate::report`].

use super::sim::{ArcMax, OnOff, PolicyName, parse_ram};
use super::trace::TraceInput;
use super::{FormatArgs, UsageError};
use crate::output;
use crate::progress::Progress;
use crate::report::device::Device;
use crate::report::{self, Report, Row, RunSeries, SeriesPoint};
use anyhow::{Context, Result};
use arclab_arc::model::Behaviour;
use arclab_arc::units::{SizeSpec, format_bytes, format_size_compact};
use arclab_sim::replay::Target;
use arclab_sim::sample::AUTO_SAMPLE_ABOVE;
use arclab_sim::sample::DEFAULT_RATE;
use arclab_sim::scenario::{self, Scenario};
use arclab_sim::whatif::{RunResult, RunSpec};
use arclab_sim::workload::{self, WorkloadSpec};
use arclab_sim::zfs::ZfsSpec;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Mutex;

/// Points per run in the time series behind the timeline plot.
const SERIES_POINTS: u64 = 400;

/// What a cap on zfs_arc_max will cost, and what it buys.
///
/// With no arguments: the built-in `homelab` workload and scenario (31.24 GiB
/// of RAM, ~22,000 ARC reads/s, bursts of containers' memory demand), one
/// row per cap: default, 16G, 12G, 8G, 4G. Sizes are binary (8G = 8 GiB).
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:\n  \
    arclab whatif\n  \
    arclab whatif --caps 4G..16G/4G,default --prefetch on,off --device hdd\n  \
    arclab whatif --policy zfs-arc,lru,s3fifo --report whatif.html --plot plots/\n  \
    arclab whatif --trace cloudPhysicsIO.oracleGeneral.bin --ram 16G --json")]
pub(crate) struct WhatifArgs {
    /// Caps on zfs_arc_max, comma-separated: sizes, `default` (the version's
    /// own c_max), a fraction of RAM (0.25), or a range `4G..16G/4G`.
    #[arg(long, value_delimiter = ',', default_value = "default,16G,12G,8G,4G")]
    caps: Vec<Caps>,
    /// Prefetch settings to compare (`on,off` runs both). Default: the scenario's.
    #[arg(long, value_delimiter = ',')]
    prefetch: Vec<OnOff>,
    /// OpenZFS versions to model: 2.1, 2.2, 2.3, … Default: the scenario's.
    #[arg(long, value_delimiter = ',')]
    zfs_version: Vec<String>,
    /// Policies: zfs-arc, and baselines (lru, fifo, arc, s3fifo, sieve) that
    /// get the cap as their capacity.
    #[arg(long, short = 'p', value_delimiter = ',', default_value = "zfs-arc")]
    policy: Vec<PolicyName>,
    /// A built-in workload (homelab, …) or a workload TOML file.
    #[arg(
        long,
        short = 'w',
        value_name = "NAME|FILE.toml",
        conflicts_with = "trace"
    )]
    workload: Option<String>,
    /// A built-in scenario (homelab) or a scenario TOML file: RAM, version,
    /// tunables and the other processes' memory demand.
    #[arg(long, value_name = "NAME|FILE.toml", default_value = "homelab")]
    scenario: String,
    /// Replay a real trace instead of a workload.
    #[arg(long, short = 't', value_name = "FILE")]
    trace: Option<PathBuf>,
    #[command(flatten)]
    input: TraceInput,
    /// The disk behind the pool: ssd (100 µs + 500 MB/s), hdd (8 ms +
    /// 150 MB/s), nvme (20 µs + 3 GB/s), or LATENCY,BANDWIDTH (0.1ms,500MB/s).
    #[arg(long, default_value = "ssd")]
    device: Device,
    /// Simulate this fraction of the address space (spatial sampling; misses
    /// are scaled back). Default: automatic above a size threshold.
    #[arg(long, value_name = "R")]
    sample_rate: Option<f64>,
    /// Seed for the workload generator.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Write the workload's requests (for this --seed) to FILE as an
    /// oracleGeneral trace, so libCacheSim can replay the same requests, and
    /// stop (`.zst`/`.gz` compress).
    #[arg(long, value_name = "FILE", conflicts_with = "trace")]
    write_trace: Option<PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// The host's RAM (overrides the scenario's).
    #[arg(long, value_parser = parse_ram)]
    ram: Option<u64>,
    /// Write PNG and SVG plots: into DIR/ (whatif-misses.*, whatif-timeline.*)
    /// or as PREFIX-misses.* and PREFIX-timeline.*.
    #[arg(long, value_name = "DIR_OR_PREFIX")]
    plot: Option<PathBuf>,
    /// Write a self-contained HTML report (table, plots, verdict).
    #[arg(long, value_name = "FILE.html")]
    report: Option<PathBuf>,
    #[command(flatten)]
    format: FormatArgs,
}

/// One `--caps` item: a cap, or a range of them.
#[derive(Clone, Debug)]
struct Caps(Vec<(String, ArcMax)>);

impl FromStr for Caps {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        let Some((lo, rest)) = s.split_once("..") else {
            let cap: ArcMax = s.parse()?;
            let label = if matches!(cap, ArcMax::Default) {
                "default".to_string()
            } else {
                s.to_string()
            };
            return Ok(Caps(vec![(label, cap)]));
        };
        let (hi, step) = rest
            .split_once('/')
            .ok_or_else(|| format!("range `{s}` needs a step: LOW..HIGH/STEP, e.g. 4G..16G/4G"))?;
        let bytes = |t: &str| arclab_arc::units::parse_bytes(t).map_err(|e| e.to_string());
        let (lo, hi, step) = (bytes(lo)?, bytes(hi)?, bytes(step)?);
        if step == 0 || lo == 0 || lo > hi {
            return Err(format!("range `{s}`: need 0 < LOW ≤ HIGH and STEP > 0"));
        }
        if (hi - lo) / step >= 64 {
            return Err(format!("range `{s}` gives more than 64 caps"));
        }
        let short = |b: u64| {
            let c = format_size_compact(b);
            c.strip_suffix("iB").map_or(c.clone(), str::to_string)
        };
        Ok(Caps(
            (0..=(hi - lo) / step)
                .map(|i| lo + i * step)
                .map(|b| (short(b), ArcMax::Size(SizeSpec::Absolute(b))))
                .collect(),
        ))
    }
}

/// A name of a built-in or a TOML file: read the file when it looks like one.
fn load<T>(
    what: &str,
    arg: &str,
    builtin: impl Fn(&str) -> Option<T>,
    parse: impl Fn(&str, &str) -> Result<T, arclab_sim::workload::WorkloadError>,
    names: &str,
) -> Result<T> {
    let path = Path::new(arg);
    if arg.ends_with(".toml") || path.is_file() {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {what} file {arg}"))?;
        // The error names the file and line itself.
        return parse(&text, arg).map_err(|e| anyhow::anyhow!("{e}"));
    }
    builtin(arg).ok_or_else(|| {
        anyhow::anyhow!("unknown {what} `{arg}` (built-in: {names}; or give a .toml file)")
    })
}

fn threads(n: Option<usize>) -> Result<usize> {
    match n {
        Some(0) => Err(UsageError("--threads must be at least 1".into()).into()),
        Some(t) => Ok(t),
        None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
    }
}

/// The bytes a cap stands for on a host with `ram` bytes.
fn cap_bytes(cap: &ArcMax, ram: u64) -> Option<u64> {
    match cap {
        ArcMax::Default => None,
        ArcMax::Size(SizeSpec::Absolute(b)) => Some(*b),
        ArcMax::Size(SizeSpec::Fraction(f)) => Some((ram as f64 * f) as u64),
    }
}

/// One run to do, and how to label its row.
struct Planned {
    spec: RunSpec,
    labels: PlannedLabels,
}

fn plan(
    args: &WhatifArgs,
    base: &Scenario,
    step_ns: u64,
    sample_rate: Option<f64>,
) -> Result<Vec<Planned>> {
    let caps: Vec<(String, ArcMax)> = args.caps.iter().flat_map(|c| c.0.clone()).collect();
    if caps.is_empty() || args.policy.is_empty() {
        return Err(UsageError("give at least one --caps and one --policy".into()).into());
    }
    let mut scenario = base.clone();
    if let Some(ram) = args.ram {
        scenario.ram_bytes = ram;
    }
    let ram = scenario.ram_bytes;
    for (label, cap) in &caps {
        if let Some(b) = cap_bytes(cap, ram).filter(|&b| b >= ram) {
            anyhow::bail!(
                "cap {label} ({}) is not below the host's RAM ({}): the kernel would ignore it",
                format_bytes(b),
                format_bytes(ram)
            );
        }
    }
    let versions: Vec<Option<String>> = if args.zfs_version.is_empty() {
        vec![None]
    } else {
        for v in &args.zfs_version {
            Behaviour::preset(v).map_err(|e| UsageError(format!("--zfs-version: {e}")))?;
        }
        args.zfs_version.iter().cloned().map(Some).collect()
    };
    let prefetches: Vec<bool> = if args.prefetch.is_empty() {
        vec![scenario.prefetch]
    } else {
        args.prefetch.iter().map(|&p| p == OnOff::On).collect()
    };
    let mut out = Vec::new();
    for &policy in &args.policy {
        for version in &versions {
            // Baselines have no version or prefetcher: one set of rows each.
            let (pfs, zfs) = match policy {
                PolicyName::ZfsArc => (prefetches.as_slice(), true),
                PolicyName::Baseline(_) => (&prefetches[..1], false),
            };
            if !zfs && version != &versions[0] {
                continue;
            }
            for &prefetch in pfs {
                for (label, cap) in &caps {
                    let arc_max = cap_bytes(cap, ram);
                    let mut sc = scenario.clone();
                    sc.prefetch = prefetch;
                    if let Some(v) = version {
                        sc.zfs_version = v.clone();
                    }
                    // `default` is the version's own c_max, whatever the scenario set.
                    sc.arc_max = arc_max;
                    let config = sc
                        .arc_config(arc_max)
                        .map_err(|e| anyhow::anyhow!("cap {label}: {e}"))?;
                    let version = config.behaviour.release.to_string();
                    let target = match policy {
                        PolicyName::ZfsArc => Target::Zfs(Box::new(ZfsSpec {
                            config,
                            prefetch,
                            // Workload keys carry files and blocks; trace keys do not.
                            block_keys: args.trace.is_none(),
                        })),
                        // A baseline's capacity: the scenario's arc_max, else the default c_max.
                        PolicyName::Baseline(kind) => Target::Policy(kind),
                    };
                    out.push(Planned {
                        spec: RunSpec {
                            label: format!("{policy} {label}"),
                            target,
                            scenario: sc,
                            sample_rate,
                            series_step_ns: step_ns,
                        },
                        labels: PlannedLabels {
                            cap: label.clone(),
                            policy: policy.to_string(),
                            prefetch: zfs && prefetch,
                            zfs_version: if zfs { version } else { String::new() },
                        },
                    });
                }
            }
        }
    }
    Ok(out)
}

/// The row for one run.
pub(crate) fn row(r: &RunResult, p: &PlannedLabels, device: &Device) -> Row {
    let busy = device.busy(r.misses_per_sec, r.miss_bytes_per_sec);
    let largest = r.giveback.iter().max_by_key(|g| g.bytes);
    Row {
        cap: p.cap.clone(),
        policy: p.policy.clone(),
        prefetch: p.prefetch,
        zfs_version: p.zfs_version.clone(),
        c_max_bytes: r.c_max_bytes,
        n_req: r.n_req,
        n_miss: r.n_miss,
        hit_ratio: r.hit_ratio,
        misses_per_sec: r.misses_per_sec,
        miss_bytes_per_sec: r.miss_bytes_per_sec,
        miss_multiplier: None,
        mean_size_bytes: r.mean_size_bytes,
        peak_size_bytes: r.peak_size_bytes,
        disk_busy_ratio: busy.ratio,
        disk_saturated: busy.saturated,
        pressure_deficit_byte_seconds: r.pressure_deficit_byte_seconds,
        giveback_events: r.giveback.len(),
        giveback_bytes: largest.map_or(0, |g| g.bytes),
        giveback_seconds: largest.map_or(0.0, |g| g.duration_ns as f64 / 1e9),
        giveback_total_bytes: r.giveback.iter().map(|g| g.bytes).sum(),
        sample_rate: r.sampled,
    }
}

/// How a run's row is labelled.
pub(crate) struct PlannedLabels {
    pub(crate) cap: String,
    pub(crate) policy: String,
    pub(crate) prefetch: bool,
    pub(crate) zfs_version: String,
}

/// The time series of one run, in seconds.
pub(crate) fn series(r: &RunResult, label: &str) -> RunSeries {
    RunSeries {
        label: label.to_string(),
        points: r
            .series
            .iter()
            .map(|p| SeriesPoint {
                t_s: p.t_ns as f64 / 1e9,
                size_bytes: p.size_bytes,
                c_bytes: p.c_bytes,
                other_demand_bytes: p.other_demand_bytes,
                deficit_bytes: p.deficit_bytes,
            })
            .collect(),
    }
}

pub(crate) fn run(args: WhatifArgs) -> Result<()> {
    let threads = threads(args.threads)?;
    if let Some(r) = args.sample_rate
        && !(r > 0.0 && r <= 1.0)
    {
        return Err(UsageError("--sample-rate must be in (0, 1]".into()).into());
    }
    let scenario = load(
        "scenario",
        &args.scenario,
        scenario::builtin,
        Scenario::from_toml_str,
        &scenario::BUILTINS.join(", "),
    )?;
    let names = workload::BUILTINS.join(", ");
    let workload = match &args.trace {
        Some(_) => None,
        None => {
            let name = args
                .workload
                .as_deref()
                .or(scenario.workload.as_deref())
                .unwrap_or("homelab");
            Some(load(
                "workload",
                name,
                workload::builtin,
                WorkloadSpec::from_toml_str,
                &names,
            )?)
        }
    };
    if let (Some(out), Some(w)) = (&args.write_trace, &workload) {
        let mut generator = w.generator(args.seed);
        let mut reqs = Vec::with_capacity(w.expected_requests().min(1 << 26) as usize);
        while generator.next_batch(&mut reqs, 1 << 16) > 0 {}
        let n = arclab_trace::write_oracle_general(out, reqs)
            .with_context(|| format!("writing {}", out.display()))?;
        eprintln!(
            "wrote {n} requests of workload {} (seed {}) to {} (oracleGeneral)",
            w.name(),
            args.seed,
            out.display()
        );
        return Ok(());
    }
    let expected = workload.as_ref().map(|w| w.expected_requests());
    // Sample on our own above AUTO_SAMPLE_ABOVE requests (said in the output).
    let sample_rate = args.sample_rate.or_else(|| {
        expected
            .filter(|&n| n > AUTO_SAMPLE_ABOVE)
            .map(|_| DEFAULT_RATE)
    });
    let duration_ns = workload
        .as_ref()
        .map_or(600_000_000_000, |w| w.duration_ns());
    let step_ns = (duration_ns / SERIES_POINTS).max(1_000_000);
    let planned = plan(&args, &scenario, step_ns, sample_rate)?;
    let specs: Vec<RunSpec> = planned.iter().map(|p| p.spec.clone()).collect();

    let bar = Mutex::new(Progress::count("simulating runs"));
    let progress = |done: usize, _total: usize| {
        if let Ok(mut b) = bar.lock() {
            b.set(done as u64);
        }
    };
    let results = match (&workload, &args.trace) {
        (Some(w), _) => arclab_sim::whatif::run_all(&specs, w, args.seed, threads, &progress),
        (None, Some(path)) => run_trace(&specs, &args.input, path, threads, &progress)?,
        (None, None) => unreachable!("a workload is loaded when no trace is given"),
    };
    if let Ok(b) = bar.into_inner() {
        b.finish();
    }
    if results.first().is_some_and(|r| r.n_req == 0) {
        match &args.trace {
            Some(t) => anyhow::bail!("{}: the trace holds no requests", t.display()),
            None => anyhow::bail!("the workload produced no requests"),
        }
    }

    let mut rows = Vec::new();
    let mut all_series = Vec::new();
    for (r, p) in results.iter().zip(&planned) {
        rows.push(row(r, &p.labels, &args.device));
        all_series.push(series(r, &p.labels.cap));
    }
    report::fill_multipliers(&mut rows);
    let ram = args.ram.unwrap_or(scenario.ram_bytes);
    let mut rep = Report {
        workload: match (&workload, &args.trace) {
            (Some(w), _) => w.name().to_string(),
            (None, Some(t)) => t.display().to_string(),
            (None, None) => String::new(),
        },
        workload_description: workload
            .as_ref()
            .map_or_else(|| "a recorded trace".to_string(), |w| w.describe()),
        scenario: scenario.name.clone(),
        ram_bytes: ram,
        zfs_version: planned
            .first()
            .map_or_else(String::new, |p| p.labels.zfs_version.clone()),
        os: scenario.os.clone(),
        device: args.device.clone(),
        seed: args.seed,
        duration_s: results.first().map_or(0.0, |r| r.duration_ns as f64 / 1e9),
        sampling: sampling_note(&results, args.sample_rate, expected),
        rows,
        verdict: String::new(),
        series: all_series,
    };
    rep.verdict = report::verdict::verdict(&rep);
    emit(&rep, &args)
}

/// Replay a trace once per run, `threads` runs at a time.
fn run_trace(
    specs: &[RunSpec],
    input: &TraceInput,
    path: &Path,
    threads: usize,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<Vec<RunResult>> {
    // Open once up front so a missing or unreadable file fails before any work.
    input.open(path)?;
    let done = std::sync::atomic::AtomicUsize::new(0);
    let mut out: Vec<Option<Result<RunResult>>> = (0..specs.len()).map(|_| None).collect();
    for chunk in out.chunks_mut(threads).zip(specs.chunks(threads)) {
        std::thread::scope(|s| {
            for (slot, spec) in chunk.0.iter_mut().zip(chunk.1) {
                let done = &done;
                s.spawn(move || {
                    let one = || -> Result<RunResult> {
                        let mut reader = input.open(path)?;
                        // The runner's source cannot fail: keep the first
                        // read error and end the stream there.
                        let mut error = None;
                        let r = arclab_sim::whatif::run(spec, &mut |buf, max| match reader
                            .read_batch(buf, max)
                        {
                            Ok(n) => n,
                            Err(e) => {
                                error.get_or_insert(e);
                                0
                            }
                        });
                        match error {
                            Some(e) => Err(e.into()),
                            None => Ok(r),
                        }
                    };
                    *slot = Some(one());
                    let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                    progress(n, specs.len());
                });
            }
        });
    }
    out.into_iter()
        .map(|r| r.unwrap_or_else(|| Err(anyhow::anyhow!("a run did not finish"))))
        .collect()
}

/// What the output says about sampling, when the runs were sampled.
fn sampling_note(
    results: &[RunResult],
    asked: Option<f64>,
    expected: Option<u64>,
) -> Option<String> {
    let rate = results.iter().find_map(|r| r.sampled)?;
    let why = match (asked, expected) {
        (Some(_), _) => "as asked with --sample-rate".to_string(),
        (None, Some(n)) => format!(
            "automatic: the workload has ~{} requests, above {}",
            output::si(n as f64),
            output::si(AUTO_SAMPLE_ABOVE as f64)
        ),
        (None, None) => format!(
            "automatic above {} requests",
            output::si(AUTO_SAMPLE_ABOVE as f64)
        ),
    };
    Some(format!(
        "sampled: {:.3} % of the address space ({why}); misses and rates scaled back",
        rate * 100.0
    ))
}

/// Print the chosen format, then write the plot and report files.
fn emit(rep: &Report, args: &WhatifArgs) -> Result<()> {
    let text = if args.format.json {
        report::table::to_json(rep)?
    } else if args.format.csv {
        report::table::machine(rep).to_csv()
    } else if args.format.markdown {
        report::table::to_markdown(rep)
    } else {
        report::table::to_text(rep)
    };
    // Files first: a failure there must not follow a successful-looking table.
    let mut written = Vec::new();
    if let Some(target) = &args.plot {
        written.extend(report::plot::write_plots(rep, target)?);
    }
    if let Some(path) = &args.report {
        report::write_atomic(path, report::html::render(rep)?.as_bytes())?;
        written.push(path.clone());
    }
    for p in &written {
        eprintln!("wrote {}", p.display());
    }
    output::print(&text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arclab_sim::whatif::GiveBack;

    const GIB: u64 = 1 << 30;

    fn result(c_max: u64, peak: u64, misses: f64, giveback: u64) -> RunResult {
        RunResult {
            n_req: 22_000 * 180,
            hit_ratio: 1.0 - misses / 22_000.0,
            misses_per_sec: misses,
            miss_bytes_per_sec: misses * 131_072.0,
            mean_size_bytes: peak as f64 * 0.8,
            peak_size_bytes: peak,
            c_max_bytes: c_max,
            giveback: vec![GiveBack {
                start_ns: 100_000_000_000,
                bytes: giveback,
                duration_ns: 4_000_000_000,
            }],
            duration_ns: 180_000_000_000,
            ..RunResult::default()
        }
    }

    fn labels(cap: &str) -> PlannedLabels {
        PlannedLabels {
            cap: cap.into(),
            policy: "zfs-arc".into(),
            prefetch: true,
            zfs_version: "2.3.x".into(),
        }
    }

    #[test]
    fn rows_and_verdict_from_run_results() {
        let ssd = Device::ssd();
        let runs = [
            ("default", result(30 * GIB, 15 * GIB, 20.0, 3 * GIB)),
            ("8G", result(8 * GIB, 9 * GIB, 290.0, GIB)),
        ];
        let mut rows: Vec<Row> = runs.iter().map(|(c, r)| row(r, &labels(c), &ssd)).collect();
        report::fill_multipliers(&mut rows);
        assert_eq!(rows[1].giveback_bytes, GIB);
        assert_eq!(rows[1].giveback_seconds, 4.0);
        assert!((rows[1].miss_multiplier.unwrap() - 14.5).abs() < 1e-9);
        let busy = 290.0 * 100e-6 + 290.0 * 131_072.0 / 500e6;
        assert!((rows[1].disk_busy_ratio - busy).abs() < 1e-12);
        let rep = Report {
            workload: "homelab".into(),
            workload_description: String::new(),
            scenario: "homelab".into(),
            ram_bytes: 31 * GIB,
            zfs_version: "2.3.x".into(),
            os: "linux".into(),
            device: ssd,
            seed: 1,
            duration_s: 180.0,
            sampling: None,
            rows,
            verdict: String::new(),
            series: Vec::new(),
        };
        let v = report::verdict::verdict(&rep);
        assert!(
            v.starts_with(
                "Capping zfs_arc_max at 8.00 GiB lowers the ARC's peak from 15.00 GiB to 9.00 GiB"
            ),
            "{v}"
        );
        assert!(
            v.contains("gives back up to 1.00 GiB within 4.0 s (uncapped: 3.00 GiB in 4.0 s)"),
            "{v}"
        );
        assert!(v.contains("misses rise 14× to 290/s"), "{v}");
    }

    #[test]
    fn cap_ranges() {
        let c: Caps = "4G..16G/4G".parse().unwrap();
        let labels: Vec<&str> = c.0.iter().map(|(l, _)| l.as_str()).collect();
        assert_eq!(labels, ["4G", "8G", "12G", "16G"]);
        assert!("16G..4G/4G".parse::<Caps>().is_err());
        assert!("4G..16G".parse::<Caps>().is_err());
        assert!(matches!(
            "default".parse::<Caps>().unwrap().0[0].1,
            ArcMax::Default
        ));
        assert_eq!(
            cap_bytes(&ArcMax::Size(SizeSpec::Fraction(0.25)), 32 * GIB),
            Some(8 * GIB)
        );
    }
}
