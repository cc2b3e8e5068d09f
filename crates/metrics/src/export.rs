//! The export file: gzipped JSON holding what was asked and the
//! `query_range` matrices the server answered, versioned.
//!
//! ```json
//! {"format": "arclab-export", "version": 1,
//!  "created": "2025-10-12T08:00:00Z", "tool": "arclab 0.1.0",
//!  "request": {"url": "http://prom:9090", "from": 1757548800, "to": 1759363200,
//!              "step": 300, "metrics": "arc", "match": "{instance=\"nas:9100\"}",
//!              "queries": ["{__name__=~\"node_zfs_arc_(size|…)\"}"]},
//!  "metadata": {"node_cpu_seconds_total": "counter"},
//!  "changes": [{"time": 1758456000, "what": "zfs_arc_max=8G"}],
//!  "results": [{"query": "…", "chunks": 1, "warnings": [],
//!               "data": {"resultType": "matrix",
//!                        "result": [{"metric": {"__name__": "node_zfs_arc_hits", …},
//!                                    "values": [[1757548800, "1.5e9"], …]}]}}]}
//! ```
//!
//! `data` is byte for byte the shape of the API's `data` object, so a saved
//! `curl` answer can be wrapped by hand. Readers accept plain or gzipped JSON,
//! refuse a `version` newer than [`FORMAT_VERSION`], and ignore unknown keys.
//! Writers go through a temporary file in the target's directory and a
//! rename, so an existing file is never replaced by a partial one.
//!
//! ```
//! use arclab_metrics::export::{ExportFile, Request, QueryResult};
//! use arclab_metrics::series::Series;
//! let mut f = ExportFile::new(Request { url: "http://p".into(), from: 0.0, to: 60.0, step: 15.0,
//!     metrics: "arc".into(), r#match: String::new(), queries: vec!["up".into()] });
//! f.results.push(QueryResult::new("up", vec![Series { labels: Default::default(), points: vec![(0.0, 1.0)] }]));
//! let dir = tempfile::tempdir().unwrap();
//! let p = dir.path().join("x.json.gz");
//! f.write_atomic(&p).unwrap();
//! let back = ExportFile::read(&p).unwrap();
//! assert_eq!(back.dataset().series[0].points, vec![(0.0, 1.0)]);
//! ```

use crate::promapi::RawSeries;
use crate::series::{ChangeMarker, Dataset, Labels, Series};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// The newest file version this code reads and the one it writes.
pub const FORMAT_VERSION: u32 = 1;
/// The `format` tag.
pub const FORMAT_TAG: &str = "arclab-export";

/// The largest export text read, plain or after decompression: 512 MiB holds
/// some 20 million samples (about 25 bytes each in the API's JSON), e.g. 2,300
/// series over 30 days at a 5 m step. A small gzip file that inflates past it
/// (a "gzip bomb") is refused before it can exhaust memory.
pub const MAX_TEXT_BYTES: u64 = 512 << 20;

/// Why an export file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// Reading or writing failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// Writing the file failed (the message names it).
    #[error(transparent)]
    Write(#[from] arclab_io::Error),
    /// The gzip stream is damaged or truncated.
    #[error("{path}: not a complete gzip stream (truncated or damaged): {message}")]
    Gzip {
        /// The file.
        path: PathBuf,
        /// The decoder's message.
        message: String,
    },
    /// The text (plain, or after decompression) is larger than [`MAX_TEXT_BYTES`].
    #[error(
        "{path}: {what} more than {} MiB of text, the most an export file may hold; \
         export fewer series (--match, --metrics), a larger --step or a shorter range",
        limit >> 20
    )]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// `is` (plain) or `inflates to` (gzip).
        what: &'static str,
        /// The limit in bytes.
        limit: u64,
    },
    /// The JSON does not have the export file's shape.
    #[error("{path}: not an arclab export file: {message}")]
    Shape {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// Written by a newer arclab.
    #[error(
        "{path}: export format version {found} is newer than this arclab reads ({FORMAT_VERSION}); upgrade arclab"
    )]
    TooNew {
        /// The file.
        path: PathBuf,
        /// Its version.
        found: u32,
    },
}

/// What was asked of the server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// Server URL, credentials removed.
    pub url: String,
    /// Start, unix seconds.
    pub from: f64,
    /// End, unix seconds.
    pub to: f64,
    /// Step, seconds.
    pub step: f64,
    /// The `--metrics` argument.
    #[serde(default)]
    pub metrics: String,
    /// The `--match` argument.
    #[serde(default)]
    pub r#match: String,
    /// The PromQL queries sent.
    pub queries: Vec<String>,
}

/// One query's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueryResult {
    /// The PromQL query.
    pub query: String,
    /// Requests it took.
    #[serde(default)]
    pub chunks: usize,
    /// The server's warnings and infos.
    #[serde(default)]
    pub warnings: Vec<String>,
    /// The matrix, as the API's `data`.
    pub data: Matrix,
}

impl QueryResult {
    /// A result for `query` holding `series`.
    pub fn new(query: &str, series: Vec<Series>) -> Self {
        QueryResult {
            query: query.into(),
            chunks: 1,
            warnings: Vec::new(),
            data: Matrix {
                result_type: "matrix".into(),
                result: series.into_iter().map(ApiSeries::from).collect(),
            },
        }
    }
}

/// The API's `data` object for a matrix.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Matrix {
    /// Always `matrix`.
    #[serde(rename = "resultType")]
    pub result_type: String,
    /// Series.
    pub result: Vec<ApiSeries>,
}

/// A series as the API spells it: labels and `[time, "value"]` pairs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApiSeries {
    /// Labels.
    pub metric: Labels,
    /// `[unix seconds, value as a string]`.
    pub values: Vec<(f64, String)>,
}

impl From<Series> for ApiSeries {
    fn from(s: Series) -> Self {
        ApiSeries {
            metric: s.labels,
            values: s
                .points
                .into_iter()
                .map(|(t, v)| (t, fmt_value(v)))
                .collect(),
        }
    }
}

/// A value as Prometheus prints it (`NaN`, `+Inf`, `-Inf`, shortest round trip).
pub fn fmt_value(v: f64) -> String {
    if v.is_nan() {
        "NaN".into()
    } else if v.is_infinite() {
        if v > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        }
    } else {
        format!("{v}")
    }
}

/// A whole export file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExportFile {
    /// [`FORMAT_TAG`].
    pub format: String,
    /// [`FORMAT_VERSION`] when written.
    pub version: u32,
    /// When written (RFC 3339).
    #[serde(default)]
    pub created: String,
    /// Writer, e.g. `arclab 0.1.0`.
    #[serde(default)]
    pub tool: String,
    /// What was asked.
    pub request: Request,
    /// Metric types from the server's metadata API, if fetched.
    #[serde(default)]
    pub metadata: BTreeMap<String, String>,
    /// Change markers carried along.
    #[serde(default)]
    pub changes: Vec<ChangeMarker>,
    /// One entry per query.
    pub results: Vec<QueryResult>,
}

/// Just enough structure to read fast: values borrowed from the text.
#[derive(Deserialize)]
struct FastFile<'a> {
    format: String,
    version: u32,
    #[serde(default)]
    metadata: BTreeMap<String, String>,
    #[serde(default)]
    changes: Vec<ChangeMarker>,
    #[serde(borrow)]
    results: Vec<FastResult<'a>>,
}

#[derive(Deserialize)]
struct FastResult<'a> {
    #[serde(borrow)]
    data: FastMatrix<'a>,
}

#[derive(Deserialize)]
struct FastMatrix<'a> {
    #[serde(borrow)]
    result: Vec<RawSeries<'a>>,
}

#[derive(Deserialize)]
struct Head {
    format: Option<String>,
    version: Option<u32>,
}

impl ExportFile {
    /// An empty file for `request`, stamped with this version.
    pub fn new(request: Request) -> Self {
        ExportFile {
            format: FORMAT_TAG.into(),
            version: FORMAT_VERSION,
            created: String::new(),
            tool: format!("arclab {}", env!("CARGO_PKG_VERSION")),
            request,
            metadata: BTreeMap::new(),
            changes: Vec::new(),
            results: Vec::new(),
        }
    }

    /// Write gzipped JSON (plain JSON if the name does not end in `.gz`)
    /// atomically, through [`arclab_io::write_atomic_with`].
    pub fn write_atomic(&self, path: &Path) -> Result<(), ExportError> {
        let json = serde_json::to_vec(self).map_err(|e| ExportError::Io {
            path: path.to_path_buf(),
            source: e.into(),
        })?;
        let gz = path.extension().is_some_and(|e| e == "gz");
        arclab_io::write_atomic_with(path, arclab_io::Access::Public, |f| {
            let mut w = std::io::BufWriter::new(f);
            if gz {
                let mut enc = flate2::write::GzEncoder::new(&mut w, flate2::Compression::default());
                enc.write_all(&json)?;
                enc.finish()?;
            } else {
                w.write_all(&json)?;
            }
            w.flush()
        })?;
        Ok(())
    }

    /// Read and check a whole file (owned values; see [`read_dataset`] for
    /// the fast path).
    pub fn read(path: &Path) -> Result<Self, ExportError> {
        let text = read_text(path)?;
        check_head(path, &text)?;
        serde_json::from_str(&text).map_err(|e| shape(path, e))
    }

    /// The series, metadata and change markers.
    pub fn dataset(&self) -> Dataset {
        let mut series = Vec::new();
        for r in &self.results {
            for s in &r.data.result {
                let mut points: Vec<(f64, f64)> = s
                    .values
                    .iter()
                    .map(|(t, v)| (*t, v.parse().unwrap_or(f64::NAN)))
                    .collect();
                points.sort_by(|a, b| a.0.total_cmp(&b.0));
                series.push(Series {
                    labels: s.metric.clone(),
                    points,
                });
            }
        }
        Dataset {
            series: merge_series(series),
            metadata: self.metadata.clone(),
            changes: self.changes.clone(),
        }
    }
}

fn shape(path: &Path, e: impl std::fmt::Display) -> ExportError {
    ExportError::Shape {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

fn read_text(path: &Path) -> Result<String, ExportError> {
    let io = |source| ExportError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut file = std::fs::File::open(path).map_err(io)?;
    let mut magic = [0u8; 2];
    let n = read_full(&mut file, &mut magic).map_err(io)?;
    file.seek(SeekFrom::Start(0)).map_err(io)?;
    if magic[..n] != [0x1f, 0x8b] {
        let mut bytes = Vec::new();
        arclab_io::Limited::new(file, MAX_TEXT_BYTES)
            .read_to_end(&mut bytes)
            .map_err(|e| too_large_or(path, "is", e, io))?;
        return String::from_utf8(bytes).map_err(|e| shape(path, e));
    }
    // The gzip trailer's ISIZE (RFC 1952 §2.3.1) sizes the text buffer once.
    let len = file.metadata().map_err(io)?.len();
    let mut isize = [0u8; 4];
    if len >= 18 {
        file.seek(SeekFrom::End(-4)).map_err(io)?;
        read_full(&mut file, &mut isize).map_err(io)?;
        file.seek(SeekFrom::Start(0)).map_err(io)?;
    }
    let hint = (u32::from_le_bytes(isize) as u64)
        .min(len.saturating_mul(64))
        .min(MAX_TEXT_BYTES);
    inflate(
        path,
        std::io::BufReader::with_capacity(1 << 16, file),
        hint as usize,
    )
}

/// [`ExportError::TooLarge`] for the limit reader's error, else `other(e)`.
fn too_large_or(
    path: &Path,
    what: &'static str,
    e: std::io::Error,
    other: impl FnOnce(std::io::Error) -> ExportError,
) -> ExportError {
    if e.kind() == std::io::ErrorKind::FileTooLarge {
        ExportError::TooLarge {
            path: path.to_path_buf(),
            what,
            limit: MAX_TEXT_BYTES,
        }
    } else {
        other(e)
    }
}

/// Read until `buf` is full or the input ends; the count read.
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Decompress a (multi-member) gzip stream into text, at most
/// [`MAX_TEXT_BYTES`] of it. For texts of 4 MiB
/// and more (by the `hint`) a second thread inflates into a few recycled
/// 1 MiB chunks while this one appends them to the text, so inflating
/// overlaps with first-touching the text's pages, which on a 14 MB export
/// cost about as much as inflating itself.
fn inflate<R: Read + Send>(path: &Path, src: R, hint: usize) -> Result<String, ExportError> {
    const CHUNK: usize = 1 << 20;
    let gzip = |e: std::io::Error| {
        too_large_or(path, "inflates to", e, |e| ExportError::Gzip {
            path: path.to_path_buf(),
            message: e.to_string(),
        })
    };
    let mut bytes: Vec<u8> = Vec::with_capacity(hint);
    if hint < 4 * CHUNK {
        // Small files: a thread is not worth starting.
        arclab_io::Limited::new(flate2::read::MultiGzDecoder::new(src), MAX_TEXT_BYTES)
            .read_to_end(&mut bytes)
            .map_err(gzip)?;
        return String::from_utf8(bytes).map_err(|e| shape(path, e));
    }
    let (full_tx, full_rx) = std::sync::mpsc::sync_channel::<std::io::Result<(Vec<u8>, usize)>>(2);
    let (free_tx, free_rx) = std::sync::mpsc::channel::<Vec<u8>>();
    std::thread::scope(|s| -> Result<(), ExportError> {
        s.spawn(move || {
            let mut dec =
                arclab_io::Limited::new(flate2::read::MultiGzDecoder::new(src), MAX_TEXT_BYTES);
            loop {
                let mut buf = free_rx.try_recv().unwrap_or_else(|_| vec![0; CHUNK]);
                let r = read_full(&mut dec, &mut buf);
                let done = !matches!(r, Ok(n) if n == CHUNK);
                if full_tx.send(r.map(|n| (buf, n))).is_err() || done {
                    return;
                }
            }
        });
        for msg in full_rx {
            let (buf, n) = msg.map_err(gzip)?;
            bytes.extend_from_slice(&buf[..n]);
            // The inflater may have finished; a closed return path is fine.
            let _ = free_tx.send(buf);
        }
        Ok(())
    })?;
    String::from_utf8(bytes).map_err(|e| shape(path, e))
}

fn decode(path: &Path, bytes: Vec<u8>) -> Result<String, ExportError> {
    if bytes.starts_with(&[0x1f, 0x8b]) {
        let isize = bytes
            .get(bytes.len().saturating_sub(4)..)
            .and_then(|t| t.try_into().ok())
            .map_or(0, |t: [u8; 4]| u32::from_le_bytes(t) as usize);
        let hint = isize
            .min(bytes.len().saturating_mul(64))
            .min(MAX_TEXT_BYTES as usize);
        inflate(path, &bytes[..], hint)
    } else if bytes.len() as u64 > MAX_TEXT_BYTES {
        Err(ExportError::TooLarge {
            path: path.to_path_buf(),
            what: "is",
            limit: MAX_TEXT_BYTES,
        })
    } else {
        String::from_utf8(bytes).map_err(|e| shape(path, e))
    }
}

fn check_head(path: &Path, text: &str) -> Result<(), ExportError> {
    let head: Head = serde_json::from_str(text).map_err(|e| shape(path, e))?;
    if head.format.as_deref() != Some(FORMAT_TAG) {
        return Err(shape(path, format!("`format` is not \"{FORMAT_TAG}\"")));
    }
    match head.version {
        Some(v) if v > FORMAT_VERSION => Err(ExportError::TooNew {
            path: path.to_path_buf(),
            found: v,
        }),
        Some(_) => Ok(()),
        None => Err(shape(path, "no `version`")),
    }
}

/// Read an export file straight into a [`Dataset`], borrowing sample values
/// from the decompressed text (the path `compare` takes).
pub fn read_dataset(path: &Path) -> Result<Dataset, ExportError> {
    let text = read_text(path)?;
    dataset_from_text(path, &text)
}

/// Parse the bytes of an export file (gzipped or plain) held in memory;
/// errors name the file `<input>`.
pub fn parse_dataset(bytes: &[u8]) -> Result<Dataset, ExportError> {
    let path = Path::new("<input>");
    let text = decode(path, bytes.to_vec())?;
    dataset_from_text(path, &text)
}

fn dataset_from_text(path: &Path, text: &str) -> Result<Dataset, ExportError> {
    let f: FastFile<'_> = match serde_json::from_str(text) {
        Ok(f) => f,
        Err(e) => {
            check_head(path, text)?;
            return Err(shape(path, e));
        }
    };
    if f.format != FORMAT_TAG {
        return Err(shape(path, format!("`format` is not \"{FORMAT_TAG}\"")));
    }
    if f.version > FORMAT_VERSION {
        return Err(ExportError::TooNew {
            path: path.to_path_buf(),
            found: f.version,
        });
    }
    let raw: Vec<RawSeries<'_>> = f.results.into_iter().flat_map(|r| r.data.result).collect();
    let series = par_map(raw, RawSeries::into_series)
        .into_iter()
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| shape(path, e))?;
    Ok(Dataset {
        series: merge_series(series),
        metadata: f.metadata,
        changes: f.changes,
    })
}

/// Map `f` over `items` on all cores (scoped threads, order kept).
pub fn par_map<T: Send, U: Send>(items: Vec<T>, f: impl Fn(T) -> U + Sync) -> Vec<U> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(items.len().max(1));
    if threads <= 1 || items.len() < 8 {
        return items.into_iter().map(f).collect();
    }
    let per = items.len().div_ceil(threads);
    let mut chunks: Vec<Vec<T>> = Vec::new();
    let mut it = items.into_iter().peekable();
    while it.peek().is_some() {
        chunks.push(it.by_ref().take(per).collect());
    }
    let f = &f;
    std::thread::scope(|s| {
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|c| s.spawn(move || c.into_iter().map(f).collect::<Vec<U>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    })
}

/// Merge series with equal label sets (from several queries), sorted, one
/// sample per timestamp.
pub fn merge_series(series: Vec<Series>) -> Vec<Series> {
    let mut by: BTreeMap<Labels, Vec<(f64, f64)>> = BTreeMap::new();
    let mut dup = false;
    for s in series {
        let e = by.entry(s.labels).or_default();
        dup |= !e.is_empty();
        e.extend(s.points);
    }
    by.into_iter()
        .map(|(labels, mut points)| {
            if dup {
                points.sort_by(|a, b| a.0.total_cmp(&b.0));
                points.dedup_by(|a, b| a.0 == b.0);
            }
            Series { labels, points }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> ExportFile {
        let mut f = ExportFile::new(Request {
            url: "http://p".into(),
            from: 0.0,
            to: 30.0,
            step: 15.0,
            metrics: "arc".into(),
            r#match: String::new(),
            queries: vec!["q".into()],
        });
        let mut labels = Labels::new();
        labels.insert("__name__".into(), "node_zfs_arc_hits".into());
        f.results.push(QueryResult::new(
            "q",
            vec![Series {
                labels,
                points: vec![(0.0, 1.0), (15.0, f64::NAN), (30.0, f64::INFINITY)],
            }],
        ));
        f
    }

    #[test]
    fn round_trip_gz_and_plain() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["a.json.gz", "a.json"] {
            let p = dir.path().join(name);
            sample().write_atomic(&p).unwrap();
            let d = read_dataset(&p).unwrap();
            assert_eq!(d.series[0].points[0], (0.0, 1.0));
            assert!(d.series[0].points[1].1.is_nan());
            assert_eq!(ExportFile::read(&p).unwrap().request.step, 15.0);
        }
    }

    #[test]
    fn bad_files_are_clear_errors() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.json.gz");
        sample().write_atomic(&p).unwrap();
        let bytes = std::fs::read(&p).unwrap();
        std::fs::write(&p, &bytes[..bytes.len() / 2]).unwrap();
        assert!(matches!(read_dataset(&p), Err(ExportError::Gzip { .. })));
        std::fs::write(
            &p,
            br#"{"format":"arclab-export","version":7,"results":[]}"#,
        )
        .unwrap();
        assert!(matches!(
            read_dataset(&p),
            Err(ExportError::TooNew { found: 7, .. })
        ));
        std::fs::write(&p, br#"{"status":"success","data":{"result":[]}}"#).unwrap();
        let e = read_dataset(&p).unwrap_err().to_string();
        assert!(e.contains("not an arclab export file"), "{e}");
        std::fs::write(&p, br#"{"format":"arclab-export","version":1,"results":[{"data":{"result":[{"values":[[1,2]]}]}}]}"#).unwrap();
        assert!(matches!(read_dataset(&p), Err(ExportError::Shape { .. })));
        assert!(matches!(
            read_dataset(&dir.path().join("none")),
            Err(ExportError::Io { .. })
        ));
    }

    /// Big enough (> 4 MiB of text) for the two-thread inflater: the same
    /// data as the one-thread path, also across gzip members, and a clear
    /// error for a truncated or corrupted stream.
    #[test]
    fn large_files_inflate_on_two_threads() {
        let points: Vec<(f64, f64)> = (0..400_000).map(|i| (i as f64 * 15.0, i as f64)).collect();
        let mut f = sample();
        let labels = f.dataset().series[0].labels.clone();
        f.results = vec![QueryResult::new(
            "q",
            vec![Series {
                labels,
                points: points.clone(),
            }],
        )];
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("big.json");
        f.write_atomic(&plain).unwrap();
        let text = std::fs::read(&plain).unwrap();
        assert!(text.len() > 7 << 20, "{}", text.len());
        // Two gzip members (RFC 1952 allows concatenation), as `cat a.gz b.gz`.
        let (a, b) = text.split_at(text.len() / 3);
        let mut gz = Vec::new();
        for part in [a, b] {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(part).unwrap();
            gz.extend(e.finish().unwrap());
        }
        let p = dir.path().join("big.json.gz");
        std::fs::write(&p, &gz).unwrap();
        let d = read_dataset(&p).unwrap();
        assert_eq!(d.series[0].points, points);
        assert_eq!(parse_dataset(&gz).unwrap().series[0].points, points);
        // Truncated in the second member, then a flipped byte in the first.
        std::fs::write(&p, &gz[..gz.len() - 1000]).unwrap();
        assert!(matches!(read_dataset(&p), Err(ExportError::Gzip { .. })));
        let mut bad = gz.clone();
        bad[gz.len() / 4] ^= 0x55;
        std::fs::write(&p, &bad).unwrap();
        assert!(read_dataset(&p).is_err());
    }
}
