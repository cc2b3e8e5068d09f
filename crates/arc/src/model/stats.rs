//! Counters and the `ArcStats` snapshot, with arcstats field names verbatim
//! (spec §11.2) and the model's own extras kept apart in [`ModelStats`].

use super::behaviour::Split;
use super::engine::{ArcCache, DATA, META, State, li};

/// Event counters kept on the hot path.
#[derive(Clone, Debug, Default)]
pub(crate) struct Counters {
    /// hits, iohits, misses.
    pub(crate) outcome: [u64; 3],
    /// [demand data, demand metadata, prefetch data, prefetch metadata] × [hits, iohits, misses].
    pub(crate) split: [[u64; 3]; 4],
    pub(crate) mru_hits: u64,
    pub(crate) mru_ghost_hits: u64,
    pub(crate) mfu_hits: u64,
    pub(crate) mfu_ghost_hits: u64,
    pub(crate) uncached_hits: u64,
    pub(crate) deleted: u64,
    pub(crate) evict_skip: u64,
    pub(crate) evict_not_enough: u64,
    pub(crate) evict_l2_eligible: u64,
    pub(crate) evict_l2_eligible_mru: u64,
    pub(crate) evict_l2_eligible_mfu: u64,
    pub(crate) evict_l2_ineligible: u64,
    pub(crate) memory_direct_count: u64,
    pub(crate) memory_indirect_count: u64,
    pub(crate) arc_prune: u64,
    pub(crate) predictive_prefetch: u64,
    pub(crate) demand_hit_predictive_prefetch: u64,
    pub(crate) demand_iohit_predictive_prefetch: u64,
    pub(crate) prescient_prefetch: u64,
    pub(crate) demand_hit_prescient_prefetch: u64,
    pub(crate) demand_iohit_prescient_prefetch: u64,
    pub(crate) dirty_hits: u64,
    pub(crate) model_held_writes: u64,
    pub(crate) model_alloc_waits: u64,
    pub(crate) model_evict_runs: u64,
    pub(crate) model_evicted_bytes: u64,
    pub(crate) model_prune_dnodes: u64,
    pub(crate) model_reap_steps: u64,
    pub(crate) model_shrinker_pages: u64,
    pub(crate) txg_synced_bufs: u64,
    pub(crate) model_deficit_byte_ns: u128,
}

impl Counters {
    /// `self += k · (self − before)`: `k` more repetitions of the counting
    /// done since `before` (an idle period that repeats itself exactly).
    pub(crate) fn extrapolate(&mut self, before: &Counters, k: u64) {
        fn add(x: &mut u64, b: u64, k: u64) {
            *x = x.saturating_add((*x - b).saturating_mul(k));
        }
        for w in 0..3 {
            add(&mut self.outcome[w], before.outcome[w], k);
            for s in 0..4 {
                add(&mut self.split[s][w], before.split[s][w], k);
            }
        }
        macro_rules! each {
            ($($f:ident),* $(,)?) => {
                $(add(&mut self.$f, before.$f, k);)*
                // Every field is listed (a new counter fails to compile here).
                let Counters { outcome: _, split: _, model_deficit_byte_ns: _, $($f: _,)* } = before;
            };
        }
        each!(
            mru_hits,
            mru_ghost_hits,
            mfu_hits,
            mfu_ghost_hits,
            uncached_hits,
            deleted,
            evict_skip,
            evict_not_enough,
            evict_l2_eligible,
            evict_l2_eligible_mru,
            evict_l2_eligible_mfu,
            evict_l2_ineligible,
            memory_direct_count,
            memory_indirect_count,
            arc_prune,
            predictive_prefetch,
            demand_hit_predictive_prefetch,
            demand_iohit_predictive_prefetch,
            prescient_prefetch,
            demand_hit_prescient_prefetch,
            demand_iohit_prescient_prefetch,
            dirty_hits,
            model_held_writes,
            model_alloc_waits,
            model_evict_runs,
            model_evicted_bytes,
            model_prune_dnodes,
            model_reap_steps,
            model_shrinker_pages,
            txg_synced_bufs,
        );
        let d = self.model_deficit_byte_ns - before.model_deficit_byte_ns;
        self.model_deficit_byte_ns = self
            .model_deficit_byte_ns
            .saturating_add(d.saturating_mul(u128::from(k)));
    }
}

/// The model's own numbers (not arcstats fields).
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ModelStats {
    /// Model clock (ns).
    pub time_ns: u64,
    /// ∫ max(0, other processes' demand − memory left to them) dt, in byte·seconds.
    pub pressure_deficit_byte_seconds: f64,
    /// Current shortfall of the other processes (bytes).
    pub pressure_deficit_bytes: u64,
    /// Memory the other processes want (bytes).
    pub other_demand_bytes: u64,
    /// Reads of dirty (anon) buffers, served by the dbuf layer.
    pub dirty_hits: u64,
    /// Allocations that would have blocked (SEVERE overflow).
    pub alloc_waits: u64,
    /// `arc_evict()` runs.
    pub evict_runs: u64,
    /// Non-ghost bytes evicted.
    pub evicted_bytes: u64,
    /// Dnodes the prune callbacks were asked to drop (not acted upon).
    pub prune_dnodes_requested: u64,
    /// Reap steps taken (available < 0 at a one-second check).
    pub reap_steps: u64,
    /// Pages the Linux shrinker reported reclaimed.
    pub shrinker_pages: u64,
    /// Dirty buffers that joined MRU at a txg sync.
    pub txg_synced_buffers: u64,
    /// Writes to held buffers (not modelled beyond counting).
    pub held_writes: u64,
    /// Whether the evict thread is flagged to run.
    pub evict_needed: bool,
    /// Reads in flight.
    pub reads_in_flight: u64,
}

macro_rules! arcstats {
    ($($(#[$doc:meta])* $name:ident),* $(,)?) => {
        /// A snapshot of the arcstats the model produces (names verbatim).
        /// Fields a version does not export are still present here; the kstat
        /// rendering picks the version's field set. `memory_available_bytes`
        /// is signed and kept in [`ArcStats::memory_available_bytes`].
        #[derive(Clone, Debug, Default, PartialEq)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize))]
        pub struct ArcStats {
            $($(#[$doc])* pub $name: u64,)*
            /// `memory_available_bytes` (signed, kstat type 3).
            pub memory_available_bytes: i64,
            /// The model's own extras.
            pub model: ModelStats,
        }

        impl ArcStats {
            /// Value of an arcstats field by name (`None`: not modelled → 0 in kstat output).
            pub fn get(&self, name: &str) -> Option<i128> {
                match name {
                    $(stringify!($name) => Some(i128::from(self.$name)),)*
                    "memory_available_bytes" => Some(i128::from(self.memory_available_bytes)),
                    _ => None,
                }
            }
        }
    };
}

arcstats! {
    /// Reads served from the ARC.
    hits, /// Reads that found the block in flight (2.2+).
    iohits, /// Reads that issued I/O.
    misses, /// Demand data hits.
    demand_data_hits, /// Demand data I/O hits.
    demand_data_iohits, /// Demand data misses.
    demand_data_misses, /// Demand metadata hits.
    demand_metadata_hits, /// Demand metadata I/O hits.
    demand_metadata_iohits, /// Demand metadata misses.
    demand_metadata_misses, /// Prefetch data hits.
    prefetch_data_hits, /// Prefetch data I/O hits.
    prefetch_data_iohits, /// Prefetch data misses.
    prefetch_data_misses, /// Prefetch metadata hits.
    prefetch_metadata_hits, /// Prefetch metadata I/O hits.
    prefetch_metadata_iohits, /// Prefetch metadata misses.
    prefetch_metadata_misses, /// Accesses to MRU headers.
    mru_hits, /// Misses that found an MRU ghost.
    mru_ghost_hits, /// Accesses to MFU headers.
    mfu_hits, /// Misses that found an MFU ghost.
    mfu_ghost_hits, /// Hits on uncached headers.
    uncached_hits, /// Ghost headers removed.
    deleted, /// Headers skipped by eviction (young prefetch / indirect).
    evict_skip, /// Eviction passes short of their goal.
    evict_not_enough, /// Evicted L2-eligible bytes.
    evict_l2_eligible, /// Of which from MFU.
    evict_l2_eligible_mfu, /// Of which from MRU.
    evict_l2_eligible_mru, /// Evicted bytes not L2-eligible (prefetched, never demanded).
    evict_l2_ineligible, /// Headers in the hash table.
    hash_elements, /// ≤2.2 high-water mark; 2.3+ equal to `hash_elements`.
    hash_elements_max, /// MRU target (≤2.1).
    p, /// Metadata fraction ·2^32 (2.2+).
    meta, /// MRU share of data ·2^32 (2.2+).
    pd, /// MRU share of metadata ·2^32 (2.2+).
    pm, /// Target size.
    c, /// Lower limit of `c`.
    c_min, /// Upper limit of `c`.
    c_max, /// Total ARC footprint.
    size, /// Header-owned buffers at the size charged for them (physical, compressed).
    compressed_size, /// Logical size of those (= compressed_size in the engine; the replay
    /// scales data by the pool's compression ratio).
    uncompressed_size, /// Consumers' uncompressed copies of compressed blocks they hold.
    overhead_size, /// Header bytes.
    hdr_size, /// Data buffer bytes.
    data_size, /// Metadata buffer bytes.
    metadata_size, /// dbuf structures.
    dbuf_size, /// dnode structures.
    dnode_size, /// Bonus buffers.
    bonus_size, /// anon bytes.
    anon_size, /// anon data.
    anon_data, /// anon metadata.
    anon_metadata, /// Always 0.
    anon_evictable_data, /// Always 0.
    anon_evictable_metadata, /// MRU bytes.
    mru_size, /// MRU data.
    mru_data, /// MRU metadata.
    mru_metadata, /// MRU evictable data.
    mru_evictable_data, /// MRU evictable metadata.
    mru_evictable_metadata, /// MRU ghost (logical bytes).
    mru_ghost_size, /// MRU ghost data.
    mru_ghost_data, /// MRU ghost metadata.
    mru_ghost_metadata, /// = mru_ghost_data.
    mru_ghost_evictable_data, /// = mru_ghost_metadata.
    mru_ghost_evictable_metadata, /// MFU bytes.
    mfu_size, /// MFU data.
    mfu_data, /// MFU metadata.
    mfu_metadata, /// MFU evictable data.
    mfu_evictable_data, /// MFU evictable metadata.
    mfu_evictable_metadata, /// MFU ghost (logical bytes).
    mfu_ghost_size, /// MFU ghost data.
    mfu_ghost_data, /// MFU ghost metadata.
    mfu_ghost_metadata, /// = mfu_ghost_data.
    mfu_ghost_evictable_data, /// = mfu_ghost_metadata.
    mfu_ghost_evictable_metadata, /// Uncached bytes.
    uncached_size, /// Uncached data.
    uncached_data, /// Uncached metadata.
    uncached_metadata, /// Uncached evictable data.
    uncached_evictable_data, /// Uncached evictable metadata.
    uncached_evictable_metadata, /// Shrinker/lowmem calls from direct reclaim.
    memory_direct_count, /// Shrinker/lowmem calls from kswapd / pagedaemon.
    memory_indirect_count, /// allmem.
    memory_all_bytes, /// Free memory as the ARC sees it.
    memory_free_bytes, /// 1 while growth is off.
    arc_no_grow, /// Prune callbacks dispatched.
    arc_prune, /// Metadata + headers + dbuf/dnode/bonus.
    arc_meta_used, /// ≤2.1 metadata limit.
    arc_meta_limit, /// ≤2.1: reported as the current `arc_meta_used` (no high-water tracking).
    arc_meta_max, /// ≤2.1 metadata floor.
    arc_meta_min, /// Dnode limit.
    arc_dnode_limit, /// Bytes eviction still owes / free-memory deficit.
    arc_need_free, /// Memory left to the system.
    arc_sys_free, /// Prefetch requests seen by arc_access, predictive.
    predictive_prefetch, /// Demand hits on predictive prefetches.
    demand_hit_predictive_prefetch, /// Demand I/O hits on predictive prefetches.
    demand_iohit_predictive_prefetch, /// Prefetch requests seen by arc_access, prescient.
    prescient_prefetch, /// Demand hits on prescient prefetches.
    demand_hit_prescient_prefetch, /// Demand I/O hits on prescient prefetches.
    demand_iohit_prescient_prefetch,
}

impl ArcCache {
    /// A snapshot of every statistic.
    pub fn stats(&self) -> ArcStats {
        let s = &self.s;
        let sz = &self.sz;
        let ev = |st: State, ty: usize| {
            if st == State::Anon {
                0
            } else {
                self.lists[li(st, ty)].bytes
            }
        };
        let d = sz[0][DATA] + sz[1][DATA] + sz[3][DATA] + sz[5][DATA];
        let m = sz[0][META] + sz[1][META] + sz[3][META] + sz[5][META];
        let he = self.hash_elements();
        let v22 = self.b.split == Split::MetaPdPm;
        let mut a = ArcStats {
            hits: s.outcome[0],
            iohits: s.outcome[1],
            misses: s.outcome[2],
            demand_data_hits: s.split[0][0],
            demand_data_iohits: s.split[0][1],
            demand_data_misses: s.split[0][2],
            demand_metadata_hits: s.split[1][0],
            demand_metadata_iohits: s.split[1][1],
            demand_metadata_misses: s.split[1][2],
            prefetch_data_hits: s.split[2][0],
            prefetch_data_iohits: s.split[2][1],
            prefetch_data_misses: s.split[2][2],
            prefetch_metadata_hits: s.split[3][0],
            prefetch_metadata_iohits: s.split[3][1],
            prefetch_metadata_misses: s.split[3][2],
            mru_hits: s.mru_hits,
            mru_ghost_hits: s.mru_ghost_hits,
            mfu_hits: s.mfu_hits,
            mfu_ghost_hits: s.mfu_ghost_hits,
            uncached_hits: s.uncached_hits,
            deleted: s.deleted,
            evict_skip: s.evict_skip,
            evict_not_enough: s.evict_not_enough,
            evict_l2_eligible: s.evict_l2_eligible,
            evict_l2_eligible_mfu: s.evict_l2_eligible_mfu,
            evict_l2_eligible_mru: s.evict_l2_eligible_mru,
            evict_l2_ineligible: s.evict_l2_ineligible,
            hash_elements: he,
            hash_elements_max: if self.b.hash_max_is_current {
                he
            } else {
                self.hash_max.max(he)
            },
            p: if v22 { 0 } else { self.p },
            meta: if v22 { self.meta } else { 0 },
            pd: if v22 { self.pd } else { 0 },
            pm: if v22 { self.pm } else { 0 },
            c: self.c,
            c_min: self.c_min,
            c_max: self.c_max,
            size: self.size(),
            compressed_size: d + m - self.overhead.min(d + m),
            uncompressed_size: d + m - self.overhead.min(d + m),
            overhead_size: self.overhead.min(d + m),
            hdr_size: self.hdr_size(),
            data_size: d,
            metadata_size: m,
            dbuf_size: self.dbuf,
            dnode_size: self.dnode,
            bonus_size: self.bonus,
            memory_direct_count: s.memory_direct_count,
            memory_indirect_count: s.memory_indirect_count,
            memory_all_bytes: self.allmem,
            memory_free_bytes: self.free_memory(),
            memory_available_bytes: self.available(),
            arc_no_grow: u64::from(self.no_grow),
            arc_prune: s.arc_prune,
            arc_meta_used: self.meta_used(),
            arc_meta_limit: if v22 { 0 } else { self.meta_limit },
            arc_meta_max: if v22 { 0 } else { self.meta_used() },
            arc_meta_min: if v22 { 0 } else { self.t.meta_min },
            arc_dnode_limit: self.dnode_limit,
            arc_need_free: self.need_free,
            arc_sys_free: if self.os == crate::limits::Os::Linux {
                self.sys_free
            } else {
                0
            },
            predictive_prefetch: s.predictive_prefetch,
            demand_hit_predictive_prefetch: s.demand_hit_predictive_prefetch,
            demand_iohit_predictive_prefetch: s.demand_iohit_predictive_prefetch,
            prescient_prefetch: s.prescient_prefetch,
            demand_hit_prescient_prefetch: s.demand_hit_prescient_prefetch,
            demand_iohit_prescient_prefetch: s.demand_iohit_prescient_prefetch,
            model: ModelStats {
                time_ns: self.now,
                pressure_deficit_byte_seconds: s.model_deficit_byte_ns as f64 / 1e9,
                pressure_deficit_bytes: self.deficit_bytes(),
                other_demand_bytes: self.other_demand,
                dirty_hits: s.dirty_hits,
                alloc_waits: s.model_alloc_waits,
                evict_runs: s.model_evict_runs,
                evicted_bytes: s.model_evicted_bytes,
                prune_dnodes_requested: s.model_prune_dnodes,
                reap_steps: s.model_reap_steps,
                shrinker_pages: s.model_shrinker_pages,
                txg_synced_buffers: s.txg_synced_bufs,
                held_writes: s.model_held_writes,
                evict_needed: self.evict_needed,
                reads_in_flight: self.io.len() as u64,
            },
            ..ArcStats::default()
        };
        for st in State::ALL {
            let (dd, mm) = (sz[st as usize][DATA], sz[st as usize][META]);
            let (ed, em) = (ev(st, DATA), ev(st, META));
            let v = [dd + mm, dd, mm, ed, em];
            let f: [&mut u64; 5] = match st {
                State::Anon => [
                    &mut a.anon_size,
                    &mut a.anon_data,
                    &mut a.anon_metadata,
                    &mut a.anon_evictable_data,
                    &mut a.anon_evictable_metadata,
                ],
                State::Mru => [
                    &mut a.mru_size,
                    &mut a.mru_data,
                    &mut a.mru_metadata,
                    &mut a.mru_evictable_data,
                    &mut a.mru_evictable_metadata,
                ],
                State::MruGhost => [
                    &mut a.mru_ghost_size,
                    &mut a.mru_ghost_data,
                    &mut a.mru_ghost_metadata,
                    &mut a.mru_ghost_evictable_data,
                    &mut a.mru_ghost_evictable_metadata,
                ],
                State::Mfu => [
                    &mut a.mfu_size,
                    &mut a.mfu_data,
                    &mut a.mfu_metadata,
                    &mut a.mfu_evictable_data,
                    &mut a.mfu_evictable_metadata,
                ],
                State::MfuGhost => [
                    &mut a.mfu_ghost_size,
                    &mut a.mfu_ghost_data,
                    &mut a.mfu_ghost_metadata,
                    &mut a.mfu_ghost_evictable_data,
                    &mut a.mfu_ghost_evictable_metadata,
                ],
                State::Uncached => [
                    &mut a.uncached_size,
                    &mut a.uncached_data,
                    &mut a.uncached_metadata,
                    &mut a.uncached_evictable_data,
                    &mut a.uncached_evictable_metadata,
                ],
            };
            for (slot, val) in f.into_iter().zip(v) {
                *slot = val;
            }
        }
        a
    }
}
