//! [`TraceReader`]: one type over every format, batch and iterator interfaces.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use arclab_arc::Request;

use crate::capture::{CaptureInfo, CaptureReader};
use crate::csv::CsvReader;
use crate::error::{Location, TraceError, TraceErrorKind};
use crate::lcs::{self, Lcs, LcsStats};
use crate::lis::LisReader;
use crate::oracle_general::OracleGeneral;
use crate::records::BinReader;
use crate::source::{Opened, Source};
use crate::txt::TxtReader;
use crate::vscsi::{self, Vscsi};
use crate::{Format, OpenOptions};

enum Inner {
    Oracle(BinReader<OracleGeneral>),
    Lcs(BinReader<Lcs>),
    Vscsi(BinReader<Vscsi>),
    Csv(CsvReader),
    Txt(TxtReader),
    Lis(LisReader),
    Arct {
        r: Box<CaptureReader<Source>>,
        prefetch: bool,
    },
}

/// A streaming reader of one trace, whatever its format.
///
/// Use [`TraceReader::read_batch`] on hot paths; the [`Iterator`] impl is a
/// convenience built on it. After an error the reader is finished: later calls
/// return `Ok(0)` / `None`. Requests decoded before an error are returned
/// first; the error comes with the next call.
pub struct TraceReader {
    format: Format,
    path: PathBuf,
    inner: Inner,
    consumed: Arc<AtomicU64>,
    total: Option<u64>,
    lcs_stats: Option<LcsStats>,
    pending_err: Option<TraceError>,
    done: bool,
    iter_buf: Vec<Request>,
    iter_pos: usize,
}

impl std::fmt::Debug for TraceReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TraceReader")
            .field("format", &self.format)
            .field("path", &self.path)
            .field("progress", &self.progress())
            .finish_non_exhaustive()
    }
}

impl TraceReader {
    pub(crate) fn build(
        format: Format,
        opened: Opened,
        opts: &OpenOptions,
        path: PathBuf,
        name: &str,
    ) -> Result<Self, TraceError> {
        let Opened {
            src,
            consumed,
            total,
        } = opened;
        let mut lcs_stats = None;
        let inner = match format {
            Format::OracleGeneral => Inner::Oracle(BinReader::new(OracleGeneral, src, name)?),
            Format::Lcs => {
                let mut r = BinReader::new(Lcs::new(1), src, name)?;
                let head = r.available();
                if head.len() < lcs::HEADER_SIZE {
                    let got = head.len();
                    return Err(r.err(
                        Location::Offset(0),
                        TraceErrorKind::Truncated {
                            what: "lcs header",
                            got,
                            want: lcs::HEADER_SIZE,
                        },
                    ));
                }
                let stats = lcs::parse_header(head).map_err(|k| r.err(Location::Offset(0), k))?;
                *r.format_mut() = Lcs::new(stats.version);
                r.consume_header(lcs::HEADER_SIZE);
                lcs_stats = Some(stats);
                Inner::Lcs(r)
            }
            Format::Vscsi => {
                let mut r = BinReader::new(Vscsi::V1, src, name)?;
                match vscsi::detect_version(r.available(), false) {
                    Some(v) => *r.format_mut() = v,
                    None => {
                        return Err(r.err(Location::Offset(0), TraceErrorKind::BadVscsiVersion));
                    }
                }
                Inner::Vscsi(r)
            }
            Format::Csv => Inner::Csv(CsvReader::new(src, name, &opts.csv)?),
            Format::Txt => Inner::Txt(TxtReader::new(src, name, opts.csv.id_is_num)?),
            Format::Lis => Inner::Lis(LisReader::new(src, name, opts.lis_block_size)?),
            Format::Arct => Inner::Arct {
                r: Box::new(CaptureReader::new(src, name)?),
                prefetch: opts.capture_prefetch,
            },
        };
        Ok(TraceReader {
            format,
            path,
            inner,
            consumed,
            total,
            lcs_stats,
            pending_err: None,
            done: false,
            iter_buf: Vec::new(),
            iter_pos: 0,
        })
    }

    /// The trace's format.
    pub fn format(&self) -> Format {
        self.format
    }

    /// The trace's path (for [`crate::from_reader`], the name given).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Append up to `max` requests to `buf`; returns how many were appended;
    /// 0 means end of trace (or `max == 0`).
    pub fn read_batch(&mut self, buf: &mut Vec<Request>, max: usize) -> Result<usize, TraceError> {
        if self.iter_pos < self.iter_buf.len() {
            let k = max.min(self.iter_buf.len() - self.iter_pos);
            buf.extend_from_slice(&self.iter_buf[self.iter_pos..self.iter_pos + k]);
            self.iter_pos += k;
            return Ok(k);
        }
        if let Some(e) = self.pending_err.take() {
            self.done = true;
            return Err(e);
        }
        if self.done || max == 0 {
            return Ok(0);
        }
        let before = buf.len();
        let res = match &mut self.inner {
            Inner::Oracle(r) => r.read_batch(buf, max),
            Inner::Lcs(r) => r.read_batch(buf, max),
            Inner::Vscsi(r) => r.read_batch(buf, max),
            Inner::Csv(r) => r.read_batch(buf, max),
            Inner::Txt(r) => r.read_batch(buf, max),
            Inner::Lis(r) => r.read_batch(buf, max),
            Inner::Arct { r, prefetch } => r.read_requests(buf, max, *prefetch),
        };
        match res {
            Ok(0) => {
                self.done = true;
                Ok(0)
            }
            Ok(n) => Ok(n),
            Err(e) if buf.len() > before => {
                self.pending_err = Some(e);
                Ok(buf.len() - before)
            }
            Err(e) => {
                self.done = true;
                Err(e)
            }
        }
    }

    /// (bytes of the underlying file consumed so far, total file size if known).
    ///
    /// For compressed files both count compressed bytes. The decoders read
    /// ahead, so the first number runs up to about 1 MiB ahead of the requests
    /// returned.
    pub fn progress(&self) -> (u64, Option<u64>) {
        (self.consumed.load(Ordering::Relaxed), self.total)
    }

    /// The statistics in an lcs header (`None` for other formats).
    pub fn lcs_stats(&self) -> Option<&LcsStats> {
        self.lcs_stats.as_ref()
    }

    /// What an arct capture's reader has learned so far: header, dictionary,
    /// record counts, summary, truncation (`None` for other formats).
    /// Complete once the reader is exhausted.
    pub fn capture_info(&self) -> Option<&CaptureInfo> {
        match &self.inner {
            Inner::Arct { r, .. } => Some(r.info()),
            _ => None,
        }
    }
}

impl Iterator for TraceReader {
    type Item = Result<Request, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.iter_pos >= self.iter_buf.len() {
            let mut b = std::mem::take(&mut self.iter_buf);
            b.clear();
            self.iter_pos = 0;
            let res = self.read_batch(&mut b, 4096);
            self.iter_buf = b;
            match res {
                Ok(0) => return None,
                Ok(_) => {}
                Err(e) => return Some(Err(e)),
            }
        }
        let r = self.iter_buf[self.iter_pos];
        self.iter_pos += 1;
        Some(Ok(r))
    }
}
