//! Byte sources: files and caller-given readers, with gzip / zstd detected by
//! magic and by file extension, and a byte counter for progress reports.

use std::fs::File;
use std::io::{self, BufReader, Cursor, Read};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{Location, TraceError, TraceErrorKind};

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
        Compression::Gzip => Box::new(ReadAhead::spawn(flate2::read::MultiGzDecoder::new(
            BufReader::with_capacity(BUF_SIZE / 4, chained),
        ))),
        // Frame by frame on the cores there are (one stream, as the zstd
        // tool writes it, on one).
        Compression::Zstd => Box::new(crate::frames::ParallelFrames::spawn(
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

/// Bytes of one chunk a [`ReadAhead`] thread hands over.
const AHEAD_CHUNK: usize = 1 << 20;
/// Chunks decoded ahead of the reader, at most (4 MiB in flight).
const AHEAD_CHUNKS: usize = 4;

/// A decompressor on its own thread: it decodes up to [`AHEAD_CHUNKS`]
/// chunks ahead while the caller parses records, so a compressed trace is
/// decoded and parsed on two cores (the decoder alone was the replay's
/// bottleneck: `docs/bench.md`). Errors arrive in order, after the bytes
/// decoded before them; a thread that dies without its end marker is an
/// error, not a short trace; dropping the reader stops the thread at its
/// next chunk.
struct ReadAhead {
    rx: std::sync::mpsc::Receiver<io::Result<Vec<u8>>>,
    chunk: Vec<u8>,
    at: usize,
    done: bool,
}

impl ReadAhead {
    fn spawn<R: Read + Send + 'static>(mut inner: R) -> ReadAhead {
        let (tx, rx) = std::sync::mpsc::sync_channel(AHEAD_CHUNKS);
        std::thread::spawn(move || {
            loop {
                let mut buf = vec![0u8; AHEAD_CHUNK];
                let mut n = 0;
                let r = loop {
                    match inner.read(&mut buf[n..]) {
                        Ok(0) => break Ok(()),
                        Ok(k) => {
                            n += k;
                            if n == buf.len() {
                                break Ok(());
                            }
                        }
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                        Err(e) => break Err(e),
                    }
                };
                buf.truncate(n);
                let end = n < AHEAD_CHUNK;
                if n > 0 && tx.send(Ok(buf)).is_err() {
                    return;
                }
                if let Err(e) = r {
                    let _ = tx.send(Err(e));
                    return;
                }
                if end {
                    // The end marker: an empty chunk.
                    let _ = tx.send(Ok(Vec::new()));
                    return;
                }
            }
        });
        ReadAhead {
            rx,
            chunk: Vec::new(),
            at: 0,
            done: false,
        }
    }
}

impl Read for ReadAhead {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        while self.at == self.chunk.len() {
            if self.done {
                return Ok(0);
            }
            match self.rx.recv() {
                Ok(Ok(c)) if c.is_empty() => self.done = true,
                Ok(Ok(c)) => (self.chunk, self.at) = (c, 0),
                Ok(Err(e)) => {
                    self.done = true;
                    return Err(e);
                }
                // Gone without its end marker: the thread panicked.
                Err(_) => {
                    self.done = true;
                    return Err(io::Error::other("the decompressing thread stopped"));
                }
            }
        }
        let n = out.len().min(self.chunk.len() - self.at);
        out[..n].copy_from_slice(&self.chunk[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

#[cfg(test)]
mod read_ahead_tests {
    use super::*;

    /// Yields `data` in pieces of 7 bytes, then fails.
    struct Flaky {
        data: Vec<u8>,
        at: usize,
    }

    impl Read for Flaky {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            if self.at == self.data.len() {
                return Err(io::Error::new(io::ErrorKind::InvalidData, "corrupt frame"));
            }
            let n = out.len().min(7).min(self.data.len() - self.at);
            out[..n].copy_from_slice(&self.data[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }

    #[test]
    fn read_ahead_passes_every_byte_in_order_then_the_error() {
        let data: Vec<u8> = (0..3 * AHEAD_CHUNK + 12_345)
            .map(|i| (i * 31 % 251) as u8)
            .collect();
        // A clean end.
        let mut got = Vec::new();
        ReadAhead::spawn(Cursor::new(data.clone()))
            .read_to_end(&mut got)
            .unwrap();
        assert_eq!(got, data);
        // Every byte before the error, then the error itself.
        let mut r = ReadAhead::spawn(Flaky {
            data: data.clone(),
            at: 0,
        });
        let mut got = Vec::new();
        let e = r.read_to_end(&mut got).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        assert_eq!(got, data);
        // An empty stream.
        let mut got = Vec::new();
        ReadAhead::spawn(io::empty()).read_to_end(&mut got).unwrap();
        assert!(got.is_empty());
        // A decoder that panics is an error, not the end of the trace.
        struct Panics;
        impl Read for Panics {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                panic!("decoder bug (expected by this test)")
            }
        }
        let e = ReadAhead::spawn(Panics)
            .read_to_end(&mut Vec::new())
            .unwrap_err();
        assert!(e.to_string().contains("stopped"), "{e}");
    }
}
