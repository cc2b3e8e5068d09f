//! Events worth showing as they happen: `c` falling, `arc_no_grow`, memory
//! throttle, `zfs_arc_max` changed, resets and missed intervals.

use arclab_arc::units::format_bytes;

use super::*;

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
