//! The `.arct` reader.

use std::hash::BuildHasherDefault;
use std::io::{self, Read};

use arclab_arc::Request;

use super::*;
use crate::error::{Location, TraceError, TraceErrorKind};
use arclab_arc::slab::KeyHasher;

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
