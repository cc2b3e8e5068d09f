//! `arclab trace info` and `arclab trace convert`.

use crate::args::TraceInput;
use crate::output::{self, Table};
use crate::progress::Progress;
use anyhow::{Context, Result};
use arclab_arc::units::format_bytes;
use arclab_trace::stats::TraceStats;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Inspect or convert trace files.
#[derive(clap::Subcommand, Debug)]
pub(crate) enum TraceCommand {
    /// Summarise a trace: requests, unique objects, bytes, working set, time
    /// span, read/write mix, one-hit wonders and reuse distances.
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
    ] {
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
