//! Operator scenarios (spec §3.4, §5.2, §6.5, §2/§10.6), each printing and
//! asserting the numbers it checks.

use arclab_arc::model::{ArcCache, ArcConfig, Behaviour, Outcome, ReadFlags};
use arclab_arc::{Kind, Request, block_key};

const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;
const SEC: u64 = 1_000_000_000;

fn gib(b: u64) -> f64 {
    b as f64 / GIB as f64
}

/// Read `n` distinct 128 KiB data blocks of `file`, 10 µs apart from `t0`.
fn fill(a: &mut ArcCache, file: u32, n: u64, t0: u64) -> u64 {
    for k in 0..n {
        a.access(&Request::read(
            t0 + k * 10_000,
            block_key(file, 0, k),
            128 << 10,
        ));
    }
    t0 + n * 10_000
}

fn lower_cap_idle(preset: &str) -> (u64, u64, u64, u64) {
    let cfg = ArcConfig::new(32 * GIB).with_behaviour(Behaviour::preset(preset).unwrap());
    let mut a = ArcCache::new(cfg);
    let t = fill(&mut a, 1, 12 * GIB / (128 << 10), 0);
    a.advance_to(t + SEC / 2);
    let before = a.stats().size;
    let t1 = (t / SEC + 2) * SEC + SEC / 2; // half-way between two reap ticks
    a.advance_to(t1);
    assert!(a.set_arc_max(8 * GIB).is_accepted());
    a.advance_to(t1 + SEC + SEC / 10); // idle for 1.1 s
    let after_1s = a.stats().size;
    a.advance_to(t1 + 60 * SEC); // idle for a minute
    let after_60s = a.stats().size;
    // One miss (an allocation).
    a.access(&Request::read(t1 + 60 * SEC, block_key(2, 0, 0), 128 << 10));
    let after_miss = a.stats().size;
    a.check_invariants().unwrap();
    println!(
        "{preset:>4}: size {:.3} GiB; zfs_arc_max → 8 GiB; c = {:.3} GiB; after 1.1 s idle {:.3} GiB; after 60 s {:.3} GiB; after one miss {:.3} GiB",
        gib(before),
        gib(a.stats().c),
        gib(after_1s),
        gib(after_60s),
        gib(after_miss)
    );
    (before, after_1s, after_60s, after_miss)
}

#[test]
fn scenario1_lowering_arc_max_on_an_idle_model() {
    for p in ["2.2", "2.3"] {
        let (before, _, idle, miss) = lower_cap_idle(p);
        assert!(before > 11 * GIB);
        assert_eq!(
            idle, before,
            "{p}: idle ARC must not shrink (no evict wake)"
        );
        // The first allocation finds size ≥ c + 16 MiB: eviction runs down to c,
        // then the new 128 KiB buffer (plus its header) is added.
        assert!(miss <= 8 * GIB + (128 << 10) + 4096, "{p}: {miss}");
    }
    let (before, after_1s, _, _) = lower_cap_idle("0.7");
    assert!(before > 11 * GIB);
    // 0.7: the reclaim thread runs arc_adjust every second → at c within ~1 s.
    assert!(after_1s <= 8 * GIB, "0.7: {after_1s}");
}

#[test]
fn scenario2_demand_ramp_reap_steps() {
    let mut cfg = ArcConfig::new(16 * GIB);
    cfg.host.kernel_reclaim = false; // isolate the ARC's own reap thread (§5.2)
    let mut a = ArcCache::new(cfg);
    let t = fill(&mut a, 1, 12 * GIB / (128 << 10), 0);
    let t0 = (t / SEC + 1) * SEC + SEC / 2;
    a.advance_to(t0);
    let s0 = a.stats();
    println!(
        "start: size {:.3} GiB c {:.3} GiB c_min {:.3} GiB sys_free {:.3} GiB free {:.3} GiB",
        gib(s0.size),
        gib(s0.c),
        gib(s0.c_min),
        gib(s0.arc_sys_free),
        gib(s0.memory_free_bytes)
    );
    // Other processes: 2 GiB now, +512 MiB every second.
    let start_size = s0.size;
    let mut demand = 2 * GIB;
    let mut gave_back_4g = None;
    for sec in 0..20u64 {
        a.set_other_demand(demand);
        // Just before the next one-second reap check.
        let tick = (a.now_ns() / SEC + 1) * SEC;
        a.advance_to(tick - 1);
        let s = a.stats();
        a.advance_to(tick);
        let s2 = a.stats();
        let avail = s.memory_available_bytes;
        if avail < 0 {
            // §5.2 (2.2.9+/2.3+): to_free = ((c − c_min) >> 7) − available;
            // c' = min(c, max(size, c_min)); to_free = min(to_free, c' − c_min); c = c' − to_free.
            let to_free = (((s.c - s.c_min) >> 7) as i64 - avail) as u64;
            let c1 = s.c.min(s.size.max(s.c_min));
            let expect = c1 - to_free.min(c1 - s.c_min);
            println!(
                "t={sec:>2}s demand {:.2} GiB avail {:+.3} GiB: step (c−c_min)>>7 = {} B + shortfall {} B → c {:.3} → {:.3} GiB, size {:.3} GiB",
                gib(demand),
                avail as f64 / GIB as f64,
                (s.c - s.c_min) >> 7,
                -avail,
                gib(s.c),
                gib(s2.c),
                gib(s2.size)
            );
            assert_eq!(s2.c, expect, "reap step at t={sec}s");
            assert!(s2.size <= s2.c + 16 * MIB);
        } else {
            assert_eq!(s2.c, s.c, "no step without pressure");
        }
        if gave_back_4g.is_none() && start_size - s2.size >= 4 * GIB {
            gave_back_4g = Some(sec + 1);
        }
        demand += 512 * MIB;
    }
    let s = a.stats();
    println!(
        "gave back 4 GiB after {:?} s of ramp; pressure deficit {:.3} GiB·s; reap steps {}",
        gave_back_4g,
        s.model.pressure_deficit_byte_seconds / GIB as f64,
        s.model.reap_steps
    );
    assert!(gave_back_4g.is_some());
    assert!(s.model.reap_steps > 0 && s.arc_no_grow == 1);
    a.check_invariants().unwrap();
}

#[test]
fn scenario3_pinned_metadata_keeps_size_above_the_cap() {
    // The blog's box: 31 GiB RAM, zfs_arc_max = 8 GiB at load, OpenZFS 2.3.
    let cfg = ArcConfig::new(33_532_497_920).with_arc_max(8 * GIB);
    let mut a = ArcCache::new(cfg);
    // Open files: their dnode blocks (16 KiB metadata) are read and held.
    let held = 4 * GIB / (16 << 10);
    for k in 0..held {
        let r = Request {
            kind: Kind::Metadata,
            ..Request::read(k * 1000, block_key(0, 0, k), 16 << 10)
        };
        a.access(&r);
    }
    let mut t = held * 1000 + SEC;
    a.advance_to(t);
    for k in 0..held {
        assert!(a.hold(block_key(0, 0, k)));
    }
    let mut run = |a: &mut ArcCache, dnode: u64, dbuf: u64, bonus: u64| {
        a.set_pinned(dnode, dbuf, bonus);
        // A data reader keeps missing (12 GiB of 128 KiB blocks, read twice).
        for pass in 0..2 {
            for k in 0..12 * GIB / (128 << 10) {
                t += 10_000;
                a.access(&Request::read(t, block_key(5 + pass, 0, k), 128 << 10));
            }
        }
        a.check_invariants().unwrap();
        a.stats()
    };
    // 4 GiB held + 3 GiB dnode/dbuf/bonus = 7 GiB pinned < 8 GiB: size is held at c.
    let s = run(&mut a, 3 * GIB / 2, GIB, GIB / 2);
    let pinned = 4 * GIB + 3 * GIB;
    println!(
        "pinned {:.2} GiB: c {:.3} GiB size {:.3} GiB ({:+.1} % of cap), data {:.3} GiB, hdr {:.3} GiB, prune requests {}",
        gib(pinned),
        gib(s.c),
        gib(s.size),
        (s.size as f64 / (8 * GIB) as f64 - 1.0) * 100.0,
        gib(s.data_size),
        gib(s.hdr_size),
        s.arc_prune
    );
    assert_eq!(s.c, 8 * GIB);
    assert!(s.size <= s.c + 16 * MIB + (128 << 10) + 4096);
    assert!(
        s.data_size < GIB,
        "data squeezed into what the pinned memory leaves"
    );
    // 4 GiB held + 7 GiB dnode/dbuf/bonus = 11 GiB pinned: 37.5 % over the cap.
    let s = run(&mut a, 4 * GIB, 2 * GIB, GIB);
    let pinned = 4 * GIB + 7 * GIB;
    let over = s.size as f64 / (8 * GIB) as f64 - 1.0;
    println!(
        "pinned {:.2} GiB: c {:.3} GiB size {:.3} GiB ({:+.1} % of cap), data {:.4} GiB, metadata {:.3} GiB, hdr {:.3} GiB, dnode {:.2} GiB > limit {:.3} GiB",
        gib(pinned),
        gib(s.c),
        gib(s.size),
        over * 100.0,
        gib(s.data_size),
        gib(s.metadata_size),
        gib(s.hdr_size),
        gib(s.dnode_size),
        gib(s.arc_dnode_limit)
    );
    assert_eq!(s.c, 8 * GIB);
    // Everything evictable is gone; size = pinned + headers + the few
    // buffers read since the last eviction.
    assert!(s.size >= pinned + s.hdr_size);
    assert!(s.size - pinned - s.hdr_size <= 16 * MIB + (128 << 10));
    assert!(over > 0.37 && over < 0.40);
}

#[test]
fn scenario4_prefetch_counters() {
    for preset in ["2.3", "2.1"] {
        let mut a = ArcCache::new(
            ArcConfig::new(16 * GIB).with_behaviour(Behaviour::preset(preset).unwrap()),
        );
        let k = |b| block_key(1, 0, b);
        let pf = |t, b| Request {
            prefetch: true,
            ..Request::read(t, k(b), 128 << 10)
        };
        // Prefetch blocks 0..8 at t = 0 (the 100 µs reads are in flight).
        for b in 0..8 {
            assert!(matches!(a.access(&pf(0, b)), Outcome::Miss { .. }));
        }
        // Demand read of block 0 50 µs later: the prefetch is still in flight.
        assert_eq!(
            a.access(&Request::read(50_000, k(0), 128 << 10)),
            Outcome::IoHit
        );
        // Demand reads of 1..8 at 1 ms: completed prefetches.
        for b in 1..8 {
            assert_eq!(
                a.access(&Request::read(1_000_000, k(b), 128 << 10)),
                Outcome::Hit
            );
        }
        // A redundant prefetch of 4..8 (already cached), then a demand read of 4.
        for b in 4..8 {
            assert_eq!(a.access(&pf(2_000_000, b)), Outcome::Hit);
        }
        a.access(&Request::read(3_000_000, k(4), 128 << 10));
        // A prescient prefetch (e.g. scrub) and its demand use.
        a.access_with(
            &pf(4_000_000, 100),
            ReadFlags {
                prescient: true,
                uncached: false,
            },
        );
        a.access(&Request::read(5_000_000, k(100), 128 << 10));
        let s = a.stats();
        println!(
            "{preset}: prefetch_data_misses {} prefetch_data_hits {} demand_data_hits {} demand_data_iohits {} \
             predictive_prefetch {} prescient_prefetch {} demand_hit_predictive_prefetch {} \
             demand_iohit_predictive_prefetch {} demand_hit_prescient_prefetch {} mru_hits {} mfu_hits {}",
            s.prefetch_data_misses,
            s.prefetch_data_hits,
            s.demand_data_hits,
            s.demand_data_iohits,
            s.predictive_prefetch,
            s.prescient_prefetch,
            s.demand_hit_predictive_prefetch,
            s.demand_iohit_predictive_prefetch,
            s.demand_hit_prescient_prefetch,
            s.mru_hits,
            s.mfu_hits
        );
        assert_eq!(s.prefetch_data_misses, 9); // 8 predictive + 1 prescient
        assert_eq!(s.prefetch_data_hits, 4); // the redundant prefetches
        if preset == "2.3" {
            assert_eq!(
                (s.demand_data_iohits, s.demand_iohit_predictive_prefetch),
                (1, 1)
            );
            // 7 completed prefetches used + block 4 re-flagged by the redundant prefetch.
            assert_eq!(s.demand_hit_predictive_prefetch, 8);
            assert_eq!(s.demand_data_hits, 7 + 1 + 1);
            assert_eq!(
                (
                    s.predictive_prefetch,
                    s.prescient_prefetch,
                    s.demand_hit_prescient_prefetch
                ),
                (12, 1, 1)
            );
            // Demand uses of prefetched MRU blocks count as the first use: no MFU.
            assert_eq!(s.mfu_data, 0);
        } else {
            // ≤ 2.1: no iohits; a NOWAIT demand reader (the DMU's dbuf read)
            // finding the I/O in progress joins it and is counted neither
            // hit nor miss (arc_read of zfs-2.1.16: `goto out` before any
            // ARCSTAT; the real 2.1.16 leaves such reads uncounted, see
            // docs/oracle.md): the hits are 1..8, block 4 again, block 100.
            assert_eq!((s.iohits, s.demand_data_hits), (0, 7 + 1 + 1));
            // arc_read of zfs-2.1.16 (module/zfs/arc.c) counts
            // demand_hit_predictive_prefetch only on ARC_FLAG_PREDICTIVE_PREFETCH,
            // which the issuing predictive prefetch set: the waiting reader
            // of block 0 cleared it when it found the I/O in progress, and
            // the redundant prefetch hits of 4..8 set ARC_FLAG_PREFETCH only,
            // so only the 7 first demand uses of 1..8 count.
            assert_eq!(s.demand_hit_predictive_prefetch, 7);
            // add_reference clears ARC_FLAG_PREFETCH on the demand reader's
            // first reference, so every demand hit is an ordinary MRU hit
            // (none is 62 ms after its prefetch: no promotion here).
            assert_eq!(s.mfu_data, 0);
            assert_eq!(s.demand_hit_prescient_prefetch, 1);
        }
        a.check_invariants().unwrap();
    }
}

/// A miniature (spatial sampling at R = 1/100) of a 32 GiB host running
/// 2.3 takes the full host's limits, scaled: `c_max` is RAM − 1 GiB there
/// (`arc_default_max`, 2.3's arc_os.c: `MAX(allmem * 5 / 8, allmem -
/// 1 GiB)`), so 31 GiB / 100; a host that really had 327.68 MiB of RAM
/// gets 5/8 of it instead, a third less. `c_min` is allmem / 32 = 1 GiB
/// (`arc_c_min = MAX(allmem / 32, 2 << SPA_MAXBLOCKSHIFT)`), so 10.24 MiB
/// in the miniature — below the 32 MiB floor a real small host would keep.
#[test]
fn a_miniature_scales_the_full_hosts_limits() {
    // `mini` is `full` / 100 within a byte (the miniature's RAM is rounded).
    let hundredth = |mini: u64, full: u64| mini.abs_diff(full / 100) <= 1;
    let b = Behaviour::preset("2.3").unwrap();
    let full = ArcCache::new(ArcConfig::new(32 * GIB).with_behaviour(b.clone())).stats();
    let mut cfg = ArcConfig::new(32 * GIB / 100).with_behaviour(b.clone());
    let small = ArcCache::new(cfg.clone()).stats();
    cfg.miniature = Some(arclab_arc::model::Miniature {
        ram_bytes: 32 * GIB,
        arc_max: None,
        arc_min: None,
    });
    let mini = ArcCache::new(cfg).stats();
    println!(
        "c_max: full {} mini {} small {}; c_min: full {} mini {} small {}; sys_free: full {} mini {} small {}",
        full.c_max,
        mini.c_max,
        small.c_max,
        full.c_min,
        mini.c_min,
        small.c_min,
        full.arc_sys_free,
        mini.arc_sys_free,
        small.arc_sys_free
    );
    assert_eq!(full.c_max, 31 * GIB);
    assert!(hundredth(mini.c_max, 31 * GIB));
    assert_eq!(small.c_max, (32 * GIB / 100) / 4096 * 4096 * 5 / 8);
    assert_eq!(full.c_min, GIB);
    assert!(hundredth(mini.c_min, GIB));
    assert_eq!(small.c_min, 32 * MIB);
    assert!(hundredth(mini.arc_sys_free, full.arc_sys_free));
    assert!(hundredth(mini.memory_all_bytes, full.memory_all_bytes));
    // A cap is the full host's cap, scaled.
    let mut cfg = ArcConfig::new(32 * GIB / 100).with_behaviour(b);
    cfg.miniature = Some(arclab_arc::model::Miniature {
        ram_bytes: 32 * GIB,
        arc_max: Some(8 * GIB),
        arc_min: None,
    });
    assert!(hundredth(ArcCache::new(cfg).stats().c_max, 8 * GIB));
}
