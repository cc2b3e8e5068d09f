//! `arclab compare`: what a change did, from an export file, a recording
//! database or a live server.

use super::UsageError;
use crate::args::FormatArgs;
use crate::output;
use crate::remote::{ServerArgs, fetch};
use anyhow::{Context, Result};
use arclab_metrics::compare::{self, CompareError, Options};
use arclab_metrics::export::read_dataset;
use arclab_metrics::query::{in_arc_preset, selector_name, split_list};
use arclab_metrics::report;
use arclab_metrics::series::{ChangeMarker, Dataset, Kind, arc_field};
use arclab_metrics::store::Store;
use arclab_metrics::time::{Window, format_time, parse_time};
use arclab_report::Format;
use std::path::{Path, PathBuf};

/// Compare two windows: gauges by mean and percentiles, counters by rate
/// (resets skipped and counted), the ARC's hit ratio, misses per second and
/// miss multiplier, with a batch-means uncertainty (`~` = not significant),
/// warnings on confounding changes, unequal windows and gaps.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:\n  \
    arclab compare arc.json.gz --before 2025-09-11..2025-09-21 --after 2025-09-22..2025-10-02\n  \
    arclab compare arc.db --around zfs_arc_max=8G --days 10 --skip 1d --plot arc.png\n  \
    arclab compare http://prom:9090 --match 'instance=\"nas:9100\"' --around 2025-09-21T14:00:00Z --json")]
pub(crate) struct CompareArgs {
    /// An export file (.json.gz), a recording database, or a server URL.
    source: String,
    /// Before window START..END (RFC 3339, dates, unix seconds, now-30d).
    #[arg(long, requires = "after", conflicts_with = "around")]
    before: Option<String>,
    /// After window START..END.
    #[arg(long, requires = "before")]
    after: Option<String>,
    /// The change: a time, or the text of a recorded change. Before = the
    /// --days before it; after = --days starting --skip after it.
    #[arg(long, value_name = "CHANGE")]
    around: Option<String>,
    /// Days in each window with --around.
    #[arg(long, default_value_t = 7.0, requires = "around")]
    days: f64,
    /// Time skipped after the change with --around (warm-up; 0 for none).
    #[arg(long, default_value = "1d", requires = "around", value_parser = skip)]
    skip: f64,
    /// `arc` (the ARC summary), `arc-all`, `all` (every series in a file), or a
    /// comma-separated list of metric names and PromQL selectors [default: `arc`;
    /// a file without ARC series: all].
    #[arg(long)]
    metrics: Option<String>,
    /// Label matchers, e.g. 'instance="nas:9100"' (files: `=` matchers only).
    #[arg(long = "match", value_name = "SELECTOR")]
    matchers: Option<String>,
    /// Treat this metric as a counter (repeatable).
    #[arg(long, value_name = "NAME")]
    counter: Vec<String>,
    /// Treat this metric as a gauge (repeatable).
    #[arg(long, value_name = "NAME")]
    gauge: Vec<String>,
    /// Read change markers from this recording database too.
    #[arg(long, value_name = "FILE")]
    changes: Option<PathBuf>,
    /// Significance level.
    #[arg(long, default_value_t = 0.05)]
    alpha: f64,
    /// Batches per window for the uncertainty [default: one per day for windows
    /// of five days or more, else 20].
    #[arg(long)]
    batches: Option<usize>,
    /// Step when reading from a server.
    #[arg(long, default_value = "5m", value_parser = crate::args::seconds)]
    step: f64,
    /// Write a plot of the series across both windows (.png or .svg).
    #[arg(long, value_name = "FILE")]
    plot: Option<PathBuf>,
    /// Write a self-contained HTML report.
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
    #[command(flatten)]
    format: FormatArgs,
    #[command(flatten)]
    server: ServerArgs,
}

/// `--skip`: a duration, or zero (`0`, `0s`, `0d`) for no warm-up.
fn skip(s: &str) -> Result<f64, String> {
    let zero = s.trim().trim_end_matches(|c: char| c.is_ascii_alphabetic()) == "0";
    if zero {
        Ok(0.0)
    } else {
        crate::args::seconds(s)
    }
}

fn usage(flag: &str, e: impl std::fmt::Display) -> anyhow::Error {
    UsageError(format!("{flag}: {e}")).into()
}

fn is_url(s: &str) -> bool {
    s.starts_with("http://") || s.starts_with("https://")
}

/// A recording database or an export file, by content.
fn load_file(path: &Path) -> Result<Dataset> {
    let mut head = [0u8; 16];
    let n = std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read(&mut f, &mut head))
        .with_context(|| path.display().to_string())?;
    if head[..n].starts_with(b"SQLite format 3\0") {
        Ok(Store::open_existing(path)?.dataset()?)
    } else {
        Ok(read_dataset(path)?)
    }
}

/// Find the change `--around` names: a time, else a recorded change's text.
fn resolve_change(around: &str, changes: &[ChangeMarker], now: f64) -> Result<ChangeMarker> {
    if let Ok(t) = parse_time(around, now) {
        let near = changes.iter().find(|c| (c.time - t).abs() < 1.0);
        return Ok(near.cloned().unwrap_or(ChangeMarker {
            time: t,
            what: format!("change at {}", format_time(t)),
        }));
    }
    let exact: Vec<&ChangeMarker> = changes.iter().filter(|c| c.what == around).collect();
    let hits = if exact.is_empty() {
        changes.iter().filter(|c| c.what.contains(around)).collect()
    } else {
        exact
    };
    match hits.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err(usage(
            "--around",
            format!("`{around}` is neither a time nor a recorded change"),
        )),
        many => Err(usage(
            "--around",
            format!(
                "`{around}` matches {} recorded changes ({}); give its time instead",
                many.len(),
                many.iter()
                    .map(|c| format!("{} at {}", c.what, format_time(c.time)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
    }
}

/// Keep the series `--metrics` and `--match` ask for; an item matching nothing is an error.
fn select(data: &mut Dataset, metrics: Option<&str>, matchers: Option<&str>) -> Result<()> {
    if let Some(m) = matchers {
        let inner = m.trim().trim_start_matches('{').trim_end_matches('}');
        for item in split_list(inner) {
            let (k, v) = item
                .split_once('=')
                .filter(|(k, v)| !k.ends_with(['!', '=']) && !v.starts_with('~'))
                .ok_or_else(|| {
                    usage(
                        "--match",
                        format!("`{item}`: files support only label=\"value\" matchers"),
                    )
                })?;
            let v = v.trim().trim_matches('"');
            data.series
                .retain(|s| s.labels.get(k.trim()).is_some_and(|x| x == v));
        }
        if data.series.is_empty() {
            anyhow::bail!("no series match {m}");
        }
    }
    let metrics = match metrics {
        Some(m) if m.trim() == "all" => return Ok(()),
        Some(m) => m,
        None => {
            let total = data.series.len();
            let arc = data
                .series
                .iter()
                .filter(|s| in_arc_preset(s.name()))
                .count();
            if arc == 0 || arc == total {
                return Ok(());
            }
            data.series.retain(|s| in_arc_preset(s.name()));
            eprintln!(
                "arclab: note: comparing the ARC summary ({arc} of {total} series); \
                 --metrics all compares every series"
            );
            return Ok(());
        }
    };
    let items = split_list(metrics);
    let mut keep = vec![false; data.series.len()];
    for item in &items {
        let test: Box<dyn Fn(&str) -> bool> = match item.as_str() {
            "arc" => Box::new(in_arc_preset),
            "arc-all" => Box::new(|n: &str| {
                n.starts_with("node_zfs_arc_")
                    || n.starts_with("node_zfs_arcstats_")
                    || n.starts_with("arclab_zfs_arc_")
            }),
            other => {
                let name = selector_name(other)
                    .ok_or_else(|| {
                        usage(
                            "--metrics",
                            format!("`{other}`: files take metric names, not expressions"),
                        )
                    })?
                    .to_string();
                Box::new(move |n: &str| n == name)
            }
        };
        let mut found = false;
        for (i, s) in data.series.iter().enumerate() {
            if test(s.name()) {
                keep[i] = true;
                found = true;
            }
        }
        if !found {
            let mut names: Vec<&str> = data.series.iter().map(|s| s.name()).collect();
            names.dedup();
            let shown = names
                .iter()
                .take(12)
                .copied()
                .collect::<Vec<_>>()
                .join(", ");
            anyhow::bail!(
                "unknown metric `{item}`: the source has no such series (it has {shown}{})",
                if names.len() > 12 { ", …" } else { "" }
            );
        }
    }
    let mut i = 0;
    data.series.retain(|_| {
        i += 1;
        keep[i - 1]
    });
    Ok(())
}

pub(crate) fn run(args: CompareArgs) -> Result<()> {
    let now = arclab_metrics::time::now();
    if !(args.alpha > 0.0 && args.alpha < 1.0) {
        return Err(usage("--alpha", "must be between 0 and 1"));
    }
    if let Some(k) = args.batches
        && !(2..=compare::MAX_BATCHES).contains(&k)
    {
        return Err(usage(
            "--batches",
            format!("must be 2 to {} per window, got {k}", compare::MAX_BATCHES),
        ));
    }
    let mut extra_changes = match &args.changes {
        Some(p) => Store::open_existing(p)?.changes()?,
        None => Vec::new(),
    };
    let file_data = if is_url(&args.source) {
        None
    } else {
        Some(load_file(Path::new(&args.source))?)
    };
    let known: Vec<ChangeMarker> = file_data
        .iter()
        .flat_map(|d| d.changes.iter().cloned())
        .chain(extra_changes.iter().cloned())
        .collect();
    let (before, after, change) = match (&args.before, &args.after, &args.around) {
        (Some(b), Some(a), _) => (
            Window::parse(b, now).map_err(|e| usage("--before", e))?,
            Window::parse(a, now).map_err(|e| usage("--after", e))?,
            None,
        ),
        (_, _, Some(around)) => {
            let ch = resolve_change(around, &known, now)?;
            let skip = args.skip;
            if !(args.days > 0.0 && args.days.is_finite()) {
                return Err(usage("--days", "must be above 0"));
            }
            if args.days * 86_400.0 > arclab_arc::units::MAX_DURATION_SECS {
                return Err(usage("--days", "must be at most 100 years (36525 days)"));
            }
            let len = args.days * 86_400.0;
            (
                Window {
                    start: ch.time - len,
                    end: ch.time,
                },
                Window {
                    start: ch.time + skip,
                    end: ch.time + skip + len,
                },
                Some(ch),
            )
        }
        _ => {
            return Err(UsageError(
                "give --before A..B and --after C..D, or --around CHANGE".into(),
            )
            .into());
        }
    };
    if before.end > after.start {
        return Err(UsageError(
            CompareError::WindowOrder {
                before: before.to_string(),
                after: after.to_string(),
            }
            .to_string(),
        )
        .into());
    }
    let mut data = match file_data {
        Some(mut d) => {
            select(&mut d, args.metrics.as_deref(), args.matchers.as_deref())?;
            d
        }
        None => {
            let step = args.step;
            let metrics = args.metrics.as_deref().unwrap_or("arc");
            if metrics.trim() == "all" {
                return Err(usage(
                    "--metrics",
                    "`all` reads every series of a file; from a server give `arc-all` or names",
                ));
            }
            let m = args.matchers.as_deref().unwrap_or("");
            let f = fetch(
                &args.source,
                &args.server,
                metrics,
                m,
                before.start,
                after.end,
                step,
            )?;
            let d = f.dataset();
            if d.series.is_empty() {
                anyhow::bail!(
                    "no series matched {metrics} on {} in {}..{}",
                    args.source,
                    format_time(before.start),
                    format_time(after.end)
                );
            }
            d
        }
    };
    data.changes.append(&mut extra_changes);
    let mut opts = Options::new(before, after);
    opts.alpha = args.alpha;
    opts.batches = args.batches;
    opts.keep_plot = args.plot.is_some() || args.report.is_some();
    opts.change = change.or_else(|| {
        data.changes
            .iter()
            .find(|c| c.time > before.end && c.time < after.start)
            .cloned()
    });
    for (names, kind) in [(&args.counter, Kind::Counter), (&args.gauge, Kind::Gauge)] {
        for n in names {
            opts.overrides.insert(n.clone(), kind);
        }
    }
    let c = compare::compare(&data, &opts)?;
    if let Some(p) = &args.plot {
        report::plot::render(&c, p)?;
        eprintln!("arclab: wrote {}", p.display());
    }
    if let Some(p) = &args.report {
        let page = report::html::page(&c)?;
        arclab_io::write_atomic(p, page.as_bytes())?;
        eprintln!("arclab: wrote {}", p.display());
    }
    let text = match args.format.format() {
        Format::Json => serde_json::to_string_pretty(&c)? + "\n",
        Format::Csv => report::csv(&c),
        Format::Markdown => report::markdown(&c),
        Format::Text | Format::Html => report::text(&c),
    };
    if !args.format.json
        && c.derived.hit_ratio.before.is_none()
        && data.series.iter().any(|s| arc_field(s.name()).is_some())
    {
        eprintln!("arclab: note: no hits/misses counters selected, so no hit ratio");
    }
    output::print(&text)
}
