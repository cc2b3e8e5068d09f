//! oracleGeneral: libCacheSim's 24-byte packed little-endian records, no header.
//!
//! `u32 clock_time (s) | u64 obj_id | u32 obj_size | i64 next_access_vtime`.
//! Zero-size records are skipped, as libCacheSim does by default
//! (`ignore_size_zero_req`).

use arclab_arc::Request;

use crate::error::TraceErrorKind;
use crate::records::{RecordFormat, u32_at, u64_at};

/// Bytes per oracleGeneral record.
pub(crate) const RECORD_SIZE: usize = 24;

/// The oracleGeneral record layout.
pub(crate) struct OracleGeneral;

impl RecordFormat for OracleGeneral {
    #[inline(always)]
    fn record_size(&self) -> usize {
        RECORD_SIZE
    }

    #[inline(always)]
    fn decode(&self, rec: &[u8]) -> Result<Option<Request>, TraceErrorKind> {
        let rec: &[u8; RECORD_SIZE] = rec.try_into().unwrap();
        let size = u32_at(rec, 12);
        if size == 0 {
            return Ok(None);
        }
        let time = u32_at(rec, 0) as u64 * 1_000_000_000;
        Ok(Some(Request::read(time, u64_at(rec, 4), size)))
    }
}
