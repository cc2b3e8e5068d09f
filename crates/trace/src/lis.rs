//! The ARC paper's `.lis` traces: lines `start_block n_blocks ignore request_no`
//! (whitespace-separated); each line expands into `n_blocks` requests for keys
//! `start_block ..= start_block + n_blocks - 1`, each of the configured block
//! size, at time 0.

use arclab_arc::Request;

/// The most blocks one `.lis` line may expand to: 65,536 (32 MiB of
/// 512-byte blocks, more than any single I/O of the traced hosts). Every
/// line of the ARC paper's traces in `data/traces/` asks for at most 128
/// (`P3.lis`); a 27-byte line asking for 2^64 blocks ran `trace info`
/// without end (issue 14).
pub const MAX_RUN_BLOCKS: u64 = 1 << 16;

use crate::error::{TraceError, TraceErrorKind};
use crate::lines::{LineReader, invalid, parse_u64};
use crate::source::Source;

/// Streaming, lazily expanding `.lis` reader.
pub(crate) struct LisReader {
    lines: LineReader,
    block_size: u32,
    next_key: u64,
    remaining: u64,
}

impl LisReader {
    pub(crate) fn new(src: Source, name: &str, block_size: u32) -> Result<Self, TraceError> {
        Ok(LisReader {
            lines: LineReader::new(src, name)?,
            block_size,
            next_key: 0,
            remaining: 0,
        })
    }

    pub(crate) fn read_batch(
        &mut self,
        out: &mut Vec<Request>,
        max: usize,
    ) -> Result<usize, TraceError> {
        let mut appended = 0;
        while appended < max {
            if self.remaining > 0 {
                let k = self.remaining.min((max - appended) as u64);
                out.reserve(k as usize);
                for i in 0..k {
                    out.push(Request::read(0, self.next_key + i, self.block_size));
                }
                // Cannot overflow: checked when the line was parsed.
                self.next_key = self.next_key.wrapping_add(k);
                self.remaining -= k;
                appended += k as usize;
                continue;
            }
            let Some(line) = self.lines.next_line()? else {
                break;
            };
            match parse_line(line) {
                Ok(Some((start, n))) => {
                    self.next_key = start;
                    self.remaining = n;
                }
                Ok(None) => {}
                Err(k) => return Err(self.lines.line_err(k)),
            }
        }
        Ok(appended)
    }
}

/// `(start, n_blocks)` of a line; `None` for blank lines.
fn parse_line(line: &str) -> Result<Option<(u64, u64)>, TraceErrorKind> {
    let mut it = line.split_ascii_whitespace();
    let Some(start) = it.next() else {
        return Ok(None);
    };
    let n_cols = 1 + it.clone().count();
    let Some(n) = it.next() else {
        return Err(TraceErrorKind::ColumnOutOfRange { col: 2, n_cols });
    };
    let start = parse_u64(start).ok_or_else(|| invalid("start block", start))?;
    let n = parse_u64(n).ok_or_else(|| invalid("block count", n))?;
    if n > MAX_RUN_BLOCKS {
        return Err(TraceErrorKind::RunTooLong {
            blocks: n,
            limit: MAX_RUN_BLOCKS,
        });
    }
    if n > 0 && start.checked_add(n - 1).is_none() {
        return Err(invalid(
            "block count",
            &format!("{n} (overflows from block {start})"),
        ));
    }
    Ok(Some((start, n)))
}
