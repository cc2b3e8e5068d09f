//! Before/after comparison of two windows of the same series.
//!
//! * Gauges (and high-water marks, never rated): mean, p50, p95, p99, max.
//! * Counters: per-second rate = sum of step increases / span, resets counted
//!   ([`crate::stats::counter_increase`]).
//! * Derived, per instance and for the fleet: hit ratio `hits/(hits+misses)`
//!   as a ratio of window sums (`iohits` excluded, as node_exporter-based
//!   dashboards and the blog do), hits and misses per second, the miss
//!   multiplier `misses/s after ÷ before`, demand against prefetch.
//! * Uncertainty: **batch means** — each window is cut into `batches` equal
//!   slices, the statistic is computed per slice, and the slices are compared
//!   with Welch's t-test; the ± is a 95 % interval of the after/before ratio.
//!   Raw scrape samples are autocorrelated, so testing them directly would
//!   give far too small p-values. A change with p > α prints as `~`.
//!
//! ```
//! use arclab_metrics::compare::{compare, Options};
//! use arclab_metrics::series::{Dataset, Series};
//! use arclab_metrics::time::Window;
//! let counter = |name: &str, per_sec_before: f64, per_sec_after: f64| {
//!     let mut v = 0.0;
//!     let points = (0..=200).map(|i| {
//!         let t = f64::from(i) * 60.0;
//!         let p = (t, v);
//!         v += 60.0 * if i < 100 { per_sec_before } else { per_sec_after };
//!         p
//!     }).collect();
//!     let labels = [("__name__", name), ("instance", "nas")]
//!         .iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
//!     Series { labels, points }
//! };
//! let data = Dataset {
//!     series: vec![counter("node_zfs_arc_hits", 22_000.0, 22_000.0),
//!                  counter("node_zfs_arc_misses", 20.0, 297.0)],
//!     ..Dataset::default()
//! };
//! let opts = Options::new(Window::new(0.0, 6000.0).unwrap(), Window::new(6060.0, 12000.0).unwrap());
//! let c = compare(&data, &opts).unwrap();
//! let d = &c.derived;
//! assert!((d.hit_ratio.after.unwrap() - 22_000.0 / 22_297.0).abs() < 1e-12);
//! assert!((d.miss_multiplier.unwrap() - 14.85).abs() < 1e-9);
//! ```

mod derived;
mod warn;
mod window;

pub use derived::{BeforeAfter, Derived};
pub use window::WindowStats;

use crate::series::{ChangeMarker, Dataset, Kind, KindSource, Series, arc_field, classify};
use crate::stats::{self, Change};
use crate::time::{Window, format_time};
use serde::Serialize;
use std::collections::BTreeMap;

/// Why a comparison cannot be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CompareError {
    /// `--before` does not end before `--after` starts.
    #[error("the before window ({before}) must end before the after window ({after}) starts")]
    WindowOrder {
        /// Before window.
        before: String,
        /// After window.
        after: String,
    },
    /// Neither window holds a single sample.
    #[error(
        "no samples inside the windows: the data covers {data}, the windows are {before} and {after}"
    )]
    NoOverlap {
        /// Data range.
        data: String,
        /// Before window.
        before: String,
        /// After window.
        after: String,
    },
    /// No series has samples in two batches of both windows, so nothing can
    /// be tested.
    #[error(
        "too few samples in the {which} window ({window}): at most {samples} sample(s) per \
         series, in {batches} of {k} batches; each window needs samples in at least 2 batches \
         (the data covers {data}): widen the window or move it onto the data"
    )]
    TooFewSamples {
        /// `before` or `after`.
        which: &'static str,
        /// The window.
        window: String,
        /// Most finite samples of one series in it.
        samples: usize,
        /// Most batches with data of one series in it.
        batches: usize,
        /// Batches per window.
        k: usize,
        /// Data range.
        data: String,
    },
    /// The source holds no series at all.
    #[error("the source holds no series")]
    Empty,
}

/// How to compare.
#[derive(Debug, Clone)]
pub struct Options {
    /// Before window.
    pub before: Window,
    /// After window.
    pub after: Window,
    /// `--counter` / `--gauge` overrides by metric name.
    pub overrides: BTreeMap<String, Kind>,
    /// Significance level (default 0.05).
    pub alpha: f64,
    /// Batches per window; `None` picks whole days for windows of five days
    /// or more (so the daily cycle stays inside each batch), else 20
    /// (Schmeiser 1982 suggests 10–30).
    pub batches: Option<usize>,
    /// The change being measured, if known (excluded from the confounder check).
    pub change: Option<ChangeMarker>,
    /// Keep per-series points for plots ([`SeriesRow::plot`]).
    pub keep_plot: bool,
}

impl Options {
    /// Defaults for two windows.
    pub fn new(before: Window, after: Window) -> Self {
        Options {
            before,
            after,
            overrides: BTreeMap::new(),
            alpha: 0.05,
            batches: None,
            change: None,
            keep_plot: true,
        }
    }
}

/// One series, both windows.
#[derive(Debug, Clone, Serialize)]
pub struct SeriesRow {
    /// Metric name.
    pub name: String,
    /// `instance` label (or `fleet` for a summary row).
    pub instance: String,
    /// Other labels, `k=v,…`.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub labels: String,
    /// Counter, gauge or high-water mark.
    pub kind: Kind,
    /// Where the kind came from.
    pub kind_source: KindSource,
    /// Whether values are bytes (from the field catalogue or a `_bytes` suffix).
    pub bytes: bool,
    /// Before window.
    pub before: WindowStats,
    /// After window.
    pub after: WindowStats,
    /// Change of the tested statistic (gauge mean, counter rate).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change: Option<Change>,
    /// Whether `change` is significant at `alpha`.
    pub significant: bool,
    /// Points used for plots: `(t, value or per-second rate)` over both windows.
    #[serde(skip)]
    pub plot: Vec<(f64, f64)>,
}

/// The whole comparison.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    /// Before window.
    pub before: Window,
    /// After window.
    pub after: Window,
    /// The change measured, if given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change: Option<ChangeMarker>,
    /// How the uncertainty was computed.
    pub method: String,
    /// Significance level.
    pub alpha: f64,
    /// Hit ratio definition.
    pub hit_ratio_definition: &'static str,
    /// Derived values for the one instance, or the fleet total when several.
    pub derived: Derived,
    /// Derived values per instance (several instances only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub instances: Vec<Derived>,
    /// Per-series rows, then fleet summary rows (instance `fleet`).
    pub series: Vec<SeriesRow>,
    /// Warnings about the design and the data.
    pub warnings: Vec<String>,
}

fn is_bytes(name: &str) -> bool {
    if let Some(f) = arc_field(name).and_then(arclab_zfs::catalog::field) {
        return f.unit == arclab_zfs::catalog::Unit::Bytes;
    }
    name.ends_with("_bytes")
}

/// Compare the two windows of every series in `data`.
pub fn compare(data: &Dataset, opts: &Options) -> Result<Comparison, CompareError> {
    let (b, a) = (&opts.before, &opts.after);
    if b.end > a.start {
        return Err(CompareError::WindowOrder {
            before: b.to_string(),
            after: a.to_string(),
        });
    }
    let range = data.time_range().ok_or(CompareError::Empty)?;
    let k = batch_count(opts);
    let refs: Vec<&Series> = data.series.iter().collect();
    let mut rows: Vec<SeriesRow> = crate::export::par_map(refs, |s| row(s, data, opts, k));
    if rows.iter().all(|r| r.before.n == 0 && r.after.n == 0) {
        return Err(CompareError::NoOverlap {
            data: format!("{}..{}", format_time(range.0), format_time(range.1)),
            before: b.to_string(),
            after: a.to_string(),
        });
    }
    // What compare measures is rates (hits, misses, the hit ratio) when there
    // are counters: two gauge samples do not make a window testable then.
    let testable = |w: &WindowStats| w.estimate.is_some_and(|e| e.batches >= 2);
    let has_counters = rows.iter().any(|r| r.kind == Kind::Counter);
    let pool: Vec<&SeriesRow> = rows
        .iter()
        .filter(|r| !has_counters || r.kind == Kind::Counter)
        .collect();
    if !pool
        .iter()
        .any(|r| testable(&r.before) && testable(&r.after))
    {
        let most = |f: &dyn Fn(&SeriesRow) -> &WindowStats| {
            let samples = pool.iter().map(|r| f(r).n).max().unwrap_or(0);
            let batches = pool
                .iter()
                .map(|r| f(r).estimate.map_or(0, |e| e.batches))
                .max()
                .unwrap_or(0);
            (samples, batches)
        };
        let (bs, bb) = most(&|r| &r.before);
        let (as_, ab) = most(&|r| &r.after);
        let (which, window, samples, batches) = if bb < 2 || ab >= 2 {
            ("before", b, bs, bb)
        } else {
            ("after", a, as_, ab)
        };
        return Err(CompareError::TooFewSamples {
            which,
            window: window.to_string(),
            samples,
            batches,
            k,
            data: format!("{}..{}", format_time(range.0), format_time(range.1)),
        });
    }
    rows.sort_by(|x, y| (&x.name, &x.instance, &x.labels).cmp(&(&y.name, &y.instance, &y.labels)));
    let instances: Vec<String> = {
        let mut v: Vec<String> = rows.iter().map(|r| r.instance.clone()).collect();
        v.sort();
        v.dedup();
        v
    };
    let mut per_instance: Vec<Derived> = instances
        .iter()
        .map(|i| derived::derive(i, &rows, opts.alpha))
        .collect();
    let fleet = instances.len() > 1;
    let derived = if fleet {
        derived::fleet(&per_instance, opts.alpha)
    } else {
        per_instance
            .pop()
            .unwrap_or_else(|| derived::derive("-", &rows, opts.alpha))
    };
    let mut warnings = warn::design(data, opts);
    warnings.extend(warn::data(&rows, opts));
    if fleet {
        rows.extend(fleet_rows(&rows, opts.alpha));
    }
    Ok(Comparison {
        before: *b,
        after: *a,
        change: opts.change.clone(),
        method: format!(
            "batch means: {k} equal batches per window ({} each before), Welch t-test on the \
             batch values (alpha {}), 95% CI of after/before by the delta method",
            crate::time::format_duration(b.len() / k as f64),
            opts.alpha
        ),
        alpha: opts.alpha,
        hit_ratio_definition: "hits / (hits + misses), as sums over the window; iohits not counted",
        derived,
        instances: if fleet { per_instance } else { Vec::new() },
        series: rows,
        warnings,
    })
}

/// The most batches per window: a batch mean needs samples, and 1,000 is
/// one a day for almost three years.
pub const MAX_BATCHES: usize = 1_000;

/// Batches per window: the option, else one per day for windows of five
/// days or more, else 20; always 2 to [`MAX_BATCHES`].
pub fn batch_count(opts: &Options) -> usize {
    if let Some(k) = opts.batches {
        return k.clamp(2, MAX_BATCHES);
    }
    let days = opts.before.len().min(opts.after.len()) / 86_400.0;
    if days >= 5.0 {
        (days.round().min(MAX_BATCHES as f64)) as usize
    } else {
        20
    }
}

fn row(s: &Series, data: &Dataset, opts: &Options, k: usize) -> SeriesRow {
    let (kind, kind_source) = classify(s.name(), &opts.overrides, &data.metadata);
    let before = window::window_stats(&s.points, &opts.before, kind, k);
    let after = window::window_stats(&s.points, &opts.after, kind, k);
    let change = match (&before.estimate, &after.estimate) {
        (Some(x), Some(y)) => Some(stats::compare_batches(x, y)),
        _ => None,
    };
    SeriesRow {
        name: s.name().to_string(),
        instance: s.instance().to_string(),
        labels: s.extra_labels(),
        kind,
        kind_source,
        bytes: is_bytes(s.name()),
        significant: change.is_some_and(|c| c.significant(opts.alpha)),
        change,
        plot: if opts.keep_plot {
            plot_points(&s.points, kind, opts)
        } else {
            Vec::new()
        },
        before,
        after,
    }
}

/// Values (gauges) or per-second rates between samples (counters) over the
/// span of both windows.
fn plot_points(points: &[(f64, f64)], kind: Kind, opts: &Options) -> Vec<(f64, f64)> {
    let span = Window {
        start: opts.before.start,
        end: opts.after.end,
    };
    let inside = points
        .iter()
        .copied()
        .filter(|p| span.contains(p.0) && p.1.is_finite());
    match kind {
        Kind::Counter => {
            let v: Vec<(f64, f64)> = inside.collect();
            v.windows(2)
                .filter(|p| p[1].0 > p[0].0)
                .map(|p| {
                    (
                        p[1].0,
                        stats::counter_step(p[0].1, p[1].1).0 / (p[1].0 - p[0].0),
                    )
                })
                .collect()
        }
        _ => inside.collect(),
    }
}

/// One `fleet` row per metric name seen on several instances: sum of rates
/// (counters) or of means (gauges), batch by batch.
fn fleet_rows(rows: &[SeriesRow], alpha: f64) -> Vec<SeriesRow> {
    let mut by: BTreeMap<&str, Vec<&SeriesRow>> = BTreeMap::new();
    for r in rows {
        by.entry(r.name.as_str()).or_default().push(r);
    }
    let mut out = Vec::new();
    for (name, rs) in by {
        if rs.len() < 2 || rs[0].kind == Kind::HighWater {
            continue;
        }
        let sum = |f: &dyn Fn(&SeriesRow) -> &WindowStats| {
            let mut w = WindowStats::default();
            let mut batches = f(rs[0]).batches.clone();
            let mut total = 0.0;
            for r in &rs {
                let s = f(r);
                w.n += s.n;
                total += s.value().unwrap_or(f64::NAN);
                if !std::ptr::eq(*r, rs[0]) {
                    batches.add_rates(&s.batches);
                }
            }
            if rs[0].kind == Kind::Counter {
                w.rate = Some(total);
            } else {
                w.gauge = Some(stats::GaugeSummary {
                    n: w.n,
                    mean: total,
                    p50: f64::NAN,
                    p95: f64::NAN,
                    p99: f64::NAN,
                    min: f64::NAN,
                    max: f64::NAN,
                });
            }
            w.estimate = stats::batch_estimate(&batches.values());
            w
        };
        let before = sum(&|r| &r.before);
        let after = sum(&|r| &r.after);
        let change = match (&before.estimate, &after.estimate) {
            (Some(x), Some(y)) => Some(stats::compare_batches(x, y)),
            _ => None,
        };
        out.push(SeriesRow {
            name: name.to_string(),
            instance: "fleet".into(),
            labels: format!("sum of {} instances", rs.len()),
            kind: rs[0].kind,
            kind_source: rs[0].kind_source,
            bytes: rs[0].bytes,
            significant: change.is_some_and(|c| c.significant(alpha)),
            change,
            plot: Vec::new(),
            before,
            after,
        });
    }
    out
}

#[cfg(test)]
mod tests;
