//! `arclab trace info` and `arclab trace convert` end to end.

mod common;
use common::*;

#[test]
fn info_counts_match_the_shared_readme() {
    // data/README.md: 113,872 requests over 48,974 objects; the lcs
    // header says n_req_byte 4,368,040,448 and n_obj_byte 2,029,769,728.
    let v = json(&[
        "trace",
        "info",
        &trace("cloudPhysicsIO.oracleGeneral.bin.zst"),
        "--json",
    ]);
    assert_eq!(v["n_req"], 113_872);
    assert_eq!(v["n_obj"], 48_974);
    assert_eq!(v["n_req_byte"], 4_368_040_448u64);
    assert_eq!(v["working_set_bytes"], 2_029_769_728u64);
    assert_eq!(v["format"], "oracleGeneral");
    // Every object is requested once or reused: reuses = requests - objects.
    assert_eq!(v["reuse_distance"]["count"], 113_872 - 48_974);

    // ARC paper, Table III: OLTP 914,145 requests over 186,880 pages.
    let v = json(&["trace", "info", &trace("OLTP.lis.zst"), "--json"]);
    assert_eq!(v["n_req"], 914_145);
    assert_eq!(v["n_obj"], 186_880);

    let out = arclab(&["trace", "info", &trace("cloudPhysicsIO.vscsi.zst")]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("113872") && text.contains("vscsi"), "{text}");
}

#[test]
fn convert_then_replay_gives_the_same_misses() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir
        .path()
        .join("cp.oracleGeneral.bin.zst")
        .display()
        .to_string();
    let src = trace("cloudPhysicsIO.vscsi.zst");
    let o = arclab(&["trace", "convert", &src, &out]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let sim = |path: &str| {
        json(&[
            "sim",
            "--trace",
            path,
            "--policy",
            "lru,arc",
            "--size",
            "1000,10000",
            "--ignore-obj-size",
            "--json",
        ])
    };
    let (a, b) = (sim(&src), sim(&out));
    for (x, y) in a["results"]
        .as_array()
        .unwrap()
        .iter()
        .zip(b["results"].as_array().unwrap())
    {
        assert_eq!(x["n_miss"], y["n_miss"]);
    }
}

#[test]
fn convert_never_leaves_a_partial_output() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.oracleGeneral.bin");
    let mut bytes = vec![0u8; 24 * 3];
    bytes[4] = 1; // a non-zero size so the records are not skipped
    bytes[12] = 1;
    bytes.extend_from_slice(&[1, 2, 3]);
    std::fs::write(&bad, &bytes).unwrap();
    let out = dir.path().join("out.bin");
    std::fs::write(&out, b"precious").unwrap();
    let e = fails(
        &[
            "trace",
            "convert",
            &bad.display().to_string(),
            &out.display().to_string(),
        ],
        1,
    );
    assert!(e.contains("bad.oracleGeneral.bin"), "{e}");
    assert_eq!(std::fs::read(&out).unwrap(), b"precious");
}

/// oracleGeneral records carry no operation (libCacheSim's
/// oracleGeneralBin_read_one_req sets none; docs/formats.md), so `trace info`
/// says "unknown" instead of "100.0 % reads"; vscsi records the SCSI command,
/// so its split is given and covers every request (113,872, data/README.md).
#[test]
fn info_says_unknown_where_the_format_has_no_operation() {
    let f = trace("cloudPhysicsIO.oracleGeneral.bin.zst");
    let text = ok(&["trace", "info", &f]);
    let line = text.lines().find(|l| l.contains("reads / writes")).unwrap();
    assert!(line.contains("unknown") && !line.contains('%'), "{line}");
    let v = json(&["trace", "info", &f, "--json"]);
    assert!(v["n_read"].is_null() && v["n_write"].is_null(), "{v}");
    assert_eq!(v["ops_recorded"], false);
    let v = json(&[
        "trace",
        "info",
        &trace("cloudPhysicsIO.vscsi.zst"),
        "--json",
    ]);
    assert_eq!(v["ops_recorded"], true);
    let sum: u64 = ["n_read", "n_write", "n_delete"]
        .iter()
        .map(|k| v[k].as_u64().unwrap())
        .sum();
    assert_eq!(sum, 113_872);
    // Both reads and writes occur: the field was read, not defaulted to reads.
    assert!(v["n_write"].as_u64().unwrap() > 0, "{v}");
}
