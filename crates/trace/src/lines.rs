//! Shared machinery of the text formats: a streaming line reader with a reused
//! buffer, number parsing and the hash for non-numeric object ids.

use std::io::{BufRead, BufReader};

use crate::error::{Location, TraceError, TraceErrorKind, shorten};
use crate::source::{BUF_SIZE, Source};

/// Longest line accepted (keeps memory bounded on garbage input).
pub(crate) const MAX_LINE: usize = 1 << 20;

/// Reads a text trace line by line, reusing one buffer.
pub(crate) struct LineReader {
    src: BufReader<Source>,
    line: Vec<u8>,
    line_no: u64,
    name: String,
}

impl LineReader {
    /// Wrap `src`; fails with "empty trace" when it has no bytes.
    pub(crate) fn new(src: Source, name: &str) -> Result<Self, TraceError> {
        let mut r = LineReader {
            src: BufReader::with_capacity(BUF_SIZE, src),
            line: Vec::with_capacity(256),
            line_no: 0,
            name: name.to_string(),
        };
        let empty = match r.src.fill_buf() {
            Ok(b) => b.is_empty(),
            Err(e) => return Err(r.err(Location::File, TraceErrorKind::Io(e))),
        };
        if empty {
            return Err(r.err(Location::File, TraceErrorKind::Empty));
        }
        Ok(r)
    }

    /// An error about this trace.
    pub(crate) fn err(&self, loc: Location, kind: TraceErrorKind) -> TraceError {
        TraceError::new(self.name.as_str(), loc, kind)
    }

    /// An error about the line last returned.
    pub(crate) fn line_err(&self, kind: TraceErrorKind) -> TraceError {
        self.err(Location::Line(self.line_no), kind)
    }

    /// The next line without its `\n` / `\r\n`, or `None` at the end.
    pub(crate) fn next_line(&mut self) -> Result<Option<&str>, TraceError> {
        self.line.clear();
        let mut any = false;
        loop {
            let avail = match self.src.fill_buf() {
                Ok(a) => a,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    let loc = Location::Line(self.line_no + 1);
                    return Err(self.err(loc, TraceErrorKind::Io(e)));
                }
            };
            if avail.is_empty() {
                break;
            }
            any = true;
            let (take, done) = match avail.iter().position(|&b| b == b'\n') {
                Some(i) => (i, true),
                None => (avail.len(), false),
            };
            if self.line.len() + take > MAX_LINE {
                self.line_no += 1;
                return Err(self.line_err(TraceErrorKind::LineTooLong(MAX_LINE)));
            }
            self.line.extend_from_slice(&avail[..take]);
            self.src.consume(if done { take + 1 } else { take });
            if done {
                break;
            }
        }
        if !any {
            return Ok(None);
        }
        self.line_no += 1;
        if self.line.last() == Some(&b'\r') {
            self.line.pop();
        }
        match std::str::from_utf8(&self.line) {
            Ok(s) => Ok(Some(s)),
            Err(_) => Err(TraceError::new(
                self.name.as_str(),
                Location::Line(self.line_no),
                TraceErrorKind::InvalidUtf8,
            )),
        }
    }
}

/// Parse an unsigned integer: decimal, or hexadecimal with a `0x` prefix.
#[inline]
pub(crate) fn parse_u64(s: &str) -> Option<u64> {
    if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok()
    } else {
        s.parse().ok()
    }
}

/// The object id of a text field: the number when `id_is_num` and it parses,
/// else [`hash_id`] of its bytes.
#[inline]
pub(crate) fn parse_id(s: &str, id_is_num: bool) -> u64 {
    match parse_u64(s) {
        Some(v) if id_is_num => v,
        _ => hash_id(s.as_bytes()),
    }
}

/// The 64-bit id of a non-numeric object name: FNV-1a 64 followed by the
/// MurmurHash3 `fmix64` finaliser (stable across versions and platforms).
pub fn hash_id(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// Trim blanks and one pair of surrounding double quotes.
#[inline]
pub(crate) fn clean_field(s: &str) -> &str {
    let s = s.trim();
    s.strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .unwrap_or(s)
}

/// An "invalid FIELD" error kind.
pub(crate) fn invalid(field: &'static str, value: &str) -> TraceErrorKind {
    TraceErrorKind::InvalidField {
        field,
        value: shorten(value.as_bytes()),
    }
}
