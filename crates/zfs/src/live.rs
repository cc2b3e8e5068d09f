//! The live view behind the full-screen `arclab top`: one [`Live`] state fed
//! a [`Sample`] per refresh, holding what the screen shows — the RAM split
//! and what is really available ([`Ram`]), the explanation of the newest
//! snapshot ([`crate::status::Status`]), per-second rates ([`Rates`]), their
//! recent history for sparklines ([`History`]) and the events seen between
//! samples ([`Event`]). The CLI only draws it and handles keys.
//!
//! **Really available memory.** The ARC is not counted in Linux's
//! `MemAvailable` (openzfs/zfs#10255). htop, btop and netdata add the ARC's
//! shrinkable part `size − c_min` (clipped at 0). arclab uses that rule and
//! also keeps out what the ARC cannot evict (non-evictable bytes, when the
//! layout exports `*_evictable_*`), since those bytes cannot be given back
//! either: reclaimable = `size − max(c_min, non-evictable)`, at least 0 (see
//! [`reclaimable`] and [`RECLAIMABLE_RULE`]); really available =
//! `MemAvailable` + reclaimable.
//!
//! **Events** between two samples ([`EventKind`]): `c` falling (with how much
//! `size` gave back, and whether `c` reached `c_min`), `arc_no_grow` set or
//! cleared, `memory_throttle_count` rising, `zfs_arc_max` / `c_max` changed at
//! runtime (and whether the new value is in force), counters reset or the
//! module reloaded, intervals missed (the sampler was late), read failures,
//! and pauses.
//!
//! ```
//! use arclab_zfs::live::reclaimable;
//! // htop's rule alone would say 10 GiB − 1 GiB = 9 GiB; 3 GiB cannot be evicted.
//! assert_eq!(reclaimable(10 << 30, 1 << 30, Some(3 << 30)), 7 << 30);
//! assert_eq!(reclaimable(10 << 30, 1 << 30, None), 9 << 30);
//! assert_eq!(reclaimable(1 << 30, 2 << 30, None), 0);
//! ```

use std::collections::VecDeque;
use std::path::Path;

use arclab_arc::units::format_bytes;

use crate::arcstats::ArcSnapshot;
use crate::host::{self, HostError, Kstats, Meminfo, ModuleParams};
use crate::rates::{self, TopRow};
use crate::status::{self, MissingField, Status};

/// The rule for [`reclaimable`], as shown on screen and in help.
pub const RECLAIMABLE_RULE: &str = "ARC reclaimable = size − max(c_min, non-evictable), at least 0: htop/btop/netdata count size − c_min; arclab also keeps out the bytes the ARC cannot evict. Really available = MemAvailable + ARC reclaimable (Linux does not count the ARC in MemAvailable).";

/// The most events kept (older ones are dropped).
pub const MAX_EVENTS: usize = 500;

/// The most history points kept per metric.
pub const MAX_HISTORY: usize = 3600;

/// How much of the ARC can be given back to applications: `size −
/// max(c_min, non_evictable)`, at least 0 (the htop/btop/netdata rule `size −
/// c_min`, without what cannot be evicted when that is known).
pub fn reclaimable(size: u64, c_min: u64, non_evictable: Option<u64>) -> u64 {
    size.saturating_sub(non_evictable.map_or(c_min, |n| n.max(c_min)))
}

/// One read of the host.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// arcstats (and zfetchstats / dbufstats).
    pub kstats: Kstats,
    /// `/proc/meminfo`, when read.
    pub meminfo: Option<Meminfo>,
    /// The module's parameters from sysfs, when read.
    pub params: Option<ModuleParams>,
}

impl Sample {
    /// Read `ROOT/spl/kstat/zfs/*` and `ROOT/meminfo` under a procfs root, and
    /// `module/zfs/` under a sysfs root when given.
    pub fn read(procfs: &Path, sysfs: Option<&Path>) -> Result<Self, HostError> {
        Ok(Sample {
            kstats: host::read_procfs(procfs)?,
            meminfo: host::procfs_meminfo(procfs)?,
            params: sysfs.map(host::read_sysfs).transpose()?,
        })
    }

    /// A saved kstat file (no meminfo, no parameters).
    pub fn read_file(path: &Path) -> Result<Self, HostError> {
        Ok(Sample {
            kstats: host::read_kstat_file(path)?,
            meminfo: None,
            params: None,
        })
    }

    fn arc(&self) -> &ArcSnapshot {
        &self.kstats.arc
    }
}

/// The RAM split of the bar: `other + arc_size + free = total` (`other` is
/// applications, the kernel and the page cache).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ram {
    /// RAM: `memory_all_bytes`, else `MemTotal`.
    pub total: u64,
    /// Where `total` came from.
    pub total_source: &'static str,
    /// Everything that is neither the ARC nor free: applications, kernel, page cache.
    pub other: u64,
    /// ARC `size`.
    pub arc_size: u64,
    /// The evictable part of the ARC (`None`: the layout does not say).
    pub arc_evictable: Option<u64>,
    /// The non-evictable part.
    pub arc_non_evictable: Option<u64>,
    /// Free pages (`memory_free_bytes`), when exported.
    pub free: Option<u64>,
    /// `MemAvailable`, when meminfo was read.
    pub mem_available: Option<u64>,
    /// [`reclaimable`].
    pub arc_reclaimable: u64,
    /// `MemAvailable + arc_reclaimable`.
    pub really_available: Option<u64>,
}

impl Ram {
    /// The split for one snapshot explained as `st`; `None` without a RAM size.
    pub fn of(st: &Status, arc: &ArcSnapshot, meminfo: Option<&Meminfo>) -> Option<Ram> {
        let (total, total_source) = match (arc.get_u64("memory_all_bytes"), meminfo) {
            (Some(t), _) => (t, "memory_all_bytes"),
            (None, Some(m)) => (m.total_bytes, "MemTotal"),
            (None, None) => return None,
        };
        let size = st.size_bytes;
        let free = arc.get_u64("memory_free_bytes").map(|f| f.min(total));
        let other = total.saturating_sub(size).saturating_sub(free.unwrap_or(0));
        let arc_reclaimable = reclaimable(size, st.c_min_bytes, st.non_evictable_bytes);
        let mem_available = meminfo.and_then(|m| m.available_bytes);
        Some(Ram {
            total,
            total_source,
            other,
            arc_size: size,
            arc_evictable: st.evictable_bytes.map(|e| e.min(size)),
            arc_non_evictable: st.non_evictable_bytes.map(|n| n.min(size)),
            free,
            mem_available,
            arc_reclaimable,
            really_available: mem_available.map(|a| a.saturating_add(arc_reclaimable)),
        })
    }
}

/// One ARC state's split into data and metadata bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateSplit {
    /// `anon`, `mru`, `mfu`, `uncached`, `mru_ghost`, `mfu_ghost`.
    pub state: &'static str,
    /// `<state>_size`.
    pub size: u64,
    /// `<state>_data`, when exported.
    pub data: Option<u64>,
    /// `<state>_metadata`, when exported.
    pub metadata: Option<u64>,
}

/// The data/metadata split of every state the snapshot exports.
pub fn state_split(arc: &ArcSnapshot) -> Vec<StateSplit> {
    ["anon", "mru", "mfu", "uncached", "mru_ghost", "mfu_ghost"]
        .into_iter()
        .filter_map(|state| {
            Some(StateSplit {
                state,
                size: arc.get_u64(&format!("{state}_size"))?,
                data: arc.get_u64(&format!("{state}_data")),
                metadata: arc.get_u64(&format!("{state}_metadata")),
            })
        })
        .collect()
}

/// Rates of one interval: the `arclab top` line plus demand/prefetch split
/// and ghost hits.
#[derive(Clone, Debug, PartialEq)]
pub struct Rates {
    /// The line-mode row (reads, hits, iohits, misses, hit %, resets, …).
    pub row: TopRow,
    /// Demand (data + metadata) accesses per second.
    pub demand_reads: Option<f64>,
    /// Demand hits as % of demand accesses.
    pub demand_hit_pct: Option<f64>,
    /// Prefetch accesses per second.
    pub prefetch_reads: Option<f64>,
    /// Prefetch hits as % of prefetch accesses.
    pub prefetch_hit_pct: Option<f64>,
    /// `mru_ghost_hits + mfu_ghost_hits` per second: reads a larger ARC would have hit.
    pub ghost_hits: Option<f64>,
    /// `mru_ghost_hits` per second.
    pub mru_ghost_hits: Option<f64>,
    /// `mfu_ghost_hits` per second.
    pub mfu_ghost_hits: Option<f64>,
}

const DEMAND: &[&str] = &[
    "demand_data_hits",
    "demand_data_iohits",
    "demand_data_misses",
    "demand_metadata_hits",
    "demand_metadata_iohits",
    "demand_metadata_misses",
];
const DEMAND_HITS: &[&str] = &["demand_data_hits", "demand_metadata_hits"];
const PREFETCH: &[&str] = &[
    "prefetch_data_hits",
    "prefetch_data_iohits",
    "prefetch_data_misses",
    "prefetch_metadata_hits",
    "prefetch_metadata_iohits",
    "prefetch_metadata_misses",
];
const PREFETCH_HITS: &[&str] = &["prefetch_data_hits", "prefetch_metadata_hits"];

fn pct(part: Option<f64>, whole: Option<f64>) -> Option<f64> {
    match (part, whole) {
        (Some(p), Some(w)) if w > 0.0 => Some(100.0 * p / w),
        _ => None,
    }
}

impl Rates {
    fn build(row: TopRow, rate: impl Fn(&[&str]) -> Option<f64>) -> Rates {
        let (dr, pr) = (rate(DEMAND), rate(PREFETCH));
        Rates {
            row,
            demand_reads: dr,
            demand_hit_pct: pct(rate(DEMAND_HITS), dr),
            prefetch_reads: pr,
            prefetch_hit_pct: pct(rate(PREFETCH_HITS), pr),
            ghost_hits: rate(&["mru_ghost_hits", "mfu_ghost_hits"]),
            mru_ghost_hits: rate(&["mru_ghost_hits"]),
            mfu_ghost_hits: rate(&["mfu_ghost_hits"]),
        }
    }

    /// Rates over the interval `prev` → `cur` (see [`rates::row`]).
    pub fn between(prev: &ArcSnapshot, cur: &ArcSnapshot, wall_seconds: f64) -> Rates {
        let d = rates::delta(prev, cur, wall_seconds);
        Rates::build(rates::row(prev, cur, wall_seconds), |n| d.rate(n))
    }

    /// Averages since the module loaded (see [`rates::first_row`]).
    pub fn since_load(cur: &ArcSnapshot) -> Rates {
        let row = rates::first_row(cur);
        let secs = row.seconds;
        Rates::build(row, |names| {
            let vals: Vec<u64> = names.iter().filter_map(|n| cur.get_u64(n)).collect();
            (secs > 0.0 && !vals.is_empty()).then(|| vals.iter().sum::<u64>() as f64 / secs)
        })
    }
}

/// How good a value is, for colours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// Fine.
    Good,
    /// Worth a look.
    Warn,
    /// Bad.
    Bad,
    /// No judgement (no threshold for this metric, or no value).
    None,
}

/// The colour thresholds, as shown in help.
pub const THRESHOLDS: &str = "hit % and demand hit %: green ≥ 90, yellow ≥ 70, red below; ghost hits: green < 1 % of reads, yellow < 5 %, red above (reads a larger ARC would have served)";

/// The level of a hit ratio in % (total or demand).
pub fn hit_level(pct: Option<f64>) -> Level {
    match pct {
        Some(p) if p >= 90.0 => Level::Good,
        Some(p) if p >= 70.0 => Level::Warn,
        Some(_) => Level::Bad,
        None => Level::None,
    }
}

/// The level of the ghost-hit rate against the read rate.
pub fn ghost_level(ghost: Option<f64>, reads: Option<f64>) -> Level {
    match (ghost, reads) {
        (Some(g), Some(r)) if r > 0.0 => {
            let share = g / r;
            if share < 0.01 {
                Level::Good
            } else if share < 0.05 {
                Level::Warn
            } else {
                Level::Bad
            }
        }
        _ => Level::None,
    }
}

/// A metric kept in [`History`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    /// Reads per second.
    Reads,
    /// Hits per second.
    Hits,
    /// I/O hits per second.
    IoHits,
    /// Misses per second.
    Misses,
    /// Hit %.
    HitPct,
    /// Demand accesses per second.
    DemandReads,
    /// Demand misses per second.
    DemandMisses,
    /// Prefetch accesses per second.
    PrefetchReads,
    /// Prefetch misses per second.
    PrefetchMisses,
    /// Ghost hits per second.
    GhostHits,
    /// ARC size (bytes).
    Size,
    /// ARC target c (bytes).
    C,
}

impl Metric {
    /// Every metric, in display order.
    pub const ALL: [Metric; 12] = [
        Metric::Reads,
        Metric::Hits,
        Metric::IoHits,
        Metric::Misses,
        Metric::HitPct,
        Metric::DemandReads,
        Metric::DemandMisses,
        Metric::PrefetchReads,
        Metric::PrefetchMisses,
        Metric::GhostHits,
        Metric::Size,
        Metric::C,
    ];

    /// This metric's value in `r`.
    pub fn of(self, r: &Rates) -> Option<f64> {
        match self {
            Metric::Reads => r.row.reads,
            Metric::Hits => r.row.hits,
            Metric::IoHits => r.row.iohits,
            Metric::Misses => r.row.misses,
            Metric::HitPct => r.row.hit_pct,
            Metric::DemandReads => r.demand_reads,
            Metric::DemandMisses => r.row.demand_misses,
            Metric::PrefetchReads => r.prefetch_reads,
            Metric::PrefetchMisses => r.row.prefetch_misses,
            Metric::GhostHits => r.ghost_hits,
            Metric::Size => r.row.size.map(|v| v as f64),
            Metric::C => r.row.c.map(|v| v as f64),
        }
    }

    fn index(self) -> usize {
        Metric::ALL.iter().position(|m| *m == self).unwrap_or(0)
    }
}

/// The recent values of every [`Metric`], one point per interval; `None` is
/// a gap (a reset counter, a missed interval, a pause).
#[derive(Clone, Debug, PartialEq)]
pub struct History {
    cap: usize,
    series: Vec<VecDeque<Option<f64>>>,
}

impl History {
    /// Keep at most `cap` points (bounded by [`MAX_HISTORY`], at least 1).
    pub fn new(cap: usize) -> Self {
        History {
            cap: cap.clamp(1, MAX_HISTORY),
            series: vec![VecDeque::new(); Metric::ALL.len()],
        }
    }

    /// How many points are kept at most.
    pub fn capacity(&self) -> usize {
        self.cap
    }

    fn push_with(&mut self, f: impl Fn(Metric) -> Option<f64>) {
        for m in Metric::ALL {
            let s = &mut self.series[m.index()];
            if s.len() == self.cap {
                s.pop_front();
            }
            s.push_back(f(m));
        }
    }

    /// Append one interval's rates.
    pub fn push(&mut self, r: &Rates) {
        self.push_with(|m| m.of(r));
    }

    /// Append `n` gaps (at most the capacity).
    pub fn gaps(&mut self, n: u64) {
        for _ in 0..n.min(self.cap as u64) {
            self.push_with(|_| None);
        }
    }

    /// The points of `m`, oldest first.
    pub fn get(&self, m: Metric) -> &VecDeque<Option<f64>> {
        &self.series[m.index()]
    }
}

/// What happened.
#[derive(Clone, Debug, PartialEq)]
pub enum EventKind {
    /// `c` went down (reap, shrinker, memory pressure).
    CFell {
        /// c before.
        from: u64,
        /// c after.
        to: u64,
        /// Bytes `size` went down by in the same interval (0 if it grew).
        given_back: u64,
        /// `c` is now at `c_min`.
        at_min: bool,
    },
    /// `arc_no_grow` changed (true: set).
    NoGrow(bool),
    /// `memory_throttle_count` rose by this much.
    MemoryThrottle(u64),
    /// `zfs_arc_max` (sysfs) or `c_max` (arcstats) changed.
    ArcMaxChanged {
        /// `c_max` before and after.
        c_max: (u64, u64),
        /// `zfs_arc_max` before and after, when sysfs was read.
        param: Option<(u64, u64)>,
        /// Whether the parameter is in force (`c_max` equals it); `None`
        /// without sysfs or when the parameter is 0 (automatic).
        in_force: Option<bool>,
    },
    /// Counters went down.
    Reset(Vec<String>),
    /// The module was reloaded (or the host rebooted): every counter restarted.
    Reloaded,
    /// Intervals without a sample (the sampler was late or stopped).
    Missed {
        /// How many intervals.
        intervals: u64,
        /// The interval actually measured (s).
        seconds: f64,
    },
    /// Reading the host failed.
    ReadFailed(String),
    /// Sampling paused by the user for this many seconds.
    Paused(f64),
}

impl EventKind {
    /// The level for colour.
    pub fn level(&self) -> Level {
        match self {
            EventKind::CFell { at_min: true, .. }
            | EventKind::NoGrow(true)
            | EventKind::MemoryThrottle(_)
            | EventKind::Reloaded
            | EventKind::ReadFailed(_) => Level::Bad,
            EventKind::CFell { .. }
            | EventKind::Reset(_)
            | EventKind::Missed { .. }
            | EventKind::ArcMaxChanged {
                in_force: Some(false),
                ..
            } => Level::Warn,
            _ => Level::None,
        }
    }
}

/// One event.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// When it was seen: seconds since the epoch, from the caller's clock.
    pub unix_secs: u64,
    /// What.
    pub kind: EventKind,
    /// One line for people.
    pub message: String,
}

fn gib(b: u64) -> String {
    format_bytes(b)
}

/// The message of an event.
pub fn message(k: &EventKind) -> String {
    match k {
        EventKind::CFell {
            from,
            to,
            given_back,
            at_min,
        } => format!(
            "c fell {} → {} (−{}); size gave back {}{}",
            gib(*from),
            gib(*to),
            gib(from - to),
            gib(*given_back),
            if *at_min {
                "; c is at c_min: collapsed to the floor (shrinker / memory pressure)"
            } else {
                ""
            }
        ),
        EventKind::NoGrow(true) => {
            "arc_no_grow set: free memory is low, the ARC may not grow".into()
        }
        EventKind::NoGrow(false) => "arc_no_grow cleared: the ARC may grow again".into(),
        EventKind::MemoryThrottle(n) => {
            format!("memory throttle: memory_throttle_count +{n} (writes delayed for low memory)")
        }
        EventKind::ArcMaxChanged {
            c_max,
            param,
            in_force,
        } => {
            let p = param
                .filter(|(a, b)| a != b)
                .map_or(String::new(), |(a, b)| {
                    format!("zfs_arc_max {} → {}; ", arc_max_text(a), arc_max_text(b))
                });
            let c = if c_max.0 == c_max.1 {
                format!("c_max still {}", gib(c_max.1))
            } else {
                format!("c_max {} → {}", gib(c_max.0), gib(c_max.1))
            };
            let f = match in_force {
                Some(true) => ": in force",
                Some(false) => {
                    ": NOT in force (ZFS ignores values below 64 MiB or c_min, or above RAM)"
                }
                None => "",
            };
            format!("arc_max changed at runtime: {p}{c}{f}")
        }
        EventKind::Reset(names) => format!(
            "RESET: {} went down (no rate this interval)",
            names.join(", ")
        ),
        EventKind::Reloaded => "RESET: module reloaded or host rebooted; counters restarted".into(),
        EventKind::Missed { intervals, seconds } => format!(
            "missed {intervals} interval{} ({seconds:.2} s since the last sample): gaps in the sparklines",
            if *intervals == 1 { "" } else { "s" }
        ),
        EventKind::ReadFailed(e) => format!("read failed: {e}"),
        EventKind::Paused(s) => format!("paused {s:.1} s: no rates for that time"),
    }
}

fn arc_max_text(v: u64) -> String {
    if v == 0 {
        "0 (automatic)".into()
    } else {
        gib(v)
    }
}

/// The events between two samples; `seconds` is the measured interval,
/// `interval` the configured one.
pub fn events(prev: &Sample, cur: &Sample, r: &Rates, interval: f64) -> Vec<EventKind> {
    let (a, b) = (prev.arc(), cur.arc());
    let mut out = Vec::new();
    if r.row.reloaded {
        out.push(EventKind::Reloaded);
    } else if !r.row.resets.is_empty() {
        out.push(EventKind::Reset(r.row.resets.clone()));
    }
    if interval > 0.0 && r.row.seconds > 1.5 * interval {
        let n = (r.row.seconds / interval).round() as u64;
        if n > 1 {
            out.push(EventKind::Missed {
                intervals: n - 1,
                seconds: r.row.seconds,
            });
        }
    }
    if let (Some(c0), Some(c1)) = (a.get_u64("c"), b.get_u64("c"))
        && c1 < c0
    {
        let given_back = match (a.get_u64("size"), b.get_u64("size")) {
            (Some(s0), Some(s1)) => s0.saturating_sub(s1),
            _ => 0,
        };
        out.push(EventKind::CFell {
            from: c0,
            to: c1,
            given_back,
            at_min: b.get_u64("c_min") == Some(c1),
        });
    }
    if let (Some(g0), Some(g1)) = (a.get_u64("arc_no_grow"), b.get_u64("arc_no_grow"))
        && (g0 != 0) != (g1 != 0)
    {
        out.push(EventKind::NoGrow(g1 != 0));
    }
    if let (Some(t0), Some(t1)) = (
        a.get_u64("memory_throttle_count"),
        b.get_u64("memory_throttle_count"),
    ) && t1 > t0
        && !r.row.reloaded
    {
        out.push(EventKind::MemoryThrottle(t1 - t0));
    }
    let param = |s: &Sample| s.params.as_ref().and_then(|p| p.arc_max);
    let param_change = match (param(prev), param(cur)) {
        (Some(p0), Some(p1)) => Some((p0, p1)),
        _ => None,
    };
    if let (Some(m0), Some(m1)) = (a.get_u64("c_max"), b.get_u64("c_max"))
        && (m0 != m1 || param_change.is_some_and(|(p0, p1)| p0 != p1))
    {
        out.push(EventKind::ArcMaxChanged {
            c_max: (m0, m1),
            param: param_change,
            in_force: param_change.and_then(|(_, p1)| (p1 != 0).then_some(p1 == m1)),
        });
    }
    out
}

/// The live state.
#[derive(Clone, Debug)]
pub struct Live {
    interval: f64,
    prev: Sample,
    /// The newest snapshot explained.
    pub status: Status,
    /// The RAM split of the newest snapshot.
    pub ram: Option<Ram>,
    /// Rates of the newest interval (since load, for the first sample).
    pub rates: Rates,
    /// Recent rates.
    pub history: History,
    /// Recent events, oldest first (at most [`MAX_EVENTS`]).
    pub events: VecDeque<Event>,
    /// Samples taken.
    pub samples: u64,
    /// Intervals missed since the start.
    pub missed: u64,
    /// Intervals with a counter reset since the start.
    pub resets: u64,
    /// The last read error, cleared by the next good read.
    pub error: Option<String>,
    /// The `zfs_arc_max` module parameter, when sysfs is read.
    pub arc_max_param: Option<u64>,
}

impl Live {
    /// The module's own version string (sysfs `module/zfs/version`) of the
    /// newest sample, when sysfs was read and has it.
    pub fn module_version(&self) -> Option<&str> {
        self.prev.params.as_ref()?.version.as_deref()
    }

    /// Start from the first sample; `interval` is the configured refresh,
    /// `history` the points kept per metric.
    pub fn new(first: Sample, interval: f64, history: usize) -> Result<Live, MissingField> {
        let status = status::explain(
            first.arc(),
            first.kstats.zfetch.as_ref(),
            first.kstats.dbuf.as_ref(),
            None,
            &first.kstats.name,
        )?;
        Ok(Live {
            interval,
            ram: Ram::of(&status, first.arc(), first.meminfo.as_ref()),
            rates: Rates::since_load(first.arc()),
            arc_max_param: first.params.as_ref().and_then(|p| p.arc_max),
            status,
            history: History::new(history),
            events: VecDeque::new(),
            samples: 1,
            missed: 0,
            resets: 0,
            error: None,
            prev: first,
        })
    }

    /// The newest snapshot.
    pub fn snapshot(&self) -> &ArcSnapshot {
        self.prev.arc()
    }

    /// What was read (a path), for the title.
    pub fn source(&self) -> &str {
        &self.prev.kstats.name
    }

    /// The configured interval (s).
    pub fn interval(&self) -> f64 {
        self.interval
    }

    fn event(&mut self, kind: EventKind, unix_secs: u64) {
        if self.events.len() == MAX_EVENTS {
            self.events.pop_front();
        }
        self.events.push_back(Event {
            unix_secs,
            message: message(&kind),
            kind,
        });
    }

    /// Take the next sample, `wall_seconds` after the previous one.
    pub fn push(&mut self, cur: Sample, wall_seconds: f64, unix_secs: u64) {
        let r = Rates::between(self.prev.arc(), cur.arc(), wall_seconds);
        let evs = events(&self.prev, &cur, &r, self.interval);
        for e in evs {
            match &e {
                EventKind::Missed { intervals, .. } => {
                    self.missed += intervals;
                    self.history.gaps(*intervals);
                }
                EventKind::Reset(_) | EventKind::Reloaded => self.resets += 1,
                _ => {}
            }
            self.event(e, unix_secs);
        }
        self.history.push(&r);
        self.rates = r;
        self.samples += 1;
        self.take(cur, unix_secs);
    }

    /// Make `cur` the newest sample: explain it, split the RAM.
    fn take(&mut self, cur: Sample, unix_secs: u64) {
        match status::explain(
            cur.arc(),
            cur.kstats.zfetch.as_ref(),
            cur.kstats.dbuf.as_ref(),
            None,
            &cur.kstats.name,
        ) {
            Ok(s) => {
                self.ram = Ram::of(&s, cur.arc(), cur.meminfo.as_ref());
                self.status = s;
                self.error = None;
            }
            Err(e) => {
                self.error = Some(e.to_string());
                self.event(EventKind::ReadFailed(e.to_string()), unix_secs);
            }
        }
        self.arc_max_param = cur.params.as_ref().and_then(|p| p.arc_max);
        self.prev = cur;
    }

    /// A read failed: keep the last state, note it once per distinct error.
    pub fn read_failed(&mut self, error: String, unix_secs: u64) {
        if self.error.as_deref() != Some(error.as_str()) {
            self.event(EventKind::ReadFailed(error.clone()), unix_secs);
        }
        self.error = Some(error);
        self.history.gaps(1);
    }

    /// Resume after a pause of `seconds`: `cur` becomes the new base (no rate
    /// spans the pause).
    /// What changed during the pause (c falling, throttles, arc_max, resets)
    /// is still reported; a pause is not a missed interval.
    pub fn resume(&mut self, cur: Sample, seconds: f64, unix_secs: u64) {
        self.event(EventKind::Paused(seconds), unix_secs);
        let r = Rates::between(self.prev.arc(), cur.arc(), seconds);
        for e in events(&self.prev, &cur, &r, self.interval) {
            if !matches!(e, EventKind::Missed { .. }) {
                self.event(e, unix_secs);
            }
        }
        self.history.gaps(1);
        self.take(cur, unix_secs);
    }

    /// Whether `zfs_arc_max` is set (non-zero) and `c_max` differs from it.
    pub fn arc_max_not_in_force(&self) -> Option<u64> {
        self.arc_max_param
            .filter(|p| *p != 0 && *p != self.status.c_max_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arcstats::parse_arcstats;

    fn kstat(rows: &[(&str, u64)], snaptime: u64) -> String {
        let mut t = format!("22 1 0x01 {} 0 5 {snaptime}\nname type data\n", rows.len());
        for (n, v) in rows {
            t.push_str(&format!("{n} 4 {v}\n"));
        }
        t
    }

    fn sample(rows: &[(&str, u64)], snaptime: u64, arc_max: Option<u64>) -> Sample {
        Sample {
            kstats: Kstats {
                name: "t".into(),
                arc: parse_arcstats(&kstat(rows, snaptime), "t").unwrap(),
                zfetch: None,
                dbuf: None,
            },
            meminfo: None,
            params: arc_max.map(|a| ModuleParams {
                arc_max: Some(a),
                ..ModuleParams::default()
            }),
        }
    }

    const G: u64 = 1 << 30;

    fn base(
        c: u64,
        size: u64,
        c_max: u64,
        throttle: u64,
        no_grow: u64,
    ) -> Vec<(&'static str, u64)> {
        vec![
            ("hits", 1000),
            ("misses", 10),
            ("mru_ghost_hits", 0),
            ("mfu_ghost_hits", 0),
            ("c", c),
            ("c_min", G),
            ("c_max", c_max),
            ("size", size),
            ("memory_throttle_count", throttle),
            ("arc_no_grow", no_grow),
        ]
    }

    #[test]
    fn the_fixture_ram_split_adds_up_and_reclaimable_is_the_evictable_part() {
        // data/arcstats/linux-openzfs22plus-telegraf.arcstats: size 14960038920,
        // c_min 1047890560, memory_all_bytes 33532497920, memory_free_bytes 5194235904;
        // evictable = mru_evictable_{data,metadata} 2661687808 + 324192768
        // + mfu_evictable_{data,metadata} 7483030528 + 393818112 (anon, uncached 0).
        let text = std::fs::read_to_string(arclab_testdata::path(
            "arcstats/linux-openzfs22plus-telegraf.arcstats",
        ))
        .unwrap();
        let arc = parse_arcstats(&text, "f").unwrap();
        let st = status::explain(&arc, None, None, None, "f").unwrap();
        let mem = Meminfo {
            total_bytes: 33_532_497_920,
            available_bytes: Some(4 * G),
        };
        let ram = Ram::of(&st, &arc, Some(&mem)).unwrap();
        let evictable = 2_661_687_808 + 324_192_768 + 7_483_030_528 + 393_818_112;
        assert_eq!(ram.arc_evictable, Some(evictable));
        assert_eq!(ram.arc_non_evictable, Some(14_960_038_920 - evictable));
        assert_eq!(ram.free, Some(5_194_235_904));
        assert_eq!(ram.other, 33_532_497_920 - 14_960_038_920 - 5_194_235_904);
        // Non-evictable (4.1 GB) is above c_min (1.0 GB): reclaimable is the evictable part.
        assert_eq!(ram.arc_reclaimable, evictable);
        assert_eq!(ram.really_available, Some(4 * G + evictable));
    }

    #[test]
    fn c_falling_throttle_no_grow_and_arc_max_are_events() {
        let a = sample(&base(8 * G, 9 * G, 16 * G, 0, 0), 10_000_000_000, Some(0));
        let b = sample(
            &base(6 * G, 7 * G, 8 * G, 3, 1),
            11_000_000_000,
            Some(8 * G),
        );
        let r = Rates::between(a.arc(), b.arc(), 1.0);
        let ev = events(&a, &b, &r, 1.0);
        assert!(ev.contains(&EventKind::CFell {
            from: 8 * G,
            to: 6 * G,
            given_back: 2 * G,
            at_min: false
        }));
        assert!(ev.contains(&EventKind::NoGrow(true)));
        assert!(ev.contains(&EventKind::MemoryThrottle(3)));
        assert!(ev.contains(&EventKind::ArcMaxChanged {
            c_max: (16 * G, 8 * G),
            param: Some((0, 8 * G)),
            in_force: Some(true)
        }));
        assert!(!ev.iter().any(|e| matches!(e, EventKind::Missed { .. })));
        // A rejected value (below 64 MiB): c_max stays, the event says so.
        let c = sample(
            &base(6 * G, 7 * G, 8 * G, 3, 1),
            12_000_000_000,
            Some(1 << 20),
        );
        let r = Rates::between(b.arc(), c.arc(), 1.0);
        let ev = events(&b, &c, &r, 1.0);
        let m = ev
            .iter()
            .find(|e| matches!(e, EventKind::ArcMaxChanged { .. }))
            .unwrap();
        assert_eq!(m.level(), Level::Warn);
        assert!(message(m).contains("NOT in force"), "{}", message(m));
        assert_eq!(ev.len(), 1, "{ev:?}");
    }

    #[test]
    fn c_at_c_min_and_missed_intervals_and_resets() {
        let a = sample(&base(8 * G, 9 * G, 16 * G, 0, 0), 10_000_000_000, None);
        let mut rows = base(G, 5 * G, 16 * G, 0, 0);
        rows[0] = ("hits", 5);
        // 5 s between snaptimes at a 1 s interval: 4 intervals missed.
        let b = sample(&rows, 15_000_000_000, None);
        let mut live = Live::new(a, 1.0, 100).unwrap();
        live.push(b, 5.0, 1);
        let kinds: Vec<&EventKind> = live.events.iter().map(|e| &e.kind).collect();
        assert!(
            kinds.contains(&&EventKind::Reset(vec!["hits".into()])),
            "{kinds:?}"
        );
        assert!(kinds.contains(&&EventKind::Missed {
            intervals: 4,
            seconds: 5.0
        }));
        assert!(kinds.contains(&&EventKind::CFell {
            from: 8 * G,
            to: G,
            given_back: 4 * G,
            at_min: true
        }));
        assert_eq!((live.missed, live.resets, live.samples), (4, 1, 2));
        // 4 gaps, then the interval itself (hits reset: no hits rate).
        let h = live.history.get(Metric::Hits);
        assert_eq!(h.len(), 5);
        assert!(h.iter().all(Option::is_none));
        // misses 10 → 10 over 5 s: 0/s.
        assert_eq!(live.history.get(Metric::Misses).back(), Some(&Some(0.0)));
    }

    #[test]
    fn history_and_events_are_bounded() {
        let mut h = History::new(usize::MAX);
        assert_eq!(h.capacity(), MAX_HISTORY);
        h.gaps(u64::MAX);
        assert_eq!(h.get(Metric::Reads).len(), MAX_HISTORY);
        let a = sample(&base(8 * G, 9 * G, 16 * G, 0, 0), 10_000_000_000, None);
        let mut live = Live::new(a, 1.0, 10).unwrap();
        for i in 0..(MAX_EVENTS as u64 + 20) {
            live.read_failed(format!("e{i}"), i);
        }
        assert_eq!(live.events.len(), MAX_EVENTS);
        assert_eq!(live.history.get(Metric::Reads).len(), 10);
    }

    #[test]
    fn a_pause_is_not_a_missed_interval_but_its_changes_are_events() {
        let a = sample(&base(8 * G, 9 * G, 16 * G, 0, 0), 10_000_000_000, None);
        let b = sample(&base(4 * G, 9 * G, 16 * G, 0, 0), 70_000_000_000, None);
        let mut live = Live::new(a, 1.0, 100).unwrap();
        live.resume(b, 60.0, 7);
        let kinds: Vec<&EventKind> = live.events.iter().map(|e| &e.kind).collect();
        assert_eq!(kinds.len(), 2, "{kinds:?}");
        assert_eq!(kinds[0], &EventKind::Paused(60.0));
        assert!(matches!(kinds[1], EventKind::CFell { given_back: 0, .. }));
        assert_eq!(live.missed, 0);
        // The screen shows the sample taken at resume.
        assert_eq!(live.status.c_bytes, 4 * G);
    }

    #[test]
    fn demand_prefetch_and_ghost_rates() {
        let rows = |d: u64, p: u64, g: u64| {
            vec![
                ("hits", 0u64),
                ("misses", 0),
                ("demand_data_hits", 9 * d),
                ("demand_data_misses", d),
                ("prefetch_data_hits", p),
                ("prefetch_data_misses", p),
                ("mru_ghost_hits", g),
                ("mfu_ghost_hits", 2 * g),
            ]
        };
        let a = parse_arcstats(&kstat(&rows(0, 0, 0), 1_000_000_000), "a").unwrap();
        let b = parse_arcstats(&kstat(&rows(10, 50, 4), 3_000_000_000), "b").unwrap();
        let r = Rates::between(&a, &b, 9.0);
        assert_eq!(r.demand_reads, Some(50.0));
        assert_eq!(r.demand_hit_pct, Some(90.0));
        assert_eq!(r.prefetch_reads, Some(50.0));
        assert_eq!(r.prefetch_hit_pct, Some(50.0));
        assert_eq!(r.ghost_hits, Some(6.0));
        assert_eq!((r.mru_ghost_hits, r.mfu_ghost_hits), (Some(2.0), Some(4.0)));
        assert_eq!(hit_level(Some(90.0)), Level::Good);
        assert_eq!(hit_level(Some(89.9)), Level::Warn);
        assert_eq!(hit_level(Some(69.9)), Level::Bad);
        assert_eq!(ghost_level(Some(6.0), Some(100.0)), Level::Bad);
        assert_eq!(ghost_level(Some(0.5), Some(100.0)), Level::Good);
    }
}
