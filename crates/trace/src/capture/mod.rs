//! `.arct`: arclab's own capture format, what `arclab capture` writes while it
//! polls OpenZFS's per-pool `reads` kstat (one record per `arc_read()`).
//!
//! Layout (all integers little-endian; `docs/formats.md` has the full
//! description):
//!
//! * file header: magic `ARCLABCT`, `u16` version (1), `u16` reserved (0),
//!   `u32` length of the JSON [`CaptureHeader`] that follows (≤ 1 MiB);
//! * blocks, each `u8 kind | 3 reserved zero bytes | u32 count | u32 raw_len |
//!   u32 comp_len` and one zstd frame of `comp_len` bytes that decompresses to
//!   exactly `raw_len` bytes (≤ 64 MiB): kind 1 = `count` 48-byte
//!   [`CaptureRecord`]s, kind 2 = a JSON [`Dictionary`] (the pools and datasets
//!   added since the previous one), kind 3 = the JSON [`CaptureSummary`],
//!   written once by [`CaptureWriter::finish`].
//!
//! A file cut anywhere (the capture was killed) reads up to its last complete
//! block: the incomplete tail ends the stream without an error and is
//! reported in [`CaptureInfo::truncated`]. Anything else malformed is a
//! [`TraceError`](crate::TraceError) naming the file and the block (1-based) or record.
//!
//! ```
//! use arclab_trace::capture::*;
//!
//! let header = CaptureHeader { host: "db1".into(), ..CaptureHeader::default() };
//! let mut w = CaptureWriter::new(Vec::new(), &header)?;
//! let pool = w.add_pool("tank")?;
//! w.add_dataset(Dataset { pool, objset: 54, name: "tank/db".into(), recordsize: 16384 })?;
//! let rec = CaptureRecord {
//!     time_ns: 0, pool, objset: 54, object: 2, level: 0, blkid: 7,
//!     size: 16384, aflags: ARC_FLAG_CACHED, pid: 1,
//! };
//! w.push(&rec)?;
//! w.push(&CaptureRecord { time_ns: 10, aflags: ARC_FLAG_PREFETCH, ..rec })?;
//! let bytes = w.finish(&CaptureSummary { records: 2, ..CaptureSummary::default() })?;
//!
//! let mut r = CaptureReader::new(&bytes[..], "mem.arct")?;
//! let recs = r.by_ref().collect::<Result<Vec<_>, _>>()?;
//! assert_eq!(recs.len(), 2);
//! assert_eq!(recs[0], rec);
//! let info = r.info();
//! assert_eq!((info.demand, info.demand_cached, info.prefetch), (1, 1, 1));
//! assert_eq!(info.dictionary.datasets[0].name, "tank/db");
//! assert!(info.summary.is_some() && info.truncated.is_none());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use arclab_arc::{Kind, Op, Request, block_key};
use serde::{Deserialize, Serialize};

/// The first eight bytes of every `.arct` file.
pub const MAGIC: [u8; 8] = *b"ARCLABCT";
/// The format version this code writes and the newest it reads.
pub const VERSION: u16 = 1;
/// `arc_flags_t` bit of a read issued by a prefetcher (OpenZFS `ARC_FLAG_PREFETCH`).
pub const ARC_FLAG_PREFETCH: u32 = 1 << 2;
/// `arc_flags_t` bit of a read the ARC answered from memory (OpenZFS `ARC_FLAG_CACHED`).
pub const ARC_FLAG_CACHED: u32 = 1 << 3;

/// Bytes of one record.
pub const RECORD_SIZE: usize = 48;
/// Bytes of the fixed part of the file header (before the JSON).
pub const FILE_HEADER_SIZE: usize = 16;
/// Bytes of a block header.
pub const BLOCK_HEADER_SIZE: usize = 16;
/// Largest JSON file header accepted (1 MiB).
pub const MAX_HEADER_LEN: u32 = 1 << 20;
/// Largest decompressed block accepted (64 MiB).
pub const MAX_RAW_LEN: u32 = 64 << 20;
/// Records per block written by [`CaptureWriter::push`] before it ends a block.
pub const RECORDS_PER_BLOCK: usize = 65_536;
/// Most distinct files (pool, objset, object) a capture may have to be read
/// as [`Request`]s: [`block_key`] keeps 23 bits of the file index.
pub const MAX_FILES: u32 = 1 << 23;

/// Block kind: records.
pub const KIND_RECORDS: u8 = 1;
/// Block kind: dictionary JSON.
pub const KIND_DICTIONARY: u8 = 2;
/// Block kind: summary JSON.
pub const KIND_SUMMARY: u8 = 3;

/// zstd level of the blocks.
const ZSTD_LEVEL: i32 = 3;

/// The facts written once at the start of a capture (JSON after the magic).
/// Fields missing from the JSON take their defaults; unknown fields are ignored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CaptureHeader {
    /// The writing program, e.g. `arclab 0.1.0`.
    pub tool: String,
    /// When the capture started, Unix seconds.
    pub created_unix_s: i64,
    /// The host name.
    pub host: String,
    /// The operating system (`linux`).
    pub os: String,
    /// OpenZFS version of the host, when known.
    pub zfs_version: Option<String>,
    /// Fraction of blocks kept, in (0, 1]: 1.0 keeps every block; spatial
    /// sampling keeps a block when hash(objset, object, blkid) < rate.
    pub sample_rate: f64,
    /// The host's memory, bytes.
    pub ram_bytes: Option<u64>,
    /// ARC target size `c` at the start, bytes.
    pub arc_c_bytes: Option<u64>,
    /// `c_min` at the start, bytes.
    pub arc_c_min_bytes: Option<u64>,
    /// `c_max` at the start, bytes.
    pub arc_c_max_bytes: Option<u64>,
    /// Sizes come from the dataset's recordsize, not from the block pointer.
    pub sizes_nominal: bool,
    /// Hits were logged (`zfs_read_history_hits=1`): the records are the
    /// whole workload and their `ARC_FLAG_CACHED` says what the kernel served
    /// from the ARC. `false`: misses only.
    pub hits_logged: bool,
    /// Whether the host's prefetcher was on (`zfs_prefetch_disable=0`), when
    /// known.
    pub prefetch: Option<bool>,
    /// Free-form remarks of the writer.
    pub notes: Vec<String>,
}

impl Default for CaptureHeader {
    fn default() -> Self {
        CaptureHeader {
            tool: concat!("arclab ", env!("CARGO_PKG_VERSION")).to_string(),
            created_unix_s: 0,
            host: String::new(),
            os: std::env::consts::OS.to_string(),
            zfs_version: None,
            sample_rate: 1.0,
            ram_bytes: None,
            arc_c_bytes: None,
            arc_c_min_bytes: None,
            arc_c_max_bytes: None,
            sizes_nominal: false,
            hits_logged: false,
            prefetch: None,
            notes: Vec::new(),
        }
    }
}

/// A pool of the capture; records name it by `index`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pool {
    /// Index used by [`CaptureRecord::pool`]; pools are numbered 0, 1, 2, … in
    /// the order they are added.
    pub index: u16,
    /// The pool's name.
    pub name: String,
}

/// A dataset (objset) of a pool.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dataset {
    /// Index of its pool.
    pub pool: u16,
    /// Objset id, as the kstat prints it.
    pub objset: u64,
    /// The dataset's name (`tank/db`).
    pub name: String,
    /// Its recordsize, bytes.
    pub recordsize: u32,
}

/// Pools and datasets (one dictionary block: those added since the previous
/// one; [`CaptureInfo::dictionary`]: all of them so far).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Dictionary {
    /// Pools, in index order.
    pub pools: Vec<Pool>,
    /// Datasets.
    pub datasets: Vec<Dataset>,
}

/// How the capture ended (the last block of a complete file).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CaptureSummary {
    /// Records written.
    pub records: u64,
    /// Reads the kstat ring dropped between polls (lost, not written).
    pub lost: u64,
    /// Polls of the kstat.
    pub polls: u64,
    /// Duration of the capture, ns.
    pub duration_ns: u64,
    /// Why it stopped (`duration`, `signal`, …).
    pub stopped_by: String,
    /// Anything else the writer wants to keep.
    pub extra: serde_json::Value,
}

/// One `arc_read()`, 48 bytes on disk.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaptureRecord {
    /// Nanoseconds since the capture's first record (stored as given).
    pub time_ns: u64,
    /// Index into the dictionary's pools.
    pub pool: u16,
    /// Objset id.
    pub objset: u64,
    /// Object number.
    pub object: u64,
    /// Block level: 0 = data, ≥ 1 indirect, negative = special (`-1` dnode,
    /// `-2` objset, as the kernel prints them).
    pub level: i8,
    /// Block id (the kernel's signed value, bit pattern kept).
    pub blkid: u64,
    /// Size in bytes (nominal: the dataset's recordsize when
    /// [`CaptureHeader::sizes_nominal`]).
    pub size: u32,
    /// `arc_flags_t` of the read ([`ARC_FLAG_PREFETCH`], [`ARC_FLAG_CACHED`]).
    pub aflags: u32,
    /// Process id of the reader.
    pub pid: u32,
}

impl CaptureRecord {
    /// The 48-byte encoding.
    pub fn to_bytes(&self) -> [u8; RECORD_SIZE] {
        let mut b = [0u8; RECORD_SIZE];
        b[0..8].copy_from_slice(&self.time_ns.to_le_bytes());
        b[8..16].copy_from_slice(&self.objset.to_le_bytes());
        b[16..24].copy_from_slice(&self.object.to_le_bytes());
        b[24..32].copy_from_slice(&self.blkid.to_le_bytes());
        b[32..36].copy_from_slice(&self.size.to_le_bytes());
        b[36..40].copy_from_slice(&self.aflags.to_le_bytes());
        b[40..44].copy_from_slice(&self.pid.to_le_bytes());
        b[44..46].copy_from_slice(&self.pool.to_le_bytes());
        b[46] = self.level as u8;
        b
    }

    /// Decode 48 bytes (the reserved byte 47 is not looked at).
    pub fn from_bytes(b: &[u8; RECORD_SIZE]) -> Self {
        let u64_at = |o: usize| u64::from_le_bytes(b[o..o + 8].try_into().unwrap());
        let u32_at = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
        CaptureRecord {
            time_ns: u64_at(0),
            objset: u64_at(8),
            object: u64_at(16),
            blkid: u64_at(24),
            size: u32_at(32),
            aflags: u32_at(36),
            pid: u32_at(40),
            pool: u16::from_le_bytes([b[44], b[45]]),
            level: b[46] as i8,
        }
    }

    /// Issued by a prefetcher.
    pub fn is_prefetch(&self) -> bool {
        self.aflags & ARC_FLAG_PREFETCH != 0
    }

    /// Answered from the ARC (a hit).
    pub fn is_cached(&self) -> bool {
        self.aflags & ARC_FLAG_CACHED != 0
    }

    /// The block's ARC identity in a file numbered `file`: level 0 →
    /// `block_key(file, 0, blkid mod 2^40)`; any other level (indirect, or the
    /// negative special levels) → `block_key(file, 1, (level as u8) << 32 |
    /// blkid mod 2^32)`, so blocks of different levels never collide.
    pub fn key(&self, file: u32) -> u64 {
        if self.level == 0 {
            block_key(file, 0, self.blkid & ((1 << 40) - 1))
        } else {
            block_key(
                file,
                1,
                ((self.level as u8 as u64) << 32) | (self.blkid & 0xFFFF_FFFF),
            )
        }
    }

    /// The request the model replays: [`Self::key`], the record's size and
    /// time, a read; data when `level == 0` and both objset and object are
    /// non-zero (object 0 is the dnode file, objset 0 the MOS), else metadata;
    /// `prefetch` from [`ARC_FLAG_PREFETCH`].
    pub fn to_request(&self, file: u32) -> Request {
        let data = self.level == 0 && self.object != 0 && self.objset != 0;
        Request {
            time_ns: self.time_ns,
            key: self.key(file),
            size: self.size,
            op: Op::Read,
            kind: if data { Kind::Data } else { Kind::Metadata },
            prefetch: self.is_prefetch(),
        }
    }
}

/// What a reader learned about a capture; grows while reading.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CaptureInfo {
    /// The file header.
    pub header: CaptureHeader,
    /// Every pool and dataset of the dictionary blocks read so far.
    pub dictionary: Dictionary,
    /// The summary block (`None` until read, and in a cut file).
    pub summary: Option<CaptureSummary>,
    /// Where the file was cut, when it ends inside a block.
    pub truncated: Option<String>,
    /// Records in the blocks read so far (demand and prefetch).
    pub records: u64,
    /// Demand reads.
    pub demand: u64,
    /// Demand reads the ARC answered ([`ARC_FLAG_CACHED`]).
    pub demand_cached: u64,
    /// Prefetch reads.
    pub prefetch: u64,
    /// Prefetch reads found in the ARC.
    pub prefetch_cached: u64,
    /// Distinct (pool, objset, object) among the records yielded so far.
    pub files: u64,
}

impl CaptureInfo {
    /// The kernel's demand hit ratio, `demand_cached / demand` (`None` without demand reads).
    pub fn demand_hit_ratio(&self) -> Option<f64> {
        (self.demand > 0).then(|| self.demand_cached as f64 / self.demand as f64)
    }
}

mod reader;
mod writer;

pub use reader::CaptureReader;
pub use writer::CaptureWriter;
