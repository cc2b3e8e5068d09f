//! Time and the host: the logical clock and its timed work (I/O completions,
//! txg syncs, reap thread §4/§5.2, kernel reclaim §5.3/§5.4, 0.x idle
//! adjust), available memory (§5.1), `arc_reduce_target_size` (§5.2), the
//! runtime `zfs_arc_max`/`zfs_arc_min` writes (§3.3–3.4) and the pressure
//! deficit integral.

use super::behaviour::{Reduce, Split};
use super::engine::{ArcCache, DATA, META, State, li};
use crate::limits::{ARC_MIN_FLOOR, MIN_ARC_MAX, Os, Verdict};

const SEC: u64 = 1_000_000_000;

/// The latest model time (2^62 ns ≈ 146 years): later request times are
/// clamped to it, so every timed event stays representable.
pub const MAX_TIME_NS: u64 = 1 << 62;

/// The idle period the jump works in: the least common multiple of the one
/// second tick and the kernel reclaim period (`None` if above one hour; the
/// engine then steps every event). Empty txg syncs are no-ops, so the txg
/// period does not enter.
pub(super) fn idle_cycle_ns(reclaim_period_ms: u64) -> u64 {
    let r = reclaim_period_ms.max(1).saturating_mul(1_000_000);
    let (mut a, mut b) = (SEC, r);
    while b != 0 {
        (a, b) = (b, a % b);
    }
    let l = (SEC / a).saturating_mul(r);
    if l > 3600 * SEC { 0 } else { l }
}

/// [`ArcCache::idle_state`]: the state the periodic work reads and writes.
#[derive(PartialEq)]
struct IdleState {
    sz: [[u64; 2]; 6],
    lists: [(u32, u32, u32, u64); 10],
    headers: u64,
    anon_hdrs: u64,
    ghost_hits: [[u64; 2]; 2],
    og: [u64; 4],
    gs: [u64; 4],
    targets: [u64; 9],
    pinned: [u64; 4],
    flags: [bool; 3],
    size_sum: [u64; 3],
    grow_in: u64,
    shrink_priority: u32,
    holds: u64,
    hash_max: u64,
    need_free: u64,
    phase: [u64; 2],
}

impl ArcCache {
    /// Advance the clock to `t` (ns), running every timed event due on the
    /// way, in time order. A `t` in the past is clamped to the current time.
    ///
    /// Idle stretches cost O(1) whatever their length: once the periodic work
    /// (reap, kernel reclaim, txg, evict thread) repeats itself exactly over
    /// one whole period of the event schedule, the remaining whole periods are
    /// applied at once (counters extrapolated), with the same result as
    /// stepping through every event. Times beyond [`MAX_TIME_NS`] are clamped
    /// to it.
    #[inline]
    pub fn advance_to(&mut self, t: u64) {
        let t = t.min(MAX_TIME_NS);
        if t <= self.now {
            return;
        }
        while self.next_event <= t {
            if self.idle_jump && t - self.now >= 2 * self.cycle_ns && self.cycle_ns != 0 {
                self.idle_cycle(t);
                continue;
            }
            self.step_event();
        }
        self.set_now(t);
    }

    #[inline(always)]
    fn step_event(&mut self) {
        let e = self.next_event;
        self.set_now(e);
        self.run_due();
    }

    /// Whether the state can repeat itself over an idle period: nothing in
    /// flight, no dirty buffers, nothing on the uncached lists (whose flush
    /// depends on the tick).
    fn quiescent(&self) -> bool {
        let unc = li(State::Uncached, DATA);
        self.io.is_empty()
            && self.evict_due == u64::MAX
            && self.dirty.is_empty()
            && self.lists[unc].len == 0
            && self.lists[unc + 1].len == 0
    }

    /// Everything the periodic work reads, relative to the clock.
    fn idle_state(&self) -> IdleState {
        IdleState {
            sz: self.sz,
            lists: std::array::from_fn(|l| {
                let x = &self.lists[l];
                let (h, t) = x.ends();
                (h, t, x.len, x.bytes)
            }),
            headers: self.ix.len() as u64,
            anon_hdrs: self.anon_hdrs,
            ghost_hits: self.ghost_hits,
            og: self.og,
            gs: self.gs,
            targets: [
                self.c,
                self.c_min,
                self.c_max,
                self.p,
                self.meta,
                self.pd,
                self.pm,
                self.meta_limit,
                self.dnode_limit,
            ],
            pinned: [self.dnode, self.dbuf, self.bonus, self.other_demand],
            flags: [self.no_grow, self.warm, self.evict_needed],
            size_sum: [self.sum_lower, self.sum_borrowed, self.sum_pending],
            grow_in: self.growtime_ns.saturating_sub(self.now),
            shrink_priority: self.shrink_priority,
            holds: self.holds.len() as u64,
            hash_max: self.hash_max,
            need_free: self.need_free,
            phase: [self.next_second - self.now, self.next_reclaim - self.now],
        }
    }

    /// One idle period of `cycle_ns` stepped event by event; if it changed
    /// nothing but counters (and skipped no young buffer), every following
    /// period does the same, so the whole periods left before `t` are
    /// applied at once.
    fn idle_cycle(&mut self, t: u64) {
        if !self.quiescent() {
            self.step_event();
            return;
        }
        if self.other_demand != 0 {
            self.integrate(self.now);
        }
        let before = self.idle_state();
        let c0 = self.s.clone();
        let end = self.now + self.cycle_ns;
        while self.next_event <= end {
            self.step_event();
        }
        self.set_now(end);
        if self.other_demand != 0 {
            self.integrate(end);
        }
        if !self.quiescent() || self.s.evict_skip != c0.evict_skip || self.idle_state() != before {
            return;
        }
        let k = (t - self.now) / self.cycle_ns;
        if k == 0 {
            return;
        }
        let dt = k * self.cycle_ns;
        self.s.extrapolate(&c0, k);
        let now = self.now + dt;
        if self.growtime_ns > self.now {
            self.growtime_ns += dt;
        }
        self.next_second += dt;
        self.next_reclaim += dt;
        if self.next_txg <= now {
            // Syncs of an empty txg change nothing: keep the schedule's phase.
            let p = self.txg_period();
            self.next_txg += (now - self.next_txg) / p * p + p;
        }
        self.now = now;
        self.last_integrate = now;
        self.set_tick(now);
        self.idle_jumps += 1;
        self.next_event = self.next_second.min(self.next_txg).min(self.next_reclaim);
    }

    fn txg_period(&self) -> u64 {
        self.t.txg_timeout_s.max(1) * SEC
    }

    #[inline(always)]
    fn set_now(&mut self, t: u64) {
        if self.other_demand != 0 {
            self.integrate(t);
        }
        self.now = t;
        self.set_tick(t);
    }

    fn integrate(&mut self, t: u64) {
        let dt = t.saturating_sub(self.last_integrate);
        self.last_integrate = t;
        let short = self.deficit_bytes();
        if short > 0 && dt > 0 {
            self.s.model_deficit_byte_ns += u128::from(short) * u128::from(dt);
        }
    }

    /// Bytes the other processes want but cannot have right now.
    pub fn deficit_bytes(&self) -> u64 {
        let room = self
            .allmem
            .saturating_sub(self.host.base_bytes + self.size());
        self.other_demand.saturating_sub(room)
    }

    /// Everything due at `self.now`.
    fn run_due(&mut self) {
        let now = self.now;
        while let Some(&(done, i, key)) = self.io.front() {
            if done > now {
                break;
            }
            self.io.pop_front();
            self.complete_io(i, key);
        }
        self.periodic_runs += 1;
        if self.next_txg <= now {
            self.sync_txg();
            self.next_txg += self.txg_period();
        }
        if self.next_reclaim <= now {
            self.kernel_reclaim();
            self.next_reclaim += self.t.reclaim_period_ms.max(1) * 1_000_000;
        }
        if self.next_second <= now {
            self.second_tick();
            self.next_second += SEC;
        }
        if self.evict_due <= now {
            self.evict_due = u64::MAX;
            self.run_evict_thread();
        }
        let io = self.io.front().map_or(u64::MAX, |e| e.0);
        self.next_event = io
            .min(self.evict_due)
            .min(self.next_txg)
            .min(self.next_reclaim)
            .min(self.next_second);
    }

    /// `arc_free_memory()`: what the other processes and the base leave free.
    pub fn free_memory(&self) -> u64 {
        self.allmem
            .saturating_sub(self.host.base_bytes + self.other_demand + self.size())
    }

    /// `arc_available_memory()`: free − `arc_sys_free` (Linux) or free −
    /// `zfs_arc_free_target` (FreeBSD).
    pub fn available(&self) -> i64 {
        let reserve = match self.os {
            Os::Linux => self.sys_free,
            Os::FreeBSD => self.host.freebsd_free_target.unwrap_or(self.allmem / 64),
        };
        self.free_memory() as i64 - reserve as i64
    }

    /// Once per second: the reap zthr check and step (§4, §5.2), the evict
    /// thread's uncached poll (§6.2), and 0.x's unconditional `arc_adjust`.
    fn second_tick(&mut self) {
        let avail = self.available();
        if avail < 0 {
            self.no_grow = true;
            self.warm = true;
            self.growtime_ns = self.now + self.t.grow_retry_s * SEC;
            self.s.model_reap_steps += 1;
            let shift = self.t.shrink_shift;
            if self.b.reap_base_minus_cmin {
                let can = self.c as i64 - self.c_min as i64;
                if can > 0 || !self.b.reap_skip_at_cmin {
                    let to_free = (can.max(0) >> shift) - avail;
                    if to_free > 0 {
                        self.reduce_target_size(to_free as u64);
                    }
                }
            } else {
                let to_free = (self.c >> shift) as i64 - avail;
                if to_free > 0 {
                    self.reduce_target_size(to_free as u64);
                }
            }
        } else if avail < (self.c >> self.t.no_grow_shift) as i64 {
            self.no_grow = true;
        } else if self.now >= self.growtime_ns {
            self.no_grow = false;
        }
        if self.b.idle_adjust_every_second && self.size() > self.c {
            self.evict_needed = true;
        }
        let unc = self.lists[li(State::Uncached, DATA)].bytes
            + self.lists[li(State::Uncached, META)].bytes;
        if unc > 0 && self.tick.wrapping_sub(self.last_uncached_flush) > self.min_pf_ticks / 2 {
            self.flush_uncached();
        }
        self.run_evict_thread();
        self.need_free = match self.os {
            Os::Linux => (self.sys_free / 2).saturating_sub(self.free_memory()),
            Os::FreeBSD => 0,
        };
    }

    /// The kernel asks for memory (Linux shrinker / FreeBSD `vm_lowmem`), at
    /// most once per `reclaim_period_ms`.
    fn kernel_reclaim(&mut self) {
        if !self.host.kernel_reclaim {
            return;
        }
        let avail = self.available();
        let deficit = self.deficit_bytes() > 0;
        match self.os {
            Os::Linux => {
                // kswapd wakes below the low watermark: model it as the
                // watermark part of arc_sys_free, (sys_free − allmem/32)/3.
                let wmark = self.sys_free.saturating_sub(self.allmem / 32) / 3;
                if self.free_memory() >= wmark && !deficit {
                    self.shrink_priority = 12;
                    return;
                }
                let count = self.evictable_memory() / self.page_bytes;
                let limit = match self.t.shrinker_limit_pages {
                    super::Tunables::RELEASE_DEFAULT => self.b.shrinker_limit_default_pages,
                    l => l,
                };
                // arc_shrinker_count: MIN(limit, btop(arc_evictable_memory())).
                let count = if limit != 0 { count.min(limit) } else { count };
                if count == 0 {
                    return;
                }
                let nr = ((count >> self.shrink_priority) * 4 / self.t.shrinker_seeks.max(1))
                    .max(128.min(count));
                self.shrink_priority = self.shrink_priority.saturating_sub(1);
                self.warm = true;
                self.no_grow = true;
                let freed = self.reduce_target_size(nr * self.page_bytes);
                self.s.model_shrinker_pages += if self.b.shrinker_reports_reduced {
                    freed / self.page_bytes
                } else {
                    nr
                };
                if deficit {
                    self.s.memory_direct_count += 1;
                } else {
                    self.s.memory_indirect_count += 1;
                }
            }
            Os::FreeBSD => {
                if avail >= 0 || !deficit {
                    return;
                }
                self.no_grow = true;
                self.warm = true;
                self.growtime_ns = self.now + self.t.grow_retry_s * SEC;
                let can = (self.c.saturating_sub(self.c_min) >> self.t.shrink_shift) as i64;
                let to_free = can - avail.min(0);
                if to_free > 0 {
                    self.reduce_target_size(to_free as u64);
                }
                self.s.memory_indirect_count += 1;
            }
        }
        self.run_evict_thread();
    }

    /// `arc_evictable_memory()` (Linux, §5.3) with `zfs_arc_pc_percent` = 0.
    fn evictable_memory(&self) -> u64 {
        let ev: u64 = [
            li(State::Mru, DATA),
            li(State::Mru, META),
            li(State::Mfu, DATA),
            li(State::Mfu, META),
        ]
        .iter()
        .map(|&l| self.lists[l].bytes)
        .sum();
        let size = self.size();
        if size.saturating_sub(ev) >= self.c_min {
            ev
        } else {
            size.saturating_sub(self.c_min)
        }
    }

    /// `arc_reduce_target_size(to_free)` of this version (§5.2); returns the
    /// bytes the target actually dropped by (the HEAD return value).
    pub(super) fn reduce_target_size(&mut self, to_free: u64) -> u64 {
        // It reads the size exactly (aggsum_value).
        self.size_sum_read();
        let size = self.size();
        let old = self.c;
        let shift = self.t.shrink_shift;
        let mut wake = false;
        match self.b.reduce {
            Reduce::Head => {
                let mut tf = to_free;
                if self.c > self.c_min {
                    let c = self.c.min(size.max(self.c_min));
                    tf = tf.min(c - self.c_min);
                    self.c = c - tf;
                }
                wake = size > self.c;
            }
            Reduce::V22 => {
                if self.c > self.c_min {
                    self.c = self.c.min(size).saturating_sub(to_free).max(self.c_min);
                    wake = true;
                }
            }
            Reduce::FromSize20 | Reduce::FromC08 | Reduce::Shrink07 => {
                let c = if self.b.reduce == Reduce::FromSize20 {
                    self.c.min(size)
                } else {
                    self.c
                };
                if c > to_free && c - to_free > self.c_min {
                    self.c = c - to_free;
                    self.p -= self.p >> shift;
                    if self.b.reduce == Reduce::Shrink07 && self.c > size {
                        self.c = size.max(self.c_min);
                    }
                    if self.p > self.c {
                        self.p = self.c >> 1;
                    }
                } else {
                    self.c = self.c_min;
                }
                wake = size > self.c;
            }
        }
        if self.b.split == Split::ArcP && self.p > self.c {
            self.p = self.c >> 1;
        }
        if wake {
            self.evict_needed = true;
        }
        old.saturating_sub(self.c)
    }

    /// Other processes now want `bytes` (from the current time on).
    pub fn set_other_demand(&mut self, bytes: u64) {
        self.integrate(self.now);
        self.other_demand = bytes;
    }

    /// Memory charged to the ARC that it cannot evict: `dnode_size`,
    /// `dbuf_size`, `bonus_size` (open files' dnodes, their dbufs and bonus
    /// buffers, §6.5). Takes effect at once; no eviction is triggered (as with
    /// `arc_space_consume`), except at the next allocation or pressure event.
    pub fn set_pinned(&mut self, dnode_bytes: u64, dbuf_bytes: u64, bonus_bytes: u64) {
        if self.other_demand != 0 {
            self.integrate(self.now);
        }
        self.dnode = dnode_bytes;
        self.dbuf = dbuf_bytes;
        self.bonus = bonus_bytes;
    }

    /// Metadata buffers the ARC holds and cannot evict beyond what the model
    /// tracks: the dnode blocks (and their indirect blocks) that cached
    /// dnodes keep referenced through their dbufs. Charged to MFU metadata
    /// (`mfu_metadata`, `metadata_size`, `arc_meta_used`) and on no
    /// evictable list, so eviction cannot take it and `arc_evict` counts it
    /// as non-evictable metadata (which asks `arc_prune` for dnodes). Takes
    /// effect at once, like [`ArcCache::set_pinned`].
    pub fn set_held_metadata(&mut self, bytes: u64) {
        if self.other_demand != 0 {
            self.integrate(self.now);
        }
        let m = &mut self.sz[State::Mfu as usize][META];
        *m = *m - self.held_meta + bytes;
        self.held_meta = bytes;
    }

    /// Write `zfs_arc_max` at runtime (Linux `param_set_arc_max` →
    /// `arc_tuning_update`; FreeBSD sysctl), with this version's semantics.
    pub fn set_arc_max(&mut self, bytes: u64) -> Verdict {
        let ignore = |reason: String| Verdict::Ignored { reason };
        if bytes == 0 {
            return ignore("writing 0 changes nothing at runtime".into());
        }
        if bytes == self.c_max {
            return Verdict::Accepted;
        }
        let floor_ok = if self.b.limits == crate::limits::ZfsVersion::V0_6 {
            bytes > MIN_ARC_MAX
        } else {
            bytes >= MIN_ARC_MAX
        };
        if !floor_ok {
            return ignore(format!("zfs_arc_max {bytes} is below 64 MiB (MIN_ARC_MAX)"));
        }
        if bytes >= self.allmem {
            return ignore(format!(
                "zfs_arc_max {bytes} is not below all memory {}",
                self.allmem
            ));
        }
        if bytes <= self.c_min {
            return ignore(format!(
                "zfs_arc_max {bytes} is not above c_min {}",
                self.c_min
            ));
        }
        self.c_max = bytes;
        if self.b.arc_max_keeps_c {
            self.c = self.c.min(bytes);
        } else {
            self.c = bytes;
        }
        if self.b.split == Split::ArcP {
            self.p = self.c >> 1;
            let ml = self.c_max / 100 * 75 + self.c_max % 100 * 75 / 100;
            if ml >= self.t.meta_min && ml <= self.c_max {
                self.meta_limit = ml;
            }
            let dl = self.meta_limit / 100 * self.t.dnode_limit_percent.min(100);
            if dl >= self.t.meta_min && dl <= self.meta_limit {
                self.dnode_limit = dl;
            }
        } else {
            self.dnode_limit = self.c_max / 100 * self.t.dnode_limit_percent.min(100)
                + self.c_max % 100 * self.t.dnode_limit_percent.min(100) / 100;
        }
        Verdict::Accepted
    }

    /// Write `zfs_arc_min` at runtime (§3.3).
    pub fn set_arc_min(&mut self, bytes: u64) -> Verdict {
        let ignore = |reason: String| Verdict::Ignored { reason };
        if bytes == 0 {
            return ignore("writing 0 changes nothing at runtime".into());
        }
        if bytes < ARC_MIN_FLOOR {
            return ignore(format!("zfs_arc_min {bytes} is below 32 MiB"));
        }
        if bytes > self.c_max {
            return ignore(format!("zfs_arc_min {bytes} is above c_max {}", self.c_max));
        }
        self.c_min = bytes;
        self.c = self.c.max(bytes);
        Verdict::Accepted
    }
}
