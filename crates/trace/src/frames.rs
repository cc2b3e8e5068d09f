//! zstd written in independent frames, and decoded on several cores; any
//! other decoder (gzip's) on a core of its own ([`ParallelFrames::one_thread`]).
//!
//! A zstd stream may hold many frames one after the other; each decodes on
//! its own. [`FramedZstd`] writes a trace that way (one frame per
//! [`FRAME_RAW`] bytes, each declaring its size), and [`ParallelFrames`]
//! decodes such a stream on worker threads, handing the bytes back in order:
//! zstd's decoder is the whole replay's bottleneck on one core
//! (`docs/bench.md`). Frames of undeclared size (`pzstd` writes those, each
//! after a skippable frame) go to the workers too; one that turns out, or is
//! declared, larger than [`MAX_FRAME_RAW`] is decoded by the reader itself a
//! chunk at a time, so memory stays bounded. A frame above
//! [`MAX_FRAME_COMPRESSED`], or a cut or corrupt one, makes the splitter
//! decode the rest of the stream on one thread, as a stream written by the
//! `zstd` tool (one frame for the whole file) always is: the bytes are the
//! same either way, and so are the errors, in order after the bytes before
//! them.

use std::io::{self, Cursor, Read, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};

/// Bytes of records in each frame [`FramedZstd`] writes.
pub(crate) const FRAME_RAW: usize = 4 << 20;
/// The largest declared frame size decoded on a worker.
pub(crate) const MAX_FRAME_RAW: u64 = 16 << 20;
/// The largest compressed frame handed to a worker (the splitter holds it).
pub(crate) const MAX_FRAME_COMPRESSED: usize = 8 << 20;
/// The magic of a skippable frame, its low four bits masked.
const SKIPPABLE_MAGIC: u32 = 0x184d_2a50;
/// Decoded buffers kept for reuse.
const SPARE_BUFFERS: usize = 4;
/// zstd level of the frames written.
const LEVEL: i32 = 3;
/// Bytes handed over at a time on the single-thread path.
const CHUNK: usize = 1 << 20;

/// A writer of independent zstd frames of [`FRAME_RAW`] bytes each.
pub(crate) struct FramedZstd<W: Write> {
    out: W,
    raw: Vec<u8>,
    comp: Vec<u8>,
    cctx: zstd::bulk::Compressor<'static>,
}

impl<W: Write> FramedZstd<W> {
    pub(crate) fn new(out: W) -> io::Result<Self> {
        Ok(FramedZstd {
            out,
            raw: Vec::with_capacity(FRAME_RAW),
            comp: Vec::new(),
            cctx: zstd::bulk::Compressor::new(LEVEL)?,
        })
    }

    fn frame(&mut self) -> io::Result<()> {
        if self.raw.is_empty() {
            return Ok(());
        }
        self.comp.clear();
        self.comp
            .reserve(zstd::zstd_safe::compress_bound(self.raw.len()));
        self.cctx.compress_to_buffer(&self.raw, &mut self.comp)?;
        self.out.write_all(&self.comp)?;
        self.raw.clear();
        Ok(())
    }

    /// Write the last frame; the writer underneath.
    pub(crate) fn finish(mut self) -> io::Result<W> {
        self.frame()?;
        self.out.flush()?;
        Ok(self.out)
    }
}

impl<W: Write> Write for FramedZstd<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = buf.len().min(FRAME_RAW - self.raw.len());
        self.raw.extend_from_slice(&buf[..n]);
        if self.raw.len() == FRAME_RAW {
            self.frame()?;
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// One piece of the output, in order: decoded by a worker (a frame) or by
/// the splitter itself (the single-thread path); then the end marker, so
/// that a splitter that dies without it is an error, not a short trace.
enum Msg {
    Piece(Receiver<io::Result<Decoded>>),
    End,
}

/// What a worker hands back for a frame.
enum Decoded {
    Bytes(Vec<u8>),
    /// A frame that decodes to more than [`MAX_FRAME_RAW`] (or declares
    /// so): the reader decodes it itself, a chunk at a time.
    Large(Vec<u8>),
}

/// A frame for a worker: its bytes, its declared size (`None`: not
/// declared), and where the result goes.
type Job = (Vec<u8>, Option<usize>, SyncSender<io::Result<Decoded>>);
type Spare = Arc<Mutex<Vec<Vec<u8>>>>;

/// A zstd stream decoded frame by frame on `workers` threads (see the
/// module's documentation). Dropping it stops the threads at their next
/// hand-over.
pub(crate) struct ParallelFrames {
    pieces: Receiver<Msg>,
    /// Buffers read out, for the workers to decode into again (fresh
    /// 4 MiB buffers cost page faults: a day's trace is 11,000 frames).
    spare: Spare,
    chunk: Vec<u8>,
    at: usize,
    /// A [`Decoded::Large`] frame being read.
    large: Option<zstd::stream::read::Decoder<'static, io::BufReader<Cursor<Vec<u8>>>>>,
    /// Frames the workers decoded: read by the tests only, which check the
    /// path each frame took (the bytes alone cannot tell).
    #[cfg_attr(not(test), allow(dead_code))]
    on_workers: Arc<AtomicU64>,
    done: bool,
}

impl ParallelFrames {
    /// Any decoder (gzip's) on a thread of its own, [`CHUNK`] bytes at a
    /// time, a few chunks ahead of the reader: decoding and parsing then
    /// run on two cores.
    pub(crate) fn one_thread<R: Read + Send + 'static>(dec: R) -> ParallelFrames {
        let (tx, pieces) = sync_channel::<Msg>(4);
        std::thread::spawn(move || {
            if chunks(dec, &tx).is_ok() {
                let _ = tx.send(Msg::End);
            }
        });
        ParallelFrames {
            pieces,
            spare: Spare::default(),
            chunk: Vec::new(),
            at: 0,
            large: None,
            on_workers: Arc::default(),
            done: false,
        }
    }

    /// Decode `inner` (starting at a frame) on `workers` threads (at least 1)
    /// plus the one that splits it into frames.
    pub(crate) fn spawn<R: Read + Send + 'static>(inner: R, workers: usize) -> ParallelFrames {
        let workers = workers.max(1);
        // Pieces in flight: each worker busy and one more waiting.
        let (piece_tx, pieces) = sync_channel::<Msg>(2 * workers);
        let (job_tx, job_rx) = sync_channel::<Job>(workers);
        let job_rx = Arc::new(Mutex::new(job_rx));
        let spare = Spare::default();
        let on_workers = Arc::new(AtomicU64::new(0));
        for _ in 0..workers {
            let jobs = job_rx.clone();
            let spare = spare.clone();
            let on_workers = on_workers.clone();
            std::thread::spawn(move || {
                let Ok(mut dctx) = zstd::bulk::Decompressor::new() else {
                    return;
                };
                loop {
                    // The lock is held only while waiting for the next job.
                    let job = match jobs.lock() {
                        Ok(rx) => rx.recv(),
                        Err(_) => return,
                    };
                    let Ok((frame, size, out)) = job else {
                        return;
                    };
                    let mut buf = spare.lock().ok().and_then(|mut s| s.pop());
                    let buf = buf.get_or_insert_with(Vec::new);
                    buf.clear();
                    let r = match size {
                        Some(size) => {
                            buf.reserve(size);
                            dctx.decompress_to_buffer(&frame, buf).map(|_| true)
                        }
                        None => undeclared(&frame, buf),
                    };
                    let r = r.map(|fits| match fits {
                        true => {
                            on_workers.fetch_add(1, Ordering::Relaxed);
                            Decoded::Bytes(std::mem::take(buf))
                        }
                        false => Decoded::Large(frame),
                    });
                    let _ = out.send(r);
                }
            });
        }
        std::thread::spawn(move || {
            if split(inner, &job_tx, &piece_tx).is_ok() {
                let _ = piece_tx.send(Msg::End);
            }
        });
        ParallelFrames {
            pieces,
            spare,
            chunk: Vec::new(),
            at: 0,
            large: None,
            on_workers,
            done: false,
        }
    }
}

#[cfg(test)]
impl ParallelFrames {
    /// Frames the workers have decoded so far.
    fn frames_on_workers(&self) -> u64 {
        self.on_workers.load(Ordering::Relaxed)
    }
}

/// Hand `r`'s frames to the workers, in order, until one cannot be; then
/// decode the rest here. `Err` when the reader is gone.
fn split<R: Read>(mut r: R, jobs: &SyncSender<Job>, pieces: &SyncSender<Msg>) -> Result<(), ()> {
    let mut buf: Vec<u8> = Vec::new();
    let mut at = 0;
    let mut eof = false;
    loop {
        let rest = &buf[at..];
        if rest.is_empty() && eof {
            return Ok(());
        }
        let size = zstd::zstd_safe::find_frame_compressed_size(rest)
            .ok()
            .filter(|&n| n > 0 && n <= rest.len());
        // Skippable frames (pzstd writes one before each frame) hold no data.
        let skippable = rest.len() >= 4
            && u32::from_le_bytes(rest[..4].try_into().unwrap()) & !0xf == SKIPPABLE_MAGIC;
        let content = size.and_then(|_| zstd::zstd_safe::get_frame_content_size(rest).ok());
        match (size, content) {
            (Some(n), _) if skippable => at += n,
            // Declared larger than a worker takes: the reader decodes it.
            (Some(n), Some(Some(raw))) if raw > MAX_FRAME_RAW => {
                let (tx, rx) = sync_channel(1);
                let _ = tx.send(Ok(Decoded::Large(rest[..n].to_vec())));
                pieces.send(Msg::Piece(rx)).map_err(|_| ())?;
                at += n;
            }
            (Some(n), Some(declared)) => {
                let (tx, rx) = sync_channel(1);
                pieces.send(Msg::Piece(rx)).map_err(|_| ())?;
                let frame = rest[..n].to_vec();
                jobs.send((frame, declared.map(|raw| raw as usize), tx))
                    .map_err(|_| ())?;
                at += n;
            }
            // A frame not whole in the buffer yet: read on, up to the limit.
            (None, _) if !eof && rest.len() < MAX_FRAME_COMPRESSED => {
                buf.drain(..at);
                at = 0;
                let from = buf.len();
                let want = (from + CHUNK).min(MAX_FRAME_COMPRESSED);
                buf.resize(want, 0);
                // One read at a time: an error loses no byte read before it.
                match r.read(&mut buf[from..]) {
                    Ok(got) => {
                        buf.truncate(from + got);
                        eof = got == 0;
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => buf.truncate(from),
                    Err(e) => {
                        // The bytes before the error, then the error itself.
                        buf.truncate(from);
                        let rest = Cursor::new(buf).chain(Failing(Some(e)));
                        return single(rest, pieces);
                    }
                }
            }
            // Too large, no declared size, corrupt or cut: one decoder for
            // the rest, which also reports what is wrong.
            _ => {
                let rest = Cursor::new(buf.split_off(at)).chain(r);
                return single(rest, pieces);
            }
        }
    }
}

/// Decode a frame of undeclared size into `buf`: `false` when it holds more
/// than [`MAX_FRAME_RAW`] bytes (what was decoded is then dropped).
fn undeclared(frame: &[u8], buf: &mut Vec<u8>) -> io::Result<bool> {
    let dec = zstd::stream::read::Decoder::with_buffer(frame)?.single_frame();
    let got = dec.take(MAX_FRAME_RAW + 1).read_to_end(buf)?;
    if got as u64 > MAX_FRAME_RAW {
        buf.clear();
        return Ok(false);
    }
    Ok(true)
}

/// A reader that fails once with its error, then ends.
struct Failing(Option<io::Error>);

impl Read for Failing {
    fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
        match self.0.take() {
            Some(e) => Err(e),
            None => Ok(0),
        }
    }
}

/// Decode the zstd stream `r` on this thread ([`chunks`]).
fn single<R: Read>(r: R, pieces: &SyncSender<Msg>) -> Result<(), ()> {
    match zstd::stream::read::Decoder::new(r) {
        Ok(dec) => chunks(dec, pieces),
        Err(e) => send_one(pieces, Err(e)).and(Err(())),
    }
}

/// Hand on one piece already decoded; `Err` when the reader is gone.
fn send_one(pieces: &SyncSender<Msg>, p: io::Result<Vec<u8>>) -> Result<(), ()> {
    let (tx, rx) = sync_channel(1);
    let _ = tx.send(p.map(Decoded::Bytes));
    pieces.send(Msg::Piece(rx)).map_err(|_| ())
}

/// Hand on what `dec` decodes, a chunk at a time, every byte it gave
/// before an error and then the error, which ends the stream (no end
/// marker after it: `Err`, as when the reader is gone).
fn chunks<R: Read>(mut dec: R, pieces: &SyncSender<Msg>) -> Result<(), ()> {
    loop {
        let mut buf = vec![0u8; CHUNK];
        let mut n = 0;
        let r = loop {
            match dec.read(&mut buf[n..]) {
                Ok(0) => break Ok(()),
                Ok(k) => {
                    n += k;
                    if n == CHUNK {
                        break Ok(());
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => break Err(e),
            }
        };
        buf.truncate(n);
        if n > 0 {
            send_one(pieces, Ok(buf))?;
        }
        match r {
            Err(e) => return send_one(pieces, Err(e)).and(Err(())),
            Ok(()) if n < CHUNK => return Ok(()),
            Ok(()) => {}
        }
    }
}

impl Read for ParallelFrames {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        // Nothing asked: not the end of a large frame either.
        if out.is_empty() {
            return Ok(0);
        }
        while self.at == self.chunk.len() {
            if let Some(dec) = &mut self.large {
                match dec.read(out) {
                    Ok(0) => self.large = None,
                    Ok(n) => return Ok(n),
                    Err(e) => {
                        (self.large, self.done) = (None, true);
                        return Err(e);
                    }
                }
                continue;
            }
            if self.done {
                return Ok(0);
            }
            let piece = match self.pieces.recv() {
                Ok(Msg::Piece(p)) => p,
                Ok(Msg::End) => {
                    self.done = true;
                    return Ok(0);
                }
                // Gone without its end marker: the splitter panicked.
                Err(_) => {
                    self.done = true;
                    return Err(io::Error::other("the decompressing thread stopped"));
                }
            };
            match piece.recv() {
                Ok(Ok(Decoded::Large(frame))) => {
                    let dec = zstd::stream::read::Decoder::new(Cursor::new(frame))?;
                    self.large = Some(dec.single_frame());
                }
                Ok(Ok(Decoded::Bytes(c))) => {
                    let used = std::mem::replace(&mut self.chunk, c);
                    self.at = 0;
                    if let Ok(mut s) = self.spare.lock()
                        && s.len() < SPARE_BUFFERS
                        && used.capacity() > 0
                    {
                        s.push(used);
                    }
                }
                Ok(Err(e)) => {
                    self.done = true;
                    return Err(e);
                }
                Err(_) => {
                    self.done = true;
                    return Err(io::Error::other("a decompressing thread stopped"));
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
mod tests {
    use super::*;

    /// 10.5 MiB of records-like bytes: compressible, not trivially.
    fn data() -> Vec<u8> {
        (0..(21usize << 19))
            .map(|i| ((i / 24) as u64).wrapping_mul(0x9e37_79b9) as u8 ^ (i % 24) as u8)
            .collect()
    }

    fn framed(data: &[u8]) -> Vec<u8> {
        let mut w = FramedZstd::new(Vec::new()).unwrap();
        // In odd pieces, as a BufWriter hands them over.
        for piece in data.chunks(1_000_003) {
            w.write_all(piece).unwrap();
        }
        w.finish().unwrap()
    }

    fn frames_in(mut z: &[u8]) -> usize {
        let mut n = 0;
        while !z.is_empty() {
            let k = zstd::zstd_safe::find_frame_compressed_size(z).unwrap();
            z = &z[k..];
            n += 1;
        }
        n
    }

    fn read_all(z: Vec<u8>, workers: usize) -> (Vec<u8>, Option<io::Error>) {
        let (got, e, _) = read_counting(z, workers);
        (got, e)
    }

    /// Also how many frames the workers decoded.
    fn read_counting(z: Vec<u8>, workers: usize) -> (Vec<u8>, Option<io::Error>, u64) {
        let mut r = ParallelFrames::spawn(Cursor::new(z), workers);
        let mut got = Vec::new();
        let e = r.read_to_end(&mut got).err();
        (got, e, r.frames_on_workers())
    }

    #[test]
    fn frames_written_apart_decode_in_order_on_any_number_of_workers() {
        let d = data();
        let z = framed(&d);
        // 4 MiB frames: three for 10.5 MiB; any zstd decoder reads them.
        assert_eq!(frames_in(&z), 3);
        assert_eq!(zstd::stream::decode_all(&z[..]).unwrap(), d);
        for w in [1, 2, 3, 8] {
            let (got, e, on_workers) = read_counting(z.clone(), w);
            assert!(e.is_none(), "{e:?}");
            assert!(got == d, "{w} workers");
            assert_eq!(on_workers, 3, "every frame on a worker");
        }
        // A stream as the zstd tool writes it (one frame, size not
        // declared), a frame declaring more than MAX_FRAME_RAW, and both
        // after frames a worker can take: the same bytes.
        let one = zstd::stream::encode_all(&d[..], 3).unwrap();
        let big = vec![7u8; MAX_FRAME_RAW as usize + 1];
        let big_z = zstd::bulk::compress(&big, 1).unwrap();
        let mut mixed = z.clone();
        mixed.extend_from_slice(&one);
        mixed.extend_from_slice(&big_z);
        let mut want = d.clone();
        want.extend_from_slice(&d);
        want.extend_from_slice(&big);
        // The tool's frame fits a worker; the declared-large one does not.
        for (z, want, on) in [(one, &d, 1), (mixed, &want, 4)] {
            let (got, e, on_workers) = read_counting(z, 2);
            assert!(e.is_none(), "{e:?}");
            assert!(got == *want);
            assert_eq!(on_workers, on);
        }
        // A frame too large for the splitter to hold (incompressible): the
        // rest of the stream is decoded on one thread, frames after it too.
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let noise: Vec<u8> = (0..MAX_FRAME_COMPRESSED + (1 << 20))
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        let mut z = framed(&d[..FRAME_RAW]);
        z.extend_from_slice(&zstd::bulk::compress(&noise, 3).unwrap());
        z.extend_from_slice(&framed(&d));
        let mut want = d[..FRAME_RAW].to_vec();
        want.extend_from_slice(&noise);
        want.extend_from_slice(&d);
        let (got, e, on_workers) = read_counting(z, 2);
        assert!(e.is_none(), "{e:?}");
        assert!(got == want);
        assert_eq!(on_workers, 1, "the frames after the large one: one thread");
        let (got, e) = read_all(Vec::new(), 2);
        assert!(got.is_empty() && e.is_none());
    }

    /// As `pzstd` writes: a skippable frame before each frame, frames that
    /// do not declare their size; and among them one of undeclared size
    /// that decodes to more than a worker keeps (decoded by the reader).
    #[test]
    fn skippable_frames_and_undeclared_sizes_decode_too() {
        let d = data();
        let undeclared = |b: &[u8]| {
            let mut e = zstd::stream::write::Encoder::new(Vec::new(), 3).unwrap();
            e.write_all(b).unwrap();
            let z = e.finish().unwrap();
            assert!(matches!(
                zstd::zstd_safe::get_frame_content_size(&z),
                Ok(None)
            ));
            z
        };
        let zeros = vec![0u8; MAX_FRAME_RAW as usize + 5];
        let mut z = Vec::new();
        let mut want = Vec::new();
        for (i, part) in d.chunks(3 << 20).enumerate() {
            z.extend_from_slice(&0x184d_2a50u32.to_le_bytes());
            z.extend_from_slice(&4u32.to_le_bytes());
            z.extend_from_slice(&[9, 9, 9, 9]);
            z.extend_from_slice(&undeclared(part));
            want.extend_from_slice(part);
            if i == 1 {
                z.extend_from_slice(&undeclared(&zeros));
                want.extend_from_slice(&zeros);
            }
        }
        assert_eq!(zstd::stream::decode_all(&z[..]).unwrap(), want);
        // Reads of nothing in the middle change nothing.
        let mut r = ParallelFrames::spawn(Cursor::new(z.clone()), 2);
        let mut got = Vec::new();
        let mut piece = [0u8; 4096];
        loop {
            assert_eq!(r.read(&mut []).unwrap(), 0);
            match r.read(&mut piece).unwrap() {
                0 => break,
                n => got.extend_from_slice(&piece[..n]),
            }
        }
        assert!(got == want, "{} of {} bytes", got.len(), want.len());
        for w in [1, 3] {
            let (got, e, on_workers) = read_counting(z.clone(), w);
            // Four parts on the workers; the zeros came back too large.
            assert_eq!(on_workers, 4);
            assert!(e.is_none(), "{e:?}");
            assert!(
                got == want,
                "{w} workers: {} of {} bytes",
                got.len(),
                want.len()
            );
        }
    }

    #[test]
    fn a_bad_frame_is_an_error_after_the_bytes_before_it() {
        let d = data();
        let z = framed(&d);
        let second = zstd::zstd_safe::find_frame_compressed_size(&z).unwrap();
        // Cut inside the third frame: two frames and what of the third could
        // be decoded (a cut frame is decoded as a stream), then an error.
        let cut = z[..z.len() - 100].to_vec();
        let (got, e) = read_all(cut, 2);
        assert!(
            got.len() >= 2 * FRAME_RAW && got.len() < d.len(),
            "{}",
            got.len()
        );
        assert!(got == d[..got.len()]);
        assert!(e.is_some());
        // A byte changed inside the second frame's data.
        let mut bad = z.clone();
        bad[second + 5_000] ^= 0x55;
        let (got, e) = read_all(bad, 2);
        assert!(got == d[..FRAME_RAW], "{} bytes", got.len());
        assert!(e.is_some());
        // Not zstd at all.
        let (got, e) = read_all(b"not zstd, just text".to_vec(), 2);
        assert!(got.is_empty() && e.is_some());
    }

    /// A decoder on a thread of its own (gzip's): every byte in order, then
    /// its error; an empty stream; a decoder that panics is an error, not
    /// the end of the trace.
    #[test]
    fn one_thread_passes_every_byte_in_order_then_the_error() {
        /// Yields `data` in pieces of 7 bytes, then fails.
        struct Flaky {
            data: Vec<u8>,
            at: usize,
        }
        impl Read for Flaky {
            fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
                if self.at == self.data.len() {
                    return Err(io::Error::new(io::ErrorKind::InvalidData, "corrupt"));
                }
                let n = out.len().min(7).min(self.data.len() - self.at);
                out[..n].copy_from_slice(&self.data[self.at..self.at + n]);
                self.at += n;
                Ok(n)
            }
        }
        let data: Vec<u8> = (0..3 * CHUNK + 12_345)
            .map(|i| (i * 31 % 251) as u8)
            .collect();
        let mut got = Vec::new();
        ParallelFrames::one_thread(Cursor::new(data.clone()))
            .read_to_end(&mut got)
            .unwrap();
        assert!(got == data);
        let mut r = ParallelFrames::one_thread(Flaky {
            data: data.clone(),
            at: 0,
        });
        let mut got = Vec::new();
        let e = r.read_to_end(&mut got).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        assert!(
            got == data,
            "{} of {} bytes before the error",
            got.len(),
            data.len()
        );
        let mut got = Vec::new();
        ParallelFrames::one_thread(io::empty())
            .read_to_end(&mut got)
            .unwrap();
        assert!(got.is_empty());
        struct Panics;
        impl Read for Panics {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                panic!("decoder bug (expected by this test)")
            }
        }
        let e = ParallelFrames::one_thread(Panics)
            .read_to_end(&mut Vec::new())
            .unwrap_err();
        assert!(e.to_string().contains("stopped"), "{e}");
    }

    /// The file's own read error comes through as itself, after every byte
    /// decoded before it; dropping the reader early stops the threads.
    #[test]
    fn a_read_error_arrives_in_order_and_an_early_drop_ends_cleanly() {
        struct Flaky(Cursor<Vec<u8>>);
        impl Read for Flaky {
            fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
                match self.0.read(out)? {
                    0 => Err(io::Error::new(io::ErrorKind::InvalidData, "disk error")),
                    k => Ok(k),
                }
            }
        }
        let d = data();
        let z = framed(&d);
        let two = {
            let a = zstd::zstd_safe::find_frame_compressed_size(&z).unwrap();
            a + zstd::zstd_safe::find_frame_compressed_size(&z[a..]).unwrap()
        };
        // The file ends in an error right after the second frame.
        let mut r = ParallelFrames::spawn(Flaky(Cursor::new(z[..two].to_vec())), 2);
        let mut got = Vec::new();
        let e = r.read_to_end(&mut got).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData, "{e}");
        assert!(got == d[..2 * FRAME_RAW]);
        let mut r = ParallelFrames::spawn(Cursor::new(z), 2);
        let mut first = [0u8; 10];
        r.read_exact(&mut first).unwrap();
        assert_eq!(first, d[..10]);
        drop(r);
    }
}
