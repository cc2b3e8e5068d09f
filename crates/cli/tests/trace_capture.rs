//! `arclab trace info` and `trace convert` on `.arct` captures, through the binary.
//!
//! The captures are written here with `arclab_trace::capture::CaptureWriter`;
//! expected values come from the records written (counts, the kernel's
//! cached flag, OpenZFS's `ARC_FLAG_PREFETCH` = 1 << 2 and `ARC_FLAG_CACHED`
//! = 1 << 3) and from the documented mapping `block_key(file, level, blkid)`
//! = `file << 41 | (level > 0) << 40 | blkid`.

mod common;
use common::*;

use arclab_trace::capture::*;
use std::path::Path;

const P: u32 = ARC_FLAG_PREFETCH;
const C: u32 = ARC_FLAG_CACHED;

/// Eight demand reads (three cached), two prefetches, over three files and
/// two pools; a finished capture unless `cut`, which drops the summary and
/// the last records block's final bytes.
fn write_capture(path: &Path, cut: bool) -> Vec<u8> {
    let header = CaptureHeader {
        host: "db1".into(),
        created_unix_s: 1_764_600_000,
        zfs_version: Some("2.2.2".into()),
        arc_c_bytes: Some(8 << 30),
        ..CaptureHeader::default()
    };
    let mut w = CaptureWriter::new(Vec::new(), &header).unwrap();
    let tank = w.add_pool("tank").unwrap();
    w.add_dataset(Dataset {
        pool: tank,
        objset: 54,
        name: "tank/db".into(),
        recordsize: 16384,
    })
    .unwrap();
    let s = 1_000_000_000;
    // (time, pool, object, blkid, aflags)
    let first = [
        (0, tank, 2, 0, 0),
        (s / 2, tank, 2, 1, C),
        (s, tank, 3, 0, 0),
        (s, tank, 2, 2, P),
        (2 * s, tank, 2, 0, C),
    ];
    for (t, pool, object, blkid, aflags) in first {
        w.push(&rec(t, pool, object, blkid, aflags)).unwrap();
    }
    w.flush().unwrap();
    let scratch = w.add_pool("scratch").unwrap();
    let second = [
        (3 * s, scratch, 2, 0, 0),
        (3 * s, tank, 3, 0, C | P),
        (4 * s, scratch, 2, 0, 0),
        (5 * s, tank, 3, 1, 0),
        (5 * s, tank, 3, 0, C),
    ];
    for (t, pool, object, blkid, aflags) in second {
        w.push(&rec(t, pool, object, blkid, aflags)).unwrap();
    }
    let bytes = if cut {
        w.flush().unwrap();
        let v = w.get_ref();
        v[..v.len() - 5].to_vec()
    } else {
        w.finish(&CaptureSummary {
            records: 10,
            lost: 17,
            polls: 6,
            duration_ns: 6 * s,
            stopped_by: "duration".into(),
            extra: serde_json::Value::Null,
        })
        .unwrap()
    };
    std::fs::write(path, &bytes).unwrap();
    bytes
}

fn rec(time_ns: u64, pool: u16, object: u64, blkid: u64, aflags: u32) -> CaptureRecord {
    CaptureRecord {
        time_ns,
        pool,
        objset: 54,
        object,
        level: 0,
        blkid,
        size: 16384,
        aflags,
        pid: 7,
    }
}

#[test]
fn info_prints_the_capture_facts() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("db1.arct");
    write_capture(&p, false);
    let f = p.display().to_string();
    let v = json(&["trace", "info", &f, "--json"]);
    assert_eq!(v["format"], "arct");
    assert_eq!(v["n_req"], 8, "demand reads only");
    // Files (tank,54,2) (tank,54,3) (scratch,54,2); blocks: (f0,0) (f0,1)
    // (f1,0) (f2,0) (f1,1).
    assert_eq!(v["n_obj"], 5);
    let c = &v["capture"];
    assert_eq!(c["header"]["host"], "db1");
    assert_eq!(c["header"]["zfs_version"], "2.2.2");
    assert_eq!(c["header"]["arc_c_bytes"], 8u64 << 30);
    assert_eq!(c["header"]["sample_rate"], 1.0);
    assert_eq!(
        (c["pools"].as_u64(), c["datasets"].as_u64()),
        (Some(2), Some(1))
    );
    assert_eq!(c["records"], 10);
    assert_eq!(
        (c["demand"].as_u64(), c["demand_cached"].as_u64()),
        (Some(8), Some(3))
    );
    assert_eq!(
        (c["prefetch"].as_u64(), c["prefetch_cached"].as_u64()),
        (Some(2), Some(1))
    );
    assert_eq!(c["kernel_demand_hit_ratio"], 3.0 / 8.0);
    assert_eq!(c["lost"], 17);
    assert_eq!(c["summary"]["stopped_by"], "duration");
    assert!(c["truncated"].is_null());
    assert_eq!(c["files"], 3);

    let text = ok(&["trace", "info", &f]);
    for want in [
        "db1 (",
        "OpenZFS 2.2.2",
        "8.00 GiB",
        "2 / 1",
        "37.5 %",
        "17 (stopped by duration)",
    ] {
        assert!(text.contains(want), "{want:?} missing from:\n{text}");
    }
    // Other formats have no capture section.
    let v = json(&[
        "trace",
        "info",
        &trace("cloudPhysicsIO.oracleGeneral.bin.zst"),
        "--json",
    ]);
    assert!(v.get("capture").is_none());
}

#[test]
fn info_reports_a_cut_capture() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("cut.arct");
    write_capture(&p, true);
    let f = p.display().to_string();
    let v = json(&["trace", "info", &f, "--json"]);
    // Only the first records block survives: 4 demand reads.
    assert_eq!(v["n_req"], 4);
    let c = &v["capture"];
    assert!(c["summary"].is_null() && c["lost"].is_null());
    let t = c["truncated"].as_str().unwrap();
    assert!(t.contains("cut inside block"), "{t}");
    let text = ok(&["trace", "info", &f]);
    assert!(
        text.contains("the capture did not finish") && text.contains("truncated"),
        "{text}"
    );
}

#[test]
fn convert_writes_the_demand_reads_as_oracle_general() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("db1.arct");
    write_capture(&p, false);
    let out = dir.path().join("db1.oracleGeneral.bin");
    ok(&[
        "trace",
        "convert",
        &p.display().to_string(),
        &out.display().to_string(),
    ]);
    let bytes = std::fs::read(&out).unwrap();
    assert_eq!(bytes.len(), 8 * 24, "eight demand reads, 24 bytes each");
    let fields: Vec<(u32, u64, u32)> = bytes
        .chunks_exact(24)
        .map(|r| {
            (
                u32::from_le_bytes(r[0..4].try_into().unwrap()),
                u64::from_le_bytes(r[4..12].try_into().unwrap()),
                u32::from_le_bytes(r[12..16].try_into().unwrap()),
            )
        })
        .collect();
    let key = |file: u64, blkid: u64| (file << 41) | blkid;
    assert_eq!(
        fields,
        [
            (0, key(0, 0), 16384),
            (0, key(0, 1), 16384),
            (1, key(1, 0), 16384),
            (2, key(0, 0), 16384),
            (3, key(2, 0), 16384),
            (4, key(2, 0), 16384),
            (5, key(1, 1), 16384),
            (5, key(1, 0), 16384),
        ]
    );
}

#[test]
fn a_corrupt_capture_fails_naming_file_and_block() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("bad.arct");
    let mut bytes = write_capture(&p, false);
    // The first block starts after the 16-byte file header and its JSON;
    // set one of its reserved bytes.
    let json_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    bytes[16 + json_len + 1] = 1;
    std::fs::write(&p, &bytes).unwrap();
    let f = p.display().to_string();
    let e = fails(&["trace", "info", &f], 1);
    assert!(
        e.contains("bad.arct") && e.contains("block 1 (dictionary): reserved bytes"),
        "{e}"
    );
    // A newer format version.
    bytes[8] = 2;
    std::fs::write(&p, &bytes).unwrap();
    let e = fails(
        &[
            "trace",
            "convert",
            &f,
            &dir.path().join("o.bin").display().to_string(),
        ],
        1,
    );
    assert!(
        e.contains("bad.arct") && e.contains("written by a newer arclab"),
        "{e}"
    );
    assert!(!dir.path().join("o.bin").exists());
}
