//! Plots of the compared series across both windows, the windows shaded and
//! the change marked, as SVG or PNG (plotters).
//!
//! Drawn through arclab's one plot setup, [`arclab_report::plot`]: DejaVu
//! Sans embedded in the binary (no font file read at run time), PNG encoded
//! in memory, files written atomically by `arclab-io`.
//!
//! ```
//! use arclab_metrics::{compare, report::plot, synth, time::Window};
//! let c = compare::compare(&synth::blog("nas"), &compare::Options::new(
//!     Window::parse(synth::BEFORE, 0.0).unwrap(), Window::parse(synth::AFTER, 0.0).unwrap())).unwrap();
//! let svg = plot::svg(&c).unwrap();
//! assert!(svg.starts_with("<svg") && svg.contains("<polyline"));
//! ```

use crate::compare::{Comparison, SeriesRow};
use crate::series::{Kind, arc_field};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

/// Why a plot could not be drawn.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct PlotError(pub String);

impl From<arclab_report::plot::Error> for PlotError {
    fn from(e: arclab_report::plot::Error) -> Self {
        PlotError(e.to_string())
    }
}

/// The series worth a panel: ARC size, hits and misses first, then the rest;
/// at most `max` metrics, every instance of a metric in one panel.
fn panels(c: &Comparison, max: usize) -> Vec<Vec<&SeriesRow>> {
    let rank = |r: &SeriesRow| match arc_field(&r.name) {
        Some("size") => 0,
        Some("misses") => 1,
        Some("hits") => 2,
        Some("c") => 3,
        Some(_) => 4,
        None => 5,
    };
    let mut names: Vec<(&str, i32)> = Vec::new();
    for r in c.series.iter().filter(|r| !r.plot.is_empty()) {
        if !names.iter().any(|(n, _)| *n == r.name) {
            names.push((&r.name, rank(r)));
        }
    }
    names.sort_by_key(|(_, k)| *k);
    names
        .into_iter()
        .take(max)
        .map(|(n, _)| {
            c.series
                .iter()
                .filter(|r| r.name == n && !r.plot.is_empty())
                .collect()
        })
        .collect()
}

const COLORS: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(127, 127, 127),
];

fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, c: &Comparison) -> Result<(), String> {
    let e = |x: DrawingAreaErrorKind<DB::ErrorType>| x.to_string();
    root.fill(&WHITE).map_err(e)?;
    let groups = panels(c, 4);
    if groups.is_empty() {
        return Ok(());
    }
    let areas = root.split_evenly((groups.len(), 1));
    let (x0, x1) = (c.before.start, c.after.end);
    let day = 86_400.0;
    for (area, rows) in areas.iter().zip(&groups) {
        let (bytes, counter) = (rows[0].bytes, rows[0].kind == Kind::Counter);
        let scale = if bytes { 1_073_741_824.0 } else { 1.0 };
        let ys = rows.iter().flat_map(|r| r.plot.iter().map(|p| p.1 / scale));
        let (lo, hi) = ys.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), y| {
            (a.min(y), b.max(y))
        });
        let (lo, hi) = if lo.is_finite() {
            (lo.min(0.0), hi.max(lo + 1e-9) * 1.05)
        } else {
            (0.0, 1.0)
        };
        let title = format!(
            "{}{}",
            rows[0].name,
            if counter {
                " (per second)"
            } else if bytes {
                " (GiB)"
            } else {
                ""
            }
        );
        let mut b = ChartBuilder::on(area);
        b.margin(10)
            .caption(title, ("sans-serif", 16))
            .x_label_area_size(28)
            .y_label_area_size(64);
        let mut chart = b
            .build_cartesian_2d(0.0..((x1 - x0) / day), lo..hi)
            .map_err(e)?;
        let span_days = (x1 - x0) / day;
        let date = |x: &f64| axis_date(x0 + x * day, span_days);
        let mut mesh = chart.configure_mesh();
        mesh.light_line_style(WHITE.mix(0.0));
        let y_tick = |v: &f64| arclab_report::plot::tick(*v);
        mesh.x_desc("date (UTC)")
            .x_label_formatter(&date)
            .y_label_formatter(&y_tick)
            .x_labels(8)
            .y_labels(6);
        mesh.draw().map_err(e)?;
        for (w, col) in [
            (&c.before, RGBColor(31, 119, 180)),
            (&c.after, RGBColor(214, 39, 40)),
        ] {
            let r = Rectangle::new(
                [((w.start - x0) / day, lo), ((w.end - x0) / day, hi)],
                col.mix(0.07).filled(),
            );
            chart.draw_series(std::iter::once(r)).map_err(e)?;
        }
        if let Some(ch) = &c.change {
            let x = (ch.time - x0) / day;
            chart
                .draw_series(LineSeries::new(vec![(x, lo), (x, hi)], RED.stroke_width(2)))
                .map_err(e)?;
        }
        for (i, r) in rows.iter().enumerate() {
            let col = COLORS[i % COLORS.len()];
            let pts = r.plot.iter().map(|p| ((p.0 - x0) / day, p.1 / scale));
            let s = chart
                .draw_series(LineSeries::new(pts, col.stroke_width(1)))
                .map_err(e)?;
            if rows.len() > 1 {
                s.label(r.instance.clone())
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], col));
            }
        }
        if rows.len() > 1 {
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK)
                .draw()
                .map_err(e)?;
        }
    }
    root.present().map_err(e)?;
    Ok(())
}

/// A tick label for unix time `t` on an axis spanning `span_days`: the date
/// (`2025-09-22`), with the hour (`09-22 14:00`) when the span is under four days.
pub fn axis_date(t: f64, span_days: f64) -> String {
    let s = crate::time::format_time(t.round());
    if span_days < 4.0 {
        // `YYYY-MM-DDTHH:MM:SSZ` → `MM-DD HH:MM`.
        format!(
            "{} {}",
            s.get(5..10).unwrap_or(""),
            s.get(11..16).unwrap_or("")
        )
    } else {
        s.get(..10).unwrap_or("").to_string()
    }
}

const SIZE: (u32, u32) = (1100, 900);

/// The plot as an SVG document.
pub fn svg(c: &Comparison) -> Result<String, PlotError> {
    Ok(arclab_report::plot::svg(SIZE, |root| draw(root, c))?)
}

/// The plot as PNG bytes.
pub fn png(c: &Comparison) -> Result<Vec<u8>, PlotError> {
    Ok(arclab_report::plot::png(SIZE, |root| draw(root, c))?)
}

/// Write the plot to `path` (`.svg` or `.png`), atomically.
pub fn render(c: &Comparison, path: &Path) -> Result<(), PlotError> {
    let bytes = if arclab_report::plot::is_svg(path)? {
        svg(c)?.into_bytes()
    } else {
        png(c)?
    };
    arclab_report::plot::write(path, &bytes)?;
    Ok(())
}
