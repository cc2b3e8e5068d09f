//! The ZFS ARC model and its prefetcher driven as one replay target.
//!
//! [`ZfsArc`] owns an [`ArcCache`] and, when prefetch is on, a [`Zfetch`]. For
//! each demand read it follows the kernel's order (spec §15): the
//! prefetcher's `prepare`, the demand `arc_read`, then `run`, whose reads are
//! issued to the ARC with the prefetch flag. Prefetch reads complete after
//! the device latency; their completions are handed back to the prefetcher
//! in time order so that `io_active` and late-prefetch detection work.
//!
//! ## Mapping a plain trace onto files and blocks
//!
//! Traces that carry no file and block numbers are read as **one file**
//! (dnode 0) whose block number is the request key: a block trace's LBA or an
//! object trace's id. Keys below 2^40 keep their value, so sequential runs of
//! keys look sequential to the prefetcher; larger keys are hashed into the
//! 40-bit block space (object ids, which are not sequential anyway). The
//! prefetcher's block size is the first request's size rounded up to a power
//! of two (512 B – 16 MiB), and the file is taken as unbounded (no
//! end-of-file stream removal). Writes and deletes go to the ARC unchanged.
//!
//! Generated workloads instead set [`ZfsSpec::block_keys`]: their keys are
//! [`block_key`]s, so each file gets its own prefetch streams and block size,
//! and level-1 keys are indirect (metadata) blocks, which the prefetcher
//! does not see as data reads.
//!
//! ## The prefetcher's disk reads
//!
//! A prefetch read that misses the ARC is a disk read of the block (arc.c:
//! `arc_read` takes the miss path and issues one `zio_read` of the block's
//! size, counted as `prefetch_data_misses`/`prefetch_metadata_misses`); one
//! that hits, or finds the block already being read (an `iohit`), issues
//! none. [`ZfsArc::prefetch_reads`] counts them, and the runs they form:
//! reads of consecutive blocks of one file and level, which the pool can
//! merge into one I/O (`whatif::device`).

use crate::dmu::Dmu;
use crate::sample::SpatialSampler;
use arclab_arc::model::{ArcCache, ArcConfig, ArcStats, Outcome, ReadFlags};
use arclab_arc::slab::hash_key;
use arclab_arc::zfetch::{FileInfo, PrefetchIo, Zfetch, ZfetchConfig, ZfetchStats};
use arclab_arc::{Kind, Op, Release, Request, block_key, key_blkid, key_file, key_level};
use std::collections::VecDeque;

mod prefetch_reads;
pub use prefetch_reads::PrefetchReads;

/// Block ids of a [`block_key`] are 40 bits wide.
const BLKID_MASK: u64 = (1 << 40) - 1;

/// The largest block id the prefetcher is told a file has.
const UNBOUNDED_MAXBLKID: u64 = BLKID_MASK;

/// Indirect (L1) blocks are 128 KiB (`indblkshift` 17).
const INDIRECT_BLOCK_BYTES: u32 = 128 << 10;

/// What to build: the ARC's configuration and whether prefetch runs.
#[derive(Clone, Debug, PartialEq)]
pub struct ZfsSpec {
    /// The engine's configuration (behaviour, RAM, limits, tunables).
    pub config: ArcConfig,
    /// Run the predictive prefetcher (`zfs_prefetch_disable=0`).
    pub prefetch: bool,
    /// The keys are [`block_key`]s carrying a file, a level and a block id
    /// (generated workloads); otherwise they are plain trace keys, read as
    /// blocks of one file (see the module docs).
    pub block_keys: bool,
    /// Plain trace keys are blocks of files of this many blocks: key `k` is
    /// block `k % n` of file `k / n` (e.g. many small files numbered block by
    /// block). `None`: one file of unbounded size.
    pub blocks_per_file: Option<u64>,
    /// Read each demand data block's indirect blocks through the dbuf cache
    /// first, as the DMU does ([`crate::dmu`]). Only for plain keys: block-key
    /// workloads and captures carry their own metadata reads.
    pub indirect_reads: bool,
    /// Block keys only: the stream's demand reads are the DMU's own (a
    /// generated workload's data blocks, indirect blocks and blocks of
    /// dnodes), so each is a `dbuf_hold` through the dbuf cache
    /// ([`crate::dmu::Dmu::block_read`]): a dbuf still cached is served
    /// without an ARC read, a cached dbuf keeps its ARC buffer from
    /// eviction, and a write drops the block's dbuf. Off for captures,
    /// whose reads are the ARC's own (after the host's dbuf cache).
    pub dmu_reads: bool,
    /// The pool's compression ratio for data (`zfs get compressratio`; 1 =
    /// off). With compressed ARC (`zfs_compressed_arc_enabled=1`, every
    /// release modelled) a data block is charged its physical size
    /// ([`psize`]); requests carry logical sizes.
    pub compress_ratio: f64,
    /// Memory the ARC holds and cannot evict from the start: `dnode_size`,
    /// `dbuf_size`, `bonus_size` of the host's open files
    /// ([`ArcCache::set_pinned`]); all 0 by default.
    pub pinned: [u64; 3],
    /// Metadata buffers the ARC holds from the start and cannot evict
    /// ([`ArcCache::set_held_metadata`]; e.g. what a pool's import keeps
    /// referenced); 0 by default.
    pub held_metadata: u64,
    /// Read arcstats after every `kstat_every` requests
    /// ([`ArcCache::kstat_update`], as a monitoring agent or the oracle's
    /// harness does); 0 (the default): never.
    pub kstat_every: u64,
}

/// The physical size of a data block of `lsize` logical bytes at compression
/// ratio `ratio`: `lsize / ratio` rounded up to 4 KiB sectors (ashift 12),
/// and `lsize` itself unless that saves at least 1/8 (`zio_compress_data`
/// keeps a block uncompressed otherwise).
pub fn psize(lsize: u32, ratio: f64) -> u32 {
    if !compresses(ratio) {
        return lsize;
    }
    const SECTOR: u64 = 4096;
    let want = (f64::from(lsize) / ratio).ceil() as u64;
    let p = want.div_ceil(SECTOR) * SECTOR;
    if p > u64::from(lsize) - u64::from(lsize) / 8 {
        lsize
    } else {
        p as u32
    }
}

/// Whether `ratio` compresses at all: finite and above 1 (any other ratio
/// leaves every block at its logical size).
fn compresses(ratio: f64) -> bool {
    ratio > 1.0 && ratio.is_finite()
}

impl ZfsSpec {
    /// A spec with the defaults of a replay: plain keys read as one
    /// unbounded file, no indirect reads (set [`ZfsSpec::blocks_per_file`]
    /// and [`ZfsSpec::indirect_reads`] for files of a known size), no
    /// compression.
    pub fn new(config: ArcConfig, prefetch: bool, block_keys: bool) -> ZfsSpec {
        ZfsSpec {
            config,
            prefetch,
            block_keys,
            blocks_per_file: None,
            indirect_reads: false,
            dmu_reads: false,
            compress_ratio: 1.0,
            pinned: [0; 3],
            held_metadata: 0,
            kstat_every: 0,
        }
    }
}

/// What a file's first read tells the prefetcher of it: its last block,
/// and its block size from the read's size (a power of two, 512 B–16 MiB).
#[inline]
fn first_info(maxblkid: u64, size: u32) -> FileInfo {
    FileInfo {
        maxblkid,
        blocksize: size.clamp(512, 16 << 20).next_power_of_two(),
    }
}

/// The ARC model plus its prefetcher.
#[derive(Debug)]
pub struct ZfsArc {
    arc: ArcCache,
    /// Read arcstats after every this many requests (0: never).
    kstat_every: u64,
    /// Requests served, for `kstat_every`.
    requests: u64,
    zfetch: Option<Zfetch>,
    ios: Vec<PrefetchIo>,
    inflight: VecDeque<(u64, PrefetchIo)>,
    block_keys: bool,
    blocks_per_file: Option<u64>,
    /// `log2(blocks_per_file)` when it is a power of two (a shift and a
    /// mask place a key instead of a 64-bit division on every request).
    file_shift: Option<u32>,
    /// The data's compression ratio, `None` when it does not compress
    /// (decided once, not on every read).
    compress_ratio: Option<f64>,
    /// The DMU's indirect blocks and dbuf cache, when on.
    dmu: Option<Dmu>,
    /// Plain keys: each demand data read holds its indirect blocks
    /// ([`ZfsSpec::indirect_reads`]).
    indirect: bool,
    /// Block keys: demand reads go through the dbuf cache
    /// ([`ZfsSpec::dmu_reads`]).
    dmu_reads: bool,
    latency_ns: u64,
    disk: PrefetchReads,
    /// A sampled run's sampler: prefetch reads of blocks outside the sample
    /// are not simulated (the miniature holds the sample's blocks only).
    prefetch_filter: Option<SpatialSampler>,
    /// [`ZfsArc::access_batch`]'s scratch: each request's ARC key and hash.
    batch_keys: Vec<(u64, u64)>,
}

impl ZfsArc {
    /// Build the engine (and the prefetcher of the same release if asked).
    pub fn new(spec: &ZfsSpec) -> ZfsArc {
        let mut config = spec.config.clone();
        // Demand keys are mapped into the block-key space below, so the
        // level bit means what it says.
        config.tunables.keys_encode_level = true;
        let latency_ns = config.tunables.device_latency_ns;
        let zfetch = spec.prefetch.then(|| {
            let mut z = ZfetchConfig::for_release(config.behaviour.release);
            z.c_max = arclab_arc::limits(
                config.ram_bytes,
                config.os,
                config.behaviour.limits,
                config.arc_max,
                config.arc_min,
            )
            .c_max_bytes;
            Zfetch::new(z)
        });
        let indirect = spec.indirect_reads && !spec.block_keys;
        let dmu_reads = spec.dmu_reads && spec.block_keys;
        let dmu = (indirect || dmu_reads)
            .then(|| Dmu::new(config.behaviour.release >= Release::new(0, 8, 0)));
        let mut arc = ArcCache::new(config);
        if spec.pinned != [0; 3] {
            let [dnode, dbuf, bonus] = spec.pinned;
            arc.set_pinned(dnode, dbuf, bonus);
        }
        if spec.held_metadata != 0 {
            arc.set_held_metadata(spec.held_metadata);
        }
        ZfsArc {
            kstat_every: spec.kstat_every,
            requests: 0,
            dmu,
            indirect,
            dmu_reads,
            blocks_per_file: spec.blocks_per_file.filter(|&n| n > 0),
            file_shift: spec
                .blocks_per_file
                .filter(|n| n.is_power_of_two())
                .map(u64::trailing_zeros),
            compress_ratio: Some(spec.compress_ratio).filter(|&r| compresses(r)),
            arc,
            zfetch,
            ios: Vec::with_capacity(64),
            inflight: VecDeque::with_capacity(1024),
            block_keys: spec.block_keys,
            latency_ns,
            disk: PrefetchReads::default(),
            prefetch_filter: None,
            batch_keys: Vec::new(),
        }
    }

    /// Simulate only the prefetch reads of blocks `sampler` keeps: the
    /// others belong to the part of the cache a sampled run leaves out. The
    /// prefetcher still sees them complete (its streams and `io_active` are
    /// those of the whole workload's stream).
    pub fn set_prefetch_filter(&mut self, sampler: Option<SpatialSampler>) {
        self.prefetch_filter = sampler;
    }

    /// A sampled run keeps whole units of a sequential file's blocks and
    /// leaves out the ones before: tell the prefetcher about the `n` reads
    /// that precede `req` in the whole stream (blocks `blkid − n .. blkid`
    /// of its file, at its time), so that its stream is running at the
    /// unit's start as it is in the whole replay, not formed afresh by the
    /// unit's first reads (which would then miss). Their prefetch reads
    /// pass the filter like any other; the ARC sees none of the reads.
    pub fn shadow_reads(&mut self, req: &Request, n: u64) {
        if !self.block_keys || self.zfetch.is_none() || req.op != Op::Read || req.prefetch {
            return;
        }
        let (file, blkid) = (key_file(req.key), key_blkid(req.key));
        if key_level(req.key) != 0 || blkid < n {
            return;
        }
        let now = req.time_ns;
        self.complete_prefetches(now);
        // The streams of this file were left behind by earlier units: the
        // whole stream's one stream is here now.
        if let Some(zf) = self.zfetch.as_mut() {
            zf.forget_file(file);
        }
        let info = self.file_info(file, UNBOUNDED_MAXBLKID, req.size);
        for b in blkid - n..blkid {
            let Some(zf) = self.zfetch.as_mut() else {
                return;
            };
            self.ios.clear();
            let stream = zf.prepare(file, b, 1, true, now, &info, &mut self.ios);
            self.issue_prefetches(now, &info);
            // `missed`: the whole replay's stream missed at the file's first
            // block (that is how it started prefetching; from 2.2 a stream
            // issues no data prefetch until one of its reads has missed), so
            // the stream told about here has missed too. Told it had not, it
            // would start prefetching only once the unit's first block had
            // missed, one demand miss per unit that the whole replay does
            // not have (backup at 8 GiB: 0.989 sampled against 0.999).
            if let (Some(s), Some(zf)) = (stream, self.zfetch.as_mut()) {
                zf.run(s, true, &mut self.ios);
                self.issue_prefetches(now, &info);
            }
        }
    }

    /// The key the sampler saw for a block the prefetcher reads: the block
    /// key itself, or the plain trace key it was placed from.
    fn trace_key(&self, io: &PrefetchIo) -> u64 {
        if self.block_keys || io.level > 0 {
            return io.key();
        }
        match self.blocks_per_file {
            Some(n) => u64::from(io.file) * n + io.blkid,
            None => io.blkid,
        }
    }

    /// The ARC engine (for scenario drivers: pressure, runtime tunables).
    pub fn arc_mut(&mut self) -> &mut ArcCache {
        &mut self.arc
    }

    /// The ARC engine.
    pub fn arc(&self) -> &ArcCache {
        &self.arc
    }

    /// arcstats of the model now.
    pub fn stats(&self) -> ArcStats {
        let mut s = self.arc.stats();
        if let Some(ratio) = self.compress_ratio {
            // Data blocks are charged compressed: their logical bytes are the
            // ratio times (an estimate: each block's own rounding is not kept).
            // Metadata is counted at its charged size.
            let meta = s.compressed_size.saturating_sub(s.data_size);
            s.uncompressed_size = (s.data_size as f64 * ratio) as u64 + meta;
        }
        s
    }

    /// Heap bytes of the model, its prefetcher and the replay's own queues.
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        self.arc.heap_bytes()
            + self.dmu.as_ref().map_or(0, Dmu::heap_bytes)
            + self.zfetch.as_ref().map_or(0, Zfetch::heap_bytes)
            + self.ios.capacity() * size_of::<PrefetchIo>()
            + self.inflight.capacity() * size_of::<(u64, PrefetchIo)>()
    }

    /// zfetchstats, when prefetch is on.
    pub fn zfetch_stats(&self) -> Option<ZfetchStats> {
        self.zfetch.as_ref().map(Zfetch::stats)
    }

    /// The prefetcher's reads that missed the ARC, and their runs.
    pub fn prefetch_reads(&self) -> &PrefetchReads {
        &self.disk
    }

    /// Count the prefetcher's disk reads from zero again (see
    /// [`PrefetchReads::restart`]).
    pub fn restart_prefetch_reads(&mut self) {
        self.disk.restart();
    }

    /// Map a trace key onto a data block of file 0.
    #[inline]
    fn blkid_of(key: u64) -> u64 {
        if key <= BLKID_MASK {
            key
        } else {
            hash_key(key) & BLKID_MASK
        }
    }

    /// Map a plain trace key onto (file, block id, last block of the file):
    /// one unbounded file, or files of `blocks_per_file` blocks.
    #[inline]
    fn place(&self, key: u64) -> (u32, u64, u64) {
        match self.blocks_per_file {
            None => (0, Self::blkid_of(key), UNBOUNDED_MAXBLKID),
            Some(n) => {
                // A block key has 23 bits of file: larger file numbers are
                // hashed into them.
                const FILES: u64 = 1 << 23;
                let (file, blkid) = match self.file_shift {
                    Some(s) => (key >> s, key & (n - 1)),
                    None => (key / n, key % n),
                };
                let file = if file < FILES {
                    file as u32
                } else {
                    (hash_key(file) >> 41) as u32
                };
                (file, blkid, n - 1)
            }
        }
    }

    /// The key `req` has in the ARC: a block key as given, or a plain
    /// trace key placed as a data block ([`ZfsArc::place`]).
    #[inline(always)]
    fn arc_key(&self, req: &Request) -> u64 {
        if self.block_keys {
            req.key
        } else {
            let (file, blkid, _) = self.place(req.key);
            block_key(file, 0, blkid)
        }
    }

    /// Serve `batch` in order, calling `done(request, served)` after each:
    /// the same results as [`ZfsArc::access`] on each request in turn. Each
    /// request's ARC key and its hash are computed once, in a pass over the
    /// batch, and the hash-table misses of the requests ahead are started
    /// as hints ([`ArcCache::prefetch_hashed`]: bucket 16 requests ahead,
    /// header 8 ahead, its list neighbours 4 ahead).
    #[inline]
    pub fn access_batch(&mut self, batch: &[Request], mut done: impl FnMut(&Request, bool)) {
        let mut keys = std::mem::take(&mut self.batch_keys);
        keys.clear();
        keys.extend(batch.iter().map(|r| {
            let k = self.arc_key(r);
            (k, hash_key(k))
        }));
        for (i, r) in batch.iter().enumerate() {
            if let Some(&(_, h)) = keys.get(i + 16) {
                self.arc.prefetch_hashed(h, 0);
            }
            if let Some(&(_, h)) = keys.get(i + 8) {
                self.arc.prefetch_hashed(h, 1);
            }
            if let Some(&(_, h)) = keys.get(i + 4) {
                self.arc.prefetch_hashed(h, 2);
            }
            let served = self.access_keyed(r, keys[i].0);
            done(r, served);
        }
        self.batch_keys = keys;
    }

    /// Process one request; returns whether a demand read was served without
    /// a disk read (an ARC hit or I/O hit). Writes and deletes return true.
    #[inline]
    pub fn access(&mut self, req: &Request) -> bool {
        self.access_keyed(req, self.arc_key(req))
    }

    /// [`ZfsArc::access`] of `req`, whose ARC key is `key`.
    #[inline(always)]
    fn access_keyed(&mut self, req: &Request, key: u64) -> bool {
        let served = self.serve(req, key);
        if self.kstat_every != 0 {
            self.requests += 1;
            if self.requests.is_multiple_of(self.kstat_every) {
                self.arc.kstat_update();
            }
        }
        served
    }

    /// [`ZfsArc::access`] without the arcstats reads; `key`: the
    /// request's ARC key ([`ZfsArc::arc_key`]).
    #[inline]
    fn serve(&mut self, req: &Request, key: u64) -> bool {
        let mut r = *req;
        if r.kind == Kind::Data {
            r.size = self.data_psize(r.size);
        }
        r.key = key;
        // A placed key is a data block of its file: the file and block
        // come back out of it, the last block from the file size.
        let maxblkid = match self.blocks_per_file {
            Some(n) if !self.block_keys => n - 1,
            _ => UNBOUNDED_MAXBLKID,
        };
        let (file, level, blkid) = (key_file(key), key_level(key), key_blkid(key));
        let demand = req.op == Op::Read && !req.prefetch && level == 0;
        // Hashed keys (object ids beyond the block space) are not file
        // blocks: no indirect blocks for them.
        let holds_l1 =
            demand && self.indirect && (self.blocks_per_file.is_some() || req.key <= BLKID_MASK);
        if self.dmu_reads
            && let Some(d) = self.dmu.as_mut()
        {
            if req.op != Op::Read {
                d.drop_block(&mut self.arc, r.key);
            } else if !req.prefetch && (level > 0 || self.zfetch.is_none()) {
                // An indirect block (no prefetcher: `dbuf_read` runs it for
                // level 0 only), or any block with the prefetcher off; a
                // level-0 read with it on (data, or a block of dnodes, which
                // the meta-dnode's own streams follow) goes through
                // `read_with_prefetch`, which holds its dbuf the same way.
                let lsize = if level > 0 {
                    crate::dmu::INDIRECT_LSIZE
                } else {
                    req.size
                };
                return !matches!(d.block_read(&mut self.arc, &r, lsize), Outcome::Miss { .. });
            }
        }
        if holds_l1 && let Some(d) = self.dmu.as_mut() {
            // Time passes before the read: the DMU's dbuf work happens on the
            // ARC's clock at the request's time, whoever advanced it.
            self.arc.advance_to(req.time_ns);
            d.demand_read(&mut self.arc, file, blkid, maxblkid, req.time_ns);
        }
        let hit = if self.zfetch.is_none() || !demand {
            !matches!(self.arc.access(&r), Outcome::Miss { .. })
        } else {
            self.read_with_prefetch(&r, file, blkid, maxblkid, req)
        };
        // The read's data dbuf goes, after the prefetches, which found its
        // indirect block held.
        if holds_l1 && let Some(d) = self.dmu.as_mut() {
            d.end_read();
        }
        hit
    }

    /// A demand read of block `blkid` of `file` (the ARC's request `r`, the
    /// trace's `req`) with the prefetcher on: prepare, issue, read, run,
    /// issue. Returns whether it was served without a disk read.
    #[inline]
    fn read_with_prefetch(
        &mut self,
        r: &Request,
        file: u32,
        blkid: u64,
        maxblkid: u64,
        req: &Request,
    ) -> bool {
        self.complete_prefetches(req.time_ns);
        let now = req.time_ns;
        let Some(zf) = self.zfetch.as_mut() else {
            unreachable!("the caller checked")
        };
        self.ios.clear();
        let (info, stream) = zf.prepare_read(
            file,
            blkid,
            now,
            || first_info(maxblkid, req.size),
            &mut self.ios,
        );
        self.issue_prefetches(now, &info);
        let outcome = match self.dmu.as_mut() {
            Some(d) if self.dmu_reads => d.block_read(&mut self.arc, r, req.size),
            _ => self.arc.access(r),
        };
        // `dmu_buf_hold_array_by_dnode` (2.1+) tells the prefetcher the
        // read missed when its dbuf is not DB_CACHED after `dbuf_read`: a
        // block still being read (an I/O hit) counts as missed too.
        let missed = !matches!(outcome, Outcome::Hit);
        if let (Some(s), Some(zf)) = (stream, self.zfetch.as_mut()) {
            zf.run(s, missed, &mut self.ios);
            self.issue_prefetches(now, &info);
        }
        !matches!(outcome, Outcome::Miss { .. })
    }

    /// What the prefetcher knows of `file`: its size in blocks and block
    /// size, fixed by its first read (`size` bytes).
    /// The prefetcher keeps it beside the file's streams (one lookup for
    /// both); without a prefetcher nothing asks.
    fn file_info(&mut self, file: u32, maxblkid: u64, size: u32) -> FileInfo {
        let first = || first_info(maxblkid, size);
        match self.zfetch.as_mut() {
            Some(zf) => zf.file_info(file, first),
            None => first(),
        }
    }

    /// The charged size of a data block of `lsize` bytes.
    #[inline(always)]
    fn data_psize(&self, lsize: u32) -> u32 {
        match self.compress_ratio {
            Some(ratio) => psize(lsize, ratio),
            None => lsize,
        }
    }

    /// Issue the prefetch reads collected in `self.ios` (most demand reads
    /// collect none: the test is inlined, the work is not).
    #[inline(always)]
    fn issue_prefetches(&mut self, now: u64, info: &FileInfo) {
        if !self.ios.is_empty() {
            self.issue_collected(now, info);
        }
    }

    /// [`ZfsArc::issue_prefetches`] of a non-empty `self.ios`.
    #[inline(never)]
    fn issue_collected(&mut self, now: u64, info: &FileInfo) {
        let mut ios = std::mem::take(&mut self.ios);
        for io in ios.drain(..) {
            if let Some(s) = &self.prefetch_filter
                && !s.keep(self.trace_key(&io))
            {
                // Outside the sample: done as soon as issued.
                if let (Some(_), Some(zf)) = (io.stream, self.zfetch.as_mut()) {
                    zf.io_done(&io, true);
                }
                continue;
            }
            // `dbuf_prefetch_impl` issues nothing for a block whose dbuf
            // exists: an indirect block held by a read or in the dbuf cache
            // (data dbufs are dropped when their read ends).
            let exists = match self.dmu.as_mut() {
                Some(d) if self.dmu_reads => d.has_block(io.key()),
                Some(d) => io.level > 0 && d.has_dbuf(io.file, io.level, io.blkid),
                None => false,
            };
            if exists {
                if let Some(zf) = self.zfetch.as_mut() {
                    zf.skipped(&io);
                }
                continue;
            }
            let (key, size, kind) = match (io.level, self.indirect) {
                (0, _) => (io.key(), self.data_psize(info.blocksize), Kind::Data),
                (l, true) => (
                    crate::dmu::indirect_key(io.file, l, io.blkid),
                    crate::dmu::indirect_psize(l, io.blkid, info.maxblkid),
                    Kind::Metadata,
                ),
                (_, false) => (io.key(), INDIRECT_BLOCK_BYTES, Kind::Metadata),
            };
            if io.level == 0
                && self.indirect
                && let Some(d) = self.dmu.as_mut()
            {
                // dbuf_prefetch_impl finds the block pointer in the
                // cached parent; without one it reads the parent first,
                // with `ARC_FLAG_NOWAIT` only (`iter_aflags`, 0.7 to 2.3
                // alike): a demand metadata read as the ARC counts it, not
                // a prefetch.
                if !d.prefetch_lookup(&mut self.arc, io.file, io.blkid, info.maxblkid, now) {
                    let l1 = io.blkid >> 10;
                    let preq = Request {
                        time_ns: now,
                        key: crate::dmu::indirect_key(io.file, 1, l1),
                        size: crate::dmu::indirect_psize(1, l1, info.maxblkid),
                        op: Op::Read,
                        kind: Kind::Metadata,
                        prefetch: false,
                    };
                    if let Outcome::Miss { .. } = self.arc.access_with(&preq, ReadFlags::default())
                    {
                        self.disk.note(io.file, 1, l1, preq.size);
                    }
                }
            }
            let req = Request {
                time_ns: now,
                key,
                size,
                op: Op::Read,
                kind,
                prefetch: true,
            };
            let flags = ReadFlags {
                prescient: io.prescient,
                uncached: false,
            };
            if let Outcome::Miss { .. } = self.arc.access_with(&req, flags) {
                self.disk.note(io.file, io.level, io.blkid, size);
            }
            if io.stream.is_some() {
                self.inflight.push_back((now + self.latency_ns, io));
            }
        }
        self.ios = ios;
    }

    /// Tell the prefetcher about prefetch reads that completed by `now`.
    fn complete_prefetches(&mut self, now: u64) {
        let Some(zf) = self.zfetch.as_mut() else {
            return;
        };
        while let Some(&(t, io)) = self.inflight.front() {
            if t > now {
                break;
            }
            self.inflight.pop_front();
            zf.io_done(&io, true);
        }
    }

    /// Check the engine's invariants.
    pub fn check_invariants(&self) -> Result<(), String> {
        self.arc.check_invariants()
    }
}

#[cfg(test)]
mod tests;
