//! The sample traces in `data/traces/`: counts, cross-format agreement, round trip.

mod common;

use arclab_arc::Op;
use arclab_trace::stats::TraceStats;
use arclab_trace::{Format, OpenOptions, detect_format, open, write_oracle_general};
use common::{cloud_csv_opts, read_all, trace};

const FILES: [(&str, Format); 5] = [
    (
        "cloudPhysicsIO.oracleGeneral.bin.zst",
        Format::OracleGeneral,
    ),
    ("cloudPhysicsIO.lcs.zst", Format::Lcs),
    ("cloudPhysicsIO.vscsi.zst", Format::Vscsi),
    ("cloudPhysicsIO.csv.zst", Format::Csv),
    ("cloudPhysicsIO.txt.zst", Format::Txt),
];

/// The decompressed bytes of a zstd file.
fn unzstd(path: &std::path::Path) -> Vec<u8> {
    zstd::decode_all(std::fs::File::open(path).unwrap()).unwrap()
}

fn unique(keys: &[u64]) -> usize {
    let mut k = keys.to_vec();
    k.sort_unstable();
    k.dedup();
    k.len()
}

#[test]
fn cloud_physics_all_formats_agree() {
    let mut seqs = Vec::new();
    for (file, fmt) in FILES {
        let path = trace(file);
        assert_eq!(detect_format(&path).unwrap(), fmt, "{file}");
        let mut r = open(&path, &cloud_csv_opts()).unwrap();
        assert_eq!(r.format(), fmt);
        let reqs = read_all(&mut r);
        assert_eq!(reqs.len(), 113_872, "{file}");
        let keys: Vec<u64> = reqs.iter().map(|r| r.key).collect();
        assert_eq!(unique(&keys), 48_974, "{file}");
        let (done, total) = r.progress();
        assert_eq!(Some(done), total, "{file}: progress at the end");
        seqs.push((file, reqs));
    }
    let (_, og) = &seqs[0];
    for (file, reqs) in &seqs[1..] {
        assert!(
            reqs.iter().map(|r| r.key).eq(og.iter().map(|r| r.key)),
            "{file}: key sequence differs from oracleGeneral"
        );
    }
    // oracleGeneral and lcs: identical requests, byte totals as in the lcs header.
    let lcs = &seqs[1].1;
    assert_eq!(og, lcs);
    let bytes = |v: &[arclab_arc::Request]| v.iter().map(|r| r.size as u64).sum::<u64>();
    assert_eq!(bytes(og), 4_368_040_448);
    // vscsi and csv keep per-request sizes and agree with each other, times in seconds too.
    let (vs, csv) = (&seqs[2].1, &seqs[3].1);
    for (a, b) in vs.iter().zip(csv.iter()) {
        assert_eq!((a.key, a.size, a.op), (b.key, b.size, b.op));
        assert_eq!(a.time_secs(), b.time_secs());
    }
    assert!(vs.iter().any(|r| r.op == Op::Write) && vs.iter().any(|r| r.op == Op::Read));
    // oracleGeneral time in seconds matches vscsi's.
    assert!(
        og.iter()
            .zip(vs.iter())
            .all(|(a, b)| a.time_secs() == b.time_secs())
    );
    // txt: size 1, time 0.
    assert!(seqs[4].1.iter().all(|r| r.size == 1 && r.time_ns == 0));
}

#[test]
fn lcs_header_stats() {
    let r = open(trace("cloudPhysicsIO.lcs.zst"), &OpenOptions::default()).unwrap();
    let s = r.lcs_stats().unwrap();
    assert_eq!(s.version, 1);
    assert_eq!((s.n_req, s.n_obj), (113_872, 48_974));
    assert_eq!((s.n_req_byte, s.n_obj_byte), (4_368_040_448, 2_029_769_728));
}

/// The one-pass working set equals the counts libCacheSim wrote into the lcs
/// header (n_obj, n_obj_byte; data/README.md).
#[test]
fn working_set_on_sample() {
    let mut r = open(
        trace("cloudPhysicsIO.oracleGeneral.bin.zst"),
        &OpenOptions::default(),
    )
    .unwrap();
    let w = arclab_trace::stats::WorkingSet::compute(&mut r).unwrap();
    assert_eq!((w.objects, w.bytes), (48_974, 2_029_769_728));
}

#[test]
fn stats_on_sample() {
    let mut r = open(
        trace("cloudPhysicsIO.oracleGeneral.bin.zst"),
        &OpenOptions::default(),
    )
    .unwrap();
    let mut calls = 0;
    let s = TraceStats::compute(&mut r, |_| calls += 1).unwrap();
    assert!(calls > 0);
    assert_eq!((s.n_req, s.n_obj), (113_872, 48_974));
    assert_eq!(s.n_req_byte, 4_368_040_448);
    assert_eq!(s.working_set_bytes, 2_029_769_728);
    assert_eq!(s.reuse_distance.count, 113_872 - 48_974);
    assert!(s.reuse_distance.p50 <= s.reuse_distance.p90);
    assert!(s.reuse_distance.p99 <= s.reuse_distance.max);
    assert!(s.reuse_distance.max < 48_974);
}

#[test]
fn oracle_general_round_trip_is_byte_identical() {
    let src = trace("cloudPhysicsIO.oracleGeneral.bin.zst");
    let reqs = read_all(&mut open(&src, &OpenOptions::default()).unwrap());
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("rt.oracleGeneral.bin");
    assert_eq!(write_oracle_general(&out, reqs.clone()).unwrap(), 113_872);
    // The sample is stored zstd-compressed; compare with its original bytes.
    let original = unzstd(&src);
    assert!(original == std::fs::read(&out).unwrap());
    // Compressed outputs read back the same requests.
    for ext in ["zst", "gz"] {
        let p = dir.path().join(format!("rt.oracleGeneral.bin.{ext}"));
        write_oracle_general(&p, reqs.clone()).unwrap();
        let back = read_all(&mut open(&p, &OpenOptions::default()).unwrap());
        assert!(back == reqs, "{ext}");
    }
    // No temporary files left behind.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 3);
}

fn lis_counts(file: &str, n_req: usize, n_obj: usize) {
    let mut r = open(trace(file), &OpenOptions::default()).unwrap();
    assert_eq!(r.format(), Format::Lis);
    let reqs = read_all(&mut r);
    assert_eq!(reqs.len(), n_req);
    let keys: Vec<u64> = reqs.iter().map(|r| r.key).collect();
    assert_eq!(unique(&keys), n_obj);
    assert!(reqs.iter().all(|r| r.size == 512 && r.time_ns == 0));
}

#[test]
fn oltp_counts() {
    lis_counts("OLTP.lis.zst", 914_145, 186_880);
}

#[test]
fn p3_counts() {
    lis_counts("P3.lis.zst", 3_912_296, 762_543);
}

#[test]
fn detection_by_magic_and_compressed_names() {
    let dir = tempfile::tempdir().unwrap();
    for (file, fmt) in [
        ("cloudPhysicsIO.lcs", Format::Lcs),
        ("cloudPhysicsIO.vscsi", Format::Vscsi),
    ] {
        // The samples are stored zstd-compressed: this test wants their raw bytes.
        let data = unzstd(&trace(&format!("{file}.zst")));
        let p = dir.path().join(format!("{file}.noext"));
        std::fs::write(&p, &data).unwrap();
        assert_eq!(detect_format(&p).unwrap(), fmt, "{file}");
        // zstd-compressed, unknown extension: detection looks through the compression.
        let z = dir.path().join(format!("{file}.data.zst"));
        std::fs::write(&z, zstd::encode_all(&data[..], 1).unwrap()).unwrap();
        assert_eq!(detect_format(&z).unwrap(), fmt, "{file}.zst");
        let reqs = read_all(&mut open(&z, &OpenOptions::default()).unwrap());
        assert_eq!(reqs.len(), 113_872);
    }
    assert_eq!(
        detect_format(std::path::Path::new("a/b/x.oracleGeneral.bin.zst")).unwrap(),
        Format::OracleGeneral
    );
    assert_eq!(
        detect_format(std::path::Path::new("x.LIS.gz")).unwrap(),
        Format::Lis
    );
}
