//! `arclab trace info` and `arclab trace convert`.

use crate::args::TraceInput;
use crate::output::{self, Table};
use crate::progress::Progress;
use anyhow::{Context, Result};
use arclab_arc::units::format_bytes;
use arclab_trace::capture::{CaptureHeader, CaptureInfo, CaptureSummary};
use arclab_trace::stats::TraceStats;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Inspect or convert trace files.
#[derive(clap::Subcommand, Debug)]
pub(crate) enum TraceCommand {
    /// Summarise a trace: requests, unique objects, bytes, working set, time
    /// span, read/write mix, one-hit wonders and reuse distances. For an
    /// `.arct` capture also its host, ARC size at the start, pools and
    /// datasets, lost records and the kernel's demand hit ratio (the requests
    /// counted are its demand reads).
    Info {
        /// The trace file.
        file: PathBuf,
        #[command(flatten)]
        input: TraceInput,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Convert a trace to oracleGeneral (next-access times filled in), so
    /// libCacheSim can replay it. `.zst` or `.gz` on OUT compresses.
    Convert {
        /// The trace to read.
        input_file: PathBuf,
        /// Where to write (replaced atomically).
        output_file: PathBuf,
        #[command(flatten)]
        input: TraceInput,
    },
}

pub(crate) fn run(cmd: TraceCommand) -> Result<()> {
    match cmd {
        TraceCommand::Info { file, input, json } => info(&file, &input, json),
        TraceCommand::Convert {
            input_file,
            output_file,
            input,
        } => convert(&input_file, &output_file, &input),
    }
}

#[derive(Serialize)]
struct Info<'a> {
    trace: String,
    format: String,
    n_req: u64,
    n_obj: u64,
    n_req_byte: u64,
    working_set_bytes: u64,
    start_time_secs: f64,
    end_time_secs: f64,
    time_span_secs: f64,
    /// `None` where the format does not record the operation.
    n_read: Option<u64>,
    n_write: Option<u64>,
    n_delete: Option<u64>,
    ops_recorded: bool,
    one_hit_wonders: u64,
    one_hit_wonder_ratio: f64,
    reuse_distance: &'a arclab_trace::stats::ReuseSummary,
    /// Facts of an `.arct` capture (absent for other formats).
    #[serde(skip_serializing_if = "Option::is_none")]
    capture: Option<CaptureFacts<'a>>,
}

/// What `trace info` says about an `.arct` capture.
#[derive(Serialize)]
struct CaptureFacts<'a> {
    header: &'a CaptureHeader,
    pools: usize,
    datasets: usize,
    /// Records of every kind; the trace's requests are the demand reads.
    records: u64,
    demand: u64,
    demand_cached: u64,
    prefetch: u64,
    prefetch_cached: u64,
    files: u64,
    /// `demand_cached / demand`: how often the real ARC answered a demand read.
    kernel_demand_hit_ratio: Option<f64>,
    /// Reads the kstat ring dropped (from the summary; `None` without one).
    lost: Option<u64>,
    /// `None` when the capture did not finish (killed, or still running).
    summary: Option<&'a CaptureSummary>,
    /// Where the file is cut, when it ends inside a block.
    truncated: Option<&'a str>,
}

impl<'a> CaptureFacts<'a> {
    fn new(c: &'a CaptureInfo) -> Self {
        CaptureFacts {
            header: &c.header,
            pools: c.dictionary.pools.len(),
            datasets: c.dictionary.datasets.len(),
            records: c.records,
            demand: c.demand,
            demand_cached: c.demand_cached,
            prefetch: c.prefetch,
            prefetch_cached: c.prefetch_cached,
            files: c.files,
            kernel_demand_hit_ratio: c.demand_hit_ratio(),
            lost: c.summary.as_ref().map(|s| s.lost),
            summary: c.summary.as_ref(),
            truncated: c.truncated.as_deref(),
        }
    }

    /// Rows of the text table.
    fn rows(&self) -> Vec<(&'static str, String)> {
        let h = self.header;
        let opt_bytes = |b: Option<u64>| b.map_or("unknown".to_string(), format_bytes);
        let mut rows = vec![
            (
                "captured on",
                format!(
                    "{} ({}, OpenZFS {}) by {}, started at Unix time {}",
                    h.host,
                    h.os,
                    h.zfs_version.as_deref().unwrap_or("version unknown"),
                    h.tool,
                    h.created_unix_s
                ),
            ),
            (
                "sample rate",
                if h.sample_rate >= 1.0 {
                    "1 (every block)".to_string()
                } else {
                    format!("{} (spatial: blocks kept by hash)", h.sample_rate)
                },
            ),
            (
                "ARC c at start",
                format!(
                    "{} (c_min {}, c_max {}; RAM {})",
                    opt_bytes(h.arc_c_bytes),
                    opt_bytes(h.arc_c_min_bytes),
                    opt_bytes(h.arc_c_max_bytes),
                    opt_bytes(h.ram_bytes)
                ),
            ),
            (
                "pools / datasets",
                format!("{} / {}", self.pools, self.datasets),
            ),
            (
                "capture records",
                format!(
                    "{} ({} demand, {} prefetch; the requests above are the demand reads)",
                    self.records, self.demand, self.prefetch
                ),
            ),
            (
                "kernel demand hit ratio",
                match self.kernel_demand_hit_ratio {
                    Some(r) => format!(
                        "{:.1} % ({} of {} demand reads found in the ARC)",
                        100.0 * r,
                        self.demand_cached,
                        self.demand
                    ),
                    None => "none (no demand reads)".to_string(),
                },
            ),
            (
                "lost records",
                match self.summary {
                    Some(s) => format!("{} (stopped by {})", s.lost, s.stopped_by),
                    None => "unknown: no summary, the capture did not finish".to_string(),
                },
            ),
        ];
        if let Some(t) = self.truncated {
            rows.push(("truncated", t.to_string()));
        }
        rows
    }
}

fn info(path: &Path, input: &TraceInput, json: bool) -> Result<()> {
    let mut reader = input.open(path)?;
    let mut bar = Progress::count("reading requests");
    let stats = TraceStats::compute(&mut reader, |n| bar.set(n));
    bar.finish();
    let s = stats?;
    if s.n_req == 0 {
        anyhow::bail!("{}: the trace holds no requests", path.display());
    }
    let span = s.end_time_ns.saturating_sub(s.start_time_ns) as f64 / 1e9;
    let ops = arclab_trace::stats::records_op(
        reader.format(),
        reader.lcs_stats().map(|l| l.version),
        input.options()?.csv.op_col,
    );
    let info = Info {
        trace: path.display().to_string(),
        format: reader.format().to_string(),
        n_req: s.n_req,
        n_obj: s.n_obj,
        n_req_byte: s.n_req_byte,
        working_set_bytes: s.working_set_bytes,
        start_time_secs: s.start_time_ns as f64 / 1e9,
        end_time_secs: s.end_time_ns as f64 / 1e9,
        time_span_secs: span,
        n_read: ops.then_some(s.n_read),
        n_write: ops.then_some(s.n_write),
        n_delete: ops.then_some(s.n_delete),
        ops_recorded: ops,
        one_hit_wonders: s.one_hit_wonders,
        one_hit_wonder_ratio: s.one_hit_wonders as f64 / s.n_obj.max(1) as f64,
        reuse_distance: &s.reuse_distance,
        capture: reader.capture_info().map(CaptureFacts::new),
    };
    if json {
        let mut out = serde_json::to_string_pretty(&info)?;
        out.push('\n');
        return output::print(&out);
    }
    let pct = |a: u64| format!("{:.1} %", 100.0 * a as f64 / s.n_req.max(1) as f64);
    let mut t = Table::new(&["", ""]);
    let rd = &s.reuse_distance;
    for (k, v) in [
        ("trace", info.trace.clone()),
        ("format", info.format.clone()),
        ("requests", s.n_req.to_string()),
        ("unique objects", s.n_obj.to_string()),
        ("requested bytes", format_bytes(s.n_req_byte)),
        ("working set", format_bytes(s.working_set_bytes)),
        ("time span", format!("{span:.0} s")),
        (
            "reads / writes / deletes",
            if ops {
                format!(
                    "{} / {} / {}",
                    pct(s.n_read),
                    pct(s.n_write),
                    pct(s.n_delete)
                )
            } else {
                format!("unknown ({} does not record the operation)", info.format)
            },
        ),
        (
            "one-hit wonders",
            format!(
                "{} ({:.1} % of objects)",
                s.one_hit_wonders,
                100.0 * info.one_hit_wonder_ratio
            ),
        ),
        ("reuses", rd.count.to_string()),
        (
            "reuse distance (objects)",
            format!(
                "mean {:.0}, p50 {}, p90 {}, p99 {}, max {}",
                rd.mean, rd.p50, rd.p90, rd.p99, rd.max
            ),
        ),
    ]
    .into_iter()
    .chain(info.capture.iter().flat_map(CaptureFacts::rows))
    {
        t.push(vec![k.to_string(), v]);
    }
    let text = t.to_text();
    // Drop the empty header line.
    output::print(text.split_once('\n').map_or("", |(_, rest)| rest))
}

fn convert(input_path: &Path, output_path: &Path, input: &TraceInput) -> Result<()> {
    let reader = input.open(input_path)?;
    let mut first_error = None;
    let reqs = reader.map_while(|r| match r {
        Ok(r) => Some(r),
        Err(e) => {
            first_error = Some(e);
            None
        }
    });
    // The writer holds the requests to fill in next-access times, then renames
    // its temporary file into place only when everything was written.
    let collected: Vec<_> = reqs.collect();
    if let Some(e) = first_error {
        return Err(e).context("nothing was written");
    }
    if collected.is_empty() {
        anyhow::bail!("{}: the trace holds no requests", input_path.display());
    }
    let n = arclab_trace::write_oracle_general(output_path, collected)
        .with_context(|| format!("writing {}", output_path.display()))?;
    eprintln!(
        "wrote {n} requests to {} (oracleGeneral)",
        output_path.display()
    );
    Ok(())
}
