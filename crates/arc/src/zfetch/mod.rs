//! The OpenZFS predictive prefetcher (`dmu_zfetch.c`), version-aware.
//!
//! A pure model of the per-file stream detector that decides which blocks
//! ZFS prefetches (spec `zfs-arc.md` §10, corrected by §17): streams
//! (`zstream_t`), the reorder window (2.2.4+), the adaptive distance ramp
//! (2.1.6+) with its `io_active` brake (2.1.10+), the prescient L1 step
//! (2.3.0+), stream reaping and recycling, and the zfetchstats kstat. It
//! knows nothing of the ARC: it turns demand accesses into prefetch reads
//! ([`PrefetchIo`]) that the caller hands to its ARC model.
//!
//! # Caller contract
//!
//! For a demand read of data blocks `[blkid, blkid + nblks)` of `file`
//! (the `dmu_buf_hold_array_by_dnode` path):
//!
//! 1. `let s = zf.prepare(file, blkid, nblks, true, now_ns, &info, &mut ios);`
//!    then issue the reads now in `ios` (prescient L1 reads, 2.3.0+) as ARC
//!    reads with the prefetch + prescient flags;
//! 2. issue the demand reads, noting whether any block was not cached;
//! 3. if `s` is `Some`, `zf.run(s, missed, &mut ios)` and issue each new
//!    [`PrefetchIo`] as an ARC read with the prefetch flag;
//! 4. when a read from `run` completes (at once for an ARC hit, at I/O
//!    completion for a miss), call [`Zfetch::io_done`].
//!
//! Level-1 block `b` covers data blocks `[b << epbs, (b + 1) << epbs)`
//! (`epbs = indblkshift − 7`, 10 by default). [`PrefetchIo::key`] gives the
//! ARC key `(file << 41) | (level << 40) | blkid`. `write(2)` calls use
//! `fetch_data = false`. Time is logical (`now_ns`), truncated to whole
//! seconds where the kernel uses seconds.
//!
//! ```
//! use arclab_arc::zfetch::{FileInfo, Zfetch, ZfetchConfig};
//! let mut zf = Zfetch::new(ZfetchConfig::default());
//! let info = FileInfo { maxblkid: 1 << 20, blocksize: 128 << 10 };
//! let mut ios = Vec::new();
//! // First read of block 100: a miss that creates a stream expecting 101.
//! assert!(zf.prepare(7, 100, 1, true, 0, &info, &mut ios).is_none());
//! // Block 101 hits; the demand read missed, so data prefetch starts.
//! let s = zf.prepare(7, 101, 1, true, 0, &info, &mut ios).unwrap();
//! zf.run(s, true, &mut ios);
//! // Distance = one 128 KiB block: data block 102. The L1 window is data
//! // blocks [103, 104), i.e. the empty L1 index range [1, 1): no L1 read.
//! assert_eq!(ios.iter().map(|io| (io.level, io.blkid)).collect::<Vec<_>>(), [(0, 102)]);
//! assert_eq!(zf.stats().hits, 1);
//! assert_eq!(zf.stats().misses, 1);
//! for io in &ios {
//!     zf.io_done(io, true);
//! }
//! assert_eq!(zf.stats().io_active, 0);
//! ```

mod config;
mod distance;
mod engine;
mod stream;

pub use crate::request::block_key;
pub use config::{Generation, PrefetchProperty, ZfetchConfig};
pub use engine::Zfetch;
pub use stream::{Range, Stream, ZFETCH_RANGES};

use std::fmt::Write as _;

/// What the prefetcher needs to know about a file (dnode).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileInfo {
    /// `dn_maxblkid`: the last data block of the file.
    pub maxblkid: u64,
    /// Data block size in bytes (`dn_datablksz`), a power of two.
    pub blocksize: u32,
}

/// A handle to the stream a [`Zfetch::prepare`] call matched, for the
/// following [`Zfetch::run`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StreamRef {
    file: u32,
    slot: u16,
    epoch: u32,
}

impl StreamRef {
    /// The file the stream belongs to.
    pub fn file(&self) -> u32 {
        self.file
    }
}

/// A prefetch read to hand to the ARC.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PrefetchIo {
    /// File (dnode) id.
    pub file: u32,
    /// 0 = data block, 1 = L1 indirect block.
    pub level: u8,
    /// Block id at that level.
    pub blkid: u64,
    /// `ARC_FLAG_PRESCIENT_PREFETCH` (the L1 step of `prepare`) rather than
    /// a predictive prefetch.
    pub prescient: bool,
    /// The stream to notify in [`Zfetch::io_done`] (`None` for prescient
    /// reads, which have no completion callback).
    pub stream: Option<StreamRef>,
}

impl PrefetchIo {
    /// ARC key: `(file << 41) | (level << 40) | blkid`.
    pub fn key(&self) -> u64 {
        block_key(self.file, self.level, self.blkid)
    }
}

/// The zfetchstats counters (names as in the kstat).
///
/// Every [`Zfetch::prepare`] that passes the fast paths lands in exactly one
/// of `hits`/`future`/`stride`/`past`/`misses` (2.2.4+; before, the
/// end-of-file and "already prefetched" exits count nothing).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ZfetchStats {
    /// Accesses continuing a stream (exact, +1 or straddling).
    pub hits: u64,
    /// Accesses ahead of a stream, only remembered (2.2.4+).
    pub future: u64,
    /// Accesses ahead of a stream that advanced it (2.2.4+).
    pub stride: u64,
    /// Accesses just behind a recently active stream (2.2.4+).
    pub past: u64,
    /// Accesses matching no stream.
    pub misses: u64,
    /// Stream creations refused at the stream limit.
    pub max_streams: u64,
    /// Prefetch reads handed out (predictive and prescient; 2.1+).
    pub io_issued: u64,
    /// Predictive prefetch reads not yet completed (2.1.10+).
    pub io_active: u64,
}

impl ZfetchStats {
    /// The kstat field names of a generation, in file order.
    pub fn field_names(cfg: &ZfetchConfig) -> &'static [&'static str] {
        const ALL: [&str; 8] = [
            "hits",
            "future",
            "stride",
            "past",
            "misses",
            "max_streams",
            "io_issued",
            "io_active",
        ];
        const OLD: [&str; 5] = ["hits", "misses", "max_streams", "io_issued", "io_active"];
        match cfg.generation {
            Generation::Sequential07 => &OLD[..3],
            g if g.has_reorder() => &ALL,
            _ if cfg.io_active_brake => &OLD,
            _ => &OLD[..4],
        }
    }

    /// Value of a field by kstat name.
    pub fn get(&self, name: &str) -> Option<u64> {
        Some(match name {
            "hits" => self.hits,
            "future" => self.future,
            "stride" => self.stride,
            "past" => self.past,
            "misses" => self.misses,
            "max_streams" => self.max_streams,
            "io_issued" => self.io_issued,
            "io_active" => self.io_active,
            _ => return None,
        })
    }

    /// `/proc/spl/kstat/zfs/zfetchstats` as Linux prints it: the header
    /// `kid type flags ndata data_size crtime snaptime` (type 1 = named,
    /// flags `0x01` = virtual, 272 bytes per entry), `name type data`, then
    /// one `%-31s %-4d %llu` row per field (type 4 = uint64).
    pub fn kstat_text(
        &self,
        cfg: &ZfetchConfig,
        kid: u32,
        crtime_ns: u64,
        snaptime_ns: u64,
    ) -> String {
        let names = Self::field_names(cfg);
        let mut s = String::with_capacity(64 * (names.len() + 2));
        let n = names.len();
        let _ = writeln!(s, "{kid} 1 0x01 {n} {} {crtime_ns} {snaptime_ns}", n * 272);
        let _ = writeln!(s, "{:<31} {:<4} data", "name", "type");
        for name in names {
            let v = self.get(name).unwrap_or(0);
            let _ = writeln!(s, "{name:<31} {:<4} {v}", 4);
        }
        s
    }
}
