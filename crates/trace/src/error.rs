//! The one error type of the crate: what went wrong, in which file, where.

use std::fmt;
use std::io;

/// Where in the trace an error was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Location {
    /// The error concerns the file as a whole (opening, detection, empty file).
    File,
    /// A binary record: 0-based record index and the byte offset of the record
    /// in the (decompressed) stream.
    Record {
        /// 0-based index of the record.
        index: u64,
        /// Byte offset of the record's first byte in the decompressed stream.
        offset: u64,
    },
    /// A byte offset in the (decompressed) stream, e.g. inside a header.
    Offset(u64),
    /// A 1-based line number of a text trace.
    Line(u64),
}

/// What went wrong.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TraceErrorKind {
    /// An I/O error from the file system or a decompressor.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// The trace (after decompression) holds no bytes at all.
    #[error("empty trace")]
    Empty,
    /// The file is named `.zst` but does not start with the zstd magic.
    #[error("not a zstd stream: {0}")]
    NotZstd(String),
    /// The file is named `.gz` but does not start with the gzip magic.
    #[error("not a gzip stream: {0}")]
    NotGzip(String),
    /// Neither the name nor the content tells the format.
    #[error("cannot detect the trace format of {0}; pass --format")]
    UnknownFormat(String),
    /// A format name that [`crate::Format::from_str`](std::str::FromStr) does not know.
    #[error(
        "unknown trace format name {0:?} (expected oracleGeneral, lcs, vscsi, csv, txt, lis or arct)"
    )]
    UnknownFormatName(String),
    /// A binary record (or header) ends before its last byte.
    #[error("truncated {what}: {got} of {want} bytes")]
    Truncated {
        /// "record" or "lcs header", …
        what: &'static str,
        /// Bytes present.
        got: usize,
        /// Bytes needed.
        want: usize,
    },
    /// An lcs header whose start or end magic is wrong.
    #[error("bad lcs {which} magic {found:#018x} (expected 0x123456789abcdef0)")]
    BadLcsMagic {
        /// "start" or "end".
        which: &'static str,
        /// The value found.
        found: u64,
    },
    /// An lcs version this reader does not know.
    #[error("unsupported lcs version {0} (supported: 1 to 8)")]
    UnsupportedLcsVersion(u64),
    /// The first vscsi records carry no valid version.
    #[error("not a vscsi trace: version byte of the first records is neither 1 nor 2")]
    BadVscsiVersion,
    /// An object size that does not fit the 32-bit size of a request.
    #[error("object size {0} does not fit in 32 bits")]
    SizeTooLarge(i128),
    /// A `.lis` line asks for more blocks than one request can hold.
    #[error(
        "block count {blocks} is above {limit}: a .lis line is one request of at most {limit} blocks (the ARC paper's traces stay at or below 128)"
    )]
    RunTooLong {
        /// The block count found.
        blocks: u64,
        /// The most a line may have ([`crate::MAX_LIS_RUN_BLOCKS`]).
        limit: u64,
    },
    /// A text line refers to a column it does not have.
    #[error("column {col} out of range (line has {n_cols} columns)")]
    ColumnOutOfRange {
        /// The 1-based column asked for.
        col: usize,
        /// Columns on the line.
        n_cols: usize,
    },
    /// A text line is not valid UTF-8.
    #[error("invalid UTF-8")]
    InvalidUtf8,
    /// A text line longer than the reader accepts.
    #[error("line longer than {0} bytes")]
    LineTooLong(usize),
    /// A field that should be a number is not.
    #[error("invalid {field} {value:?}")]
    InvalidField {
        /// Which field ("time", "size", "op", "start block", …).
        field: &'static str,
        /// The text found (shortened to 64 bytes).
        value: String,
    },
    /// Bad options given by the caller (e.g. column 0).
    #[error("invalid option: {0}")]
    InvalidOption(String),
    /// A malformed `.arct` capture: bad magic, newer version, bad block
    /// header, zstd error, bad record or JSON. The message names the block
    /// (1-based) and record.
    #[error("{0}")]
    BadCapture(String),
}

/// An error reading or writing a trace.
///
/// Its [`Display`](fmt::Display) is one line naming the file and the place:
/// `FILE: record 1234 (byte offset 29616): truncated record: 10 of 24 bytes`,
/// `FILE: line 17: column 5 out of range (line has 4 columns)`, `FILE: empty trace`.
#[derive(Debug)]
pub struct TraceError {
    name: String,
    location: Location,
    kind: TraceErrorKind,
}

impl TraceError {
    /// An error about `name` at `location`.
    pub fn new(name: impl Into<String>, location: Location, kind: TraceErrorKind) -> Self {
        TraceError {
            name: name.into(),
            location,
            kind,
        }
    }

    /// What went wrong.
    pub fn kind(&self) -> &TraceErrorKind {
        &self.kind
    }

    /// Where it went wrong.
    pub fn location(&self) -> Location {
        self.location
    }

    /// The file (or stream name) concerned.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.name)?;
        match self.location {
            Location::File => {}
            Location::Record { index, offset } => {
                // Records are numbered from 1 in messages, like lines.
                write!(f, "record {} (byte offset {offset}): ", index + 1)?
            }
            Location::Offset(o) => write!(f, "byte offset {o}: ")?,
            Location::Line(l) => write!(f, "line {l}: ")?,
        }
        // io::Error's Display is one line; keep ours one line too.
        let msg = self.kind.to_string();
        f.write_str(&msg.replace('\n', " "))
    }
}

impl std::error::Error for TraceError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            TraceErrorKind::Io(e) => Some(e),
            _ => None,
        }
    }
}

/// Shorten a field for an error message (at most 64 bytes, on a char boundary).
pub(crate) fn shorten(s: &[u8]) -> String {
    let s = String::from_utf8_lossy(s);
    if s.len() <= 64 {
        return s.into_owned();
    }
    let mut end = 64;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}
