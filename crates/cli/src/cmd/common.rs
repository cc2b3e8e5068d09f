//! Argument types shared by the commands that read traces or replay
//! (`trace`, `sim`, `whatif`). The values they stand for (policies, caps,
//! sizes, trace options) are parsed by the libraries; this module only
//! adapts them to clap.

use super::UsageError;
use anyhow::Result;
use arclab_trace::{CsvOptions, Format, OpenOptions, TraceReader};
use std::path::Path;

/// `on` / `off`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum OnOff {
    On,
    Off,
}

/// A size in bytes (`16G`, `31.24GiB`), through the one size parser.
pub(crate) fn parse_size(s: &str) -> Result<u64, String> {
    arclab_arc::units::parse_bytes(s).map_err(|e| e.to_string())
}

/// `--threads`: at least 1; default all cores.
pub(crate) fn threads(n: Option<usize>) -> Result<usize> {
    match n {
        Some(0) => Err(UsageError("--threads must be at least 1".into()).into()),
        Some(t) => Ok(t),
        None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
    }
}

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
                return Err(UsageError(format!(
                    "--csv-delimiter takes one ASCII character, not `{d}`"
                ))
                .into());
            }
        };
        if self.csv_id_col == 0 {
            return Err(UsageError("csv columns are numbered from 1".into()).into());
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
