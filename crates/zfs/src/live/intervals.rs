//! Per-interval rates, their colour levels and the sparkline history of `arclab top`.

use crate::arcstats::ArcSnapshot;
use crate::rates::{self, TopRow};

use super::*;

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
