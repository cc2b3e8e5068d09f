//! The replay driver: one request stream, read once, fanned out to many runs.
//!
//! [`drive`] is the one loop every simulation goes through (`sim`'s
//! (policy, capacity) [`Job`]s here, `whatif`'s runs in [`crate::whatif`]):
//! the stream (a decoded trace or a generated workload) is read once, in
//! batches. With one thread every run consumes each batch in turn. With
//! more, the calling thread reads the next batch while worker threads take
//! the runs of the current one from a work queue (an atomic index into the
//! runs), so a slow run (the ZFS model) does not hold up a worker that owns
//! only fast ones. Every run sees exactly the same requests in the same
//! order either way, one batch after the other, so results are identical to
//! a sequential run.

use crate::engine::Engine;
use crate::model::ZfsSpec;
use crate::policies::Counters;
use crate::{Policy, PolicyKind};
use arclab_arc::Request;
use arclab_arc::model::ArcStats;
use arclab_arc::zfetch::ZfetchStats;
use std::sync::Arc as Shared;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError, mpsc};
use std::time::{Duration, Instant};

/// Requests per batch handed from the decoder to the policies.
pub const DEFAULT_BATCH: usize = 1 << 16;

/// The most requests per batch when [`replay`] decodes and replays on one
/// thread: 4,096 requests (96 KiB) are still in the core's L2 cache when the
/// replay reads them after their copy out of the trace's clock, where a
/// 1.5 MiB batch comes back from L3 (`farm-bench -n 20`, issue 16's trace,
/// whole-process CPU 0.97x at 1 and 4 GiB; docs/bench.md). Threads keep
/// [`DEFAULT_BATCH`]: each batch is a round they synchronise on. `whatif`
/// keeps it on any number of threads (its progress, counted per batch, is
/// then the same on one thread as on several).
pub const SERIAL_BATCH: usize = 1 << 12;

/// The threads [`drive`] replays `sinks` sinks on when given `threads`: at
/// least one, at most one a sink.
fn workers(threads: usize, sinks: usize) -> usize {
    threads.clamp(1, sinks.max(1))
}

/// What a job replays through.
#[derive(Clone, Debug, PartialEq)]
pub enum Target {
    /// A baseline policy.
    Policy(PolicyKind),
    /// The ZFS ARC model (and its prefetcher), always in bytes.
    Zfs(Box<ZfsSpec>),
}

/// One simulation to run: a policy at a capacity.
#[derive(Clone, Debug, PartialEq)]
pub struct Job {
    /// Which policy or model.
    pub target: Target,
    /// Capacity in the run's unit (bytes, or objects in object mode); for
    /// the ZFS model, the `zfs_arc_max` it was given.
    pub capacity: u64,
}

impl Job {
    /// A baseline policy at `capacity`.
    pub fn policy(policy: PolicyKind, capacity: u64) -> Self {
        Job {
            target: Target::Policy(policy),
            capacity,
        }
    }

    /// The name of the policy (`lru`, …, `zfs-arc`).
    pub fn name(&self) -> &'static str {
        match &self.target {
            Target::Policy(p) => p.name(),
            Target::Zfs(_) => "zfs-arc",
        }
    }
}

/// How to replay.
#[derive(Clone, Debug)]
pub struct ReplayConfig {
    /// Count every object as size 1 (libCacheSim's `--ignore-obj-size`).
    pub object_mode: bool,
    /// Worker threads; 1 runs everything on the calling thread.
    pub threads: usize,
    /// Requests per batch.
    pub batch: usize,
    /// The stream's distinct objects when known (0: unknown): what an
    /// object-mode policy reserves room for, up to its capacity.
    pub expected_objects: u64,
}

impl Default for ReplayConfig {
    fn default() -> Self {
        ReplayConfig {
            object_mode: false,
            threads: 1,
            batch: DEFAULT_BATCH,
            expected_objects: 0,
        }
    }
}

/// The outcome of one job.
#[derive(Clone, Debug, PartialEq)]
pub struct JobResult {
    /// The job that produced it.
    pub job: Job,
    /// Request and miss counts (libCacheSim's names).
    pub counters: Counters,
    /// Time spent inside this job's policy, summed over batches.
    pub busy: Duration,
    /// Objects tracked at the end (resident plus ghosts).
    pub tracked: usize,
    /// Heap bytes of the policy's structures at the end.
    pub heap_bytes: usize,
    /// arcstats at the end (ZFS model only).
    pub arcstats: Option<Box<ArcStats>>,
    /// zfetchstats at the end (ZFS model with prefetch only).
    pub zfetchstats: Option<ZfetchStats>,
}

impl JobResult {
    /// Misses over requests (0 for an empty trace).
    pub fn miss_ratio(&self) -> f64 {
        ratio(self.counters.n_miss, self.counters.n_req)
    }

    /// Missed bytes over requested bytes.
    pub fn byte_miss_ratio(&self) -> f64 {
        ratio(self.counters.n_miss_byte, self.counters.n_req_byte)
    }

    /// Requests per second of policy time.
    pub fn req_per_sec(&self) -> f64 {
        let s = self.busy.as_secs_f64();
        if s > 0.0 {
            self.counters.n_req as f64 / s
        } else {
            0.0
        }
    }

    /// Heap bytes per tracked object (0 when nothing is tracked).
    pub fn bytes_per_object(&self) -> f64 {
        if self.tracked == 0 {
            0.0
        } else {
            self.heap_bytes as f64 / self.tracked as f64
        }
    }
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 { 0.0 } else { a as f64 / b as f64 }
}

struct Runner {
    job: Job,
    engine: Engine,
    object_mode: bool,
    counters: Counters,
    busy: Duration,
}

impl Runner {
    fn new(job: Job, object_mode: bool, objects: u64) -> Self {
        Runner {
            engine: Engine::new(&job.target, job.capacity, object_mode, objects),
            job,
            object_mode,
            counters: Counters::default(),
            busy: Duration::ZERO,
        }
    }

    fn finish(self) -> JobResult {
        let (tracked, heap_bytes, arcstats, zfetchstats) = match &self.engine {
            Engine::Policy(p) => (p.tracked(), p.heap_bytes(), None, None),
            Engine::Zfs(z) => {
                let s = z.stats();
                let tracked = s.hash_elements as usize;
                (tracked, z.heap_bytes(), Some(Box::new(s)), z.zfetch_stats())
            }
        };
        JobResult {
            tracked,
            heap_bytes,
            arcstats,
            zfetchstats,
            job: self.job,
            counters: self.counters,
            busy: self.busy,
        }
    }
}

impl Sink for Runner {
    #[inline]
    fn consume(&mut self, batch: &[Request]) {
        let t = Instant::now();
        self.engine
            .access_batch(batch, self.object_mode, &mut self.counters);
        self.busy += t.elapsed();
    }
}

/// The most runs (jobs, sinks) one replay feeds: every run keeps its own
/// cache model in memory while the one request stream passes through all
/// of them, so `sim` and `whatif` refuse more, saying so, before reading
/// anything.
pub const MAX_RUNS: usize = 256;

/// A run fed by [`drive`]: it consumes the stream one batch at a time, in order.
pub trait Sink: Send {
    /// The next batch of the stream.
    fn consume(&mut self, batch: &[Request]);
}

/// One batch handed to the workers, and the queue of runs still to feed it.
struct Round {
    batch: Vec<Request>,
    next: AtomicUsize,
}

/// Read a request stream once and feed every batch to every sink, on up to
/// `threads` threads (see the module docs); returns the requests read.
///
/// `next_batch` appends the next requests to the buffer it is given and
/// returns how many it appended (0 at the end of the stream); its error
/// stops the replay. `progress` is called after each batch with the number
/// of requests read so far.
pub fn drive<S: Sink, E>(
    sinks: &mut [S],
    threads: usize,
    batch: usize,
    mut next_batch: impl FnMut(&mut Vec<Request>, usize) -> Result<usize, E>,
    mut progress: impl FnMut(u64),
) -> Result<u64, E> {
    let batch = batch.max(1);
    let threads = workers(threads, sinks.len());
    let mut decoded = 0u64;
    if threads == 1 {
        let mut buf = Vec::with_capacity(batch);
        loop {
            buf.clear();
            if next_batch(&mut buf, batch)? == 0 {
                break;
            }
            for s in sinks.iter_mut() {
                s.consume(&buf);
            }
            decoded += buf.len() as u64;
            progress(decoded);
        }
        return Ok(decoded);
    }

    let cells: Vec<Mutex<&mut S>> = sinks.iter_mut().map(Mutex::new).collect();
    let panicked: Mutex<Option<Box<dyn std::any::Any + Send>>> = Mutex::new(None);
    let result = std::thread::scope(|scope| {
        let (done_tx, done_rx) = mpsc::channel::<()>();
        let mut senders = Vec::with_capacity(threads);
        for _ in 0..threads {
            let (tx, rx) = mpsc::sync_channel::<Shared<Round>>(1);
            senders.push(tx);
            let (cells, panicked, done_tx) = (&cells, &panicked, done_tx.clone());
            scope.spawn(move || {
                for round in rx {
                    let work = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        loop {
                            let i = round.next.fetch_add(1, Ordering::Relaxed);
                            let Some(cell) = cells.get(i) else { break };
                            let mut sink = cell.lock().unwrap_or_else(PoisonError::into_inner);
                            sink.consume(&round.batch);
                        }
                    }));
                    if let Err(p) = work {
                        let mut slot = panicked.lock().unwrap_or_else(PoisonError::into_inner);
                        slot.get_or_insert(p);
                    }
                    // The caller waits for every worker before the next round.
                    let _ = done_tx.send(());
                }
            });
        }
        drop(done_tx);
        let mut in_flight = false;
        let result = loop {
            // Read the next batch while the workers run the current one.
            let mut buf = Vec::with_capacity(batch);
            let got = next_batch(&mut buf, batch);
            if in_flight {
                for _ in 0..threads {
                    let _ = done_rx.recv();
                }
            }
            let failed = panicked
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .is_some();
            match got {
                _ if failed => break Ok(decoded),
                Ok(0) => break Ok(decoded),
                Ok(_) => {}
                Err(e) => break Err(e),
            }
            decoded += buf.len() as u64;
            let round = Shared::new(Round {
                batch: buf,
                next: AtomicUsize::new(0),
            });
            for tx in &senders {
                // A worker never hangs up while its sender lives.
                let _ = tx.send(Shared::clone(&round));
            }
            in_flight = true;
            progress(decoded);
        };
        drop(senders);
        result
    });
    if let Some(p) = panicked
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner)
    {
        std::panic::resume_unwind(p);
    }
    result
}

/// Replay a trace through every job.
///
/// `next_batch` appends the next requests to the buffer it is given and
/// returns how many it appended (0 at the end of the trace); its error stops
/// the replay. `progress` is called after each batch with the number of
/// requests decoded so far.
pub fn replay<E>(
    jobs: &[Job],
    cfg: &ReplayConfig,
    next_batch: impl FnMut(&mut Vec<Request>, usize) -> Result<usize, E>,
    progress: impl FnMut(u64),
) -> Result<Vec<JobResult>, E> {
    let mut runners: Vec<Runner> = jobs
        .iter()
        .cloned()
        .map(|j| Runner::new(j, cfg.object_mode, cfg.expected_objects))
        .collect();
    let batch = if workers(cfg.threads, jobs.len()) == 1 {
        cfg.batch.min(SERIAL_BATCH)
    } else {
        cfg.batch
    };
    drive(&mut runners, cfg.threads, batch, next_batch, progress)?;
    Ok(runners.into_iter().map(Runner::finish).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stream(n: u64) -> Vec<Request> {
        // A deterministic, skewed stream: key = (i * i) mod 997 over sizes 1..8.
        (0..n)
            .map(|i| Request::read(i, (i * i + 7 * i) % 997, 1 + (i % 8) as u32))
            .collect()
    }

    fn feed(reqs: &[Request]) -> impl FnMut(&mut Vec<Request>, usize) -> Result<usize, ()> + '_ {
        let mut pos = 0;
        move |buf, max| {
            let end = (pos + max).min(reqs.len());
            buf.extend_from_slice(&reqs[pos..end]);
            let n = end - pos;
            pos = end;
            Ok(n)
        }
    }

    fn jobs() -> Vec<Job> {
        let mut v = Vec::new();
        for policy in PolicyKind::ALL {
            for capacity in [10, 100, 500] {
                v.push(Job::policy(policy, capacity));
            }
        }
        v
    }

    #[test]
    fn parallel_equals_sequential() {
        let reqs = stream(50_000);
        for object_mode in [false, true] {
            let seq = ReplayConfig {
                object_mode,
                threads: 1,
                batch: 777,
                expected_objects: 0,
            };
            // Reserving for the stream's 997 keys (or not) changes nothing
            // but memory.
            let par = ReplayConfig {
                threads: 3,
                batch: 4096,
                expected_objects: 997,
                ..seq.clone()
            };
            let a = replay(&jobs(), &seq, feed(&reqs), |_| {}).unwrap();
            let b = replay(&jobs(), &par, feed(&reqs), |_| {}).unwrap();
            assert_eq!(a.len(), b.len());
            for (x, y) in a.iter().zip(&b) {
                assert_eq!(x.job, y.job);
                assert_eq!(x.counters, y.counters, "{:?}", x.job);
            }
            // Every job saw every request.
            assert!(a.iter().all(|r| r.counters.n_req == 50_000));
        }
    }

    #[test]
    fn reader_errors_stop_the_replay() {
        let mut calls = 0;
        let res = replay(
            &jobs(),
            &ReplayConfig {
                threads: 2,
                ..Default::default()
            },
            |buf: &mut Vec<Request>, _| {
                calls += 1;
                if calls == 3 {
                    return Err("bad record");
                }
                buf.push(Request::read(0, calls, 1));
                Ok(1)
            },
            |_| {},
        );
        assert_eq!(res.unwrap_err(), "bad record");
    }

    #[test]
    fn a_panicking_run_is_reported_not_hung() {
        struct Boom(u32);
        impl Sink for Boom {
            fn consume(&mut self, _: &[Request]) {
                self.0 += 1;
                assert_ne!(self.0, 2, "boom");
            }
        }
        let reqs = stream(10_000);
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut sinks = vec![Boom(0), Boom(5), Boom(7)];
            drive(&mut sinks, 2, 1000, feed(&reqs), |_| {})
        }));
        assert!(r.is_err(), "the panic reaches the caller");
    }

    #[test]
    fn empty_trace_gives_zero_ratios() {
        let r = replay(&jobs(), &ReplayConfig::default(), feed(&[]), |_| {}).unwrap();
        assert!(
            r.iter()
                .all(|r| r.counters.n_req == 0 && r.miss_ratio() == 0.0)
        );
    }
}
