//! Shared machinery of the fixed-size-record formats: one large buffer,
//! records decoded from it in bulk.

use arclab_arc::Request;

use crate::error::{Location, TraceError, TraceErrorKind};
use crate::source::Source;

/// Read-buffer size of the binary readers once grown.
const BUF_SIZE: usize = 1 << 20;

/// The buffer starts small (cheap for tiny inputs) and grows to
/// [`BUF_SIZE`] once the stream proves longer.
const FIRST_BUF_SIZE: usize = 64 << 10;

/// One fixed-size binary record layout.
pub(crate) trait RecordFormat: Send {
    /// Bytes per record.
    fn record_size(&self) -> usize;
    /// Decode one record of exactly `record_size()` bytes; `Ok(None)` skips it.
    fn decode(&self, rec: &[u8]) -> Result<Option<Request>, TraceErrorKind>;
}

#[inline(always)]
pub(crate) fn u16_at(b: &[u8], o: usize) -> u16 {
    u16::from_le_bytes([b[o], b[o + 1]])
}

#[inline(always)]
pub(crate) fn u32_at(b: &[u8], o: usize) -> u32 {
    u32::from_le_bytes(b[o..o + 4].try_into().unwrap())
}

#[inline(always)]
pub(crate) fn u64_at(b: &[u8], o: usize) -> u64 {
    u64::from_le_bytes(b[o..o + 8].try_into().unwrap())
}

/// A buffered reader of fixed-size records.
pub(crate) struct BinReader<F> {
    fmt: F,
    src: Source,
    buf: Vec<u8>,
    pos: usize,
    len: usize,
    eof: bool,
    /// Offset of `buf[0]` in the decompressed stream.
    stream_off: u64,
    /// Index of the record at `pos`.
    rec_index: u64,
    name: String,
}

impl<F: RecordFormat> BinReader<F> {
    /// Wrap `src`; fails with "empty trace" when the stream has no bytes.
    pub(crate) fn new(fmt: F, src: Source, name: &str) -> Result<Self, TraceError> {
        let mut r = BinReader {
            fmt,
            src,
            buf: vec![0u8; FIRST_BUF_SIZE],
            pos: 0,
            len: 0,
            eof: false,
            stream_off: 0,
            rec_index: 0,
            name: name.to_string(),
        };
        r.fill()?;
        if r.len == 0 {
            return Err(r.err(Location::File, TraceErrorKind::Empty));
        }
        Ok(r)
    }

    /// Bytes buffered and not yet consumed.
    pub(crate) fn available(&self) -> &[u8] {
        &self.buf[self.pos..self.len]
    }

    /// Skip `n` buffered bytes (a header); they do not count as records.
    pub(crate) fn consume_header(&mut self, n: usize) {
        self.pos += n;
    }

    pub(crate) fn format_mut(&mut self) -> &mut F {
        &mut self.fmt
    }

    pub(crate) fn err(&self, loc: Location, kind: TraceErrorKind) -> TraceError {
        TraceError::new(self.name.as_str(), loc, kind)
    }

    /// Move the unread tail to the front and read until the buffer is full or the stream ends.
    pub(crate) fn fill(&mut self) -> Result<(), TraceError> {
        if self.pos > 0 {
            self.buf.copy_within(self.pos..self.len, 0);
            self.stream_off += self.pos as u64;
            self.len -= self.pos;
            self.pos = 0;
        }
        if self.buf.len() < BUF_SIZE && !self.eof && self.stream_off > 0 {
            self.buf.resize(BUF_SIZE, 0);
        }
        while self.len < self.buf.len() && !self.eof {
            match self.src.read(&mut self.buf[self.len..]) {
                Ok(0) => self.eof = true,
                Ok(k) => self.len += k,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    let loc = Location::Offset(self.stream_off + self.len as u64);
                    self.eof = true;
                    return Err(self.err(loc, TraceErrorKind::Io(e)));
                }
            }
        }
        Ok(())
    }

    /// Append up to `max` requests to `out`.
    pub(crate) fn read_batch(
        &mut self,
        out: &mut Vec<Request>,
        max: usize,
    ) -> Result<usize, TraceError> {
        let rs = self.fmt.record_size();
        let mut appended = 0;
        while appended < max {
            let avail = self.len - self.pos;
            if avail < rs {
                if self.eof {
                    if avail == 0 {
                        break;
                    }
                    let loc = self.record_loc();
                    self.pos = self.len;
                    return Err(self.err(
                        loc,
                        TraceErrorKind::Truncated {
                            what: "record",
                            got: avail,
                            want: rs,
                        },
                    ));
                }
                self.fill()?;
                continue;
            }
            let n = (avail / rs).min(max - appended);
            out.reserve(n);
            let region = &self.buf[self.pos..self.pos + n * rs];
            for (i, rec) in region.chunks_exact(rs).enumerate() {
                match self.fmt.decode(rec) {
                    Ok(Some(r)) => {
                        out.push(r);
                        appended += 1;
                    }
                    Ok(None) => {}
                    Err(kind) => {
                        self.pos += i * rs;
                        self.rec_index += i as u64;
                        let loc = self.record_loc();
                        // Never return this record again.
                        self.pos = self.len;
                        self.eof = true;
                        return Err(self.err(loc, kind));
                    }
                }
            }
            self.pos += n * rs;
            self.rec_index += n as u64;
        }
        Ok(appended)
    }

    fn record_loc(&self) -> Location {
        Location::Record {
            index: self.rec_index,
            offset: self.stream_off + self.pos as u64,
        }
    }
}
