//! CloudPhysics vscsi traces, version 1 (32-byte records) and 2 (40-byte records).
//!
//! v1: `u32 sn | u32 len | u32 nSG | u16 cmd | u16 ver | u64 lbn | u64 ts(µs)`;
//! v2: `u16 cmd | u16 ver | u32 sn | u32 len | u32 nSG | u64 lbn | u64 ts | u64 rt`.
//! The version is `ver >> 8`, checked on the first two records (v2 first, as
//! libCacheSim does). Key = lbn, size = len, time = ts µs → ns; the SCSI command
//! gives the op (WRITE(6/10/12/16) → write, anything else → read).

use arclab_arc::{Op, Request};

use crate::error::TraceErrorKind;
use crate::records::{RecordFormat, u16_at, u32_at, u64_at};

/// The two vscsi record layouts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Vscsi {
    V1,
    V2,
}

const N_TEST: usize = 2;

/// The version the first records announce, if any. With `require_two`, a
/// single record is not enough (used by format detection to avoid false positives).
pub(crate) fn detect_version(head: &[u8], require_two: bool) -> Option<Vscsi> {
    let check = |rs: usize, ver_off: usize, want: u16| {
        let n = (head.len() / rs).min(N_TEST);
        if n == 0 || (require_two && n < N_TEST) {
            return false;
        }
        (0..n).all(|i| u16_at(head, i * rs + ver_off) >> 8 == want)
    };
    if check(40, 2, 2) {
        Some(Vscsi::V2)
    } else if check(32, 14, 1) {
        Some(Vscsi::V1)
    } else {
        None
    }
}

#[inline(always)]
fn op_of(cmd: u16) -> Op {
    match cmd as u8 {
        0x0a | 0x2a | 0xaa | 0x8a => Op::Write,
        _ => Op::Read,
    }
}

impl RecordFormat for Vscsi {
    #[inline(always)]
    fn record_size(&self) -> usize {
        match self {
            Vscsi::V1 => 32,
            Vscsi::V2 => 40,
        }
    }

    #[inline(always)]
    fn decode(&self, rec: &[u8]) -> Result<Option<Request>, TraceErrorKind> {
        let (cmd, len) = match self {
            Vscsi::V1 => (u16_at(rec, 12), u32_at(rec, 4)),
            Vscsi::V2 => (u16_at(rec, 0), u32_at(rec, 8)),
        };
        let lbn = u64_at(rec, 16);
        let ts = u64_at(rec, 24);
        let mut r = Request::read(ts.saturating_mul(1000), lbn, len);
        r.op = op_of(cmd);
        Ok(Some(r))
    }
}
