//! The replay engine: drive many (policy, capacity) jobs over one trace.
//!
//! The trace is decoded once. With one thread every job consumes each batch in
//! turn; with more, the calling thread decodes batches and hands each one
//! (shared, read-only) to worker threads that own a fixed subset of the jobs.
//! Every job sees exactly the same requests in the same order either way, so
//! results are identical to a sequential run.

use crate::policies::{AnyPolicy, Counters};
use crate::zfs::{ZfsArc, ZfsSpec};
use crate::{Policy, PolicyKind};
use arclab_arc::Request;
use arclab_arc::model::ArcStats;
use arclab_arc::zfetch::ZfetchStats;
use std::sync::Arc as Shared;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Requests per batch handed from the decoder to the policies.
pub const DEFAULT_BATCH: usize = 1 << 16;

/// What a job replays through.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A baseline policy.
    Policy(PolicyKind),
    /// The ZFS ARC model (and its prefetcher), always in bytes.
    Zfs(Box<ZfsSpec>),
}

/// One simulation to run: a policy at a capacity.
#[derive(Clone, Debug, PartialEq, Eq)]
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
}

impl Default for ReplayConfig {
    fn default() -> Self {
        ReplayConfig {
            object_mode: false,
            threads: 1,
            batch: DEFAULT_BATCH,
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

enum Engine {
    Policy(AnyPolicy),
    Zfs(Box<ZfsArc>),
}

struct Runner {
    job: Job,
    engine: Engine,
    counters: Counters,
    busy: Duration,
}

impl Runner {
    fn new(job: Job, object_mode: bool) -> Self {
        let engine = match &job.target {
            // In object mode the capacity bounds the objects tracked, so the
            // policy can reserve everything up front and never grow mid-run.
            Target::Policy(p) if object_mode => {
                Engine::Policy(AnyPolicy::new_object_mode(*p, job.capacity))
            }
            Target::Policy(p) => Engine::Policy(AnyPolicy::new(*p, job.capacity)),
            Target::Zfs(spec) => Engine::Zfs(Box::new(ZfsArc::new(spec))),
        };
        Runner {
            engine,
            job,
            counters: Counters::default(),
            busy: Duration::ZERO,
        }
    }

    #[inline]
    fn run(&mut self, batch: &[Request], object_mode: bool) {
        let t = Instant::now();
        match &mut self.engine {
            Engine::Policy(p) => p.access_batch(batch, object_mode, &mut self.counters),
            Engine::Zfs(z) => {
                let c = &mut self.counters;
                for (i, r) in batch.iter().enumerate() {
                    // Start the hash-table misses of requests ahead (a hint).
                    if let Some(n) = batch.get(i + 16) {
                        z.prefetch(n, 0);
                    }
                    if let Some(n) = batch.get(i + 8) {
                        z.prefetch(n, 1);
                    }
                    let b = u64::from(r.size);
                    let hit = z.access(r);
                    c.n_req += 1;
                    c.n_req_byte += b;
                    c.n_miss += u64::from(!hit);
                    c.n_miss_byte += if hit { 0 } else { b };
                }
            }
        }
        self.busy += t.elapsed();
    }

    fn finish(self) -> JobResult {
        let (tracked, heap_bytes, arcstats, zfetchstats) = match &self.engine {
            Engine::Policy(p) => (p.tracked(), p.heap_bytes(), None, None),
            Engine::Zfs(z) => {
                let s = z.stats();
                let tracked = s.hash_elements as usize;
                (tracked, 0, Some(Box::new(s)), z.zfetch_stats())
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

/// Replay a trace through every job.
///
/// `next_batch` appends the next requests to the buffer it is given and
/// returns how many it appended (0 at the end of the trace); its error stops
/// the replay. `progress` is called after each batch with the number of
/// requests decoded so far.
pub fn replay<E: Send>(
    jobs: &[Job],
    cfg: &ReplayConfig,
    mut next_batch: impl FnMut(&mut Vec<Request>, usize) -> Result<usize, E>,
    mut progress: impl FnMut(u64),
) -> Result<Vec<JobResult>, E> {
    let batch = cfg.batch.max(1);
    let threads = cfg.threads.clamp(1, jobs.len().max(1));
    let mut decoded = 0u64;
    if threads == 1 {
        let mut runners: Vec<Runner> = jobs
            .iter()
            .cloned()
            .map(|j| Runner::new(j, cfg.object_mode))
            .collect();
        let mut buf = Vec::with_capacity(batch);
        loop {
            buf.clear();
            if next_batch(&mut buf, batch)? == 0 {
                break;
            }
            for r in &mut runners {
                r.run(&buf, cfg.object_mode);
            }
            decoded += buf.len() as u64;
            progress(decoded);
        }
        return Ok(runners.into_iter().map(Runner::finish).collect());
    }

    // Jobs are dealt round-robin so each worker gets a similar mix.
    let object_mode = cfg.object_mode;
    std::thread::scope(|scope| {
        let mut senders = Vec::with_capacity(threads);
        let mut handles = Vec::with_capacity(threads);
        for w in 0..threads {
            let (tx, rx) = mpsc::sync_channel::<Shared<Vec<Request>>>(4);
            senders.push(tx);
            let mine: Vec<(usize, Job)> = jobs
                .iter()
                .cloned()
                .enumerate()
                .filter(|(i, _)| i % threads == w)
                .collect();
            handles.push(scope.spawn(move || {
                let mut runners: Vec<(usize, Runner)> = mine
                    .into_iter()
                    .map(|(i, j)| (i, Runner::new(j, object_mode)))
                    .collect();
                for batch in rx {
                    for (_, r) in &mut runners {
                        r.run(&batch, object_mode);
                    }
                }
                runners
                    .into_iter()
                    .map(|(i, r)| (i, r.finish()))
                    .collect::<Vec<_>>()
            }));
        }
        let mut failure = None;
        loop {
            let mut buf = Vec::with_capacity(batch);
            match next_batch(&mut buf, batch) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) => {
                    failure = Some(e);
                    break;
                }
            }
            decoded += buf.len() as u64;
            let shared = Shared::new(buf);
            for tx in &senders {
                // A worker only hangs up by panicking; join below reports it.
                let _ = tx.send(Shared::clone(&shared));
            }
            progress(decoded);
        }
        drop(senders);
        let mut out: Vec<(usize, JobResult)> = handles
            .into_iter()
            .flat_map(|h| match h.join() {
                Ok(v) => v,
                Err(p) => std::panic::resume_unwind(p),
            })
            .collect();
        if let Some(e) = failure {
            return Err(e);
        }
        out.sort_by_key(|(i, _)| *i);
        Ok(out.into_iter().map(|(_, r)| r).collect())
    })
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
            };
            let par = ReplayConfig {
                threads: 3,
                batch: 4096,
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
    fn empty_trace_gives_zero_ratios() {
        let r = replay(&jobs(), &ReplayConfig::default(), feed(&[]), |_| {}).unwrap();
        assert!(
            r.iter()
                .all(|r| r.counters.n_req == 0 && r.miss_ratio() == 0.0)
        );
    }
}
