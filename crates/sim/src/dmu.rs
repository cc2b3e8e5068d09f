//! The DMU's indirect blocks and the dbuf cache in front of the ARC.
//!
//! A read of a data block through the DMU (`dmu_buf_hold_array_by_dnode` →
//! `dbuf_hold` → `dbuf_findbp`) first holds the block's parent indirect block
//! (L1), which holds its own parent up to the top level, whose block pointer
//! is in the dnode. Each indirect block is a dbuf:
//!
//! - **Found cached** (`dbuf_hold_impl` finds it with its buffer): 0.8+
//!   calls `arc_buf_access`, one demand metadata hit in the ARC and
//!   `arc_access` (MRU → MFU after `ARC_MINTIME`); 0.7 counts nothing.
//! - **Not cached**: its parent is held the same way, a dbuf is created and
//!   read with a demand `arc_read` of metadata (a hit or a miss), and the
//!   dbuf keeps a reference on the ARC buffer: the header is not evictable
//!   while the dbuf lives, and because indirect blocks are always compressed
//!   (lz4), the dbuf's uncompressed copy (`indirect_lsize`, 128 KiB) is
//!   charged to the ARC beside the header's compressed `psize`.
//! - **Released**: when no child holds it, the dbuf enters the dbuf cache
//!   (an LRU of `db_size` bytes). A release by a destroyed child
//!   (`dbuf_rele_and_unlock(..., evicting = TRUE)`) does not notify the
//!   evict thread; a release after a prefetcher's lookup does, and the
//!   thread then evicts to the low-water mark. The thread also wakes every
//!   second (`cv_timedwait` of 1 s) and evicts while the cache is above
//!   `lowater` = 90 % of its target `c >> dbuf_cache_shift` (c/32). An
//!   evicted dbuf drops its ARC reference (the header becomes evictable and
//!   its uncompressed copy is freed) and releases its parent.
//!
//! For a trace of plain keys ([`Dmu::demand_read`]) the data blocks' own
//! dbufs are dropped when the read ends, as in the oracle harness, so every
//! data read reaches `arc_read`. In a kernel (`primarycache=all`) they stay
//! in the dbuf cache too and share its c/32 with the indirect blocks, which
//! [`Dmu::block_read`] models for a generated workload's reads: a re-read
//! found there is still counted as an ARC hit by `arc_buf_access`, but the
//! last c/32 of blocks read cannot be evicted, and when the ARC cannot get
//! below its target (held memory above a cap) they are the only blocks
//! that stay.
//!
//! Geometry (OpenZFS defaults): 128 KiB indirect blocks (`indblkshift` 17)
//! of 1,024 block pointers (`epbs` 10); a dnode with no bonus buffer has 3
//! block pointers (`dn_nblkptr`), so a file of `n` blocks has 1 level if
//! n ≤ 3, 2 if n ≤ 3 × 1,024, and so on. An indirect block's compressed size
//! is taken as half the bytes of its used block pointers, at least one
//! 4 KiB sector (ashift 12): 64 KiB for a full L1, 4 KiB for a small file's.

use arclab_arc::model::{ArcCache, Outcome};
use arclab_arc::slab::KeyMap;
use arclab_arc::{Kind, Op, Request, block_key, key_blkid, key_file};

/// `epbs`: log2 of the block pointers in an indirect block.
const EPBS: u32 = 10;
/// Block pointers in a dnode without a bonus buffer (`dn_nblkptr`).
const NBLKPTR: u64 = 3;
/// Bytes of one block pointer.
const BLKPTR_BYTES: u64 = 128;
/// The logical size of an indirect block.
pub const INDIRECT_LSIZE: u32 = 1 << (EPBS + 7);
/// The smallest physical block (ashift 12).
const SECTOR: u64 = 4096;
/// `dbuf_cache_shift`: the dbuf cache's target is `c >> 5`.
pub(crate) const CACHE_SHIFT: u32 = 5;
/// `dbuf_cache_lowater_pct`.
const LOWATER_PCT: u64 = 10;
/// The evict thread's timed wake-up.
const EVICT_PERIOD_NS: u64 = 1_000_000_000;
/// No slot.
const NIL: u32 = u32::MAX;

/// The key of indirect block `id` at `level` (≥ 1) of `file`: the level-1
/// space of a [`block_key`], with levels above 1 set apart in its top bits
/// (an L1 id is below 2^30, an L2 id below 2^20, …).
pub fn indirect_key(file: u32, level: u8, id: u64) -> u64 {
    debug_assert!(level >= 1);
    block_key(file, 1, (u64::from(level - 1) << 36) | id)
}

/// The file, level and id of an [`indirect_key`]: its inverse.
fn indirect_parts(key: u64) -> (u32, u8, u64) {
    let v = key_blkid(key);
    (key_file(key), (v >> 36) as u8 + 1, v & ((1 << 36) - 1))
}

/// The number of levels of a file whose last block is `maxblkid`
/// (`dnode_increase_indirection`'s rule: 3 block pointers in the dnode).
pub fn nlevels(maxblkid: u64) -> u8 {
    let mut levels = 1u8;
    let mut reach = NBLKPTR;
    while reach <= maxblkid && levels < 8 {
        levels += 1;
        reach = reach.saturating_mul(1 << EPBS);
    }
    levels
}

/// The compressed size charged for indirect block `id` at `level` of a file
/// whose last block is `maxblkid` (see the module docs).
pub fn indirect_psize(level: u8, id: u64, maxblkid: u64) -> u32 {
    let shift = EPBS * u32::from(level);
    let first_child = id << EPBS;
    // Children of this block at level − 1 that exist.
    let last_child = maxblkid >> (shift - EPBS);
    let used = (last_child + 1).saturating_sub(first_child).min(1 << EPBS);
    let bytes = (used * BLKPTR_BYTES / 2).div_ceil(SECTOR) * SECTOR;
    bytes.clamp(SECTOR, u64::from(INDIRECT_LSIZE)) as u32
}

/// One indirect dbuf.
#[derive(Clone, Copy, Debug)]
struct Dbuf {
    key: u64,
    /// The parent's slot (NIL: the dnode holds the top level).
    parent: u32,
    /// Child dbufs holding it.
    children: u32,
    /// The uncompressed copy charged to the ARC while the dbuf lives.
    extra: u32,
    /// Its logical size (`db_size`), what the dbuf cache counts.
    size: u32,
    /// The ARC header's slot while held (`u32::MAX`: not held).
    arc_slot: u32,
    /// In the dbuf cache (no holds), on the LRU list.
    cached: bool,
    prev: u32,
    next: u32,
}

/// Counters of the DMU layer (the model's own; dbufstats-like).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct DmuStats {
    /// Indirect dbufs found cached by a hold (`arc_buf_access` calls, 0.8+).
    pub cached_holds: u64,
    /// Indirect dbufs evicted from the dbuf cache.
    pub evictions: u64,
}

/// The indirect dbufs of the files being read and the dbuf cache.
#[derive(Debug)]
pub struct Dmu {
    /// `arc_buf_access` exists (0.8+).
    buf_access: bool,
    slots: Vec<Dbuf>,
    free: Vec<u32>,
    map: KeyMap<u64, u32>,
    /// LRU of cached dbufs: head = most recently released.
    head: u32,
    tail: u32,
    cache_bytes: u64,
    next_wake: u64,
    stats: DmuStats,
    /// The last dbuf looked up: (key, slot); reads of one L1 come in runs.
    last: (u64, u32),
    /// `nlevels` of the last `maxblkid` asked about.
    levels: (u64, u8),
    /// The indirect block held by the demand read in progress (NIL: none).
    reading: u32,
}

impl Dmu {
    /// An empty DMU layer; `buf_access`: the release has `arc_buf_access`.
    pub fn new(buf_access: bool) -> Dmu {
        Dmu {
            buf_access,
            slots: Vec::new(),
            free: Vec::new(),
            map: KeyMap::default(),
            head: NIL,
            tail: NIL,
            cache_bytes: 0,
            next_wake: EVICT_PERIOD_NS,
            stats: DmuStats::default(),
            last: (u64::MAX, NIL),
            levels: (0, 1),
            reading: NIL,
        }
    }

    /// Counters so far.
    pub fn stats(&self) -> DmuStats {
        self.stats
    }

    /// Bytes of dbufs in the dbuf cache.
    pub fn cache_bytes(&self) -> u64 {
        self.cache_bytes
    }

    /// Heap bytes.
    pub fn heap_bytes(&self) -> usize {
        self.slots.capacity() * std::mem::size_of::<Dbuf>()
            + self.free.capacity() * 4
            + self.map.capacity() * (std::mem::size_of::<(u64, u32)>() + 1)
    }

    /// A demand read of data block `blkid` of `file` (last block
    /// `maxblkid`) at `now` is about to be issued: hold its parent indirect
    /// block for the read's life, which [`Dmu::end_read`] ends (see the
    /// module docs). Files of one level have no indirect block.
    ///
    /// The data dbuf holds its parent while `dmu_buf_hold_array_by_dnode`
    /// reads it and runs the prefetcher (every release from 0.7 to 2.3:
    /// `dmu_zfetch`/`dmu_zfetch_run` before `dmu_buf_rele_array`), so a
    /// prefetch through the same indirect block finds it held.
    #[inline]
    pub fn demand_read(
        &mut self,
        arc: &mut ArcCache,
        file: u32,
        blkid: u64,
        maxblkid: u64,
        now: u64,
    ) {
        if !self.begin(arc, maxblkid, now) {
            return;
        }
        self.end_read();
        let s = self.hold(arc, file, 1, blkid >> EPBS, maxblkid, now);
        self.slots[s as usize].children += 1;
        self.reading = s;
    }

    /// The demand read begun by [`Dmu::demand_read`] is over: its data dbuf
    /// is destroyed (`db_pending_evict`), and that release of the parent
    /// (`dbuf_rele_and_unlock(parent, db, B_TRUE)`) does not notify the
    /// evict thread. Nothing to do without a read in progress.
    #[inline]
    pub fn end_read(&mut self) {
        let s = std::mem::replace(&mut self.reading, NIL);
        if s != NIL {
            self.slots[s as usize].children -= 1;
            self.release(s);
        }
    }

    /// The prefetcher is about to prefetch data block `blkid`: with its
    /// parent cached, `dbuf_prefetch_impl` holds it (an `arc_buf_access`)
    /// and releases it. A release that leaves no hold puts it back in the
    /// dbuf cache and notifies the evict thread; a parent still held (by
    /// the demand read in progress, the usual case: the stream's next
    /// blocks share its indirect block) stays out of the cache and notifies
    /// nothing. Returns whether the parent was cached (otherwise the
    /// prefetch first reads the indirect block itself).
    pub fn prefetch_lookup(
        &mut self,
        arc: &mut ArcCache,
        file: u32,
        blkid: u64,
        maxblkid: u64,
        now: u64,
    ) -> bool {
        if !self.begin(arc, maxblkid, now) {
            return true;
        }
        let key = indirect_key(file, 1, blkid >> EPBS);
        let Some(s) = self.find(key) else {
            return false;
        };
        self.touch(arc, s);
        if self.slots[s as usize].children == 0 {
            self.release(s);
            self.notify(arc);
        }
        true
    }

    /// Run the wake-ups due by `now`; whether a file whose last block is
    /// `maxblkid` has indirect blocks at all.
    #[inline]
    fn begin(&mut self, arc: &mut ArcCache, maxblkid: u64, now: u64) -> bool {
        self.wake(arc, now);
        self.levels_of(maxblkid) >= 2
    }

    /// [`nlevels`], remembered for the last `maxblkid`.
    #[inline]
    fn levels_of(&mut self, maxblkid: u64) -> u8 {
        if self.levels.0 != maxblkid {
            self.levels = (maxblkid, nlevels(maxblkid));
        }
        self.levels.1
    }

    /// Whether indirect block `id` at `level` of `file` has a dbuf (held
    /// by a read or in the dbuf cache): `dbuf_prefetch_impl`'s `dbuf_find`,
    /// after which it issues nothing.
    pub fn has_dbuf(&mut self, file: u32, level: u8, id: u64) -> bool {
        self.has_block(indirect_key(file, level, id))
    }

    /// The slot of dbuf `key`, if it lives.
    #[inline]
    fn find(&mut self, key: u64) -> Option<u32> {
        if self.last.0 == key {
            return Some(self.last.1);
        }
        let s = *self.map.get(&key)?;
        self.last = (key, s);
        Some(s)
    }

    /// Run the evict thread's timed wake-ups due by `now`.
    fn wake(&mut self, arc: &mut ArcCache, now: u64) {
        if now >= self.next_wake {
            self.evict_to_lowater(arc);
            // One wake-up per period; a long idle gap needs only one.
            self.next_wake = (now / EVICT_PERIOD_NS + 1) * EVICT_PERIOD_NS;
        }
    }

    /// `dbuf_evict_notify`: above the target, the woken thread evicts to
    /// the low-water mark.
    fn notify(&mut self, arc: &mut ArcCache) {
        if self.cache_bytes > arc.c() >> CACHE_SHIFT {
            self.evict_to_lowater(arc);
        }
    }

    fn evict_to_lowater(&mut self, arc: &mut ArcCache) {
        let target = arc.c() >> CACHE_SHIFT;
        let lowater = target - target * LOWATER_PCT / 100;
        while self.cache_bytes > lowater && self.tail != NIL {
            let s = self.tail;
            self.evict(arc, s);
        }
    }

    /// Evict cached dbuf `s`: drop its ARC reference and release its parent.
    fn evict(&mut self, arc: &mut ArcCache, s: u32) {
        self.unlink(s);
        let d = self.slots[s as usize];
        if d.arc_slot != NIL {
            arc.release_buf_slot(d.arc_slot, d.key, d.extra);
        } else {
            arc.release_buf(d.key, d.extra);
        }
        self.map.remove(&d.key);
        if self.last.1 == s {
            self.last = (u64::MAX, NIL);
        }
        self.free.push(s);
        self.stats.evictions += 1;
        if d.parent != NIL {
            let p = &mut self.slots[d.parent as usize];
            p.children -= 1;
            if p.children == 0 {
                self.push_head(d.parent);
            }
        }
    }

    /// `dbuf_hold` of indirect block `id` at `level`: found (touched) or
    /// created and read. Returns its slot, held (off the cache list).
    #[inline]
    fn hold(
        &mut self,
        arc: &mut ArcCache,
        file: u32,
        level: u8,
        id: u64,
        maxblkid: u64,
        now: u64,
    ) -> u32 {
        let key = indirect_key(file, level, id);
        if let Some(s) = self.find(key) {
            self.touch(arc, s);
            if self.slots[s as usize].cached {
                self.unlink(s);
            }
            return s;
        }
        self.hold_new(arc, key, maxblkid, now)
    }

    /// [`Dmu::hold`] of indirect block `key` ([`indirect_key`]), which has
    /// no dbuf: its parent held first, then read and given a dbuf. Out of
    /// line: most holds find the dbuf.
    #[inline(never)]
    fn hold_new(&mut self, arc: &mut ArcCache, key: u64, maxblkid: u64, now: u64) -> u32 {
        let (file, level, id) = indirect_parts(key);
        debug_assert_eq!(indirect_key(file, level, id), key);
        // dbuf_findbp: the parent first (held by this dbuf for its life).
        let parent = if level + 1 < self.levels_of(maxblkid) {
            let p = self.hold(arc, file, level + 1, id >> EPBS, maxblkid, now);
            self.slots[p as usize].children += 1;
            p
        } else {
            NIL
        };
        let psize = indirect_psize(level, id, maxblkid);
        let req = Request {
            time_ns: now,
            key,
            size: psize,
            op: Op::Read,
            kind: Kind::Metadata,
            prefetch: false,
        };
        arc.access(&req);
        let (extra, arc_slot) = match arc.hold_buf(key, INDIRECT_LSIZE) {
            Some(slot) => (INDIRECT_LSIZE, slot),
            None => (0, NIL),
        };
        let d = Dbuf {
            key,
            parent,
            children: 0,
            extra,
            size: INDIRECT_LSIZE,
            arc_slot,
            cached: false,
            prev: NIL,
            next: NIL,
        };
        self.insert(d)
    }

    /// A new dbuf, held (off the cache list); returns its slot.
    fn insert(&mut self, d: Dbuf) -> u32 {
        let key = d.key;
        let s = match self.free.pop() {
            Some(s) => {
                self.slots[s as usize] = d;
                s
            }
            None => {
                self.slots.push(d);
                (self.slots.len() - 1) as u32
            }
        };
        self.map.insert(key, s);
        s
    }

    /// A workload's own demand read of block `req.key` (a data block, an
    /// indirect block or a block of dnodes, as a generated workload issues
    /// them): the DMU's `dbuf_hold`, `dbuf_read` and `dbuf_rele`. A dbuf
    /// found (held, or in the dbuf cache) is an `arc_buf_access` (0.8+) and
    /// no ARC read ([`Outcome::Hit`]); otherwise a demand `arc_read` of
    /// `req.size` bytes, after which the new dbuf keeps a reference on the
    /// ARC buffer, which the ARC cannot evict until the dbuf cache has. The
    /// release puts the dbuf at the head of the dbuf cache and notifies its
    /// evict thread. `lsize`: the block's logical size (`db_size`, what the
    /// dbuf cache counts); a block stored smaller (`req.size < lsize`:
    /// compressed) also charges its uncompressed copy to the ARC while the
    /// dbuf lives.
    pub fn block_read(&mut self, arc: &mut ArcCache, req: &Request, lsize: u32) -> Outcome {
        self.wake(arc, req.time_ns);
        let (s, outcome) = match self.find(req.key) {
            Some(s) => {
                self.touch(arc, s);
                (s, Outcome::Hit)
            }
            None => {
                let outcome = arc.access(req);
                let extra = if req.size < lsize { lsize } else { 0 };
                let (extra, arc_slot) = match arc.hold_buf(req.key, extra) {
                    Some(slot) => (extra, slot),
                    None => (0, NIL),
                };
                let s = self.insert(Dbuf {
                    key: req.key,
                    parent: NIL,
                    children: 0,
                    extra,
                    size: lsize,
                    arc_slot,
                    cached: false,
                    prev: NIL,
                    next: NIL,
                });
                (s, outcome)
            }
        };
        self.release(s);
        self.notify(arc);
        outcome
    }

    /// Whether block `key` has a dbuf ([`Dmu::block_read`]'s blocks).
    pub fn has_block(&mut self, key: u64) -> bool {
        self.find(key).is_some()
    }

    /// Block `key` is written or freed: its cached dbuf, if any, goes (and
    /// its reference on the old ARC buffer with it).
    pub fn drop_block(&mut self, arc: &mut ArcCache, key: u64) {
        if let Some(s) = self.find(key)
            && self.slots[s as usize].children == 0
        {
            if !self.slots[s as usize].cached {
                self.push_head(s);
            }
            self.evict(arc, s);
        }
    }

    /// A hold found the dbuf with its buffer: `arc_buf_access` (0.8+).
    fn touch(&mut self, arc: &mut ArcCache, s: u32) {
        self.stats.cached_holds += 1;
        if self.buf_access {
            let d = &self.slots[s as usize];
            arc.buf_access_slot(d.arc_slot, d.key);
        }
    }

    /// The last hold is gone: to the head of the cache unless children hold it.
    #[inline]
    fn release(&mut self, s: u32) {
        let d = self.slots[s as usize];
        if d.children == 0 {
            if d.cached {
                self.unlink(s);
            }
            self.push_head(s);
        }
    }

    fn push_head(&mut self, s: u32) {
        let old = self.head;
        let d = &mut self.slots[s as usize];
        debug_assert!(!d.cached);
        d.cached = true;
        d.prev = NIL;
        d.next = old;
        let size = d.size;
        if old != NIL {
            self.slots[old as usize].prev = s;
        } else {
            self.tail = s;
        }
        self.head = s;
        self.cache_bytes += u64::from(size);
    }

    fn unlink(&mut self, s: u32) {
        let d = self.slots[s as usize];
        debug_assert!(d.cached);
        if d.prev != NIL {
            self.slots[d.prev as usize].next = d.next;
        } else {
            self.head = d.next;
        }
        if d.next != NIL {
            self.slots[d.next as usize].prev = d.prev;
        } else {
            self.tail = d.prev;
        }
        let d = &mut self.slots[s as usize];
        d.cached = false;
        d.prev = NIL;
        d.next = NIL;
        self.cache_bytes -= u64::from(d.size);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arclab_arc::model::{ArcConfig, Behaviour};

    #[test]
    fn an_indirect_key_gives_back_its_block() {
        // Files up to the 23 bits a block key keeps; ids up to each level's
        // range (an L1 id is below 2^30 for 2^40 data blocks, an L2 id below
        // 2^20, ...), the levels a file of 2^40 blocks has.
        for file in [0, 1, 77, (1 << 23) - 1] {
            for level in 1..nlevels((1 << 40) - 1) {
                let top = (1u64 << 40) >> (10 * u32::from(level));
                for id in [0, 1, top / 3, top - 1] {
                    let key = indirect_key(file, level, id);
                    assert_eq!(indirect_parts(key), (file, level, id), "{key:#x}");
                }
            }
        }
    }

    #[test]
    fn levels_and_sizes_follow_the_dnode_geometry() {
        // 3 block pointers in the dnode, 1,024 per indirect block.
        assert_eq!(nlevels(0), 1);
        assert_eq!(nlevels(2), 1);
        assert_eq!(nlevels(3), 2);
        assert_eq!(nlevels(3 * 1024 - 1), 2);
        assert_eq!(nlevels(3 * 1024), 3);
        // The oracle's 1 GiB object of 8,192 blocks: L2 over 8 L1s.
        assert_eq!(nlevels(8191), 3);
        // A full L1 (1,024 pointers × 128 B / 2), an 8-block file's L1, the
        // L2 over 8 L1s.
        assert_eq!(indirect_psize(1, 0, 8191), 64 << 10);
        assert_eq!(indirect_psize(1, 0, 7), 4096);
        assert_eq!(indirect_psize(2, 0, 8191), 4096);
        // The last, partly used L1 of a 1,500-block file: 476 pointers.
        assert_eq!(indirect_psize(1, 1, 1499), 32 << 10);
        assert_ne!(indirect_key(1, 1, 5), indirect_key(1, 2, 5));
    }

    fn arc() -> ArcCache {
        ArcCache::new(
            ArcConfig::new(8 << 30)
                .with_behaviour(Behaviour::preset("2.3").unwrap())
                .with_arc_max(256 << 20),
        )
    }

    #[test]
    fn every_read_after_the_first_of_an_l1_is_one_metadata_hit() {
        // The oracle's count (docs/oracle.md): 16,000 reads of blocks
        // 0–2,047 of an 8,192-block object give 3 demand metadata misses (the
        // L2 and two L1s) and 15,999 hits (each read's L1, plus the L2 once
        // when the second L1 is first read).
        let mut a = arc();
        let mut d = Dmu::new(true);
        for i in 0..16_000u64 {
            let blk = (i * 7919) % 2048;
            d.demand_read(&mut a, 0, blk, 8191, i * 1_000_000);
            d.end_read();
        }
        let s = a.stats();
        assert_eq!(s.demand_metadata_misses, 3);
        assert_eq!(s.demand_metadata_hits, 15_999);
        // All three are held by the dbuf cache (under c/32): not evictable,
        // each charged its compressed size plus its 128 KiB
        // uncompressed copy.
        assert_eq!(s.mru_evictable_metadata + s.mfu_evictable_metadata, 0);
        assert_eq!(
            s.mru_metadata + s.mfu_metadata,
            2 * (64 << 10) + 4096 + 3 * u64::from(INDIRECT_LSIZE)
        );
        a.check_invariants().unwrap();
    }

    #[test]
    fn the_evict_thread_trims_the_cache_every_second_and_frees_the_arc() {
        // Small files of 8 blocks: one L1 each. Reads of 2,000 files within
        // one second fill the cache far past c/32; the wake-up at 1 s evicts
        // to 90 % of c/32, and the evicted L1s become evictable in the ARC.
        let mut a = arc();
        let mut d = Dmu::new(true);
        for f in 0..2000u32 {
            d.demand_read(&mut a, f, 0, 7, u64::from(f) * 400_000);
            d.end_read();
        }
        assert_eq!(d.cache_bytes(), 2000 * u64::from(INDIRECT_LSIZE));
        d.demand_read(&mut a, 0, 1, 7, 1_000_000_000);
        d.end_read();
        let target = a.c() >> 5;
        // Trimmed before this read, whose L1 then enters the cache.
        let lowater = target - target / 10;
        assert!(d.cache_bytes() <= lowater + u64::from(INDIRECT_LSIZE));
        assert!(d.cache_bytes() > lowater - u64::from(INDIRECT_LSIZE));
        assert!(d.stats().evictions > 1900);
        let s = a.stats();
        assert!(
            s.mru_evictable_metadata + s.mfu_evictable_metadata > 0,
            "{s:?}"
        );
        a.check_invariants().unwrap();
    }

    #[test]
    fn a_prefetch_through_the_reads_own_l1_leaves_the_cache_untrimmed() {
        // dmu_buf_hold_array_by_dnode runs the prefetcher while the read's
        // data dbuf still holds its L1 (dmu.c, every release): the
        // prefetch's dbuf_hold_impl/dbuf_rele of that L1 never drops its
        // holds to 0, so it is not put back in the dbuf cache and
        // dbuf_evict_notify is not called (dbuf.c dbuf_rele_and_unlock).
        // 2,000 small files read whole within one second: each file's
        // blocks 1–7 prefetched through the held L1. Nothing notifies, so
        // all 2,000 L1s wait in the cache for the thread's 1 s wake-up, as
        // without prefetch (the test above), where c/32 holds a few dozen.
        let mut a = arc();
        let mut d = Dmu::new(true);
        for f in 0..2000u32 {
            let now = u64::from(f) * 400_000;
            d.demand_read(&mut a, f, 0, 7, now);
            for b in 1..8 {
                assert!(d.prefetch_lookup(&mut a, f, b, 7, now));
            }
            d.end_read();
        }
        assert_eq!(d.cache_bytes(), 2000 * u64::from(INDIRECT_LSIZE));
        assert_eq!(d.stats().evictions, 0);
        // Each prefetch found the L1 with its buffer: an arc_buf_access.
        assert_eq!(d.stats().cached_holds, 2000 * 7);
        // A prefetch through an L1 nobody holds takes it out of the cache
        // and puts it back with a notify: the cache is above c/32, so the
        // thread evicts to its low-water mark.
        assert!(d.prefetch_lookup(&mut a, 5, 3, 7, 800_000_000));
        let target = a.c() >> 5;
        assert!(d.cache_bytes() <= target - target / 10);
        assert!(d.stats().evictions > 1900);
        a.check_invariants().unwrap();
    }

    #[test]
    fn release_0_7_counts_no_hit_for_a_cached_indirect_block() {
        let mut a = ArcCache::new(
            ArcConfig::new(8 << 30)
                .with_behaviour(Behaviour::preset("0.7").unwrap())
                .with_arc_max(256 << 20),
        );
        let mut d = Dmu::new(false);
        for i in 0..100u64 {
            d.demand_read(&mut a, 0, i, 8191, i * 1_000_000);
            d.end_read();
        }
        let s = a.stats();
        assert_eq!((s.demand_metadata_misses, s.demand_metadata_hits), (2, 0));
        assert_eq!(d.stats().cached_holds, 99);
    }
}
