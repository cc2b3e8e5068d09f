//! Writing oracleGeneral traces (plain, `.zst` or `.gz`), atomically.

use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use arclab_arc::Request;
use arclab_arc::slab::KeyMap;

use crate::error::{Location, TraceError, TraceErrorKind};
use crate::frames::FramedZstd;
use crate::oracle_general::RECORD_SIZE;
use crate::source::{BUF_SIZE, Compression, split_compression_ext};

/// Bytes of a spilled request (time, key, size).
const SPILL: usize = 16;
/// Requests per step of the backward pass.
const CHUNK: usize = 1 << 16;

enum Out<W: Write> {
    Plain(BufWriter<W>),
    Zstd(FramedZstd<BufWriter<W>>),
    Gzip(flate2::write::GzEncoder<BufWriter<W>>),
}

impl<W: Write> Out<W> {
    fn writer(&mut self) -> &mut dyn Write {
        match self {
            Out::Plain(w) => w,
            Out::Zstd(w) => w,
            Out::Gzip(w) => w,
        }
    }

    fn finish(self) -> io::Result<W> {
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
/// * a `.zst` / `.gz` extension compresses the output (zstd level 3 in
///   independent frames of 4 MiB of records, which a reader decodes on
///   several cores / gzip default);
/// * the output is written by [`arclab_io::write_atomic_with`]: a randomly
///   named temporary file in the same directory, renamed over `path` at the
///   end, so readers never see a partial file (a symlink or a directory at
///   `path` is refused).
///
/// Memory: a map entry per distinct key. The requests are spilled between
/// the passes to two anonymous temporary files in the same directory (no
/// name, gone when closed): 24 bytes a request, as much as the output
/// uncompressed.
pub fn write_oracle_general(
    path: impl AsRef<Path>,
    reqs: impl IntoIterator<Item = Request>,
) -> Result<u64, TraceError> {
    let path = path.as_ref();
    let name = path.display().to_string();
    let io_err =
        |e: io::Error| TraceError::new(name.as_str(), Location::File, TraceErrorKind::Io(e));

    // Refuse a symlink or directory target before the long first pass.
    arclab_io::check_target(path).map_err(|e| io_err(e.into()))?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    // Pass 1: spill (time, key, size), 16 bytes a request.
    let mut spill = tempfile::tempfile_in(&dir).map_err(io_err)?;
    let mut n = 0u64;
    {
        let mut w = BufWriter::with_capacity(BUF_SIZE, &mut spill);
        for r in reqs {
            let secs = (r.time_ns / 1_000_000_000).min(u32::MAX as u64) as u32;
            let mut rec = [0u8; SPILL];
            rec[0..4].copy_from_slice(&secs.to_le_bytes());
            rec[4..12].copy_from_slice(&r.key.to_le_bytes());
            rec[12..16].copy_from_slice(&r.size.to_le_bytes());
            w.write_all(&rec).map_err(io_err)?;
            n += 1;
        }
        w.flush().map_err(io_err)?;
    }
    // Pass 2, from the end backwards: each request's next access is the
    // last one seen of its key; written in request order to a second
    // anonymous file, 8 bytes a request (a day of a busy host is 1.9 G
    // requests: in memory they were 15 GB).
    let mut nexts = tempfile::tempfile_in(&dir).map_err(io_err)?;
    {
        let mut last: KeyMap<u64, u64> = KeyMap::default();
        let mut recs = vec![0u8; CHUNK * SPILL];
        let mut out = vec![0u8; CHUNK * 8];
        let mut end = n;
        while end > 0 {
            let start = end.saturating_sub(CHUNK as u64);
            let k = (end - start) as usize;
            spill
                .seek(SeekFrom::Start(start * SPILL as u64))
                .and_then(|_| spill.read_exact(&mut recs[..k * SPILL]))
                .map_err(io_err)?;
            for i in (0..k).rev() {
                let key =
                    u64::from_le_bytes(recs[i * SPILL + 4..i * SPILL + 12].try_into().unwrap());
                let next = match last.insert(key, start + i as u64) {
                    Some(later) => later as i64 + 1,
                    None => -1,
                };
                out[i * 8..i * 8 + 8].copy_from_slice(&next.to_le_bytes());
            }
            nexts
                .seek(SeekFrom::Start(start * 8))
                .and_then(|_| nexts.write_all(&out[..k * 8]))
                .map_err(io_err)?;
            end = start;
        }
    }

    // Pass 3: records with next-access times, to the output.
    spill.seek(SeekFrom::Start(0)).map_err(io_err)?;
    nexts.seek(SeekFrom::Start(0)).map_err(io_err)?;
    let compression = split_compression_ext(path).1;
    arclab_io::write_atomic_with(path, arclab_io::Access::Public, |file| {
        let bw = BufWriter::with_capacity(BUF_SIZE, file);
        let mut out = match compression {
            Compression::None => Out::Plain(bw),
            Compression::Zstd => Out::Zstd(FramedZstd::new(bw)?),
            Compression::Gzip => Out::Gzip(flate2::write::GzEncoder::new(
                bw,
                flate2::Compression::default(),
            )),
        };
        let mut spill = BufReader::with_capacity(BUF_SIZE, &mut spill);
        let mut nexts = BufReader::with_capacity(BUF_SIZE / 2, &mut nexts);
        let mut rec = [0u8; RECORD_SIZE];
        for _ in 0..n {
            spill.read_exact(&mut rec[..SPILL])?;
            nexts.read_exact(&mut rec[SPILL..])?;
            out.writer().write_all(&rec)?;
        }
        out.finish()?;
        Ok(())
    })
    .map_err(|e| io_err(e.into()))?;
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::{PermissionsExt, symlink};

    fn reqs() -> Vec<Request> {
        [(1, 7), (2, 8), (3, 7)]
            .map(|(t, k)| Request::read(t * 1_000_000_000, k, 4096))
            .to_vec()
    }

    fn listing(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn writes_atomically_with_no_named_temporary_files() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["t.bin", "t.bin.zst", "t.bin.gz"] {
            let p = dir.path().join(name);
            assert_eq!(write_oracle_general(&p, reqs()).unwrap(), 3);
            let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o644, "{name}");
        }
        // The spill file is anonymous and the output's temporary is renamed:
        // nothing but the three traces is left.
        assert_eq!(listing(dir.path()), ["t.bin", "t.bin.gz", "t.bin.zst"]);
        // 24-byte records (libCacheSim's oracleGeneral): three of them.
        assert_eq!(
            std::fs::metadata(dir.path().join("t.bin")).unwrap().len(),
            72
        );
    }

    #[test]
    fn a_symlink_target_is_refused_before_any_work() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "precious").unwrap();
        let link = dir.path().join("out.bin");
        symlink(&victim, &link).unwrap();
        let consumed = std::cell::Cell::new(0);
        let it = reqs()
            .into_iter()
            .inspect(|_| consumed.set(consumed.get() + 1));
        let e = write_oracle_general(&link, it).unwrap_err().to_string();
        assert!(e.contains("out.bin") && e.contains("symbolic link"), "{e}");
        assert_eq!(consumed.get(), 0, "refused before reading the requests");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        assert_eq!(listing(dir.path()), ["out.bin", "victim"]);
    }
}
