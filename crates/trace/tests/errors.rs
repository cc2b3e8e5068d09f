//! Every bad input gives an `Err` naming the file and the place, never a panic.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};

use arclab_trace::{Format, OpenOptions, TraceError, TraceErrorKind, detect_format, open};
use common::read_all;

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

/// Open and drain; the first error.
fn first_err(path: &Path, opts: &OpenOptions) -> TraceError {
    let mut r = match open(path, opts) {
        Ok(r) => r,
        Err(e) => return e,
    };
    let mut v = Vec::new();
    loop {
        match r.read_batch(&mut v, 1000) {
            Ok(0) => panic!("{}: no error", path.display()),
            Ok(_) => {}
            Err(e) => return e,
        }
    }
}

fn og_record(t: u32, id: u64, size: u32) -> Vec<u8> {
    let mut v = t.to_le_bytes().to_vec();
    v.extend(id.to_le_bytes());
    v.extend(size.to_le_bytes());
    v.extend((-1i64).to_le_bytes());
    v
}

#[test]
fn truncated_oracle_general_names_record_and_offset() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes: Vec<u8> = (0..1234)
        .flat_map(|i| og_record(i, i as u64, 4096))
        .collect();
    bytes.extend(&og_record(0, 0, 1)[..10]);
    let p = write(dir.path(), "t.oracleGeneral.bin", &bytes);
    // Requests before the bad record are delivered first.
    let mut r = open(&p, &OpenOptions::default()).unwrap();
    let mut v = Vec::new();
    let mut err = None;
    loop {
        match r.read_batch(&mut v, 500) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                err = Some(e);
                break;
            }
        }
    }
    assert_eq!(v.len(), 1234);
    let e = err.expect("an error");
    assert_eq!(
        e.to_string(),
        format!(
            "{}: record 1235 (byte offset 29616): truncated record: 10 of 24 bytes",
            p.display()
        )
    );
    assert!(matches!(e.kind(), TraceErrorKind::Truncated { .. }));
    // Finished after the error.
    assert_eq!(r.read_batch(&mut v, 10).unwrap(), 0);
}

#[test]
fn truncated_lcs_header_and_bad_version() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = vec![0u8; 8192];
    h[..8].copy_from_slice(&0x1234_5678_9abc_def0u64.to_le_bytes());
    h[8184..].copy_from_slice(&0x1234_5678_9abc_def0u64.to_le_bytes());
    h[8..16].copy_from_slice(&9u64.to_le_bytes());
    let p = write(dir.path(), "v9.lcs", &h);
    let e = first_err(&p, &OpenOptions::default());
    assert_eq!(
        e.to_string(),
        format!(
            "{}: byte offset 0: unsupported lcs version 9 (supported: 1 to 8)",
            p.display()
        )
    );
    let p = write(dir.path(), "short.lcs", &h[..100]);
    let e = first_err(&p, &OpenOptions::default());
    assert!(
        e.to_string()
            .contains("truncated lcs header: 100 of 8192 bytes"),
        "{e}"
    );
    let mut bad = h.clone();
    bad[8184] = 0;
    let p = write(dir.path(), "badend.lcs", &bad);
    assert!(
        first_err(&p, &OpenOptions::default())
            .to_string()
            .contains("bad lcs end magic")
    );
    // v2 record, truncated.
    let mut v2 = h.clone();
    v2[8..16].copy_from_slice(&2u64.to_le_bytes());
    v2.extend([1u8; 28 + 5]);
    let p = write(dir.path(), "v2.lcs", &v2);
    let e = first_err(&p, &OpenOptions::default());
    assert!(
        e.to_string()
            .ends_with("record 2 (byte offset 8220): truncated record: 5 of 28 bytes"),
        "{e}"
    );
}

#[test]
fn undetectable_and_wrong_formats() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "mystery.dat",
        b"hello world, this is not a trace at all.............................................",
    );
    let e = detect_format(&p).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "{0}: cannot detect the trace format of {0}; pass --format",
            p.display()
        )
    );
    assert!(open(&p, &OpenOptions::default()).is_err());
    // Text forced to vscsi.
    let opts = OpenOptions {
        format: Some(Format::Vscsi),
        ..OpenOptions::default()
    };
    let e = first_err(&p, &opts);
    assert!(e.to_string().contains("not a vscsi trace"), "{e}");
    // Text forced to lcs.
    let opts = OpenOptions {
        format: Some(Format::Lcs),
        ..OpenOptions::default()
    };
    let e = first_err(&p, &opts);
    assert!(
        e.to_string().starts_with(&format!("{}: ", p.display())),
        "{e}"
    );
    assert!("nonsense".parse::<Format>().is_err());
    assert_eq!("ARC".parse::<Format>().unwrap(), Format::Lis);
    assert_eq!("og".parse::<Format>().unwrap(), Format::OracleGeneral);
    assert_eq!(Format::OracleGeneral.to_string(), "oracleGeneral");
}

#[test]
fn empty_files() {
    let dir = tempfile::tempdir().unwrap();
    for name in [
        "e.oracleGeneral.bin",
        "e.lcs",
        "e.vscsi",
        "e.csv",
        "e.txt",
        "e.lis",
        "e.unknown",
    ] {
        let p = write(dir.path(), name, b"");
        let e = first_err(&p, &OpenOptions::default());
        assert_eq!(e.to_string(), format!("{}: empty trace", p.display()));
    }
    // An empty zstd stream.
    let z = zstd::encode_all(&b""[..], 3).unwrap();
    let p = write(dir.path(), "e.txt.zst", &z);
    let e = first_err(&p, &OpenOptions::default());
    assert_eq!(e.to_string(), format!("{}: empty trace", p.display()));
}

#[test]
fn csv_column_out_of_range() {
    let dir = tempfile::tempdir().unwrap();
    let mut body = String::from("a,b,c,d\n");
    for i in 0..15 {
        body += &format!("1,2,{i},4,5\n");
    }
    body += "1,2,3,4\n";
    let p = write(dir.path(), "c.csv", body.as_bytes());
    let mut o = OpenOptions::default();
    o.csv.id_col = 5;
    let e = first_err(&p, &o);
    assert_eq!(
        e.to_string(),
        format!(
            "{}: line 17: column 5 out of range (line has 4 columns)",
            p.display()
        )
    );
    // Bad numbers and ops.
    let p = write(dir.path(), "d.csv", b"1,abc\n");
    o.csv = Default::default();
    o.csv.size_col = Some(2);
    o.csv.has_header = Some(false);
    let e = first_err(&p, &o);
    assert_eq!(
        e.to_string(),
        format!("{}: line 1: invalid size \"abc\"", p.display())
    );
    let p = write(dir.path(), "o.csv", b"1,frobnicate\n");
    o.csv = Default::default();
    o.csv.op_col = Some(2);
    let e = first_err(&p, &o);
    assert_eq!(
        e.to_string(),
        format!("{}: line 1: invalid op \"frobnicate\"", p.display())
    );
    o.csv.id_col = 0;
    assert!(
        first_err(&p, &o)
            .to_string()
            .contains("columns are numbered from 1")
    );
}

#[test]
fn non_utf8_text() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["u.txt", "u.csv", "u.lis"] {
        let p = write(dir.path(), name, b"1 1 0 0\n2 1 0 0\n\xff\xfe 1 0 0\n");
        let e = first_err(&p, &OpenOptions::default());
        assert_eq!(
            e.to_string(),
            format!("{}: line 3: invalid UTF-8", p.display())
        );
    }
}

#[test]
fn lis_bad_lines() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "b.lis", b"1 1 0 0\n7\n");
    let e = first_err(&p, &OpenOptions::default());
    assert_eq!(
        e.to_string(),
        format!(
            "{}: line 2: column 2 out of range (line has 1 columns)",
            p.display()
        )
    );
    let p = write(dir.path(), "o.lis", b"18446744073709551615 2 0 0\n");
    assert!(
        first_err(&p, &OpenOptions::default())
            .to_string()
            .contains("line 1: invalid block count")
    );
}

#[test]
fn zst_that_is_not_zstd() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "fake.oracleGeneral.bin.zst", &[0u8; 48]);
    let e = first_err(&p, &OpenOptions::default());
    assert_eq!(
        e.to_string(),
        format!(
            "{}: not a zstd stream: the data starts with 00 00 00 00, not the zstd (28 b5 2f fd) magic",
            p.display()
        )
    );
    let p = write(dir.path(), "fake.txt.gz", b"12\n13\n");
    assert!(
        first_err(&p, &OpenOptions::default())
            .to_string()
            .contains("not a gzip stream")
    );
    // A zstd stream cut short: an I/O error naming the file.
    let z = zstd::encode_all(&vec![7u8; 24 * 1000][..], 3).unwrap();
    let p = write(dir.path(), "cut.oracleGeneral.bin.zst", &z[..z.len() / 2]);
    let e = first_err(&p, &OpenOptions::default());
    assert!(
        e.to_string().starts_with(&format!("{}: ", p.display())),
        "{e}"
    );
}

#[test]
fn missing_file() {
    let e = first_err(Path::new("/nonexistent/x.txt"), &OpenOptions::default());
    assert!(e.to_string().starts_with("/nonexistent/x.txt: "), "{e}");
}

#[test]
fn gz_and_zst_read_like_plain() {
    let dir = tempfile::tempdir().unwrap();
    let text: String = (0..5000)
        .map(|i| format!("{}\n", (i * 7919) % 1000))
        .collect();
    let plain = write(dir.path(), "s.txt", text.as_bytes());
    let want = read_all(&mut open(&plain, &OpenOptions::default()).unwrap());
    assert_eq!(want.len(), 5000);
    let z = write(
        dir.path(),
        "s.txt.zst",
        &zstd::encode_all(text.as_bytes(), 3).unwrap(),
    );
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(text.as_bytes()).unwrap();
    let g = write(dir.path(), "s.txt.gz", &gz.finish().unwrap());
    // Compressed data without a telling extension is still recognised by magic.
    let z2 = write(dir.path(), "s2.txt", &std::fs::read(&z).unwrap());
    for p in [z, g, z2] {
        let mut r = open(&p, &OpenOptions::default()).unwrap();
        assert_eq!(read_all(&mut r), want, "{}", p.display());
        let (done, total) = r.progress();
        assert_eq!(Some(done), total);
    }
    // Binary: oracleGeneral through zstd, read in odd batch sizes.
    let bytes: Vec<u8> = (0..100_000u32)
        .flat_map(|i| og_record(i, i as u64 % 777, 1 + i % 3))
        .collect();
    let plain = write(dir.path(), "b.bin", &bytes);
    let z = write(
        dir.path(),
        "b.bin.zst",
        &zstd::encode_all(&bytes[..], 1).unwrap(),
    );
    // As `pzstd` writes (zstd's format spec, skippable frames): each frame
    // after a skippable frame 50 2a 4d 18, size 4, holding the next
    // frame's size; with the extension and without it.
    let mut pz = Vec::new();
    for half in bytes.chunks(bytes.len() / 2) {
        let f = zstd::encode_all(half, 1).unwrap();
        pz.extend_from_slice(&[0x50, 0x2a, 0x4d, 0x18, 4, 0, 0, 0]);
        pz.extend_from_slice(&(f.len() as u32).to_le_bytes());
        pz.extend_from_slice(&f);
    }
    let pz1 = write(dir.path(), "p.bin.zst", &pz);
    let pz2 = write(dir.path(), "p2.oracleGeneral.bin", &pz);
    let a = read_all(&mut open(&plain, &OpenOptions::default()).unwrap());
    assert_eq!(a.len(), 100_000);
    for p in [z, pz1, pz2] {
        let mut r = open(&p, &OpenOptions::default()).unwrap();
        let mut b = Vec::new();
        while r.read_batch(&mut b, 997).unwrap() > 0 {}
        assert_eq!(a, b, "{}", p.display());
    }
}
