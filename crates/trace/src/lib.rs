//! `arclab-trace`: streaming readers and a writer for cache traces.
//!
//! Formats (see `docs/formats.md` for the exact layouts): libCacheSim's
//! **oracleGeneral** and **lcs** (v1–v8), CloudPhysics **vscsi** (v1/v2),
//! **csv**, plain **txt** (one id per line), the ARC paper's **lis** and
//! arclab's own ZFS capture format **arct** ([`capture`]).
//! Any of them may be gzip- or zstd-compressed; compression is recognised by
//! magic bytes and checked against a `.gz` / `.zst` extension.
//!
//! # Tour
//!
//! * [`open`] a trace ([`detect_format`] guesses the format from the name or
//!   the first bytes unless [`OpenOptions::format`] says it), or wrap any
//!   [`Read`] with [`from_reader`];
//! * pull requests in batches with [`TraceReader::read_batch`] (the fast path)
//!   or iterate over `Result<Request, TraceError>`;
//! * [`write_oracle_general`] writes oracleGeneral (optionally `.zst` / `.gz`),
//!   filling in next-access times;
//! * [`stats::TraceStats::compute`] summarises a trace, reuse distances included;
//! * [`clock`] times a trace for the ZFS model: one clock adapter per format.
//!
//! Every error is a [`TraceError`] whose `Display` names the file and the
//! record or line.
//!
//! ```
//! use arclab_trace::{from_reader, write_oracle_general, Format, OpenOptions};
//! use arclab_arc::Request;
//!
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("tiny.oracleGeneral.bin");
//! let reqs = [(1, 7), (2, 8), (3, 7)].map(|(t, k)| Request::read(t * 1_000_000_000, k, 4096));
//! assert_eq!(write_oracle_general(&path, reqs)?, 3);
//!
//! let mut reader = arclab_trace::open(&path, &OpenOptions::default())?;
//! assert_eq!(reader.format(), Format::OracleGeneral);
//! let mut batch = Vec::new();
//! while reader.read_batch(&mut batch, 1024)? > 0 {}
//! assert_eq!(batch.iter().map(|r| r.key).collect::<Vec<_>>(), [7, 8, 7]);
//!
//! // Text from memory, through the iterator interface:
//! let txt = std::io::Cursor::new(b"5\n6\n5".to_vec());
//! let keys: Vec<u64> = from_reader(txt, Format::Txt, &OpenOptions::default(), "mem.txt")?
//!     .map(|r| r.map(|r| r.key))
//!     .collect::<Result<_, _>>()?;
//! assert_eq!(keys, [5, 6, 5]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod capture;
pub mod clock;
mod csv;
mod error;
mod frames;
mod lcs;
mod lines;
mod lis;
mod oracle_general;
mod reader;
mod records;
mod source;
pub mod stats;
mod txt;
mod vscsi;
mod writer;

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::str::FromStr;

pub use error::{Location, TraceError, TraceErrorKind};
pub use lcs::LcsStats;
pub use lines::hash_id;
pub use lis::MAX_RUN_BLOCKS as MAX_LIS_RUN_BLOCKS;
pub use reader::TraceReader;
pub use writer::write_oracle_general;

use source::Compression;

/// A trace format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// libCacheSim oracleGeneral: 24-byte binary records, no header.
    OracleGeneral,
    /// libCacheSim lcs: 8192-byte header, records v1..v8.
    Lcs,
    /// CloudPhysics vscsi v1 / v2 binary records.
    Vscsi,
    /// Delimiter-separated text with configurable columns ([`CsvOptions`]).
    Csv,
    /// One object id per line.
    Txt,
    /// ARC paper `.lis`: `start n_blocks ignore req_no` per line.
    Lis,
    /// arclab's capture of a ZFS host's `arc_read()` calls ([`capture`]).
    Arct,
}

impl Format {
    /// Every format, in documentation order.
    pub const ALL: [Format; 7] = [
        Format::OracleGeneral,
        Format::Lcs,
        Format::Vscsi,
        Format::Csv,
        Format::Txt,
        Format::Lis,
        Format::Arct,
    ];

    /// The format's canonical name (`oracleGeneral`, `lcs`, …).
    pub const fn name(self) -> &'static str {
        match self {
            Format::OracleGeneral => "oracleGeneral",
            Format::Lcs => "lcs",
            Format::Vscsi => "vscsi",
            Format::Csv => "csv",
            Format::Txt => "txt",
            Format::Lis => "lis",
            Format::Arct => "arct",
        }
    }

    /// Whether the format's keys are ZFS block identities
    /// ([`arclab_arc::block_key`]: file, level, block id), so a replay can
    /// treat them per file (true only for [`Format::Arct`]).
    pub const fn block_keys(self) -> bool {
        matches!(self, Format::Arct)
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Format {
    type Err = TraceError;

    /// Case-insensitive; also accepts `oracle`, `og`, `bin`, `arc` (for lis)
    /// and `capture` (for arct).
    fn from_str(s: &str) -> Result<Self, TraceError> {
        Ok(match s.to_ascii_lowercase().as_str() {
            "oraclegeneral" | "oracle" | "og" | "bin" => Format::OracleGeneral,
            "lcs" => Format::Lcs,
            "vscsi" => Format::Vscsi,
            "csv" => Format::Csv,
            "txt" | "text" | "plain" => Format::Txt,
            "lis" | "arc" => Format::Lis,
            "arct" | "capture" => Format::Arct,
            _ => {
                return Err(TraceError::new(
                    s,
                    Location::File,
                    TraceErrorKind::UnknownFormatName(s.to_string()),
                ));
            }
        })
    }
}

/// How to read a csv trace (columns are 1-based, like libCacheSim's).
///
/// `id_is_num` also applies to txt traces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CsvOptions {
    /// Column of the time in seconds (integer or decimal); `None` = time 0.
    pub time_col: Option<usize>,
    /// Column of the object id.
    pub id_col: usize,
    /// Column of the size in bytes; `None` = size 1. Zero-size rows are skipped.
    pub size_col: Option<usize>,
    /// Column of the op (`28`/`2a`, `read`/`write`, `get`/`set`, `R`/`W`, `delete`, …);
    /// `None` = every request is a read.
    pub op_col: Option<usize>,
    /// Whether the first line is a header; `None` = detect (it is one when its
    /// id field, with `id_is_num`, or its time / size field is not a number).
    pub has_header: Option<bool>,
    /// Field delimiter (ASCII).
    pub delimiter: u8,
    /// Parse ids as numbers (decimal or `0x` hex); ids that do not parse are
    /// hashed with [`hash_id`] anyway. With `false` every id is hashed.
    pub id_is_num: bool,
}

impl Default for CsvOptions {
    fn default() -> Self {
        CsvOptions {
            time_col: None,
            id_col: 1,
            size_col: None,
            op_col: None,
            has_header: None,
            delimiter: b',',
            id_is_num: true,
        }
    }
}

/// Options of [`open`] and [`from_reader`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpenOptions {
    /// The format; `None` = [`detect_format`].
    pub format: Option<Format>,
    /// Column layout of csv traces.
    pub csv: CsvOptions,
    /// Bytes per block of `.lis` traces (default 512).
    pub lis_block_size: u32,
    /// arct captures: yield prefetch reads too (default: demand reads only,
    /// since a replay's own prefetcher issues the prefetches).
    pub capture_prefetch: bool,
}

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions {
            format: None,
            csv: CsvOptions::default(),
            lis_block_size: 512,
            capture_prefetch: false,
        }
    }
}

/// Open a trace file (compressed or not).
pub fn open(path: impl AsRef<Path>, opts: &OpenOptions) -> Result<TraceReader, TraceError> {
    let path = path.as_ref();
    let format = match opts.format {
        Some(f) => f,
        None => detect_format(path)?,
    };
    let name = path.display().to_string();
    let opened = source::open_path(path, &name)?;
    TraceReader::build(format, opened, opts, path.to_path_buf(), &name)
}

/// Read a trace of `format` from any byte stream (gzip / zstd recognised by
/// magic). `name` stands for the file in error messages and [`TraceReader::path`].
pub fn from_reader(
    r: impl Read + Send + 'static,
    format: Format,
    opts: &OpenOptions,
    name: &str,
) -> Result<TraceReader, TraceError> {
    let opened = source::wrap(Box::new(r), None, name, Compression::None)?;
    TraceReader::build(format, opened, opts, PathBuf::from(name), name)
}

/// Guess a file's format: from its extension after stripping `.gz` / `.zst`
/// (`.oracleGeneral`, `.bin` → oracleGeneral; `.lcs`, `.vscsi`, `.csv`,
/// `.txt`, `.lis`, `.arct`), else from its (decompressed) first bytes: the
/// arct magic `ARCLABCT`, the lcs start magic, or a valid vscsi version on
/// the first two records.
pub fn detect_format(path: &Path) -> Result<Format, TraceError> {
    let (stem, _) = source::split_compression_ext(path);
    if let Some((_, ext)) = stem.rsplit_once('.') {
        let by_ext = match ext.to_ascii_lowercase().as_str() {
            "oraclegeneral" | "bin" => Some(Format::OracleGeneral),
            "lcs" => Some(Format::Lcs),
            "vscsi" => Some(Format::Vscsi),
            "csv" => Some(Format::Csv),
            "txt" => Some(Format::Txt),
            "lis" => Some(Format::Lis),
            "arct" => Some(Format::Arct),
            _ => None,
        };
        if let Some(f) = by_ext {
            return Ok(f);
        }
    }
    let name = path.display().to_string();
    let mut opened = source::open_path(path, &name)?;
    let mut head = [0u8; 80];
    let got = source::read_full(&mut opened.src, &mut head)
        .map_err(|e| TraceError::new(name.as_str(), Location::File, TraceErrorKind::Io(e)))?;
    let head = &head[..got];
    if got == 0 {
        return Err(TraceError::new(name, Location::File, TraceErrorKind::Empty));
    }
    if got >= 8 && head[..8] == capture::MAGIC {
        return Ok(Format::Arct);
    }
    if got >= 8 && records::u64_at(head, 0) == lcs::MAGIC {
        return Ok(Format::Lcs);
    }
    if vscsi::detect_version(head, true).is_some() {
        return Ok(Format::Vscsi);
    }
    Err(TraceError::new(
        name.as_str(),
        Location::File,
        TraceErrorKind::UnknownFormat(name.clone()),
    ))
}
