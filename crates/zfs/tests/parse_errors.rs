//! Parser errors name file and line, and no input makes the parser panic.

use arclab_zfs::arcstats::{
    KstatKind, ParseErrorKind, parse_arcstats, parse_dbufstats, parse_kstat, parse_zfetchstats,
};
use proptest::prelude::*;

const HEAD: &str = "6 1 0x01 3 816 1 2\nname                            type data\n";

#[test]
fn not_a_number_message() {
    let text = format!("{HEAD}hits 4 12\nmisses 4 3\nsize 4 abc\n");
    let e = parse_arcstats(&text, "FILE").unwrap_err();
    assert_eq!(
        e.to_string(),
        "FILE: line 5: value `abc` of `size` is not a number"
    );
    let text = "kstat.zfs.misc.arcstats.hits: x1\n";
    let e = parse_arcstats(text, "F").unwrap_err();
    assert_eq!(
        e.to_string(),
        "F: line 1: value `x1` of `hits` is not a number"
    );
}

#[test]
fn truncated_and_missing_values() {
    let e = parse_arcstats(&format!("{HEAD}hits 4 1\nmisses 4 2\n"), "f").unwrap_err();
    assert_eq!(
        e.kind,
        ParseErrorKind::Truncated {
            expected: 3,
            found: 2
        }
    );
    assert_eq!(e.line, 5);
    let e = parse_arcstats(&format!("{HEAD}hits 4 1\nmisses 4\n"), "f").unwrap_err();
    assert_eq!(
        (e.line, e.kind),
        (
            4,
            ParseErrorKind::MissingValue {
                name: "misses".into()
            }
        )
    );
    let e = parse_arcstats("kstat.zfs.misc.arcstats.hits:\n", "f").unwrap_err();
    assert!(matches!(e.kind, ParseErrorKind::MissingValue { .. }));
    let e = parse_arcstats("6 1 0x01 3 816 1 2\n", "f").unwrap_err();
    assert!(matches!(e.kind, ParseErrorKind::Truncated { .. }));
    assert_eq!(
        parse_arcstats("  \n", "f").unwrap_err().kind,
        ParseErrorKind::Empty
    );
}

#[test]
fn unknown_layouts() {
    let e = parse_arcstats("hello world\n", "f").unwrap_err();
    assert!(matches!(e.kind, ParseErrorKind::UnknownLayout(_)));
    let e = parse_arcstats("6 1 0x01 1 1 1 2\nfoo bar baz\nhits 4 1\n", "f").unwrap_err();
    assert_eq!(e.line, 2);
    let e = parse_arcstats("6 1 0x01 1 1 1 2\nname type data\nfoo 4 1\n", "f").unwrap_err();
    assert!(e.to_string().contains("no known arcstats field"));
    let e = parse_arcstats("kstat.zfs.misc.zfetchstats.hits: 1\n", "f").unwrap_err();
    assert!(matches!(e.kind, ParseErrorKind::UnknownLayout(_)));
}

#[test]
fn types_and_ranges() {
    let e = parse_arcstats(&format!("{HEAD}hits 4 -1\nmisses 4 1\nsize 4 1\n"), "f").unwrap_err();
    assert!(matches!(
        e.kind,
        ParseErrorKind::OutOfRange { kstat_type: 4, .. }
    ));
    let e = parse_arcstats(&format!("{HEAD}hits 7 x\nmisses 4 1\nsize 4 1\n"), "f").unwrap_err();
    assert!(matches!(e.kind, ParseErrorKind::UnsupportedType { .. }));
    let e = parse_arcstats(&format!("{HEAD}hits 4 1 2\nmisses 4 1\nsize 4 1\n"), "f").unwrap_err();
    assert!(matches!(e.kind, ParseErrorKind::TrailingText { .. }));
    let ok = parse_arcstats(
        &format!("{HEAD}hits 4 18446744073709551615\nmisses 3 -9223372036854775808\nsize 4 0\n"),
        "f",
    )
    .unwrap();
    assert_eq!(ok.get_u64("hits"), Some(u64::MAX));
    assert_eq!(ok.get("misses").unwrap().as_i128(), i128::from(i64::MIN));
}

#[test]
fn zfetch_and_dbuf_stats() {
    let z = "12 1 0x01 3 816 1 5\nname                            type data\nhits                            4    10\nmisses                          4    3\nmax_streams                     4    1\n";
    let s = parse_zfetchstats(z, "zfetchstats").unwrap();
    assert_eq!(
        (s.kind, s.get_u64("misses")),
        (KstatKind::ZfetchStats, Some(3))
    );
    let d = "kstat.zfs.misc.dbufstats.cache_count: 7\nkstat.zfs.misc.dbufstats.cache_level_0: 5\nkstat.zfs.misc.arcstats.hits: 1\n";
    let s = parse_dbufstats(d, "dbufstats").unwrap();
    assert_eq!(s.fields.len(), 2);
    assert!(s.unknown_names().is_empty());
    assert!(s.warnings.iter().any(|w| w.contains("other kstats")));
    // Whole `sysctl kstat.zfs.misc` dumps work for each kstat.
    let a = parse_kstat(d, "dump", KstatKind::ArcStats).unwrap();
    assert_eq!(a.get_u64("hits"), Some(1));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]
    #[test]
    fn never_panics_on_arbitrary_text(text in ".{0,400}") {
        for kind in [KstatKind::ArcStats, KstatKind::ZfetchStats, KstatKind::DbufStats] {
            let _ = parse_kstat(&text, "p", kind);
        }
    }

    #[test]
    fn never_panics_on_kstat_like_text(
        rows in proptest::collection::vec(("[a-z_]{0,40}", "[0-9 ]{0,3}", "-?[0-9a-z]{0,25}"), 0..8),
        ndata in 0u64..12,
        bsd in any::<bool>(),
    ) {
        let mut text = if bsd { String::new() } else { format!("1 1 0x01 {ndata} 0 1 2\nname type data\n") };
        for (n, t, v) in &rows {
            if bsd {
                text.push_str(&format!("kstat.zfs.misc.arcstats.{n}: {v}\n"));
            } else {
                text.push_str(&format!("{n} {t} {v}\n"));
            }
        }
        if let Ok(s) = parse_arcstats(&text, "p") {
            let _ = arclab_zfs::version::infer(&s);
        }
    }
}
