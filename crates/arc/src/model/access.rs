//! The request path: `arc_read` counters, `arc_access` transitions (§2),
//! writes and frees, allocation (`arc_get_data_impl`: growth §4, overflow §6.1).

use super::behaviour::{Overflow, SizeSum, Split};
use super::engine::{
    ArcCache, DATA, F_DIRTY, F_HELD, F_IO, F_LISTED, F_PREDICTIVE, F_PREFETCH, F_PRESCIENT,
    F_UNCACHED, META, State,
};
use crate::request::{Kind, Op, Request};

/// Which ghost list a miss found its header on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum GhostKind {
    /// `mru_ghost` (B1).
    Mru,
    /// `mfu_ghost` (B2).
    Mfu,
}

/// What one request did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Outcome {
    /// Served from memory (an ARC hit, or a read of a dirty buffer, which the
    /// dbuf layer serves without touching the ARC).
    Hit,
    /// The block was already being read (2.2+ `iohits`; before 2.2 a demand
    /// reader waited and was counted as a hit, a prefetch was not counted).
    IoHit,
    /// A read was issued; `ghost` names the ghost list that remembered the block.
    Miss {
        /// Ghost list hit, if any.
        ghost: Option<GhostKind>,
    },
    /// A write: the block is now a dirty anonymous buffer until its txg syncs.
    Written,
    /// A free (`Op::Delete`): the header is gone (unless held).
    Freed,
}

impl Outcome {
    /// Hit or I/O hit.
    pub fn is_hit(self) -> bool {
        matches!(self, Outcome::Hit | Outcome::IoHit)
    }
}

/// Request flags the 24-byte [`Request`] has no room for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadFlags {
    /// A prefetch request is prescient (`ARC_FLAG_PRESCIENT_PREFETCH`: scrub,
    /// send, the L1 step of the prefetcher) rather than predictive.
    pub prescient: bool,
    /// Read with `ARC_FLAG_UNCACHED` (2.2+; also implied for data by
    /// `Tunables::primarycache_metadata`).
    pub uncached: bool,
}

impl ArcCache {
    /// Replay one request (advancing the clock to its time first).
    #[inline]
    pub fn access(&mut self, req: &Request) -> Outcome {
        self.access_with(req, ReadFlags::default())
    }

    /// Replay a slice of requests in order, calling `f(index, outcome)` for
    /// each. Same result as calling [`ArcCache::access`] in a loop, but the
    /// hash-table lookup of request `i + 2` is started while request `i` is
    /// processed (memory-level parallelism), which is markedly faster on
    /// working sets larger than the CPU caches.
    pub fn access_batch(&mut self, reqs: &[Request], mut f: impl FnMut(usize, Outcome)) {
        const AHEAD: usize = 2;
        for (i, r) in reqs.iter().enumerate() {
            if let Some(n) = reqs.get(i + AHEAD) {
                std::hint::black_box(self.find(n.key).1);
            }
            f(i, self.access(r));
        }
    }

    /// `arc_buf_access` (0.8+): a consumer that already holds the block's
    /// buffer (a cached dbuf, found again by `dbuf_hold`) touches it: one
    /// demand hit of its type and `arc_access`. A header that is not resident
    /// (anon, a ghost, not found) is skipped and false returned.
    pub fn buf_access(&mut self, key: u64) -> bool {
        let (_, Some(i)) = self.find(key) else {
            return false;
        };
        self.buf_access_index(i)
    }

    /// [`ArcCache::buf_access`] of a buffer held with [`ArcCache::hold_buf`],
    /// by the slot it returned (no hash lookup); `key` is checked against
    /// the slot, and looked up if the slot holds something else.
    #[inline]
    pub fn buf_access_slot(&mut self, slot: u32, key: u64) -> bool {
        match self.ix.nodes.get(slot as usize) {
            Some(n) if n.key == key && n.freq & F_HELD != 0 => self.buf_access_index(slot),
            _ => self.buf_access(key),
        }
    }

    #[inline]
    fn buf_access_index(&mut self, i: u32) -> bool {
        let st = self.state_of(i);
        if !matches!(st, State::Mru | State::Mfu | State::Uncached) {
            return false;
        }
        let ty = (self.ix.nodes[i as usize].tag & 1) as usize;
        if self.b.access_2_2 {
            // 2.2+: arc_access, then one hit counted as demand.
            self.count(false, ty, 0);
            self.arc_access(i, st, false, false, true);
        } else {
            // 0.8–2.1: arc_access, then one hit counted demand or prefetch by
            // the flags it leaves; none of arc_read's flag handling (the
            // buffer is already referenced).
            self.legacy_access(i, false, ty);
        }
        true
    }

    /// [`ArcCache::access`] with extra read flags.
    pub fn access_with(&mut self, req: &Request, f: ReadFlags) -> Outcome {
        self.advance_to(req.time_ns);
        match req.op {
            Op::Read => self.read(req, f),
            Op::Write => self.write(req),
            Op::Delete => self.free(req.key),
        }
    }

    #[inline(always)]
    fn count(&mut self, pf: bool, ty: usize, what: usize) {
        // what: 0 hit, 1 iohit, 2 miss
        let k = usize::from(pf) * 2 + ty;
        self.s.split[k][what] += 1;
        self.s.outcome[what] += 1;
    }

    #[inline(always)]
    fn read(&mut self, req: &Request, f: ReadFlags) -> Outcome {
        let pf = req.prefetch;
        let prescient = pf && f.prescient;
        let (h, found) = self.find(req.key);
        let Some(i) = found else {
            return self.miss_new(h, req, prescient, f);
        };
        let n = self.ix.nodes[i as usize];
        let st = State::from_u8(n.tag >> 1);
        let ty = (n.tag & 1) as usize;
        match st {
            State::Anon => {
                // Dirty buffer: served by its dbuf; arc_buf_access ignores anon.
                self.s.dirty_hits += 1;
                Outcome::Hit
            }
            State::MruGhost | State::MfuGhost => self.miss_ghost(i, st, req, prescient),
            _ if n.freq & F_IO != 0 => {
                if self.b.access_2_2 {
                    self.count(pf, ty, 1);
                    self.arc_access(i, st, pf, prescient, false);
                } else {
                    // ≤2.1: a read finding the I/O in progress clears
                    // ARC_FLAG_PREDICTIVE_PREFETCH and, issued NOWAIT as the
                    // DMU's dbuf reads are, adds its callback to the read in
                    // flight and leaves: no arc_access, counted neither hit
                    // nor miss (the real 2.1.16 leaves 1,099–2,972 of 16,000
                    // reads of `small` uncounted, docs/oracle.md).
                    self.ix.nodes[i as usize].freq &= !F_PREDICTIVE;
                }
                Outcome::IoHit
            }
            _ => {
                if self.b.access_2_2 {
                    self.count(pf, ty, 0);
                    self.arc_access(i, st, pf, prescient, true);
                    if !pf {
                        self.touch(i);
                    }
                    if !pf && st == State::Uncached && self.ix.nodes[i as usize].freq & F_HELD == 0
                    {
                        // Last reference dropped on an uncached, non-prefetch header.
                        self.destroy(i);
                    }
                } else {
                    self.legacy_hit(i, pf, ty);
                    if prescient {
                        self.ix.nodes[i as usize].freq |= F_PRESCIENT;
                    }
                }
                Outcome::Hit
            }
        }
    }

    /// LRU touch of a demand access: the buffer is handed out and released,
    /// so the header returns to its list head.
    #[inline(always)]
    fn touch(&mut self, i: u32) {
        let n = &self.ix.nodes[i as usize];
        if n.freq & F_LISTED != 0 {
            let l = super::engine::list_of(n.tag);
            self.lists[l].move_to_head(&mut self.ix.nodes, i);
        }
    }

    /// ≤ 2.1 hit path (§2 "Pre-2.2 differences"), after `arc_read` of
    /// 0.7.0–2.1.x: a demand hit counts `demand_hit_predictive_prefetch` only
    /// if the header carries `ARC_FLAG_PREDICTIVE_PREFETCH` (set when a
    /// predictive prefetch issued the read) and `demand_hit_prescient_prefetch`
    /// on `ARC_FLAG_PRESCIENT_PREFETCH`, clearing each; then the consumer's
    /// buffer takes the first reference (`add_reference`, refcount 0 → 1),
    /// which clears `ARC_FLAG_PREFETCH`, so `arc_access` sees an ordinary MRU
    /// hit and promotes to MFU after `ARC_MINTIME`. Only a header already
    /// referenced (held) keeps the flag into `arc_access`'s prefetch branch.
    fn legacy_hit(&mut self, i: u32, pf: bool, ty: usize) {
        let held = self.ix.nodes[i as usize].freq & F_HELD != 0;
        let f = self.ix.nodes[i as usize].freq;
        if !pf {
            if f & F_PREDICTIVE != 0 {
                self.s.demand_hit_predictive_prefetch += 1;
            }
            if f & F_PRESCIENT != 0 && self.b.prescient_hit_counter {
                self.s.demand_hit_prescient_prefetch += 1;
            }
            let mut clear = F_PREDICTIVE | F_PRESCIENT;
            if !held {
                clear |= F_PREFETCH;
            }
            self.ix.nodes[i as usize].freq &= !clear;
        }
        if pf && !held {
            self.ix.nodes[i as usize].freq |= F_PREFETCH;
        }
        self.legacy_access(i, pf, ty);
    }

    /// ≤ 2.1 `arc_access` of a hit and its count (one `hits`, demand or
    /// prefetch by the flags it leaves), then the LRU touch of a demand read.
    /// A demand read holds a reference during `arc_access`.
    fn legacy_access(&mut self, i: u32, pf: bool, ty: usize) {
        let held = self.ix.nodes[i as usize].freq & F_HELD != 0;
        let st = self.state_of(i);
        let flagged = self.ix.nodes[i as usize].freq & (F_PREFETCH | F_PRESCIENT) != 0;
        let refd = !pf || held;
        match st {
            State::Mru if flagged => {
                if refd {
                    self.ix.nodes[i as usize].freq &= !(F_PREFETCH | F_PRESCIENT);
                    self.s.mru_hits += 1;
                }
                self.atime[i as usize] = self.tick;
            }
            State::Mru => {
                if self.after_mintime(i) {
                    self.atime[i as usize] = self.tick;
                    self.change_state(i, State::Mfu);
                }
                self.s.mru_hits += 1;
            }
            _ => {
                self.s.mfu_hits += 1;
                self.atime[i as usize] = self.tick;
            }
        }
        let as_pf = self.ix.nodes[i as usize].freq & F_PREFETCH != 0;
        self.count(as_pf, ty, 0);
        if !pf {
            self.touch(i);
        }
    }

    #[inline(always)]
    fn after_mintime(&self, i: u32) -> bool {
        // ddi_time_after(now, atime + ARC_MINTIME)
        let d = self
            .tick
            .wrapping_sub(self.atime[i as usize].wrapping_add(self.mintime));
        (d as i32) > 0 || (self.mintime == 0 && !self.t.promotion_window)
    }

    /// `arc_access` (2.2+, §2) of header `i`, whose state is `st` (every
    /// caller has just read it): step 1 prefetch bookkeeping, step 2 state
    /// machine. Inlined, so that each caller gets only its states' steps
    /// (a new header is anon, a hit is mru, mfu or uncached).
    #[inline(always)]
    fn arc_access(&mut self, i: u32, st: State, now_pf: bool, prescient: bool, hit: bool) {
        debug_assert_eq!(st, self.state_of(i));
        let flags = self.ix.nodes[i as usize].freq;
        let was = flags & F_PREFETCH != 0;
        if was && !now_pf {
            let presc = flags & F_PRESCIENT != 0;
            match (hit, presc) {
                (true, true) => self.s.demand_hit_prescient_prefetch += 1,
                (true, false) => self.s.demand_hit_predictive_prefetch += 1,
                (false, true) => self.s.demand_iohit_prescient_prefetch += 1,
                (false, false) => self.s.demand_iohit_predictive_prefetch += 1,
            }
            self.ix.nodes[i as usize].freq &= !(F_PREFETCH | F_PRESCIENT);
        }
        if now_pf {
            self.ix.nodes[i as usize].freq |= F_PREFETCH;
            if prescient {
                self.ix.nodes[i as usize].freq |= F_PRESCIENT;
                self.s.prescient_prefetch += 1;
            } else {
                self.s.predictive_prefetch += 1;
            }
        }
        let io = flags & F_IO != 0;
        match st {
            State::Anon => {
                self.atime[i as usize] = self.tick;
                let to = if flags & F_UNCACHED != 0 {
                    State::Uncached
                } else {
                    State::Mru
                };
                self.change_state(i, to);
            }
            State::Mru if io => self.atime[i as usize] = self.tick,
            State::Mru => {
                self.s.mru_hits += 1;
                if was {
                    self.atime[i as usize] = self.tick;
                } else if self.after_mintime(i) {
                    self.atime[i as usize] = self.tick;
                    self.change_state(i, State::Mfu);
                }
            }
            State::MruGhost => {
                self.s.mru_ghost_hits += 1;
                self.atime[i as usize] = self.tick;
                self.change_state(i, if was { State::Mru } else { State::Mfu });
            }
            State::Mfu => {
                if !io {
                    self.s.mfu_hits += 1;
                }
                self.atime[i as usize] = self.tick;
            }
            State::MfuGhost => {
                self.s.mfu_ghost_hits += 1;
                self.atime[i as usize] = self.tick;
                self.change_state(i, State::Mfu);
            }
            State::Uncached => {
                if !io {
                    self.s.uncached_hits += 1;
                }
                self.atime[i as usize] = self.tick;
            }
        }
    }

    fn miss_new(&mut self, h: u64, req: &Request, prescient: bool, f: ReadFlags) -> Outcome {
        let (ty, ind) = self.type_of(req.key, req.kind == Kind::Metadata);
        let uncached =
            self.b.access_2_2 && (f.uncached || (self.t.primarycache_metadata && ty == DATA));
        let size = req.size.max(1);
        self.count(req.prefetch, ty, 2);
        // arc_get_data_impl runs before the buffer is accounted.
        self.allocate(u64::from(size), None);
        let flags = ind | F_IO | if uncached { F_UNCACHED } else { 0 };
        let i = self.create(h, req.key, size, State::Anon, ty, flags);
        if self.b.access_2_2 {
            self.arc_access(i, State::Anon, req.prefetch, prescient, false);
        } else {
            self.atime[i as usize] = self.tick;
            self.change_state(i, State::Mru);
            if req.prefetch {
                self.ix.nodes[i as usize].freq |=
                    F_PREFETCH | if prescient { F_PRESCIENT } else { F_PREDICTIVE };
            }
        }
        self.note_hash();
        self.issue(i, req.key);
        Outcome::Miss { ghost: None }
    }

    fn miss_ghost(&mut self, i: u32, st: State, req: &Request, prescient: bool) -> Outcome {
        let n = self.ix.nodes[i as usize];
        let ty = (n.tag & 1) as usize;
        let old = u64::from(n.size);
        let g = if st == State::MruGhost { 0 } else { 1 };
        self.ghost_hits[g][ty] += old;
        // ≤ 2.1 count misses by the header's ARC_FLAG_PREFETCH after
        // arc_access: a ghost evicted as an unused prefetch is still flagged
        // (no reference yet), so even a demand read counts a prefetch miss.
        let legacy_pf = !self.b.access_2_2 && n.freq & F_PREFETCH != 0;
        self.count(req.prefetch || legacy_pf, ty, 2);
        // Leave the ghost list first so that eviction cannot drop this header.
        self.unlink(i);
        self.ix.nodes[i as usize].freq |= F_IO;
        if self.b.access_2_2 {
            self.arc_access(i, st, req.prefetch, prescient, false);
        } else {
            if self.b.ghost_hit_adapts_p {
                self.adapt_p(old, g);
            } else {
                // 0.7.0–0.8.5: arc_get_data_impl calls arc_adapt(size, state)
                // after arc_access moved the header out of its ghost list, so
                // neither arc_p branch runs; only growth does.
                self.grow(u64::from(req.size.max(1)), false);
            }
            let was = n.freq & (F_PREFETCH | F_PRESCIENT) != 0;
            if st == State::MruGhost {
                self.s.mru_ghost_hits += 1;
            } else {
                self.s.mfu_ghost_hits += 1;
            }
            self.atime[i as usize] = self.tick;
            self.change_state(i, if was { State::Mru } else { State::Mfu });
            if req.prefetch {
                self.ix.nodes[i as usize].freq |=
                    F_PREFETCH | if prescient { F_PRESCIENT } else { F_PREDICTIVE };
            } else {
                // The demand consumer's buffer takes the first reference when
                // the read completes (add_reference clears ARC_FLAG_PREFETCH).
                self.ix.nodes[i as usize].freq &= !F_PREFETCH;
            }
        }
        // Re-read at the request's size: the buffer is allocated now.
        let st2 = self.state_of(i) as usize;
        self.sz[st2][ty] -= old;
        let size = req.size.max(1);
        self.ix.nodes[i as usize].size = size;
        self.allocate(u64::from(size), Some(g));
        self.sz[st2][ty] += u64::from(size);
        self.issue(i, req.key);
        Outcome::Miss {
            ghost: Some(if g == 0 {
                GhostKind::Mru
            } else {
                GhostKind::Mfu
            }),
        }
    }

    /// Start the read of header `i`; it completes after the device latency.
    #[inline]
    fn issue(&mut self, i: u32, key: u64) {
        let lat = self.t.device_latency_ns;
        if lat == 0 {
            self.complete_io(i, key);
            return;
        }
        let done = self.now + lat;
        self.io.push_back((done, i, key));
        if done < self.next_event {
            self.next_event = done;
        }
    }

    /// An I/O completion: the read's reference is dropped.
    #[inline(always)]
    pub(super) fn complete_io(&mut self, i: u32, key: u64) {
        let n = self.ix.nodes.get(i as usize).copied();
        let Some(n) = n else { return };
        if n.key != key || n.freq & F_IO == 0 || n.tag == crate::slab::TAG_FREE {
            return;
        }
        self.ix.nodes[i as usize].freq &= !F_IO;
        let st = State::from_u8(n.tag >> 1);
        if st == State::Uncached && n.freq & F_PREFETCH == 0 && n.freq & F_HELD == 0 {
            self.destroy(i);
        } else if self.listable(i) {
            self.link(i);
        }
    }

    #[inline(always)]
    pub(super) fn note_hash(&mut self) {
        let he = self.hash_elements();
        if he > self.hash_max {
            self.hash_max = he;
        }
    }

    fn write(&mut self, req: &Request) -> Outcome {
        let (h, found) = self.find(req.key);
        let size = req.size.max(1);
        if let Some(i) = found {
            let n = self.ix.nodes[i as usize];
            let st = State::from_u8(n.tag >> 1);
            if n.freq & F_HELD != 0 && st != State::Anon {
                // Still referenced: arc_release gives the writer a new anon
                // header; the old one stays until released. Not modelled:
                // treat as a rewrite of the cached block in place.
                self.s.model_held_writes += 1;
                return Outcome::Written;
            }
            if st == State::Anon {
                let ty = (n.tag & 1) as usize;
                if n.size != size {
                    if size > n.size {
                        self.allocate(u64::from(size - n.size), None);
                    }
                    self.sz[0][ty] = self.sz[0][ty] - u64::from(n.size) + u64::from(size);
                    self.ix.nodes[i as usize].size = size;
                }
                if n.freq & F_DIRTY == 0 {
                    self.ix.nodes[i as usize].freq |= F_DIRTY;
                    self.dirty.push((i, req.key));
                }
                return Outcome::Written;
            }
            // arc_release (resident) or a stale ghost of the old DVA: gone.
            self.destroy(i);
        }
        let (ty, ind) = self.type_of(req.key, req.kind == Kind::Metadata);
        self.allocate(u64::from(size), None);
        let i = self.create(h, req.key, size, State::Anon, ty, ind | F_DIRTY);
        self.dirty.push((i, req.key));
        Outcome::Written
    }

    fn free(&mut self, key: u64) -> Outcome {
        if let (_, Some(i)) = self.find(key)
            && self.ix.nodes[i as usize].freq & F_HELD == 0
        {
            self.destroy(i);
        }
        Outcome::Freed
    }

    /// `arc_write_done` for every dirty buffer of the syncing txg: anon → MRU.
    pub(super) fn sync_txg(&mut self) {
        let dirty = std::mem::take(&mut self.dirty);
        for &(i, key) in &dirty {
            let Some(n) = self.ix.nodes.get(i as usize).copied() else {
                continue;
            };
            if n.key != key
                || n.tag >> 1 != 0
                || n.freq & F_DIRTY == 0
                || n.tag == crate::slab::TAG_FREE
            {
                continue;
            }
            self.ix.nodes[i as usize].freq &= !F_DIRTY;
            self.atime[i as usize] = self.tick;
            let to = if n.freq & F_UNCACHED != 0 && self.b.access_2_2 {
                State::Uncached
            } else {
                State::Mru
            };
            self.change_state(i, to);
            self.s.txg_synced_bufs += 1;
        }
        self.note_hash();
        self.dirty = dirty;
        self.dirty.clear();
    }

    /// `arc_get_data_impl` before the buffer is accounted: growth (§4), then
    /// the overflow check (§6.1); eviction runs when woken, or
    /// `evict_delay_ns` later (`Tunables::evict_delay_ns`).
    /// `ghost`: ≤2.1 ghost hits already ran `arc_adapt` (with its growth).
    pub(super) fn allocate(&mut self, bytes: u64, ghost: Option<usize>) {
        if ghost.is_none() || self.b.split == Split::MetaPdPm {
            self.grow(bytes, ghost.is_none());
        }
        let size = self.size();
        let seen = self.size_seen(size);
        let level = self.overflow_level(seen, true, false);
        if level > 0 {
            self.evict_needed = true;
            if level > 1 {
                self.s.model_alloc_waits += 1;
            }
            let delay = self.t.evict_delay_ns;
            if level == 1 && delay != 0 {
                // The thread is woken; its burst lands `delay` later.
                if self.evict_due == u64::MAX {
                    self.evict_due = self.now.saturating_add(delay);
                    self.next_event = self.next_event.min(self.evict_due);
                }
            } else {
                self.evict_due = u64::MAX;
                self.run_evict_thread();
            }
        }
        self.sum_pending = bytes;
    }

    /// The size the overflow check reads (§6.1): `arcstat_size`'s aggsum
    /// lower bound, once the last buffer added is settled. A bucket whose
    /// running delta leaves ±borrow commits it to the bound and borrows
    /// afresh for the add that overflowed it (2.1+: 16× a 128 KiB buffer, 2
    /// MiB), so from 0.8 on the check runs up to twice that behind the
    /// size. One bucket: the replay is one thread, and the oracle's userland
    /// build puts every thread in bucket 0; a kernel whose readers run on
    /// several CPUs lags by up to that many buckets' borrow.
    fn size_seen(&mut self, size: u64) -> u64 {
        let d = std::mem::take(&mut self.sum_pending);
        let rule = self.b.size_sum;
        if rule == SizeSum::Exact {
            return size;
        }
        let b = self.sum_borrowed;
        let running = i128::from(size) - i128::from(self.sum_lower) - i128::from(b);
        if d > 0 && running.unsigned_abs() > u128::from(b) {
            let want = (rule.borrow_for(d) as f64 * self.sum_scale) as u64;
            let nb = match rule {
                SizeSum::Borrow10Fresh => want,
                _ if want >= b => want,
                _ => b - (b - want) / 4,
            };
            // 0.8 flushes the bucket, borrows, then adds the delta to it.
            let held = if rule == SizeSum::Borrow10Fresh { d } else { 0 };
            self.sum_borrowed = nb;
            self.sum_lower = size.saturating_sub(nb + held);
        }
        if self.sum_borrowed == 0 {
            size
        } else {
            self.sum_lower.min(size)
        }
    }

    /// A read of arcstats (`arc_kstat_update`, what a monitoring agent or
    /// `cat /proc/spl/kstat/zfs/arcstats` runs): among its sums it takes
    /// `aggsum_value(arcstat_size)`, which folds the per-CPU buckets in, so
    /// the next overflow check sees the exact size (§6.1). Nothing else the
    /// model tracks changes.
    pub fn kstat_update(&mut self) {
        self.size_sum_read();
    }

    /// `aggsum_value(arcstat_size)`: the buckets are folded in and the bound
    /// is the size again.
    pub(super) fn size_sum_read(&mut self) {
        self.sum_borrowed = 0;
        self.sum_pending = 0;
    }

    /// `arc_adapt`'s growth half (§4); `anon`: the ≤2.1 `p` rule for new headers.
    #[inline]
    pub(super) fn grow(&mut self, bytes: u64, anon: bool) {
        // The flag and the cap first: at the cap (where a capped ARC spends
        // its time) they decide without summing the sizes for `available`.
        if self.no_grow || self.c >= self.c_max || self.available() < 0 {
            return;
        }
        let size = self.size();
        if size + self.grow_margin >= self.c {
            if self.b.growth_min_128k {
                self.c = (self.c + bytes.max(128 << 10)).min(self.c_max);
            } else {
                self.c += bytes;
                if self.c > self.c_max {
                    self.c = self.c_max;
                } else if anon && self.p < self.c >> 1 {
                    self.p += bytes;
                }
                if self.p > self.c {
                    self.p = self.c;
                }
            }
        }
    }

    /// `arc_is_overflowing(lax, use_reserve)` at the given `size` (§6.1): 0
    /// none, 1 some (wake the evict thread), 2 severe (the allocation waits).
    pub fn overflow_level(&self, size: u64, lax: bool, reserve: bool) -> u8 {
        let c = self.c;
        let k = (c >> self.t.overflow_shift).max(self.t.max_recordsize);
        match self.b.overflow {
            Overflow::Binary => u8::from(size >= c + k) * 2,
            Overflow::Shift => {
                if size < c + k / 2 {
                    0
                } else if size < c + if reserve { k + k / 2 } else { k } {
                    1
                } else {
                    2
                }
            }
            Overflow::Lax => {
                let over = size as i128 - c as i128 - self.t.max_recordsize as i128;
                let dn_over = self.b.dnode_overflow && self.dnode > self.dnode_limit;
                if over < 0 && !dn_over {
                    return 0;
                }
                if !lax {
                    return 2;
                }
                let mut ovf = i128::from((c >> self.t.overflow_shift) / 2);
                if reserve {
                    ovf *= 3;
                }
                if over < ovf { 1 } else { 2 }
            }
        }
    }

    /// Bytes of a (state, type): `<state>_data` / `<state>_metadata`.
    pub fn state_bytes(&self, st: State, meta: bool) -> u64 {
        self.sz[st as usize][if meta { META } else { DATA }]
    }

    /// Evictable bytes of a (state, type) (0 for anon).
    pub fn state_evictable(&self, st: State, meta: bool) -> u64 {
        if st == State::Anon {
            0
        } else {
            self.lists[super::engine::li(st, usize::from(meta))].bytes
        }
    }
}
