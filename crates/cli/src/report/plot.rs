//! Charts for `arclab whatif --plot` and `--report`, drawn with `plotters`
//! into SVG (a string) or PNG (bytes), both written through `arclab-io`'s
//! atomic writer:
//!
//! - `misses`: demand misses per second against the cap (`c_max`), one line per
//!   policy / version / prefetch group;
//! - `timeline`: the ARC's size (solid) and target `c` (dashed, darker, drawn
//!   on top) over time, one colour per cap of the first group, the warm-up
//!   shaded; below it, the other processes' memory demand (shaded) and what
//!   the host was short of, per cap (or a note that it never was). The
//!   legend is a column beside the panels, so it covers no data; a cap whose
//!   line coincides with another's is drawn as a wide pale band under it and
//!   its legend entry names the other.
//!
//! Text is laid out with DejaVu Sans through arclab's one plot setup,
//! [`arclab_report::plot`] (embedded font, no system font needed; SVG
//! viewers render the text with their own sans-serif).

use super::{Report, Row, RunSeries};
use anyhow::Result;
use arclab_report::plot::tick;
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
        .y_desc("demand misses/s")
        .light_line_style(LIGHT)
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&|v| tick(*v))
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

/// Whether two runs drew the same size line (every point within 0.5 % of
/// the larger), so one would hide the other.
fn same_line(a: &RunSeries, b: &RunSeries) -> bool {
    a.points.len() == b.points.len()
        && a.points.iter().zip(&b.points).all(|(p, q)| {
            let (x, y) = (p.size_bytes as f64, q.size_bytes as f64);
            (x - y).abs() <= 0.005 * x.max(y) && (p.t_s - q.t_s).abs() < 1e-9
        })
}

/// `colour` darkened, for the dashed `c` lines drawn over the size lines.
fn darker(c: RGBColor) -> RGBColor {
    let d = |v: u8| (f64::from(v) * 0.55) as u8;
    RGBColor(d(c.0), d(c.1), d(c.2))
}

/// Draws a legend entry's mark at height `y` of the legend area.
type LegendMark<'a, DB> = dyn Fn(&DrawingArea<DB, Shift>, i32) -> DrawResult<DB> + 'a;

/// Width of the legend column right of the timeline's panels, in pixels.
const LEGEND_WIDTH: u32 = 230;

fn draw_timeline<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    report: &Report,
) -> DrawResult<DB> {
    root.fill(&WHITE)?;
    let runs = first_group_series(report);
    let (plots, legend) = root.split_horizontally(TIMELINE_SIZE.0 - LEGEND_WIDTH);
    let (top, bottom) = plots.split_vertically((TIMELINE_SIZE.1 as f64 * 0.6) as u32);
    let (legend_top, legend_bottom) =
        legend.split_vertically((TIMELINE_SIZE.1 as f64 * 0.6) as u32);
    let tmax = runs
        .iter()
        .flat_map(|(_, s)| s.points.last())
        .map(|p| p.t_s)
        .fold(1.0, f64::max);
    let warm = report.warmup_s.clamp(0.0, tmax);
    let gib = |b: u64| b as f64 / GIB;
    let ymax = runs
        .iter()
        .flat_map(|(_, s)| &s.points)
        .map(|p| gib(p.size_bytes.max(p.c_bytes)))
        .fold(1.0, f64::max)
        * 1.08;
    let title = match runs.first() {
        Some((r, _)) => format!("ARC size and target c: {}", r.group_label()),
        None => "ARC size and target c (no time series recorded)".to_string(),
    };
    let mut chart = ChartBuilder::on(&top)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .margin_right(16)
        .x_label_area_size(30)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..tmax, 0.0..ymax)?;
    chart
        .configure_mesh()
        .y_desc("GiB")
        .light_line_style(LIGHT)
        .x_label_formatter(&|v| tick(*v))
        .y_label_formatter(&|v| tick(*v))
        .label_style(("sans-serif", 13))
        .axis_desc_style(("sans-serif", 14))
        .draw()?;
    let warm_shade = RGBColor(120, 120, 120).mix(0.15);
    if warm > 0.0 {
        chart.draw_series(std::iter::once(Rectangle::new(
            [(0.0, 0.0), (warm, ymax)],
            warm_shade.filled(),
        )))?;
        chart.draw_series(std::iter::once(Text::new(
            "warm-up",
            (warm * 0.04, ymax * 0.97),
            ("sans-serif", 12).into_font().color(&BLACK.mix(0.7)),
        )))?;
    }
    // A run whose line a later run covers exactly is drawn first as a wide,
    // pale band, so both colours stay visible; the legend says they coincide.
    let twin: Vec<Option<usize>> = (0..runs.len())
        .map(|i| (0..runs.len()).find(|&j| j != i && same_line(runs[i].1, runs[j].1)))
        .collect();
    for (i, (_, s)) in runs.iter().enumerate() {
        let c = colour(i);
        let style = if twin[i].is_some_and(|j| j > i) {
            c.mix(0.45).stroke_width(7)
        } else {
            c.stroke_width(2)
        };
        chart.draw_series(LineSeries::new(
            s.points.iter().map(|p| (p.t_s, gib(p.size_bytes))),
            style,
        ))?;
    }
    // Targets on top, darker and dashed, so they show even where c = size.
    for (i, (_, s)) in runs.iter().enumerate() {
        chart.draw_series(DashedLineSeries::new(
            s.points.iter().map(|p| (p.t_s, gib(p.c_bytes))),
            9,
            6,
            darker(colour(i)).stroke_width(2),
        ))?;
    }

    // The legend column, beside the plot so it covers no data.
    let font = ("sans-serif", 13).into_font();
    let mut y = 40;
    let line = |area: &DrawingArea<DB, Shift>,
                y: &mut i32,
                mark: &LegendMark<'_, DB>,
                text: &str|
     -> DrawResult<DB> {
        mark(area, *y)?;
        area.draw(&Text::new(text.to_string(), (40, *y - 7), font.clone()))?;
        *y += 22;
        Ok(())
    };
    legend_top.draw(&Text::new("cap", (8, 14), ("sans-serif", 14).into_font()))?;
    for (i, (row, _)) in runs.iter().enumerate() {
        let c = colour(i);
        let mut label = super::table::cap_label(row);
        if let Some(j) = twin[i] {
            label = format!("{label} = {}", runs[j].0.cap);
        }
        line(
            &legend_top,
            &mut y,
            &|a, y| a.draw(&PathElement::new(vec![(8, y), (32, y)], c.stroke_width(3))),
            &label,
        )?;
    }
    y += 8;
    line(
        &legend_top,
        &mut y,
        &|a, y| {
            a.draw(&PathElement::new(
                vec![(8, y), (32, y)],
                BLACK.stroke_width(2),
            ))
        },
        "ARC size (solid)",
    )?;
    line(
        &legend_top,
        &mut y,
        &|a, y| {
            a.draw(&PathElement::new(
                vec![(8, y), (16, y)],
                BLACK.stroke_width(2),
            ))?;
            a.draw(&PathElement::new(
                vec![(22, y), (32, y)],
                BLACK.stroke_width(2),
            ))
        },
        "target c (dashed, darker)",
    )?;
    if warm > 0.0 {
        line(
            &legend_top,
            &mut y,
            &|a, y| {
                a.draw(&Rectangle::new(
                    [(8, y - 6), (32, y + 6)],
                    warm_shade.filled(),
                ))
            },
            &format!("warm-up, first {} s: not counted", tick(warm)),
        )?;
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
    let short_any = runs
        .iter()
        .any(|(_, s)| s.points.iter().any(|p| p.deficit_bytes > 0));
    let mut low = ChartBuilder::on(&bottom)
        .caption(
            "Other processes' demand and the host's shortfall",
            ("sans-serif", 18),
        )
        .margin(12)
        .margin_right(16)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..tmax, 0.0..dmax)?;
    low.configure_mesh()
        .x_desc("simulated time (s)")
        .light_line_style(LIGHT)
        .x_label_formatter(&|v| tick(*v))
        .y_label_formatter(&|v| tick(*v))
        .y_desc("GiB")
        .label_style(("sans-serif", 13))
        .axis_desc_style(("sans-serif", 14))
        .draw()?;
    if warm > 0.0 {
        low.draw_series(std::iter::once(Rectangle::new(
            [(0.0, 0.0), (warm, dmax)],
            warm_shade.filled(),
        )))?;
    }
    let demand_fill = RGBColor(120, 120, 120).mix(0.25);
    if let (Some(first), Some(last)) = (demand.first(), demand.last()) {
        let mut poly = vec![(first.0, 0.0)];
        // A step shape: demand holds until the next sample.
        for w in demand.windows(2) {
            poly.push(w[0]);
            poly.push((w[1].0, w[0].1));
        }
        poly.push(*last);
        poly.push((last.0, 0.0));
        low.draw_series(std::iter::once(Polygon::new(poly, demand_fill)))?;
    }
    if short_any {
        for (i, (_, s)) in runs.iter().enumerate() {
            let c = colour(i);
            low.draw_series(LineSeries::new(
                s.points.iter().map(|p| (p.t_s, gib(p.deficit_bytes))),
                c.stroke_width(2),
            ))?;
        }
    } else if !runs.is_empty() {
        low.draw_series(std::iter::once(Text::new(
            "no shortfall at any cap: the host always got the memory it asked for",
            (tmax * 0.03, dmax * 0.93),
            ("sans-serif", 13).into_font().color(&BLACK.mix(0.8)),
        )))?;
    }
    let mut y = 40;
    line(
        &legend_bottom,
        &mut y,
        &|a, y| {
            a.draw(&Rectangle::new(
                [(8, y - 6), (32, y + 6)],
                demand_fill.filled(),
            ))
        },
        "other processes' demand",
    )?;
    if short_any {
        line(
            &legend_bottom,
            &mut y,
            &|a, y| {
                a.draw(&PathElement::new(
                    vec![(8, y), (32, y)],
                    colour(0).stroke_width(2),
                ))
            },
            "shortfall, per cap (colours above)",
        )?;
    } else {
        line(
            &legend_bottom,
            &mut y,
            &|_, _| Ok(()),
            "shortfall: none at any cap",
        )?;
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
    fn ticks_read_as_numbers() {
        // Issue 13: the misses plot's ticks read "1.0 k" and "0.0".
        assert_eq!(tick(0.0), "0");
        assert_eq!(tick(1000.0), "1,000");
        assert_eq!(tick(1500.0), "1,500");
        assert_eq!(tick(250.0), "250");
        assert_eq!(tick(2.5), "2.5");
        assert_eq!(tick(0.25), "0.25");
        assert_eq!(tick(1_234_567.0), "1,234,567");
        let m = misses_svg(&fixture::report()).unwrap();
        let texts: Vec<&str> = m
            .split("<text")
            .skip(1)
            .filter_map(|t| Some(t.split_once('>')?.1.split('<').next()?.trim()))
            .collect();
        assert!(
            !texts.iter().any(|t| *t == "0.0" || t.ends_with(" k")),
            "{texts:?}"
        );
        // The fixture's misses reach 1,900/s: the axis passes 1,000.
        assert!(
            texts.contains(&"0") && texts.contains(&"1,000"),
            "{texts:?}"
        );
    }

    /// The `x` of every `<text>` whose content is `label`.
    fn text_x(svg: &str, label: &str) -> Vec<f64> {
        svg.split("<text")
            .skip(1)
            .filter(|t| {
                t.split_once('>')
                    .is_some_and(|(_, rest)| rest.trim_start().starts_with(label))
            })
            .filter_map(|t| t.split("x=\"").nth(1)?.split('"').next()?.parse().ok())
            .collect()
    }

    #[test]
    fn timeline_legend_warm_up_and_coinciding_lines() {
        // Issue 13: the default line hid under 16G's, the legend covered
        // data, the warm-up was not marked, a flat-0 shortfall had no word.
        let r = fixture::report();
        let t = timeline_svg(&r).unwrap();
        // The fixture's default (c_max 30.24 GiB) and 16G both hold 15 GiB: the
        // same line, said in the legend.
        assert!(t.contains("default (30.24 GiB) = 16G"), "{t}");
        assert!(t.contains("16G = default"), "{t}");
        // Every legend entry lies right of the plotting panels.
        let panel_right = f64::from(TIMELINE_SIZE.0 - LEGEND_WIDTH);
        for label in [
            "default (30.24 GiB)",
            "12G",
            "8G",
            "4G",
            "ARC size (solid)",
            "target c",
        ] {
            let xs = text_x(&t, label);
            assert!(!xs.is_empty(), "no legend text {label}");
            assert!(xs.iter().all(|x| *x >= panel_right), "{label} at {xs:?}");
        }
        assert!(t.contains("warm-up, first 60 s: not counted"), "{t}");
        assert!(t.contains("shortfall, per cap"), "{t}");
        let mut calm = fixture::report();
        for s in &mut calm.series {
            for p in &mut s.points {
                p.deficit_bytes = 0;
            }
        }
        let t = timeline_svg(&calm).unwrap();
        assert!(t.contains("no shortfall at any cap"), "{t}");
        assert!(t.contains("shortfall: none at any cap"), "{t}");
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
