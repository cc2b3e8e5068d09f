//! Version boundaries inside a release series (issue #11 items 3, 5, 6),
//! each checked against arithmetic from the OpenZFS source of the releases
//! named (openzfs/zfs tags, read with `git show zfs-X.Y.Z:path`).

use arclab_arc::model::{ArcCache, ArcConfig, Behaviour, GhostKind, Outcome, Tunables};
use arclab_arc::{LimitsInput, Os, Release, Request, ZfsVersion, block_key, limits_for_release};

const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;
const MS: u64 = 1_000_000;
const BLK: u32 = 128 << 10;

fn engine(rel: &str, ram: u64, f: impl FnOnce(&mut ArcConfig)) -> ArcCache {
    let mut cfg = ArcConfig::new(ram).with_behaviour(Behaviour::preset(rel).unwrap());
    // One sublist per list: eviction in exact LRU order, which the hand
    // arithmetic below follows ("the most recently evicted block").
    cfg.tunables.multilist_sublists = 1;
    f(&mut cfg);
    ArcCache::new(cfg)
}

/// Read `bytes` of distinct 128 KiB blocks of file 1, 10 µs apart from t = 0.
fn fill(a: &mut ArcCache, bytes: u64) -> u64 {
    read_file(a, 1, bytes, 0)
}

/// Read `bytes` of 128 KiB blocks of `file`, 10 µs apart from `t0`; returns the end.
fn read_file(a: &mut ArcCache, file: u32, bytes: u64, t0: u64) -> u64 {
    let n = bytes / u64::from(BLK);
    for k in 0..n {
        a.access(&Request::read(t0 + k * 10_000, block_key(file, 0, k), BLK));
    }
    t0 + n * 10_000
}

/// Item 6: `arc_reap_cb` (module/zfs/arc.c) computes
/// `to_free = (arc_c >> arc_shrink_shift) - free_memory` in zfs-2.1.0 …
/// zfs-2.1.5, and `can_free = arc_c - arc_c_min; if (can_free > 0) to_free =
/// (can_free >> arc_shrink_shift) - free_memory` from zfs-2.1.6. Both then
/// call the 2.1 `arc_reduce_target_size`: `c = MIN(arc_c, arc_size)`, and if
/// `c > to_free && c - to_free > arc_c_min` then `arc_c = c - to_free`, else
/// `arc_c = arc_c_min`.
#[test]
fn reap_base_is_c_through_2_1_5_and_c_minus_c_min_from_2_1_6() {
    let mut steps = Vec::new();
    for rel in ["2.1.0", "2.1.5", "2.1.6", "2.1.16"] {
        let mut a = engine(rel, 4 * GIB, |c| c.host.kernel_reclaim = false);
        fill(&mut a, 3 * GIB / 2);
        a.advance_to(500 * MS);
        let s = a.stats();
        // Leave the other processes exactly what is free now: available =
        // −arc_sys_free at the first whole second.
        let free = 4 * GIB - s.size;
        a.set_other_demand(free);
        a.advance_to(999 * MS);
        let s0 = a.stats();
        assert!(s0.memory_available_bytes < 0, "{rel}");
        assert!(
            s0.c > s0.c_min + 256 * MIB,
            "{rel}: c must be well above c_min"
        );
        a.advance_to(1001 * MS);
        let c1 = a.stats().c;
        let (c0, cmin, avail) = (s0.c as i64, s0.c_min as i64, s0.memory_available_bytes);
        let to_free = if rel == "2.1.0" || rel == "2.1.5" {
            (c0 >> 7) - avail
        } else {
            ((c0 - cmin) >> 7) - avail
        };
        let c = c0.min(s0.size as i64);
        let want = if c > to_free && c - to_free > cmin {
            c - to_free
        } else {
            cmin
        };
        assert_eq!(c1 as i64, want, "{rel}: one reap step");
        steps.push(c0 - c1 as i64);
    }
    // The two rules differ by about c_min/128 (1 MiB of the 128 MiB c_min).
    assert!(steps[0] > steps[2] + 900 * 1024, "{steps:?}");
}

/// Item 5: in zfs-0.7.0 … zfs-0.8.5 `arc_get_data_impl(hdr, size, tag)`
/// calls `arc_adapt(size, hdr->b_l1hdr.b_state)` after `arc_access` has moved
/// a ghost header to MRU/MFU, so neither `arc_p` branch of `arc_adapt` runs
/// on a ghost hit. "Restore ARC MFU/MRU pressure" (zfs-0.8.6, commit
/// 033c788bd5; zfs-2.0.0) adapts with the ghost state again: an MRU ghost hit
/// gives `arc_p = MIN(arc_c - arc_p_min, arc_p + bytes * mult)`, `mult = 1`
/// when `mru_ghost ≥ mfu_ghost`, `arc_p_min = arc_c >> 4`.
#[test]
fn ghost_hits_move_arc_p_only_outside_0_7_0_to_0_8_5() {
    for (rel, moves) in [
        ("0.7.0", false),
        ("0.7.13", false),
        ("0.8.5", false),
        ("0.8.6", true),
        ("2.0.0", true),
        ("2.1.16", true),
    ] {
        let mut a = engine(rel, 4 * GIB, |_| {});
        // 1 GiB read twice (to MFU), then 2 GiB streamed through the
        // ≤ 2 GiB ARC: the streamed blocks evicted last are in mru_ghost.
        read_file(&mut a, 1, GIB, 0);
        read_file(&mut a, 1, GIB, 200 * MS);
        let n = 2 * GIB / u64::from(BLK);
        read_file(&mut a, 2, 2 * GIB, 400 * MS);
        a.advance_to(900 * MS);
        let s0 = a.stats();
        assert!(s0.mru_ghost_size > 0 && s0.mfu_ghost_size == 0, "{rel}");
        let last_evicted = n - s0.mru_size / u64::from(BLK) - 1;
        let out = a.access(&Request::read(900 * MS, block_key(2, 0, last_evicted), BLK));
        assert_eq!(
            out,
            Outcome::Miss {
                ghost: Some(GhostKind::Mru)
            },
            "{rel}"
        );
        let s1 = a.stats();
        let want = if moves {
            (s0.p + u64::from(BLK)).min(s0.c - (s0.c >> 4))
        } else {
            s0.p
        };
        assert_eq!(s1.p, want, "{rel}: arc_p after an MRU ghost hit");
        assert_eq!(s1.mru_ghost_hits, s0.mru_ghost_hits + 1);
    }
}

/// Item 6: `arc_init` in zfs-0.7.0 and zfs-0.7.1 sets `arc_c_min = 2ULL <<
/// SPA_MAXBLOCKSHIFT` (32 MiB) in the kernel; zfs-0.7.2 (commit 266b181e75,
/// "Increase default arc_c_min") sets `MAX(allmem / 32, 2ULL <<
/// SPA_MAXBLOCKSHIFT)`.
#[test]
fn c_min_is_32_mib_in_0_7_0_and_0_7_1() {
    let ram = 16 * GIB;
    let input = LimitsInput {
        ram_bytes: ram,
        os: Os::Linux,
        version: ZfsVersion::V0_7,
        arc_max: None,
        arc_min: None,
        linux_before_5_7: false,
    };
    for (rel, c_min) in [
        ((0, 7, 0), 32 * MIB),
        ((0, 7, 1), 32 * MIB),
        ((0, 7, 2), ram / 32),
        ((0, 8, 6), ram / 32),
    ] {
        let r = Release::new(rel.0, rel.1, rel.2);
        assert_eq!(limits_for_release(input, r).c_min_bytes, c_min, "{r}");
        let a = engine(&r.to_string(), ram, |_| {});
        assert_eq!(a.stats().c_min, c_min, "{r}: the engine's c_min");
    }
}

/// Kernel reclaim calls before the first reap tick (1 s) with the other
/// processes asking for all of RAM from 0.2 s on; the shrinker runs every
/// 100 ms.
fn shrinker(rel: &str, limit: Option<u64>) -> (u64, u64) {
    let mut a = engine(rel, 8 * GIB, |c| {
        if let Some(l) = limit {
            c.tunables.shrinker_limit_pages = l;
        }
    });
    let t = fill(&mut a, 2 * GIB);
    assert!(t < 200 * MS);
    a.advance_to(200 * MS);
    a.set_other_demand(8 * GIB);
    a.advance_to(950 * MS);
    let s = a.stats();
    (s.model.shrinker_pages, s.memory_direct_count)
}

/// Item 3: `zfs_arc_shrinker_limit` is 10000 in module/os/linux/zfs/arc_os.c
/// of zfs-2.0.0 … zfs-2.2.x and 0 from zfs-2.3.0; there is no such tunable
/// before 2.0. `arc_shrinker_count` returns `MIN(limit,
/// btop(arc_evictable_memory()))` (`limit = INT64_MAX` when 0). With 2 GiB
/// evictable the capped count is 10000 pages, and the modelled kernel scan
/// `nr = max((count >> priority) · 4 / seeks, min(128, count))` at
/// priorities 12, 11, …, 6 (7 calls at 0.3 … 0.9 s, seeks = 2) gives
/// 128 · 5 + 156 + 312 = 1108 pages (2.0–2.2.8 count `nr_to_scan`).
#[test]
fn shrinker_limit_defaults_to_10000_pages_in_2_0_to_2_2() {
    for rel in ["2.0.0", "2.1.16", "2.2.0", "2.2.4", "2.2.8"] {
        assert_eq!(shrinker(rel, None), (1108, 7), "{rel}");
        assert_eq!(shrinker(rel, Some(10_000)), (1108, 7), "{rel}");
        // Explicitly uncapped, the same pressure scans far more.
        assert!(shrinker(rel, Some(0)).0 > 4 * 1108, "{rel}");
    }
    for rel in ["0.8.6", "2.3.0", "2.3.9"] {
        assert_eq!(
            shrinker(rel, None),
            shrinker(rel, Some(0)),
            "{rel}: no cap by default"
        );
        assert_ne!(shrinker(rel, None), shrinker(rel, Some(10_000)), "{rel}");
    }
    assert_eq!(
        Tunables::default().shrinker_limit_pages,
        Tunables::RELEASE_DEFAULT
    );
}

/// Item 4: in 0.7.0 … 2.1.x a demand read of a prefetched MRU buffer first
/// takes a reference (`arc_buf_alloc_impl` → `add_reference`, refcount
/// 0 → 1, `arc_hdr_clear_flags(hdr, ARC_FLAG_PREFETCH)`), so `arc_access`
/// takes the ordinary MRU branch: `mru_hits++` and, once
/// `ddi_time_after(now, b_arc_access + ARC_MINTIME)`, MRU → MFU. A
/// prefetched stream read on demand 100 ms later therefore lands entirely
/// in MFU. From 2.2 `arc_access` gets the read's flags and a demand hit on a
/// prefetched MRU buffer only refreshes its access time (no MFU).
#[test]
fn demand_use_of_a_prefetched_stream_promotes_to_mfu_through_2_1() {
    let n = 64u64;
    for (rel, promoted) in [
        ("0.7.13", true),
        ("0.8.6", true),
        ("2.1.16", true),
        ("2.2.8", false),
        ("2.3", false),
    ] {
        let mut a = engine(rel, 16 * GIB, |_| {});
        for b in 0..n {
            let r = Request {
                prefetch: true,
                ..Request::read(b * 10_000, block_key(3, 0, b), BLK)
            };
            assert!(matches!(a.access(&r), Outcome::Miss { .. }), "{rel}");
        }
        for b in 0..n {
            let r = Request::read(100 * MS + b * 10_000, block_key(3, 0, b), BLK);
            assert_eq!(a.access(&r), Outcome::Hit, "{rel}");
        }
        let s = a.stats();
        let stream = n * u64::from(BLK);
        if promoted {
            assert_eq!((s.mfu_data, s.mru_data), (stream, 0), "{rel}");
        } else {
            assert_eq!((s.mfu_data, s.mru_data), (0, stream), "{rel}");
        }
        assert_eq!(s.mru_hits, n, "{rel}");
        // Every first demand use of a predictive prefetch is counted.
        assert_eq!(s.demand_hit_predictive_prefetch, n, "{rel}");
        assert_eq!(
            (s.demand_data_hits, s.prefetch_data_misses),
            (n, n),
            "{rel}"
        );
    }
}

/// Item 4, counting: a ≤ 2.1 ghost header evicted as an unused prefetch keeps
/// `ARC_FLAG_PREFETCH` through `arc_access` (no reference is taken before
/// the read completes), and `arc_read` counts the miss with
/// `ARCSTAT_CONDSTAT(!HDR_PREFETCH(hdr), demand, prefetch, …)`: a demand
/// read of it is a prefetch miss. 2.2+ count by the request's own flags.
#[test]
fn a_demand_miss_on_a_flagged_ghost_counts_as_a_prefetch_miss_through_2_1() {
    for (rel, legacy) in [("2.1.16", true), ("2.3", false)] {
        let mut a = engine(rel, 4 * GIB, |c| c.host.kernel_reclaim = false);
        // 256 MiB prefetched (never used); 1.5 GiB read twice (MFU); then
        // 2 GiB streamed on demand evict the prefetched blocks first.
        let np = 256 * MIB / u64::from(BLK);
        for b in 0..np {
            let r = Request {
                prefetch: true,
                ..Request::read(b * 10_000, block_key(4, 0, b), BLK)
            };
            a.access(&r);
        }
        read_file(&mut a, 5, 3 * GIB / 2, 2_000 * MS);
        read_file(&mut a, 5, 3 * GIB / 2, 4_000 * MS);
        let t = read_file(&mut a, 6, 2 * GIB, 6_000 * MS);
        let s0 = a.stats();
        // The most recently evicted prefetched block is still a ghost.
        let out = a.access(&Request::read(t + MS, block_key(4, 0, np - 1), BLK));
        assert!(
            matches!(out, Outcome::Miss { ghost: Some(_) }),
            "{rel}: {out:?}"
        );
        let s1 = a.stats();
        let (pf, dm) = (
            s1.prefetch_data_misses - s0.prefetch_data_misses,
            s1.demand_data_misses - s0.demand_data_misses,
        );
        assert_eq!((pf, dm), if legacy { (1, 0) } else { (0, 1) }, "{rel}");
    }
}

/// `arc_buf_access` (module/zfs/arc.c, zfs-0.8.0 … 2.1.x and 2.2+): a
/// consumer that holds a buffer touches it with `arc_access` and then one
/// `ARCSTAT_BUMP(arcstat_hits)` plus one `ARCSTAT_CONDSTAT(…, hits)`; none of
/// `arc_read`'s hit path runs (it does not count
/// `demand_hit_predictive_prefetch` nor clear the prefetch flags of a
/// referenced header). Ten touches of a held metadata block are ten demand
/// metadata hits in every release (the ≤ 2.1 path once counted each twice;
/// the oracle, real 2.1.16, counts 15,999 on 16,000 reads of one L1).
#[test]
fn each_buf_access_is_one_hit() {
    for rel in ["0.8.6", "2.1.16", "2.2.8", "2.3"] {
        let mut a = engine(rel, 16 * GIB, |_| {});
        let key = block_key(5, 1, 0);
        let r = Request {
            kind: arclab_arc::Kind::Metadata,
            ..Request::read(0, key, BLK)
        };
        assert!(matches!(a.access(&r), Outcome::Miss { .. }), "{rel}");
        let slot = a.hold_buf(key, 0).expect("resident");
        let before = a.stats();
        for k in 1..=10u64 {
            a.advance_to(k * 100 * MS);
            assert!(a.buf_access_slot(slot, key), "{rel}");
        }
        let s = a.stats();
        assert_eq!(s.hits - before.hits, 10, "{rel}");
        assert_eq!(
            s.demand_metadata_hits - before.demand_metadata_hits,
            10,
            "{rel}"
        );
        assert_eq!(s.demand_hit_predictive_prefetch, 0, "{rel}");
        assert!(a.release_buf(key, 0), "{rel}");
    }
}
