//! The what-if runner: replay a workload through the ZFS ARC model (or a
//! baseline policy) on a scenario's host, with the other processes' memory
//! demand moving under it, and summarise what the ARC did.
//!
//! Order per request (spec §15 within the model): the model clock advances
//! to the request's time (running the reap thread, kernel reclaim, txg
//! syncs due on the way), the other processes' demand is set to
//! [`Scenario::demand_at`] that time, then the request is served. A
//! [`Point`] is recorded every `series_step_ns` of simulated time. The
//! counters leave out the scenario's `warmup_secs` (the cache filling up);
//! the series and `arcstats` cover the whole run.
//!
//! **Sampling.** With `sample_rate = Some(R)` only the requests whose key
//! the [`SpatialSampler`] keeps are simulated, on a miniature host: RAM,
//! `zfs_arc_max`/`zfs_arc_min`, pinned bytes, the demand curve, the
//! 16 MiB overflow margin (`max_recordsize`) and `meta_min` are all
//! multiplied by R, so the miniature sees the same pressure. What does not
//! scale: the 32 MiB floor of `c_min` (the miniature's `c_min` is larger
//! than R × the real one when R × RAM/32 < 32 MiB) and the 64 MiB
//! `MIN_ARC_MAX` floor — a run whose R × cap would fall below 64 MiB uses
//! the smallest R that keeps it at 64 MiB instead (reported in
//! [`RunResult::sampled`]). Miss counts are estimated with
//! [`scaled_miss_ratio`]; sizes are scaled back by 1/R.
//!
//! ```
//! use arclab_sim::replay::Target;
//! use arclab_sim::whatif::{self, RunSpec};
//! use arclab_sim::{scenario, workload};
//!
//! let mut sc = scenario::builtin("homelab").unwrap();
//! sc.warmup_secs = 1.0;
//! let w = workload::WorkloadSpec::from_toml_str(
//!     "kind = \"zipf\"\nalpha = 1.0\nobjects = 5000\nrate = 5000\nduration_secs = 4\n",
//!     "inline",
//! )
//! .unwrap();
//! let spec = RunSpec::zfs("8G", &sc, Some(8 << 30)).unwrap();
//! let r = whatif::run_workload(&spec, &w, 1);
//! assert!(r.hit_ratio > 0.5 && r.n_req > 10_000);
//! assert_eq!(r.c_max_bytes, 8 << 30);
//! assert!(!r.series.is_empty());
//! ```

use crate::policies::AnyPolicy;
use crate::replay::{DEFAULT_BATCH, Target};
use crate::sample::{SpatialSampler, scaled_miss_ratio};
use crate::scenario::Scenario;
use crate::workload::{WorkloadError, WorkloadSpec};
use crate::zfs::{ZfsArc, ZfsSpec};
use crate::{Policy, PolicyKind};
use arclab_arc::Request;
use arclab_arc::limits::MIN_ARC_MAX;
use arclab_arc::model::{ArcConfig, ArcStats};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// One run: a target on a scenario.
#[derive(Clone, Debug)]
pub struct RunSpec {
    /// Label for tables and plots (`default`, `8G`, …).
    pub label: String,
    /// The ZFS model (its `config` is used as is) or a baseline policy
    /// (capacity: the scenario's `arc_max`, else the default `c_max`).
    pub target: Target,
    /// Host, pinned memory, demand curve, warm-up.
    pub scenario: Scenario,
    /// Spatial sampling rate R in (0, 1); `None` or ≥ 1: every request.
    pub sample_rate: Option<f64>,
    /// Simulated time between two series points (0: no series).
    pub series_step_ns: u64,
}

impl RunSpec {
    /// The ZFS model on `scenario` with `zfs_arc_max = arc_max` (None: the
    /// scenario's own), prefetch as the scenario says, a point a second.
    pub fn zfs(
        label: &str,
        scenario: &Scenario,
        arc_max: Option<u64>,
    ) -> Result<RunSpec, WorkloadError> {
        let config = scenario.arc_config(arc_max)?;
        let mut sc = scenario.clone();
        if arc_max.is_some() {
            sc.arc_max = arc_max;
        }
        Ok(RunSpec {
            label: label.to_string(),
            target: Target::Zfs(Box::new(ZfsSpec {
                config,
                prefetch: scenario.prefetch,
                block_keys: true,
            })),
            scenario: sc,
            sample_rate: None,
            series_step_ns: 1_000_000_000,
        })
    }

    /// A baseline policy with capacity `arc_max` (None: the scenario's).
    pub fn policy(
        label: &str,
        kind: PolicyKind,
        scenario: &Scenario,
        arc_max: Option<u64>,
    ) -> RunSpec {
        let mut sc = scenario.clone();
        if arc_max.is_some() {
            sc.arc_max = arc_max;
        }
        RunSpec {
            label: label.to_string(),
            target: Target::Policy(kind),
            scenario: sc,
            sample_rate: None,
            series_step_ns: 1_000_000_000,
        }
    }
}

/// The state of the run at one instant (bytes of the full-size host).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Point {
    /// Simulated time.
    pub t_ns: u64,
    /// ARC `size` (baselines: occupied bytes).
    pub size_bytes: u64,
    /// ARC target `c` (baselines: capacity).
    pub c_bytes: u64,
    /// `arc_available_memory()` (baselines: RAM − demand − occupied).
    pub available_bytes: i64,
    /// Other processes' demand.
    pub other_demand_bytes: u64,
    /// What the other processes want but cannot have (baselines: 0).
    pub deficit_bytes: u64,
}

/// What the ARC gave back during one rise of the other processes' demand.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GiveBack {
    /// When the demand started rising.
    pub start_ns: u64,
    /// ARC bytes released from then until it stopped shrinking.
    pub bytes: u64,
    /// From the start until the ARC stopped shrinking.
    pub duration_ns: u64,
}

/// The outcome of one run.
#[derive(Clone, Debug, Default)]
pub struct RunResult {
    /// The run's label.
    pub label: String,
    /// Requests after the warm-up (all of them, sampled or not).
    pub n_req: u64,
    /// Demand misses after the warm-up (estimated when sampled).
    pub n_miss: u64,
    /// `n_req − n_miss` (writes count as hits for the ZFS model).
    pub hits: u64,
    /// Simulated time of the whole run (up to the last request).
    pub duration_ns: u64,
    /// The warm-up left out of the counters.
    pub warmup_ns: u64,
    /// `hits / n_req`.
    pub hit_ratio: f64,
    /// Misses per second of measured (post-warm-up) time.
    pub misses_per_sec: f64,
    /// Missed bytes per second of measured time.
    pub miss_bytes_per_sec: f64,
    /// Mean of the series' sizes after the warm-up.
    pub mean_size_bytes: f64,
    /// Largest series size after the warm-up.
    pub peak_size_bytes: u64,
    /// `c_max` (baselines: capacity).
    pub c_max_bytes: u64,
    /// ∫ deficit dt over the whole run (byte·seconds).
    pub pressure_deficit_byte_seconds: f64,
    /// One entry per rise of the other processes' demand.
    pub giveback: Vec<GiveBack>,
    /// A point every `series_step_ns`.
    pub series: Vec<Point>,
    /// arcstats at the end (ZFS model; of the miniature when sampled).
    pub arcstats: Option<ArcStats>,
    /// The sampling rate used, when sampled.
    pub sampled: Option<f64>,
}

enum Engine {
    Zfs(Box<ZfsArc>),
    Policy(AnyPolicy),
}

/// Scale a configuration by `r` for miniature simulation (see the module docs).
fn scale_config(cfg: &ArcConfig, r: f64) -> ArcConfig {
    let s = |b: u64| (b as f64 * r).round() as u64;
    let mut c = cfg.clone();
    c.ram_bytes = s(cfg.ram_bytes);
    c.arc_max = cfg.arc_max.map(|m| s(m).max(MIN_ARC_MAX));
    // zfs_arc_min below the 32 MiB floor would be ignored: leave it automatic.
    c.arc_min = cfg.arc_min.map(s).filter(|&m| m >= 32 << 20);
    c.fixed_c = cfg.fixed_c.map(s);
    c.host.base_bytes = s(cfg.host.base_bytes);
    c.host.freebsd_free_target = cfg.host.freebsd_free_target.map(s);
    c.tunables.max_recordsize = s(cfg.tunables.max_recordsize);
    c.tunables.meta_min = s(cfg.tunables.meta_min);
    c
}

/// The default `c_max` of the scenario's host (baseline capacity).
fn default_capacity(sc: &Scenario) -> u64 {
    match sc.arc_config(None) {
        Ok(cfg) => {
            arclab_arc::limits(
                cfg.ram_bytes,
                cfg.os,
                cfg.behaviour.limits,
                cfg.arc_max,
                cfg.arc_min,
            )
            .c_max_bytes
        }
        Err(_) => sc.arc_max.unwrap_or(sc.ram_bytes / 2),
    }
}

/// Replay `source` (same contract as [`crate::replay::replay`]'s batch
/// source, without errors) through `spec`.
pub fn run(spec: &RunSpec, source: &mut dyn FnMut(&mut Vec<Request>, usize) -> usize) -> RunResult {
    let sc = &spec.scenario;
    let mut rate = spec
        .sample_rate
        .filter(|r| r.is_finite() && *r > 0.0 && *r < 1.0);
    let (mut engine, capacity) = match &spec.target {
        Target::Zfs(z) => {
            if let (Some(r), Some(m)) = (rate, z.config.arc_max) {
                rate = Some(r.max(MIN_ARC_MAX as f64 / m as f64)).filter(|&r| r < 1.0);
            }
            let config = match rate {
                Some(r) => scale_config(&z.config, r),
                None => z.config.clone(),
            };
            let mut arc = ZfsArc::new(&ZfsSpec {
                config,
                prefetch: z.prefetch,
                block_keys: z.block_keys,
            });
            let r = rate.unwrap_or(1.0);
            let p = &sc.pinned;
            let s = |b: u64| (b as f64 * r).round() as u64;
            arc.arc_mut()
                .set_pinned(s(p.dnode_bytes), s(p.dbuf_bytes), s(p.bonus_bytes));
            (Engine::Zfs(Box::new(arc)), 0)
        }
        Target::Policy(k) => {
            let cap = sc.arc_max.unwrap_or_else(|| default_capacity(sc));
            let scaled = (cap as f64 * rate.unwrap_or(1.0)).round().max(1.0) as u64;
            (Engine::Policy(AnyPolicy::new(*k, scaled)), cap)
        }
    };
    let r = rate.unwrap_or(1.0);
    let inv = 1.0 / r;
    let up = |b: u64| (b as f64 * inv).round() as u64;
    let sampler = SpatialSampler::new(r, 0);
    let warm = (sc.warmup_secs * 1e9) as u64;
    let step = spec.series_step_ns;
    let mut next_pt = 0u64;
    let mut series = Vec::new();
    let (mut n_req, mut miss_s, mut miss_bytes_s) = (0u64, 0u64, 0u64);
    let mut last_demand = u64::MAX;
    let mut last_t = 0u64;

    let point = |engine: &mut Engine, t: u64, last_demand: &mut u64| -> Point {
        let demand = sc.demand_at(t);
        match engine {
            Engine::Zfs(z) => {
                let a = z.arc_mut();
                a.advance_to(t);
                let d = (demand as f64 * r).round() as u64;
                if d != *last_demand {
                    a.set_other_demand(d);
                    *last_demand = d;
                }
                Point {
                    t_ns: t,
                    size_bytes: up(a.size()),
                    c_bytes: up(a.c()),
                    available_bytes: (a.available() as f64 * inv).round() as i64,
                    other_demand_bytes: demand,
                    deficit_bytes: up(a.deficit_bytes()),
                }
            }
            Engine::Policy(p) => {
                let occ = up(p.occupied());
                Point {
                    t_ns: t,
                    size_bytes: occ,
                    c_bytes: capacity,
                    available_bytes: sc.ram_bytes as i64 - demand as i64 - occ as i64,
                    other_demand_bytes: demand,
                    deficit_bytes: 0,
                }
            }
        }
    };

    let mut buf = Vec::with_capacity(DEFAULT_BATCH);
    loop {
        buf.clear();
        if source(&mut buf, DEFAULT_BATCH) == 0 {
            break;
        }
        for req in &buf {
            let t = req.time_ns;
            last_t = last_t.max(t);
            while step > 0 && next_pt <= t {
                series.push(point(&mut engine, next_pt, &mut last_demand));
                next_pt += step;
            }
            let counted = t >= warm;
            n_req += u64::from(counted);
            if !sampler.keep(req.key) {
                continue;
            }
            let hit = match &mut engine {
                Engine::Zfs(z) => {
                    let a = z.arc_mut();
                    a.advance_to(t);
                    let d = (sc.demand_at(t) as f64 * r).round() as u64;
                    if d != last_demand {
                        a.set_other_demand(d);
                        last_demand = d;
                    }
                    z.access(req)
                }
                Engine::Policy(p) => p.access(req),
            };
            if counted && !hit {
                miss_s += 1;
                miss_bytes_s += u64::from(req.size);
            }
        }
    }
    if step > 0 && series.last().is_none_or(|p| p.t_ns < last_t) {
        series.push(point(&mut engine, last_t, &mut last_demand));
    }

    let measured_s = last_t.saturating_sub(warm) as f64 / 1e9;
    let per_s = |x: f64| {
        if measured_s > 0.0 {
            x / measured_s
        } else {
            0.0
        }
    };
    let miss_ratio = if rate.is_some() {
        scaled_miss_ratio(miss_s, r, n_req)
    } else if n_req > 0 {
        miss_s as f64 / n_req as f64
    } else {
        0.0
    };
    let n_miss = (miss_ratio * n_req as f64).round() as u64;
    let after: Vec<&Point> = series.iter().filter(|p| p.t_ns >= warm).collect();
    let mean_size_bytes = if after.is_empty() {
        series.last().map_or(0.0, |p| p.size_bytes as f64)
    } else {
        after.iter().map(|p| p.size_bytes as f64).sum::<f64>() / after.len() as f64
    };
    let peak_size_bytes = after.iter().map(|p| p.size_bytes).max().unwrap_or(0);
    let (arcstats, c_max_bytes, deficit) = match &engine {
        Engine::Zfs(z) => {
            let s = z.stats();
            let c_max = up(s.c_max);
            let d = s.model.pressure_deficit_byte_seconds * inv;
            (Some(s), c_max, d)
        }
        Engine::Policy(_) => (None, capacity, 0.0),
    };
    RunResult {
        label: spec.label.clone(),
        n_req,
        n_miss,
        hits: n_req - n_miss,
        duration_ns: last_t,
        warmup_ns: warm,
        hit_ratio: if n_req > 0 { 1.0 - miss_ratio } else { 0.0 },
        misses_per_sec: per_s(n_miss as f64),
        miss_bytes_per_sec: per_s(miss_bytes_s as f64 * inv),
        mean_size_bytes,
        peak_size_bytes,
        c_max_bytes,
        pressure_deficit_byte_seconds: deficit,
        giveback: giveback(&series),
        series,
        arcstats,
        sampled: rate,
    }
}

/// Per rise of the demand: the ARC bytes released from its start until the
/// ARC stopped shrinking (at the series' resolution).
pub fn giveback(series: &[Point]) -> Vec<GiveBack> {
    let mut out = Vec::new();
    let mut i = 1;
    while i < series.len() {
        if series[i].other_demand_bytes <= series[i - 1].other_demand_bytes {
            i += 1;
            continue;
        }
        let start = i - 1;
        let s0 = series[start].size_bytes;
        let (mut min_s, mut min_i) = (s0, start);
        let mut j = i;
        while j < series.len()
            && (series[j].other_demand_bytes > series[j - 1].other_demand_bytes
                || series[j].size_bytes < series[j - 1].size_bytes)
        {
            if series[j].size_bytes < min_s {
                (min_s, min_i) = (series[j].size_bytes, j);
            }
            j += 1;
        }
        out.push(GiveBack {
            start_ns: series[start].t_ns,
            bytes: s0 - min_s,
            duration_ns: series[min_i].t_ns - series[start].t_ns,
        });
        i = j.max(i + 1);
    }
    out
}

/// [`run`] on a fresh generator of `workload` seeded with `seed`.
pub fn run_workload(spec: &RunSpec, workload: &WorkloadSpec, seed: u64) -> RunResult {
    let mut g = workload.generator(seed);
    run(spec, &mut |buf, max| g.next_batch(buf, max))
}

/// Every spec on the same workload stream, on up to `threads` threads;
/// results in `specs` order and identical to running them one by one.
/// `progress(done, total)` is called as runs finish.
pub fn run_all(
    specs: &[RunSpec],
    workload: &WorkloadSpec,
    seed: u64,
    threads: usize,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Vec<RunResult> {
    let total = specs.len();
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let out: Mutex<Vec<Option<RunResult>>> = Mutex::new(vec![None; total]);
    let worker = || {
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= total {
                break;
            }
            let r = run_workload(&specs[i], workload, seed);
            if let Ok(mut o) = out.lock() {
                o[i] = Some(r);
            }
            progress(done.fetch_add(1, Ordering::Relaxed) + 1, total);
        }
    };
    let threads = threads.clamp(1, total.max(1));
    if threads == 1 {
        worker();
    } else {
        std::thread::scope(|s| {
            for _ in 0..threads {
                s.spawn(worker);
            }
        });
    }
    out.into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .map(Option::unwrap_or_default)
        .collect()
}
