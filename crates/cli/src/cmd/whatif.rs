//! `arclab whatif`: what a cap on `zfs_arc_max` (or prefetch off, or another
//! version or policy) costs, and what it buys, on a built-in workload and
//! memory-pressure scenario or a real trace.
//!
//! The library (`arclab_sim::whatif`) plans the runs (policy × version ×
//! prefetch × cap), runs them over one stream (a generated workload, or a
//! trace on its format's clock from `arclab_trace::clock`), and turns the
//! results into rows and a verdict; this module parses the arguments and
//! hands the one [`Report`] to the exporters in [`crate::report`].

use super::{FormatArgs, UsageError};
use crate::args::{OnOff, ThreadArgs, TraceInput};
use crate::output;
use crate::progress::Progress;
use crate::report::{self, Report};
use anyhow::{Context, Result};
use arclab_sim::sample::{AUTO_SAMPLE_ABOVE, DEFAULT_RATE, MIN_SAMPLED_BLOCKS, auto_rate};
use arclab_sim::scenario::{self, Scenario};
use arclab_sim::whatif::device::Device;
use arclab_sim::whatif::plan::{Cap, Caps, Plan, PlanError, PolicyName};
use arclab_sim::whatif::{RunResult, RunSpec, report as rows, selfcheck};
use arclab_sim::workload::{self, WorkloadSpec};
use arclab_trace::capture::CaptureHeader;
use arclab_trace::clock::{Clock, Clocked};
use std::path::{Path, PathBuf};

/// The caps compared when `--caps` is not given (those below RAM).
const DEFAULT_CAPS: &[&str] = &["default", "16G", "12G", "8G", "4G"];

/// The largest workload or scenario TOML file read: 1 MiB (the built-ins
/// are under 2 KiB; a mixture has at most 63 components).
const MAX_TOML_BYTES: u64 = 1 << 20;

/// Points per run in the time series behind the timeline plot.
const SERIES_POINTS: u64 = 400;

/// What a cap on zfs_arc_max will cost, and what it buys.
///
/// With no arguments: the built-in `homelab` workload and scenario (31.24 GiB
/// of RAM, ~22,000 ARC reads/s, bursts of containers' memory demand), one
/// row per cap: default, 16G, 12G, 8G, 4G. Sizes are binary (8G = 8 GiB).
/// (The `--help` text is the `Whatif` variant's doc in main.rs: what
/// dmiss/s and disk rd/s count.)
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:\n  \
    arclab whatif\n  \
    arclab whatif --caps 4G..16G/4G,default --prefetch on,off --device hdd\n  \
    arclab whatif --device 6xhdd:qd8          (six 7200 rpm disks, eight reads queued on each)\n  \
    arclab whatif --policy zfs-arc,lru,s3fifo --report whatif.html --plot plots/\n  \
    arclab whatif --trace cloudPhysicsIO.oracleGeneral.bin --ram 16G --json")]
pub(crate) struct WhatifArgs {
    /// Caps on zfs_arc_max, comma-separated: sizes, `default` (the version's
    /// own c_max), a fraction of RAM (0.25), or a range `4G..16G/4G`.
    /// Default: default,16G,12G,8G,4G, leaving out those not below the
    /// host's RAM. Binary units, like ZFS: 32G, 32GB and 32GiB all mean 32 GiB = 34359738368 bytes; a plain number is bytes.
    #[arg(long, value_delimiter = ',')]
    caps: Vec<Caps>,
    /// Prefetch settings to compare (`on,off` runs both). Default: the scenario's.
    #[arg(long, value_delimiter = ',')]
    prefetch: Vec<OnOff>,
    /// The pool's compression ratio for data, as `zfs get compressratio`
    /// prints it (`1.5x` or 1.5): the ARC charges compressed blocks, so each
    /// cap holds that much more logical data.
    #[arg(long, default_value = "1", value_parser = crate::args::compress_ratio)]
    compress_ratio: f64,
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
    /// A built-in scenario (homelab, bonnie) or a scenario TOML file: RAM,
    /// version, tunables, pinned memory and the other processes' memory
    /// demand. Default: homelab for a workload; for a trace, a bare host of
    /// --ram (no pinned memory, no other processes).
    #[arg(long, value_name = "NAME|FILE.toml")]
    scenario: Option<String>,
    /// Replay a real trace instead of a workload, on its own clock (relative
    /// to its first request; whole seconds spread within the second).
    #[arg(long, short = 't', value_name = "FILE")]
    trace: Option<PathBuf>,
    #[command(flatten)]
    input: TraceInput,
    /// Requests per second for traces without a clock (txt, lis).
    #[arg(long, default_value_t = 10_000.0)]
    rate: f64,
    /// The disk behind the pool: ssd (100 µs + 500 MB/s), hdd (8 ms +
    /// 150 MB/s), nvme (20 µs + 3 GB/s), or LATENCY,BANDWIDTH (0.1ms,500MB/s);
    /// as a pool NxDEVICE:qdQ (6xhdd:qd8: six disks serving reads, eight
    /// queued on each). One disk, one read queued is the simple model.
    /// Bandwidths are decimal units, like data sheets: 500MB/s = 500,000,000 B/s
    /// (sizes elsewhere are binary, like ZFS).
    #[arg(long, default_value = "ssd")]
    device: Device,
    /// Simulate this fraction of the address space (spatial sampling; misses
    /// are scaled back). Default: automatic for a workload above 50 M
    /// requests, at 1 %, raised so that the sample keeps ~2,048 of the blocks
    /// the workload reads at random. A cap runs at a higher rate when its
    /// miniature would be under 64 MiB or have room for fewer than 128 blocks
    /// of data beside what the ARC holds pinned (up to 50 %; each row's
    /// sample_rate says).
    #[arg(long, value_name = "R")]
    sample_rate: Option<f64>,
    /// Run each cap on N independent samples (other keys each, 1–16) and
    /// report their mean, with the lowest and highest hit ratio and misses/s
    /// in --json/--csv: the spread says how far to trust a sampled number.
    /// Costs N times the sampled runs; only with sampling.
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(1..=i64::from(arclab_sim::whatif::MAX_SAMPLE_SEEDS)))]
    sample_seeds: u32,
    /// Seed for the workload generator.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Write the workload's requests (for this --seed) to FILE as an
    /// oracleGeneral trace, so libCacheSim can replay the same requests, and
    /// stop (`.zst`/`.gz` compress).
    #[arg(long, value_name = "FILE", conflicts_with = "trace")]
    write_trace: Option<PathBuf>,
    #[command(flatten)]
    threads: ThreadArgs,
    /// The host's RAM (overrides the scenario's; needed for a trace
    /// without --scenario; a capture carries its own). Binary units, like ZFS: 32G, 32GB and 32GiB all mean 32 GiB = 34359738368 bytes; a plain number is bytes.
    #[arg(long, value_parser = crate::args::ram)]
    ram: Option<u64>,
    /// Write PNG and SVG plots: into DIR/ (whatif-misses.*, whatif-timeline.*)
    /// or as PREFIX-misses.* and PREFIX-timeline.*.
    #[arg(long, value_name = "DIR_OR_PREFIX")]
    plot: Option<PathBuf>,
    /// Write a self-contained HTML report (table, plots, verdict).
    #[arg(long, value_name = "FILE.html")]
    report: Option<PathBuf>,
    /// The cap the verdict discusses (one of --caps: `default`, a size or a
    /// fraction of RAM); its row is marked `*` in the table and highlighted
    /// in the report. Default: the smallest cap that keeps the disk at most
    /// 10 % busy with a hit ratio within 5 points of the default's, else
    /// the largest cap.
    #[arg(long, value_name = "CAP")]
    verdict_for: Option<Cap>,
    #[command(flatten)]
    format: FormatArgs,
}

/// A name of a built-in or a TOML file: read the file when it looks like one.
fn load<T>(
    what: &str,
    arg: &str,
    builtin: impl Fn(&str) -> Option<T>,
    parse: impl Fn(&str, &str) -> Result<T, arclab_sim::error::DescriptionError>,
    names: &str,
) -> Result<T> {
    let path = Path::new(arg);
    if arg.ends_with(".toml") || path.is_file() {
        let text = arclab_io::read_to_string_limited(path, MAX_TOML_BYTES)
            .with_context(|| format!("cannot read {what} file {arg}"))?;
        // The error names the file and line itself.
        return parse(&text, arg).map_err(|e| anyhow::anyhow!("{e}"));
    }
    builtin(arg).ok_or_else(|| {
        anyhow::anyhow!("unknown {what} `{arg}` (built-in: {names}; or give a .toml file)")
    })
}

/// The runs of the command line on `scenario` (RAM already set).
fn plan(
    args: &WhatifArgs,
    scenario: &Scenario,
    step_ns: u64,
    sample_rate: Option<f64>,
    block_keys: bool,
    presampled: bool,
) -> Result<Vec<arclab_sim::whatif::plan::PlannedRun>> {
    let caps = if args.caps.is_empty() {
        DEFAULT_CAPS
            .iter()
            .flat_map(|c| c.parse::<Caps>().map(|c| c.0).unwrap_or_default())
            .filter(|(_, c)| {
                c.bytes(scenario.ram_bytes)
                    .is_none_or(|b| b < scenario.ram_bytes)
            })
            .collect()
    } else {
        args.caps.iter().flat_map(|c| c.0.clone()).collect()
    };
    let plan = Plan {
        policies: args.policy.clone(),
        caps,
        versions: args.zfs_version.clone(),
        prefetch: args.prefetch.iter().map(|&p| p == OnOff::On).collect(),
        // Workload and capture keys carry files and blocks; other traces' do not.
        block_keys,
        // A generated workload's reads are the DMU's (through the dbuf
        // cache); a capture's are the ARC's own.
        dmu_reads: args.trace.is_none(),
        sample_rate,
        presampled,
        series_step_ns: step_ns,
        compress_ratio: args.compress_ratio,
    };
    plan.runs(scenario).map_err(|e: PlanError| {
        if e.is_usage() {
            UsageError(e.to_string()).into()
        } else {
            anyhow::anyhow!("{e}")
        }
    })
}

/// The scenario: as given, else homelab for a workload, a bare host of
/// `--ram` for a trace, and for a capture the host it was taken on; `--ram`
/// overrides its RAM.
fn scenario(args: &WhatifArgs, capture: Option<&CaptureHeader>) -> Result<Scenario> {
    let from_capture = capture.and_then(Scenario::for_capture);
    let mut sc = match (&args.scenario, &args.trace, args.ram) {
        (Some(name), _, _) => load(
            "scenario",
            name,
            scenario::builtin,
            Scenario::from_toml_str,
            &scenario::BUILTINS.join(", "),
        )?,
        (None, Some(_), Some(ram)) => match from_capture {
            Some(mut sc) => {
                sc.ram_bytes = ram;
                sc
            }
            None => Scenario::for_trace(ram),
        },
        (None, Some(_), None) if from_capture.is_some() => {
            from_capture.unwrap_or_else(|| unreachable!("checked by the guard"))
        }
        (None, Some(_), None) => {
            return Err(UsageError(
                "whatif --trace needs the host's RAM: give --ram SIZE (e.g. --ram 16G) or --scenario NAME|FILE.toml".into(),
            )
            .into());
        }
        (None, None, _) => load(
            "scenario",
            "homelab",
            scenario::builtin,
            Scenario::from_toml_str,
            &scenario::BUILTINS.join(", "),
        )?,
    };
    if let Some(ram) = args.ram {
        sc.ram_bytes = ram;
    }
    Ok(sc)
}

pub(crate) fn run(args: WhatifArgs) -> Result<()> {
    let threads = args.threads.get();
    if let Some(r) = args.sample_rate
        && !(r > 0.0 && r <= 1.0)
    {
        return Err(UsageError("--sample-rate must be in (0, 1]".into()).into());
    }
    let capture = capture_header(&args)?;
    let mut scenario = scenario(&args, capture.as_ref())?;
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
    // The default scenario's warm-up (homelab: 60 s) would leave nothing of
    // a short workload (the built-in scan, loop, oltp, backup): without a
    // scenario chosen, such a workload is counted from its start.
    if args.scenario.is_none()
        && let Some(w) = &workload
        && arclab_sim::whatif::warmup_error(&scenario, w).is_some()
    {
        output::note(&format!(
            "no warm-up: workload {} runs {} s, within the default scenario {}'s warm-up of {} s; \
             give --scenario to choose one",
            w.name(),
            w.duration_ns() as f64 / 1e9,
            scenario.name,
            scenario.warmup_secs
        ));
        scenario.warmup_secs = 0.0;
    }
    if args.write_trace.is_none()
        && let Some(w) = &workload
        && let Some(e) = arclab_sim::whatif::warmup_error(&scenario, w)
    {
        anyhow::bail!("{e}");
    }
    if let (Some(out), Some(w)) = (&args.write_trace, &workload) {
        // Streamed batch by batch: the whole workload is never in memory.
        let mut generator = w.generator(args.seed);
        let (mut buf, mut at) = (Vec::with_capacity(1 << 16), 0);
        let reqs = std::iter::from_fn(move || {
            if at == buf.len() {
                buf.clear();
                at = 0;
                if generator.next_batch(&mut buf, 1 << 16) == 0 {
                    return None;
                }
            }
            at += 1;
            Some(buf[at - 1])
        });
        let n = arclab_trace::write_oracle_general(out, reqs)
            .with_context(|| format!("writing {}", out.display()))?;
        output::note(&format!(
            "wrote {n} requests of workload {} (seed {}) to {} (oracleGeneral)",
            w.name(),
            args.seed,
            out.display()
        ));
        return Ok(());
    }
    let expected = workload.as_ref().map(|w| w.expected_requests());
    // Sample on our own above AUTO_SAMPLE_ABOVE requests (said in the output).
    // A capture taken with --sample-rate is a miniature already.
    let auto = workload
        .as_ref()
        .zip(expected)
        .and_then(|(w, n)| auto_rate(n, w.random_blocks()));
    let presampled = capture
        .as_ref()
        .map(|h| h.sample_rate)
        .filter(|&r| r > 0.0 && r < 1.0);
    if let (Some(r), Some(_)) = (presampled, args.sample_rate) {
        return Err(UsageError(format!(
            "the capture was sampled at {r} when it was taken; drop --sample-rate"
        ))
        .into());
    }
    let sample_rate = presampled.or(args.sample_rate).or(auto);
    let duration_ns = workload
        .as_ref()
        .map_or(600_000_000_000, |w| w.duration_ns());
    let step_ns = (duration_ns / SERIES_POINTS).max(1_000_000);
    let block_keys = args.trace.is_none() || capture.is_some();
    let planned = plan(
        &args,
        &scenario,
        step_ns,
        sample_rate,
        block_keys,
        presampled.is_some(),
    )?;
    if args.sample_seeds > 1 && (sample_rate.is_none() || presampled.is_some()) {
        return Err(UsageError(
            "--sample-seeds needs a sampled run (--sample-rate, or a workload large enough to be \
             sampled on its own); a capture sampled when it was taken holds one sample"
                .to_string(),
        )
        .into());
    }
    let specs: Vec<RunSpec> = planned.iter().map(|p| p.spec.clone()).collect();
    let specs = arclab_sim::whatif::with_seeds(&specs, args.sample_seeds);

    let results = match (&workload, &args.trace) {
        (Some(w), _) => {
            let mut bar = Progress::new("simulating", Some(w.expected_requests()));
            let r = arclab_sim::whatif::run_all(&specs, w, args.seed, threads, |n| bar.set(n));
            bar.finish();
            r
        }
        (None, Some(path)) => run_trace(&specs, &args.input, path, args.rate, threads)?,
        (None, None) => unreachable!("a workload is loaded when no trace is given"),
    };
    let results = arclab_sim::whatif::combine_seeds(results, args.sample_seeds);
    if results.first().is_some_and(|r| r.n_req == 0) {
        match &args.trace {
            Some(t) => anyhow::bail!("{}: the trace holds no requests", t.display()),
            None => anyhow::bail!(
                "the workload produced no requests after the scenario's warm-up of {} s \
                 (`warmup_secs`, left out of the counters)",
                scenario.warmup_secs
            ),
        }
    }

    let mut rows = Vec::new();
    let mut all_series = Vec::new();
    for (r, p) in results.iter().zip(&planned) {
        rows.push(rows::row(r, &p.labels, &args.device));
        all_series.push(rows::series(r, &p.labels.cap));
    }
    rows::fill_multipliers(&mut rows);
    let ram = scenario.ram_bytes;
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
        warmup_s: results.first().map_or(0.0, |r| r.warmup_ns as f64 / 1e9),
        sampling: sampling_note(
            &results,
            args.sample_rate.or(presampled),
            auto,
            expected,
            presampled.is_some(),
        ),
        rows,
        verdict: String::new(),
        verdict_cap: None,
        series: all_series,
        self_check: None,
    };
    report::verdict::decide(&mut rep, args.verdict_for.as_ref()).map_err(UsageError)?;
    if let (Some(_), Some(path)) = (&capture, &args.trace) {
        rep.self_check = selfcheck::check_capture(path, &scenario)?;
    }
    emit(&rep, &args)
}

/// The header of the `--trace` file when it is a capture (`arclab capture`).
fn capture_header(args: &WhatifArgs) -> Result<Option<CaptureHeader>> {
    let Some(path) = &args.trace else {
        return Ok(None);
    };
    let reader = args.input.open(path)?;
    Ok(reader.capture_info().map(|i| i.header.clone()))
}

/// Replay a trace once, on its format's clock, through every run.
fn run_trace(
    specs: &[RunSpec],
    input: &TraceInput,
    path: &Path,
    rate: f64,
    threads: usize,
) -> Result<Vec<RunResult>> {
    let reader = input.open(path)?;
    let clock = Clock::for_format(reader.format(), rate).map_err(|e| UsageError(e.to_string()))?;
    let mut trace = Clocked::new(reader, clock);
    let (_, total) = trace.reader().progress();
    let mut bar = Progress::new("replaying", total);
    let results = arclab_sim::whatif::run_clocked(specs, threads, &mut trace, |t| {
        bar.set(t.reader().progress().0)
    });
    bar.finish();
    Ok(results?)
}

/// What the output says about sampling, when the runs were sampled.
fn sampling_note(
    results: &[RunResult],
    asked: Option<f64>,
    auto: Option<f64>,
    expected: Option<u64>,
    presampled: bool,
) -> Option<String> {
    // Every run samples at the same rate, but a cap whose miniature would
    // fall below 64 MiB, or leave room for fewer than 128 blocks of data
    // beside the pinned bytes, runs at a higher one (`RunResult::sampled`):
    // the note names the common rate and, when some rows differ, the highest.
    let rates = results.iter().filter_map(|r| r.sampled);
    let rate = rates.clone().fold(f64::INFINITY, f64::min);
    let top = rates.fold(0.0, f64::max);
    if !rate.is_finite() {
        return None;
    }
    // Every row may have been raised above the rate asked (or chosen
    // automatically, or a capture's own, which no row exceeds): the note
    // still names that rate.
    let base = asked.or(auto).map_or(rate, |a| a.min(rate));
    let raised = if top > base {
        format!(
            "; caps too small at that rate for a 64 MiB miniature with room for {} blocks \
             of data ran at up to {:.3} % (sample_rate in --json/--csv)",
            arclab_sim::whatif::MIN_DATA_BLOCKS,
            top * 100.0
        )
    } else {
        String::new()
    };
    let why = match (asked, expected) {
        _ if presampled => "the capture was sampled when it was taken".to_string(),
        (Some(_), _) => "as asked with --sample-rate".to_string(),
        (None, Some(n)) => format!(
            "automatic: the workload has ~{} requests, above {}{}",
            output::si(n as f64),
            output::si(AUTO_SAMPLE_ABOVE as f64),
            if base > DEFAULT_RATE * 1.000_001 {
                format!(
                    "; raised from {} % so that the sample keeps ~{} of the blocks the \
                     workload reads at random, which its error follows",
                    DEFAULT_RATE * 100.0,
                    output::si(MIN_SAMPLED_BLOCKS as f64)
                )
            } else {
                String::new()
            }
        ),
        (None, None) => format!(
            "automatic above {} requests",
            output::si(AUTO_SAMPLE_ABOVE as f64)
        ),
    };
    let seeds = results.first().map_or(1, |r| r.seeds);
    let spread = results
        .iter()
        .filter_map(|r| r.hit_ratio_range.map(|(lo, hi)| (hi - lo, r)))
        .max_by(|a, b| a.0.total_cmp(&b.0));
    let seeds_note = match spread {
        Some((w, r)) if seeds > 1 => format!(
            "; each row the mean of {seeds} independent samples, whose hit ratios differ by up to \
             {:.2} points ({}; lowest and highest in --json/--csv)",
            w * 100.0,
            r.label
        ),
        _ => String::new(),
    };
    Some(format!(
        "sampled: {:.3} % of the address space ({why}){raised}; misses and rates scaled \
         back{seeds_note}",
        base * 100.0
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
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: WhatifArgs,
    }

    fn args(line: &[&str]) -> WhatifArgs {
        Cli::try_parse_from(std::iter::once("whatif").chain(line.iter().copied()))
            .unwrap()
            .args
    }

    #[test]
    fn a_trace_gets_a_bare_host_unless_a_scenario_is_given() {
        let sc = scenario(&args(&["--trace", "t.bin", "--ram", "16G"]), None).unwrap();
        assert_eq!(sc.ram_bytes, 16 << 30);
        assert!(sc.demand.is_empty() && sc.pinned.total() == 0 && sc.warmup_secs == 0.0);
        let e = scenario(&args(&["--trace", "t.bin"]), None).unwrap_err();
        assert!(e.to_string().contains("--ram"), "{e}");
        let sc = scenario(&args(&["--trace", "t.bin", "--scenario", "homelab"]), None).unwrap();
        assert_eq!(sc.name, "homelab");
        assert!(sc.pinned.total() > 0);
        assert_eq!(scenario(&args(&[]), None).unwrap().name, "homelab");
    }

    /// Rows raised above the rate asked or chosen automatically: the note
    /// names that rate, the highest row's, and the right reason.
    #[test]
    fn the_note_names_the_rate_chosen_when_every_row_was_raised() {
        let row = |r: f64| RunResult {
            sampled: Some(r),
            seeds: 1,
            ..RunResult::default()
        };
        let all_raised = [row(0.25), row(0.5)];
        let asked = sampling_note(&all_raised, Some(0.01), None, None, false).unwrap();
        assert!(
            asked.starts_with("sampled: 1.000 % of the address space (as asked")
                && asked.contains("ran at up to 50.000 %"),
            "{asked}"
        );
        // Automatic at 1 %: not "raised from 1 %" for the blocks read at
        // random, only for the caps.
        let auto = sampling_note(&all_raised, None, Some(0.01), Some(60_000_000), false).unwrap();
        assert!(
            auto.starts_with("sampled: 1.000 % of the address space (automatic")
                && !auto.contains("raised from 1 %")
                && auto.contains("ran at up to 50.000 %"),
            "{auto}"
        );
        // Automatic, raised for the random blocks, one row raised further.
        let auto = sampling_note(
            &[row(0.0625), row(0.25)],
            None,
            Some(0.0625),
            Some(60_000_000),
            false,
        )
        .unwrap();
        assert!(
            auto.starts_with("sampled: 6.250 %")
                && auto.contains("raised from 1 %")
                && auto.contains("ran at up to 25.000 %"),
            "{auto}"
        );
        // A capture sampled when it was taken: its own rate.
        let cap = sampling_note(&[row(0.01)], Some(0.01), None, None, true).unwrap();
        assert!(
            cap.starts_with("sampled: 1.000 %") && !cap.contains("ran at up to"),
            "{cap}"
        );
    }
}
