//! What one series did inside one window: summary statistics plus per-batch
//! values for the uncertainty.

use crate::series::Kind;
use crate::stats::{self, BatchEstimate, CounterIncrease, GaugeSummary};
use crate::time::Window;
use serde::Serialize;

/// Per-batch sums: for counters the increase and the seconds it covers, for
/// gauges the sum and count of samples.
#[derive(Debug, Clone, Default)]
pub(crate) struct Batches {
    pub(crate) num: Vec<f64>,
    pub(crate) den: Vec<f64>,
}

impl Batches {
    pub(crate) fn new(k: usize) -> Self {
        Batches {
            num: vec![0.0; k],
            den: vec![0.0; k],
        }
    }

    /// Per-batch values `num/den` (batches without data dropped).
    pub(crate) fn values(&self) -> Vec<f64> {
        self.num
            .iter()
            .zip(&self.den)
            .filter(|(_, d)| **d > 0.0)
            .map(|(n, d)| n / d)
            .collect()
    }

    /// Element-wise sum (fleet totals); a batch missing in either is dropped.
    pub(crate) fn add_rates(&mut self, other: &Batches) {
        for i in 0..self.num.len().min(other.num.len()) {
            if self.den[i] > 0.0 && other.den[i] > 0.0 {
                let sum = self.num[i] / self.den[i] + other.num[i] / other.den[i];
                self.num[i] = sum;
                self.den[i] = 1.0;
            } else {
                self.den[i] = 0.0;
            }
        }
    }
}

/// Statistics of one series in one window.
#[derive(Debug, Clone, Default, Serialize)]
pub struct WindowStats {
    /// Finite samples inside the window.
    pub n: usize,
    /// Samples inside the window that were NaN or ±Inf (dropped).
    #[serde(skip_serializing_if = "is_zero")]
    pub non_finite: usize,
    /// First sample time inside the window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first: Option<f64>,
    /// Last sample time inside the window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last: Option<f64>,
    /// Gauge and high-water summary.
    #[serde(skip_serializing_if = "Option::is_none", flatten)]
    pub gauge: Option<GaugeSummary>,
    /// Counter: per-second rate (sum of step increases / span).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate: Option<f64>,
    /// Counter: total increase.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub increase: Option<f64>,
    /// Counter: resets seen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resets: Option<usize>,
    /// Longest interval between two samples, seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub longest_gap: Option<f64>,
    /// Median interval between samples, seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub median_step: Option<f64>,
    /// Batch-means estimate of the tested statistic (gauge mean, counter rate).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimate: Option<BatchEstimate>,
    #[serde(skip)]
    pub(crate) batches: Batches,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl WindowStats {
    /// The tested value: mean for gauges, rate for counters.
    pub fn value(&self) -> Option<f64> {
        self.rate.or(self.gauge.map(|g| g.mean))
    }
}

/// Which batch a time falls in (`k` equal slices of the window).
pub(crate) fn batch_of(w: &Window, t: f64, k: usize) -> usize {
    let f = ((t - w.start) / w.len() * k as f64).floor();
    (f.max(0.0) as usize).min(k - 1)
}

/// Compute the statistics of `points` (sorted) restricted to `w` (`[start, end)`).
pub(crate) fn window_stats(points: &[(f64, f64)], w: &Window, kind: Kind, k: usize) -> WindowStats {
    let lo = points.partition_point(|p| p.0 < w.start);
    let hi = points.partition_point(|p| p.0 < w.end);
    let inside = &points[lo..hi];
    let finite: Vec<(f64, f64)> = inside.iter().copied().filter(|p| p.1.is_finite()).collect();
    let mut out = WindowStats {
        n: finite.len(),
        non_finite: inside.len() - finite.len(),
        first: finite.first().map(|p| p.0),
        last: finite.last().map(|p| p.0),
        batches: Batches::new(k),
        ..WindowStats::default()
    };
    let mut steps: Vec<f64> = finite.windows(2).map(|p| p[1].0 - p[0].0).collect();
    out.longest_gap = steps.iter().copied().reduce(f64::max);
    if !steps.is_empty() {
        // The lower median is enough to judge gaps; selection is O(n).
        let mid = (steps.len() - 1) / 2;
        out.median_step = Some(*steps.select_nth_unstable_by(mid, f64::total_cmp).1);
    }
    match kind {
        Kind::Counter => {
            let inc: CounterIncrease = stats::counter_increase(&finite);
            for p in finite.windows(2) {
                let (d, _) = stats::counter_step(p[0].1, p[1].1);
                let b = batch_of(w, p[1].0, k);
                out.batches.num[b] += d;
                out.batches.den[b] += p[1].0 - p[0].0;
            }
            out.rate = inc.rate();
            out.increase = (inc.n >= 2).then_some(inc.increase);
            out.resets = Some(inc.resets);
        }
        Kind::Gauge | Kind::HighWater => {
            let vals: Vec<f64> = finite.iter().map(|p| p.1).collect();
            out.gauge = stats::summarize_gauge(&vals);
            for p in &finite {
                let b = batch_of(w, p.0, k);
                out.batches.num[b] += p.1;
                out.batches.den[b] += 1.0;
            }
        }
    }
    if out.value().is_some() {
        out.estimate = stats::batch_estimate(&out.batches.values());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counter_window_with_reset_and_nan() {
        let w = Window::new(0.0, 101.0).unwrap();
        let pts: Vec<(f64, f64)> = vec![
            (-10.0, 0.0),
            (0.0, 100.0),
            (25.0, 125.0),
            (50.0, f64::NAN),
            (75.0, 10.0),
            (100.0, 35.0),
            (110.0, 1e9),
        ];
        let s = window_stats(&pts, &w, Kind::Counter, 4);
        assert_eq!((s.n, s.non_finite, s.resets), (4, 1, Some(1)));
        assert_eq!(s.increase, Some(25.0 + 10.0 + 25.0));
        assert_eq!(s.rate, Some(0.6));
        assert_eq!(s.longest_gap, Some(50.0));
        assert_eq!(s.estimate.unwrap().batches, 3);
    }

    #[test]
    fn empty_and_single() {
        let w = Window::new(0.0, 10.0).unwrap();
        let e = window_stats(&[], &w, Kind::Gauge, 5);
        assert_eq!((e.n, e.value(), e.estimate.is_none()), (0, None, true));
        let one = window_stats(&[(5.0, 3.0)], &w, Kind::Counter, 5);
        assert_eq!((one.n, one.rate), (1, None));
        let g = window_stats(&[(5.0, 3.0)], &w, Kind::Gauge, 5);
        assert_eq!(g.value(), Some(3.0));
    }
}
