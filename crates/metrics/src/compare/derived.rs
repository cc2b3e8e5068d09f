//! Derived ARC values: hit ratio as a ratio of window sums, hits and misses
//! per second, the miss multiplier, demand against prefetch.
//!
//! Ratios are sums over the window, never means of per-interval ratios
//! (netdata#13756, collectd#973): `Σhits / (Σhits + Σmisses)`.

use super::SeriesRow;
use super::window::{Batches, WindowStats};
use crate::series::{Kind, arc_field};
use crate::stats::{self, Change};
use serde::Serialize;

/// A value before and after, with the change between them.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct BeforeAfter {
    /// Before window.
    pub before: Option<f64>,
    /// After window.
    pub after: Option<f64>,
    /// after / before with its 95 % interval and p-value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change: Option<Change>,
    /// Whether the change is significant.
    pub significant: bool,
}

/// Derived values of one instance (or the fleet).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Derived {
    /// Instance, or `fleet`.
    pub instance: String,
    /// `hits / (hits + misses)`.
    pub hit_ratio: BeforeAfter,
    /// Hits per second.
    pub hits_per_sec: BeforeAfter,
    /// Misses per second.
    pub misses_per_sec: BeforeAfter,
    /// Misses per second after ÷ before.
    pub miss_multiplier: Option<f64>,
    /// Demand (data + metadata) misses per second.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub demand_misses_per_sec: Option<BeforeAfter>,
    /// Prefetch (data + metadata) misses per second.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefetch_misses_per_sec: Option<BeforeAfter>,
    /// Demand hit ratio.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub demand_hit_ratio: Option<BeforeAfter>,
    /// Prefetch hit ratio.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefetch_hit_ratio: Option<BeforeAfter>,
    /// Counter resets in the hits/misses series (before, after).
    pub resets: (usize, usize),
    #[serde(skip)]
    pub(crate) parts: Option<Parts>,
}

/// Window sums kept for the fleet summary.
#[derive(Debug, Clone, Default)]
pub(crate) struct Parts {
    hits: [(f64, Batches); 2],
    misses: [(f64, Batches); 2],
}

/// The counter row of arcstats field `field` on `instance`.
fn find<'a>(rows: &'a [SeriesRow], instance: &str, field: &str) -> Option<&'a SeriesRow> {
    rows.iter().find(|r| {
        r.instance == instance && r.kind == Kind::Counter && arc_field(&r.name) == Some(field)
    })
}

fn rate_of(r: &WindowStats) -> Option<(f64, Batches)> {
    r.rate.map(|x| (x, r.batches.clone()))
}

fn add(a: Option<(f64, Batches)>, b: Option<(f64, Batches)>) -> Option<(f64, Batches)> {
    match (a, b) {
        (Some((x, mut bx)), Some((y, by))) => {
            bx.add_rates(&by);
            Some((x + y, bx))
        }
        _ => None,
    }
}

fn ba(before: Option<(f64, Batches)>, after: Option<(f64, Batches)>, alpha: f64) -> BeforeAfter {
    let est = |x: &Option<(f64, Batches)>| {
        x.as_ref()
            .and_then(|(_, b)| stats::batch_estimate(&b.values()))
    };
    let change = match (est(&before), est(&after)) {
        (Some(x), Some(y)) => Some(stats::compare_batches(&x, &y)),
        _ => None,
    };
    BeforeAfter {
        before: before.map(|x| x.0),
        after: after.map(|x| x.0),
        significant: change.is_some_and(|c| c.significant(alpha)),
        change,
    }
}

/// `hits/(hits+misses)` per window and per batch.
fn ratio(hits: &Option<(f64, Batches)>, misses: &Option<(f64, Batches)>) -> Option<(f64, Batches)> {
    let ((h, hb), (m, mb)) = (hits.as_ref()?, misses.as_ref()?);
    let mut b = Batches::new(hb.num.len());
    for i in 0..b.num.len().min(mb.num.len()) {
        if hb.den[i] > 0.0 && mb.den[i] > 0.0 {
            let (hr, mr) = (hb.num[i] / hb.den[i], mb.num[i] / mb.den[i]);
            if hr + mr > 0.0 {
                b.num[i] = hr / (hr + mr);
                b.den[i] = 1.0;
            }
        }
    }
    (h + m > 0.0).then(|| (h / (h + m), b))
}

fn pair(rows: &[SeriesRow], inst: &str, f: &str) -> [Option<(f64, Batches)>; 2] {
    let r = find(rows, inst, f);
    [
        r.and_then(|r| rate_of(&r.before)),
        r.and_then(|r| rate_of(&r.after)),
    ]
}

fn sum_pairs(rows: &[SeriesRow], inst: &str, a: &str, b: &str) -> [Option<(f64, Batches)>; 2] {
    let [x0, x1] = pair(rows, inst, a);
    let [y0, y1] = pair(rows, inst, b);
    [add(x0, y0), add(x1, y1)]
}

/// Derived values of one instance.
pub(crate) fn derive(instance: &str, rows: &[SeriesRow], alpha: f64) -> Derived {
    let hits = pair(rows, instance, "hits");
    let misses = pair(rows, instance, "misses");
    let dh = sum_pairs(rows, instance, "demand_data_hits", "demand_metadata_hits");
    let dm = sum_pairs(
        rows,
        instance,
        "demand_data_misses",
        "demand_metadata_misses",
    );
    let ph = sum_pairs(
        rows,
        instance,
        "prefetch_data_hits",
        "prefetch_metadata_hits",
    );
    let pm = sum_pairs(
        rows,
        instance,
        "prefetch_data_misses",
        "prefetch_metadata_misses",
    );
    let resets = |w: fn(&SeriesRow) -> &WindowStats| {
        ["hits", "misses"]
            .iter()
            .filter_map(|f| find(rows, instance, f))
            .map(|r| w(r).resets.unwrap_or(0))
            .sum::<usize>()
    };
    let opt = |x: BeforeAfter| (x.before.is_some() || x.after.is_some()).then_some(x);
    let mut d = Derived {
        demand_misses_per_sec: opt(ba(dm[0].clone(), dm[1].clone(), alpha)),
        prefetch_misses_per_sec: opt(ba(pm[0].clone(), pm[1].clone(), alpha)),
        demand_hit_ratio: opt(ba(ratio(&dh[0], &dm[0]), ratio(&dh[1], &dm[1]), alpha)),
        prefetch_hit_ratio: opt(ba(ratio(&ph[0], &pm[0]), ratio(&ph[1], &pm[1]), alpha)),
        ..from_rates(instance, &hits, &misses, alpha)
    };
    d.resets = (resets(|r| &r.before), resets(|r| &r.after));
    if let ([Some(h0), Some(h1)], [Some(m0), Some(m1)]) = (hits, misses) {
        d.parts = Some(Parts {
            hits: [h0, h1],
            misses: [m0, m1],
        });
    }
    d
}

fn multiplier(m: &BeforeAfter) -> Option<f64> {
    match (m.before, m.after) {
        (Some(b), Some(a)) if b > 0.0 => Some(a / b),
        _ => None,
    }
}

/// The fleet: rates summed over instances that have both hits and misses;
/// the hit ratio of the sums.
pub(crate) fn fleet(per: &[Derived], alpha: f64) -> Derived {
    let mut hits: [Option<(f64, Batches)>; 2] = [None, None];
    let mut misses: [Option<(f64, Batches)>; 2] = [None, None];
    let mut resets = (0, 0);
    for d in per {
        resets.0 += d.resets.0;
        resets.1 += d.resets.1;
        if let Some(p) = &d.parts {
            for w in 0..2 {
                hits[w] = Some(match hits[w].take() {
                    None => p.hits[w].clone(),
                    Some(x) => add(Some(x), Some(p.hits[w].clone())).unwrap_or_default(),
                });
                misses[w] = Some(match misses[w].take() {
                    None => p.misses[w].clone(),
                    Some(x) => add(Some(x), Some(p.misses[w].clone())).unwrap_or_default(),
                });
            }
        }
    }
    Derived {
        resets,
        ..from_rates("fleet", &hits, &misses, alpha)
    }
}

type Rates = [Option<(f64, Batches)>; 2];

/// The part of [`Derived`] that hits and misses alone give (instance or
/// fleet alike): hit ratio of the sums, both rates, the miss multiplier.
fn from_rates(instance: &str, hits: &Rates, misses: &Rates, alpha: f64) -> Derived {
    let misses_per_sec = ba(misses[0].clone(), misses[1].clone(), alpha);
    Derived {
        instance: instance.to_string(),
        hit_ratio: ba(
            ratio(&hits[0], &misses[0]),
            ratio(&hits[1], &misses[1]),
            alpha,
        ),
        hits_per_sec: ba(hits[0].clone(), hits[1].clone(), alpha),
        miss_multiplier: multiplier(&misses_per_sec),
        misses_per_sec,
        ..Derived::default()
    }
}
