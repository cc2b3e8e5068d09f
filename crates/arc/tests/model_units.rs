//! Unit tests per spec section, with hand-computed values (arithmetic in the
//! comments; nothing here is copied from the engine's own output).

use arclab_arc::model::{
    AdjConsts, ArcCache, ArcConfig, Behaviour, Overflow, Reduce, SizeSum, Split, adapt_p_value,
    arc_evict_adj, field_names,
};
use arclab_arc::{Release, Request, block_key};

const MIB: u64 = 1 << 20;
const KIB: u64 = 1 << 10;

// ---- §3.5 arc_evict_adj -------------------------------------------------

#[test]
fn adj_worked_example_of_section_15() {
    // total 2^30, up 2^20: no cap (2^20 < 2^30/16); s = min(64−31, 32) = 32;
    // up = (2^20 << 32) / (2^30 >> 0) = 2^22 = 4 194 304.
    for k in [AdjConsts::Tight, AdjConsts::Loose] {
        assert_eq!(
            arc_evict_adj(1 << 31, 1 << 30, 1 << 20, 0, 100, k),
            (1 << 31) + 4_194_304
        );
    }
}

#[test]
fn adj_step_cap_both_constant_sets() {
    // up = 2^28, total = 2^30.
    // Tight: 2^28 ≥ 2^30/16 = 2^26 → scale = 2^28/(2^30/32 = 2^25) = 8 → up = 2^25
    //        → up = 2^25·2^32/2^30 = 2^27.
    assert_eq!(
        arc_evict_adj(1 << 31, 1 << 30, 1 << 28, 0, 100, AdjConsts::Tight),
        (1 << 31) + (1 << 27)
    );
    // Loose: 2^28 ≥ 2^30/4 = 2^28 → scale = 2^28/(2^30/8 = 2^27) = 2 → up = 2^27 → 2^29.
    assert_eq!(
        arc_evict_adj(1 << 31, 1 << 30, 1 << 28, 0, 100, AdjConsts::Loose),
        (1 << 31) + (1 << 29)
    );
    // up = 2^26: Tight caps (2^26 ≥ 2^26, scale 2 → 2^25 → 2^27); Loose does not (→ 2^28).
    assert_eq!(
        arc_evict_adj(1 << 31, 1 << 30, 1 << 26, 0, 100, AdjConsts::Tight),
        (1 << 31) + (1 << 27)
    );
    assert_eq!(
        arc_evict_adj(1 << 31, 1 << 30, 1 << 26, 0, 100, AdjConsts::Loose),
        (1 << 31) + (1 << 28)
    );
}

#[test]
fn adj_skip_thresholds() {
    // total 31: Tight skips (< 32). Loose: up = (1 << 32)/31 = 138 547 332.
    assert_eq!(
        arc_evict_adj(1 << 31, 31, 1, 0, 100, AdjConsts::Tight),
        1 << 31
    );
    assert_eq!(
        arc_evict_adj(1 << 31, 31, 1, 0, 100, AdjConsts::Loose),
        (1 << 31) + 138_547_332
    );
    assert_eq!(
        arc_evict_adj(1 << 31, 7, 1, 0, 100, AdjConsts::Loose),
        1 << 31
    );
    assert_eq!(
        arc_evict_adj(1 << 31, 1 << 30, 0, 0, 100, AdjConsts::Tight),
        1 << 31
    );
}

#[test]
fn adj_damping_near_one_and_zero_with_balance() {
    // frac = 2^32 − 2^28, ofrac = 2^28: frac ≥ 4·ofrac → up /= frac/(2·ofrac+1)
    // = 4 026 531 840 / 536 870 913 = 7 → up = 1 048 576/7 = 149 796 → ·2^32/2^30 = 599 184.
    let f = (1u64 << 32) - (1 << 28);
    assert_eq!(
        arc_evict_adj(f, 1 << 30, 1 << 20, 0, 100, AdjConsts::Tight),
        f + 599_184
    );
    // frac = 2^28: ofrac ≥ 4·frac → down /= 7 → 149 796 → ·4 = 599 184 → ·100/500 = 119 836.
    assert_eq!(
        arc_evict_adj(1 << 28, 1 << 30, 0, 1 << 20, 500, AdjConsts::Tight),
        (1 << 28) - 119_836
    );
    // Same down without the balance: 599 184.
    assert_eq!(
        arc_evict_adj(1 << 28, 1 << 30, 0, 1 << 20, 100, AdjConsts::Tight),
        (1 << 28) - 599_184
    );
}

// ---- §3.6 arc_p -----------------------------------------------------------

#[test]
fn arc_p_adaptation_mult_cap_and_dampener() {
    let c = 1024 * MIB;
    // MRU ghost hit, mfug/mrug = 45/10 → mult 4: p += 4·128 KiB.
    assert_eq!(
        adapt_p_value(100 * MIB, c, 128 * KIB, 0, 10 * MIB, 45 * MIB, 4, true),
        100 * MIB + 512 * KIB
    );
    // mult 20: uncapped by default (dampener disabled) vs capped at 10.
    assert_eq!(
        adapt_p_value(100 * MIB, c, 128 * KIB, 0, 10 * MIB, 200 * MIB, 4, true),
        100 * MIB + 2560 * KIB
    );
    assert_eq!(
        adapt_p_value(100 * MIB, c, 128 * KIB, 0, 10 * MIB, 200 * MIB, 4, false),
        100 * MIB + 1280 * KIB
    );
    // Cap at c − c/16 = 960 MiB.
    assert_eq!(
        adapt_p_value(960 * MIB - 64 * KIB, c, 128 * KIB, 0, MIB, MIB, 4, true),
        960 * MIB
    );
    // MFU ghost hit: mrug/mfug = 10 → p −= 1.25 MiB; floor p_min = c/16 = 64 MiB.
    assert_eq!(
        adapt_p_value(70 * MIB, c, 128 * KIB, 1, 100 * MIB, 10 * MIB, 4, true),
        70 * MIB - 1280 * KIB
    );
    assert_eq!(
        adapt_p_value(65 * MIB, c, 128 * KIB, 1, 100 * MIB, 10 * MIB, 4, true),
        64 * MIB
    );
}

// ---- §4 growth ---------------------------------------------------------

fn grow_run(preset: &str, misses: u64) -> (u64, u64) {
    let mut cfg = ArcConfig::new(16 << 30).with_behaviour(Behaviour::preset(preset).unwrap());
    cfg.tunables.hdr_bytes = 0;
    let mut arc = ArcCache::new(cfg);
    for k in 0..misses {
        arc.access(&Request::read(0, k, 64 * 1024));
    }
    let s = arc.stats();
    (s.c, s.p)
}

#[test]
fn growth_rules_2_2_and_2_1() {
    // 16 GiB: c_min = 16 GiB/32 = 512 MiB, c starts there (2.0+). With 64 KiB
    // misses, growth starts at miss k where k·64 KiB + 32 MiB ≥ 512 MiB: k = 7680.
    let (c, _) = grow_run("2.3", 7680);
    assert_eq!(c, 512 * MIB);
    // 2.2+: +max(64 KiB, 128 KiB) at k = 7680, then c − size = 32 MiB + 64 KiB
    // > 32 MiB until size catches up: growth at k = 7680, 7682, …, 7688 → 5 × 128 KiB.
    let (c, _) = grow_run("2.3", 7690);
    assert_eq!(c, 512 * MIB + 5 * 128 * KIB);
    // ≤ 2.1: +64 KiB at every miss from k = 7680 → 10 × 64 KiB; p (initial
    // c/2 = 256 MiB) gains 64 KiB whenever p < c/2: at growths 1, 3, 5, 7, 9.
    let (c, p) = grow_run("2.1", 7690);
    assert_eq!(c, 512 * MIB + 10 * 64 * KIB);
    assert_eq!(p, 256 * MIB + 5 * 64 * KIB);
}

// ---- §6.1 overflow ---------------------------------------------------------

fn fixed(preset: &str, c: u64) -> ArcCache {
    fixed_with(preset, c, None)
}

/// [`fixed`], with the overflow check reading the size through `sum` instead
/// of the release's own aggsum.
/// `c` fixed, no header bytes, the size sum read as `sum` (None: the
/// release's rule) and the evict thread's burst landing `delay_ns` after
/// its wake-up.
fn fixed_cfg(preset: &str, c: u64, sum: Option<SizeSum>, delay_ns: u64) -> ArcConfig {
    let mut b = Behaviour::preset(preset).unwrap();
    if let Some(s) = sum {
        b.size_sum = s;
    }
    let mut cfg = ArcConfig::new(64 << 30).with_behaviour(b);
    cfg.fixed_c = Some(c);
    cfg.tunables.hdr_bytes = 0;
    cfg.tunables.evict_delay_ns = delay_ns;
    cfg
}

/// [`fixed_cfg`] with the burst at the wake-up itself.
fn fixed_with(preset: &str, c: u64, sum: Option<SizeSum>) -> ArcCache {
    ArcCache::new(fixed_cfg(preset, c, sum, 0))
}

/// The size when the first eviction ran: `c` fixed, distinct 128 KiB demand
/// reads 1 ms apart until one of them evicts.
fn size_at_first_eviction(preset: &str, c: u64, sum: Option<SizeSum>) -> u64 {
    let mut a = fixed_with(preset, c, sum);
    for k in 0..4096u64 {
        let before = a.size();
        a.access(&Request::read(
            k * 1_000_000,
            block_key(1, 0, k),
            128 * KIB as u32,
        ));
        if a.stats().mru_data < (k + 1) * 128 * KIB {
            return before;
        }
    }
    panic!("no eviction");
}

#[test]
fn the_overflow_check_reads_the_aggsums_lower_bound() {
    // aggsum.c (2.1+): a bucket whose running delta would leave ±borrowed
    // commits it to the bounds and borrows |delta| << 4 (2 MiB for a 128 KiB
    // buffer); the lower bound, which arc_is_overflowing reads, then trails the
    // size by the borrow plus the running delta, 2 to 4 MiB. 2.3's lax rule
    // wakes the evict thread at lower bound ≥ c + 16 MiB, so the size is 18 to
    // 20 MiB past c when it runs; read exactly (≤ 0.7), at c + 16 MiB. The
    // real arc.c agrees: 2.3.9 through the oracle (instrumented arc_evict, the
    // `loop` trace at c = 192 MiB, paced at 2,000 reads/s) ran its first
    // arc_evict at size 220,872,296 = c + 16 MiB + 2.77 MB.
    let c = 64 * MIB;
    let exact = size_at_first_eviction("2.3", c, Some(SizeSum::Exact));
    assert!(
        (c + 16 * MIB..c + 16 * MIB + 128 * KIB).contains(&exact),
        "exact: {exact}"
    );
    let lagged = size_at_first_eviction("2.3", c, None);
    assert!(
        (c + 18 * MIB..c + 20 * MIB + 128 * KIB).contains(&lagged),
        "2.3: {lagged}"
    );
    // 2.0 borrows 10× (1.25 MiB): 1.25 to 2.5 MiB behind, at 16 MiB + that
    // past c under 2.0's binary rule (max(16 MiB, c >> 8) = 16 MiB).
    let v20 = size_at_first_eviction("2.0.7", c, None);
    assert!(
        (c + 16 * MIB + 1280 * KIB..c + 16 * MIB + 2560 * KIB + 128 * KIB).contains(&v20),
        "2.0: {v20}"
    );
}

#[test]
fn the_evict_threads_burst_lands_after_its_delay() {
    // Distinct 128 KiB reads 1 ms apart, c = 1 GiB, the size read exactly:
    // the read at k = (1024 + 16) MiB / 128 KiB = 8320 (t = 8.32 s) finds
    // the size at c + 16 MiB and wakes the thread (2.3's lax rule; the
    // allocations only wait from c + 16 MiB + (c >> 8) / 2 = c + 18 MiB).
    // With the burst at once, the oldest block (k = 0, the tail of its
    // sublist, in the first batch) is gone before its re-read 2.5 ms later.
    // With a 5 ms delay the burst lands before the read at k = 8325, after
    // reads 8320..8324 (the waking read's own buffer is accounted after the
    // check) added 5 × 128 KiB, and block 0 is a hit (the
    // real thread evicts for ~2 ms while the readers go on: arc.c 2.3.9 in
    // the oracle, docs/oracle.md).
    let c = 1024 * MIB;
    let run = |delay_ns: u64| {
        let mut a = ArcCache::new(fixed_cfg("2.3", c, Some(SizeSum::Exact), delay_ns));
        let mut first_eviction = None;
        let mut reread_hit = None;
        for k in 0..8400u64 {
            let before = a.size();
            a.access(&Request::read(
                k * 1_000_000,
                block_key(1, 0, k),
                128 * KIB as u32,
            ));
            let st = a.stats();
            // (block 0's re-read moves it to MFU: count both lists.)
            if first_eviction.is_none() && st.mru_data + st.mfu_data < (k + 1) * 128 * KIB {
                first_eviction = Some((k, before));
            }
            if k == 8322 {
                let hits = a.stats().demand_data_hits;
                a.access(&Request::read(
                    8_322_500_000,
                    block_key(1, 0, 0),
                    128 * KIB as u32,
                ));
                reread_hit = Some(a.stats().demand_data_hits == hits + 1);
            }
        }
        (first_eviction.expect("no eviction"), reread_hit.unwrap())
    };
    let ((k, size), hit) = run(0);
    assert_eq!(k, 8320, "at once: evicted at the read that woke it");
    assert_eq!(size, c + 16 * MIB, "at once: size when evicted");
    assert!(!hit, "at once: block 0 was evicted at 8.32 s");
    let ((k, size), hit) = run(5_000_000);
    assert_eq!(k, 8325, "delayed: evicted before the read at 8.325 s");
    // 8325 blocks of 128 KiB; block 0's re-read is a hit (no size).
    assert_eq!(
        size,
        c + 16 * MIB + 5 * 128 * KIB,
        "delayed: size before read 8325"
    );
    assert!(hit, "delayed: block 0 read during the delay");
}

#[test]
fn overflow_thresholds_per_version() {
    let c = 8 << 30;
    // k = max(16 MiB, 8 GiB >> 8 = 32 MiB) = 32 MiB.
    let a = fixed("2.1.0", c);
    assert_eq!(a.behaviour().overflow, Overflow::Binary);
    assert_eq!(a.overflow_level(c + 32 * MIB - 1, true, false), 0);
    assert_eq!(a.overflow_level(c + 32 * MIB, true, false), 2);
    // 2.2.8: wake at c + k/2 = +16 MiB, block at c + k (normal) / c + 1.5k (reserve).
    let a = fixed("2.2", c);
    assert_eq!(a.behaviour().overflow, Overflow::Shift);
    assert_eq!(a.overflow_level(c + 16 * MIB - 1, true, false), 0);
    assert_eq!(a.overflow_level(c + 16 * MIB, true, false), 1);
    assert_eq!(a.overflow_level(c + 32 * MIB - 1, true, false), 1);
    assert_eq!(a.overflow_level(c + 32 * MIB, true, false), 2);
    assert_eq!(a.overflow_level(c + 48 * MIB - 1, true, true), 1);
    assert_eq!(a.overflow_level(c + 48 * MIB, true, true), 2);
    // 2.3: over = size − c − 16 MiB; SOME while over < (c>>8)/2 = 16 MiB (×3 reserve).
    let a = fixed("2.3", c);
    assert_eq!(a.behaviour().overflow, Overflow::Lax);
    assert_eq!(a.overflow_level(c + 16 * MIB - 1, true, false), 0);
    assert_eq!(a.overflow_level(c + 16 * MIB, true, false), 1);
    assert_eq!(a.overflow_level(c + 32 * MIB - 1, true, false), 1);
    assert_eq!(a.overflow_level(c + 32 * MIB, true, false), 2);
    assert_eq!(a.overflow_level(c + 64 * MIB - 1, true, true), 1);
    assert_eq!(a.overflow_level(c + 64 * MIB, true, true), 2);
    assert_eq!(a.overflow_level(c + 16 * MIB, false, false), 2);
}

#[test]
fn dnode_overflow_only_where_it_exists() {
    // dnode limit = 10 % of c_max = 819.2 MiB; 900 MiB of dnodes overflow it.
    let c = 8 << 30;
    for (p, lax_level) in [
        ("2.3", 1),
        ("2.3.4", 1),
        ("2.2.9", 1),
        ("2.3.0", 0),
        ("2.3.3", 0),
        ("2.2.8", 0),
    ] {
        let mut a = fixed(p, c);
        a.set_pinned(900 * MIB, 0, 0);
        assert_eq!(a.overflow_level(c, true, false), lax_level, "{p}");
    }
    let mut a = fixed("2.3", c);
    a.set_pinned(900 * MIB, 0, 0);
    assert_eq!(a.overflow_level(c, false, false), 2);
}

// ---- §6.3 eviction amounts -----------------------------------------------

#[test]
fn evict_amounts_mru_only() {
    // c = 100 MiB fixed, 100 × 1 MiB demand reads (MRU data 100 MiB), then
    // 20 MiB of pinned dbufs: size 120 MiB. The next miss: over = 120 − 100 −
    // 16 = 4 MiB ≥ (100 MiB>>8)/2 → evict. First run: no adaptation (gs = 0).
    // wt = t − (asize − c) = 100 − 20 = 80 MiB. meta = 1/4, pm = pd = 1/2.
    // MRU meta: w = 80·(1/8) = 10 → e = min(20, 0 − 10) < 0. MFU meta: w = 20 → e < 0.
    // MRU data: wt −= m − 0 = 80; w = 80/2 = 40 → e = min(20, 100 − 40) = 20 MiB.
    // Ghosts: gsrd = (mrum + mfud + mfum)/2 = 0 → the 20 MiB MRU ghost is trimmed to 0.
    // The size read exactly: the pinned 20 MiB must wake the evict thread
    // at once (the aggsum's lag: the_overflow_check_reads_the_aggsums_lower_bound).
    let mut a = fixed_with("2.3", 100 * MIB, Some(SizeSum::Exact));
    for k in 0..100 {
        a.access(&Request::read(k * 1000, block_key(1, 0, k), MIB as u32));
    }
    a.advance_to(10_000_000);
    a.set_pinned(0, 20 * MIB, 0);
    a.access(&Request::read(
        20_000_000,
        block_key(1, 0, 1000),
        MIB as u32,
    ));
    let s = a.stats();
    assert_eq!(s.mru_data, 81 * MIB);
    assert_eq!(s.model.evicted_bytes, 20 * MIB);
    assert_eq!((s.mru_ghost_data, s.deleted), (0, 20));
    a.check_invariants().unwrap();
}

#[test]
fn evict_amounts_mfu_absorbs_the_overage() {
    // 60 blocks read twice 200 ms apart (→ MFU, 60 MiB), 40 blocks once (MRU 40 MiB).
    // wt = 80; MRU data: w = 40 → e = min(20, 40 − 40) = 0; MFU data: e = 20 MiB
    // (its 20 oldest: keys 0..19). Ghost targets: gsfd = (mrud + mrum + mfum)/2 = 20 MiB
    // ≥ the 20 MiB MFU ghost → kept; gsrd = 40/2 = 20 MiB, MRU ghost empty.
    // The size read exactly: the pinned 20 MiB must wake the evict thread
    // at once (the aggsum's lag: the_overflow_check_reads_the_aggsums_lower_bound).
    let mut a = fixed_with("2.3", 100 * MIB, Some(SizeSum::Exact));
    for k in 0..60 {
        a.access(&Request::read(k * 1000, block_key(1, 0, k), MIB as u32));
    }
    for k in 0..60 {
        a.access(&Request::read(
            200_000_000 + k * 1000,
            block_key(1, 0, k),
            MIB as u32,
        ));
    }
    for k in 60..100 {
        a.access(&Request::read(
            300_000_000 + k * 1000,
            block_key(1, 0, k),
            MIB as u32,
        ));
    }
    a.advance_to(400_000_000);
    assert_eq!(
        (a.stats().mfu_data, a.stats().mru_data),
        (60 * MIB, 40 * MIB)
    );
    a.set_pinned(0, 20 * MIB, 0);
    a.access(&Request::read(
        500_000_000,
        block_key(1, 0, 1000),
        MIB as u32,
    ));
    let s = a.stats();
    assert_eq!((s.mfu_data, s.mru_data), (40 * MIB, 41 * MIB));
    assert_eq!((s.mfu_ghost_data, s.mru_ghost_data), (20 * MIB, 0));
    // The evicted MFU blocks are the oldest: key 0 is a ghost, key 59 still cached.
    let o = a.access(&Request::read(600_000_000, block_key(1, 0, 0), MIB as u32));
    assert!(matches!(
        o,
        arclab_arc::model::Outcome::Miss {
            ghost: Some(arclab_arc::model::GhostKind::Mfu)
        }
    ));
    a.check_invariants().unwrap();
}

// ---- §2 promotion window ------------------------------------------------------

#[test]
fn promotion_needs_more_than_62_ticks() {
    // ARC_MINTIME = 1000 >> 4 = 62 ticks; promotion iff now > atime + 62.
    let mut a = fixed("2.3", 100 * MIB);
    let k = block_key(1, 0, 1);
    a.access(&Request::read(0, k, 4096));
    a.access(&Request::read(62_000_000, k, 4096)); // tick 62: not > 62
    a.access(&Request::read(62_999_999, k, 4096)); // tick 62 again; atime not refreshed
    assert_eq!((a.stats().mru_data, a.stats().mfu_data), (4096, 0));
    a.access(&Request::read(63_000_000, k, 4096)); // tick 63 > 62 → MFU
    let s = a.stats();
    assert_eq!((s.mru_data, s.mfu_data, s.mru_hits), (0, 4096, 3));
}

// ---- version boundaries -----------------------------------------------------------

#[test]
fn behaviour_boundaries() {
    let b = |s: &str| Behaviour::preset(s).unwrap();
    assert_eq!(b("2.1").split, Split::ArcP);
    assert_eq!(b("2.2.0").split, Split::MetaPdPm);
    assert_eq!(b("2.1.0").overflow, Overflow::Binary);
    assert_eq!(b("2.1.1").overflow, Overflow::Shift);
    assert_eq!(b("2.2.8").overflow, Overflow::Shift);
    assert_eq!(b("2.2.9").overflow, Overflow::Lax);
    assert_eq!(b("2.3.0").overflow, Overflow::Lax);
    assert_eq!(b("2.2.7").adj, AdjConsts::Loose);
    assert_eq!(b("2.2.8").adj, AdjConsts::Tight);
    assert_eq!(b("2.3.2").adj, AdjConsts::Loose);
    assert_eq!(b("2.3.3").adj, AdjConsts::Tight);
    assert!(!b("2.3.3").dnode_overflow && b("2.3.4").dnode_overflow && b("2.2.9").dnode_overflow);
    // arc_reap_cb: `(arc_c >> arc_shrink_shift) - free_memory` through
    // zfs-2.1.5, `can_free = arc_c - arc_c_min` from zfs-2.1.6 (module/zfs/arc.c).
    assert!(!b("2.0.7").reap_base_minus_cmin && !b("2.1.5").reap_base_minus_cmin);
    assert!(b("2.1.6").reap_base_minus_cmin && !b("2.1.5").reap_skip_at_cmin);
    assert!(
        b("2.1.6").reap_skip_at_cmin
            && b("2.2.8").reap_skip_at_cmin
            && !b("2.2.9").reap_skip_at_cmin
            && !b("2.3").reap_skip_at_cmin
    );
    assert_eq!(b("0.7").reduce, Reduce::Shrink07);
    assert_eq!(b("0.8.6").reduce, Reduce::FromC08);
    assert_eq!(b("2.1").reduce, Reduce::FromSize20);
    assert_eq!(b("2.2").reduce, Reduce::V22);
    assert_eq!(b("2.3").reduce, Reduce::Head);
    assert!(!b("0.8.6").c_starts_at_min && b("2.0.0").c_starts_at_min);
    assert!(b("0.7").idle_adjust_every_second && !b("0.8.0").idle_adjust_every_second);
    assert!(!b("0.8.6").arc_max_keeps_c && b("2.0.0").arc_max_keeps_c);
    assert!(!b("2.2.6").mfu_meta_fix && b("2.2.7").mfu_meta_fix && b("2.3.0").mfu_meta_fix);
    assert!(!b("2.2.8").dnode_prune_rework && b("2.2.9").dnode_prune_rework);
    assert_eq!(b("2.2").release, Release::new(2, 2, 8));
    assert_eq!(Behaviour::default(), b("2.3"));
    assert!(b("2.2").describe().contains("shift-based"));
}

#[test]
fn kstat_field_sets_per_version() {
    let n = |s: &str| field_names(&Behaviour::preset(s).unwrap());
    assert_eq!(n("0.7.13").len(), 96);
    assert_eq!(n("0.8.6").len(), 98);
    assert_eq!(n("2.0.7").len(), 116);
    assert_eq!(n("2.1").len(), 123);
    assert_eq!(n("2.2").len(), 147);
    assert_eq!(n("2.3.7").len(), 147);
    assert_eq!(n("2.3").len(), 148);
    assert_eq!(n("2.4.2").len(), 147);
    assert!(n("2.1").contains(&"p") && !n("2.3").contains(&"p"));
}
