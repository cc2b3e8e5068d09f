//! Statistics as small pure functions, each with its reference and its edge
//! cases (empty input, one sample, all equal, a counter reset at the first
//! sample). Nothing here allocates more than a sort buffer or panics.
//!
//! ```
//! use arclab_metrics::stats::{counter_increase, quantile, mean};
//! // A counter that restarts from 0 between the 2nd and 3rd samples.
//! let pts = [(0.0, 100.0), (10.0, 150.0), (20.0, 30.0), (30.0, 80.0)];
//! let inc = counter_increase(&pts);
//! assert_eq!((inc.increase, inc.resets, inc.span), (130.0, 1, 30.0));
//! assert_eq!(inc.rate(), Some(130.0 / 30.0));
//! assert_eq!(quantile(&[1.0, 2.0, 3.0, 4.0], 0.5), Some(2.5));
//! assert_eq!(mean(&[]), None);
//! ```

use serde::{Deserialize, Serialize};

/// Arithmetic mean; `None` when empty. NaN inputs propagate (filter them first).
pub fn mean(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    Some(xs.iter().sum::<f64>() / xs.len() as f64)
}

/// Unbiased sample variance (divisor n − 1); `None` below two values.
pub fn variance(xs: &[f64]) -> Option<f64> {
    if xs.len() < 2 {
        return None;
    }
    let m = mean(xs)?;
    Some(xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (xs.len() - 1) as f64)
}

/// Quantile `q` in `[0, 1]` of **sorted** data by linear interpolation between
/// order statistics: Hyndman & Fan (1996) type 7, the default of R's
/// `quantile()` and NumPy's `percentile()`. `None` when empty or `q` is out of
/// range; one value is every quantile of itself.
pub fn quantile(sorted: &[f64], q: f64) -> Option<f64> {
    if sorted.is_empty() || !(0.0..=1.0).contains(&q) {
        return None;
    }
    let h = (sorted.len() - 1) as f64 * q;
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(sorted.len() - 1);
    Some(sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo]))
}

/// What a gauge did in a window.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct GaugeSummary {
    /// Samples used (NaN and ±Inf are dropped).
    pub n: usize,
    /// Mean.
    pub mean: f64,
    /// Median (type 7).
    pub p50: f64,
    /// 95th percentile (type 7).
    pub p95: f64,
    /// 99th percentile (type 7).
    pub p99: f64,
    /// Smallest sample.
    pub min: f64,
    /// Largest sample.
    pub max: f64,
}

/// Mean, percentiles and extremes of the finite values; `None` when there are none.
pub fn summarize_gauge(values: &[f64]) -> Option<GaugeSummary> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    Some(GaugeSummary {
        n: v.len(),
        mean: mean(&v)?,
        p50: quantile(&v, 0.50)?,
        p95: quantile(&v, 0.95)?,
        p99: quantile(&v, 0.99)?,
        min: v[0],
        max: v[v.len() - 1],
    })
}

/// The increase of a counter over a run of samples.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct CounterIncrease {
    /// Total increase, resets handled as below.
    pub increase: f64,
    /// Seconds from the first to the last sample.
    pub span: f64,
    /// Number of drops (counter resets) seen.
    pub resets: usize,
    /// Samples used.
    pub n: usize,
}

impl CounterIncrease {
    /// Per-second rate: increase / span; `None` below two samples or for a zero span.
    pub fn rate(&self) -> Option<f64> {
        (self.n >= 2 && self.span > 0.0).then(|| self.increase / self.span)
    }
}

/// The increase of one step of a counter from `prev` to `cur`, and whether it
/// was a reset. A drop is a restart from zero, so the step adds `cur`: the
/// rule of Prometheus' `extrapolatedRate` (promql/functions.go) and
/// VictoriaMetrics' `increase`; whatever was counted between the last sample
/// before the reset and the reset itself is lost by every method.
pub fn counter_step(prev: f64, cur: f64) -> (f64, bool) {
    if cur < prev {
        (cur.max(0.0), true)
    } else {
        (cur - prev, false)
    }
}

/// Sum of the step increases of `(t, v)` samples sorted by time (non-finite
/// values skipped), the span they cover and the resets seen. Without resets
/// this is `last − first`; with them it differs from the blog's
/// `max(b − a, 0)` only by counting the post-reset value. A reset at the first
/// pair is counted like any other. Empty and one-sample inputs give zero span.
pub fn counter_increase(points: &[(f64, f64)]) -> CounterIncrease {
    let mut out = CounterIncrease::default();
    let mut prev: Option<(f64, f64)> = None;
    for &(t, v) in points
        .iter()
        .filter(|(t, v)| t.is_finite() && v.is_finite())
    {
        out.n += 1;
        if let Some((t0, v0)) = prev {
            let (inc, reset) = counter_step(v0, v);
            out.increase += inc;
            out.resets += usize::from(reset);
            out.span += t - t0;
        }
        prev = Some((t, v));
    }
    out
}

/// Lag-1 sample autocorrelation `r1 = Σ(x_t − x̄)(x_{t+1} − x̄) / Σ(x_t − x̄)²`
/// (Box & Jenkins, *Time Series Analysis*, eq. 2.1.12). `None` below three
/// values or when all are equal.
pub fn lag1_autocorrelation(xs: &[f64]) -> Option<f64> {
    if xs.len() < 3 {
        return None;
    }
    let m = mean(xs)?;
    let den: f64 = xs.iter().map(|x| (x - m) * (x - m)).sum();
    if den <= 0.0 {
        return None;
    }
    let num: f64 = xs.windows(2).map(|w| (w[0] - m) * (w[1] - m)).sum();
    Some(num / den)
}

/// Natural log of the gamma function, Lanczos approximation (g = 7, n = 9),
/// as in Press et al., *Numerical Recipes* (3rd ed.) §6.1; accurate to ~1e-15.
pub fn ln_gamma(x: f64) -> f64 {
    const G: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection: Γ(x)Γ(1−x) = π / sin(πx).
        return (std::f64::consts::PI / (std::f64::consts::PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = G[0];
    let t = x + 7.5;
    for (i, g) in G.iter().enumerate().skip(1) {
        a += g / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// Regularized incomplete beta `I_x(a, b)` by Lentz's continued fraction
/// (Numerical Recipes §6.4; Abramowitz & Stegun 26.5.8).
pub fn inc_beta(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let ln_front = ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln();
    if x > (a + 1.0) / (a + b + 2.0) {
        return 1.0 - inc_beta(b, a, 1.0 - x);
    }
    let tiny = 1e-300;
    let (mut c, mut d) = (1.0, 1.0 - (a + b) * x / (a + 1.0));
    d = 1.0 / if d.abs() < tiny { tiny } else { d };
    let mut f = d;
    for m in 1..300 {
        let m = f64::from(m);
        for num in [
            m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0)),
        ] {
            d = 1.0 + num * d;
            d = 1.0 / if d.abs() < tiny { tiny } else { d };
            c = 1.0 + num / c;
            if c.abs() < tiny {
                c = tiny;
            }
            f *= c * d;
        }
        if (c * d - 1.0).abs() < 1e-15 {
            break;
        }
    }
    ln_front.exp() * f / a
}

/// Two-sided p-value of Student's t with `df` degrees of freedom:
/// `P(|T| ≥ |t|) = I_{df/(df+t²)}(df/2, 1/2)` (A&S 26.7.1).
pub fn t_two_sided_p(t: f64, df: f64) -> f64 {
    if t.is_nan() || df.is_nan() || df <= 0.0 {
        return f64::NAN;
    }
    if t.is_infinite() {
        return 0.0;
    }
    inc_beta(df / 2.0, 0.5, df / (df + t * t)).clamp(0.0, 1.0)
}

/// The `t` with two-sided tail probability `p` (e.g. 0.05 → 1.96 for large
/// df), by bisection on [`t_two_sided_p`].
pub fn t_critical(p: f64, df: f64) -> f64 {
    let (mut lo, mut hi) = (0.0, 1e3);
    // 64 halvings of [0, 1000] reach below 1e-16 absolute.
    for _ in 0..64 {
        let mid = 0.5 * (lo + hi);
        if t_two_sided_p(mid, df) > p {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// An estimate from batch means: the window's value, its standard error from
/// the spread of the batch values, and how correlated the batches still are.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BatchEstimate {
    /// Mean of the batch values.
    pub mean: f64,
    /// Standard error `s / √k` over the k batch values (non-overlapping batch
    /// means, Schmeiser 1982, "Batch size effects in the analysis of
    /// simulation output", Oper. Res. 30(3)). NaN below two batches.
    pub se: f64,
    /// Number of batches.
    pub batches: usize,
    /// Lag-1 autocorrelation of the batch values, if computable; near zero
    /// means the batches are long enough to be treated as independent.
    pub lag1: Option<f64>,
}

/// Batch-means estimate over per-batch values (non-finite ones dropped).
pub fn batch_estimate(batch_values: &[f64]) -> Option<BatchEstimate> {
    let v: Vec<f64> = batch_values
        .iter()
        .copied()
        .filter(|x| x.is_finite())
        .collect();
    let m = mean(&v)?;
    let se = variance(&v).map_or(f64::NAN, |var| (var / v.len() as f64).sqrt());
    Some(BatchEstimate {
        mean: m,
        se,
        batches: v.len(),
        lag1: lag1_autocorrelation(&v),
    })
}

/// The relative change after/before with its uncertainty.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Change {
    /// `after / before` of the point estimates.
    pub ratio: f64,
    /// Half-width of the 95 % confidence interval of `ratio` (delta method,
    /// independent windows: `σ_r = r·√((se_a/a)² + (se_b/b)²)`, as hyperfine's
    /// relative speed); NaN when unknown.
    pub ratio_ci95: f64,
    /// Two-sided p-value of Welch's t-test on the batch values (Welch 1947,
    /// Welch–Satterthwaite degrees of freedom); NaN when it cannot be computed.
    pub p: f64,
}

impl Change {
    /// Whether the change is significant at level `alpha`.
    pub fn significant(&self, alpha: f64) -> bool {
        self.p.is_finite() && self.p <= alpha
    }
}

/// Compare two batch estimates. Windows whose batches are all equal have no
/// spread: equal means give p = 1, different means p = 0.
pub fn compare_batches(before: &BatchEstimate, after: &BatchEstimate) -> Change {
    let ratio = after.mean / before.mean;
    let rel = ((before.se / before.mean).powi(2) + (after.se / after.mean).powi(2)).sqrt();
    let (va, vb) = (before.se * before.se, after.se * after.se);
    let p = if before.batches < 2 || after.batches < 2 {
        f64::NAN
    } else if va + vb == 0.0 {
        if before.mean == after.mean { 1.0 } else { 0.0 }
    } else {
        let t = (after.mean - before.mean) / (va + vb).sqrt();
        let df = (va + vb).powi(2)
            / (va * va / (before.batches - 1) as f64 + vb * vb / (after.batches - 1) as f64);
        t_two_sided_p(t, df)
    };
    let df = (before.batches + after.batches).saturating_sub(2).max(1) as f64;
    let ratio_ci95 = if ratio.is_finite() && rel.is_finite() {
        ratio.abs() * rel * t_critical(0.05, df)
    } else {
        f64::NAN
    };
    Change {
        ratio,
        ratio_ci95,
        p,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn quantiles_match_r_type7() {
        // R: quantile(c(1,2,3,4,10), c(.5,.95,.99)) → 3, 8.8, 9.76
        let v = [1.0, 2.0, 3.0, 4.0, 10.0];
        assert_eq!(quantile(&v, 0.5), Some(3.0));
        assert!(close(quantile(&v, 0.95).unwrap(), 8.8, 1e-12));
        assert!(close(quantile(&v, 0.99).unwrap(), 9.76, 1e-12));
        assert_eq!(quantile(&[], 0.5), None);
        assert_eq!(quantile(&[7.0], 0.99), Some(7.0));
        assert_eq!(quantile(&v, 1.5), None);
    }

    #[test]
    fn gauge_edges() {
        assert_eq!(summarize_gauge(&[]), None);
        assert_eq!(summarize_gauge(&[f64::NAN]), None);
        let one = summarize_gauge(&[5.0]).unwrap();
        assert_eq!(
            (one.mean, one.p50, one.p99, one.max, one.n),
            (5.0, 5.0, 5.0, 5.0, 1)
        );
        let eq = summarize_gauge(&[2.0; 10]).unwrap();
        assert_eq!((eq.mean, eq.p95, eq.min), (2.0, 2.0, 2.0));
        let nan = summarize_gauge(&[1.0, f64::NAN, 3.0, f64::INFINITY]).unwrap();
        assert_eq!((nan.n, nan.mean), (2, 2.0));
    }

    #[test]
    fn counter_edges() {
        let e = counter_increase(&[]);
        assert_eq!((e.n, e.rate()), (0, None));
        let one = counter_increase(&[(5.0, 10.0)]);
        assert_eq!((one.n, one.span, one.rate()), (1, 0.0, None));
        let flat = counter_increase(&[(0.0, 3.0), (10.0, 3.0), (20.0, 3.0)]);
        assert_eq!((flat.rate(), flat.resets), (Some(0.0), 0));
        // Reset at the first pair: 100 → 5 counts 5, then +5.
        let r = counter_increase(&[(0.0, 100.0), (10.0, 5.0), (20.0, 10.0)]);
        assert_eq!((r.increase, r.resets, r.span), (10.0, 1, 20.0));
        // NaN samples are skipped, not treated as resets.
        let n = counter_increase(&[(0.0, 1.0), (10.0, f64::NAN), (20.0, 21.0)]);
        assert_eq!((n.increase, n.resets, n.n), (20.0, 0, 2));
        // The design note's worked example: 1200/s, 240 samples at 15 s, one
        // reset to 0 → 4,284,000 over 3585 s = 1194.979/s.
        let mut pts = Vec::new();
        let mut v = 5_000_000.0;
        for i in 0..240 {
            if i == 120 {
                v = 0.0;
            }
            pts.push((f64::from(i) * 15.0, v));
            v += 18_000.0;
        }
        let c = counter_increase(&pts);
        assert_eq!((c.increase, c.resets), (4_284_000.0, 1));
        assert!(close(c.rate().unwrap(), 1194.979, 1e-3));
    }

    #[test]
    fn autocorrelation() {
        assert_eq!(lag1_autocorrelation(&[1.0, 2.0]), None);
        assert_eq!(lag1_autocorrelation(&[4.0; 5]), None);
        // Alternating series: strongly negative.
        let r = lag1_autocorrelation(&[1.0, -1.0, 1.0, -1.0, 1.0, -1.0]).unwrap();
        assert!(close(r, -5.0 / 6.0, 1e-12));
    }

    #[test]
    fn student_t_reference_values() {
        // R: 2*pt(-2.228139, 10) = 0.05; 2*pt(-1, 1) = 0.5; 2*pt(-1.959964, 1e6) ≈ 0.05
        assert!(close(t_two_sided_p(2.228_139, 10.0), 0.05, 1e-6));
        assert!(close(t_two_sided_p(1.0, 1.0), 0.5, 1e-9));
        assert!(close(t_two_sided_p(1.959_964, 1e6), 0.05, 1e-5));
        assert_eq!(t_two_sided_p(0.0, 5.0), 1.0);
        assert!(close(t_critical(0.05, 10.0), 2.228_139, 1e-5));
        assert!(close(ln_gamma(5.0), 24f64.ln(), 1e-12));
        assert!(close(
            ln_gamma(0.5),
            std::f64::consts::PI.sqrt().ln(),
            1e-12
        ));
    }

    #[test]
    fn batches_and_changes() {
        assert!(batch_estimate(&[]).is_none());
        let one = batch_estimate(&[3.0]).unwrap();
        assert!(one.se.is_nan());
        let a = batch_estimate(&[10.0, 11.0, 9.0, 10.0, 10.5, 9.5]).unwrap();
        let b = batch_estimate(&[20.0, 21.0, 19.0, 20.0, 20.5, 19.5]).unwrap();
        let c = compare_batches(&a, &b);
        assert!(close(c.ratio, 2.0, 1e-12) && c.significant(0.05));
        let same = compare_batches(&a, &a);
        assert!(close(same.p, 1.0, 1e-12) && !same.significant(0.05));
        let flat = batch_estimate(&[1.0; 4]).unwrap();
        let flat2 = batch_estimate(&[2.0; 4]).unwrap();
        assert_eq!(compare_batches(&flat, &flat).p, 1.0);
        assert_eq!(compare_batches(&flat, &flat2).p, 0.0);
        assert!(compare_batches(&one, &a).p.is_nan());
    }
}
