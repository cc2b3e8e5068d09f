//! `arclab_arc::limits` against hand-computed values (spec §3.1–3.3, §5.1).

use arclab_zfs::limits::{LimitsInput, Os, Verdict, ZfsVersion, limits, limits_with};

const GIB: u64 = 1 << 30;
const MIB: u64 = 1 << 20;

fn ignored(v: &Option<Verdict>) -> String {
    match v {
        Some(Verdict::Ignored { reason }) => reason.clone(),
        other => panic!("expected Ignored, got {other:?}"),
    }
}

#[test]
fn defaults_per_version_16_gib() {
    let ram = 16 * GIB; // 4 194 304 pages
    // 0.6: c_min 32 MiB; c_max 8 GiB; sys_free ptob(4 194 304/64) = 65 536 pages = 256 MiB.
    let l = limits(ram, Os::Linux, ZfsVersion::V0_6, None, None);
    assert_eq!(
        (l.c_min_bytes, l.c_max_bytes, l.sys_free_bytes),
        (32 * MIB, 8 * GIB, 256 * MIB)
    );
    assert_eq!(l.meta_limit_bytes, Some(6 * GIB)); // 3/4 · 8 GiB
    assert_eq!(l.dnode_limit_bytes, None);
    // 0.7: c_min 16 GiB/32 = 512 MiB; dnode = 10 % of 6 GiB = 644 245 094.
    let l = limits(ram, Os::Linux, ZfsVersion::V0_7, None, None);
    assert_eq!(
        (l.c_min_bytes, l.c_max_bytes, l.sys_free_bytes),
        (512 * MIB, 8 * GIB, 256 * MIB)
    );
    assert_eq!(l.dnode_limit_bytes, Some(6 * GIB * 10 / 100));
    // 2.2: sys_free: 4·isqrt(16 777 216)·1024 = 4·4096 KiB = 16 MiB; ·2.5 = 40 MiB;
    // 3·40 MiB + 512 MiB = 632 MiB. dnode = 8 GiB/10 = 858 993 459.
    let l = limits(ram, Os::Linux, ZfsVersion::V2_2, None, None);
    assert_eq!((l.c_max_bytes, l.sys_free_bytes), (8 * GIB, 632 * MIB));
    assert_eq!(l.dnode_limit_bytes, Some(858_993_459));
    assert_eq!(l.meta_limit_bytes, None);
    // 2.2.9: isqrt(16 777 216·16) = 16 384 KiB = 16 MiB: same here.
    assert_eq!(
        limits(ram, Os::Linux, ZfsVersion::V2_2_9, None, None).sys_free_bytes,
        632 * MIB
    );
    // 2.3: c_max = max(10 GiB, 15 GiB) = 15 GiB.
    let l = limits(ram, Os::Linux, ZfsVersion::V2_3, None, None);
    assert_eq!(l.c_max_bytes, 15 * GIB);
    // FreeBSD 2.2: 5/8 rule and no sys_free.
    let l = limits(ram, Os::FreeBSD, ZfsVersion::V2_2, None, None);
    assert_eq!((l.c_max_bytes, l.sys_free_bytes), (15 * GIB, 0));
}

#[test]
fn small_and_huge_machines() {
    // 512 MiB, 2.3: c_min = max(16 MiB, 32 MiB) = 32 MiB; allmem < 1 GiB ⇒ max(320 MiB, c_min) = 320 MiB.
    let l = limits(512 * MIB, Os::Linux, ZfsVersion::V2_3, None, None);
    assert_eq!((l.c_min_bytes, l.c_max_bytes), (32 * MIB, 320 * MIB));
    // 1 TiB, 2.3: isqrt(2^30·16) = 131 072 KiB = 128 MiB (< 256 MiB clamp); ·2.5 = 320 MiB;
    // 3·320 MiB + 32 GiB = 33 728 MiB. Kernel < 5.7: clamp 64 MiB → 160 MiB; 480 MiB + 32 GiB.
    let l = limits(1024 * GIB, Os::Linux, ZfsVersion::V2_3, None, None);
    assert_eq!(l.sys_free_bytes, 960 * MIB + 32 * GIB);
    let old = limits_with(LimitsInput {
        ram_bytes: 1024 * GIB,
        os: Os::Linux,
        version: ZfsVersion::V2_3,
        arc_max: None,
        arc_min: None,
        linux_before_5_7: true,
    });
    assert_eq!(old.sys_free_bytes, 480 * MIB + 32 * GIB);
    // Absurd RAM does not panic.
    let _ = limits(
        u64::MAX,
        Os::Linux,
        ZfsVersion::V2_3,
        Some(u64::MAX),
        Some(u64::MAX),
    );
    let _ = limits(0, Os::FreeBSD, ZfsVersion::V0_6, Some(1), Some(1));
}

#[test]
fn page_rounding() {
    // 16 GiB + 4095 bytes rounds down to 16 GiB.
    let l = limits(16 * GIB + 4095, Os::Linux, ZfsVersion::V2_3, None, None);
    assert_eq!(l.allmem_bytes, 16 * GIB);
}

#[test]
fn arc_max_rules() {
    let ram = 32 * GIB; // c_min default = 1 GiB
    let v = ZfsVersion::V2_3;
    // Accepted.
    let l = limits(ram, Os::Linux, v, Some(8 * GIB), None);
    assert_eq!(
        (l.arc_max.clone(), l.c_max_bytes),
        (Some(Verdict::Accepted), 8 * GIB)
    );
    assert_eq!(l.dnode_limit_bytes, Some(8 * GIB / 10));
    // Below 64 MiB.
    let l = limits(ram, Os::Linux, v, Some(63 * MIB), None);
    assert!(ignored(&l.arc_max).contains("64 MiB"));
    assert_eq!(l.c_max_bytes, 31 * GIB);
    // Exactly 64 MiB is accepted (≥) from 0.7 on; on 0.6 it must be strictly above.
    let l = limits(ram, Os::Linux, v, Some(64 * MIB), None);
    assert!(l.arc_max.unwrap().is_accepted());
    // 2.1.1+: the load-time value lowers c_min to max(64 MiB/2, 32 MiB) = 32 MiB.
    assert_eq!((l.c_max_bytes, l.c_min_bytes), (64 * MIB, 32 * MIB));
    let l = limits(ram, Os::Linux, ZfsVersion::V0_6, Some(64 * MIB), None);
    assert!(ignored(&l.arc_max).contains("not above 64 MiB"));
    // At or above allmem (memory_all_bytes, not "physical RAM" marketing sizes).
    let l = limits(ram, Os::Linux, v, Some(ram), None);
    assert!(ignored(&l.arc_max).contains("all memory"));
    // Not above c_min: 2.0 and 0.7/0.8 reject (no load-time special case before 2.1.1).
    for old in [ZfsVersion::V0_7, ZfsVersion::V2_0] {
        let l = limits(ram, Os::Linux, old, Some(GIB), None);
        assert!(ignored(&l.arc_max).contains("c_min"), "{old}");
        assert_eq!(l.c_max_bytes, 16 * GIB);
    }
    // 2.1.1+: same request accepted, c_min lowered to 512 MiB.
    let l = limits(ram, Os::Linux, ZfsVersion::V2_1, Some(GIB), None);
    assert_eq!((l.c_max_bytes, l.c_min_bytes), (GIB, 512 * MIB));
    // 2.0: zfs_arc_min is applied first, so lowering it rescues zfs_arc_max.
    let l = limits(ram, Os::Linux, ZfsVersion::V2_0, Some(GIB), Some(256 * MIB));
    assert_eq!((l.c_max_bytes, l.c_min_bytes), (GIB, 256 * MIB));
    // 0.7/0.8: zfs_arc_max is checked first, against the default c_min: still ignored.
    let l = limits(ram, Os::Linux, ZfsVersion::V0_7, Some(GIB), Some(256 * MIB));
    assert!(ignored(&l.arc_max).contains("c_min"));
    assert_eq!(l.c_min_bytes, 256 * MIB);
    // 0 means automatic.
    let l = limits(ram, Os::Linux, v, Some(0), None);
    assert!(ignored(&l.arc_max).contains("automatic"));
    assert_eq!(l.c_max_bytes, 31 * GIB);
}

#[test]
fn arc_min_rules() {
    let ram = 32 * GIB;
    let v = ZfsVersion::V2_3;
    let l = limits(ram, Os::Linux, v, None, Some(2 * GIB));
    assert_eq!(
        (l.arc_min.clone(), l.c_min_bytes),
        (Some(Verdict::Accepted), 2 * GIB)
    );
    let l = limits(ram, Os::Linux, v, None, Some(16 * MIB));
    assert!(ignored(&l.arc_min).contains("32 MiB"));
    assert_eq!(l.c_min_bytes, GIB);
    // zfs_arc_min above zfs_arc_max: ignored (must be ≤ c_max).
    let l = limits(ram, Os::Linux, v, Some(4 * GIB), Some(6 * GIB));
    assert!(l.arc_max.clone().unwrap().is_accepted());
    assert!(ignored(&l.arc_min).contains("above c_max"));
    assert_eq!((l.c_min_bytes, l.c_max_bytes), (GIB, 4 * GIB));
    // arc_min == c_max is allowed.
    let l = limits(ram, Os::Linux, v, Some(4 * GIB), Some(4 * GIB));
    assert_eq!((l.c_min_bytes, l.c_max_bytes), (4 * GIB, 4 * GIB));
}

#[test]
fn meta_and_dnode_follow_arc_max_before_2_2() {
    // 2.1, 32 GiB, zfs_arc_max 8 GiB: meta = 75 % · 8 GiB = 6 GiB; dnode = 10 % = 644 245 094.
    let l = limits(32 * GIB, Os::Linux, ZfsVersion::V2_1, Some(8 * GIB), None);
    assert_eq!(l.meta_limit_bytes, Some(6 * GIB));
    assert_eq!(l.dnode_limit_bytes, Some(6 * GIB / 10));
    // 0.6: meta = min(3/4 · 16 GiB, 3/4 · 8 GiB) = 6 GiB.
    let l = limits(32 * GIB, Os::Linux, ZfsVersion::V0_6, Some(8 * GIB), None);
    assert_eq!(l.meta_limit_bytes, Some(6 * GIB));
}

#[test]
fn formulas_are_explained() {
    let l = limits(32 * GIB, Os::Linux, ZfsVersion::V2_3, None, None);
    assert!(l.c_max.formula.contains("allmem·5/8"));
    assert!(l.c_max.applies_to.contains("2.3"));
    assert_eq!(l.c_max.spec, "§3.2");
    assert!(l.sys_free.formula.contains("isqrt"));
    let l = limits(32 * GIB, Os::FreeBSD, ZfsVersion::V0_7, None, None);
    assert_eq!(l.version, ZfsVersion::V2_0);
    assert!(l.notes.iter().any(|n| n.contains("kmem_size")));
}

#[test]
fn blog_box_2_3_default() {
    // 31.24 GiB = 3124·2^30/100 = 33 543 694 581 B → 8 189 378 pages
    // → allmem = 8 189 378·4096 = 33 543 692 288.
    // c_max = max(allmem·5/8, allmem − 2^30) = max(20 964 807 680, 32 469 950 464)
    //       = 32 469 950 464 B = 30.2400 GiB.
    let ram = 3124 * (1u64 << 30) / 100;
    let l = limits(ram, Os::Linux, ZfsVersion::V2_3, None, None);
    assert_eq!(l.allmem_bytes, 33_543_692_288);
    assert_eq!(l.c_max_bytes, 32_469_950_464);
    assert_eq!(
        format!("{:.2}", l.c_max_bytes as f64 / (1u64 << 30) as f64),
        "30.24"
    );
    // Same box on 2.2: allmem/2 = 16 771 846 144.
    let l22 = limits(ram, Os::Linux, ZfsVersion::V2_2, None, None);
    assert_eq!(l22.c_max_bytes, 16_771_846_144);
}

#[test]
fn sys_free_2_3_by_hand() {
    // allmem 33 532 497 920: KiB = 32 746 580; ·16 = 523 945 280; isqrt = 22 889
    // wmark = 22 889·1024 = 23 438 336; ·2.5 → 23 438 336 + 35 157 504 = 58 595 840
    // 3·58 595 840 + 33 532 497 920/32 = 175 787 520 + 1 047 890 560 = 1 223 678 080
    let l = limits(33_532_497_920, Os::Linux, ZfsVersion::V2_3, None, None);
    assert_eq!(l.sys_free_bytes, 1_223_678_080);
    // 2.2.0–2.2.8: 4·isqrt(32 746 580) = 4·5 722 = 22 888 KiB = 23 437 312;
    // +150 % = 58 593 280; ·3 = 175 779 840; + 1 047 890 560 = 1 223 670 400
    let l = limits(33_532_497_920, Os::Linux, ZfsVersion::V2_2, None, None);
    assert_eq!(l.sys_free_bytes, 1_223_670_400);
}

#[test]
fn version_strings() {
    let p = |s: &str| s.parse::<ZfsVersion>().unwrap();
    assert_eq!(p("0.7"), ZfsVersion::V0_7);
    assert_eq!(p("0.8.6"), ZfsVersion::V0_7);
    assert_eq!(p("0.6.5.11"), ZfsVersion::V0_6);
    assert_eq!(p("2.1"), ZfsVersion::V2_1);
    assert_eq!(p("2.1.0"), ZfsVersion::V2_0);
    assert_eq!(p("2.2"), ZfsVersion::V2_2);
    assert_eq!(p("2.2.7"), ZfsVersion::V2_2);
    assert_eq!(p("zfs-2.2.9"), ZfsVersion::V2_2_9);
    assert_eq!(p("2.3.4"), ZfsVersion::V2_3);
    assert_eq!(p("latest"), ZfsVersion::V2_3);
    let (v, note) = ZfsVersion::parse_with_note("2.7.1").unwrap();
    assert_eq!(v, ZfsVersion::V2_3);
    assert!(note.unwrap().contains("newer"));
    assert!("1.0".parse::<ZfsVersion>().is_err());
    assert!("two".parse::<ZfsVersion>().is_err());
    for v in ZfsVersion::ALL {
        assert_eq!(v.to_string().parse::<ZfsVersion>().unwrap(), v);
    }
}
