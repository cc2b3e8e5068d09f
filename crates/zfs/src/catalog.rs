//! The arcstats field catalogue: for every name ZFS on Linux 0.6 through
//! OpenZFS 2.4 (and master) ever exported in `arcstats`, whether it is a
//! counter, a gauge or a high-water mark, its unit, a short description, and
//! the releases that have it (spec `zfs-arc.md` §11.2; release boundaries read
//! from the `arc_stats` initialiser of each OpenZFS release tag).
//!
//! ```
//! use arclab_zfs::catalog::{field, Kind, Unit};
//! let f = field("memory_throttle_count").unwrap();
//! assert_eq!((f.kind, f.unit), (Kind::Counter, Unit::Events));
//! assert_eq!(field("size").unwrap().kind, Kind::Gauge);
//! assert!(field("no_such_field").is_none());
//! ```

use arclab_arc::limits::Release;

/// How a value behaves over time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Kind {
    /// Cumulative since module load (or pool import for L2ARC rebuild stats);
    /// only a difference between two snapshots means something.
    Counter,
    /// Instantaneous value (sizes, targets, limits).
    Gauge,
    /// Largest value seen since module load; never decreases.
    HighWater,
}

/// The unit of a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Unit {
    /// Bytes.
    Bytes,
    /// Number of events.
    Events,
    /// Number of things (headers, buckets, devices, blocks).
    Items,
    /// Unsigned 32-bit fixed point fraction: value / 2^32.
    Fraction32,
    /// A plain ratio.
    Ratio,
    /// 0 or 1.
    Flag,
}

/// What the catalogue knows about one arcstats field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldInfo {
    /// Field name as in the kstat.
    pub name: &'static str,
    /// Counter, gauge or high-water mark.
    pub kind: Kind,
    /// Unit of the value.
    pub unit: Unit,
    /// First release that exports it.
    pub added: Release,
    /// First release that no longer exports it, if any.
    pub removed: Option<Release>,
    /// Short description.
    pub description: &'static str,
}

impl FieldInfo {
    /// Whether the Linux `arcstats` of `release` has this field
    /// (`other_size` and `l2_ndev` follow special rules, see [`field_in`]).
    pub fn in_release(&self, release: Release) -> bool {
        release >= self.added && self.removed.is_none_or(|r| release < r)
    }
}

/// Whether the kernel declares `name` signed (`KSTAT_DATA_INT64`): of the
/// arcstats, zfetchstats and dbufstats fields only `memory_available_bytes`
/// (free memory minus the reserve, negative under pressure); every other
/// field is an unsigned counter or size.
pub fn is_signed(name: &str) -> bool {
    name == "memory_available_bytes"
}

/// Whether `name` exists in `release`'s arcstats on Linux (`freebsd = false`)
/// or FreeBSD. Handles the two irregular fields: `other_size` (ZoL 0.6.x on
/// Linux; FreeBSD OpenZFS from 2.0) and `l2_ndev` (2.3.8+ and 2.4.3+, not
/// 2.4.0–2.4.2).
pub fn field_in(name: &str, release: Release, freebsd: bool) -> bool {
    match name {
        "other_size" if freebsd => release.major >= 2,
        "l2_ndev" => {
            release >= Release::new(2, 4, 3)
                || (release >= Release::new(2, 3, 8) && release < Release::new(2, 4, 0))
        }
        _ => field(name).is_some_and(|f| f.in_release(release)),
    }
}

/// Look a field up by name.
pub fn field(name: &str) -> Option<&'static FieldInfo> {
    FIELDS.iter().find(|f| f.name == name)
}

/// Every catalogued field, in first-appearance order (kstat order within a release).
pub fn all() -> &'static [FieldInfo] {
    FIELDS
}

const fn f(
    name: &'static str,
    kind: Kind,
    unit: Unit,
    added: Release,
    removed: Option<Release>,
    description: &'static str,
) -> FieldInfo {
    FieldInfo {
        name,
        kind,
        unit,
        added,
        removed,
        description,
    }
}

use Kind::*;
use Unit::*;

#[rustfmt::skip]
static FIELDS: &[FieldInfo] = &[
    f("hits", Counter, Events, Release::new(0, 6, 0), None, "reads served from the ARC (includes dbuf-cache hits via arc_buf_access)"),
    f("misses", Counter, Events, Release::new(0, 6, 0), None, "reads that had to issue I/O"),
    f("demand_data_hits", Counter, Events, Release::new(0, 6, 0), None, "demand data hits"),
    f("demand_data_misses", Counter, Events, Release::new(0, 6, 0), None, "demand data misses"),
    f("demand_metadata_hits", Counter, Events, Release::new(0, 6, 0), None, "demand metadata hits"),
    f("demand_metadata_misses", Counter, Events, Release::new(0, 6, 0), None, "demand metadata misses"),
    f("prefetch_data_hits", Counter, Events, Release::new(0, 6, 0), None, "prefetch data hits"),
    f("prefetch_data_misses", Counter, Events, Release::new(0, 6, 0), None, "prefetch data misses"),
    f("prefetch_metadata_hits", Counter, Events, Release::new(0, 6, 0), None, "prefetch metadata hits"),
    f("prefetch_metadata_misses", Counter, Events, Release::new(0, 6, 0), None, "prefetch metadata misses"),
    f("mru_hits", Counter, Events, Release::new(0, 6, 0), None, "hits on a header in the MRU state"),
    f("mru_ghost_hits", Counter, Events, Release::new(0, 6, 0), None, "misses that found an MRU ghost header (adaptation signal)"),
    f("mfu_hits", Counter, Events, Release::new(0, 6, 0), None, "hits on a header in the MFU state"),
    f("mfu_ghost_hits", Counter, Events, Release::new(0, 6, 0), None, "misses that found an MFU ghost header (adaptation signal)"),
    f("deleted", Counter, Events, Release::new(0, 6, 0), None, "ghost headers removed (destroyed or turned L2-only)"),
    f("recycle_miss", Counter, Events, Release::new(0, 6, 0), Some(Release::new(0, 6, 5)), "allocations that could not recycle an evicted buffer (0.6.4 and older)"),
    f("mutex_miss", Counter, Events, Release::new(0, 6, 0), None, "headers skipped by eviction because their hash lock was busy"),
    f("evict_skip", Counter, Events, Release::new(0, 6, 0), None, "headers skipped during eviction (young prefetch, other pool, ...)"),
    f("evict_l2_cached", Counter, Bytes, Release::new(0, 6, 0), None, "evicted bytes that also have an L2ARC copy"),
    f("evict_l2_eligible", Counter, Bytes, Release::new(0, 6, 0), None, "evicted bytes without L2 copy but L2-eligible"),
    f("evict_l2_ineligible", Counter, Bytes, Release::new(0, 6, 0), None, "evicted bytes not eligible for L2ARC"),
    f("hash_elements", Gauge, Items, Release::new(0, 6, 0), None, "headers in the hash table"),
    f("hash_elements_max", HighWater, Items, Release::new(0, 6, 0), None, "high-water mark of hash_elements (<= 2.2.x; 2.3.0+ reports hash_elements again)"),
    f("hash_collisions", Counter, Events, Release::new(0, 6, 0), None, "inserts into a non-empty hash bucket"),
    f("hash_chains", Gauge, Items, Release::new(0, 6, 0), None, "hash buckets holding two or more headers"),
    f("hash_chain_max", HighWater, Items, Release::new(0, 6, 0), None, "longest chain seen minus one (entries already in the bucket at insert)"),
    f("p", Gauge, Bytes, Release::new(0, 6, 0), Some(Release::new(2, 2, 0)), "MRU target in bytes (removed in 2.2)"),
    f("c", Gauge, Bytes, Release::new(0, 6, 0), None, "current ARC target size"),
    f("c_min", Gauge, Bytes, Release::new(0, 6, 0), None, "lower limit of the target (arc_c_min)"),
    f("c_max", Gauge, Bytes, Release::new(0, 6, 0), None, "upper limit of the target (arc_c_max, zfs_arc_max)"),
    f("size", Gauge, Bytes, Release::new(0, 6, 0), None, "total ARC footprint"),
    f("hdr_size", Gauge, Bytes, Release::new(0, 6, 0), None, "arc_buf_hdr_t and arc_buf_t structures (including ghosts)"),
    f("data_size", Gauge, Bytes, Release::new(0, 6, 0), None, "buffer bytes holding file data"),
    f("meta_size", Gauge, Bytes, Release::new(0, 6, 0), Some(Release::new(0, 6, 5)), "buffer bytes holding metadata (0.6.4 and older; later metadata_size)"),
    f("other_size", Gauge, Bytes, Release::new(0, 6, 0), Some(Release::new(0, 7, 0)), "dbuf + dnode + bonus (ZoL 0.6.x; FreeBSD OpenZFS only from 2.0)"),
    f("anon_size", Gauge, Bytes, Release::new(0, 6, 0), None, "bytes of anonymous (dirty, not yet written) buffers"),
    f("anon_evict_data", Gauge, Bytes, Release::new(0, 6, 0), Some(Release::new(0, 6, 5)), "evictable data bytes in anon (0.6.4 and older)"),
    f("anon_evict_metadata", Gauge, Bytes, Release::new(0, 6, 0), Some(Release::new(0, 6, 5)), "evictable metadata bytes in anon (0.6.4 and older)"),
    f("mru_size", Gauge, Bytes, Release::new(0, 6, 0), None, "bytes resident in MRU"),
    f("mru_evict_data", Gauge, Bytes, Release::new(0, 6, 0), Some(Release::new(0, 6, 5)), "evictable data bytes in mru (0.6.4 and older)"),
    f("mru_evict_metadata", Gauge, Bytes, Release::new(0, 6, 0), Some(Release::new(0, 6, 5)), "evictable metadata bytes in mru (0.6.4 and older)"),
    f("mru_ghost_size", Gauge, Bytes, Release::new(0, 6, 0), None, "MRU ghost list (logical bytes, no RAM)"),
    f("mru_ghost_evict_data", Gauge, Bytes, Release::new(0, 6, 0), Some(Release::new(0, 6, 5)), "evictable data bytes in mru ghost (0.6.4 and older)"),
    f("mru_ghost_evict_metadata", Gauge, Bytes, Release::new(0, 6, 0), Some(Release::new(0, 6, 5)), "evictable metadata bytes in mru ghost (0.6.4 and older)"),
    f("mfu_size", Gauge, Bytes, Release::new(0, 6, 0), None, "bytes resident in MFU"),
    f("mfu_evict_data", Gauge, Bytes, Release::new(0, 6, 0), Some(Release::new(0, 6, 5)), "evictable data bytes in mfu (0.6.4 and older)"),
    f("mfu_evict_metadata", Gauge, Bytes, Release::new(0, 6, 0), Some(Release::new(0, 6, 5)), "evictable metadata bytes in mfu (0.6.4 and older)"),
    f("mfu_ghost_size", Gauge, Bytes, Release::new(0, 6, 0), None, "MFU ghost list (logical bytes, no RAM)"),
    f("mfu_ghost_evict_data", Gauge, Bytes, Release::new(0, 6, 0), Some(Release::new(0, 6, 5)), "evictable data bytes in mfu ghost (0.6.4 and older)"),
    f("mfu_ghost_evict_metadata", Gauge, Bytes, Release::new(0, 6, 0), Some(Release::new(0, 6, 5)), "evictable metadata bytes in mfu ghost (0.6.4 and older)"),
    f("l2_hits", Counter, Events, Release::new(0, 6, 0), None, "reads served from L2ARC"),
    f("l2_misses", Counter, Events, Release::new(0, 6, 0), None, "ARC misses that also missed L2ARC"),
    f("l2_feeds", Counter, Events, Release::new(0, 6, 0), None, "L2ARC feed thread cycles"),
    f("l2_rw_clash", Counter, Events, Release::new(0, 6, 0), None, "reads that hit a block being written to L2ARC"),
    f("l2_read_bytes", Counter, Bytes, Release::new(0, 6, 0), None, "bytes read from L2ARC"),
    f("l2_write_bytes", Counter, Bytes, Release::new(0, 6, 0), None, "bytes written to L2ARC"),
    f("l2_writes_sent", Counter, Events, Release::new(0, 6, 0), None, "L2ARC write batches issued"),
    f("l2_writes_done", Counter, Events, Release::new(0, 6, 0), None, "L2ARC write batches completed"),
    f("l2_writes_error", Counter, Events, Release::new(0, 6, 0), None, "L2ARC write batches that failed"),
    f("l2_writes_hdr_miss", Counter, Events, Release::new(0, 6, 0), Some(Release::new(0, 6, 5)), "L2ARC write completions that missed the header (0.6.4 and older)"),
    f("l2_evict_lock_retry", Counter, Events, Release::new(0, 6, 0), None, "L2ARC evictions that retried a lock"),
    f("l2_evict_reading", Counter, Events, Release::new(0, 6, 0), None, "L2ARC evictions that hit a block being read"),
    f("l2_free_on_write", Counter, Events, Release::new(0, 6, 0), None, "buffers freed while being written to L2ARC"),
    f("l2_cdata_free_on_write", Counter, Events, Release::new(0, 6, 0), Some(Release::new(0, 7, 0)), "compressed L2 buffers freed while being written (0.6.x)"),
    f("l2_abort_lowmem", Counter, Events, Release::new(0, 6, 0), None, "L2ARC feeds aborted for low memory"),
    f("l2_cksum_bad", Counter, Events, Release::new(0, 6, 0), None, "L2ARC reads with a bad checksum"),
    f("l2_io_error", Counter, Events, Release::new(0, 6, 0), None, "L2ARC read I/O errors"),
    f("l2_size", Gauge, Bytes, Release::new(0, 6, 0), None, "logical bytes cached on L2ARC"),
    f("l2_asize", Gauge, Bytes, Release::new(0, 6, 0), None, "allocated bytes on L2ARC"),
    f("l2_hdr_size", Gauge, Bytes, Release::new(0, 6, 0), None, "RAM used by L2-only headers"),
    f("l2_compress_successes", Counter, Events, Release::new(0, 6, 0), Some(Release::new(0, 7, 0)), "L2ARC buffers compressed (0.6.x)"),
    f("l2_compress_zeros", Counter, Events, Release::new(0, 6, 0), Some(Release::new(0, 7, 0)), "L2ARC buffers that compressed to zero (0.6.x)"),
    f("l2_compress_failures", Counter, Events, Release::new(0, 6, 0), Some(Release::new(0, 7, 0)), "L2ARC buffers that did not compress (0.6.x)"),
    f("memory_throttle_count", Counter, Events, Release::new(0, 6, 0), None, "dirty-data reservations delayed for low memory"),
    f("duplicate_buffers", Gauge, Items, Release::new(0, 6, 0), Some(Release::new(0, 7, 0)), "duplicate buffers held (0.6.x)"),
    f("duplicate_buffers_size", Gauge, Bytes, Release::new(0, 6, 0), Some(Release::new(0, 7, 0)), "bytes in duplicate buffers (0.6.x)"),
    f("duplicate_reads", Counter, Events, Release::new(0, 6, 0), Some(Release::new(0, 7, 0)), "reads that created a duplicate buffer (0.6.x)"),
    f("memory_direct_count", Counter, Events, Release::new(0, 6, 0), None, "reclaim callbacks from direct reclaim"),
    f("memory_indirect_count", Counter, Events, Release::new(0, 6, 0), None, "reclaim callbacks from kswapd / pagedaemon"),
    f("arc_no_grow", Gauge, Flag, Release::new(0, 6, 0), None, "1 while the ARC is not allowed to grow"),
    f("arc_tempreserve", Gauge, Bytes, Release::new(0, 6, 0), None, "bytes reserved by open transaction groups"),
    f("arc_loaned_bytes", Gauge, Bytes, Release::new(0, 6, 0), None, "bytes loaned to consumers"),
    f("arc_prune", Counter, Events, Release::new(0, 6, 0), None, "prune callbacks dispatched"),
    f("arc_meta_used", Gauge, Bytes, Release::new(0, 6, 0), None, "metadata bytes (headers, metadata buffers, dbuf/dnode/bonus)"),
    f("arc_meta_limit", Gauge, Bytes, Release::new(0, 6, 0), Some(Release::new(2, 2, 0)), "metadata limit, 75 % of c_max by default (removed in 2.2)"),
    f("arc_meta_max", HighWater, Bytes, Release::new(0, 6, 0), Some(Release::new(2, 2, 0)), "high-water mark of arc_meta_used (removed in 2.2)"),
    f("evict_not_enough", Counter, Events, Release::new(0, 6, 5), None, "eviction passes that could not reach their byte goal"),
    f("evict_l2_skip", Counter, Events, Release::new(0, 6, 5), None, "ghost headers kept because an L2 write was in progress"),
    f("metadata_size", Gauge, Bytes, Release::new(0, 6, 5), None, "buffer bytes holding metadata"),
    f("anon_evictable_data", Gauge, Bytes, Release::new(0, 6, 5), None, "evictable data bytes in anon"),
    f("anon_evictable_metadata", Gauge, Bytes, Release::new(0, 6, 5), None, "evictable metadata bytes in anon"),
    f("mru_evictable_data", Gauge, Bytes, Release::new(0, 6, 5), None, "evictable data bytes in mru"),
    f("mru_evictable_metadata", Gauge, Bytes, Release::new(0, 6, 5), None, "evictable metadata bytes in mru"),
    f("mru_ghost_evictable_data", Gauge, Bytes, Release::new(0, 6, 5), None, "evictable data bytes in mru ghost"),
    f("mru_ghost_evictable_metadata", Gauge, Bytes, Release::new(0, 6, 5), None, "evictable metadata bytes in mru ghost"),
    f("mfu_evictable_data", Gauge, Bytes, Release::new(0, 6, 5), None, "evictable data bytes in mfu"),
    f("mfu_evictable_metadata", Gauge, Bytes, Release::new(0, 6, 5), None, "evictable metadata bytes in mfu"),
    f("mfu_ghost_evictable_data", Gauge, Bytes, Release::new(0, 6, 5), None, "evictable data bytes in mfu ghost"),
    f("mfu_ghost_evictable_metadata", Gauge, Bytes, Release::new(0, 6, 5), None, "evictable metadata bytes in mfu ghost"),
    f("l2_writes_lock_retry", Counter, Events, Release::new(0, 6, 5), None, "L2ARC write completions that retried a lock"),
    f("l2_evict_l1cached", Counter, Events, Release::new(0, 6, 5), None, "L2ARC evictions of blocks still in the ARC"),
    f("arc_meta_min", Gauge, Bytes, Release::new(0, 6, 5), Some(Release::new(2, 2, 0)), "metadata floor, 16 MiB by default (0.6.5-2.1)"),
    f("arc_need_free", Gauge, Bytes, Release::new(0, 6, 5), None, "bytes eviction still owes waiters"),
    f("arc_sys_free", Gauge, Bytes, Release::new(0, 6, 5), None, "memory the ARC leaves free for the system"),
    f("compressed_size", Gauge, Bytes, Release::new(0, 7, 0), None, "header-owned physical buffers (b_pabd and raw copies)"),
    f("uncompressed_size", Gauge, Bytes, Release::new(0, 7, 0), None, "logical size of the blocks in compressed_size"),
    f("overhead_size", Gauge, Bytes, Release::new(0, 7, 0), None, "consumer arc_buf_t copies not shared with the header"),
    f("dbuf_size", Gauge, Bytes, Release::new(0, 7, 0), None, "dmu_buf_impl_t structures charged to the ARC"),
    f("dnode_size", Gauge, Bytes, Release::new(0, 7, 0), None, "dnode_t structures charged to the ARC"),
    f("bonus_size", Gauge, Bytes, Release::new(0, 7, 0), None, "bonus buffers charged to the ARC"),
    f("arc_dnode_limit", Gauge, Bytes, Release::new(0, 7, 0), None, "dnode memory limit (10 % of c_max in 2.2+, of arc_meta_limit before)"),
    f("sync_wait_for_async", Counter, Events, Release::new(0, 7, 0), Some(Release::new(0, 8, 0)), "sync reads that waited for an async read (0.7.x)"),
    f("demand_hit_predictive_prefetch", Counter, Events, Release::new(0, 7, 0), None, "demand hits on blocks brought in by predictive prefetch"),
    f("access_skip", Counter, Events, Release::new(0, 7, 6), None, "arc_buf_access found the header already released"),
    f("memory_all_bytes", Gauge, Bytes, Release::new(0, 7, 3), None, "allmem: all memory the ARC may consider (0.7.3+)"),
    f("memory_free_bytes", Gauge, Bytes, Release::new(0, 7, 3), None, "free memory as the ARC sees it (0.7.3+)"),
    f("memory_available_bytes", Gauge, Bytes, Release::new(0, 7, 3), None, "free minus arc_sys_free / free_target; signed int64 (0.7.3+)"),
    f("async_upgrade_sync", Counter, Events, Release::new(0, 8, 0), None, "sync reads that upgraded an in-flight async read"),
    f("demand_hit_prescient_prefetch", Counter, Events, Release::new(0, 8, 0), None, "demand hits on blocks brought in by prescient prefetch"),
    f("arc_raw_size", Gauge, Bytes, Release::new(0, 8, 0), None, "bytes of raw (encrypted) buffer copies"),
    f("l2_log_blk_writes", Counter, Events, Release::new(2, 0, 0), None, "persistent-L2ARC log blocks written"),
    f("l2_log_blk_avg_asize", Gauge, Bytes, Release::new(2, 0, 0), None, "average allocated size of L2ARC log blocks"),
    f("l2_log_blk_asize", Gauge, Bytes, Release::new(2, 0, 0), None, "allocated bytes of L2ARC log blocks"),
    f("l2_log_blk_count", Gauge, Items, Release::new(2, 0, 0), None, "L2ARC log blocks on the devices"),
    f("l2_data_to_meta_ratio", Gauge, Ratio, Release::new(2, 0, 0), None, "L2ARC data bytes per byte of log-block metadata"),
    f("l2_rebuild_success", Counter, Events, Release::new(2, 0, 0), None, "successful L2ARC rebuilds"),
    f("l2_rebuild_unsupported", Counter, Events, Release::new(2, 0, 0), None, "L2ARC rebuilds skipped (unsupported device header)"),
    f("l2_rebuild_io_errors", Counter, Events, Release::new(2, 0, 0), None, "L2ARC rebuilds stopped by I/O errors"),
    f("l2_rebuild_dh_errors", Counter, Events, Release::new(2, 0, 0), None, "L2ARC rebuilds stopped by a bad device header"),
    f("l2_rebuild_cksum_lb_errors", Counter, Events, Release::new(2, 0, 0), None, "L2ARC log blocks with a bad checksum during rebuild"),
    f("l2_rebuild_lowmem", Counter, Events, Release::new(2, 0, 0), None, "L2ARC rebuilds stopped for low memory"),
    f("l2_rebuild_size", Counter, Bytes, Release::new(2, 0, 0), None, "logical bytes restored by L2ARC rebuilds"),
    f("l2_rebuild_asize", Counter, Bytes, Release::new(2, 0, 0), None, "allocated bytes restored by L2ARC rebuilds"),
    f("l2_rebuild_bufs", Counter, Items, Release::new(2, 0, 0), None, "buffers restored by L2ARC rebuilds"),
    f("l2_rebuild_bufs_precached", Counter, Items, Release::new(2, 0, 0), None, "rebuilt buffers already in the ARC"),
    f("l2_rebuild_log_blks", Counter, Items, Release::new(2, 0, 0), None, "log blocks read by L2ARC rebuilds"),
    f("cached_only_in_progress", Counter, Events, Release::new(2, 0, 0), None, "cached-only reads refused because I/O was in flight"),
    f("abd_chunk_waste_size", Gauge, Bytes, Release::new(2, 0, 0), None, "bytes wasted in ABD chunks"),
    f("evict_l2_eligible_mfu", Counter, Bytes, Release::new(2, 1, 0), None, "evict_l2_eligible bytes coming from MFU"),
    f("evict_l2_eligible_mru", Counter, Bytes, Release::new(2, 1, 0), None, "evict_l2_eligible bytes coming from MRU"),
    f("l2_prefetch_asize", Gauge, Bytes, Release::new(2, 1, 0), None, "L2ARC allocated bytes of prefetched buffers"),
    f("l2_mru_asize", Gauge, Bytes, Release::new(2, 1, 0), None, "L2ARC allocated bytes that came from MRU"),
    f("l2_mfu_asize", Gauge, Bytes, Release::new(2, 1, 0), None, "L2ARC allocated bytes that came from MFU"),
    f("l2_bufc_data_asize", Gauge, Bytes, Release::new(2, 1, 0), None, "L2ARC allocated bytes of data buffers"),
    f("l2_bufc_metadata_asize", Gauge, Bytes, Release::new(2, 1, 0), None, "L2ARC allocated bytes of metadata buffers"),
    f("iohits", Counter, Events, Release::new(2, 2, 0), None, "reads that found the block already being read (in flight)"),
    f("demand_data_iohits", Counter, Events, Release::new(2, 2, 0), None, "demand data reads found in flight"),
    f("demand_metadata_iohits", Counter, Events, Release::new(2, 2, 0), None, "demand metadata reads found in flight"),
    f("prefetch_data_iohits", Counter, Events, Release::new(2, 2, 0), None, "prefetch data reads found in flight"),
    f("prefetch_metadata_iohits", Counter, Events, Release::new(2, 2, 0), None, "prefetch metadata reads found in flight"),
    f("uncached_hits", Counter, Events, Release::new(2, 2, 0), None, "hits on headers in the uncached state"),
    f("meta", Gauge, Fraction32, Release::new(2, 2, 0), None, "metadata share of the evictable target, value/2^32 (2.2+)"),
    f("pd", Gauge, Fraction32, Release::new(2, 2, 0), None, "MRU share of data, value/2^32 (2.2+)"),
    f("pm", Gauge, Fraction32, Release::new(2, 2, 0), None, "MRU share of metadata, value/2^32 (2.2+)"),
    f("anon_data", Gauge, Bytes, Release::new(2, 2, 0), None, "anon bytes of data (2.2+)"),
    f("anon_metadata", Gauge, Bytes, Release::new(2, 2, 0), None, "anon bytes of metadata (2.2+)"),
    f("mru_data", Gauge, Bytes, Release::new(2, 2, 0), None, "mru bytes of data (2.2+)"),
    f("mru_metadata", Gauge, Bytes, Release::new(2, 2, 0), None, "mru bytes of metadata (2.2+)"),
    f("mru_ghost_data", Gauge, Bytes, Release::new(2, 2, 0), None, "mru ghost bytes of data (2.2+)"),
    f("mru_ghost_metadata", Gauge, Bytes, Release::new(2, 2, 0), None, "mru ghost bytes of metadata (2.2+)"),
    f("mfu_data", Gauge, Bytes, Release::new(2, 2, 0), None, "mfu bytes of data (2.2+)"),
    f("mfu_metadata", Gauge, Bytes, Release::new(2, 2, 0), None, "mfu bytes of metadata (2.2+)"),
    f("mfu_ghost_data", Gauge, Bytes, Release::new(2, 2, 0), None, "mfu ghost bytes of data (2.2+)"),
    f("mfu_ghost_metadata", Gauge, Bytes, Release::new(2, 2, 0), None, "mfu ghost bytes of metadata (2.2+)"),
    f("uncached_size", Gauge, Bytes, Release::new(2, 2, 0), None, "bytes resident in the uncached state"),
    f("uncached_data", Gauge, Bytes, Release::new(2, 2, 0), None, "uncached bytes of data (2.2+)"),
    f("uncached_metadata", Gauge, Bytes, Release::new(2, 2, 0), None, "uncached bytes of metadata (2.2+)"),
    f("uncached_evictable_data", Gauge, Bytes, Release::new(2, 2, 0), None, "evictable data bytes in uncached"),
    f("uncached_evictable_metadata", Gauge, Bytes, Release::new(2, 2, 0), None, "evictable metadata bytes in uncached"),
    f("predictive_prefetch", Counter, Events, Release::new(2, 2, 0), None, "predictive prefetch reads issued (2.2+)"),
    f("demand_iohit_predictive_prefetch", Counter, Events, Release::new(2, 2, 0), None, "demand reads that found a predictive prefetch in flight"),
    f("prescient_prefetch", Counter, Events, Release::new(2, 2, 0), None, "prescient prefetch reads issued (2.2+)"),
    f("demand_iohit_prescient_prefetch", Counter, Events, Release::new(2, 2, 0), None, "demand reads that found a prescient prefetch in flight"),
    f("l2_ndev", Gauge, Items, Release::new(2, 3, 8), None, "number of L2ARC devices (2.3.8+, 2.4.3+)"),
];
