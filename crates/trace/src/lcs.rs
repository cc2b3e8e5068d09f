//! lcs: libCacheSim's current self-describing binary format.
//!
//! An 8192-byte header (`u64 start_magic | u64 version | 8000-byte stat block |
//! u64 unused[21] | u64 end_magic`, both magics `0x123456789abcdef0`) followed by
//! fixed-size records whose layout the version selects:
//!
//! | version | bytes | layout |
//! |---|---:|---|
//! | 1 | 24 | `u32 time | u64 id | u32 size | i64 next` |
//! | 2 | 28 | `u32 time | u64 id | u32 size | u32 op:8,tenant:24 | i64 next` |
//! | 3 | 36 | `u32 time | u64 id | i64 size | u32 op:8,tenant:24 | u32 ttl | i64 next` |
//! | 4..8 | 40/44/52/68/100 | v3 + 1/2/4/8/16 `u32` features |
//!
//! Zero-size records are skipped, as libCacheSim does.

use arclab_arc::{Op, Request};

use crate::error::TraceErrorKind;
use crate::records::{RecordFormat, u32_at, u64_at};

/// Size of the lcs header.
pub(crate) const HEADER_SIZE: usize = 8192;
/// Start and end magic of an lcs header.
pub(crate) const MAGIC: u64 = 0x1234_5678_9abc_def0;

/// The trace statistics stored in an lcs header (as written by the converter;
/// fields added after the file was written read as 0).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct LcsStats {
    /// lcs record-format version (1..=8).
    pub version: u64,
    /// Version of the statistics block.
    pub stat_version: i64,
    /// Number of requests.
    pub n_req: i64,
    /// Number of distinct objects.
    pub n_obj: i64,
    /// Bytes requested (sum of request sizes).
    pub n_req_byte: i64,
    /// Bytes of distinct objects.
    pub n_obj_byte: i64,
    /// First timestamp, seconds.
    pub start_ts: i64,
    /// Last timestamp, seconds.
    pub end_ts: i64,
    /// Number of reads.
    pub n_read: i64,
    /// Number of writes.
    pub n_write: i64,
    /// Number of deletes.
    pub n_delete: i64,
}

/// Record size of each lcs version, index = version.
const RECORD_SIZES: [usize; 9] = [0, 24, 28, 36, 40, 44, 52, 68, 100];

/// Parse and check a header (`head` holds at least [`HEADER_SIZE`] bytes).
pub(crate) fn parse_header(head: &[u8]) -> Result<LcsStats, TraceErrorKind> {
    let start = u64_at(head, 0);
    if start != MAGIC {
        return Err(TraceErrorKind::BadLcsMagic {
            which: "start",
            found: start,
        });
    }
    let end = u64_at(head, HEADER_SIZE - 8);
    if end != MAGIC {
        return Err(TraceErrorKind::BadLcsMagic {
            which: "end",
            found: end,
        });
    }
    let version = u64_at(head, 8);
    if !(1..=8).contains(&version) {
        return Err(TraceErrorKind::UnsupportedLcsVersion(version));
    }
    let stat = |i: usize| u64_at(head, 16 + 8 * i) as i64;
    Ok(LcsStats {
        version,
        stat_version: stat(0),
        n_req: stat(1),
        n_obj: stat(2),
        n_req_byte: stat(3),
        n_obj_byte: stat(4),
        start_ts: stat(5),
        end_ts: stat(6),
        n_read: stat(7),
        n_write: stat(8),
        n_delete: stat(9),
    })
}

/// The record layout of one lcs version.
pub(crate) struct Lcs {
    version: u64,
    size: usize,
}

impl Lcs {
    /// The layout of `version` (checked by [`parse_header`]).
    pub(crate) fn new(version: u64) -> Self {
        Lcs {
            version,
            size: RECORD_SIZES[version as usize],
        }
    }
}

/// libCacheSim's `req_op_e` → [`Op`].
#[inline(always)]
pub(crate) fn op_of(op: u8) -> Op {
    match op {
        // SET ADD CAS REPLACE APPEND PREPEND INCR DECR WRITE UPDATE
        3..=8 | 10 | 11 | 13 | 14 => Op::Write,
        9 => Op::Delete,
        // NOP GET GETS READ and unknown values
        _ => Op::Read,
    }
}

impl RecordFormat for Lcs {
    #[inline(always)]
    fn record_size(&self) -> usize {
        self.size
    }

    #[inline(always)]
    fn decode(&self, rec: &[u8]) -> Result<Option<Request>, TraceErrorKind> {
        let time = u32_at(rec, 0) as u64 * 1_000_000_000;
        let id = u64_at(rec, 4);
        let (size, op) = match self.version {
            1 => (u32_at(rec, 12) as u64, Op::Read),
            2 => (u32_at(rec, 12) as u64, op_of(rec[16])),
            _ => {
                let s = u64_at(rec, 12);
                if s > u32::MAX as u64 {
                    return Err(TraceErrorKind::SizeTooLarge(s as i64 as i128));
                }
                (s, op_of(rec[20]))
            }
        };
        if size == 0 {
            return Ok(None);
        }
        let mut r = Request::read(time, id, size as u32);
        r.op = op;
        Ok(Some(r))
    }
}
