//! Byte sources: files and caller-given readers, with gzip / zstd detected by
//! magic and by file extension, and a byte counter for progress reports.

use std::fs::File;
use std::io::{self, BufReader, Cursor, Read};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{Location, TraceError, TraceErrorKind};
use crate::frames::ParallelFrames;

/// A boxed byte stream (already decompressed).
pub(crate) type Source = Box<dyn Read + Send>;

/// Size of the buffers between the file and the decoders.
pub(crate) const BUF_SIZE: usize = 1 << 20;

const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Compression of a stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Compression {
    None,
    Gzip,
    Zstd,
}

/// The compression a file name announces (`.gz`, `.zst`) and the name without it.
pub(crate) fn split_compression_ext(path: &Path) -> (String, Compression) {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let lower = name.to_ascii_lowercase();
    for (ext, c) in [
        (".zst", Compression::Zstd),
        (".zstd", Compression::Zstd),
        (".zst.22", Compression::Zstd),
        (".gz", Compression::Gzip),
    ] {
        if lower.ends_with(ext) {
            return (name[..name.len() - ext.len()].to_string(), c);
        }
    }
    (name, Compression::None)
}

/// Counts the bytes read from the underlying file.
struct Counting<R> {
    inner: R,
    n: Arc<AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let k = self.inner.read(buf)?;
        self.n.fetch_add(k as u64, Ordering::Relaxed);
        Ok(k)
    }
}

/// An opened, decompressing byte stream.
pub(crate) struct Opened {
    pub(crate) src: Source,
    pub(crate) consumed: Arc<AtomicU64>,
    pub(crate) total: Option<u64>,
}

/// Read until `buf` is full or the stream ends; returns the bytes read.
pub(crate) fn read_full(r: &mut dyn Read, buf: &mut [u8]) -> io::Result<usize> {
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

fn hex(b: &[u8]) -> String {
    b.iter()
        .map(|x| format!("{x:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Open a file, detect its compression and wrap it in a decoder.
pub(crate) fn open_path(path: &Path, name: &str) -> Result<Opened, TraceError> {
    let io_err = |e| TraceError::new(name, Location::File, TraceErrorKind::Io(e));
    let file = File::open(path).map_err(io_err)?;
    let total = file.metadata().map_err(io_err)?.len();
    if total == 0 {
        return Err(TraceError::new(name, Location::File, TraceErrorKind::Empty));
    }
    let (_, ext) = split_compression_ext(path);
    wrap(Box::new(file), Some(total), name, ext)
}

/// Detect compression by magic (and check it against what the name said).
pub(crate) fn wrap(
    raw: Box<dyn Read + Send>,
    total: Option<u64>,
    name: &str,
    ext: Compression,
) -> Result<Opened, TraceError> {
    let consumed = Arc::new(AtomicU64::new(0));
    let mut counting = Counting {
        inner: raw,
        n: consumed.clone(),
    };
    let mut prefix = [0u8; 4];
    let got = read_full(&mut counting, &mut prefix)
        .map_err(|e| TraceError::new(name, Location::File, TraceErrorKind::Io(e)))?;
    if got == 0 {
        return Err(TraceError::new(name, Location::File, TraceErrorKind::Empty));
    }
    let prefix = &prefix[..got];
    // A zstd stream starts with a frame or with a skippable frame (magic
    // 0x184D2A50–5F; `pzstd` starts every frame with one).
    let skippable =
        prefix.len() == 4 && prefix[0] & 0xf0 == 0x50 && prefix[1..] == [0x2a, 0x4d, 0x18];
    let magic = if prefix == ZSTD_MAGIC || skippable {
        Compression::Zstd
    } else if prefix.starts_with(&GZIP_MAGIC) {
        Compression::Gzip
    } else {
        Compression::None
    };
    let mismatch =
        |want: &str| format!("the data starts with {}, not the {want} magic", hex(prefix));
    match (ext, magic) {
        (Compression::Zstd, m) if m != Compression::Zstd => {
            return Err(TraceError::new(
                name,
                Location::File,
                TraceErrorKind::NotZstd(mismatch("zstd (28 b5 2f fd)")),
            ));
        }
        (Compression::Gzip, m) if m != Compression::Gzip => {
            return Err(TraceError::new(
                name,
                Location::File,
                TraceErrorKind::NotGzip(mismatch("gzip (1f 8b)")),
            ));
        }
        _ => {}
    }
    let chained = Cursor::new(prefix.to_vec()).chain(counting);
    let src: Source = match magic {
        Compression::None => Box::new(chained),
        Compression::Gzip => Box::new(ParallelFrames::one_thread(
            flate2::read::MultiGzDecoder::new(BufReader::with_capacity(BUF_SIZE / 4, chained)),
        )),
        // Frame by frame on the cores there are (one stream, as the zstd
        // tool writes it, on one).
        Compression::Zstd => Box::new(ParallelFrames::spawn(
            chained,
            std::thread::available_parallelism().map_or(1, |n| n.get().min(4)),
        )),
    };
    Ok(Opened {
        src,
        consumed,
        total,
    })
}
