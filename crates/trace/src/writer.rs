//! Writing oracleGeneral traces (plain, `.zst` or `.gz`), atomically.

use std::fs::{self, File};
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use crate::fasthash::KeyMap;
use arclab_arc::Request;

use crate::error::{Location, TraceError, TraceErrorKind};
use crate::oracle::RECORD_SIZE;
use crate::source::{BUF_SIZE, Compression, split_compression_ext};

/// Removes the temporary files unless disarmed.
struct TempGuard(Vec<PathBuf>);

impl Drop for TempGuard {
    fn drop(&mut self) {
        for p in &self.0 {
            let _ = fs::remove_file(p);
        }
    }
}

enum Out {
    Plain(BufWriter<File>),
    Zstd(zstd::stream::write::Encoder<'static, BufWriter<File>>),
    Gzip(flate2::write::GzEncoder<BufWriter<File>>),
}

impl Out {
    fn writer(&mut self) -> &mut dyn Write {
        match self {
            Out::Plain(w) => w,
            Out::Zstd(w) => w,
            Out::Gzip(w) => w,
        }
    }

    fn finish(self) -> io::Result<File> {
        let w = match self {
            Out::Plain(w) => w,
            Out::Zstd(w) => w.finish()?,
            Out::Gzip(w) => w.finish()?,
        };
        w.into_inner().map_err(|e| e.into_error())
    }
}

/// Write `reqs` as an oracleGeneral trace at `path`; returns the number of records.
///
/// * `next_access_vtime` is filled in: the 1-based index of the next request
///   to the same key, `-1` when there is none (libCacheSim's convention);
/// * time = `time_ns / 1e9` in whole seconds, saturating at `u32::MAX`;
///   op / kind / prefetch are not stored by the format;
/// * a `.zst` / `.gz` extension compresses the output (zstd level 3 / gzip default);
/// * the data goes to a temporary file in the same directory, renamed over
///   `path` at the end, so readers never see a partial file.
///
/// Memory: 8 bytes per request plus a map entry per distinct key; the
/// requests themselves are spilled to a temporary file between the two passes.
pub fn write_oracle_general(
    path: impl AsRef<Path>,
    reqs: impl IntoIterator<Item = Request>,
) -> Result<u64, TraceError> {
    let path = path.as_ref();
    let name = path.display().to_string();
    let io_err =
        |e: io::Error| TraceError::new(name.as_str(), Location::File, TraceErrorKind::Io(e));

    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "trace".into());
    let unique = format!(
        "{}.{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0)
    );
    let spill_path = dir.join(format!(".{file_name}.{unique}.spill"));
    let tmp_path = dir.join(format!(".{file_name}.{unique}.tmp"));
    let guard = TempGuard(vec![spill_path.clone(), tmp_path.clone()]);

    // Pass 1: spill (time, key, size), compute next-access indices.
    let mut next: Vec<i64> = Vec::new();
    let mut last: KeyMap<u64> = KeyMap::default();
    {
        let spill = File::options()
            .write(true)
            .create_new(true)
            .open(&spill_path)
            .map_err(io_err)?;
        let mut w = BufWriter::with_capacity(BUF_SIZE, spill);
        for (j, r) in reqs.into_iter().enumerate() {
            let j = j as u64;
            let secs = (r.time_ns / 1_000_000_000).min(u32::MAX as u64) as u32;
            let mut rec = [0u8; 16];
            rec[0..4].copy_from_slice(&secs.to_le_bytes());
            rec[4..12].copy_from_slice(&r.key.to_le_bytes());
            rec[12..16].copy_from_slice(&r.size.to_le_bytes());
            w.write_all(&rec).map_err(io_err)?;
            if let Some(i) = last.insert(r.key, j) {
                next[i as usize] = j as i64 + 1;
            }
            next.push(-1);
        }
        w.flush().map_err(io_err)?;
    }
    drop(last);

    // Pass 2: records with next-access times, to the temporary output.
    let tmp = File::options()
        .write(true)
        .create_new(true)
        .open(&tmp_path)
        .map_err(io_err)?;
    let bw = BufWriter::with_capacity(BUF_SIZE, tmp);
    let mut out = match split_compression_ext(path).1 {
        Compression::None => Out::Plain(bw),
        Compression::Zstd => Out::Zstd(zstd::stream::write::Encoder::new(bw, 3).map_err(io_err)?),
        Compression::Gzip => Out::Gzip(flate2::write::GzEncoder::new(
            bw,
            flate2::Compression::default(),
        )),
    };
    let mut spill = BufReader::with_capacity(BUF_SIZE, File::open(&spill_path).map_err(io_err)?);
    let mut rec = [0u8; RECORD_SIZE];
    for n in &next {
        spill.read_exact(&mut rec[..16]).map_err(io_err)?;
        rec[16..24].copy_from_slice(&n.to_le_bytes());
        out.writer().write_all(&rec).map_err(io_err)?;
    }
    let file = out.finish().map_err(io_err)?;
    file.sync_all().map_err(io_err)?;
    drop(file);
    fs::rename(&tmp_path, path).map_err(io_err)?;
    drop(guard);
    Ok(next.len() as u64)
}
