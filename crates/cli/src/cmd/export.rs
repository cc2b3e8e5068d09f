//! `arclab export`: query a Prometheus-compatible server's `query_range` for
//! ARC (or any) series and save them, with what was asked, as a versioned
//! gzipped JSON file (docs/measure.md).

use super::UsageError;
use crate::remote::{ServerArgs, fetch};
use anyhow::Result;
use arclab_metrics::series::{Dataset, Series};
use arclab_metrics::time::{format_time, parse_time};
use std::path::PathBuf;

/// Export series from a Prometheus-compatible server (Prometheus,
/// VictoriaMetrics, Thanos, Mimir) into a gzipped JSON file for `arclab compare`.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:\n  \
    arclab export --url http://prom:9090 --from now-30d --to now -o arc.json.gz\n  \
    arclab export --url http://vm:8428 --from 2025-09-11 --to 2025-10-02 --match 'instance=\"nas:9100\"' -o nas.json.gz\n  \
    arclab export --url https://mimir/prometheus --bearer-token-file ~/.mimir-token \\\n      \
    --metrics 'arc,node_disk_discarded_sectors_total{device=\"sda\"}' --from now-7d -o week.json.gz")]
pub(crate) struct ExportArgs {
    /// Server base URL, e.g. http://127.0.0.1:9090.
    #[arg(long)]
    url: String,
    /// Start: RFC 3339, a date, unix seconds, now-30d.
    #[arg(long)]
    from: String,
    /// End: like --from.
    #[arg(long, default_value = "now")]
    to: String,
    /// Resolution of the export: 15s, 5m, 1h.
    #[arg(long, default_value = "5m", value_parser = crate::args::seconds)]
    step: f64,
    /// `arc` (ARC preset, Linux and FreeBSD names), `arc-all`, or a comma-separated
    /// list of metric names and PromQL selectors.
    #[arg(long, default_value = "arc")]
    metrics: String,
    /// Label matchers added to every selector, e.g. 'instance="nas:9100"'.
    #[arg(long = "match", value_name = "SELECTOR")]
    matchers: Option<String>,
    /// Output file (.json.gz, or .json for plain JSON); written atomically.
    #[arg(long, short = 'o', value_name = "FILE")]
    output: PathBuf,
    #[command(flatten)]
    server: ServerArgs,
}

/// Series count and sample count of a data set.
pub(crate) fn sizes(series: &[Series]) -> (usize, usize) {
    (series.len(), series.iter().map(|s| s.points.len()).sum())
}

pub(crate) fn run(args: ExportArgs) -> Result<()> {
    let now = arclab_metrics::time::now();
    let usage = |flag: &str, e: &dyn std::fmt::Display| UsageError(format!("{flag}: {e}"));
    let from = parse_time(&args.from, now).map_err(|e| usage("--from", &e))?;
    let to = parse_time(&args.to, now).map_err(|e| usage("--to", &e))?;
    if to <= from {
        return Err(UsageError(format!(
            "--to ({}) must be after --from ({})",
            format_time(to),
            format_time(from)
        ))
        .into());
    }
    let matchers = args.matchers.clone().unwrap_or_default();
    let file = fetch(
        &args.url,
        &args.server,
        &args.metrics,
        &matchers,
        from,
        to,
        args.step,
    )?;
    let data: Dataset = file.dataset();
    let (n, samples) = sizes(&data.series);
    if n == 0 {
        anyhow::bail!(
            "no series matched {} between {} and {}; nothing written to {}",
            args.metrics,
            format_time(from),
            format_time(to),
            args.output.display()
        );
    }
    file.write_atomic(&args.output)?;
    eprintln!(
        "arclab: wrote {n} series, {samples} samples to {}",
        args.output.display()
    );
    Ok(())
}
