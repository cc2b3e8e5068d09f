//! The drivers that feed [`Run`]s a request stream: one spec
//! ([`run`]), any stream ([`run_stream`]), a trace on its clock
//! ([`run_clocked`]) and a generated workload ([`run_all`]), each sampling
//! the stream once at its source when every run samples.

use super::{Run, RunResult, RunSpec};
use crate::replay::{DEFAULT_BATCH, Target, drive};
use crate::sample::{SampleUnits, SpatialSampler};
use crate::scenario::Scenario;
use crate::workload::WorkloadSpec;
use arclab_arc::Request;
use arclab_trace::TraceError;
use arclab_trace::clock::Clocked;
use std::convert::Infallible;

/// Replay `source` (append up to `max` requests, return the count, 0 at
/// the end) through one spec on the calling thread.
pub fn run(spec: &RunSpec, source: &mut dyn FnMut(&mut Vec<Request>, usize) -> usize) -> RunResult {
    let mut runs = [Run::new(spec)];
    let Ok(_) = drive(
        &mut runs,
        1,
        DEFAULT_BATCH,
        |b, m| Ok::<_, Infallible>(source(b, m)),
        |_| {},
    );
    let [r] = runs;
    r.finish()
}

/// Every spec over one request stream, read once and fanned out by
/// [`crate::replay::drive`] on up to `threads` threads; results in `specs`
/// order, identical for any number of threads. A `next_batch` error stops
/// the replay. `progress` gets the number of requests read so far.
///
/// When every run samples (and counts from the same warm-up), the stream is
/// sampled once as it is read, at the highest rate among the runs, and only
/// the sample is fanned out (each run keeps its own subset of it); the
/// runs are told how many requests the whole stream had after the warm-up.
pub fn run_stream<E>(
    specs: &[RunSpec],
    threads: usize,
    mut next_batch: impl FnMut(&mut Vec<Request>, usize) -> Result<usize, E>,
    progress: impl FnMut(u64),
) -> Result<Vec<RunResult>, E> {
    let mut runs: Vec<Run<'_>> = specs.iter().map(Run::new).collect();
    let Some((samplers, from_ns)) = source_sampling(specs) else {
        drive(&mut runs, threads, DEFAULT_BATCH, next_batch, progress)?;
        return Ok(runs.into_iter().map(Run::finish).collect());
    };
    let (mut full, mut last_ns) = (0u64, 0u64);
    let mut raw = Vec::with_capacity(DEFAULT_BATCH);
    let sampled = |buf: &mut Vec<Request>, max: usize| -> Result<usize, E> {
        loop {
            raw.clear();
            if next_batch(&mut raw, max)? == 0 {
                return Ok(0);
            }
            let before = buf.len();
            for r in &raw {
                full += u64::from(r.time_ns >= from_ns);
                last_ns = last_ns.max(r.time_ns);
                if samplers.iter().any(|s| s.keep(r.key)) {
                    buf.push(*r);
                }
            }
            // An empty batch would end the replay: read on.
            if buf.len() > before {
                return Ok(buf.len() - before);
            }
        }
    };
    drive(&mut runs, threads, DEFAULT_BATCH, sampled, progress)?;
    Ok(finish_sampled(runs, full, last_ns))
}

/// Every spec on one replay of a trace on its clock, like [`run_stream`];
/// `on_batch` sees the trace after each batch (progress). When every run
/// samples, the trace drops the requests outside the sample before its
/// clock spreads and copies them ([`Clocked::sample`]); the runs see the
/// same requests at the same times as [`run_stream`] gives them, and the
/// same counts of the whole trace.
pub fn run_clocked(
    specs: &[RunSpec],
    threads: usize,
    trace: &mut Clocked,
    mut on_batch: impl FnMut(&Clocked),
) -> Result<Vec<RunResult>, TraceError> {
    let mut runs: Vec<Run<'_>> = specs.iter().map(Run::new).collect();
    let sampling = source_sampling(specs);
    if let Some((samplers, from_ns)) = &sampling {
        let samplers = samplers.clone();
        trace.sample(
            Box::new(move |k| samplers.iter().any(|s| s.keep(k))),
            *from_ns,
        );
    }
    let next = |buf: &mut Vec<Request>, max: usize| {
        let n = trace.next_batch(buf, max);
        on_batch(trace);
        n
    };
    drive(&mut runs, threads, DEFAULT_BATCH, next, |_| {})?;
    Ok(match (sampling, trace.sampled_counts()) {
        (Some(_), Some((full, last_ns))) => finish_sampled(runs, full, last_ns),
        _ => runs.into_iter().map(Run::finish).collect(),
    })
}

/// Finish runs fed a stream sampled at its source: the whole stream had
/// `full` requests after the warm-up and ended at `last_ns` (0: unknown).
fn finish_sampled(runs: Vec<Run<'_>>, full: u64, last_ns: u64) -> Vec<RunResult> {
    runs.into_iter()
        .map(|mut r| {
            r.full_requests = Some(full);
            r.last_t = r.last_t.max(last_ns);
            r.finish()
        })
        .collect()
}

/// Whether a stream can be sampled at its source for `specs`: every run
/// samples (not a pre-sampled capture) and counts from the same warm-up.
/// Then the samplers whose union holds every run's sample (one per set of
/// units, at the highest rate), and the end of the warm-up (ns).
fn source_sampling(specs: &[RunSpec]) -> Option<(Vec<SpatialSampler>, u64)> {
    let from_ns = specs.first()?.warmup_ns();
    if specs
        .iter()
        .any(|s| s.presampled || s.warmup_ns() != from_ns)
    {
        return None;
    }
    let top = specs
        .iter()
        .map(RunSpec::effective_rate)
        .try_fold(0.0f64, |m, r| r.map(|r| m.max(r)))?;
    let mut samplers: Vec<SpatialSampler> = Vec::new();
    for s in specs {
        let sm = SpatialSampler::new(top, s.sample_salt).with_units(s.sample_units);
        if !samplers.contains(&sm) {
            samplers.push(sm);
        }
    }
    Some((samplers, from_ns))
}

/// Why `workload` on `scenario` would count nothing: the counters leave out
/// the scenario's warm-up, and a workload that ends within it produces no
/// request after it. `None` when it outlasts the warm-up.
///
/// ```
/// use arclab_sim::{scenario, whatif, workload::WorkloadSpec};
/// let mut sc = scenario::builtin("homelab").unwrap();
/// sc.warmup_secs = 60.0;
/// let w = WorkloadSpec::from_toml_str(
///     "kind = \"zipf\"\nalpha = 1.0\nobjects = 100\nrate = 100\nduration_secs = 30\n",
///     "short.toml",
/// )
/// .unwrap();
/// let e = whatif::warmup_error(&sc, &w).unwrap();
/// assert!(e.contains("30 s") && e.contains("warm-up of 60 s"), "{e}");
/// sc.warmup_secs = 10.0;
/// assert!(whatif::warmup_error(&sc, &w).is_none());
/// ```
pub fn warmup_error(scenario: &Scenario, workload: &WorkloadSpec) -> Option<String> {
    let run = workload.duration_ns() as f64 / 1e9;
    let warm = scenario.warmup_secs;
    (warm > 0.0 && run <= warm).then(|| {
        format!(
            "workload {} runs {run} s, within scenario {}'s warm-up of {warm} s (`warmup_secs`, \
             left out of the counters): no request would be counted; lengthen the workload's \
             `duration_secs` or shorten the warm-up",
            workload.name(),
            scenario.name
        )
    })
}

/// Every spec on one stream of `workload` generated with `seed` (see
/// [`run_stream`]). When every run samples (and counts from the same
/// warm-up), the generator emits only the sample of the highest rate
/// among them ([`WorkloadSpec::sampled_generator`]: the other runs' samples
/// are subsets of it, the same hash under a lower threshold) and tells the
/// runs the whole workload's request count. `progress` gets the number of
/// the whole workload's requests passed so far (estimated from the time
/// reached when sampling).
pub fn run_all(
    specs: &[RunSpec],
    workload: &WorkloadSpec,
    seed: u64,
    threads: usize,
    mut progress: impl FnMut(u64),
) -> Vec<RunResult> {
    // With the prefetcher on, the sequential components are sampled in runs
    // of blocks it can follow (as long as the run's rate leaves enough of
    // them); without it, block by block. The random components are sampled
    // by popularity rank either way.
    let specs: Vec<RunSpec> = specs
        .iter()
        .map(|s| RunSpec {
            sample_units: match (&s.target, s.effective_rate()) {
                _ if s.presampled => SampleUnits::BLOCKS,
                (Target::Zfs(z), Some(r)) if z.prefetch => workload.sample_units(r),
                (_, Some(r)) => workload.sample_units(r).without_runs(),
                (_, None) => SampleUnits::BLOCKS,
            },
            ..s.clone()
        })
        .collect();
    let Some((samplers, from_ns)) = source_sampling(&specs) else {
        let mut g = workload.generator(seed);
        let Ok(r) = run_stream(
            &specs,
            threads,
            |buf, max| Ok::<_, Infallible>(g.next_batch(buf, max)),
            progress,
        );
        return r;
    };
    let mut g = workload.sampled_generator(seed, &samplers, from_ns);
    let (expected, dur) = (workload.expected_requests(), workload.duration_ns().max(1));
    let reached = std::cell::Cell::new(0u64);
    let mut runs: Vec<Run<'_>> = specs.iter().map(Run::new).collect();
    let Ok(_) = drive(
        &mut runs,
        threads,
        DEFAULT_BATCH,
        |buf, max| {
            let n = g.next_batch(buf, max);
            reached.set(g.now_ns());
            Ok::<_, Infallible>(n)
        },
        |_| progress((expected as f64 * reached.get() as f64 / dur as f64) as u64),
    );
    progress(expected);
    // A sampled generator always counts; the end of its last thinned
    // stream is not known (its last request is the sample's).
    finish_sampled(runs, g.full_requests().unwrap_or(0), 0)
}
