//! The observe-and-tune models against the real fixtures in
//! `data/arcstats/` (values are read from the files, never copied).

use std::collections::HashMap;

use arclab_arc::limits::{self, Os, ZfsVersion};
use arclab_zfs::arcstats::{ArcSnapshot, parse_arcstats};
use arclab_zfs::status::explain;
use arclab_zfs::{rates, version};

const FILES: [&str; 3] = [
    "linux-openzfs22plus-telegraf.arcstats",
    "linux-zol07-node_exporter.arcstats",
    "freebsd14-telegraf.sysctl.txt",
];

fn text(name: &str) -> String {
    std::fs::read_to_string(arclab_testdata::path(&format!("arcstats/{name}"))).unwrap()
}

/// An independent, naive reading of the file: name → value.
fn raw(name: &str) -> HashMap<String, i128> {
    let mut m = HashMap::new();
    for l in text(name).lines() {
        if let Some(rest) = l.strip_prefix("kstat.zfs.misc.arcstats.") {
            let (k, v) = rest.split_once(": ").unwrap();
            m.insert(k.to_string(), v.trim().parse().unwrap());
        } else {
            let w: Vec<&str> = l.split_whitespace().collect();
            if w.len() == 3 && w[1] != "type" {
                m.insert(w[0].to_string(), w[2].parse().unwrap());
            }
        }
    }
    m
}

fn snap(name: &str) -> ArcSnapshot {
    parse_arcstats(&text(name), name).unwrap()
}

#[test]
fn status_values_are_the_files_values() {
    for f in FILES {
        let r = raw(f);
        let s = explain(&snap(f), None, None, None, f).unwrap();
        let u = |k: &str| u64::try_from(r[k]).unwrap();
        assert_eq!(s.size_bytes, u("size"), "{f}");
        assert_eq!(s.c_bytes, u("c"), "{f}");
        assert_eq!(s.c_min_bytes, u("c_min"), "{f}");
        assert_eq!(s.c_max_bytes, u("c_max"), "{f}");
        assert_eq!(s.overshoot_bytes, u("size").saturating_sub(u("c")), "{f}");
        let accesses = u("hits") + r.get("iohits").map_or(0, |v| *v as u64) + u("misses");
        assert_eq!(s.hits.accesses, accesses, "{f}");
        assert_eq!(
            s.hits.total,
            Some(u("hits") as f64 / accesses as f64),
            "{f}"
        );
        match r.get("memory_all_bytes") {
            Some(&m) => assert_eq!(s.ram, Some((m as u64, "memory_all_bytes")), "{f}"),
            None => {
                assert_eq!(s.ram, None, "{f}");
                assert!(s.cannot_compute.iter().any(|c| c.contains("--ram")), "{f}");
            }
        }
        // Contributors are sorted, largest first.
        assert!(
            s.contributors.windows(2).all(|w| w[0].bytes >= w[1].bytes),
            "{f}"
        );
    }
}

#[test]
fn default_c_max_follows_the_spec_formula_for_the_inferred_version() {
    for f in FILES {
        let r = raw(f);
        let sn = snap(f);
        let v = version::infer(&sn);
        // Every fixture runs with the default limit; ZoL 0.6.5 does not export
        // RAM, so give it allmem = 2·c_max (its c_max formula is allmem/2).
        let ram = r
            .get("memory_all_bytes")
            .map_or(2 * r["c_max"] as u64, |m| *m as u64);
        let s = explain(&sn, None, None, Some(ram), f).unwrap();
        let l = limits::limits(ram, v.os, v.behaviour, None, None);
        assert_eq!(s.default_c_max_bytes, Some(l.c_max_bytes), "{f}");
        assert_eq!(
            s.default_c_max_bytes,
            Some(r["c_max"] as u64),
            "{f}: default limit in use"
        );
        assert_eq!(s.default_c_min_bytes, Some(r["c_min"] as u64), "{f}");
        assert_eq!(s.c_max_changed, Some(false), "{f}");
        // Spelled out from §3.2: 2.3+ Linux and FreeBSD: max(5/8·allmem, allmem − 1 GiB).
        let allmem = ram / 4096 * 4096;
        let expect = match (v.os, v.behaviour) {
            (Os::FreeBSD, _) | (_, ZfsVersion::V2_3) => (allmem / 8 * 5).max(allmem - (1 << 30)),
            (_, ZfsVersion::V0_6 | ZfsVersion::V0_7) => allmem / 2,
            _ => (allmem / 2).max(allmem / 32),
        };
        assert_eq!(l.c_max_bytes, expect, "{f}");
    }
}

#[test]
fn non_evictable_is_size_minus_evictable_when_the_identity_holds() {
    for f in FILES {
        let r = raw(f);
        let s = explain(&snap(f), None, None, None, f).unwrap();
        let ev: i128 = ["anon", "mru", "mfu", "uncached"]
            .iter()
            .flat_map(|st| ["data", "metadata"].map(|k| format!("{st}_evictable_{k}")))
            .filter_map(|k| r.get(&k))
            .sum();
        assert_eq!(s.evictable_bytes.map(i128::from), Some(ev), "{f}");
        assert_eq!(s.unaccounted_bytes, Some(0), "{f}: §6.5 identity");
        assert_eq!(
            s.non_evictable_bytes.map(i128::from),
            Some(r["size"] - ev),
            "{f}"
        );
    }
}

fn with_value(t: &str, field: &str, value: u64) -> String {
    t.lines()
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            if w.first() == Some(&field) && w.len() == 3 {
                format!("{field} {} {value}", w[1])
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn overshoot_is_explained_with_largest_contributors_first() {
    let f = FILES[0];
    let r = raw(f);
    let size = r["size"] as u64;
    // A cap lowered at runtime: c drops to half of size.
    let c = size / 2;
    let s = explain(
        &parse_arcstats(&with_value(&text(f), "c", c), f).unwrap(),
        None,
        None,
        None,
        f,
    )
    .unwrap();
    assert_eq!(s.overshoot_bytes, size - c);
    assert!(!s.why_over.is_empty());
    assert!(
        s.why_over
            .iter()
            .any(|w| w.contains("eviction has not run yet")),
        "{:?}",
        s.why_over
    );
    assert!(s.warnings.iter().any(|w| w.contains("above c")));
    // c below the non-evictable total: even evicting everything cannot reach c.
    let c = 500 << 20;
    let s = explain(
        &parse_arcstats(&with_value(&text(f), "c", c), f).unwrap(),
        None,
        None,
        None,
        f,
    )
    .unwrap();
    assert!(
        s.why_over.iter().any(|w| w.contains("exceeds c")),
        "{:?}",
        s.why_over
    );
    // On this host the referenced MFU buffers are the largest held part, then dnodes.
    let mfu_held = r["mfu_size"] - r["mfu_evictable_data"] - r["mfu_evictable_metadata"];
    assert_eq!(s.contributors[0].name, "mfu_referenced");
    assert_eq!(i128::from(s.contributors[0].bytes), mfu_held);
    assert_eq!(s.contributors[1].name, "dnode");
    assert_eq!(i128::from(s.contributors[1].bytes), r["dnode_size"]);
}

#[test]
fn layouts_without_evictable_fields_say_what_cannot_be_computed() {
    let f = FILES[1];
    let t: String = text(f)
        .lines()
        .filter(|l| !l.contains("evictable"))
        .map(|l| format!("{l}\n"))
        .collect();
    // The header's row count no longer matches: fix it.
    let n = t.lines().count() - 2;
    let t = t.replacen(" 91 ", &format!(" {n} "), 1);
    let s = explain(&parse_arcstats(&t, f).unwrap(), None, None, None, f).unwrap();
    assert_eq!(s.evictable_bytes, None);
    assert_eq!(s.non_evictable_bytes, None);
    assert!(s.cannot_compute.iter().any(|c| c.contains("evictable")));
    assert!(
        s.contributors
            .iter()
            .all(|c| !c.name.ends_with("_referenced"))
    );
}

fn kstat(snaptime: u64, crtime: u64, rows: &[(&str, u64)]) -> ArcSnapshot {
    let mut t = format!(
        "1 1 0x01 {} 0 {crtime} {snaptime}\nname type data\n",
        rows.len()
    );
    for (n, v) in rows {
        t.push_str(&format!("{n} 4 {v}\n"));
    }
    parse_arcstats(&t, "t").unwrap()
}

#[test]
fn rates_use_snaptime_and_detect_resets() {
    let a = kstat(
        10_000_000_000,
        5,
        &[
            ("hits", 1000),
            ("misses", 100),
            ("demand_data_misses", 60),
            ("size", 7),
        ],
    );
    let b = kstat(
        12_000_000_000,
        5,
        &[
            ("hits", 3000),
            ("misses", 300),
            ("demand_data_misses", 100),
            ("size", 9),
        ],
    );
    let r = rates::row(&a, &b, 0.1);
    assert_eq!((r.seconds, r.time_source), (2.0, "snaptime"));
    assert_eq!(r.hits, Some(1000.0));
    assert_eq!(r.reads, Some(1100.0));
    assert_eq!(r.demand_misses, Some(20.0));
    assert_eq!(r.size, Some(9));
    assert!(r.resets.is_empty());
    // hits went down: a reset, not a negative rate.
    let c = kstat(
        13_000_000_000,
        5,
        &[
            ("hits", 10),
            ("misses", 400),
            ("demand_data_misses", 100),
            ("size", 9),
        ],
    );
    let r = rates::row(&b, &c, 0.1);
    assert_eq!(r.hits, None);
    assert_eq!(r.reads, None);
    assert_eq!(r.misses, Some(100.0));
    assert_eq!(r.resets, ["hits"]);
    // crtime changed: module reloaded, every counter reset, wall clock used.
    let d = kstat(
        1_000_000_000,
        9,
        &[
            ("hits", 5000),
            ("misses", 500),
            ("demand_data_misses", 100),
            ("size", 9),
        ],
    );
    let r = rates::row(&c, &d, 0.5);
    assert!(r.reloaded);
    assert_eq!((r.seconds, r.time_source), (0.5, "wall clock"));
    assert_eq!((r.hits, r.misses), (None, None));
    // First row: since load.
    let r = rates::first_row(&b);
    assert_eq!(
        r.hits,
        Some(3000.0 / ((12_000_000_000u64 - 5) as f64 / 1e9))
    );
}
