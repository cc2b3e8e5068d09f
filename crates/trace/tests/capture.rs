//! The `.arct` capture format: round trips, files cut at every byte, and
//! corruptions, through the raw `CaptureReader` and as a trace.
//!
//! The expected values come from the test's own inputs and from the format's
//! definition (docs/formats.md): record layout, `block_key` arithmetic
//! (`file << 41 | level_flag << 40 | blkid`), OpenZFS's `ARC_FLAG_PREFETCH`
//! (1 << 2) and `ARC_FLAG_CACHED` (1 << 3).

mod common;

use std::io::Cursor;

use arclab_arc::{Kind, Op, Request};
use arclab_trace::capture::*;
use arclab_trace::clock::{Clock, Clocked};
use arclab_trace::{Format, OpenOptions, TraceError, from_reader, open};
use common::read_all;

const P: u32 = ARC_FLAG_PREFETCH;
const C: u32 = ARC_FLAG_CACHED;

fn header() -> CaptureHeader {
    CaptureHeader {
        host: "db1".into(),
        created_unix_s: 1_764_600_000,
        zfs_version: Some("2.2.2-0ubuntu9".into()),
        arc_c_bytes: Some(8 << 30),
        ram_bytes: Some(32 << 30),
        sizes_nominal: true,
        ..CaptureHeader::default()
    }
}

#[allow(clippy::too_many_arguments)]
fn rec(
    t: u64,
    pool: u16,
    objset: u64,
    object: u64,
    level: i8,
    blkid: u64,
    aflags: u32,
) -> CaptureRecord {
    CaptureRecord {
        time_ns: t,
        pool,
        objset,
        object,
        level,
        blkid,
        size: 131_072,
        aflags,
        pid: 4242,
    }
}

/// A deterministic stream of varied records (xorshift), pools 0..pools.
fn records(n: usize, pools: u16) -> Vec<CaptureRecord> {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    (0..n)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            CaptureRecord {
                time_ns: i as u64 * 1_000 + (x & 0xff),
                pool: (x >> 8) as u16 % pools,
                objset: 50 + (x >> 16) % 4,
                object: (x >> 20) % 300,
                level: [0i8, 0, 0, 1, 2, -1, -2][((x >> 30) % 7) as usize],
                blkid: if x & (1 << 40) != 0 {
                    x >> 24
                } else {
                    (x >> 41) as i64 as u64 | (1 << 63)
                },
                size: 512 << ((x >> 44) % 9),
                aflags: (x >> 50) as u32 & 0x3f,
                pid: (x >> 32) as u32,
            }
        })
        .collect()
}

/// A capture from the writer: `blocks` records blocks of the given sizes
/// (each ended by `flush`), a new pool before the second block.
fn small_capture(blocks: &[usize]) -> (Vec<u8>, Vec<Vec<CaptureRecord>>, Vec<usize>) {
    let mut w = CaptureWriter::new(Vec::new(), &header()).unwrap();
    let mut ends = vec![w.get_ref().len()];
    let tank = w.add_pool("tank").unwrap();
    w.add_dataset(Dataset {
        pool: tank,
        objset: 54,
        name: "tank/db".into(),
        recordsize: 16384,
    })
    .unwrap();
    let mut per_block = Vec::new();
    let mut t = 0;
    for (b, &n) in blocks.iter().enumerate() {
        let pool = if b == 1 {
            w.add_pool("scratch").unwrap()
        } else {
            tank
        };
        let mut v = Vec::new();
        for i in 0..n {
            let r = rec(
                t,
                pool,
                54,
                i as u64 % 3,
                (i % 2) as i8,
                i as u64,
                [0, C, P][i % 3],
            );
            t += 10;
            w.push(&r).unwrap();
            v.push(r);
        }
        w.flush().unwrap();
        per_block.push(v);
        ends.push(w.get_ref().len());
    }
    let bytes = w
        .finish(&CaptureSummary {
            records: t / 10,
            lost: 3,
            polls: 7,
            duration_ns: 5_000_000_000,
            stopped_by: "duration".into(),
            extra: serde_json::json!({"ring": 1000}),
        })
        .unwrap();
    (bytes, per_block, ends)
}

fn raw(bytes: &[u8], name: &str) -> Result<(Vec<CaptureRecord>, CaptureInfo), TraceError> {
    let mut r = CaptureReader::new(bytes, name)?;
    let v = r.by_ref().collect::<Result<Vec<_>, _>>()?;
    Ok((v, r.into_info()))
}

fn as_trace(bytes: &[u8], opts: &OpenOptions) -> (Vec<Request>, CaptureInfo) {
    let mut r = from_reader(Cursor::new(bytes.to_vec()), Format::Arct, opts, "mem.arct").unwrap();
    let v = read_all(&mut r);
    (v, r.capture_info().unwrap().clone())
}

#[test]
fn many_blocks_and_dictionary_updates_round_trip() {
    // 150,000 records: the writer ends blocks at 65,536 records by itself,
    // plus the flushes below; pools and datasets arrive along the way.
    let recs = records(150_000, 3);
    let mut w = CaptureWriter::new(Vec::new(), &header()).unwrap();
    assert_eq!(w.add_pool("tank").unwrap(), 0);
    assert_eq!(
        w.add_pool("tank").unwrap(),
        0,
        "a known pool keeps its index"
    );
    let mut pools = 1;
    let mut datasets = Vec::new();
    for (i, r) in recs.iter().enumerate() {
        if r.pool >= pools {
            // Pools in index order, as records first use them.
            while pools <= r.pool {
                assert_eq!(w.add_pool(&format!("pool{pools}")).unwrap(), pools);
                pools += 1;
            }
        }
        if i % 40_000 == 0 {
            let d = Dataset {
                pool: r.pool,
                objset: r.objset,
                name: format!("ds{i}"),
                recordsize: 1 << 17,
            };
            w.add_dataset(d.clone()).unwrap();
            w.add_dataset(d.clone()).unwrap(); // a repeat is not written twice
            datasets.push(d);
        }
        if i == 1_000 || i == 99_999 {
            w.flush().unwrap();
        }
        w.push(r).unwrap();
    }
    assert_eq!(w.records(), 150_000);
    let bytes = w
        .finish(&CaptureSummary {
            records: 150_000,
            ..CaptureSummary::default()
        })
        .unwrap();

    let (back, info) = raw(&bytes, "mem.arct").unwrap();
    assert_eq!(back, recs);
    assert_eq!(info.header, header());
    assert_eq!(info.dictionary.pools.len(), 3);
    assert_eq!(
        info.dictionary.pools[2],
        Pool {
            index: 2,
            name: "pool2".into()
        }
    );
    assert_eq!(info.dictionary.datasets, datasets);
    assert_eq!(info.summary.as_ref().unwrap().records, 150_000);
    assert!(info.truncated.is_none());
    let count = |f: &dyn Fn(&CaptureRecord) -> bool| recs.iter().filter(|r| f(r)).count() as u64;
    assert_eq!(info.records, 150_000);
    assert_eq!(info.demand, count(&|r| r.aflags & P == 0));
    assert_eq!(
        info.demand_cached,
        count(&|r| r.aflags & P == 0 && r.aflags & C != 0)
    );
    assert_eq!(info.prefetch, count(&|r| r.aflags & P != 0));
    assert_eq!(
        info.prefetch_cached,
        count(&|r| r.aflags & P != 0 && r.aflags & C != 0)
    );
    let files: std::collections::HashSet<_> =
        recs.iter().map(|r| (r.pool, r.objset, r.object)).collect();
    assert_eq!(info.files, files.len() as u64);

    // As a trace: demand records only, in order, with the documented mapping.
    let (reqs, tinfo) = as_trace(&bytes, &OpenOptions::default());
    let demand: Vec<&CaptureRecord> = recs.iter().filter(|r| r.aflags & P == 0).collect();
    assert_eq!(reqs.len(), demand.len());
    let mut ids = std::collections::HashMap::new();
    for (q, r) in reqs.iter().zip(&demand) {
        let n = ids.len() as u32;
        let file = *ids.entry((r.pool, r.objset, r.object)).or_insert(n);
        assert_eq!(*q, r.to_request(file));
        assert_eq!(q.time_ns, r.time_ns);
        assert!(!q.prefetch);
    }
    assert_eq!(tinfo.files, ids.len() as u64);
    assert_eq!(
        (tinfo.records, tinfo.demand, tinfo.prefetch),
        (info.records, info.demand, info.prefetch)
    );
}

#[test]
fn records_map_to_block_keys_files_and_kinds() {
    let mut w = CaptureWriter::new(Vec::new(), &header()).unwrap();
    let tank = w.add_pool("tank").unwrap();
    let other = w.add_pool("other").unwrap();
    let minus_one = -1i64 as u64;
    let input = [
        rec(100, tank, 54, 2, 0, 7, 0),             // file 0, data
        rec(110, tank, 54, 3, 0, 7, C),             // file 1: another object
        rec(120, tank, 54, 2, 1, 0, 0),             // file 0, L1 indirect
        rec(130, tank, 54, 9, 0, 1, P),             // prefetch: skipped by default
        rec(140, other, 54, 2, 0, 7, 0),            // same objset/object, other pool
        rec(150, tank, 54, 0, -1, 5, 0),            // dnode block (level -1) of object 0
        rec(160, tank, 0, 1, 0, 3, 0),              // MOS (objset 0): metadata
        rec(170, tank, 54, 2, 0, minus_one, 0),     // blkid -1 keeps its low 40 bits
        rec(180, tank, 54, 2, 2, 0, 0),             // L2 of blkid 0: not the L1 above
        rec(190, tank, 54, 2, 1, (1 << 32) | 4, 0), // L1: blkid keeps 32 bits
    ];
    for r in &input {
        w.push(r).unwrap();
    }
    let bytes = w.finish(&CaptureSummary::default()).unwrap();

    let (reqs, info) = as_trace(&bytes, &OpenOptions::default());
    // block_key(file, level, blkid) = file << 41 | (level > 0) << 40 | blkid.
    let key = |file: u64, ind: u64, low: u64| (file << 41) | (ind << 40) | low;
    let expect = [
        (100, key(0, 0, 7), Kind::Data),
        (110, key(1, 0, 7), Kind::Data),
        (120, key(0, 1, 1 << 32), Kind::Metadata),
        (140, key(2, 0, 7), Kind::Data),
        (150, key(3, 1, (0xff << 32) | 5), Kind::Metadata),
        (160, key(4, 0, 3), Kind::Metadata),
        (170, key(0, 0, (1 << 40) - 1), Kind::Data),
        (180, key(0, 1, 2 << 32), Kind::Metadata),
        (190, key(0, 1, (1 << 32) | 4), Kind::Metadata),
    ];
    let got: Vec<(u64, u64, Kind)> = reqs.iter().map(|r| (r.time_ns, r.key, r.kind)).collect();
    assert_eq!(got, expect);
    assert!(
        reqs.iter()
            .all(|r| r.op == Op::Read && r.size == 131_072 && !r.prefetch)
    );
    assert_eq!(
        info.files, 5,
        "(tank,54,2) (tank,54,3) (other,54,2) (tank,54,0) (tank,0,1)"
    );
    assert_eq!((info.records, info.demand, info.demand_cached), (10, 9, 1));
    assert_eq!((info.prefetch, info.prefetch_cached), (1, 0));

    // With prefetches: the prefetch of object 9 is file 2 and shifts the rest.
    let opts = OpenOptions {
        capture_prefetch: true,
        ..OpenOptions::default()
    };
    let (reqs, info) = as_trace(&bytes, &opts);
    assert_eq!(reqs.len(), 10);
    assert_eq!((reqs[3].key, reqs[3].prefetch), (key(2, 0, 1), true));
    assert_eq!(reqs[4].key, key(3, 0, 7));
    assert_eq!(info.files, 6);
    assert_eq!(info.records, 10, "counts cover all records either way");
}

#[test]
fn files_detect_by_extension_and_magic_and_may_be_zstd_wrapped() {
    let (bytes, per_block, _) = small_capture(&[3, 2, 4]);
    let dir = tempfile::tempdir().unwrap();
    let demand = per_block
        .iter()
        .flatten()
        .filter(|r| r.aflags & P == 0)
        .count();
    for name in ["c.arct", "c.dat", "c.arct.zst"] {
        let p = dir.path().join(name);
        if name.ends_with(".zst") {
            std::fs::write(&p, zstd::encode_all(&bytes[..], 3).unwrap()).unwrap();
        } else {
            std::fs::write(&p, &bytes).unwrap();
        }
        assert_eq!(
            arclab_trace::detect_format(&p).unwrap(),
            Format::Arct,
            "{name}"
        );
        let mut r = open(&p, &OpenOptions::default()).unwrap();
        assert_eq!(r.format(), Format::Arct);
        assert_eq!(read_all(&mut r).len(), demand, "{name}");
        let info = r.capture_info().unwrap();
        assert_eq!(info.summary.as_ref().unwrap().lost, 3);
        assert_eq!(info.summary.as_ref().unwrap().extra["ring"], 1000);
    }
    for s in ["arct", "ARCT", "capture"] {
        assert_eq!(s.parse::<Format>().unwrap(), Format::Arct);
    }
    assert_eq!(Format::Arct.to_string(), "arct");
    assert!(Format::ALL.contains(&Format::Arct));
    assert!(
        Format::ALL
            .iter()
            .all(|f| f.block_keys() == (*f == Format::Arct))
    );
}

#[test]
fn the_clock_keeps_nanosecond_times() {
    let mut w = CaptureWriter::new(Vec::new(), &header()).unwrap();
    let p = w.add_pool("tank").unwrap();
    for (t, b) in [
        (1_000_005, 1),
        (1_000_005, 2),
        (1_000_017, 3),
        (3_000_000_017, 4),
    ] {
        w.push(&rec(t, p, 54, 2, 0, b, 0)).unwrap();
    }
    let bytes = w.finish(&CaptureSummary::default()).unwrap();
    let reader = from_reader(
        Cursor::new(bytes),
        Format::Arct,
        &OpenOptions::default(),
        "m",
    )
    .unwrap();
    let clock = Clock::for_format(Format::Arct, 10_000.0).unwrap();
    assert_eq!(clock, Clock::Spread { tick_ns: 1 });
    let mut c = Clocked::new(reader, clock);
    let mut out = Vec::new();
    while c.next_batch(&mut out, 2).unwrap() > 0 {}
    // Relative to the first request; equal stamps stay equal.
    let t: Vec<u64> = out.iter().map(|r| r.time_ns).collect();
    assert_eq!(t, [0, 0, 12, 3_000_000_017 - 1_000_005]);
}

#[test]
fn a_file_cut_at_any_byte_reads_up_to_its_last_complete_block() {
    let (bytes, per_block, ends) = small_capture(&[3, 2, 4]);
    // ends[0] = end of the file header; then the dictionary block and the
    // first records block end at ends[1]; the second dictionary ("scratch")
    // and second records block at ends[2]; the third at ends[3]; the summary
    // follows. Block starts, from the format: each block is 16 + comp_len bytes.
    let mut starts = Vec::new();
    let mut o = ends[0];
    while o < bytes.len() {
        starts.push(o);
        o += 16 + u32::from_le_bytes(bytes[o + 12..o + 16].try_into().unwrap()) as usize;
    }
    assert_eq!(o, bytes.len());
    assert_eq!(
        starts.len(),
        6,
        "dict, records, dict, records, records, summary"
    );
    let kinds: Vec<u8> = starts.iter().map(|&s| bytes[s]).collect();
    assert_eq!(kinds, [2, 1, 2, 1, 1, 3]);
    // Records in the blocks ending at or before each cut.
    let records_block_ends = [starts[2], starts[4], starts[5]];
    for cut in 0..=bytes.len() {
        let part = &bytes[..cut];
        if cut < ends[0] {
            let e = CaptureReader::new(part, "cut.arct")
                .unwrap_err()
                .to_string();
            assert!(e.starts_with("cut.arct: "), "{cut}: {e}");
            let e = from_reader(
                Cursor::new(part.to_vec()),
                Format::Arct,
                &OpenOptions::default(),
                "cut.arct",
            )
            .unwrap_err()
            .to_string();
            assert!(e.starts_with("cut.arct: "), "{cut}: {e}");
            continue;
        }
        let (got, info) = raw(part, "cut.arct").unwrap_or_else(|e| panic!("cut at {cut}: {e}"));
        let complete = records_block_ends.iter().filter(|&&end| end <= cut).count();
        let want: Vec<CaptureRecord> = per_block[..complete].iter().flatten().copied().collect();
        assert_eq!(got, want, "cut at {cut}");
        let inside = cut < bytes.len() && !starts.contains(&cut);
        assert_eq!(
            info.truncated.is_some(),
            inside,
            "cut at {cut}: {:?}",
            info.truncated
        );
        assert_eq!(info.summary.is_some(), cut == bytes.len());
        if let Some(t) = &info.truncated {
            let k = starts.iter().rposition(|&s| s < cut).unwrap();
            assert!(t.contains(&format!("inside block {}", k + 1)), "{t}");
            assert!(t.contains(&format!("byte offset {}", starts[k])), "{t}");
        }
        // The trace path agrees and never errors.
        let (reqs, _) = as_trace(part, &OpenOptions::default());
        assert_eq!(
            reqs.len(),
            want.iter().filter(|r| r.aflags & P == 0).count(),
            "cut at {cut}"
        );
    }
}

/// The file header of a capture.
fn file_header(version: u16, reserved: u16, json: &[u8]) -> Vec<u8> {
    let mut v = MAGIC.to_vec();
    v.extend(version.to_le_bytes());
    v.extend(reserved.to_le_bytes());
    v.extend((json.len() as u32).to_le_bytes());
    v.extend(json);
    v
}

/// A block, compressed as the writer does.
fn block(kind: u8, count: u32, raw: &[u8]) -> Vec<u8> {
    let comp = zstd::bulk::compress(raw, 3).unwrap();
    let mut v = vec![kind, 0, 0, 0];
    v.extend(count.to_le_bytes());
    v.extend((raw.len() as u32).to_le_bytes());
    v.extend((comp.len() as u32).to_le_bytes());
    v.extend(comp);
    v
}

fn one_pool() -> Vec<u8> {
    let d = Dictionary {
        pools: vec![Pool {
            index: 0,
            name: "tank".into(),
        }],
        datasets: vec![],
    };
    block(2, 1, &serde_json::to_vec(&d).unwrap())
}

fn err(bytes: &[u8]) -> String {
    let e = match raw(bytes, "bad.arct") {
        Ok(_) => panic!("no error"),
        Err(e) => e.to_string(),
    };
    // The trace path gives the same error.
    let t = from_reader(
        Cursor::new(bytes.to_vec()),
        Format::Arct,
        &OpenOptions::default(),
        "bad.arct",
    )
    .and_then(|mut r| {
        let mut v = Vec::new();
        while r.read_batch(&mut v, 1000)? > 0 {}
        Ok(())
    })
    .unwrap_err()
    .to_string();
    assert_eq!(e, t);
    assert!(e.starts_with("bad.arct: "), "{e}");
    e
}

#[test]
fn corruptions_are_errors_naming_the_file_and_block() {
    let json = serde_json::to_vec(&header()).unwrap();
    let good_rec = rec(1, 0, 54, 2, 0, 7, 0).to_bytes();
    let base = |blocks: &[Vec<u8>]| {
        let mut v = file_header(1, 0, &json);
        for b in blocks {
            v.extend(b);
        }
        v
    };
    // The hand-built file is valid.
    let (v, _) = raw(&base(&[one_pool(), block(1, 1, &good_rec)]), "ok").unwrap();
    assert_eq!(v, [rec(1, 0, 54, 2, 0, 7, 0)]);

    let mut b = base(&[]);
    b[0] = b'X';
    assert!(err(&b).contains("not an arclab capture"));
    assert!(err(&file_header(2, 0, &json)).contains("version 2: written by a newer arclab"));
    assert!(err(&file_header(1, 1, &json)).contains("reserved"));
    let mut b = file_header(1, 0, &json);
    b[12..16].copy_from_slice(&((1u32 << 20) + 1).to_le_bytes());
    assert!(err(&b).contains("header length 1048577"));
    assert!(err(&file_header(1, 0, b"{not json")).contains("header JSON"));
    assert!(err(&file_header(1, 0, br#"{"sample_rate": 0}"#)).contains("sample_rate 0"));

    // Block header fields.
    let mut d = one_pool();
    d[2] = 1;
    assert!(err(&base(&[d])).contains("block 1 (dictionary): reserved bytes 00 01 00"));
    let mut r = block(1, 1, &good_rec);
    r[4..8].copy_from_slice(&2u32.to_le_bytes());
    let e = err(&base(&[one_pool(), r]));
    assert!(
        e.contains("block 2 (records): raw_len 48 is not count 2 × 48 = 96"),
        "{e}"
    );
    let mut r = block(1, 1, &good_rec);
    r[8..12].copy_from_slice(&((64u32 << 20) + 1).to_le_bytes());
    let e = err(&base(&[one_pool(), r]));
    assert!(
        e.contains("block 2 (records): raw_len 67108865 bytes exceeds"),
        "{e}"
    );
    let mut r = block(1, 1, &good_rec);
    r[12..16].copy_from_slice(&1000u32.to_le_bytes());
    assert!(err(&base(&[one_pool(), r])).contains("block 2 (records): comp_len 1000 exceeds"));
    let e = err(&base(&[one_pool(), block(7, 1, &good_rec)]));
    assert!(e.contains("block 2 (unknown): kind 7"), "{e}");
    // The payload.
    let mut r = block(1, 1, &good_rec);
    r[16] ^= 0xff; // the zstd magic
    let e = err(&base(&[one_pool(), r]));
    assert!(
        e.contains("block 2 (records): payload is not a zstd frame"),
        "{e}"
    );
    // A frame declaring another size than raw_len.
    let mut r = block(1, 1, &good_rec);
    let other = block(1, 2, &[good_rec, good_rec].concat());
    r.truncate(16);
    r.extend(&other[16..]);
    r[12..16].copy_from_slice(&other[12..16]);
    let e = err(&base(&[one_pool(), r]));
    assert!(
        e.contains("block 2 (records): the zstd frame holds 96 bytes, not raw_len 48"),
        "{e}"
    );
    let e = err(&base(&[one_pool(), block(2, 1, b"{\"pools\": 3}")]));
    assert!(e.contains("block 2 (dictionary): dictionary JSON"), "{e}");
    let d = Dictionary {
        pools: vec![Pool {
            index: 5,
            name: "x".into(),
        }],
        datasets: vec![],
    };
    let e = err(&base(&[block(2, 1, &serde_json::to_vec(&d).unwrap())]));
    assert!(
        e.contains("block 1 (dictionary): pool \"x\" has index 5, expected 0"),
        "{e}"
    );
    // Records.
    let mut bad = good_rec;
    bad[44] = 1; // pool 1
    let mut recs = good_rec.to_vec();
    recs.extend(bad);
    let e = err(&base(&[one_pool(), block(1, 2, &recs)]));
    assert!(
        e.contains("block 2 (records), record 2 of 2 (record 2 of the capture): pool index 1 is not in the dictionary (1 pools)"),
        "{e}"
    );
    let mut bad = good_rec;
    bad[47] = 9;
    let e = err(&base(&[
        one_pool(),
        block(1, 1, &good_rec),
        block(1, 1, &bad),
    ]));
    assert!(
        e.contains("block 3 (records), record 1 of 1 (record 2 of the capture): reserved byte"),
        "{e}"
    );
    // Records before the bad block come first on the trace path.
    let bytes = base(&[one_pool(), block(1, 1, &good_rec), block(1, 1, &bad)]);
    let mut r = from_reader(
        Cursor::new(bytes),
        Format::Arct,
        &OpenOptions::default(),
        "m",
    )
    .unwrap();
    let mut v = Vec::new();
    assert_eq!(r.read_batch(&mut v, 100).unwrap(), 1);
    assert!(r.read_batch(&mut v, 100).is_err());
    // A second summary, or anything after the summary.
    let s = block(
        3,
        1,
        &serde_json::to_vec(&CaptureSummary::default()).unwrap(),
    );
    let e = err(&base(&[one_pool(), s.clone(), s.clone()]));
    assert!(e.contains("block 3: data after the summary block"), "{e}");
}

#[test]
fn the_writer_refuses_unknown_pools() {
    let mut w = CaptureWriter::new(Vec::new(), &header()).unwrap();
    let e = w.push(&rec(0, 0, 1, 1, 0, 0, 0)).unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput);
    let d = Dataset {
        pool: 0,
        objset: 1,
        name: "t".into(),
        recordsize: 512,
    };
    assert!(w.add_dataset(d).is_err());
    for i in 0..65_536 {
        assert_eq!(w.add_pool(&i.to_string()).unwrap() as usize, i);
    }
    assert!(w.add_pool("one too many").is_err());
}
