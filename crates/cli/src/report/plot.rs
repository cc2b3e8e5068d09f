//! Charts for `arclab whatif --plot` and `--report`, drawn with `plotters`
//! into SVG (a string) or PNG (bytes), both written through `arclab-io`'s
//! atomic writer:
//!
//! - `misses`: misses per second against the cap (`c_max`), one line per
//!   policy / version / prefetch group;
//! - `timeline`: the ARC's size (solid) and target `c` (dashed) over time,
//!   one colour per cap of the first group; below it, the other processes'
//!   memory demand (shaded) and what the host was short of, per cap.
//!
//! Text is laid out with DejaVu Sans through arclab's one plot setup,
//! [`arclab_report::plot`] (embedded font, no system font needed; SVG
//! viewers render the text with their own sans-serif).

use super::{Report, Row, RunSeries};
use anyhow::Result;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::{Path, PathBuf};

const GIB: f64 = (1u64 << 30) as f64;
/// Misses chart size in pixels.
pub(crate) const MISSES_SIZE: (u32, u32) = (860, 480);
/// Timeline chart size in pixels.
pub(crate) const TIMELINE_SIZE: (u32, u32) = (960, 640);

const PALETTE: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(23, 190, 207),
];

/// The minor grid lines: barely there.
const LIGHT: RGBColor = RGBColor(242, 242, 242);

fn colour(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// The files `--plot TARGET` writes: into TARGET when it is a directory (or
/// ends in `/`), else beside it with TARGET as the name prefix.
pub(crate) fn plot_paths(target: &Path) -> Vec<PathBuf> {
    let as_dir = target.is_dir() || target.as_os_str().to_string_lossy().ends_with('/');
    let name = |chart: &str, ext: &str| {
        if as_dir {
            target.join(format!("whatif-{chart}.{ext}"))
        } else {
            let prefix = target.file_name().map_or_else(
                || "whatif".to_string(),
                |n| n.to_string_lossy().into_owned(),
            );
            target.with_file_name(format!("{prefix}-{chart}.{ext}"))
        }
    };
    let mut v = Vec::new();
    for chart in ["misses", "timeline"] {
        for ext in ["png", "svg"] {
            v.push(name(chart, ext));
        }
    }
    v
}

/// Write both charts as PNG and SVG; returns the paths written.
pub(crate) fn write_plots(report: &Report, target: &Path) -> Result<Vec<PathBuf>> {
    let paths = plot_paths(target);
    for p in &paths {
        let svg = p.extension().is_some_and(|e| e == "svg");
        let timeline = p.to_string_lossy().contains("-timeline.");
        let bytes = match (svg, timeline) {
            (true, true) => timeline_svg(report)?.into_bytes(),
            (true, false) => misses_svg(report)?.into_bytes(),
            (false, true) => arclab_report::plot::png(TIMELINE_SIZE, |root| {
                draw_timeline(root, report).map_err(|e| e.to_string())
            })?,
            (false, false) => arclab_report::plot::png(MISSES_SIZE, |root| {
                draw_misses(root, report).map_err(|e| e.to_string())
            })?,
        };
        arclab_io::write_atomic(p, &bytes)?;
    }
    Ok(paths)
}

/// The misses chart as an SVG document.
pub(crate) fn misses_svg(report: &Report) -> Result<String> {
    Ok(arclab_report::plot::svg(MISSES_SIZE, |root| {
        draw_misses(root, report).map_err(|e| e.to_string())
    })?)
}

/// The timeline chart as an SVG document.
pub(crate) fn timeline_svg(report: &Report) -> Result<String> {
    Ok(arclab_report::plot::svg(TIMELINE_SIZE, |root| {
        draw_timeline(root, report).map_err(|e| e.to_string())
    })?)
}

type DrawResult<DB> = Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

/// Rows grouped by policy / version / prefetch, groups in first-seen order.
fn groups(rows: &[Row]) -> Vec<Vec<&Row>> {
    let mut out: Vec<Vec<&Row>> = Vec::new();
    for r in rows {
        match out.iter_mut().find(|g| g[0].group() == r.group()) {
            Some(g) => g.push(r),
            None => out.push(vec![r]),
        }
    }
    out
}

fn padded(lo: f64, hi: f64) -> (f64, f64) {
    if (hi - lo).abs() < 1e-9 {
        ((lo - 1.0).max(0.0), hi + 1.0)
    } else {
        let pad = (hi - lo) * 0.05;
        ((lo - pad).max(0.0), hi + pad)
    }
}

fn draw_misses<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    report: &Report,
) -> DrawResult<DB> {
    root.fill(&WHITE)?;
    let groups = groups(&report.rows);
    let caps = report.rows.iter().map(|r| r.c_max_bytes as f64 / GIB);
    let (x0, x1) = padded(
        caps.clone().fold(f64::INFINITY, f64::min).min(1e12),
        caps.fold(0.0, f64::max),
    );
    let ymax = report
        .rows
        .iter()
        .map(|r| r.misses_per_sec)
        .fold(0.0, f64::max)
        .max(1.0)
        * 1.1;
    let mut chart = ChartBuilder::on(root)
        .caption("Misses per second against the cap", ("sans-serif", 22))
        .margin(14)
        .margin_right(50)
        .x_label_area_size(44)
        .y_label_area_size(70)
        .build_cartesian_2d(x0..x1, 0.0..ymax)?;
    chart
        .configure_mesh()
        .x_desc("zfs_arc_max / capacity (GiB)")
        .y_desc("misses/s")
        .light_line_style(LIGHT)
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&|v| super::table::rate(*v))
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 15))
        .draw()?;
    for (i, g) in groups.iter().enumerate() {
        let c = colour(i);
        let mut pts: Vec<(f64, f64)> = g
            .iter()
            .map(|r| (r.c_max_bytes as f64 / GIB, r.misses_per_sec))
            .collect();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        chart
            .draw_series(LineSeries::new(pts.clone(), c.stroke_width(2)))?
            .label(g[0].group_label())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], c.stroke_width(2)));
        chart.draw_series(pts.iter().map(|&p| Circle::new(p, 4, c.filled())))?;
        // Cap labels once, on the first group's points.
        for r in g.iter().filter(|_| i == 0) {
            let label = if r.cap == "default" {
                "default".to_string()
            } else {
                r.cap.clone()
            };
            chart.draw_series(std::iter::once(
                EmptyElement::at((r.c_max_bytes as f64 / GIB, r.misses_per_sec))
                    + Text::new(
                        label,
                        (6, -16),
                        ("sans-serif", 12).into_font().color(&BLACK.mix(0.75)),
                    ),
            ))?;
        }
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.3))
        .label_font(("sans-serif", 13))
        .draw()?;
    Ok(())
}

/// The series of the first group's rows, with their row.
fn first_group_series(report: &Report) -> Vec<(&Row, &RunSeries)> {
    let Some(first) = report.rows.first() else {
        return Vec::new();
    };
    report
        .rows
        .iter()
        .zip(&report.series)
        .filter(|(r, s)| r.group() == first.group() && !s.points.is_empty())
        .collect()
}

fn draw_timeline<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    report: &Report,
) -> DrawResult<DB> {
    root.fill(&WHITE)?;
    let runs = first_group_series(report);
    let (top, bottom) = root.split_vertically((TIMELINE_SIZE.1 as f64 * 0.6) as u32);
    let tmax = runs
        .iter()
        .flat_map(|(_, s)| s.points.last())
        .map(|p| p.t_s)
        .fold(1.0, f64::max);
    let gib = |b: u64| b as f64 / GIB;
    let ymax = runs
        .iter()
        .flat_map(|(_, s)| &s.points)
        .map(|p| gib(p.size_bytes.max(p.c_bytes)))
        .fold(1.0, f64::max)
        * 1.08;
    let title = match runs.first() {
        Some((r, _)) => format!(
            "ARC size (solid) and target c (dashed): {}",
            r.group_label()
        ),
        None => "ARC size and target c (no time series recorded)".to_string(),
    };
    let mut chart = ChartBuilder::on(&top)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .margin_right(30)
        .x_label_area_size(30)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..tmax, 0.0..ymax)?;
    chart
        .configure_mesh()
        .y_desc("GiB")
        .light_line_style(LIGHT)
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&|v| format!("{v:.0}"))
        .label_style(("sans-serif", 13))
        .axis_desc_style(("sans-serif", 14))
        .draw()?;
    for (i, (row, s)) in runs.iter().enumerate() {
        let c = colour(i);
        chart
            .draw_series(LineSeries::new(
                s.points.iter().map(|p| (p.t_s, gib(p.size_bytes))),
                c.stroke_width(2),
            ))?
            .label(super::table::cap_label(row))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], c.stroke_width(2)));
        chart.draw_series(DashedLineSeries::new(
            s.points.iter().map(|p| (p.t_s, gib(p.c_bytes))),
            6,
            4,
            c.stroke_width(1),
        ))?;
    }
    if !runs.is_empty() {
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.3))
            .label_font(("sans-serif", 13))
            .draw()?;
    }

    // Bottom panel: the demand (shaded, from the first run: it is the same
    // for every cap) and each cap's shortfall.
    let demand: Vec<(f64, f64)> = runs
        .first()
        .map(|(_, s)| {
            s.points
                .iter()
                .map(|p| (p.t_s, gib(p.other_demand_bytes)))
                .collect()
        })
        .unwrap_or_default();
    let dmax = runs
        .iter()
        .flat_map(|(_, s)| &s.points)
        .map(|p| gib(p.other_demand_bytes.max(p.deficit_bytes)))
        .fold(0.5, f64::max)
        * 1.1;
    let mut low = ChartBuilder::on(&bottom)
        .caption(
            "Other processes' demand (shaded) and the host's shortfall per cap",
            ("sans-serif", 18),
        )
        .margin(12)
        .margin_right(30)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..tmax, 0.0..dmax)?;
    low.configure_mesh()
        .x_desc("simulated time (s)")
        .light_line_style(LIGHT)
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&|v| format!("{v:.0}"))
        .y_desc("GiB")
        .label_style(("sans-serif", 13))
        .axis_desc_style(("sans-serif", 14))
        .draw()?;
    if let (Some(first), Some(last)) = (demand.first(), demand.last()) {
        let mut poly = vec![(first.0, 0.0)];
        // A step shape: demand holds until the next sample.
        for w in demand.windows(2) {
            poly.push(w[0]);
            poly.push((w[1].0, w[0].1));
        }
        poly.push(*last);
        poly.push((last.0, 0.0));
        low.draw_series(std::iter::once(Polygon::new(
            poly,
            RGBColor(120, 120, 120).mix(0.25),
        )))?;
    }
    for (i, (_, s)) in runs.iter().enumerate() {
        let c = colour(i);
        low.draw_series(LineSeries::new(
            s.points.iter().map(|p| (p.t_s, gib(p.deficit_bytes))),
            c.stroke_width(2),
        ))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::fixture;
    use super::*;

    #[test]
    fn svgs_have_text_and_lines() {
        let r = fixture::report();
        let m = misses_svg(&r).unwrap();
        assert!(m.contains("<svg") && m.contains("Misses per second against the cap"));
        assert!(m.contains("zfs-arc 2.3.0, prefetch on"));
        let t = timeline_svg(&r).unwrap();
        assert!(t.contains("<polyline") || t.contains("<path"));
        assert!(t.contains("<polygon"), "demand is shaded");
        assert!(t.contains("default (30.24 GiB)"), "legend names the caps");
    }

    #[test]
    fn pngs_are_written_atomically_with_text() {
        let dir = tempfile::tempdir().unwrap();
        let written = write_plots(&fixture::report(), dir.path()).unwrap();
        assert_eq!(written.len(), 4);
        for p in &written {
            let bytes = std::fs::read(p).unwrap();
            assert!(
                bytes.len() > 5_000,
                "{} is {} bytes",
                p.display(),
                bytes.len()
            );
        }
        let png = std::fs::read(dir.path().join("whatif-misses.png")).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        // Only the four outputs: no temporary left behind.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 4);
    }

    #[test]
    fn plot_targets() {
        let dir = tempfile::tempdir().unwrap();
        let p = plot_paths(dir.path());
        assert!(p[0].ends_with("whatif-misses.png"));
        let p = plot_paths(&dir.path().join("run1"));
        assert_eq!(p[3], dir.path().join("run1-timeline.svg"));
    }

    #[test]
    fn empty_report_still_draws() {
        let mut r = fixture::report();
        r.rows.clear();
        r.series.clear();
        assert!(timeline_svg(&r).unwrap().contains("no time series"));
        assert!(misses_svg(&r).unwrap().contains("<svg"));
    }
}
