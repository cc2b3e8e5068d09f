//! Rendering a [`Comparison`]: tables in arclab's one table model
//! ([`Table`], from `arclab-report`, printed as aligned text, Markdown, CSV
//! or HTML), a self-contained HTML report ([`html`]) and plots ([`plot`]),
//! all from the same result.
//!
//! Changes print benchstat-style: `+1385.00% ± 19% (p=0.000 n=20+20)`, or
//! `~ (p=0.412 n=20+20)` when not significant at α.
//!
//! ```
//! use arclab_metrics::{compare, report, synth, time::Window};
//! let c = compare::compare(&synth::blog("nas"), &compare::Options::new(
//!     Window::parse(synth::BEFORE, 0.0).unwrap(), Window::parse(synth::AFTER, 0.0).unwrap())).unwrap();
//! let text = report::text(&c);
//! assert!(text.contains("hit ratio") && text.contains("98.67%"));
//! assert!(report::csv(&c).starts_with("section,metric,instance"));
//! ```

pub mod html;
pub mod plot;

pub use arclab_report::Table;
use arclab_report::{Align, Cell};

/// A table whose first column labels the rows (left-aligned), the others
/// aligned by content.
fn labelled(headers: &[&str]) -> Table {
    Table::new(headers).align(0, Align::Left)
}

use crate::compare::{BeforeAfter, Comparison, Derived, SeriesRow};
use crate::series::Kind;
use crate::stats::Change;
use crate::time::{format_duration, format_time};

const GIB: f64 = 1_073_741_824.0;

/// Bytes as GiB/MiB/KiB with two decimals (binary units).
pub fn fmt_bytes(v: f64) -> String {
    if !v.is_finite() {
        return "-".into();
    }
    let a = v.abs();
    if a >= GIB {
        format!("{:.2} GiB", v / GIB)
    } else if a >= 1_048_576.0 {
        format!("{:.2} MiB", v / 1_048_576.0)
    } else if a >= 1024.0 {
        format!("{:.2} KiB", v / 1024.0)
    } else {
        format!("{v:.0} B")
    }
}

/// A plain number with about four significant digits and an SI suffix above 10,000.
pub fn fmt_num(v: f64) -> String {
    if !v.is_finite() {
        return "-".into();
    }
    let a = v.abs();
    let (d, u) = match a {
        x if x >= 1e12 => (1e12, " T"),
        x if x >= 1e9 => (1e9, " G"),
        x if x >= 1e6 => (1e6, " M"),
        x if x >= 1e4 => (1e3, " k"),
        _ => (1.0, ""),
    };
    let x = v / d;
    let digits = if x == 0.0 || x.abs() >= 0.01 { 2 } else { 5 };
    format!("{x:.digits$}{u}")
}

/// A ratio in 0..=1 as a percentage with two decimals.
pub fn fmt_pct(v: f64) -> String {
    if v.is_finite() {
        format!("{:.2}%", 100.0 * v)
    } else {
        "-".into()
    }
}

/// benchstat-style change cell.
pub fn fmt_change(c: &Change, alpha: f64, n: Option<(usize, usize)>) -> String {
    let n = n.map_or(String::new(), |n| format!(" n={}+{}", n.0, n.1));
    let p = if c.p.is_finite() {
        format!("p={:.3}{n}", c.p)
    } else {
        n.trim().to_string()
    };
    if !c.ratio.is_finite() {
        return format!("? ({p})");
    }
    if !c.p.is_finite() {
        // Fewer than two batches with data in a window: nothing to test.
        return format!("? (too few samples{n})");
    }
    if !c.significant(alpha) {
        return format!("~ ({p})");
    }
    let ci = match 100.0 * c.ratio_ci95 {
        x if !x.is_finite() => String::new(),
        x if x < 10.0 => format!(" ± {x:.2}%"),
        x => format!(" ± {x:.0}%"),
    };
    format!("{:+.2}%{ci} ({p})", 100.0 * (c.ratio - 1.0))
}

fn batches(r: &SeriesRow) -> (usize, usize) {
    (
        r.before.estimate.map_or(0, |e| e.batches),
        r.after.estimate.map_or(0, |e| e.batches),
    )
}

fn header(c: &Comparison) -> String {
    let mut s = format!(
        "before  {}  ({})\nafter   {}  ({})\n",
        c.before,
        format_duration(c.before.len()),
        c.after,
        format_duration(c.after.len())
    );
    if let Some(ch) = &c.change {
        s.push_str(&format!(
            "change  {} at {}\n",
            ch.what,
            format_time(ch.time)
        ));
    }
    s.push_str(&format!(
        "uncertainty: {}; `~` = no significant change\ndefinitions: hit ratio = {}\n",
        c.method, c.hit_ratio_definition
    ));
    s
}

fn ba_row(t: &mut Table, what: &str, v: &BeforeAfter, f: fn(f64) -> String, alpha: f64) {
    if v.before.is_none() && v.after.is_none() {
        return;
    }
    let change = v
        .change
        .map_or(String::new(), |c| fmt_change(&c, alpha, None));
    t.push(vec![
        what.into(),
        v.before.map_or("-".into(), f),
        v.after.map_or("-".into(), f),
        change,
    ]);
}

/// The derived table of one instance (or the fleet).
pub fn derived_table(d: &Derived, c: &Comparison) -> Table {
    let mut t = labelled(&[&format!("ARC, {}", d.instance), "before", "after", "change"]);
    let a = c.alpha;
    ba_row(&mut t, "hit ratio", &d.hit_ratio, fmt_pct, a);
    ba_row(&mut t, "hits/s", &d.hits_per_sec, fmt_num, a);
    ba_row(&mut t, "misses/s", &d.misses_per_sec, fmt_num, a);
    if let Some(m) = d.miss_multiplier {
        t.push(vec![
            "miss multiplier".into(),
            String::new(),
            format!("{m:.2}×"),
            String::new(),
        ]);
    }
    for (name, v, f) in [
        (
            "demand hit ratio",
            &d.demand_hit_ratio,
            fmt_pct as fn(f64) -> String,
        ),
        ("demand misses/s", &d.demand_misses_per_sec, fmt_num),
        ("prefetch hit ratio", &d.prefetch_hit_ratio, fmt_pct),
        ("prefetch misses/s", &d.prefetch_misses_per_sec, fmt_num),
    ] {
        if let Some(v) = v {
            ba_row(&mut t, name, v, f, a);
        }
    }
    if let Some(size) = c
        .series
        .iter()
        .find(|r| r.instance == d.instance && crate::series::arc_field(&r.name) == Some("size"))
        && let (Some(b), Some(x)) = (size.before.gauge, size.after.gauge)
    {
        t.push(vec![
            "ARC size, median".into(),
            fmt_bytes(b.p50),
            fmt_bytes(x.p50),
            fmt_delta_bytes(x.p50 - b.p50),
        ]);
        t.push(vec![
            "ARC size, peak".into(),
            fmt_bytes(b.max),
            fmt_bytes(x.max),
            fmt_delta_bytes(x.max - b.max),
        ]);
    }
    t
}

fn fmt_delta_bytes(d: f64) -> String {
    if d >= 0.0 {
        format!("+{}", fmt_bytes(d))
    } else {
        format!("-{}", fmt_bytes(-d))
    }
}

/// The per-series table: one row per statistic.
pub fn series_table(c: &Comparison) -> Table {
    let mut t = labelled(&[
        "metric", "instance", "kind", "stat", "before", "after", "change",
    ]);
    for r in &c.series {
        let f: fn(f64) -> String = if r.bytes { fmt_bytes } else { fmt_num };
        let inst = if r.labels.is_empty() {
            r.instance.clone()
        } else {
            format!("{} {{{}}}", r.instance, r.labels)
        };
        let kind = format!("{:?}", r.kind).to_lowercase();
        let change = r.change.map_or(String::new(), |ch| {
            fmt_change(&ch, c.alpha, Some(batches(r)))
        });
        let mut push = |stat: &str, b: Option<f64>, a: Option<f64>, change: String| {
            t.push(vec![
                r.name.clone(),
                inst.clone(),
                kind.clone(),
                stat.into(),
                b.map_or("-".into(), f),
                a.map_or("-".into(), f),
                change,
            ]);
        };
        match r.kind {
            Kind::Counter => {
                let resets = (r.before.resets.unwrap_or(0), r.after.resets.unwrap_or(0));
                let stat = if resets == (0, 0) {
                    "rate/s".to_string()
                } else {
                    format!("rate/s ({}+{} resets)", resets.0, resets.1)
                };
                push(&stat, r.before.rate, r.after.rate, change);
            }
            _ => {
                let (b, a) = (r.before.gauge, r.after.gauge);
                push("mean", b.map(|g| g.mean), a.map(|g| g.mean), change);
                if r.instance != "fleet" {
                    push("p50", b.map(|g| g.p50), a.map(|g| g.p50), String::new());
                    push("p95", b.map(|g| g.p95), a.map(|g| g.p95), String::new());
                    push("p99", b.map(|g| g.p99), a.map(|g| g.p99), String::new());
                    push("max", b.map(|g| g.max), a.map(|g| g.max), String::new());
                }
            }
        }
    }
    t
}

/// The human report: windows and method, derived tables, the series table, warnings.
pub fn text(c: &Comparison) -> String {
    let mut s = header(c);
    for d in std::iter::once(&c.derived).chain(&c.instances) {
        s.push('\n');
        s.push_str(&derived_table(d, c).to_text());
    }
    s.push('\n');
    s.push_str(&series_table(c).to_text());
    if !c.warnings.is_empty() {
        s.push_str("\nwarnings:\n");
        for w in &c.warnings {
            s.push_str(&format!("  - {w}\n"));
        }
    }
    s
}

/// Markdown: the same tables as GitHub tables.
pub fn markdown(c: &Comparison) -> String {
    let mut s = header(c)
        .lines()
        .map(|l| format!("{l}  \n"))
        .collect::<String>();
    for d in std::iter::once(&c.derived).chain(&c.instances) {
        s.push('\n');
        s.push_str(&derived_table(d, c).to_markdown());
    }
    s.push('\n');
    s.push_str(&series_table(c).to_markdown());
    for w in &c.warnings {
        s.push_str(&format!("\n> warning: {w}\n"));
    }
    s
}

/// CSV with raw numbers: one row per derived value and per series statistic.
pub fn csv(c: &Comparison) -> String {
    machine_table(c).to_csv()
}

/// The machine table behind [`csv`]: typed cells (numbers stay numbers in
/// [`Table::to_json`]).
pub fn machine_table(c: &Comparison) -> Table {
    let mut t = labelled(&[
        "section", "metric", "instance", "labels", "kind", "stat", "before", "after", "ratio",
        "ci95", "p",
    ]);
    let num = |v: Option<f64>| {
        v.filter(|x| x.is_finite())
            .map_or(Cell::Empty, |x| Cell::number(x, format!("{x}")))
    };
    for d in std::iter::once(&c.derived).chain(&c.instances) {
        for (name, v) in [
            ("hit_ratio", Some(&d.hit_ratio)),
            ("hits_per_sec", Some(&d.hits_per_sec)),
            ("misses_per_sec", Some(&d.misses_per_sec)),
            ("demand_misses_per_sec", d.demand_misses_per_sec.as_ref()),
            (
                "prefetch_misses_per_sec",
                d.prefetch_misses_per_sec.as_ref(),
            ),
        ] {
            let Some(v) = v else { continue };
            t.push(vec![
                "derived".into(),
                name.into(),
                d.instance.clone().into(),
                Cell::Empty,
                Cell::Empty,
                Cell::Empty,
                num(v.before),
                num(v.after),
                num(v.change.map(|c| c.ratio)),
                num(v.change.map(|c| c.ratio_ci95)),
                num(v.change.map(|c| c.p)),
            ]);
        }
    }
    for r in &c.series {
        let (b, a) = (r.before.value(), r.after.value());
        t.push(vec![
            "series".into(),
            r.name.clone().into(),
            r.instance.clone().into(),
            r.labels.clone().into(),
            format!("{:?}", r.kind).to_lowercase().into(),
            if r.kind == Kind::Counter {
                "rate".into()
            } else {
                "mean".into()
            },
            num(b),
            num(a),
            num(r.change.map(|c| c.ratio)),
            num(r.change.map(|c| c.ratio_ci95)),
            num(r.change.map(|c| c.p)),
        ]);
    }
    t
}
