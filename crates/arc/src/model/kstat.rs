//! Rendering of [`ArcStats`] as the Linux `/proc/spl/kstat/zfs/arcstats`
//! text (spec §11.1), in the field order and field set of the release.
//!
//! Orders were read from the `arc_stats` initialisers of the release tags:
//! [`LEGACY`] is 2.1.16's (plus 0.7's `sync_wait_for_async`), filtered by the
//! fields each older release had; [`MODERN`] is HEAD's (2.2.0 has the same
//! order without `l2_ndev`).

use std::fmt::Write as _;

use super::behaviour::Behaviour;
use super::stats::ArcStats;
use crate::limits::Release;

/// Bytes per `kstat_named_t` on 64-bit Linux (the header's data size).
const NAMED_BYTES: usize = 272;

pub(super) const LEGACY: &[&str] = &[
    "hits",
    "misses",
    "demand_data_hits",
    "demand_data_misses",
    "demand_metadata_hits",
    "demand_metadata_misses",
    "prefetch_data_hits",
    "prefetch_data_misses",
    "prefetch_metadata_hits",
    "prefetch_metadata_misses",
    "mru_hits",
    "mru_ghost_hits",
    "mfu_hits",
    "mfu_ghost_hits",
    "deleted",
    "mutex_miss",
    "access_skip",
    "evict_skip",
    "evict_not_enough",
    "evict_l2_cached",
    "evict_l2_eligible",
    "evict_l2_eligible_mfu",
    "evict_l2_eligible_mru",
    "evict_l2_ineligible",
    "evict_l2_skip",
    "hash_elements",
    "hash_elements_max",
    "hash_collisions",
    "hash_chains",
    "hash_chain_max",
    "p",
    "c",
    "c_min",
    "c_max",
    "size",
    "compressed_size",
    "uncompressed_size",
    "overhead_size",
    "hdr_size",
    "data_size",
    "metadata_size",
    "dbuf_size",
    "dnode_size",
    "bonus_size",
    "anon_size",
    "anon_evictable_data",
    "anon_evictable_metadata",
    "mru_size",
    "mru_evictable_data",
    "mru_evictable_metadata",
    "mru_ghost_size",
    "mru_ghost_evictable_data",
    "mru_ghost_evictable_metadata",
    "mfu_size",
    "mfu_evictable_data",
    "mfu_evictable_metadata",
    "mfu_ghost_size",
    "mfu_ghost_evictable_data",
    "mfu_ghost_evictable_metadata",
    "l2_hits",
    "l2_misses",
    "l2_prefetch_asize",
    "l2_mru_asize",
    "l2_mfu_asize",
    "l2_bufc_data_asize",
    "l2_bufc_metadata_asize",
    "l2_feeds",
    "l2_rw_clash",
    "l2_read_bytes",
    "l2_write_bytes",
    "l2_writes_sent",
    "l2_writes_done",
    "l2_writes_error",
    "l2_writes_lock_retry",
    "l2_evict_lock_retry",
    "l2_evict_reading",
    "l2_evict_l1cached",
    "l2_free_on_write",
    "l2_abort_lowmem",
    "l2_cksum_bad",
    "l2_io_error",
    "l2_size",
    "l2_asize",
    "l2_hdr_size",
    "l2_log_blk_writes",
    "l2_log_blk_avg_asize",
    "l2_log_blk_asize",
    "l2_log_blk_count",
    "l2_data_to_meta_ratio",
    "l2_rebuild_success",
    "l2_rebuild_unsupported",
    "l2_rebuild_io_errors",
    "l2_rebuild_dh_errors",
    "l2_rebuild_cksum_lb_errors",
    "l2_rebuild_lowmem",
    "l2_rebuild_size",
    "l2_rebuild_asize",
    "l2_rebuild_bufs",
    "l2_rebuild_bufs_precached",
    "l2_rebuild_log_blks",
    "memory_throttle_count",
    "memory_direct_count",
    "memory_indirect_count",
    "memory_all_bytes",
    "memory_free_bytes",
    "memory_available_bytes",
    "arc_no_grow",
    "arc_tempreserve",
    "arc_loaned_bytes",
    "arc_prune",
    "arc_meta_used",
    "arc_meta_limit",
    "arc_dnode_limit",
    "arc_meta_max",
    "arc_meta_min",
    "sync_wait_for_async",
    "async_upgrade_sync",
    "demand_hit_predictive_prefetch",
    "demand_hit_prescient_prefetch",
    "arc_need_free",
    "arc_sys_free",
    "arc_raw_size",
    "cached_only_in_progress",
    "abd_chunk_waste_size",
];
pub(super) const MODERN: &[&str] = &[
    "hits",
    "iohits",
    "misses",
    "demand_data_hits",
    "demand_data_iohits",
    "demand_data_misses",
    "demand_metadata_hits",
    "demand_metadata_iohits",
    "demand_metadata_misses",
    "prefetch_data_hits",
    "prefetch_data_iohits",
    "prefetch_data_misses",
    "prefetch_metadata_hits",
    "prefetch_metadata_iohits",
    "prefetch_metadata_misses",
    "mru_hits",
    "mru_ghost_hits",
    "mfu_hits",
    "mfu_ghost_hits",
    "uncached_hits",
    "deleted",
    "mutex_miss",
    "access_skip",
    "evict_skip",
    "evict_not_enough",
    "evict_l2_cached",
    "evict_l2_eligible",
    "evict_l2_eligible_mfu",
    "evict_l2_eligible_mru",
    "evict_l2_ineligible",
    "evict_l2_skip",
    "hash_elements",
    "hash_elements_max",
    "hash_collisions",
    "hash_chains",
    "hash_chain_max",
    "meta",
    "pd",
    "pm",
    "c",
    "c_min",
    "c_max",
    "size",
    "compressed_size",
    "uncompressed_size",
    "overhead_size",
    "hdr_size",
    "data_size",
    "metadata_size",
    "dbuf_size",
    "dnode_size",
    "bonus_size",
    "anon_size",
    "anon_data",
    "anon_metadata",
    "anon_evictable_data",
    "anon_evictable_metadata",
    "mru_size",
    "mru_data",
    "mru_metadata",
    "mru_evictable_data",
    "mru_evictable_metadata",
    "mru_ghost_size",
    "mru_ghost_data",
    "mru_ghost_metadata",
    "mru_ghost_evictable_data",
    "mru_ghost_evictable_metadata",
    "mfu_size",
    "mfu_data",
    "mfu_metadata",
    "mfu_evictable_data",
    "mfu_evictable_metadata",
    "mfu_ghost_size",
    "mfu_ghost_data",
    "mfu_ghost_metadata",
    "mfu_ghost_evictable_data",
    "mfu_ghost_evictable_metadata",
    "uncached_size",
    "uncached_data",
    "uncached_metadata",
    "uncached_evictable_data",
    "uncached_evictable_metadata",
    "l2_ndev",
    "l2_hits",
    "l2_misses",
    "l2_prefetch_asize",
    "l2_mru_asize",
    "l2_mfu_asize",
    "l2_bufc_data_asize",
    "l2_bufc_metadata_asize",
    "l2_feeds",
    "l2_rw_clash",
    "l2_read_bytes",
    "l2_write_bytes",
    "l2_writes_sent",
    "l2_writes_done",
    "l2_writes_error",
    "l2_writes_lock_retry",
    "l2_evict_lock_retry",
    "l2_evict_reading",
    "l2_evict_l1cached",
    "l2_free_on_write",
    "l2_abort_lowmem",
    "l2_cksum_bad",
    "l2_io_error",
    "l2_size",
    "l2_asize",
    "l2_hdr_size",
    "l2_log_blk_writes",
    "l2_log_blk_avg_asize",
    "l2_log_blk_asize",
    "l2_log_blk_count",
    "l2_data_to_meta_ratio",
    "l2_rebuild_success",
    "l2_rebuild_unsupported",
    "l2_rebuild_io_errors",
    "l2_rebuild_dh_errors",
    "l2_rebuild_cksum_lb_errors",
    "l2_rebuild_lowmem",
    "l2_rebuild_size",
    "l2_rebuild_asize",
    "l2_rebuild_bufs",
    "l2_rebuild_bufs_precached",
    "l2_rebuild_log_blks",
    "memory_throttle_count",
    "memory_direct_count",
    "memory_indirect_count",
    "memory_all_bytes",
    "memory_free_bytes",
    "memory_available_bytes",
    "arc_no_grow",
    "arc_tempreserve",
    "arc_loaned_bytes",
    "arc_prune",
    "arc_meta_used",
    "arc_dnode_limit",
    "async_upgrade_sync",
    "predictive_prefetch",
    "demand_hit_predictive_prefetch",
    "demand_iohit_predictive_prefetch",
    "prescient_prefetch",
    "demand_hit_prescient_prefetch",
    "demand_iohit_prescient_prefetch",
    "arc_need_free",
    "arc_sys_free",
    "arc_raw_size",
    "cached_only_in_progress",
    "abd_chunk_waste_size",
];

fn r(a: u16, b: u16, c: u16) -> Release {
    Release::new(a, b, c)
}

/// Whether a field of [`LEGACY`] exists in `rel` (0.7.0 – 2.1.x).
fn legacy_has(name: &str, rel: Release) -> bool {
    match name {
        "access_skip" => rel >= r(0, 7, 6),
        "memory_all_bytes" | "memory_free_bytes" | "memory_available_bytes" => rel >= r(0, 7, 3),
        "sync_wait_for_async" => rel < r(0, 8, 0),
        "async_upgrade_sync" | "demand_hit_prescient_prefetch" | "arc_raw_size" => {
            rel >= r(0, 8, 0)
        }
        "cached_only_in_progress" | "abd_chunk_waste_size" => rel >= r(2, 0, 0),
        n if n.starts_with("l2_log_blk")
            || n.starts_with("l2_rebuild")
            || n == "l2_data_to_meta_ratio" =>
        {
            rel >= r(2, 0, 0)
        }
        "evict_l2_eligible_mfu"
        | "evict_l2_eligible_mru"
        | "l2_prefetch_asize"
        | "l2_mru_asize"
        | "l2_mfu_asize"
        | "l2_bufc_data_asize"
        | "l2_bufc_metadata_asize" => rel >= r(2, 1, 0),
        _ => true,
    }
}

/// The arcstats field names of the behaviour's release, in file order
/// (Linux; ZoL 0.6.x is rendered with the 0.7.0 set).
pub fn field_names(b: &Behaviour) -> Vec<&'static str> {
    if b.access_2_2 {
        MODERN
            .iter()
            .copied()
            .filter(|&n| n != "l2_ndev" || b.l2_ndev)
            .collect()
    } else {
        let rel = b.release.max(r(0, 7, 0));
        LEGACY
            .iter()
            .copied()
            .filter(|n| legacy_has(n, rel))
            .collect()
    }
}

/// Render `stats` as `/proc/spl/kstat/zfs/arcstats` text for release `b`.
/// `crtime`/`snaptime` of the header are 0 and the model time; `kid` is 0.
pub fn render_arcstats(stats: &ArcStats, b: &Behaviour) -> String {
    let names = field_names(b);
    let mut out = String::with_capacity(names.len() * 48 + 64);
    let _ = writeln!(
        out,
        "0 1 0x01 {} {} 0 {}",
        names.len(),
        names.len() * NAMED_BYTES,
        stats.model.time_ns
    );
    let _ = writeln!(out, "{:<31} {:<4} data", "name", "type");
    for n in names {
        let v = stats.get(n).unwrap_or(0);
        let ty = if n == "memory_available_bytes" { 3 } else { 4 };
        let _ = writeln!(out, "{n:<31} {ty:<4} {v}");
    }
    out
}
