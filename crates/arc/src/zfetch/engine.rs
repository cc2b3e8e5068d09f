//! `dmu_zfetch_prepare` / `dmu_zfetch_run` / `dmu_zfetch_done` (spec §10.3–10.4).

use super::config::{Generation, PrefetchProperty, ZfetchConfig};
use super::distance::{l1_exists, l1_index, legacy_distances, ramp};
use super::stream::Stream;
use super::{FileInfo, PrefetchIo, StreamRef, ZfetchStats};

const NANOSEC: i64 = 1_000_000_000;

mod files;
use files::{FileState, Files};

/// The predictive prefetcher: one `zfetch_t` per file plus the global
/// zfetchstats. See the [module documentation](super) for the contract.
#[derive(Clone, Debug)]
pub struct Zfetch {
    cfg: ZfetchConfig,
    files: Files,
    stats: ZfetchStats,
}

/// Where `prepare` goes after matching a stream.
enum Found {
    Hit(usize, u64, u64),
    Advanced(usize, u64),
}

impl Zfetch {
    /// A prefetcher with the given tunables.
    pub fn new(cfg: ZfetchConfig) -> Self {
        Zfetch {
            cfg,
            files: Files::new(),
            stats: ZfetchStats::default(),
        }
    }

    /// The tunables.
    pub fn config(&self) -> &ZfetchConfig {
        &self.cfg
    }

    /// Change tunables at run time (like writing module parameters).
    pub fn config_mut(&mut self) -> &mut ZfetchConfig {
        &mut self.cfg
    }

    /// Heap bytes of the files' stream states and their index.
    pub fn heap_bytes(&self) -> usize {
        self.files.heap_bytes()
    }

    /// The zfetchstats counters (`io_active` is the current value).
    pub fn stats(&self) -> ZfetchStats {
        self.stats
    }

    /// The streams of `file`, list head first (most recently created).
    pub fn streams(&self, file: u32) -> impl Iterator<Item = &Stream> + '_ {
        self.files
            .get(file)
            .into_iter()
            .flat_map(|f| f.list.iter().map(|&s| &f.slots[s as usize].stream))
    }

    /// What the prefetcher knows of `file` (its size in blocks, its block
    /// size): fixed by `first` at the file's first read, the same ever
    /// after, streams forgotten or not.
    #[inline]
    pub fn file_info(&mut self, file: u32, first: impl FnOnce() -> FileInfo) -> FileInfo {
        *self.files.entry(file).info.get_or_insert_with(first)
    }

    /// Number of streams in the list of `file` (`zf_numstreams`).
    pub fn num_streams(&self, file: u32) -> usize {
        self.files.get(file).map_or(0, |f| f.list.len())
    }

    /// The stream behind a handle, while it is alive.
    pub fn stream(&self, r: StreamRef) -> Option<&Stream> {
        let slot = self.files.get(r.file)?.slots.get(r.slot as usize)?;
        (slot.used && slot.epoch == r.epoch).then_some(&slot.stream)
    }

    /// Drop every stream of `file` (`dmu_zfetch_fini`, the dnode left
    /// memory). In-flight prefetches of it still lower `io_active` in
    /// [`Zfetch::io_done`].
    pub fn forget_file(&mut self, file: u32) {
        self.files.forget_streams(file);
    }

    /// `dmu_zfetch_prepare`: account the demand access to blocks
    /// `[blkid, blkid + nblks)` of `file` and plan prefetch. Pushes the
    /// prescient L1 reads (2.3.0+) to `out`; returns the stream to pass to
    /// [`Zfetch::run`] after the demand reads, or `None` (miss, past, end of
    /// file, fast paths).
    #[allow(clippy::too_many_arguments)] // mirrors the kernel's argument list
    pub fn prepare(
        &mut self,
        file: u32,
        blkid: u64,
        nblks: u64,
        fetch_data: bool,
        now_ns: u64,
        info: &FileInfo,
        out: &mut Vec<PrefetchIo>,
    ) -> Option<StreamRef> {
        let nstreams = self.num_streams(file);
        let (dbs, fetch_data) = admit(&self.cfg, blkid, nblks, fetch_data, info, nstreams)?;
        let Zfetch { cfg, files, stats } = self;
        let args = Access {
            file,
            blkid,
            nblks,
            fetch_data,
            now_ns,
            dbs,
        };
        plan(cfg, stats, files.entry(file), args, info, out)
    }

    /// A one-block demand read of `file` (`nblks` 1, `fetch_data`):
    /// [`Zfetch::file_info`] with `first`, then [`Zfetch::prepare`] with
    /// what it returned, in one lookup of the file. The same state and
    /// results as the two calls; returns both answers.
    #[inline]
    pub fn prepare_read(
        &mut self,
        file: u32,
        blkid: u64,
        now_ns: u64,
        first: impl FnOnce() -> FileInfo,
        out: &mut Vec<PrefetchIo>,
    ) -> (FileInfo, Option<StreamRef>) {
        let Zfetch { cfg, files, stats } = self;
        let fs = files.entry(file);
        let info = *fs.info.get_or_insert_with(first);
        let stream =
            admit(cfg, blkid, 1, true, &info, fs.list.len()).and_then(|(dbs, fetch_data)| {
                let args = Access {
                    file,
                    blkid,
                    nblks: 1,
                    fetch_data,
                    now_ns,
                    dbs,
                };
                plan(cfg, stats, fs, args, &info, out)
            });
        (info, stream)
    }
}

/// `dmu_zfetch_prepare`'s tests before it looks at the streams, for an
/// access of `nblks` blocks from `blkid` of a file with `nstreams` streams:
/// `None` when it returns at once, else the file's log2 block size and
/// whether data is to be prefetched.
#[inline(always)]
fn admit(
    cfg: &ZfetchConfig,
    blkid: u64,
    nblks: u64,
    fetch_data: bool,
    info: &FileInfo,
    nstreams: usize,
) -> Option<(u32, bool)> {
    if cfg.disable || cfg.property == PrefetchProperty::None {
        return None;
    }
    let fetch_data = fetch_data && cfg.property == PrefetchProperty::All;
    assert!(
        info.blocksize.is_power_of_two(),
        "blocksize must be a power of two"
    );
    let dbs = info.blocksize.trailing_zeros();
    if cfg.array_rd_sz.is_some_and(|lim| nblks << dbs > lim) {
        return None;
    }
    let g = cfg.generation;
    let quiet = cfg.head_tweaks && nstreams > 0;
    if g == Generation::Sequential07 {
        if blkid == 0 {
            return None;
        }
    } else if (!cfg.have_lock && blkid == 0 && !quiet)
        || (info.maxblkid < 2 && (info.maxblkid == 0 || !quiet))
    {
        return None;
    }
    Some((dbs, fetch_data))
}

/// `dmu_zfetch_prepare` past [`admit`]: match the access against the
/// file's streams (`fs`) and plan prefetch.
#[inline(always)]
fn plan(
    cfg: &ZfetchConfig,
    stats: &mut ZfetchStats,
    fs: &mut FileState,
    args: Access,
    info: &FileInfo,
    out: &mut Vec<PrefetchIo>,
) -> Option<StreamRef> {
    fs.maxblkid = info.maxblkid;
    if cfg.generation.has_reorder() {
        prepare_reorder(cfg, stats, fs, args, out)
    } else {
        prepare_exact(cfg, stats, fs, args)
    }
}

/// One demand access as `prepare` hands it on.
#[derive(Clone, Copy)]
struct Access {
    file: u32,
    blkid: u64,
    nblks: u64,
    fetch_data: bool,
    now_ns: u64,
    /// log2 of the file's block size.
    dbs: u32,
}

/// Generations before 2.2.4: exact or +1 matches only.
fn prepare_exact(
    cfg: &ZfetchConfig,
    stats: &mut ZfetchStats,
    fs: &mut FileState,
    a: Access,
) -> Option<StreamRef> {
    let Access {
        file,
        mut blkid,
        mut nblks,
        fetch_data,
        now_ns,
        dbs,
    } = a;
    let g = cfg.generation;
    let io_active = stats.io_active;
    let mut found = None;
    for (pos, &s) in fs.list.iter().enumerate() {
        let zb = fs.slots[s as usize].stream.blkid;
        if blkid == zb {
            found = Some(pos);
            break;
        } else if blkid + 1 == zb {
            blkid += 1;
            nblks -= 1;
            found = Some(pos);
            break;
        }
    }
    let end = blkid + nblks;
    if g == Generation::Sequential07 {
        if found.is_some() && nblks == 0 {
            return None; // "already prefetched"
        }
    } else {
        if end >= fs.maxblkid {
            if let Some(pos) = found {
                fs.remove(pos);
            }
            return None;
        }
        if nblks == 0 {
            return None;
        }
    }
    let Some(pos) = found else {
        create_stream(cfg, stats, fs, end, now_ns, dbs);
        stats.misses += 1;
        return None;
    };
    let s = fs.list[pos] as usize;
    let zs = &mut fs.slots[s].stream;
    if g.is_sequential() {
        legacy_distances(zs, cfg, blkid, nblks, end, fetch_data, dbs);
    } else {
        ramp(zs, cfg, nblks, end, fetch_data, dbs, io_active);
    }
    zs.blkid = end;
    zs.atime = now_ns as i64;
    zs.refs += 1;
    zs.callers += 1;
    fs.moved(s);
    stats.hits += 1;
    Some(StreamRef {
        file,
        slot: s as u16,
        epoch: fs.slots[s].epoch,
    })
}

/// 2.2.4+: exact, near (reorder window), past and miss handling, then
/// the prescient L1 step (2.3.0+).
#[inline(always)]
fn prepare_reorder(
    cfg: &ZfetchConfig,
    stats: &mut ZfetchStats,
    fs: &mut FileState,
    a: Access,
    out: &mut Vec<PrefetchIo>,
) -> Option<StreamRef> {
    let Access {
        file,
        mut blkid,
        nblks,
        fetch_data,
        now_ns,
        dbs,
    } = a;
    let io_active = stats.io_active;
    let now = now_secs(now_ns);
    let reap = cfg.min_sec_reap.min(cfg.max_sec_reap);
    let end_access = blkid + nblks;
    let maxblkid = fs.maxblkid;
    let window = ((cfg.max_reorder >> dbs) as u64 + 1).min(u64::from(u16::MAX));
    // Every match below (exact, +1, reorder window, overlap, past) needs
    // a stream within `window + nblks` blocks of the access. A random read
    // usually has none: one branch-free pass over the positions then
    // stands for both searches and their unpredictable branches.
    // The slots, not the list: `near` is the same in any order, and a
    // slot off the list (kept for its in-flight prefetches) is skipped.
    let near = fs.any_near(blkid, window + nblks);
    // Both searches read the streams' positions from `near` (beside the
    // list in the file's state) and load a stream only to change it or
    // to read its `atime`.
    let mut found = None;
    if near {
        for &s in &fs.list {
            let zb = fs.position(s as usize);
            if blkid == zb {
                found = Some(Found::Hit(s as usize, blkid, nblks));
                break;
            } else if blkid + 1 == zb {
                found = Some(Found::Hit(s as usize, blkid + 1, nblks - 1));
                break;
            }
        }
    }
    if near && found.is_none() {
        let t = now.wrapping_sub(cfg.max_sec_reap);
        for i in 0..fs.list.len() {
            let s = fs.list[i] as usize;
            let zb = fs.position(s);
            if blkid > zb {
                if end_access <= zb + window {
                    let zs = &mut fs.slots[s].stream;
                    let adv = if !fetch_data {
                        stats.stride += 1;
                        zs.hit(end_access - zb)
                    } else {
                        let adv = zs.future(blkid, nblks, cfg.hole_shift);
                        if adv > 0 {
                            stats.stride += 1;
                        } else {
                            stats.future += 1;
                        }
                        adv
                    };
                    found = Some(Found::Advanced(s, adv));
                    break;
                }
            } else if end_access >= zb {
                found = Some(Found::Hit(s, zb, nblks - (zb - blkid)));
                break;
            } else if end_access + window > zb && secs_active(fs.slots[s].stream.atime, t) {
                stats.past += 1;
                fs.slots[s].stream.atime = i64::from(now);
                fs.touched(now, reap);
                return None;
            }
        }
    }
    let mut zs_ref = None;
    let (mut ipf_lo, mut end_blkid) = (0, end_access);
    match found {
        None => {
            if end_access < maxblkid {
                create_stream(cfg, stats, fs, end_access, now_ns, dbs);
            }
            stats.misses += 1;
        }
        Some(f) => {
            let (s, adv) = match f {
                Found::Hit(s, b, n) => {
                    blkid = b;
                    stats.hits += 1;
                    (s, fs.slots[s].stream.hit(n))
                }
                Found::Advanced(s, adv) => (s, adv),
            };
            fs.moved(s);
            fs.slots[s].stream.atime = i64::from(now);
            fs.touched(now, reap);
            let zs = &mut fs.slots[s].stream;
            // "Already prefetched for this position": every release
            // from 2.2.4 to 2.4.x stops on a zero advance (a pure
            // `future` access, a re-read of the block before the
            // stream); post-2.4 master (`ce837a28eb`) goes on to the
            // ramp unless the L1 window already covers the access.
            if adv == 0 && (!cfg.head_tweaks || zs.ipf_end > end_access) {
                return None;
            }
            end_blkid = zs.blkid;
            if end_blkid >= maxblkid {
                let pos = fs.list.iter().position(|&x| x as usize == s);
                if let Some(pos) = pos {
                    fs.remove(pos);
                }
                return None;
            }
            ipf_lo = ramp(zs, cfg, adv, end_blkid, fetch_data, dbs, io_active);
            zs.refs += 1;
            zs.callers += 1;
            zs_ref = Some(StreamRef {
                file,
                slot: s as u16,
                epoch: fs.slots[s].epoch,
            });
        }
    }
    if cfg.generation.has_prescient() {
        let epbs = cfg.epbs();
        let lo = l1_index(ipf_lo.max(blkid + 1), epbs);
        let hi = l1_index(end_blkid, epbs);
        let before = out.len();
        for b in lo..hi {
            if l1_exists(b, epbs, maxblkid) {
                out.push(PrefetchIo {
                    file,
                    level: 1,
                    blkid: b,
                    prescient: true,
                    stream: None,
                });
            }
        }
        stats.io_issued += (out.len() - before) as u64;
    }
    zs_ref
}

impl Zfetch {
    /// `dmu_zfetch_run`: after the demand reads, push the prefetch reads
    /// the stream has scheduled. `missed` = some demand block was not cached.
    pub fn run(&mut self, stream: StreamRef, missed: bool, out: &mut Vec<PrefetchIo>) {
        let g = self.cfg.generation;
        let epbs = self.cfg.epbs();
        let Some(fs) = self.files.get_mut(stream.file) else {
            return;
        };
        let Some(s) = fs.slot_of(stream) else {
            return;
        };
        let maxblkid = fs.maxblkid;
        let zs = &mut fs.slots[s].stream;
        zs.missed |= missed;
        zs.callers = zs.callers.saturating_sub(1);
        if zs.callers != 0 {
            // Only the last of concurrent callers runs.
            zs.refs = zs.refs.saturating_sub(1);
            fs.release_if_idle(s);
            return;
        }
        let (pf_start, pf_end) = if zs.missed || g == Generation::Sequential07 {
            let r = (zs.pf_start, zs.pf_end);
            zs.pf_start = zs.pf_end;
            r
        } else {
            (0, 0)
        };
        let mut ipf_start = zs.ipf_start;
        if g.is_sequential() {
            ipf_start = ipf_start.max(zs.pf_start);
        }
        let ipf_end = zs.ipf_end.max(ipf_start);
        zs.ipf_start = zs.ipf_end;
        let before = out.len();
        for b in pf_start..pf_end {
            if b <= maxblkid {
                out.push(PrefetchIo {
                    file: stream.file,
                    level: 0,
                    blkid: b,
                    prescient: false,
                    stream: Some(stream),
                });
            }
        }
        for b in l1_index(ipf_start, epbs)..l1_index(ipf_end, epbs) {
            if l1_exists(b, epbs, maxblkid) {
                out.push(PrefetchIo {
                    file: stream.file,
                    level: 1,
                    blkid: b,
                    prescient: false,
                    stream: Some(stream),
                });
            }
        }
        let issued = (out.len() - before) as u32;
        // The prepare reference becomes one of the I/O references.
        zs.refs = (zs.refs + issued).saturating_sub(1);
        self.stats.io_active += u64::from(issued);
        self.stats.io_issued += u64::from(issued);
        fs.release_if_idle(s);
    }

    /// A prefetch read handed out by [`Zfetch::prepare`] or [`Zfetch::run`]
    /// that `dbuf_prefetch_impl` did not issue because the block's dbuf
    /// exists (held or in the dbuf cache): it returns 0, so the read is not
    /// counted in `io_issued`, and a stream's read is done at once without
    /// an I/O (its `dmu_zfetch_done(…, B_FALSE)`).
    pub fn skipped(&mut self, io: &PrefetchIo) {
        self.stats.io_issued = self.stats.io_issued.saturating_sub(1);
        self.io_done(io, false);
    }

    /// `dmu_zfetch_done`: a prefetch read handed out by [`Zfetch::run`]
    /// completed (call it at the logical completion time). `io_issued` is
    /// false when the read was skipped (e.g. the block was already held).
    /// A level-0 read completing behind the stream position sets `zs_more`
    /// (2.1.6+). Prescient reads have no completion and are ignored.
    pub fn io_done(&mut self, io: &PrefetchIo, io_issued: bool) {
        let Some(r) = io.stream else {
            return;
        };
        debug_assert!(self.stats.io_active > 0, "io_done without a matching run");
        self.stats.io_active = self.stats.io_active.saturating_sub(1);
        let ramp = self.cfg.generation >= Generation::Ramp;
        let Some(fs) = self.files.get_mut(r.file) else {
            return;
        };
        let Some(s) = fs.slot_of(r) else {
            return;
        };
        let zs = &mut fs.slots[s].stream;
        if ramp && io_issued && io.level == 0 && io.blkid < zs.blkid {
            zs.more = true;
        }
        zs.refs = zs.refs.saturating_sub(1);
        fs.release_if_idle(s);
    }
}

/// `dmu_zfetch_stream_create`: reap, recycle or add a stream expecting
/// `blkid`; bumps `max_streams` when none is available. Inlined into its
/// callers: most random reads end in its first test (2.2.4+: no stream
/// idle, the list full), which then costs no call.
#[inline(always)]
fn create_stream(
    cfg: &ZfetchConfig,
    stats: &mut ZfetchStats,
    fs: &mut FileState,
    blkid: u64,
    now_ns: u64,
    dbs: u32,
) {
    let g = cfg.generation;
    // The list is full at `max(1, min(max_streams, size / max_distance))`
    // streams; `⌊x/d⌋ <= n` is `x < (n+1)·d`, which needs no division (this
    // runs on most random reads).
    let (x, d) = (fs.maxblkid << dbs, u64::from(cfg.max_distance.max(1)));
    let max_streams = u64::from(cfg.max_streams);
    let full = move |len: usize| {
        let n = len as u64;
        n >= 1 && (n >= max_streams || x < (n + 1) * d)
    };
    if g.is_sequential() {
        let now = now_ns as i64;
        let mut i = 0;
        while i < fs.list.len() {
            let zs = stream_at(fs, i);
            let busy = g == Generation::Sequential21 && zs.refs != 0;
            if !busy && (now - zs.atime) / NANOSEC > i64::from(cfg.min_sec_reap) {
                fs.remove(i);
            } else {
                i += 1;
            }
        }
        if full(fs.list.len()) {
            stats.max_streams += 1;
            return;
        }
        let s = fs.alloc();
        fs.list.insert(0, s as u16);
        fs.reset_stream(s, blkid, now);
        return;
    }
    // 2.1.6+: delete streams idle past max_sec_reap, reusing the first.
    let secs = g.whole_seconds();
    let (now, unit) = if secs {
        (i64::from(now_secs(now_ns)), 1)
    } else {
        (now_ns as i64, NANOSEC)
    };
    let idle = |atime: i64, reap: u32| {
        if secs {
            !secs_active(atime, (now as u32).wrapping_sub(reap))
        } else {
            atime <= now - i64::from(reap) * unit
        }
    };
    let reap = cfg.min_sec_reap.min(cfg.max_sec_reap);
    if secs && fs.none_idle(now as u32, reap) {
        // No stream is idle: both searches below would find nothing.
        if full(fs.list.len()) {
            stats.max_streams += 1;
            return;
        }
        let s = fs.alloc();
        fs.list.insert(0, s as u16);
        fs.reset_stream(
            s,
            blkid,
            i64::from((now as u32).wrapping_sub(cfg.min_sec_reap)),
        );
        fs.touched((now as u32).wrapping_sub(cfg.min_sec_reap), reap);
        return;
    }
    let mut old: Option<usize> = None;
    let mut i = 0;
    while i < fs.list.len() {
        let zs = stream_at(fs, i);
        if zs.refs != 0 || !idle(zs.atime, cfg.max_sec_reap) {
            i += 1;
        } else if old.is_none() {
            old = Some(i);
            i += 1;
        } else {
            fs.remove(i);
        }
    }
    if old.is_none() && full(fs.list.len()) {
        for i in 0..fs.list.len() {
            let zs = stream_at(fs, i);
            if zs.refs != 0 || !idle(zs.atime, cfg.min_sec_reap) {
                continue;
            }
            let older = match old {
                None => true,
                // HEAD: ties go to the later stream; before 2.2.4 the first.
                Some(o) if secs => {
                    (stream_at(fs, o).atime as u32).wrapping_sub(zs.atime as u32) as i32 >= 0
                }
                Some(o) => zs.atime < stream_at(fs, o).atime,
            };
            if older {
                old = Some(i);
            }
        }
        if old.is_none() {
            stats.max_streams += 1;
            if secs {
                fs.set_idle_from(now as u32, reap);
            }
            return;
        }
    }
    let s = match old {
        // 2.2.4+ moves a reused stream to the head; earlier kept its place.
        Some(pos) if secs => {
            let s = fs.list.remove(pos);
            fs.list.insert(0, s);
            s as usize
        }
        Some(pos) => fs.list[pos] as usize,
        None => {
            let s = fs.alloc();
            fs.list.insert(0, s as u16);
            s
        }
    };
    let atime = if secs {
        i64::from((now as u32).wrapping_sub(cfg.min_sec_reap))
    } else {
        now - i64::from(cfg.min_sec_reap) * unit
    };
    fs.reset_stream(s, blkid, atime);
    if secs {
        fs.set_idle_from(now as u32, reap);
    }
}

/// The stream at list position `i`.
fn stream_at(fs: &FileState, i: usize) -> &Stream {
    &fs.slots[fs.list[i] as usize].stream
}

/// Whole seconds of the logical clock as the kernel's wrapping `uint_t`.
fn now_secs(now_ns: u64) -> u32 {
    (now_ns / NANOSEC as u64) as u32
}

/// `(int)(zs_atime - t) >= 0`: active since `t` (wrapping seconds).
fn secs_active(atime: i64, t: u32) -> bool {
    (atime as u32).wrapping_sub(t) as i32 >= 0
}

#[cfg(test)]
mod tests;
