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
//! the smallest R that keeps it at 64 MiB instead — and the room for data:
//! a run whose miniature would have room for fewer than
//! [`MIN_DATA_BLOCKS`] blocks beside its pinned bytes ([`data_room`]) uses
//! the R that gives it that many (both reported in [`RunResult::sampled`]).
//! Miss counts are estimated with
//! [`scaled_miss_ratio`]; sizes are scaled back by 1/R.
//!
//! The pieces, in the order a what-if goes through them:
//!
//! * [`plan`]: the grid of policy × version × prefetch × cap on a scenario
//!   ([`plan::Plan::runs`]), with the one meaning of the `default` cap: the
//!   version's own `c_max` for the host's RAM;
//! * [`run_all`] (a generated workload) and [`run_stream`] (any request
//!   stream, e.g. a decoded trace): every run fed by the one replay driver
//!   [`crate::replay::drive`], the stream read once;
//! * [`report`]: one [`report::Row`] per [`RunResult`] priced by a
//!   [`device::Device`], and the [`verdict`] paragraph.
//!
//! ```
//! use arclab_sim::whatif::{self, plan::{Cap, Plan, PolicyName}};
//! use arclab_sim::{scenario, workload};
//!
//! let mut sc = scenario::builtin("homelab").unwrap();
//! sc.warmup_secs = 1.0;
//! // Nothing held: with the homelab's 3.28 GiB held from t = 0 and `c`
//! // starting at `c_min` (2.0+), `c` needs ~2.3 GiB of misses to grow past
//! // it, more than these 4 seconds bring.
//! sc.pinned = scenario::Pinned::default();
//! let w = workload::WorkloadSpec::from_toml_str(
//!     "kind = \"zipf\"\nalpha = 1.0\nobjects = 5000\nrate = 5000\nduration_secs = 4\n",
//!     "inline",
//! )
//! .unwrap();
//! let plan = Plan::new(vec![PolicyName::ZfsArc], vec![("8G".into(), "8G".parse::<Cap>().unwrap())]);
//! let runs = plan.runs(&sc).unwrap();
//! let specs: Vec<_> = runs.into_iter().map(|r| r.spec).collect();
//! let r = &whatif::run_all(&specs, &w, 1, 1, |_| {})[0];
//! assert!(r.hit_ratio > 0.5 && r.n_req > 10_000);
//! assert_eq!(r.c_max_bytes, 8 << 30);
//! assert!(!r.series.is_empty());
//! ```

pub mod device;
pub mod plan;
pub mod report;
mod result;
pub mod selfcheck;
mod stream;
pub mod verdict;
pub mod words;

use result::SizeStats;
pub use result::{GiveBack, Point, RunResult, giveback};
pub use stream::{run, run_all, run_clocked, run_stream, warmup_error};

use crate::engine::Engine;
use crate::model::ZfsSpec;
use crate::policies::AnyPolicy;
use crate::replay::{Sink, Target};
use crate::sample::{SampleUnits, SpatialSampler, scaled_miss_ratio};
use crate::scenario::{Piece, Pinned, Scenario};
use arclab_arc::Request;
use arclab_arc::limits::MIN_ARC_MAX;
use arclab_arc::model::{ArcCache, ArcConfig, Miniature};
use arclab_arc::units::round_bytes;

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
    /// The stream is already a spatial sample at `sample_rate`: the host is
    /// scaled, every request kept, and counts scaled back by 1/R.
    pub presampled: bool,
    /// Simulated time between two series points (0: no series).
    pub series_step_ns: u64,
    /// What the sampler keeps together ([`SampleUnits::BLOCKS`]: single
    /// blocks); [`run_all`] groups a workload's sequential components when
    /// the prefetcher runs.
    pub sample_units: SampleUnits,
    /// Which keys the sample holds ([`SpatialSampler`]'s salt): runs of the
    /// same cap with other salts are independent samples ([`with_seeds`]).
    pub sample_salt: u64,
}

/// Every spec `k` times (k clamped to 1..=[`MAX_SAMPLE_SEEDS`]; `arclab
/// whatif --sample-seeds` refuses anything else with exit 2), the copies of a spec
/// next to each other with sample salts 0..k: independent spatial samples
/// of the same run, to be averaged by [`combine_seeds`]. A sample's error
/// is mostly which of a workload's hottest keys it happens to hold; the mean
/// of `k` samples has about 1/√k of it, and their spread shows it.
pub fn with_seeds(specs: &[RunSpec], k: u32) -> Vec<RunSpec> {
    let k = k.clamp(1, MAX_SAMPLE_SEEDS);
    specs
        .iter()
        .flat_map(|s| {
            (0..k).map(move |salt| RunSpec {
                sample_salt: u64::from(salt),
                ..s.clone()
            })
        })
        .collect()
}

/// The fewest blocks of data a miniature must have room for. A sample's
/// hit ratio is a sum over the hottest blocks it kept, and a cache of a
/// handful of blocks turns on which few those are. Under the independent
/// reference model (Che's approximation of an LRU, a Zipf 0.9 over 81,920
/// blocks, 16 salts of the rank sampler), an LRU of 256 or 768 blocks
/// sampled down to 16 is off by 0.005 and 0.010 of hit ratio on average,
/// down to 64 by 0.0021 and 0.0012, to 128 by 0.0008 and 0.0009
/// (`docs/whatif.md`, "Room for data in a miniature").
pub const MIN_DATA_BLOCKS: u64 = 128;

/// The highest rate [`MIN_DATA_BLOCKS`] raises a run to: a cap of 512 MiB
/// or less that leaves data only the dbuf cache would need all of the
/// workload, and one whole replay among sampled runs makes the stream be
/// read whole for all of them (a day of the homelab: minutes, not seconds);
/// it keeps half, and fewer blocks of room.
pub const MAX_ROOM_RATE: f64 = 0.5;

/// The block [`MIN_DATA_BLOCKS`] counts: ZFS's default `recordsize`.
const RECORD_BYTES: u64 = 128 << 10;

/// What a full-size ARC capped at `arc_max` with `pinned` bytes it cannot
/// evict (the most of the run, [`Scenario::pinned_most`]) has room for in
/// data: what the cap leaves above the pinned bytes, and never less than
/// the dbuf cache in front of it (`arc_max` / 32, `dbuf_cache_shift`, the
/// DMU layer's), which holds data when the cap leaves none.
pub fn data_room(arc_max: u64, pinned: u64) -> u64 {
    arc_max
        .saturating_sub(pinned)
        .max(arc_max >> crate::dmu::CACHE_SHIFT)
        .max(1)
}

/// The most independent samples [`with_seeds`] makes of one run.
pub const MAX_SAMPLE_SEEDS: u32 = 16;

/// The results of [`with_seeds`]`(specs, k)`, one per spec again: each the
/// mean of its `k` samples ([`RunResult::mean_of`]); `k` is clamped as
/// [`with_seeds`] clamps it.
pub fn combine_seeds(results: Vec<RunResult>, k: u32) -> Vec<RunResult> {
    let k = k.clamp(1, MAX_SAMPLE_SEEDS) as usize;
    if k == 1 {
        return results;
    }
    results.chunks(k).map(RunResult::mean_of).collect()
}

/// Charge `p` (full-size bytes, scaled by `r`) to the ARC as what it holds
/// and cannot evict.
fn set_pinned(a: &mut ArcCache, p: &Pinned, r: f64) {
    let s = |b: u64| (b as f64 * r).round() as u64;
    a.set_pinned(s(p.dnode_bytes), s(p.dbuf_bytes), s(p.bonus_bytes));
    a.set_held_metadata(s(p.metadata_bytes));
}

/// Scale a configuration by `r` for miniature simulation (see the module docs).
fn scale_config(cfg: &ArcConfig, r: f64) -> ArcConfig {
    let s = |b: u64| (b as f64 * r).round() as u64;
    let mut c = cfg.clone();
    // The engine takes the full-size host's limits, scaled: the fields
    // below are what it reports as the miniature's settings.
    c.miniature = Some(Miniature {
        ram_bytes: cfg.ram_bytes,
        arc_max: cfg.arc_max,
        arc_min: cfg.arc_min,
    });
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

/// One run in progress: fed batch by batch by [`crate::replay::drive`].
pub struct Run<'a> {
    spec: &'a RunSpec,
    engine: Engine,
    /// Baselines' capacity (full-size bytes); 0 for the model.
    capacity: u64,
    /// The sampling rate, when sampled.
    rate: Option<f64>,
    sampler: SpatialSampler,
    warm: u64,
    next_pt: u64,
    series: Vec<Point>,
    n_req: u64,
    miss_s: u64,
    miss_bytes_s: u64,
    /// Whether the prefetcher's disk reads were counted afresh at the end
    /// of the warm-up (they cover the same window as the misses).
    disk_restarted: bool,
    last_demand: u64,
    /// The held files last set ([`Scenario::held_files_at`]).
    last_held: u64,
    /// The pieces of the scenario's demand and held-files curves in force
    /// at the last request (searched again only when the clock leaves them).
    demand_piece: Piece,
    held_piece: Piece,
    /// Nanoseconds over which neither curve changes, read at the last
    /// [`sync_host`](Self::sync_host): inside it the host is as it was
    /// left.
    quiet: std::ops::Range<u64>,
    /// The sampler's verdicts on the batch being consumed (kept between
    /// batches for its allocation).
    keep_buf: Vec<bool>,
    last_t: u64,
    /// The whole workload's requests after the warm-up, when the stream
    /// fed to the run was sampled at its source ([`run_all`]).
    full_requests: Option<u64>,
}

impl RunSpec {
    /// The run replays the ARC's own reads (a capture's: the host's dbuf
    /// cache already answered the rest), not a generated workload's DMU
    /// reads: the ZFS model reads them with no dbuf layer of its own
    /// ([`ZfsSpec::dmu_reads`] off).
    pub fn with_arc_reads(mut self) -> RunSpec {
        if let Target::Zfs(z) = &mut self.target {
            z.dmu_reads = false;
        }
        self
    }

    /// The end of the scenario's warm-up (ns): requests before it are
    /// served but not counted.
    pub fn warmup_ns(&self) -> u64 {
        (self.scenario.warmup_secs * 1e9) as u64
    }

    /// The rate this run samples at: `sample_rate` (when in (0, 1)), raised
    /// for the ZFS model so that R × `arc_max` stays at or above
    /// `MIN_ARC_MAX` and the miniature has room for [`MIN_DATA_BLOCKS`]
    /// blocks of data ([`data_room`]); a pre-sampled stream keeps its own
    /// rate.
    pub fn effective_rate(&self) -> Option<f64> {
        let rate = self
            .sample_rate
            .filter(|r| r.is_finite() && *r > 0.0 && *r < 1.0)?;
        match &self.target {
            Target::Zfs(z) if !self.presampled => match z.config.arc_max {
                Some(m) => {
                    let room = data_room(m, self.scenario.pinned_most().total());
                    let for_room = (MIN_DATA_BLOCKS * RECORD_BYTES) as f64 / room as f64;
                    let floor = (MIN_ARC_MAX as f64 / m as f64).max(for_room.min(MAX_ROOM_RATE));
                    Some(rate.max(floor)).filter(|&r| r < 1.0)
                }
                None => Some(rate),
            },
            _ => Some(rate),
        }
    }
}

impl<'a> Run<'a> {
    /// A fresh run of `spec`: the engine built on the (scaled, when
    /// sampled) host, pinned memory in place.
    pub fn new(spec: &'a RunSpec) -> Run<'a> {
        let sc = &spec.scenario;
        let rate = spec.effective_rate();
        // A pre-sampled stream is a sample already: every request is kept.
        let sampler = match rate {
            Some(r) if !spec.presampled => {
                Some(SpatialSampler::new(r, spec.sample_salt).with_units(spec.sample_units))
            }
            _ => None,
        };
        let (engine, capacity) = match &spec.target {
            Target::Zfs(z) => {
                let config = match rate {
                    Some(r) => scale_config(&z.config, r),
                    None => z.config.clone(),
                };
                let mut engine = Engine::zfs(&ZfsSpec {
                    config,
                    ..(**z).clone()
                });
                if let Engine::Zfs(arc) = &mut engine {
                    set_pinned(arc.arc_mut(), &sc.pinned_at(0), rate.unwrap_or(1.0));
                    arc.set_prefetch_filter(sampler);
                }
                (engine, 0)
            }
            Target::Policy(k) => {
                let cap = sc.arc_max.unwrap_or_else(|| default_capacity(sc));
                let scaled = (cap as f64 * rate.unwrap_or(1.0)).round().max(1.0) as u64;
                (Engine::Policy(AnyPolicy::new(*k, scaled)), cap)
            }
        };
        Run {
            spec,
            engine,
            capacity,
            rate,
            sampler: sampler.unwrap_or(SpatialSampler::new(1.0, 0)),
            warm: spec.warmup_ns(),
            next_pt: 0,
            series: Vec::new(),
            n_req: 0,
            miss_s: 0,
            miss_bytes_s: 0,
            disk_restarted: false,
            last_demand: u64::MAX,
            last_held: sc.held_files_at(0),
            demand_piece: sc.demand_piece(0),
            held_piece: sc.held_piece(0),
            quiet: 0..0,
            keep_buf: Vec::new(),
            last_t: 0,
            full_requests: None,
        }
    }

    fn r(&self) -> f64 {
        self.rate.unwrap_or(1.0)
    }

    /// Bring the model's host to `t`: its clock (reap, reclaim, txg syncs on
    /// the way), then the other processes' demand at `t` (scaled).
    fn sync_host(&mut self, t: u64) {
        let r = self.r();
        if let Engine::Zfs(z) = &mut self.engine {
            let a = z.arc_mut();
            a.advance_to(t);
            let sc = &self.spec.scenario;
            if self.quiet.contains(&t) {
                return;
            }
            if !self.demand_piece.covers(t) {
                self.demand_piece = sc.demand_piece(t);
            }
            let d = round_bytes(self.demand_piece.value(t) as f64 * r);
            if d != self.last_demand {
                a.set_other_demand(d);
                self.last_demand = d;
            }
            if !self.held_piece.covers(t) {
                self.held_piece = sc.held_piece(t);
            }
            let h = self.held_piece.value(t);
            if h != self.last_held {
                set_pinned(a, &sc.pinned_at(t), r);
                self.last_held = h;
            }
            let (d, h) = (
                self.demand_piece.constant_span(),
                self.held_piece.constant_span(),
            );
            self.quiet = d.start.max(h.start)..d.end.min(h.end);
        }
    }

    /// The state at `t` (full-size bytes).
    fn point(&mut self, t: u64) -> Point {
        self.sync_host(t);
        let inv = 1.0 / self.r();
        let up = |b: u64| (b as f64 * inv).round() as u64;
        let demand = self.spec.scenario.demand_at(t);
        match &self.engine {
            Engine::Zfs(z) => {
                let a = z.arc();
                Point {
                    t_ns: t,
                    size_bytes: up(a.size()),
                    c_bytes: up(a.c()),
                    other_demand_bytes: demand,
                    deficit_bytes: up(a.deficit_bytes()),
                }
            }
            Engine::Policy(p) => Point {
                t_ns: t,
                size_bytes: up(crate::Policy::occupied(p)),
                c_bytes: self.capacity,
                other_demand_bytes: demand,
                deficit_bytes: 0,
            },
        }
    }

    /// The outcome, once the stream has ended.
    pub fn finish(mut self) -> RunResult {
        let step = self.spec.series_step_ns;
        let last_t = self.last_t;
        if step > 0 && self.series.last().is_none_or(|p| p.t_ns < last_t) {
            let p = self.point(last_t);
            self.series.push(p);
        }
        let (r, warm) = (self.r(), self.warm);
        // A pre-sampled stream held R of the requests: N is n / R.
        let n_req = if let Some(n) = self.full_requests {
            n
        } else if self.spec.presampled {
            (self.n_req as f64 / r).round() as u64
        } else {
            self.n_req
        };
        let inv = 1.0 / r;
        let measured_s = last_t.saturating_sub(warm) as f64 / 1e9;
        let per_s = |x: f64| {
            if measured_s > 0.0 {
                x / measured_s
            } else {
                0.0
            }
        };
        let miss_ratio = if self.rate.is_some() {
            scaled_miss_ratio(self.miss_s, r, n_req)
        } else if n_req > 0 {
            self.miss_s as f64 / n_req as f64
        } else {
            0.0
        };
        let n_miss = (miss_ratio * n_req as f64).round() as u64;
        let (arcstats, c_max_bytes, deficit) = match &self.engine {
            Engine::Zfs(z) => {
                let s = z.stats();
                let c_max = (s.c_max as f64 * inv).round() as u64;
                let d = s.model.pressure_deficit_byte_seconds * inv;
                (Some(s), c_max, d)
            }
            Engine::Policy(_) => (None, self.capacity, 0.0),
        };
        // The prefetcher's disk reads over the measured window, scaled back
        // like the misses when sampled.
        let (pf_reads, pf_bytes, runs) = match &self.engine {
            Engine::Zfs(z) if self.disk_restarted => {
                let p = z.prefetch_reads();
                (p.reads, p.bytes, p.runs())
            }
            _ => (0, 0, Vec::new()),
        };
        let series = self.series;
        let sizes = SizeStats::of(&series, warm, c_max_bytes);
        let misses_per_sec = per_s(n_miss as f64);
        let miss_bytes_per_sec = per_s(self.miss_bytes_s as f64 * inv);
        let prefetch_reads_per_sec = per_s(pf_reads as f64 * inv);
        let prefetch_runs = runs
            .into_iter()
            .map(|(block_bytes, blocks, n)| device::ReadRun {
                block_bytes,
                blocks,
                per_sec: per_s(n as f64 * inv),
            })
            .collect();
        RunResult {
            label: self.spec.label.clone(),
            n_req,
            n_miss,
            hits: n_req - n_miss,
            duration_ns: last_t,
            warmup_ns: warm,
            hit_ratio: if n_req > 0 { 1.0 - miss_ratio } else { 0.0 },
            misses_per_sec,
            miss_bytes_per_sec,
            prefetch_reads_per_sec,
            disk_reads_per_sec: misses_per_sec + prefetch_reads_per_sec,
            disk_bytes_per_sec: miss_bytes_per_sec + per_s(pf_bytes as f64 * inv),
            prefetch_runs,
            mean_size_bytes: sizes.mean,
            median_size_bytes: sizes.median,
            peak_size_bytes: sizes.peak,
            min_c_bytes: sizes.min_c,
            above_cap_fraction: sizes.above_cap,
            c_max_bytes,
            pressure_deficit_byte_seconds: deficit,
            giveback: giveback(&series),
            series,
            arcstats,
            sampled: self.rate,
            seeds: 1,
            hit_ratio_range: None,
            misses_per_sec_range: None,
        }
    }
}

impl Run<'_> {
    /// Serve one request: record series points due before it, count it,
    /// and replay it unless the sampler leaves it out. `Some(hit)` when it
    /// was replayed (`hit`: served without a disk read), `None` when
    /// sampled out.
    pub fn step(&mut self, req: &Request) -> Option<bool> {
        let keep = self.sampler.keep(req.key);
        self.step_kept(req, keep)
    }

    /// [`step`](Self::step) with the sampler's verdict on `req` (`keep`)
    /// already taken.
    #[inline]
    fn step_kept(&mut self, req: &Request, keep: bool) -> Option<bool> {
        let step = self.spec.series_step_ns;
        let t = req.time_ns;
        self.last_t = self.last_t.max(t);
        while step > 0 && self.next_pt <= t {
            let p = self.point(self.next_pt);
            self.series.push(p);
            // An idle stretch of two steps or more (hours of silence, an
            // outlier timestamp) keeps its first and last points only:
            // the series grows with the requests, not with the span.
            let last = self.next_pt + (t - self.next_pt) / step * step;
            self.next_pt = if last > self.next_pt + step {
                last
            } else {
                self.next_pt + step
            };
        }
        let counted = t >= self.warm;
        self.n_req += u64::from(counted);
        if counted && !self.disk_restarted {
            self.disk_restarted = true;
            if let Engine::Zfs(z) = &mut self.engine {
                z.restart_prefetch_reads();
            }
        }
        if !keep {
            return None;
        }
        self.sync_host(t);
        // The first block of a unit of a sequential file: the whole stream
        // read the blocks before it, which the sample left out.
        if let (Some(u), Engine::Zfs(z)) = (self.sampler.units(), &mut self.engine)
            && let Some(n) = u.unit_start(req.key)
        {
            z.shadow_reads(req, n);
        }
        let hit = self.engine.access(req);
        if counted && !hit {
            self.miss_s += 1;
            self.miss_bytes_s += u64::from(req.size);
        }
        Some(hit)
    }
}

impl Sink for Run<'_> {
    fn consume(&mut self, batch: &[Request]) {
        // The sampler's verdicts first, in a loop of their own: each is a
        // chain of multiplies, which here overlap one another instead of
        // stalling every request's replay.
        let mut keep = std::mem::take(&mut self.keep_buf);
        keep.clear();
        keep.extend(batch.iter().map(|r| self.sampler.keep(r.key)));
        for (req, &k) in batch.iter().zip(&keep) {
            self.step_kept(req, k);
        }
        self.keep_buf = keep;
    }
}
