//! `arclab sim --policy zfs-arc` and `arclab limits` end to end.

mod common;
use common::*;

fn first(v: &serde_json::Value) -> &serde_json::Value {
    &v["results"][0]
}

#[test]
fn zfs_arc_rows_carry_arcstats_with_the_version_limits() {
    let path = trace("cloudPhysicsIO.oracleGeneral.bin.zst");
    let v = json(&[
        "sim",
        "--trace",
        &path,
        "--policy",
        "zfs-arc",
        "--zfs-version",
        "2.2",
        "--ram",
        "32GiB",
        "--arc-max",
        "8GiB",
        "--json",
    ]);
    let r = first(&v);
    assert_eq!(r["policy"], "zfs-arc");
    assert_eq!(r["n_req"], 113_872);
    let a = &r["arcstats"];
    for key in [
        "hits",
        "misses",
        "size",
        "c",
        "c_min",
        "c_max",
        "mru_size",
        "mfu_size",
        "mru_ghost_hits",
        "mfu_ghost_hits",
        "demand_data_hits",
        "prefetch_data_hits",
    ] {
        assert!(
            a.get(key).is_some_and(|x| x.is_u64()),
            "arcstats.{key} missing in {a}"
        );
    }
    // zfs-arc.md §3.1/§3.3: c_min = max(allmem/32, 32 MiB) = 1 GiB on 32 GiB;
    // an 8 GiB zfs_arc_max is accepted (≥ 64 MiB, < allmem, > c_min).
    assert_eq!(a["c_max"], 8u64 << 30);
    assert_eq!(a["c_min"], 1u64 << 30);
    // Every demand request is a hit, an I/O hit or a miss: the trace's
    // requests are all data, and a trace read as one unbounded file has no
    // indirect reads unless asked (docs/model.md).
    let demand = |k: &str| a[k].as_u64().unwrap();
    assert_eq!(r["n_miss"].as_u64().unwrap(), demand("demand_data_misses"));
    assert_eq!(demand("demand_metadata_misses"), 0, "{a}");
    assert!(v["zfs"]["behaviours"][0].as_str().unwrap().contains("2.2"));
}

#[test]
fn size_is_a_synonym_for_arc_max_and_default_means_the_version_limit() {
    let path = trace("cloudPhysicsIO.oracleGeneral.bin.zst");
    let a = json(&[
        "sim",
        "--trace",
        &path,
        "--policy",
        "zfs-arc",
        "--arc-max",
        "256MiB",
        "--json",
    ]);
    let b = json(&[
        "sim", "--trace", &path, "--policy", "zfs-arc", "--size", "256MiB", "--json",
    ]);
    assert_eq!(first(&a)["n_miss"], first(&b)["n_miss"]);
    assert_eq!(first(&a)["arcstats"]["c_max"], 256u64 << 20);
    // 2.3 on Linux: c_max = max(5/8 allmem, allmem − 1 GiB) = 31 GiB on 32 GiB (§3.2).
    let d = json(&[
        "sim",
        "--trace",
        &path,
        "--policy",
        "zfs-arc",
        "--arc-max",
        "default",
        "--json",
    ]);
    assert_eq!(first(&d)["size"], "default");
    assert_eq!(first(&d)["arcstats"]["c_max"], 31u64 << 30);
}

#[test]
fn default_capacity_is_the_versions_c_max_and_rows_say_which_run() {
    let path = trace("cloudPhysicsIO.oracleGeneral.bin.zst");
    let args = [
        "sim",
        "--trace",
        &path,
        "--policy",
        "zfs-arc",
        "--zfs-version",
        "2.2,2.3",
        "--prefetch",
        "on,off",
        "--arc-max",
        "default",
        "--ram",
        "32GiB",
    ];
    let v = json(&[&args[..], &["--json"]].concat());
    let rows = v["results"].as_array().unwrap();
    assert_eq!(rows.len(), 4);
    for r in rows {
        // OpenZFS arc_c_max on Linux with 32 GiB (arc_default_max(),
        // per release): 2.2: allmem / 2 = 16 GiB; 2.3: allmem − 1 GiB = 31 GiB.
        let want: u64 = if r["zfs_version"].as_str().unwrap().starts_with("2.2") {
            16 << 30
        } else {
            31 << 30
        };
        assert_eq!(r["capacity"], want, "{r}");
        assert_eq!(r["arcstats"]["c_max"], want, "{r}");
    }
    let text = ok(&args);
    let lines: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("policy"))
        .collect();
    let header: Vec<&str> = lines[0].split_whitespace().collect();
    assert_eq!(
        header[..4],
        ["policy", "zfs_version", "prefetch", "size"],
        "{text}"
    );
    let mut seen: Vec<(String, String)> = lines[1..]
        .iter()
        .map(|l| {
            let c: Vec<&str> = l.split_whitespace().collect();
            assert_eq!(c[3], "default", "{l}");
            // The default row's capacity is the c_max, not `0 B`.
            assert!(c[4] == "16.00" || c[4] == "31.00", "{l}");
            (c[1][..3].to_string(), c[2].to_string())
        })
        .collect();
    seen.sort();
    let want = [("2.2", "off"), ("2.2", "on"), ("2.3", "off"), ("2.3", "on")];
    assert_eq!(
        seen,
        want.map(|(a, b)| (a.to_string(), b.to_string())),
        "every row says which run it is:\n{text}"
    );
    // One setting: no column, said once in the header.
    let one = ok(&[
        "sim",
        "--trace",
        &path,
        "--policy",
        "zfs-arc",
        "--arc-max",
        "default",
    ]);
    assert!(one.contains("zfs-arc: prefetch on\n"), "{one}");
    assert!(!one.contains("prefetch  "), "{one}");
}

#[test]
fn prefetch_serves_a_sequential_reader() {
    // One pass over 20,000 consecutive blocks: every demand read is a cold
    // miss unless the prefetcher fetched it first.
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("seq.txt");
    let ids: Vec<String> = (1..=20_000).map(|i| i.to_string()).collect();
    std::fs::write(&p, ids.join("\n")).unwrap();
    let p = p.display().to_string();
    let v = json(&[
        "sim",
        "--trace",
        &p,
        "--policy",
        "zfs-arc",
        "--size",
        "1GiB",
        "--prefetch",
        "on,off",
        "--rate",
        "1000",
        "--json",
    ]);
    let rows = v["results"].as_array().unwrap();
    let (on, off) = (&rows[0], &rows[1]);
    assert_eq!(
        (on["prefetch"].as_bool(), off["prefetch"].as_bool()),
        (Some(true), Some(false))
    );
    assert_eq!(off["n_miss"], 20_000);
    assert!(on["n_miss"].as_u64().unwrap() < 200, "{}", on["n_miss"]);
    assert!(
        on["arcstats"]["demand_hit_predictive_prefetch"]
            .as_u64()
            .unwrap()
            > 19_000
    );
    assert!(on["zfetchstats"]["hits"].as_u64().unwrap() > 19_000);
    assert!(v["zfs"]["clock"].as_str().unwrap().contains("synthetic"));
}

#[test]
fn zfs_arc_rejects_object_mode_and_bad_versions() {
    let path = trace("cloudPhysicsIO.oracleGeneral.bin.zst");
    let e = fails(
        &[
            "sim",
            "--trace",
            &path,
            "--policy",
            "zfs-arc",
            "--ignore-obj-size",
            "--size",
            "1000",
        ],
        2,
    );
    assert!(e.contains("zfs-arc"), "{e}");
    let e = fails(
        &[
            "sim",
            "--trace",
            &path,
            "--policy",
            "zfs-arc",
            "--zfs-version",
            "9x",
        ],
        2,
    );
    assert!(e.contains("zfs-version"), "{e}");
}

#[test]
fn limits_match_the_blog_and_the_fixtures() {
    // The blog: "On my 31 GiB that was an arc_c_max of 30.24 GiB" (2.3 default).
    let v = json(&["limits", "--ram", "31.24GiB", "--json"]);
    let c_max = v["c_max_bytes"].as_u64().unwrap() as f64 / (1u64 << 30) as f64;
    assert!((c_max - 30.24).abs() < 0.005, "{c_max}");
    for key in [
        "c_min_bytes",
        "c_max_bytes",
        "sys_free_bytes",
        "dnode_limit_bytes",
    ] {
        assert!(v.get(key).is_some(), "{key}");
    }
    // The OpenZFS ≥ 2.3 fixture: memory_all_bytes 33532497920 gives c_max
    // 32458756096 and arc_sys_free 1223678080 (values read from the file).
    let field = |name: &str| {
        arclab_testdata::arcstat("arcstats/linux-openzfs22plus-telegraf.arcstats", name)
    };
    let ram = field("memory_all_bytes").to_string();
    let v = json(&["limits", "--ram", &ram, "--zfs-version", "2.3", "--json"]);
    assert_eq!(v["c_max_bytes"].as_u64().unwrap(), field("c_max"));
    assert_eq!(v["c_min_bytes"].as_u64().unwrap(), field("c_min"));
    assert_eq!(v["sys_free_bytes"].as_u64().unwrap(), field("arc_sys_free"));
    // A zfs_arc_max at RAM is ignored (§3.3) and the text says why.
    let out = arclab(&["limits", "--ram", "16G", "--arc-max", "16G"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("IGNORED"), "{text}");
    fails(&["limits", "--ram", "8X"], 2);
}

/// The working-set pass (a second read of the whole trace) is taken only when
/// a run's size is a fraction of it: zfs-arc given `--arc-max` in bytes skips
/// it even though `--size` keeps its fractional default.
#[test]
fn the_working_set_pass_runs_only_for_fractions() {
    let path = trace("cloudPhysicsIO.oracleGeneral.bin.zst");
    let base = ["sim", "--trace", &path, "--policy", "zfs-arc", "--json"];
    let bytes = json(&[&base[..], &["--arc-max", "64M"]].concat());
    assert!(bytes["working_set"].is_null(), "{}", bytes["working_set"]);
    let frac = json(&[&base[..], &["--arc-max", "0.5"]].concat());
    // 0.5 of the working set: half of the bytes the pass counted.
    let w = frac["working_set"]["bytes"].as_u64().unwrap();
    assert!(w > 0);
    assert_eq!(frac["results"][0]["capacity"].as_u64().unwrap(), w / 2);
}

#[test]
fn a_compression_ratio_charges_data_compressed() {
    // cloudPhysicsIO's blocks are 4–64 KiB; at 2x each is charged half its
    // logical size rounded up to 4 KiB (and a 4 KiB block stays 4 KiB), so
    // the ARC's data is smaller than the logical bytes it stands for.
    let path = trace("cloudPhysicsIO.oracleGeneral.bin.zst");
    let run = |ratio: &str| {
        let v = json(&[
            "sim",
            "--trace",
            &path,
            "--policy",
            "zfs-arc",
            "--ram",
            "16GiB",
            "--arc-max",
            "256MiB",
            "--compress-ratio",
            ratio,
            "--json",
        ]);
        first(&v).clone()
    };
    let plain = run("1");
    let packed = run("2x");
    let a = &packed["arcstats"];
    let u = |k: &str| a[k].as_u64().unwrap();
    assert!(u("uncompressed_size") > u("compressed_size"), "{a}");
    // The data part's logical bytes are twice its charged bytes.
    let meta = u("compressed_size") - u("data_size");
    assert_eq!(u("uncompressed_size") - meta, 2 * u("data_size"));
    // Same trace, same cap: more of it fits, fewer demand misses.
    let m = |r: &serde_json::Value| r["n_miss"].as_u64().unwrap();
    assert!(m(&packed) < m(&plain), "{} vs {}", m(&packed), m(&plain));
    let pa = &plain["arcstats"];
    assert_eq!(pa["uncompressed_size"], pa["compressed_size"]);
    // Bad ratios are refused with the flag named.
    for bad in ["0.5", "abc", "101"] {
        let e = fails(&["sim", "--trace", &path, "--compress-ratio", bad], 2);
        assert!(e.contains("compress-ratio"), "{e}");
    }
}
