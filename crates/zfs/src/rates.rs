//! Per-interval rates between two snapshots, like `arcstat` / `zarcstat`
//! (spec `zfs-arc.md` §12.2), with counter resets detected instead of turned
//! into negative rates.
//!
//! * The interval is the difference of the kstat `snaptime`s (monotonic ns
//!   taken at each read) when both snapshots have one and it increased;
//!   otherwise the wall-clock time the caller measured.
//! * A counter (catalogue kind [`Counter`](crate::catalog::Kind::Counter)) that
//!   went down is a reset; so is every counter when the kstat's `crtime`
//!   changed (module reloaded) or `snaptime` went backwards (reboot). A rate
//!   that needs a reset counter is `None` and the row names the resets.
//!
//! ```
//! use arclab_zfs::{arcstats::parse_arcstats, rates::row};
//! let a = parse_arcstats("1 1 0x01 2 0 100 1000000000\nname type data\nhits 4 100\nmisses 4 10\n", "a").unwrap();
//! let b = parse_arcstats("1 1 0x01 2 0 100 3000000000\nname type data\nhits 4 300\nmisses 4 5\n", "b").unwrap();
//! let r = row(&a, &b, 9.0);
//! assert_eq!(r.seconds, 2.0); // from snaptime, not the 9 s wall clock
//! assert_eq!(r.hits, Some(100.0));
//! assert_eq!(r.misses, None); // went from 10 to 5: a reset
//! assert_eq!(r.resets, ["misses"]);
//! ```

use crate::arcstats::ArcSnapshot;
use crate::catalog::{self, Kind};

/// The change of one counter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CounterDelta {
    /// The increase.
    Delta(u64),
    /// The counter went down (or the module was reloaded).
    Reset,
}

/// All counter changes between two snapshots.
#[derive(Clone, Debug, PartialEq)]
pub struct Delta {
    /// Interval in seconds.
    pub seconds: f64,
    /// `snaptime` or `wall clock`.
    pub time_source: &'static str,
    /// Per counter, in the current snapshot's order.
    pub counters: Vec<(String, CounterDelta)>,
    /// True when `crtime` changed or `snaptime` went backwards.
    pub reloaded: bool,
}

impl Delta {
    /// The increase of `name`, if present in both and not reset.
    pub fn get(&self, name: &str) -> Option<u64> {
        match self.counters.iter().find(|(n, _)| n == name)?.1 {
            CounterDelta::Delta(d) => Some(d),
            CounterDelta::Reset => None,
        }
    }

    /// Whether `name` was reset.
    pub fn is_reset(&self, name: &str) -> bool {
        self.counters
            .iter()
            .any(|(n, d)| n == name && *d == CounterDelta::Reset)
    }

    /// Per-second rate of the sum of `names` (`None` if any is absent or reset,
    /// or the interval is not positive). Absent names count as 0 when at
    /// least one is present (e.g. `iohits` before 2.2).
    pub fn rate(&self, names: &[&str]) -> Option<f64> {
        if self.seconds <= 0.0 || names.iter().any(|n| self.is_reset(n)) {
            return None;
        }
        let vals: Vec<Option<u64>> = names.iter().map(|n| self.get(n)).collect();
        if vals.iter().all(Option::is_none) {
            return None;
        }
        Some(vals.iter().map(|v| v.unwrap_or(0)).sum::<u64>() as f64 / self.seconds)
    }
}

fn is_counter(name: &str) -> bool {
    catalog::field(name).is_some_and(|f| f.kind == Kind::Counter)
}

/// Counter changes from `prev` to `cur`; `wall_seconds` is used when the
/// snapshots carry no usable `snaptime`.
pub fn delta(prev: &ArcSnapshot, cur: &ArcSnapshot, wall_seconds: f64) -> Delta {
    let crtime = |s: &ArcSnapshot| s.header.map(|h| h.crtime_ns);
    let reloaded = crtime(prev).is_some() && crtime(prev) != crtime(cur)
        || matches!((prev.snaptime_ns, cur.snaptime_ns), (Some(a), Some(b)) if b < a);
    let (seconds, time_source) = match (prev.snaptime_ns, cur.snaptime_ns) {
        (Some(a), Some(b)) if b > a && !reloaded => ((b - a) as f64 / 1e9, "snaptime"),
        _ => (wall_seconds, "wall clock"),
    };
    let counters = cur
        .fields
        .iter()
        .filter(|f| is_counter(&f.name))
        .filter_map(|f| {
            let now = f.value.as_u64()?;
            let before = prev.get_u64(&f.name)?;
            let d = if reloaded || now < before {
                CounterDelta::Reset
            } else {
                CounterDelta::Delta(now - before)
            };
            Some((f.name.clone(), d))
        })
        .collect();
    Delta {
        seconds,
        time_source,
        counters,
        reloaded,
    }
}

/// One line of `arclab top`.
#[derive(Clone, Debug, PartialEq)]
pub struct TopRow {
    /// Interval (s); for the first row, time since module load if known.
    pub seconds: f64,
    /// `snaptime`, `wall clock`, or `since load`.
    pub time_source: &'static str,
    /// Reads (hits + iohits + misses) per second.
    pub reads: Option<f64>,
    /// Hits per second.
    pub hits: Option<f64>,
    /// I/O hits (found in flight) per second.
    pub iohits: Option<f64>,
    /// Misses per second.
    pub misses: Option<f64>,
    /// Hits as % of reads in the interval.
    pub hit_pct: Option<f64>,
    /// Demand (data + metadata) misses per second.
    pub demand_misses: Option<f64>,
    /// Prefetch (data + metadata) misses per second.
    pub prefetch_misses: Option<f64>,
    /// `size` now.
    pub size: Option<u64>,
    /// `c` now.
    pub c: Option<u64>,
    /// `memory_available_bytes` now (negative when free memory is below
    /// `arc_sys_free`); `None` when absent or implausible.
    pub avail: Option<i64>,
    /// An implausible `memory_available_bytes` that was ignored (see
    /// [`crate::status::plausible_available`]).
    pub avail_implausible: Option<i64>,
    /// Counters reset in this interval (all, when the module was reloaded).
    pub resets: Vec<String>,
    /// True when the module was reloaded (or the host rebooted).
    pub reloaded: bool,
}

impl TopRow {
    /// Whether a rate over `names` has no value because of a reset: the
    /// module reloaded, or one of the counters went down.
    pub fn reset_in(&self, names: &[&str]) -> bool {
        self.reloaded || names.iter().any(|n| self.resets.iter().any(|x| x == n))
    }
}

const READS: &[&str] = &["hits", "iohits", "misses"];
const DEMAND_MISSES: &[&str] = &["demand_data_misses", "demand_metadata_misses"];
const PREFETCH_MISSES: &[&str] = &["prefetch_data_misses", "prefetch_metadata_misses"];

fn gauges(cur: &ArcSnapshot) -> (Option<u64>, Option<u64>, Option<i64>) {
    (
        cur.get_u64("size"),
        cur.get_u64("c"),
        cur.get("memory_available_bytes")
            .and_then(|v| i64::try_from(v.as_i128()).ok()),
    )
}

/// `(plausible, implausible)` available memory.
fn split_avail(a: Option<i64>) -> (Option<i64>, Option<i64>) {
    match a {
        Some(a) if !crate::status::plausible_available(a) => (None, Some(a)),
        a => (a, None),
    }
}

/// The row for the interval `prev` → `cur`.
pub fn row(prev: &ArcSnapshot, cur: &ArcSnapshot, wall_seconds: f64) -> TopRow {
    let d = delta(prev, cur, wall_seconds);
    let hits = d.rate(&["hits"]);
    let reads = d.rate(READS);
    let (size, c, avail) = gauges(cur);
    TopRow {
        seconds: d.seconds,
        time_source: d.time_source,
        reads,
        hits,
        iohits: if cur.has("iohits") {
            d.rate(&["iohits"])
        } else {
            None
        },
        misses: d.rate(&["misses"]),
        hit_pct: match (hits, reads) {
            (Some(h), Some(r)) if r > 0.0 => Some(100.0 * h / r),
            _ => None,
        },
        demand_misses: d.rate(DEMAND_MISSES),
        prefetch_misses: d.rate(PREFETCH_MISSES),
        size,
        c,
        avail: split_avail(avail).0,
        avail_implausible: split_avail(avail).1,
        resets: d
            .counters
            .iter()
            .filter(|(_, x)| *x == CounterDelta::Reset)
            .map(|(n, _)| n.clone())
            .collect(),
        reloaded: d.reloaded,
    }
}

/// The first row: averages since module load (`snaptime − crtime`), like
/// `arcstat`'s first line; rates are `None` without a Linux kstat header.
pub fn first_row(cur: &ArcSnapshot) -> TopRow {
    let secs = cur
        .header
        .filter(|h| h.snaptime_ns > h.crtime_ns)
        .map(|h| (h.snaptime_ns - h.crtime_ns) as f64 / 1e9);
    let rate = |names: &[&str]| -> Option<f64> {
        let s = secs?;
        let vals: Vec<u64> = names.iter().filter_map(|n| cur.get_u64(n)).collect();
        (!vals.is_empty()).then(|| vals.iter().sum::<u64>() as f64 / s)
    };
    let (hits, reads) = (rate(&["hits"]), rate(READS));
    let (size, c, avail) = gauges(cur);
    TopRow {
        seconds: secs.unwrap_or(0.0),
        time_source: "since load",
        reads,
        hits,
        iohits: if cur.has("iohits") {
            rate(&["iohits"])
        } else {
            None
        },
        misses: rate(&["misses"]),
        hit_pct: match (hits, reads) {
            (Some(h), Some(r)) if r > 0.0 => Some(100.0 * h / r),
            _ => None,
        },
        demand_misses: rate(DEMAND_MISSES),
        prefetch_misses: rate(PREFETCH_MISSES),
        size,
        c,
        avail: split_avail(avail).0,
        avail_implausible: split_avail(avail).1,
        resets: Vec::new(),
        reloaded: false,
    }
}
