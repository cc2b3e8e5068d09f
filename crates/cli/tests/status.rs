//! `arclab status` on the real fixtures; values are read from the files.

mod common;

use common::{arclab, fails, json};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    arclab_testdata::path(&format!("arcstats/{name}"))
}

/// A naive independent reading of a fixture: name → value.
fn raw(path: &Path) -> HashMap<String, i128> {
    let mut m = HashMap::new();
    for l in std::fs::read_to_string(path).unwrap().lines() {
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

const CASES: [(&str, &str); 3] = [
    ("linux-openzfs22plus-telegraf.arcstats", "--arcstats"),
    ("linux-zol07-node_exporter.arcstats", "--arcstats"),
    ("freebsd14-telegraf.sysctl.txt", "--sysctl"),
];

#[test]
fn json_values_equal_the_files_values() {
    for (name, flag) in CASES {
        let path = fixture(name);
        let r = raw(&path);
        let p = path.to_str().unwrap();
        let v = json(&["status", flag, p, "--json"]);
        for (key, field) in [
            ("size_bytes", "size"),
            ("c_bytes", "c"),
            ("c_min_bytes", "c_min"),
            ("c_max_bytes", "c_max"),
        ] {
            assert_eq!(
                v[key].as_i64().map(i128::from),
                Some(r[field]),
                "{name} {key}"
            );
        }
        assert_eq!(
            v["overshoot_bytes"].as_i64().map(i128::from),
            Some((r["size"] - r["c"]).max(0)),
            "{name}"
        );
        let hits = r["hits"];
        let acc = hits + r.get("iohits").copied().unwrap_or(0) + r["misses"];
        let ratio = v["hit_ratio"].as_f64().unwrap();
        assert!(
            (ratio - hits as f64 / acc as f64).abs() < 1e-12,
            "{name}: {ratio}"
        );
        assert!(v["contributors"].is_array(), "{name}");
        // The JSON is `Status` serialized: the source path, the states as a map
        // (`mru` = the file's mru_size), and byte counts as numbers
        // (`unaccounted_bytes` was a string before `Status` derived Serialize).
        assert_eq!(v["source"], p, "{name}");
        assert_eq!(
            v["states"]["mru"].as_i64().map(i128::from),
            Some(r["mru_size"]),
            "{name}"
        );
        assert!(v["unaccounted_bytes"].is_i64(), "{name}");
        for k in ["non_evictable_bytes", "default_c_max_bytes", "ram_bytes"] {
            assert!(v.get(k).is_some(), "{name}: {k} missing");
        }
        match r.get("memory_all_bytes") {
            Some(&ram) => {
                assert_eq!(v["ram_bytes"].as_i64().map(i128::from), Some(ram), "{name}");
                // Every fixture host runs with the default limit.
                assert_eq!(v["default_c_max_bytes"], v["c_max_bytes"], "{name}");
                assert_eq!(v["c_max_changed"], false, "{name}");
            }
            None => {
                assert!(v["ram_bytes"].is_null(), "{name}");
                assert!(v["default_c_max_bytes"].is_null(), "{name}");
                let ram = (2 * r["c_max"]).to_string();
                let v = json(&["status", flag, p, "--json", "--ram", &ram]);
                assert_eq!(
                    v["default_c_max_bytes"], v["c_max_bytes"],
                    "{name}: 0.6 default is allmem/2"
                );
            }
        }
    }
}

#[test]
fn human_output_has_the_sections_and_warnings_last() {
    let p = fixture(CASES[0].0);
    let out = arclab(&["status", "--arcstats", p.to_str().unwrap()]);
    assert!(out.status.success());
    let s = String::from_utf8(out.stdout).unwrap();
    for part in [
        "c_max is the default",
        "Why size > c",
        "Hit ratios since load",
        "GiB",
        "non-evictable",
    ] {
        assert!(s.contains(part), "{part}:\n{s}");
    }
    let w = s.find("\nWarnings\n").expect("warnings");
    assert!(
        s[w..].lines().skip(2).all(|l| l.starts_with("  ! ")),
        "warnings last:\n{s}"
    );
    assert!(s[w..].contains("containers"), "{s}");
}

fn procfs_with(arcstats: &str) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let k = d.path().join("spl/kstat/zfs");
    std::fs::create_dir_all(&k).unwrap();
    std::fs::write(k.join("arcstats"), arcstats).unwrap();
    d
}

#[test]
fn procfs_reads_zfetchstats_and_dbufstats_and_explains_an_overshoot() {
    let path = fixture(CASES[0].0);
    let r = raw(&path);
    let c = r["size"] / 2;
    let text: String = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .map(|l| {
            if l.split_whitespace().next() == Some("c") {
                format!("c 4 {c}\n")
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    let d = procfs_with(&text);
    let k = d.path().join("spl/kstat/zfs");
    std::fs::write(
        k.join("zfetchstats"),
        "4 1 0x01 3 816 1 2\nname type data\nhits 4 700\nmisses 4 300\nmax_streams 4 12\n",
    )
    .unwrap();
    std::fs::write(k.join("dbufstats"), "5 1 0x01 2 544 1 2\nname type data\ncache_size_bytes 4 1048576\ncache_target_bytes 4 2097152\n").unwrap();
    let v = json(&["status", "--procfs", d.path().to_str().unwrap(), "--json"]);
    assert_eq!(
        v["overshoot_bytes"].as_i64().map(i128::from),
        Some(r["size"] - c)
    );
    let contributors = v["contributors"].as_array().unwrap();
    let bytes: Vec<i64> = contributors
        .iter()
        .map(|c| c["bytes"].as_i64().unwrap())
        .collect();
    assert!(
        bytes.windows(2).all(|w| w[0] >= w[1]),
        "largest first: {bytes:?}"
    );
    assert!(!v["why_size_above_c"].as_array().unwrap().is_empty());
    let extra = v["extra"].to_string();
    assert!(
        extra.contains("700 stream hits") && extra.contains("dbuf cache"),
        "{extra}"
    );
}

#[test]
fn bad_input_names_the_file_and_line() {
    let good = std::fs::read_to_string(fixture(CASES[0].0)).unwrap();
    // Truncated: the last 20 rows are gone.
    let lines: Vec<&str> = good.lines().collect();
    let truncated = lines[..lines.len() - 20].join("\n");
    let d = procfs_with(&truncated);
    let e = fails(&["status", "--procfs", d.path().to_str().unwrap()], 1);
    assert!(e.contains("arcstats: line 130: truncated"), "{e}");
    // A non-number.
    let bad = good.replacen(
        "misses                          4    30882817",
        "misses 4 30882x17",
        1,
    );
    let d = procfs_with(&bad);
    let e = fails(&["status", "--procfs", d.path().to_str().unwrap()], 1);
    assert!(
        e.contains("line 5: value `30882x17` of `misses` is not a number"),
        "{e}"
    );
    // Unknown layout.
    let d = procfs_with("hello world\nthis is not a kstat\n");
    let e = fails(&["status", "--procfs", d.path().to_str().unwrap()], 1);
    assert!(e.contains("line 1: unknown layout"), "{e}");
    // Missing kstats, missing file.
    let d = tempfile::tempdir().unwrap();
    let e = fails(&["status", "--procfs", d.path().to_str().unwrap()], 1);
    assert!(e.contains("no ZFS kstats here"), "{e}");
    fails(&["status", "--arcstats", "/nonexistent/arcstats"], 1);
    // Usage: bad --ram, a Linux file given as --sysctl, two sources.
    let p = fixture(CASES[0].0);
    let p = p.to_str().unwrap();
    let e = fails(&["status", "--arcstats", p, "--ram", "8X"], 2);
    assert!(e.contains("8X"), "{e}");
    fails(&["status", "--sysctl", p], 2);
    fails(&["status", "--arcstats", p, "--procfs", "/proc"], 2);
}

/// node_exporter's metrics text of the ZoL 0.7 host and its arcstats, read at
/// the same moment: `status --metrics` equals `status --arcstats` except for
/// what the metrics text cannot carry (the kstat header, and exact integers
/// beyond 2^53: node_exporter prints floats, so the int64
/// `memory_available_bytes` -922337203685477580 arrives as
/// -9.223372036854776e+17).
#[test]
fn metrics_text_gives_the_same_status_as_the_arcstats() {
    let m = fixture("linux-zol07-node_exporter.metrics.txt");
    let a = fixture("linux-zol07-node_exporter.arcstats");
    let vm = json(&["status", "--metrics", m.to_str().unwrap(), "--json"]);
    let va = json(&["status", "--arcstats", a.to_str().unwrap(), "--json"]);
    let (om, oa) = (vm.as_object().unwrap(), va.as_object().unwrap());
    assert_eq!(om.keys().collect::<Vec<_>>(), oa.keys().collect::<Vec<_>>());
    let no_header = |v: &serde_json::Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap().to_string())
            .filter(|x| !x.contains("header announces") && !x.contains("memory_available_bytes is"))
            .collect()
    };
    let mut compared = 0;
    for (k, x) in oa {
        let y = &om[k];
        match k.as_str() {
            "source" => {}
            "available_bytes" => {
                let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
                assert!((x - y).abs() <= 1024.0, "{x} vs {y}");
            }
            _ if x.is_array() && x.as_array().unwrap().iter().all(|e| e.is_string()) => {
                assert_eq!(no_header(x), no_header(y), "{k}")
            }
            _ => assert_eq!(x, y, "{k}"),
        }
        compared += 1;
    }
    assert!(compared > 20, "{compared}");
    // The raw values of the metrics file are those of the arcstats file.
    let r = raw(&a);
    assert_eq!(
        vm["size_bytes"].as_i64().map(i128::from),
        r.get("size").copied()
    );
    assert_eq!(
        vm["c_max_bytes"].as_i64().map(i128::from),
        r.get("c_max").copied()
    );
    // Not node_exporter text: a clear error naming the file.
    let e = fails(&["status", "--metrics", a.to_str().unwrap()], 1);
    assert!(e.contains("node_zfs_arc_"), "{e}");
}

/// On FreeBSD the cap is named as FreeBSD spells it (loader.conf /
/// sysctl `vfs.zfs.arc.max`, or the alias `vfs.zfs.arc_max`), not Linux's.
#[test]
fn freebsd_status_names_the_freebsd_tunable() {
    let f = fixture("freebsd14-telegraf.sysctl.txt");
    let out = arclab(&["status", "--sysctl", f.to_str().unwrap()]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("vfs.zfs.arc.max"), "{text}");
    assert!(!text.contains("zfs_arc_max"), "{text}");
}
