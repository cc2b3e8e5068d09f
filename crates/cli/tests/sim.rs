//! `arclab sim` end to end: golden numbers from libCacheSim through the CLI,
//! output shapes, parallel = sequential, and bad input.

mod common;
use common::*;

/// (file, format) for the five cloudPhysicsIO encodings.
const SAMPLES: [(&str, &str); 5] = [
    ("cloudPhysicsIO.oracleGeneral.bin.zst", "oracleGeneral"),
    ("cloudPhysicsIO.lcs.zst", "lcs"),
    ("cloudPhysicsIO.vscsi.zst", "vscsi"),
    ("cloudPhysicsIO.csv.zst", "csv"),
    ("cloudPhysicsIO.txt.zst", "txt"),
];

fn rows(v: &serde_json::Value) -> &Vec<serde_json::Value> {
    v["results"].as_array().expect("results array")
}

fn find<'a>(v: &'a serde_json::Value, policy: &str, capacity: u64) -> &'a serde_json::Value {
    rows(v)
        .iter()
        .find(|r| r["policy"] == policy && r["capacity"] == capacity)
        .unwrap_or_else(|| panic!("no row {policy} {capacity}"))
}

#[test]
fn object_mode_matches_libcachesim_in_all_five_formats() {
    // data/README.md, "Object mode" table (libCacheSim 0.3.5).
    let expected = [
        ("lru", 1000, 0.832716),
        ("lru", 10000, 0.697608),
        ("arc", 1000, 0.825725),
        ("arc", 10000, 0.697388),
        ("s3fifo", 1000, 0.825532),
        ("s3fifo", 10000, 0.663587),
        ("fifo", 1000, 0.838837),
        ("fifo", 10000, 0.695606),
    ];
    for (file, fmt) in SAMPLES {
        let path = trace(file);
        let mut args = vec![
            "sim",
            "--trace",
            &path,
            "--format",
            fmt,
            "--policy",
            "lru,arc,s3fifo,fifo",
            "--size",
            "1000,10000",
            "--ignore-obj-size",
            "--json",
        ];
        if fmt == "csv" {
            args.extend([
                "--csv-time-col",
                "2",
                "--csv-id-col",
                "5",
                "--csv-size-col",
                "4",
                "--csv-header",
            ]);
        }
        let v = json(&args);
        for (policy, cap, mr) in expected {
            let r = find(&v, policy, cap);
            let got = r["miss_ratio"].as_f64().unwrap();
            assert!(
                (got - mr).abs() < 5e-7,
                "{file} {policy} {cap}: {got:.6} != {mr:.6}"
            );
            assert_eq!(r["n_req"], 113_872);
        }
    }
}

#[test]
fn lru_byte_mode_misses_equal_libcachesim_test_values() {
    // libCacheSim's own test values (test/test_evictionAlgo.c) for LRU on the
    // oracleGeneral sample at 128 MiB .. 1 GiB in 128 MiB steps.
    let expected = [93374u64, 89783, 83572, 81722, 72494, 72104, 71972, 71704];
    let sizes: Vec<String> = (1..=8).map(|i| format!("{}MiB", 128 * i)).collect();
    let sizes = sizes.join(",");
    let path = trace("cloudPhysicsIO.oracleGeneral.bin.zst");
    let v = json(&[
        "sim", "--trace", &path, "--policy", "lru", "--size", &sizes, "--json",
    ]);
    for (i, want) in expected.iter().enumerate() {
        let r = find(&v, "lru", (128 * (i as u64 + 1)) << 20);
        assert_eq!(
            r["n_miss"].as_u64().unwrap(),
            *want,
            "LRU at {} MiB",
            128 * (i + 1)
        );
    }
}

#[test]
fn json_rows_have_the_documented_keys() {
    let path = trace("cloudPhysicsIO.oracleGeneral.bin.zst");
    let v = json(&[
        "sim",
        "--trace",
        &path,
        "--policy",
        "sieve",
        "--size",
        "0.1,64MiB",
        "--json",
    ]);
    assert_eq!(rows(&v).len(), 2);
    for r in rows(&v) {
        for key in [
            "policy",
            "size",
            "n_req",
            "n_miss",
            "n_req_byte",
            "n_miss_byte",
            "miss_ratio",
            "byte_miss_ratio",
            "req_per_sec",
        ] {
            assert!(r.get(key).is_some(), "missing {key} in {r}");
        }
        let (m, n) = (r["n_miss"].as_f64().unwrap(), r["n_req"].as_f64().unwrap());
        assert!((r["miss_ratio"].as_f64().unwrap() - m / n).abs() < 1e-12);
    }
    assert_eq!(rows(&v)[0]["size"], "0.1");
    assert_eq!(rows(&v)[1]["size"], "64MiB");
    // 0.1 of the working set: the lcs header of the same sample says 2,029,769,728 bytes.
    assert_eq!(rows(&v)[0]["capacity"].as_u64().unwrap(), 202_976_972);
}

#[test]
fn parallel_run_equals_sequential_run() {
    let path = trace("OLTP.lis.zst");
    let base = [
        "sim",
        "--trace",
        &path,
        "--policy",
        "lru,arc,s3fifo,sieve,fifo",
        "--size",
        "1000,5000",
        "--ignore-obj-size",
        "--json",
    ];
    let mut one = base.to_vec();
    one.extend(["--threads", "1"]);
    let mut two = base.to_vec();
    two.extend(["--threads", "2"]);
    let (a, b) = (json(&one), json(&two));
    for (x, y) in rows(&a).iter().zip(rows(&b)) {
        assert_eq!(x["n_miss"], y["n_miss"]);
        assert_eq!(x["n_miss_byte"], y["n_miss_byte"]);
    }
}

#[test]
fn csv_and_markdown_outputs() {
    let path = trace("cloudPhysicsIO.oracleGeneral.bin.zst");
    let out = arclab(&[
        "sim",
        "--trace",
        &path,
        "--policy",
        "lru",
        "--size",
        "1000",
        "--ignore-obj-size",
        "--csv",
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines();
    assert!(
        lines
            .next()
            .unwrap()
            .starts_with("policy,size,capacity,n_req,n_miss")
    );
    assert!(
        lines
            .next()
            .unwrap()
            .starts_with("lru,1000,1000,113872,94823,")
    );
    let out = arclab(&[
        "sim",
        "--trace",
        &path,
        "--policy",
        "lru",
        "--size",
        "1000",
        "--ignore-obj-size",
        "--markdown",
    ]);
    assert!(
        String::from_utf8(out.stdout)
            .unwrap()
            .starts_with("| policy | size |")
    );
}

#[test]
fn usage_errors_exit_2() {
    let path = trace("cloudPhysicsIO.oracleGeneral.bin.zst");
    let e = fails(&["sim", "--trace", &path, "--policy", "lfu"], 2);
    assert!(e.contains("lfu"), "{e}");
    let e = fails(&["sim", "--trace", &path, "--size", "8X"], 2);
    assert!(e.contains("8X"), "{e}");
    fails(&["sim", "--trace", &path, "--json", "--csv"], 2);
    fails(&["sim"], 2);
}

#[test]
fn bad_input_exits_1_with_the_file_named() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n).display().to_string();
    let run = |file: &str, extra: &[&str]| {
        let mut args = vec!["sim", "--trace", file, "--size", "10", "--policy", "lru"];
        args.extend_from_slice(extra);
        fails(&args, 1)
    };

    // Truncated record: one full 24-byte record and 10 bytes more.
    std::fs::write(p("t.oracleGeneral.bin"), [1u8; 34]).unwrap();
    let e = run(&p("t.oracleGeneral.bin"), &[]);
    assert!(
        e.contains("t.oracleGeneral.bin") && e.contains("record 2"),
        "{e}"
    );

    std::fs::write(p("empty.bin"), b"").unwrap();
    let e = run(&p("empty.bin"), &[]);
    assert!(e.contains("empty.bin") && e.contains("empty"), "{e}");

    std::fs::write(p("mystery.dat"), [7u8; 100]).unwrap();
    let e = run(&p("mystery.dat"), &[]);
    assert!(e.contains("mystery.dat") && e.contains("--format"), "{e}");

    std::fs::write(p("short.csv"), "a,b\n1,2\n3,4\n").unwrap();
    let e = run(&p("short.csv"), &["--csv-id-col", "5"]);
    assert!(e.contains("short.csv") && e.contains("line 2"), "{e}");

    std::fs::write(p("bad.txt"), b"1\n2\n\xff\xfe\n").unwrap();
    let e = run(&p("bad.txt"), &[]);
    assert!(e.contains("bad.txt") && e.contains("line 3"), "{e}");

    std::fs::write(p("fake.oracleGeneral.bin.zst"), [0u8; 48]).unwrap();
    let e = run(&p("fake.oracleGeneral.bin.zst"), &[]);
    assert!(
        e.contains("fake.oracleGeneral.bin.zst") && e.contains("zstd"),
        "{e}"
    );

    let e = run(&p("does-not-exist.bin"), &[]);
    assert!(e.contains("does-not-exist.bin"), "{e}");

    // Every error is one line.
    assert_eq!(e.trim_end().lines().count(), 1, "{e}");
}

#[test]
fn json_to_a_file_says_what_was_written_where() {
    // Issue 13: with the JSON also going to a file, stderr names the file and
    // the rows in it; stdout keeps the text table. The numbers in the file are
    // libCacheSim 0.3.5's (data/README.md, "Object mode": lru at 1000 objects
    // 0.832716, arc 0.825725).
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("rows.json");
    let path = trace("cloudPhysicsIO.oracleGeneral.bin.zst");
    let o = arclab(&[
        "sim",
        "--trace",
        &path,
        "--policy",
        "lru,arc",
        "--size",
        "1000",
        "--ignore-obj-size",
        "-o",
        out.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains(&format!(
            "arclab: wrote 2 rows (lru, arc × size 1000) to {} as JSON",
            out.display()
        )),
        "{err}"
    );
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("policy") && stdout.contains("0.832716"),
        "{stdout}"
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert!((find(&v, "lru", 1000)["miss_ratio"].as_f64().unwrap() - 0.832716).abs() < 5e-7);
    assert!((find(&v, "arc", 1000)["miss_ratio"].as_f64().unwrap() - 0.825725).abs() < 5e-7);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&out).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o644, "a new output file is 0644");
    }
}
