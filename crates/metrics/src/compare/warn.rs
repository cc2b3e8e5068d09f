//! Warnings: what makes a before/after comparison less trustworthy.

use super::{Options, SeriesRow};
use crate::series::{Dataset, Kind};
use crate::time::{Window, format_duration, format_time};

/// Fraction of a window's seconds in each hour of the day (UTC).
pub(crate) fn hour_coverage(w: &Window) -> [f64; 24] {
    let mut h = [0.0; 24];
    let mut t = w.start;
    while t < w.end {
        let next = ((t / 3600.0).floor() + 1.0) * 3600.0;
        let seg = next.min(w.end) - t;
        h[((t / 3600.0).floor() as i64).rem_euclid(24) as usize] += seg;
        t = next;
    }
    let total = w.len();
    h.iter_mut().for_each(|x| *x /= total);
    h
}

/// Total variation distance between the windows' hour-of-day coverage (0 =
/// the same hours in the same proportions, 1 = disjoint hours).
pub(crate) fn time_of_day_distance(a: &Window, b: &Window) -> f64 {
    let (x, y) = (hour_coverage(a), hour_coverage(b));
    0.5 * x.iter().zip(&y).map(|(p, q)| (p - q).abs()).sum::<f64>()
}

/// Warnings about the experiment's design: confounding changes, unequal
/// windows, time-of-day coverage.
pub(crate) fn design(data: &Dataset, opts: &Options) -> Vec<String> {
    let (b, a) = (&opts.before, &opts.after);
    let mut out = Vec::new();
    for c in &data.changes {
        if opts
            .change
            .as_ref()
            .is_some_and(|m| m.time == c.time && m.what == c.what)
        {
            continue;
        }
        for (w, name) in [(b, "before"), (a, "after")] {
            if w.contains(c.time) {
                out.push(format!(
                    "confounded: another change, `{}` at {}, falls inside the {name} window; \
                     its effect cannot be told apart from the one measured",
                    c.what,
                    format_time(c.time)
                ));
            }
        }
    }
    let (lb, la) = (b.len(), a.len());
    if (lb - la).abs() > 0.05 * lb.max(la) {
        out.push(format!(
            "the windows differ in length ({} before, {} after): weekly and daily cycles weigh differently",
            format_duration(lb),
            format_duration(la)
        ));
    }
    let tod = time_of_day_distance(b, a);
    if tod > 0.1 {
        out.push(format!(
            "the windows cover the hours of the day differently ({:.0}% of their time falls in \
             different hours): a daily cycle can look like a change; use whole days or equal \
             times of day",
            tod * 100.0
        ));
    }
    out
}

/// Warnings about the data: gaps, series starting or ending mid-window,
/// missing windows, non-finite samples, resets, correlated batches.
pub(crate) fn data(rows: &[SeriesRow], opts: &Options) -> Vec<String> {
    let mut out = Vec::new();
    let mut correlated = 0;
    for r in rows {
        let who = if r.labels.is_empty() {
            format!("{} ({})", r.name, r.instance)
        } else {
            format!("{} ({}, {})", r.name, r.instance, r.labels)
        };
        for (s, w, name) in [
            (&r.before, &opts.before, "before"),
            (&r.after, &opts.after, "after"),
        ] {
            if s.n == 0 {
                out.push(format!("{who}: no samples in the {name} window"));
                continue;
            }
            let step = s.median_step.unwrap_or(0.0);
            let slack = (3.0 * step).max(0.02 * w.len());
            if let Some(first) = s.first.filter(|f| *f - w.start > slack) {
                out.push(format!(
                    "{who}: starts {} into the {name} window (first sample {})",
                    format_duration(first - w.start),
                    format_time(first)
                ));
            }
            if let Some(last) = s.last.filter(|l| w.end - *l > slack) {
                out.push(format!(
                    "{who}: ends {} before the end of the {name} window (last sample {})",
                    format_duration(w.end - last),
                    format_time(last)
                ));
            }
            if let Some(g) = s.longest_gap.filter(|g| step > 0.0 && *g > 3.0 * step) {
                out.push(format!(
                    "{who}: a gap of {} without samples in the {name} window (usual step {})",
                    format_duration(g),
                    format_duration(step)
                ));
            }
            if s.non_finite > 0 {
                out.push(format!(
                    "{who}: {} NaN/Inf sample(s) in the {name} window were ignored",
                    s.non_finite
                ));
            }
            if r.kind == Kind::Counter && s.resets.unwrap_or(0) > 0 {
                out.push(format!(
                    "{who}: {} counter reset(s) in the {name} window (reboot or module reload?); \
                     the rate skips them, but a cold ARC after a restart biases the window",
                    s.resets.unwrap_or(0)
                ));
            }
            if s.estimate.and_then(|e| e.lag1).is_some_and(|l| l > 0.5) {
                correlated += 1;
            }
        }
    }
    if correlated > 0 {
        out.push(format!(
            "{correlated} window(s) have batch values with lag-1 autocorrelation above 0.5 \
             (slow drift or daily cycles): their p-values are optimistic; longer windows help"
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_of_day() {
        let day = 86_400.0;
        let a = Window::new(0.0, 10.0 * day).unwrap();
        let b = Window::new(11.0 * day, 21.0 * day).unwrap();
        assert!(time_of_day_distance(&a, &b) < 1e-9);
        let night = Window::new(0.0, 6.0 * 3600.0).unwrap();
        let noon = Window::new(day + 12.0 * 3600.0, day + 18.0 * 3600.0).unwrap();
        assert!((time_of_day_distance(&night, &noon) - 1.0).abs() < 1e-9);
        let c = hour_coverage(&Window::new(1800.0, 5400.0).unwrap());
        assert_eq!((c[0], c[1]), (0.5, 0.5));
    }
}
