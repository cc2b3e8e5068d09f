//! Generated data shaped like the blog post's host, for tests, docs and
//! benches: 21 days at 5-minute steps of node_exporter's Linux ARC metrics.
//!
//! * before (2025-09-11 .. 2025-09-21): median size 8.4 GiB, peaks 15 GiB,
//!   22,000 hits/s, 20 misses/s, `c_max` 30.24 GiB;
//! * the change on 2025-09-21 14:00 UTC (`zfs_arc_max=8G`), with a reboot
//!   (counter reset) at 15:00 that day;
//! * after (2025-09-22 .. 2025-10-02): the same median, peaks 11 GiB (4 GiB
//!   lower), 22,000 hits/s, 297 misses/s, `c_max` 8 GiB, `c` in 6.3–8 GiB.
//!
//! Per-interval increments follow a daily cycle with noise, then are scaled so
//! each window's rate is exactly the stated one: the post's figures follow
//! from its inputs (22,000 / (22,000 + 297) = 98.67 %, 297 / 20 = 14.85).
//!
//! ```
//! use arclab_metrics::synth;
//! let d = synth::blog("nas:9100");
//! assert!(d.series.iter().any(|s| s.name() == "node_zfs_arc_misses"));
//! assert_eq!(d.changes[0].what, "zfs_arc_max=8G");
//! ```

use crate::series::{ChangeMarker, Dataset, Labels, Series};

/// 2025-09-11T00:00:00Z.
pub const T0: f64 = 1_757_548_800.0;
/// One day in seconds.
pub const DAY: f64 = 86_400.0;
/// Sample step (5 minutes).
pub const STEP: f64 = 300.0;
/// The blog's before window.
pub const BEFORE: &str = "2025-09-11..2025-09-21";
/// The blog's after window (the change day skipped).
pub const AFTER: &str = "2025-09-22..2025-10-02";
/// When the cap was applied.
pub const CHANGE_AT: f64 = T0 + 10.0 * DAY + 14.0 * 3600.0;
const GIB: f64 = 1_073_741_824.0;

/// A small deterministic PRNG (xorshift64*, Vigna 2016), uniform in [0, 1).
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// Seeded generator (seed 0 is replaced).
    pub fn new(seed: u64) -> Self {
        Rng(seed.max(1))
    }

    /// Next value in [0, 1).
    pub fn next_f64(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn labels(name: &str, instance: &str) -> Labels {
    [("__name__", name), ("instance", instance), ("job", "node")]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn times() -> Vec<f64> {
    (0..=(21.0 * DAY / STEP) as usize)
        .map(|i| T0 + i as f64 * STEP)
        .collect()
}

fn window_of(t_end: f64) -> Option<usize> {
    // Windows are [start, end): intervals ending before the end count.
    if t_end > T0 && t_end < T0 + 10.0 * DAY {
        Some(0)
    } else if t_end > T0 + 11.0 * DAY && t_end < T0 + 21.0 * DAY {
        Some(1)
    } else {
        None
    }
}

/// A counter whose per-second rate is exactly `rates[w]` over window `w`
/// (before, after) with a daily cycle and noise, and `transition` on the change day.
fn counter(rng: &mut Rng, rates: [f64; 2], transition: f64, start: f64) -> Vec<f64> {
    let ts = times();
    let mut inc: Vec<f64> = vec![0.0; ts.len()];
    let mut sums = [0.0; 2];
    for i in 1..ts.len() {
        let phase = (ts[i] % DAY) / DAY * std::f64::consts::TAU;
        let shape = 1.0 + 0.3 * phase.sin() + 0.2 * (rng.next_f64() - 0.5);
        let rate = window_of(ts[i]).map_or(
            if ts[i] < CHANGE_AT {
                rates[0]
            } else {
                transition
            },
            |w| rates[w],
        );
        inc[i] = rate * STEP * shape;
        if let Some(w) = window_of(ts[i]) {
            sums[w] += inc[i];
        }
    }
    for i in 1..ts.len() {
        if let Some(w) = window_of(ts[i]) {
            inc[i] *= rates[w] * (10.0 * DAY - STEP) / sums[w];
        }
    }
    let reboot = T0 + 10.0 * DAY + 15.0 * 3600.0;
    let mut v = start;
    ts.iter()
        .zip(&inc)
        .map(|(t, d)| {
            v = if *t == reboot { 0.0 } else { v + d.round() };
            v
        })
        .collect()
}

/// The size gauge: median `median`, a daily swing, nightly bursts peaking at `peak`.
fn size(rng: &mut Rng, median: [f64; 2], peak: [f64; 2]) -> Vec<f64> {
    times()
        .iter()
        .map(|t| {
            let w = usize::from(*t >= CHANGE_AT);
            let phase = (t % DAY) / DAY * std::f64::consts::TAU;
            let base = median[w] + 0.5 * GIB * phase.sin() + 0.2 * GIB * (rng.next_f64() - 0.5);
            // A burst on three nights per window: 02:00–03:00, triangle up to the peak.
            let day = ((t - T0) / DAY).floor() as i64;
            let into = t % DAY - 2.0 * 3600.0;
            if day % 3 == 1 && (0.0..=3600.0).contains(&into) {
                let tri = 1.0 - (into - 1800.0).abs() / 1800.0;
                base.max(median[w] + tri * (peak[w] - median[w]))
            } else {
                base
            }
            .round()
        })
        .collect()
}

/// The blog host's series for `instance`, with the change marker.
pub fn blog(instance: &str) -> Dataset {
    let mut rng = Rng::new(0x5eed ^ instance.len() as u64);
    let mut series = Vec::new();
    let mut push = |name: &str, values: Vec<f64>| {
        let points = times().into_iter().zip(values).collect();
        series.push(Series {
            labels: labels(name, instance),
            points,
        });
    };
    // Components: demand data, demand metadata, prefetch data, prefetch metadata.
    let hit_parts = [
        [18_000.0, 18_000.0],
        [3_000.0, 3_000.0],
        [900.0, 900.0],
        [100.0, 100.0],
    ];
    let miss_parts = [[12.0, 200.0], [3.0, 50.0], [4.0, 40.0], [1.0, 7.0]];
    let names = [
        "demand_data",
        "demand_metadata",
        "prefetch_data",
        "prefetch_metadata",
    ];
    let mut hits_total = vec![0.0; times().len()];
    let mut misses_total = vec![0.0; times().len()];
    for (i, n) in names.iter().enumerate() {
        let h = counter(&mut rng, hit_parts[i], hit_parts[i][0], 4e9);
        let m = counter(&mut rng, miss_parts[i], miss_parts[i][1], 4e6);
        hits_total.iter_mut().zip(&h).for_each(|(a, b)| *a += b);
        misses_total.iter_mut().zip(&m).for_each(|(a, b)| *a += b);
        push(&format!("node_zfs_arc_{n}_hits"), h);
        push(&format!("node_zfs_arc_{n}_misses"), m);
    }
    push("node_zfs_arc_hits", hits_total);
    push("node_zfs_arc_misses", misses_total);
    push(
        "node_zfs_arc_size",
        size(&mut rng, [8.4 * GIB, 8.4 * GIB], [15.0 * GIB, 11.0 * GIB]),
    );
    let c: Vec<f64> = times()
        .iter()
        .map(|t| {
            let phase = (t % DAY) / DAY * std::f64::consts::TAU;
            if *t >= CHANGE_AT {
                (7.15 + 0.85 * phase.sin()) * GIB
            } else {
                (9.0 + 1.5 * phase.sin()) * GIB
            }
            .round()
        })
        .collect();
    push("node_zfs_arc_c", c);
    push(
        "node_zfs_arc_c_max",
        times()
            .iter()
            .map(|t| {
                if *t >= CHANGE_AT {
                    8.0 * GIB
                } else {
                    (30.24 * GIB).round()
                }
            })
            .collect(),
    );
    Dataset {
        series,
        metadata: Default::default(),
        changes: vec![ChangeMarker {
            time: CHANGE_AT,
            what: "zfs_arc_max=8G".into(),
        }],
    }
}
