//! `arclab trace info` and `arclab trace convert`, and the trace options
//! every command that reads a trace shares.

use crate::output::{self, Table};
use crate::progress::Progress;
use anyhow::{Context, Result};
use arclab_arc::units::format_bytes;
use arclab_trace::stats::TraceStats;
use arclab_trace::{CsvOptions, Format, OpenOptions, TraceReader};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// How to read a trace file.
#[derive(clap::Args, Debug, Clone)]
pub(crate) struct TraceInput {
    /// Trace format: oracleGeneral, lcs, vscsi, csv, txt, lis.
    /// Default: detected from the extension and the file's first bytes.
    #[arg(long, short = 'f')]
    format: Option<Format>,
    /// csv: 1-based column of the object id.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 1,
        help_heading = "CSV input"
    )]
    csv_id_col: usize,
    /// csv: 1-based column of the time in seconds.
    #[arg(long, value_name = "N", help_heading = "CSV input")]
    csv_time_col: Option<usize>,
    /// csv: 1-based column of the object size in bytes.
    #[arg(long, value_name = "N", help_heading = "CSV input")]
    csv_size_col: Option<usize>,
    /// csv: 1-based column of the operation (read/write, get/set, 28/2a).
    #[arg(long, value_name = "N", help_heading = "CSV input")]
    csv_op_col: Option<usize>,
    /// csv: the first line is a header (default: detected).
    #[arg(long, help_heading = "CSV input", conflicts_with = "csv_no_header")]
    csv_header: bool,
    /// csv: the first line is data.
    #[arg(long, help_heading = "CSV input")]
    csv_no_header: bool,
    /// csv: field delimiter (one character; `\t` for tab).
    #[arg(
        long,
        value_name = "C",
        default_value = ",",
        help_heading = "CSV input"
    )]
    csv_delimiter: String,
    /// csv: object ids are not numbers; hash them.
    #[arg(long, help_heading = "CSV input")]
    csv_hash_ids: bool,
}

impl TraceInput {
    fn options(&self) -> Result<OpenOptions> {
        let delimiter = match self.csv_delimiter.as_str() {
            "\\t" | "tab" => b'\t',
            d if d.len() == 1 => d.as_bytes()[0],
            d => {
                return Err(super::UsageError(format!(
                    "--csv-delimiter takes one ASCII character, not `{d}`"
                ))
                .into());
            }
        };
        if self.csv_id_col == 0 {
            return Err(super::UsageError("csv columns are numbered from 1".into()).into());
        }
        Ok(OpenOptions {
            format: self.format,
            csv: CsvOptions {
                time_col: self.csv_time_col,
                id_col: self.csv_id_col,
                size_col: self.csv_size_col,
                op_col: self.csv_op_col,
                has_header: if self.csv_header {
                    Some(true)
                } else if self.csv_no_header {
                    Some(false)
                } else {
                    None
                },
                delimiter,
                id_is_num: !self.csv_hash_ids,
            },
            ..OpenOptions::default()
        })
    }

    /// Open `path` with these options.
    pub(crate) fn open(&self, path: &Path) -> Result<TraceReader> {
        let opts = self.options()?;
        Ok(arclab_trace::open(path, &opts)?)
    }
}

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
