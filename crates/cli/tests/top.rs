//! `arclab top` on a procfs directory whose arcstats the test rewrites
//! between samples, including a counter reset.

mod common;

use common::{fails, ok};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};

/// A kstat file with the given header times and counters.
fn kstat(crtime: u64, snaptime: u64, rows: &[(&str, u64)]) -> String {
    let mut t = format!(
        "22 1 0x01 {} 0 {crtime} {snaptime}\nname                            type data\n",
        rows.len()
    );
    for (n, v) in rows {
        t.push_str(&format!("{n:<31} 4    {v}\n"));
    }
    t
}

fn rows(hits: u64, misses: u64, dmis: u64, pmis: u64) -> Vec<(&'static str, u64)> {
    vec![
        ("hits", hits),
        ("iohits", 0),
        ("misses", misses),
        ("demand_data_misses", dmis),
        ("prefetch_data_misses", pmis),
        ("c", 8 << 30),
        ("size", 9 << 30),
    ]
}

fn write(dir: &Path, text: &str) {
    let k = dir.join("spl/kstat/zfs");
    std::fs::create_dir_all(&k).unwrap();
    // Replace atomically so the reader never sees half a file.
    std::fs::write(k.join("arcstats.tmp"), text).unwrap();
    std::fs::rename(k.join("arcstats.tmp"), k.join("arcstats")).unwrap();
}

#[test]
fn rates_per_interval_with_a_counter_reset() {
    let d = tempfile::tempdir().unwrap();
    let s = 1_000_000_000u64;
    write(d.path(), &kstat(5, 100 * s, &rows(1000, 100, 60, 40)));
    let mut child = Command::new(env!("CARGO_BIN_EXE_arclab"))
        .args([
            "top",
            "--procfs",
            d.path().to_str().unwrap(),
            "--on-stdin",
            "--json",
            "--count",
            "4",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut next =
        || -> serde_json::Value { serde_json::from_str(&out.next().unwrap().unwrap()).unwrap() };
    // 1: since load (snaptime − crtime ≈ 100 s).
    let r = next();
    assert_eq!(r["time_source"], "since load");
    assert!((r["hits_per_s"].as_f64().unwrap() - 10.0).abs() < 1e-6);
    // 2: 2 s later (by snaptime), +4000 hits, +100 misses.
    write(d.path(), &kstat(5, 102 * s, &rows(5000, 200, 120, 80)));
    writeln!(stdin).unwrap();
    let r = next();
    assert_eq!(
        (r["seconds"].as_f64(), r["time_source"].as_str()),
        (Some(2.0), Some("snaptime"))
    );
    assert_eq!(r["hits_per_s"].as_f64(), Some(2000.0));
    assert_eq!(r["misses_per_s"].as_f64(), Some(50.0));
    assert_eq!(r["reads_per_s"].as_f64(), Some(2050.0));
    assert_eq!(r["demand_misses_per_s"].as_f64(), Some(30.0));
    assert_eq!(r["prefetch_misses_per_s"].as_f64(), Some(20.0));
    assert!((r["hit_pct"].as_f64().unwrap() - 100.0 * 2000.0 / 2050.0).abs() < 1e-9);
    assert_eq!(r["size_bytes"].as_u64(), Some(9 << 30));
    // 3: hits and misses went down: shown as resets, never negative.
    write(d.path(), &kstat(5, 103 * s, &rows(30, 10, 130, 90)));
    writeln!(stdin).unwrap();
    let r = next();
    assert!(
        r["hits_per_s"].is_null() && r["misses_per_s"].is_null() && r["reads_per_s"].is_null(),
        "{r}"
    );
    assert_eq!(r["resets"], serde_json::json!(["hits", "misses"]));
    assert_eq!(r["demand_misses_per_s"].as_f64(), Some(10.0));
    // 4: module reloaded (crtime changed): every counter reset.
    write(d.path(), &kstat(9, 2 * s, &rows(50, 20, 1, 1)));
    writeln!(stdin).unwrap();
    let r = next();
    assert_eq!(r["reloaded"], true);
    assert!(r["demand_misses_per_s"].is_null());
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

#[test]
fn sleeps_for_the_interval_and_prints_a_table() {
    let d = tempfile::tempdir().unwrap();
    let fx = arclab_testdata::path("arcstats/linux-openzfs22plus-telegraf.arcstats");
    write(d.path(), &std::fs::read_to_string(fx).unwrap());
    let t0 = std::time::Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_arclab"))
        .args([
            "top",
            "--procfs",
            d.path().to_str().unwrap(),
            "--interval",
            "100ms",
            "--count",
            "3",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(t0.elapsed() >= std::time::Duration::from_millis(200));
    let s = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = s[s.find('\n').unwrap() + 1..].lines().collect();
    assert_eq!(lines.len(), 4, "{s}");
    assert!(
        lines[0].contains("read/s") && lines[0].contains("avail"),
        "{s}"
    );
    assert!(lines[1].contains("average since module load"), "{s}");
    // Same file: no activity, and the unchanged snaptime falls back to the wall clock.
    assert!(
        lines[2].contains(" 0.0 ") && !lines[2].contains("RESET"),
        "{s}"
    );
    assert!(lines[2].contains("13.93 GiB"), "{s}");
}

#[test]
fn a_counter_reset_is_shown_in_the_table() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        &kstat(5, 10_000_000_000, &rows(1000, 100, 60, 40)),
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_arclab"))
        .args(["top", "--procfs", d.path().to_str().unwrap(), "--on-stdin"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap()).lines();
    out.next();
    out.next();
    out.next();
    write(d.path(), &kstat(5, 11_000_000_000, &rows(10, 200, 70, 40)));
    writeln!(stdin).unwrap();
    let line = out.next().unwrap().unwrap();
    assert!(
        line.contains("reset") && line.contains("RESET: hits went down"),
        "{line}"
    );
    assert!(!line.contains(" -9"), "no negative rate: {line}");
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

#[test]
fn bad_arguments_and_missing_files() {
    fails(&["top", "--interval", "soon", "--count", "1"], 2);
    fails(&["top", "--interval", "0s", "--count", "1"], 2);
    fails(&["top", "--interval", "2d", "--count", "1"], 2);
    // Hours parse as in `record --interval` (one duration parser); with
    // --count 1 only the since-load line is printed, without sleeping.
    let f = arclab_testdata::path("arcstats/linux-openzfs22plus-telegraf.arcstats");
    ok(&[
        "top",
        "--interval",
        "1h",
        "--count",
        "1",
        "--arcstats",
        f.to_str().unwrap(),
    ]);
    let d = tempfile::tempdir().unwrap();
    let e = fails(
        &[
            "top",
            "--procfs",
            d.path().to_str().unwrap(),
            "--count",
            "1",
        ],
        1,
    );
    assert!(e.contains("no ZFS kstats"), "{e}");
    // The hint names only options `top` takes.
    assert!(e.contains("--arcstats") && !e.contains("--sysctl"), "{e}");
}

/// Every row's cells line up under the header: the since-load interval of
/// the first row (97946.59 s on the ZoL 0.7 fixture: snaptime − crtime of its
/// header, 97951858082072 − 5266997922 ns) is stated on its own line, and the
/// row's int cell is `load`. The fixture's int64 memory_available_bytes
/// -922337203685477580 is not shown as "-819.20 PiB"; a plausible negative
/// value is shown signed.
#[test]
fn first_interval_on_its_own_line_and_available_memory_sane() {
    let f = arclab_testdata::path("arcstats/linux-zol07-node_exporter.arcstats");
    let s = ok(&[
        "top",
        "--count",
        "2",
        "--interval",
        "10ms",
        "--arcstats",
        f.to_str().unwrap(),
    ]);
    let lines: Vec<&str> = s.lines().collect();
    assert_eq!(lines.len(), 4, "{s}");
    assert!(lines[0].contains("97946.59 s"), "{s}");
    let header = lines[1];
    let avail_end = header.find("avail").unwrap() + "avail".len();
    let int_end = header.find(" int").unwrap() + " int".len();
    for row in &lines[2..] {
        // Right-aligned cells end where their header ends.
        assert_eq!(row.as_bytes()[int_end], b' ', "{s}");
        assert_eq!(row.as_bytes()[avail_end], b' ', "{s}");
        assert_eq!(&row[avail_end - 7..avail_end], "invalid", "{s}");
    }
    assert!(lines[2][..int_end].ends_with("load"), "{s}");
    assert!(!s.contains("PiB"), "{s}");
    assert!(s.contains("-922337203685477580 is implausible"), "{s}");
    // A real shortfall of 3 GiB (kstat type 3, int64) is shown as -3.00 GiB.
    let d = tempfile::tempdir().unwrap();
    let mut t = kstat(5, 10_000_000_000, &rows(1000, 100, 60, 40));
    t.push_str("memory_available_bytes          3    -3221225472\n");
    t = t.replacen(" 7 0 ", " 8 0 ", 1);
    write(d.path(), &t);
    let s = ok(&[
        "top",
        "--count",
        "1",
        "--procfs",
        d.path().to_str().unwrap(),
    ]);
    assert!(s.contains(" -3.00 GiB"), "{s}");
}
