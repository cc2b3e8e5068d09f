//! What a run gives: its counters ([`RunResult`]), its time series
//! ([`Point`]) and what the series says — the ARC's sizes after the warm-up
//! and what it gave back when the other processes' memory rose
//! ([`giveback`]).

use super::device;
use arclab_arc::model::ArcStats;

/// The state of the run at one instant (bytes of the full-size host).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Point {
    /// Simulated time.
    pub t_ns: u64,
    /// ARC `size` (baselines: occupied bytes).
    pub size_bytes: u64,
    /// ARC target `c` (baselines: capacity).
    pub c_bytes: u64,
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
    /// Demand misses after the warm-up (estimated when sampled): demand
    /// reads that went to the disk, as arcstat's `dmis` counts them (a
    /// demand read of a block a prefetch is still reading is not one).
    pub n_miss: u64,
    /// `n_req − n_miss` (writes count as hits for the ZFS model).
    pub hits: u64,
    /// Simulated time of the whole run (up to the last request).
    pub duration_ns: u64,
    /// The warm-up left out of the counters.
    pub warmup_ns: u64,
    /// `hits / n_req`.
    pub hit_ratio: f64,
    /// Demand misses per second of measured (post-warm-up) time.
    pub misses_per_sec: f64,
    /// Missed bytes per second of measured time.
    pub miss_bytes_per_sec: f64,
    /// Prefetch reads that missed the ARC per second of measured time (ZFS
    /// model with prefetch on; 0 otherwise): each one is a disk read too.
    pub prefetch_reads_per_sec: f64,
    /// Every read sent to the pool per second of measured time: the demand
    /// misses plus the prefetch reads that missed the ARC.
    pub disk_reads_per_sec: f64,
    /// Their bytes per second.
    pub disk_bytes_per_sec: f64,
    /// The prefetch reads as runs of consecutive blocks of one file and
    /// level (what the pool can merge, [`device::Device::ios_per_sec`]).
    pub prefetch_runs: Vec<device::ReadRun>,
    /// Mean of the series' sizes after the warm-up.
    pub mean_size_bytes: f64,
    /// Median of the series' sizes after the warm-up (the upper one of an
    /// even count).
    pub median_size_bytes: u64,
    /// Largest series size after the warm-up.
    pub peak_size_bytes: u64,
    /// Smallest target `c` in the series after the warm-up.
    pub min_c_bytes: u64,
    /// The share of the series' points after the warm-up whose size is
    /// more than 1 % above `c_max`: the ARC over its cap by more than the
    /// overflow it allows itself (`c >> zfs_arc_overflow_shift`, 0.4 %).
    pub above_cap_fraction: f64,
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
    /// Independent samples averaged into this result (1: one run).
    pub seeds: u32,
    /// The lowest and highest `hit_ratio` among the samples, when several.
    pub hit_ratio_range: Option<(f64, f64)>,
    /// The lowest and highest `misses_per_sec` among the samples, when several.
    pub misses_per_sec_range: Option<(f64, f64)>,
}

impl RunResult {
    /// The mean of independent samples of one run (the same spec with other
    /// sample salts): every rate, ratio and size is the mean of theirs, the
    /// counts are rounded means, and the spread of the hit ratio and of the
    /// misses per second is kept. What is not a number to average (the
    /// series, the give-backs, the arcstats, the prefetch reads' runs) is
    /// the first sample's.
    ///
    /// # Panics
    /// On an empty slice.
    pub fn mean_of(runs: &[RunResult]) -> RunResult {
        let first = runs.first().expect("at least one sample");
        let k = runs.len() as f64;
        let mean = |f: fn(&RunResult) -> f64| runs.iter().map(f).sum::<f64>() / k;
        let mean_u = |f: fn(&RunResult) -> u64| {
            (runs.iter().map(|r| f(r) as f64).sum::<f64>() / k).round() as u64
        };
        let range = |f: fn(&RunResult) -> f64| {
            runs.iter()
                .map(f)
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
                    (lo.min(x), hi.max(x))
                })
        };
        let n_miss = mean_u(|r| r.n_miss).min(first.n_req);
        RunResult {
            n_miss,
            hits: first.n_req - n_miss,
            hit_ratio: mean(|r| r.hit_ratio),
            misses_per_sec: mean(|r| r.misses_per_sec),
            miss_bytes_per_sec: mean(|r| r.miss_bytes_per_sec),
            prefetch_reads_per_sec: mean(|r| r.prefetch_reads_per_sec),
            disk_reads_per_sec: mean(|r| r.disk_reads_per_sec),
            disk_bytes_per_sec: mean(|r| r.disk_bytes_per_sec),
            mean_size_bytes: mean(|r| r.mean_size_bytes),
            median_size_bytes: mean_u(|r| r.median_size_bytes),
            peak_size_bytes: mean_u(|r| r.peak_size_bytes),
            min_c_bytes: mean_u(|r| r.min_c_bytes),
            above_cap_fraction: mean(|r| r.above_cap_fraction),
            pressure_deficit_byte_seconds: mean(|r| r.pressure_deficit_byte_seconds),
            seeds: runs.iter().map(|r| r.seeds).sum(),
            hit_ratio_range: (runs.len() > 1).then(|| range(|r| r.hit_ratio)),
            misses_per_sec_range: (runs.len() > 1).then(|| range(|r| r.misses_per_sec)),
            ..first.clone()
        }
    }
}

/// The ARC's size and target over the series points after the warm-up.
pub(super) struct SizeStats {
    pub(super) mean: f64,
    pub(super) median: u64,
    pub(super) peak: u64,
    pub(super) min_c: u64,
    pub(super) above_cap: f64,
}

impl SizeStats {
    /// Of the points from `warm_ns` on (the last point's size as the mean
    /// when there are none); "above the cap" is more than 1 % above `c_max`.
    pub(super) fn of(series: &[Point], warm_ns: u64, c_max: u64) -> SizeStats {
        let after: Vec<&Point> = series.iter().filter(|p| p.t_ns >= warm_ns).collect();
        let n = after.len();
        let mut sizes: Vec<u64> = after.iter().map(|p| p.size_bytes).collect();
        sizes.sort_unstable();
        let peak = sizes.last().copied().unwrap_or(0);
        let over = c_max + c_max / 100;
        SizeStats {
            mean: if n == 0 {
                series.last().map_or(0.0, |p| p.size_bytes as f64)
            } else {
                sizes.iter().map(|&s| s as f64).sum::<f64>() / n as f64
            },
            median: sizes.get(n / 2).copied().unwrap_or(peak),
            peak,
            min_c: after.iter().map(|p| p.c_bytes).min().unwrap_or(0),
            above_cap: if n == 0 {
                0.0
            } else {
                sizes.iter().filter(|&&s| s > over).count() as f64 / n as f64
            },
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn pt(t: u64, size: u64, c: u64) -> Point {
        Point {
            t_ns: t,
            size_bytes: size,
            c_bytes: c,
            ..Point::default()
        }
    }

    /// Mean, median (the upper middle), peak, lowest c and the share more
    /// than 1 % above the cap, over the points after the warm-up.
    #[test]
    fn size_stats_count_after_the_warm_up() {
        let s = [
            pt(0, 500, 50),
            pt(10, 100, 100),
            pt(20, 102, 90),
            pt(30, 300, 100),
            pt(40, 101, 100),
        ];
        let st = SizeStats::of(&s, 10, 100);
        assert_eq!(st.mean, 150.75);
        assert_eq!((st.median, st.peak, st.min_c), (102, 300, 90));
        // 102 and 300 are above 101; 101 is not.
        assert_eq!(st.above_cap, 0.5);
        let none = SizeStats::of(&s, 99, 100);
        assert_eq!(
            (none.mean, none.median, none.peak, none.above_cap),
            (101.0, 0, 0, 0.0)
        );
    }
}

#[cfg(test)]
mod mean_of_tests {
    use super::*;

    fn run(hit_ratio: f64, misses_per_sec: f64, n_miss: u64, peak: u64) -> RunResult {
        RunResult {
            n_req: 1000,
            n_miss,
            hits: 1000 - n_miss,
            hit_ratio,
            misses_per_sec,
            peak_size_bytes: peak,
            seeds: 1,
            label: "x".into(),
            ..RunResult::default()
        }
    }

    #[test]
    fn the_mean_of_samples_keeps_their_spread() {
        let m = RunResult::mean_of(&[
            run(0.8, 30.0, 200, 100),
            run(0.9, 10.0, 100, 200),
            run(0.7, 50.0, 301, 301),
        ]);
        assert!((m.hit_ratio - 0.8).abs() < 1e-12);
        assert!((m.misses_per_sec - 30.0).abs() < 1e-12);
        assert_eq!((m.n_miss, m.hits, m.peak_size_bytes), (200, 800, 200));
        assert_eq!(m.seeds, 3);
        assert_eq!(m.hit_ratio_range, Some((0.7, 0.9)));
        assert_eq!(m.misses_per_sec_range, Some((10.0, 50.0)));
        assert_eq!(m.label, "x");
        let one = RunResult::mean_of(&[run(0.8, 30.0, 200, 100)]);
        assert_eq!((one.seeds, one.hit_ratio_range), (1, None));
    }
}
