//! Every arcstats fixture in data/arcstats: parsing, catalogue
//! coverage, version inference, and the limit formulas against the file's own
//! `c_min` / `c_max` / `arc_sys_free`.

mod common;

use arclab_zfs::arcstats::{Source, Value, parse_arcstats};
use arclab_zfs::catalog;
use arclab_zfs::limits::{Os, Release, ZfsVersion, limits};
use arclab_zfs::version::{allmem_bytes, infer};
use common::{FREEBSD, LINUX23, ZOL06, fixture};

fn parse(name: &str) -> arclab_zfs::ArcSnapshot {
    let (path, text) = fixture(name);
    parse_arcstats(&text, &path).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn all_fixtures_parse_with_expected_row_counts() {
    let zol = parse(ZOL06);
    assert_eq!(zol.fields.len(), 92);
    assert_eq!(zol.source, Source::LinuxProc);
    assert_eq!(
        zol.header.unwrap().ndata,
        91,
        "the fixture's header says 91"
    );
    assert!(
        zol.warnings
            .iter()
            .any(|w| w.contains("91") && w.contains("92"))
    );
    assert_eq!(zol.snaptime_ns, Some(97_951_858_082_072));

    let l23 = parse(LINUX23);
    assert_eq!(l23.fields.len(), 147);
    assert!(l23.warnings.is_empty(), "{:?}", l23.warnings);
    assert_eq!(l23.snaptime_ns, Some(1_351_143_854_159_630));

    let bsd = parse(FREEBSD);
    assert_eq!(bsd.fields.len(), 148);
    assert_eq!(bsd.source, Source::FreeBsdSysctl);
    assert_eq!(bsd.snaptime_ns, None);
}

/// Values equal the file's own text, row by row.
#[test]
fn parsed_values_equal_the_files_text() {
    for name in [ZOL06, LINUX23, FREEBSD] {
        let (_, text) = fixture(name);
        let snap = parse(name);
        for f in &snap.fields {
            let line = text.lines().nth(f.line - 1).unwrap();
            let raw = line.split_whitespace().last().unwrap();
            assert_eq!(f.value.to_string(), raw, "{name}:{}", f.line);
            assert!(line.contains(&f.name));
        }
    }
}

#[test]
fn negative_int64_parses() {
    let zol = parse(ZOL06);
    let f = zol
        .fields
        .iter()
        .find(|f| f.name == "memory_available_bytes")
        .unwrap();
    assert_eq!(f.kstat_type, Some(3));
    assert_eq!(f.value, Value::Signed(-922_337_203_685_477_580));
    assert_eq!(f.value.as_u64(), None);
    let l23 = parse(LINUX23);
    assert_eq!(
        l23.get("memory_available_bytes"),
        Some(Value::Signed(3_970_557_824))
    );
}

#[test]
fn thirty_two_char_name_followed_by_one_space() {
    let (_, text) = fixture(LINUX23);
    let line = text
        .lines()
        .find(|l| l.starts_with("demand_iohit_predictive_prefetch "))
        .unwrap();
    assert_eq!("demand_iohit_predictive_prefetch".len(), 32);
    let snap = parse(LINUX23);
    let raw = line.split_whitespace().last().unwrap();
    assert_eq!(
        snap.get("demand_iohit_predictive_prefetch")
            .unwrap()
            .to_string(),
        raw
    );
}

#[test]
fn every_fixture_name_is_catalogued() {
    // Known-uncatalogued names: none.
    const KNOWN_UNCATALOGUED: &[&str] = &[];
    for name in [ZOL06, LINUX23, FREEBSD] {
        let snap = parse(name);
        let unknown: Vec<&str> = snap
            .unknown_names()
            .into_iter()
            .filter(|n| !KNOWN_UNCATALOGUED.contains(n))
            .collect();
        assert!(unknown.is_empty(), "{name}: uncatalogued {unknown:?}");
    }
    // The node_exporter metrics file names every 0.6.5 row as node_zfs_arc_<name>.
    let (_, metrics) = fixture("linux-zol07-node_exporter.metrics.txt");
    for line in metrics
        .lines()
        .filter(|l| l.starts_with("# TYPE node_zfs_arc_"))
    {
        let name = line.split_whitespace().nth(2).unwrap();
        let field = name.trim_start_matches("node_zfs_arc_");
        assert!(catalog::field(field).is_some(), "metrics name {field}");
    }
}

#[test]
fn catalogue_kinds() {
    use catalog::{Kind, Unit, field};
    assert_eq!(field("memory_throttle_count").unwrap().kind, Kind::Counter);
    assert_eq!(field("size").unwrap().kind, Kind::Gauge);
    assert_eq!(field("c_max").unwrap().kind, Kind::Gauge);
    assert_eq!(field("arc_meta_max").unwrap().kind, Kind::HighWater);
    assert_eq!(field("hash_chain_max").unwrap().kind, Kind::HighWater);
    assert_eq!(field("pd").unwrap().unit, Unit::Fraction32);
    assert_eq!(field("arc_no_grow").unwrap().unit, Unit::Flag);
    assert_eq!(field("evict_l2_eligible").unwrap().unit, Unit::Bytes);
    assert!(field("nonexistent").is_none());
    let mut names: Vec<&str> = catalog::all().iter().map(|f| f.name).collect();
    let n = names.len();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), n, "duplicate catalogue entries");
    for f in catalog::all() {
        assert!(!f.description.is_empty());
    }
    // Linux per-release row counts of spec §11.1 (HEAD = 148 with l2_ndev).
    let count = |r: Release| {
        catalog::all()
            .iter()
            .filter(|f| catalog::field_in(f.name, r, false))
            .count()
    };
    assert_eq!(count(Release::new(0, 6, 5)), 91);
    assert_eq!(count(Release::new(0, 7, 13)), 96);
    assert_eq!(count(Release::new(0, 8, 6)), 98);
    assert_eq!(count(Release::new(2, 0, 7)), 116);
    assert_eq!(count(Release::new(2, 1, 16)), 123);
    assert_eq!(count(Release::new(2, 2, 0)), 147);
    assert_eq!(count(Release::new(2, 3, 7)), 147);
    assert_eq!(count(Release::new(2, 3, 8)), 148);
    assert_eq!(count(Release::new(2, 4, 2)), 147);
    assert_eq!(count(Release::new(2, 4, 3)), 148);
}

#[test]
fn inferred_versions() {
    let v = infer(&parse(ZOL06));
    assert_eq!(
        (v.min, v.max),
        (Release::new(0, 6, 5), Some(Release::series_end(0, 6)))
    );
    assert_eq!((v.os, v.behaviour), (Os::Linux, ZfsVersion::V0_6));
    assert!(
        v.evidence
            .iter()
            .any(|e| e.contains("memory_available_bytes")),
        "{:#?}",
        v.evidence
    );

    let v = infer(&parse(LINUX23));
    assert_eq!(v.min, Release::new(2, 3, 0));
    assert_eq!(v.max, Some(Release::new(2, 4, 2)));
    assert_eq!(
        v.excluded,
        Some((Release::new(2, 3, 8), Release::series_end(2, 3)))
    );
    assert_eq!((v.os, v.behaviour), (Os::Linux, ZfsVersion::V2_3));
    assert!(v.contains(Release::new(2, 3, 7)) && v.contains(Release::new(2, 4, 0)));
    assert!(!v.contains(Release::new(2, 3, 8)) && !v.contains(Release::new(2, 2, 11)));

    let v = infer(&parse(FREEBSD));
    assert_eq!(
        (v.min, v.max),
        (Release::new(2, 2, 0), Some(Release::series_end(2, 2)))
    );
    assert_eq!((v.os, v.behaviour), (Os::FreeBSD, ZfsVersion::V2_2));
    assert!(v.evidence.iter().any(|e| e.contains("FreeBSD 14")));
}

/// limits() from the file's own allmem and inferred version/OS reproduces the
/// file's c_min, c_max, arc_sys_free and arc_dnode_limit exactly.
#[test]
fn limits_match_fixtures_with_memory_all_bytes() {
    for name in [LINUX23, FREEBSD] {
        let snap = parse(name);
        let v = infer(&snap);
        let allmem = allmem_bytes(&snap).expect("0.7.3+ exports memory_all_bytes");
        let l = limits(allmem, v.os, v.behaviour, None, None);
        assert_eq!(l.allmem_bytes, allmem, "{name}: allmem is page aligned");
        assert_eq!(
            Some(l.c_min_bytes),
            snap.get_u64("c_min"),
            "{name} c_min: {}",
            l.c_min.formula
        );
        assert_eq!(
            Some(l.c_max_bytes),
            snap.get_u64("c_max"),
            "{name} c_max: {}",
            l.c_max.formula
        );
        assert_eq!(
            Some(l.sys_free_bytes),
            snap.get_u64("arc_sys_free"),
            "{name}: {}",
            l.sys_free.formula
        );
        assert_eq!(
            l.dnode_limit_bytes,
            snap.get_u64("arc_dnode_limit"),
            "{name} dnode"
        );
    }
}

/// ZoL 0.6.5 does not export `memory_all_bytes` (added in 0.7.3), so the RAM
/// cannot be read from this file. It is recovered from `c_max`: 0.6.5's
/// default is `allmem/2`, so allmem = 2·c_max = 16 735 952 896 = 4 085 926
/// pages. That makes c_max tautological, but c_min (fixed 32 MiB),
/// `arc_sys_free` (`ptob(physmem/64)`, page-rounded) and `arc_meta_limit`
/// (3/4·c_max) are independent checks — and they all match, which also shows
/// c_max is the default (had zfs_arc_max been set, arc_sys_free would not fit).
#[test]
fn limits_match_zol065_fixture_via_c_max() {
    let snap = parse(ZOL06);
    assert_eq!(allmem_bytes(&snap), None, "0.6.5 has no memory_all_bytes");
    let v = infer(&snap);
    assert_eq!(v.behaviour, ZfsVersion::V0_6);
    let c_max = snap.get_u64("c_max").unwrap();
    let allmem = 2 * c_max;
    let l = limits(allmem, Os::Linux, v.behaviour, None, None);
    assert_eq!(l.c_max_bytes, c_max);
    assert_eq!(
        Some(l.c_min_bytes),
        snap.get_u64("c_min"),
        "{}",
        l.c_min.formula
    );
    assert_eq!(
        Some(l.sys_free_bytes),
        snap.get_u64("arc_sys_free"),
        "{}",
        l.sys_free.formula
    );
    assert_eq!(l.meta_limit_bytes, snap.get_u64("arc_meta_limit"));
    assert_eq!(l.dnode_limit_bytes, None);
    // Without page rounding (allmem/64) arc_sys_free would be 261 499 264, not the file's value.
    assert_ne!(Some(allmem / 64), snap.get_u64("arc_sys_free"));
}
