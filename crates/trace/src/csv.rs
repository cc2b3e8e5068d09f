//! CSV (and other delimiter-separated) traces, libCacheSim style: 1-based
//! column numbers for time, object id, size and op; an optional header row.

use arclab_arc::{Op, Request};

use crate::CsvOptions;
use crate::error::{TraceError, TraceErrorKind};
use crate::lines::{LineReader, clean_field, invalid, parse_id, parse_u64};
use crate::source::Source;

/// Streaming CSV reader.
pub(crate) struct CsvReader {
    lines: LineReader,
    o: CsvOptions,
    /// The first line, when it is data (read early for header detection).
    first: Option<String>,
}

/// The op a CSV op field names.
pub(crate) fn parse_op(s: &str) -> Option<Op> {
    const READ: [&str; 6] = ["28", "0x28", "r", "read", "get", "gets"];
    const WRITE: [&str; 14] = [
        "2a", "0x2a", "w", "write", "set", "add", "cas", "replace", "append", "prepend", "update",
        "incr", "decr", "put",
    ];
    const DELETE: [&str; 4] = ["d", "del", "delete", "remove"];
    let eq = |list: &[&str]| list.iter().any(|w| w.eq_ignore_ascii_case(s));
    if eq(&READ) {
        Some(Op::Read)
    } else if eq(&WRITE) {
        Some(Op::Write)
    } else if eq(&DELETE) {
        Some(Op::Delete)
    } else {
        None
    }
}

/// Seconds (integer or decimal) → nanoseconds.
pub(crate) fn parse_time_ns(s: &str) -> Option<u64> {
    if let Some(v) = parse_u64(s) {
        return Some(v.saturating_mul(1_000_000_000));
    }
    let f: f64 = s.parse().ok()?;
    if f.is_finite() && f >= 0.0 {
        // `as` saturates at u64::MAX.
        Some((f * 1e9) as u64)
    } else {
        None
    }
}

/// The latest time a csv trace may carry, in seconds: 1e10 s (≈ 317 years,
/// beyond any Unix timestamp in use; its nanoseconds still fit in 64 bits).
/// Later times (`1e300`) would only saturate, and mean a wrong column or unit.
pub(crate) const MAX_TIME_S: u64 = 10_000_000_000;

/// The field name an out-of-range time is reported under.
const TIME_RANGE: &str = "time (seconds, finite, 0 to 1e10)";

/// [`parse_time_ns`] of a time within `0 ..= MAX_TIME_S` seconds.
fn time_in_range(s: &str) -> Option<u64> {
    if let Some(v) = parse_u64(s) {
        return (v <= MAX_TIME_S).then(|| v * 1_000_000_000);
    }
    let f: f64 = s.parse().ok()?;
    (f.is_finite() && f >= 0.0 && f <= MAX_TIME_S as f64).then_some((f * 1e9) as u64)
}

fn check_col(name: &str, c: Option<usize>) -> Result<(), TraceErrorKind> {
    if c == Some(0) {
        return Err(TraceErrorKind::InvalidOption(format!(
            "csv {name} column is 0; columns are numbered from 1"
        )));
    }
    Ok(())
}

impl CsvReader {
    pub(crate) fn new(src: Source, name: &str, o: &CsvOptions) -> Result<Self, TraceError> {
        let mut lines = LineReader::new(src, name)?;
        let opt_err = |k| TraceError::new(name, crate::error::Location::File, k);
        check_col("id", Some(o.id_col)).map_err(opt_err)?;
        check_col("time", o.time_col).map_err(opt_err)?;
        check_col("size", o.size_col).map_err(opt_err)?;
        check_col("op", o.op_col).map_err(opt_err)?;
        if !o.delimiter.is_ascii() || o.delimiter == b'\n' || o.delimiter == b'\r' {
            return Err(opt_err(TraceErrorKind::InvalidOption(format!(
                "csv delimiter {:?} must be an ASCII character other than a line break",
                o.delimiter as char
            ))));
        }
        let first = lines.next_line()?.unwrap_or("").to_string();
        let has_header = o.has_header.unwrap_or_else(|| looks_like_header(&first, o));
        Ok(CsvReader {
            lines,
            o: o.clone(),
            first: (!has_header).then_some(first),
        })
    }

    pub(crate) fn read_batch(
        &mut self,
        out: &mut Vec<Request>,
        max: usize,
    ) -> Result<usize, TraceError> {
        let mut appended = 0;
        if let Some(first) = self.first.take() {
            match parse_line(&first, &self.o) {
                Ok(Some(r)) => {
                    out.push(r);
                    appended += 1;
                }
                Ok(None) => {}
                Err(k) => return Err(self.lines.line_err(k)),
            }
        }
        while appended < max {
            let Some(line) = self.lines.next_line()? else {
                break;
            };
            match parse_line(line, &self.o) {
                Ok(Some(r)) => {
                    out.push(r);
                    appended += 1;
                }
                Ok(None) => {}
                Err(k) => return Err(self.lines.line_err(k)),
            }
        }
        Ok(appended)
    }
}

/// Header detection: the first line is a header when its id field is not a
/// number (with `id_is_num`; when the line lacks the id column: when any
/// field is not a number) or its time / size field is not a number.
fn looks_like_header(line: &str, o: &CsvOptions) -> bool {
    let d = o.delimiter as char;
    let field = |c: Option<usize>| c.and_then(|c| line.split(d).nth(c - 1)).map(clean_field);
    if o.id_is_num {
        match field(Some(o.id_col)) {
            Some(id) if parse_u64(id).is_none() => return true,
            Some(_) => {}
            // Too few columns for the id: a header when some field is not a number.
            None => {
                if line
                    .split(d)
                    .map(clean_field)
                    .any(|f| parse_time_ns(f).is_none())
                {
                    return true;
                }
            }
        }
    }
    field(o.time_col).is_some_and(|t| parse_time_ns(t).is_none())
        || field(o.size_col).is_some_and(|s| parse_u64(s).is_none())
}

/// One data line → a request; `None` for blank lines and zero-size requests.
fn parse_line(line: &str, o: &CsvOptions) -> Result<Option<Request>, TraceErrorKind> {
    if line.trim().is_empty() {
        return Ok(None);
    }
    let (mut id, mut time, mut size, mut op) = (None, None, None, None);
    let mut n_cols = 0;
    for (i, f) in line.split(o.delimiter as char).enumerate() {
        let c = Some(i + 1);
        n_cols = i + 1;
        if c == Some(o.id_col) {
            id = Some(f);
        }
        if c == o.time_col {
            time = Some(f);
        }
        if c == o.size_col {
            size = Some(f);
        }
        if c == o.op_col {
            op = Some(f);
        }
    }
    let need = |want: Option<usize>, got: Option<&str>| match (want, got) {
        (Some(col), None) => Err(TraceErrorKind::ColumnOutOfRange { col, n_cols }),
        _ => Ok(()),
    };
    need(Some(o.id_col), id)?;
    need(o.time_col, time)?;
    need(o.size_col, size)?;
    need(o.op_col, op)?;

    let key = parse_id(clean_field(id.unwrap_or_default()), o.id_is_num);
    let mut r = Request::read(0, key, 1);
    if let Some(t) = time {
        let t = clean_field(t);
        r.time_ns = time_in_range(t).ok_or_else(|| {
            let number = parse_u64(t).is_some() || t.parse::<f64>().is_ok();
            invalid(if number { TIME_RANGE } else { "time" }, t)
        })?;
    }
    if let Some(s) = size {
        let s = clean_field(s);
        let v = parse_u64(s).ok_or_else(|| invalid("size", s))?;
        r.size = u32::try_from(v).map_err(|_| TraceErrorKind::SizeTooLarge(v as i128))?;
        if r.size == 0 {
            // libCacheSim skips zero-size requests (ignore_size_zero_req).
            return Ok(None);
        }
    }
    if let Some(p) = op {
        let p = clean_field(p);
        r.op = parse_op(p).ok_or_else(|| invalid("op", p))?;
    }
    Ok(Some(r))
}

#[cfg(test)]
mod tests {
    use std::io::Cursor;

    use crate::{Format, OpenOptions, from_reader};

    /// The first error reading `text` as csv with a time column 1.
    fn first_error(text: &str) -> Option<String> {
        let mut o = OpenOptions::default();
        o.csv.time_col = Some(1);
        o.csv.id_col = 2;
        let mut r = from_reader(
            Cursor::new(text.as_bytes().to_vec()),
            Format::Csv,
            &o,
            "t.csv",
        )
        .map_err(|e| e.to_string())
        .ok()?;
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match r.read_batch(&mut buf, 64) {
                Ok(0) => return None,
                Ok(_) => {}
                Err(e) => return Some(e.to_string()),
            }
        }
    }

    #[test]
    fn times_out_of_range_name_the_line_and_field() {
        // Unix times (1.7e9 s) and the bound itself are fine.
        assert_eq!(first_error("1700000000.5,1\n10000000000,2\n"), None);
        for bad in [
            "1e300",
            "10000000001",
            "1e10000",
            "18446744073709551615",
            "NaN",
            "inf",
            "-1",
        ] {
            let e = first_error(&format!("1,1\n2,2\n{bad},3\n")).expect(bad);
            assert!(e.starts_with("t.csv: line 3: invalid time"), "{bad}: {e}");
            assert!(e.contains("0 to 1e10") && e.contains(bad), "{bad}: {e}");
        }
        // Not a number at all: the plain message.
        let e = first_error("1,1\nsoon,2\n").unwrap();
        assert_eq!(e, "t.csv: line 2: invalid time \"soon\"");
    }
}
