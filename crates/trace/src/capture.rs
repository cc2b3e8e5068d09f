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
//! [`TraceError`] naming the file and the block (1-based) or record.
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

use std::hash::BuildHasherDefault;
use std::io::{self, Read, Write};

use arclab_arc::{Kind, Op, Request, block_key};
use serde::{Deserialize, Serialize};

use crate::error::{Location, TraceError, TraceErrorKind};
use crate::fasthash::KeyHasher;

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

fn invalid(msg: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, msg)
}

/// Writes a capture as records arrive; every [`flush`](Self::flush) ends a
/// block, so a file cut later loses at most the records pushed since.
///
/// `W` should be buffered or a file (each block is two `write_all` calls).
pub struct CaptureWriter<W: Write> {
    w: W,
    cctx: zstd::bulk::Compressor<'static>,
    buf: Vec<u8>,
    pending: usize,
    pools: hashbrown::HashMap<String, u16, BuildHasherDefault<KeyHasher>>,
    datasets: hashbrown::HashMap<(u16, u64), (String, u32), BuildHasherDefault<KeyHasher>>,
    new_dict: Dictionary,
    records: u64,
}

impl<W: Write> std::fmt::Debug for CaptureWriter<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CaptureWriter")
            .field("records", &self.records)
            .field("pending", &self.pending)
            .field("pools", &self.pools.len())
            .finish_non_exhaustive()
    }
}

impl<W: Write> CaptureWriter<W> {
    /// Start a capture: writes the file header to `w`.
    pub fn new(mut w: W, header: &CaptureHeader) -> io::Result<Self> {
        let json = serde_json::to_vec(header)?;
        if json.len() > MAX_HEADER_LEN as usize {
            return Err(invalid(format!(
                "capture header of {} bytes (at most {MAX_HEADER_LEN})",
                json.len()
            )));
        }
        let mut head = Vec::with_capacity(FILE_HEADER_SIZE + json.len());
        head.extend_from_slice(&MAGIC);
        head.extend_from_slice(&VERSION.to_le_bytes());
        head.extend_from_slice(&0u16.to_le_bytes());
        head.extend_from_slice(&(json.len() as u32).to_le_bytes());
        head.extend_from_slice(&json);
        w.write_all(&head)?;
        Ok(CaptureWriter {
            w,
            cctx: zstd::bulk::Compressor::new(ZSTD_LEVEL)?,
            buf: Vec::new(),
            pending: 0,
            pools: Default::default(),
            datasets: Default::default(),
            new_dict: Dictionary::default(),
            records: 0,
        })
    }

    /// The index of pool `name`, added (and queued into the next dictionary
    /// block) when new. At most 65,536 pools.
    pub fn add_pool(&mut self, name: &str) -> io::Result<u16> {
        if let Some(&i) = self.pools.get(name) {
            return Ok(i);
        }
        let index = u16::try_from(self.pools.len())
            .map_err(|_| invalid("more than 65,536 pools".to_string()))?;
        self.pools.insert(name.to_string(), index);
        self.new_dict.pools.push(Pool {
            index,
            name: name.to_string(),
        });
        Ok(index)
    }

    /// Queue a dataset for the next dictionary block (written before the
    /// next records block). Its pool must have been added; a dataset already
    /// written with the same name and recordsize is not repeated.
    pub fn add_dataset(&mut self, d: Dataset) -> io::Result<()> {
        if d.pool as usize >= self.pools.len() {
            return Err(invalid(format!(
                "dataset {}: pool index {} was not added",
                d.name, d.pool
            )));
        }
        let value = (d.name.clone(), d.recordsize);
        if self.datasets.get(&(d.pool, d.objset)) == Some(&value) {
            return Ok(());
        }
        self.datasets.insert((d.pool, d.objset), value);
        self.new_dict.datasets.push(d);
        Ok(())
    }

    /// Buffer a record; a records block is written every
    /// [`RECORDS_PER_BLOCK`] records. Its pool must have been added.
    pub fn push(&mut self, r: &CaptureRecord) -> io::Result<()> {
        if r.pool as usize >= self.pools.len() {
            return Err(invalid(format!(
                "record of pool index {} which was not added",
                r.pool
            )));
        }
        self.buf.extend_from_slice(&r.to_bytes());
        self.pending += 1;
        self.records += 1;
        if self.pending >= RECORDS_PER_BLOCK {
            self.write_pending()?;
        }
        Ok(())
    }

    /// Write the pending dictionary and records blocks and flush `W`.
    pub fn flush(&mut self) -> io::Result<()> {
        self.write_pending()?;
        self.w.flush()
    }

    /// Records pushed so far.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// The output (holding the blocks written so far).
    pub fn get_ref(&self) -> &W {
        &self.w
    }

    /// Flush, write the summary block, flush, and give `W` back.
    pub fn finish(mut self, summary: &CaptureSummary) -> io::Result<W> {
        self.write_pending()?;
        let json = serde_json::to_vec(summary)?;
        self.write_block(KIND_SUMMARY, 1, &json)?;
        self.w.flush()?;
        Ok(self.w)
    }

    fn write_pending(&mut self) -> io::Result<()> {
        if !self.new_dict.pools.is_empty() || !self.new_dict.datasets.is_empty() {
            let dict = std::mem::take(&mut self.new_dict);
            let count = (dict.pools.len() + dict.datasets.len()) as u32;
            let json = serde_json::to_vec(&dict)?;
            self.write_block(KIND_DICTIONARY, count, &json)?;
        }
        if self.pending > 0 {
            let raw = std::mem::take(&mut self.buf);
            let res = self.write_block(KIND_RECORDS, self.pending as u32, &raw);
            self.buf = raw;
            self.buf.clear();
            self.pending = 0;
            res?;
        }
        Ok(())
    }

    fn write_block(&mut self, kind: u8, count: u32, raw: &[u8]) -> io::Result<()> {
        if raw.len() > MAX_RAW_LEN as usize {
            return Err(invalid(format!(
                "block of {} bytes (at most {MAX_RAW_LEN})",
                raw.len()
            )));
        }
        let comp = self.cctx.compress(raw)?;
        let mut head = [0u8; BLOCK_HEADER_SIZE];
        head[0] = kind;
        head[4..8].copy_from_slice(&count.to_le_bytes());
        head[8..12].copy_from_slice(&(raw.len() as u32).to_le_bytes());
        head[12..16].copy_from_slice(&(comp.len() as u32).to_le_bytes());
        self.w.write_all(&head)?;
        self.w.write_all(&comp)
    }
}

type FileMap = hashbrown::HashMap<(u16, u64, u64), u32, BuildHasherDefault<KeyHasher>>;

/// Read until `buf` is full or the stream ends; I/O errors other than
/// `Interrupted` are returned.
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(k) => got += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// The [`CaptureInfo::truncated`] note of a file cut inside block `number`.
fn cut(number: u64, start: u64, part: &str, got: usize, want: usize) -> String {
    format!(
        "the file is cut inside block {number}, which starts at byte offset {start} \
         (its {part} has {got} of {want} bytes): the capture was interrupted; \
         read up to the end of block {}",
        number - 1
    )
}

fn kind_name(kind: u8) -> &'static str {
    match kind {
        KIND_RECORDS => "records",
        KIND_DICTIONARY => "dictionary",
        KIND_SUMMARY => "summary",
        _ => "unknown",
    }
}

/// A streaming reader of a capture's raw records.
///
/// [`CaptureReader::new`] reads and checks the file header; the records come
/// from [`next_record`](Self::next_record) (or the iterator) or, mapped to
/// [`Request`]s, from [`read_requests`](Self::read_requests). Memory: one
/// block (at most 64 MiB decompressed, 3 MiB as written) and one map entry
/// per distinct file. After an error the reader is finished. Give it a
/// buffered or file reader: it reads each block with a few `read` calls.
pub struct CaptureReader<R: Read> {
    r: R,
    name: String,
    info: CaptureInfo,
    /// Bytes of the file consumed so far.
    offset: u64,
    /// Blocks read so far.
    blocks: u64,
    comp: Vec<u8>,
    /// The current records block, decompressed and checked.
    raw: Vec<u8>,
    pos: usize,
    /// Records of the blocks before the current one.
    records_before: u64,
    /// Byte offset of the current records block.
    block_start: u64,
    dctx: zstd::bulk::Decompressor<'static>,
    files: FileMap,
    /// [`MAX_FILES`], lowered by the unit tests.
    max_files: u32,
    done: bool,
}

impl<R: Read> std::fmt::Debug for CaptureReader<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CaptureReader")
            .field("name", &self.name)
            .field("offset", &self.offset)
            .field("blocks", &self.blocks)
            .finish_non_exhaustive()
    }
}

impl<R: Read> CaptureReader<R> {
    /// Read and check the file header of `r`; `name` stands for the file in errors.
    pub fn new(mut r: R, name: &str) -> Result<Self, TraceError> {
        let err = |loc, kind| TraceError::new(name, loc, kind);
        let io_err = |e| err(Location::Offset(0), TraceErrorKind::Io(e));
        let bad = |loc, msg: String| err(loc, TraceErrorKind::BadCapture(msg));
        let mut head = [0u8; FILE_HEADER_SIZE];
        let got = read_full(&mut r, &mut head).map_err(io_err)?;
        if got == 0 {
            return Err(err(Location::File, TraceErrorKind::Empty));
        }
        if !head[..got.min(8)].iter().eq(MAGIC[..got.min(8)].iter()) {
            return Err(bad(
                Location::Offset(0),
                format!(
                    "not an arclab capture: the file does not start with the magic {:?}",
                    String::from_utf8_lossy(&MAGIC)
                ),
            ));
        }
        if got < FILE_HEADER_SIZE {
            return Err(err(
                Location::Offset(0),
                TraceErrorKind::Truncated {
                    what: "capture file header",
                    got,
                    want: FILE_HEADER_SIZE,
                },
            ));
        }
        let version = u16::from_le_bytes([head[8], head[9]]);
        if version > VERSION {
            return Err(bad(
                Location::Offset(8),
                format!(
                    "capture format version {version}: written by a newer arclab \
                     (this one reads version {VERSION}); upgrade arclab"
                ),
            ));
        }
        if version == 0 {
            return Err(bad(
                Location::Offset(8),
                "capture format version 0 does not exist".to_string(),
            ));
        }
        let reserved = u16::from_le_bytes([head[10], head[11]]);
        if reserved != 0 {
            return Err(bad(
                Location::Offset(10),
                format!("file header reserved field is {reserved:#06x}, not 0"),
            ));
        }
        let len = u32::from_le_bytes(head[12..16].try_into().unwrap());
        if len > MAX_HEADER_LEN {
            return Err(bad(
                Location::Offset(12),
                format!("header length {len} bytes exceeds the {MAX_HEADER_LEN}-byte limit"),
            ));
        }
        let mut json = vec![0u8; len as usize];
        let got = read_full(&mut r, &mut json).map_err(io_err)?;
        if got < json.len() {
            return Err(err(
                Location::Offset(FILE_HEADER_SIZE as u64),
                TraceErrorKind::Truncated {
                    what: "capture header JSON",
                    got,
                    want: json.len(),
                },
            ));
        }
        let header: CaptureHeader = serde_json::from_slice(&json).map_err(|e| {
            bad(
                Location::Offset(FILE_HEADER_SIZE as u64),
                format!("header JSON: {e}"),
            )
        })?;
        if !(header.sample_rate > 0.0 && header.sample_rate <= 1.0) {
            return Err(bad(
                Location::Offset(FILE_HEADER_SIZE as u64),
                format!(
                    "header JSON: sample_rate {} is not in (0, 1]",
                    header.sample_rate
                ),
            ));
        }
        Ok(CaptureReader {
            r,
            name: name.to_string(),
            info: CaptureInfo {
                header,
                ..CaptureInfo::default()
            },
            offset: (FILE_HEADER_SIZE + json.len()) as u64,
            blocks: 0,
            comp: Vec::new(),
            raw: Vec::new(),
            pos: 0,
            records_before: 0,
            block_start: 0,
            dctx: zstd::bulk::Decompressor::new().map_err(io_err)?,
            files: FileMap::default(),
            max_files: MAX_FILES,
            done: false,
        })
    }

    /// What has been learned so far (complete once the reader is exhausted).
    pub fn info(&self) -> &CaptureInfo {
        &self.info
    }

    /// The info, consuming the reader.
    pub fn into_info(self) -> CaptureInfo {
        self.info
    }

    /// The next record, `None` at the end (of a complete file, or of the
    /// last complete block of a cut one).
    pub fn next_record(&mut self) -> Result<Option<CaptureRecord>, TraceError> {
        let Some(rec) = self.next_raw()? else {
            return Ok(None);
        };
        let n = self.files.len() as u32;
        self.files
            .entry((rec.pool, rec.objset, rec.object))
            .or_insert(n);
        self.info.files = self.files.len() as u64;
        Ok(Some(rec))
    }

    /// Append up to `max` requests to `out` ([`CaptureRecord::to_request`]),
    /// demand reads only unless `prefetch`; returns how many (0 = end).
    /// Files are numbered densely in order of first appearance among the
    /// requests yielded; the [`MAX_FILES`]+1-th distinct file is an error.
    pub fn read_requests(
        &mut self,
        out: &mut Vec<Request>,
        max: usize,
        prefetch: bool,
    ) -> Result<usize, TraceError> {
        let mut n = 0;
        while n < max {
            let Some((req, _)) = self.next_request(prefetch)? else {
                break;
            };
            out.push(req);
            n += 1;
        }
        Ok(n)
    }

    /// The next demand read as a [`Request`] (numbered as
    /// [`read_requests`](Self::read_requests) numbers them), with whether
    /// the kernel served it from the ARC ([`ARC_FLAG_CACHED`]): what the
    /// self-check compares the model with.
    pub fn next_demand(&mut self) -> Result<Option<(Request, bool)>, TraceError> {
        self.next_request(false)
    }

    fn next_request(&mut self, prefetch: bool) -> Result<Option<(Request, bool)>, TraceError> {
        loop {
            let Some(rec) = self.next_raw()? else {
                return Ok(None);
            };
            if rec.is_prefetch() && !prefetch {
                continue;
            }
            let next = self.files.len() as u32;
            let file = *self
                .files
                .entry((rec.pool, rec.objset, rec.object))
                .or_insert(next);
            if file >= self.max_files {
                let i = self.pos / RECORD_SIZE;
                let e = self.bad(
                    Location::Offset(self.block_start),
                    format!(
                        "block {} (records), record {i} of {} (record {} of the capture): \
                         more than {} distinct files (pool, objset, object); a block key \
                         keeps 23 bits of the file: split the capture",
                        self.blocks,
                        self.raw.len() / RECORD_SIZE,
                        self.records_before + i as u64,
                        self.max_files
                    ),
                );
                self.done = true;
                self.raw.clear();
                self.pos = 0;
                return Err(e);
            }
            self.info.files = self.files.len() as u64;
            return Ok(Some((rec.to_request(file), rec.is_cached())));
        }
    }

    fn bad(&self, loc: Location, msg: String) -> TraceError {
        TraceError::new(self.name.as_str(), loc, TraceErrorKind::BadCapture(msg))
    }

    fn next_raw(&mut self) -> Result<Option<CaptureRecord>, TraceError> {
        while self.pos >= self.raw.len() {
            if self.done {
                return Ok(None);
            }
            if let Err(e) = self.next_block() {
                self.done = true;
                self.raw.clear();
                self.pos = 0;
                return Err(e);
            }
        }
        let rec = CaptureRecord::from_bytes(
            self.raw[self.pos..self.pos + RECORD_SIZE]
                .try_into()
                .unwrap(),
        );
        self.pos += RECORD_SIZE;
        Ok(Some(rec))
    }

    /// Read blocks until a records block is loaded or the stream ends
    /// (`done` set).
    fn next_block(&mut self) -> Result<(), TraceError> {
        self.records_before += (self.raw.len() / RECORD_SIZE) as u64;
        self.raw.clear();
        self.pos = 0;
        loop {
            let start = self.offset;
            let number = self.blocks + 1;
            let io_err = |e| {
                TraceError::new(
                    self.name.as_str(),
                    Location::Offset(start),
                    TraceErrorKind::Io(e),
                )
            };
            let mut head = [0u8; BLOCK_HEADER_SIZE];
            let got = read_full(&mut self.r, &mut head).map_err(io_err)?;
            if got == 0 {
                self.done = true;
                return Ok(());
            }
            if self.info.summary.is_some() {
                return Err(self.bad(
                    Location::Offset(start),
                    format!("block {number}: data after the summary block, which ends a capture"),
                ));
            }
            if got < BLOCK_HEADER_SIZE {
                self.done = true;
                self.info.truncated = Some(cut(number, start, "header", got, BLOCK_HEADER_SIZE));
                return Ok(());
            }
            let kind = head[0];
            let count = u32::from_le_bytes(head[4..8].try_into().unwrap());
            let raw_len = u32::from_le_bytes(head[8..12].try_into().unwrap());
            let comp_len = u32::from_le_bytes(head[12..16].try_into().unwrap());
            let what = format!("block {number} ({})", kind_name(kind));
            let name = self.name.as_str();
            let fail = |msg: String| {
                TraceError::new(
                    name,
                    Location::Offset(start),
                    TraceErrorKind::BadCapture(format!("{what}: {msg}")),
                )
            };
            if !(KIND_RECORDS..=KIND_SUMMARY).contains(&kind) {
                return Err(fail(format!(
                    "kind {kind} is none of 1 (records), 2 (dictionary), 3 (summary)"
                )));
            }
            if head[1..4] != [0, 0, 0] {
                return Err(fail(format!(
                    "reserved bytes {:02x} {:02x} {:02x} are not zero",
                    head[1], head[2], head[3]
                )));
            }
            if raw_len > MAX_RAW_LEN {
                return Err(fail(format!(
                    "raw_len {raw_len} bytes exceeds the {MAX_RAW_LEN}-byte block limit"
                )));
            }
            let bound = zstd::zstd_safe::compress_bound(raw_len as usize);
            if comp_len as usize > bound {
                return Err(fail(format!(
                    "comp_len {comp_len} exceeds zstd's bound {bound} for raw_len {raw_len}"
                )));
            }
            match kind {
                KIND_RECORDS if count as u64 * RECORD_SIZE as u64 != raw_len as u64 => {
                    return Err(fail(format!(
                        "raw_len {raw_len} is not count {count} × {RECORD_SIZE} = {}",
                        count as u64 * RECORD_SIZE as u64
                    )));
                }
                KIND_SUMMARY if count != 1 => {
                    return Err(fail(format!("count {count}, not 1")));
                }
                _ => {}
            }
            self.comp.clear();
            self.comp.reserve((comp_len as usize).min(1 << 20));
            let got = (&mut self.r)
                .take(comp_len as u64)
                .read_to_end(&mut self.comp)
                .map_err(io_err)?;
            if got < comp_len as usize {
                self.done = true;
                self.info.truncated = Some(cut(number, start, "payload", got, comp_len as usize));
                return Ok(());
            }
            match zstd::zstd_safe::find_frame_compressed_size(&self.comp) {
                Ok(n) if n == self.comp.len() => {}
                Ok(n) => {
                    return Err(fail(format!(
                        "payload is not one zstd frame: the first frame is {n} of {comp_len} bytes"
                    )));
                }
                Err(code) => {
                    return Err(fail(format!(
                        "payload is not a zstd frame: {}",
                        zstd::zstd_safe::get_error_name(code)
                    )));
                }
            }
            if let Ok(Some(size)) = zstd::zstd_safe::get_frame_content_size(&self.comp)
                && size != raw_len as u64
            {
                return Err(fail(format!(
                    "the zstd frame holds {size} bytes, not raw_len {raw_len}"
                )));
            }
            self.raw.clear();
            self.raw.reserve_exact(raw_len as usize);
            let out = self
                .dctx
                .decompress_to_buffer(&self.comp[..], &mut self.raw)
                .map_err(|e| fail(format!("zstd: {e}")));
            let out = match out {
                Ok(n) => n,
                Err(e) => {
                    self.raw.clear();
                    return Err(e);
                }
            };
            if out != raw_len as usize {
                self.raw.clear();
                return Err(fail(format!(
                    "decompressed to {out} bytes, not raw_len {raw_len}"
                )));
            }
            self.offset += (BLOCK_HEADER_SIZE + comp_len as usize) as u64;
            self.blocks += 1;
            match kind {
                KIND_RECORDS => {
                    if let Err(e) = self.check_records(&what, start) {
                        self.raw.clear();
                        return Err(e);
                    }
                    if !self.raw.is_empty() {
                        self.block_start = start;
                        return Ok(());
                    }
                }
                KIND_DICTIONARY => {
                    let raw = std::mem::take(&mut self.raw);
                    let res = self.add_dictionary(&raw, count, &what, start);
                    self.raw = raw;
                    self.raw.clear();
                    res?;
                }
                _ => {
                    let summary: CaptureSummary = serde_json::from_slice(&self.raw)
                        .map_err(|e| fail(format!("summary JSON: {e}")))?;
                    self.raw.clear();
                    self.info.summary = Some(summary);
                }
            }
        }
    }

    /// Check every record of the records block in `raw` and count them.
    fn check_records(&mut self, what: &str, start: u64) -> Result<(), TraceError> {
        let pools = self.info.dictionary.pools.len();
        let n = self.raw.len() / RECORD_SIZE;
        let (mut demand, mut demand_cached, mut prefetch, mut prefetch_cached) = (0, 0, 0, 0);
        for (i, b) in self.raw.chunks_exact(RECORD_SIZE).enumerate() {
            let msg = if b[47] != 0 {
                Some(format!("reserved byte is {:#04x}, not 0", b[47]))
            } else {
                let pool = u16::from_le_bytes([b[44], b[45]]);
                (pool as usize >= pools)
                    .then(|| format!("pool index {pool} is not in the dictionary ({pools} pools)"))
            };
            if let Some(msg) = msg {
                let index = self.records_before + i as u64;
                return Err(self.bad(
                    Location::Offset(start),
                    format!(
                        "{what}, record {} of {n} (record {} of the capture): {msg}",
                        i + 1,
                        index + 1
                    ),
                ));
            }
            let aflags = u32::from_le_bytes(b[36..40].try_into().unwrap());
            let cached = (aflags & ARC_FLAG_CACHED != 0) as u64;
            if aflags & ARC_FLAG_PREFETCH != 0 {
                prefetch += 1;
                prefetch_cached += cached;
            } else {
                demand += 1;
                demand_cached += cached;
            }
        }
        let i = &mut self.info;
        i.records += n as u64;
        i.demand += demand;
        i.demand_cached += demand_cached;
        i.prefetch += prefetch;
        i.prefetch_cached += prefetch_cached;
        Ok(())
    }

    fn add_dictionary(
        &mut self,
        raw: &[u8],
        count: u32,
        what: &str,
        start: u64,
    ) -> Result<(), TraceError> {
        let fail = |msg: String| self.bad(Location::Offset(start), format!("{what}: {msg}"));
        let d: Dictionary =
            serde_json::from_slice(raw).map_err(|e| fail(format!("dictionary JSON: {e}")))?;
        let entries = d.pools.len() as u64 + d.datasets.len() as u64;
        if entries != count as u64 {
            return Err(fail(format!(
                "count {count}, but the dictionary holds {entries} entries"
            )));
        }
        let mut next = self.info.dictionary.pools.len();
        for p in &d.pools {
            if p.index as usize != next {
                return Err(fail(format!(
                    "pool {:?} has index {}, expected {next} (pools are numbered in order)",
                    p.name, p.index
                )));
            }
            next += 1;
        }
        for ds in &d.datasets {
            if ds.pool as usize >= next {
                return Err(fail(format!(
                    "dataset {:?}: pool index {} is not in the dictionary ({next} pools)",
                    ds.name, ds.pool
                )));
            }
        }
        self.info.dictionary.pools.extend(d.pools);
        self.info.dictionary.datasets.extend(d.datasets);
        Ok(())
    }
}

impl<R: Read> Iterator for CaptureReader<R> {
    type Item = Result<CaptureRecord, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_record().transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_past_the_limit_is_an_error_after_the_requests_before_it() {
        let mut w = CaptureWriter::new(Vec::new(), &CaptureHeader::default()).unwrap();
        let pool = w.add_pool("tank").unwrap();
        for object in [1, 2, 1, 3, 4] {
            w.push(&CaptureRecord {
                pool,
                objset: 54,
                object,
                ..CaptureRecord::default()
            })
            .unwrap();
        }
        let bytes = w.finish(&CaptureSummary::default()).unwrap();
        let mut r = CaptureReader::new(&bytes[..], "m.arct").unwrap();
        r.max_files = 3;
        let mut out = Vec::new();
        let e = r
            .read_requests(&mut out, 100, false)
            .unwrap_err()
            .to_string();
        // Objects 1, 2, 1, 3 fit in three files; object 4 is the fourth.
        assert_eq!(out.len(), 4);
        assert!(
            e.contains("record 5 of 5 (record 5 of the capture): more than 3 distinct files"),
            "{e}"
        );
        assert_eq!(r.read_requests(&mut out, 100, false).unwrap(), 0);
    }
}
