//! Shared driver of the fuzz targets: feed bytes to one reader and drain it.

use std::io::Cursor;

use arclab_trace::{Format, OpenOptions, from_reader};

/// Most requests drained per input (a `.lis` line may expand to 2^64 requests).
pub const MAX_REQUESTS: usize = 1 << 16;

/// Read `data` as `format` with `opts` through both interfaces; errors are fine, panics are not.
pub fn drain(data: &[u8], format: Format, opts: &OpenOptions) {
    if let Ok(mut r) = from_reader(Cursor::new(data.to_vec()), format, opts, "fuzz-input") {
        let mut buf = Vec::new();
        let mut total = 0;
        while total < MAX_REQUESTS {
            buf.clear();
            match r.read_batch(&mut buf, 1000) {
                Ok(0) => break,
                Ok(n) => total += n,
                Err(e) => {
                    // Display must work and name the input.
                    assert!(e.to_string().starts_with("fuzz-input: "));
                    break;
                }
            }
        }
        let _ = r.progress();
    }
    // The iterator path too (capped).
    if let Ok(r) = from_reader(Cursor::new(data.to_vec()), format, opts, "fuzz-input") {
        for item in r.take(MAX_REQUESTS) {
            if item.is_err() {
                break;
            }
        }
    }
}

/// CSV options chosen by the first input byte; returns them and the rest of the input.
pub fn csv_opts(data: &[u8]) -> (OpenOptions, &[u8]) {
    let Some((&sel, rest)) = data.split_first() else {
        return (OpenOptions::default(), data);
    };
    let mut o = OpenOptions::default();
    o.csv.id_col = 1 + (sel & 3) as usize;
    o.csv.time_col = (sel & 4 != 0).then_some(2);
    o.csv.size_col = (sel & 8 != 0).then_some(3);
    o.csv.op_col = (sel & 16 != 0).then_some(4);
    o.csv.has_header = match sel >> 5 & 3 {
        0 => None,
        1 => Some(true),
        _ => Some(false),
    };
    o.csv.id_is_num = sel & 128 == 0;
    (o, rest)
}

/// The `capture` target: `data` as an `.arct` capture through the raw
/// [`CaptureReader`](arclab_trace::capture::CaptureReader) (capped at
/// [`MAX_REQUESTS`] records) and as a trace, demand reads only and with
/// prefetches. When the raw read succeeds (a cut tail included), the records
/// and dictionary are written again with the writer and must read back
/// identical.
pub fn capture(data: &[u8]) {
    use arclab_trace::capture::{CaptureReader, CaptureWriter};

    let mut records = Vec::new();
    if let Ok(mut r) = CaptureReader::new(data, "fuzz-input") {
        let mut clean = true;
        while records.len() < MAX_REQUESTS {
            match r.next_record() {
                Ok(Some(rec)) => records.push(rec),
                Ok(None) => break,
                Err(e) => {
                    assert!(e.to_string().starts_with("fuzz-input: "));
                    clean = false;
                    break;
                }
            }
        }
        let info = r.info().clone();
        assert!(info.records >= records.len() as u64);
        assert!(info.demand + info.prefetch == info.records);
        assert!(info.demand_cached <= info.demand && info.prefetch_cached <= info.prefetch);
        assert!(info.files <= records.len() as u64);
        let names: std::collections::HashSet<&str> = info
            .dictionary
            .pools
            .iter()
            .map(|p| p.name.as_str())
            .collect();
        if clean && names.len() == info.dictionary.pools.len() {
            let mut w = CaptureWriter::new(Vec::new(), &info.header).unwrap();
            for (i, p) in info.dictionary.pools.iter().enumerate() {
                assert_eq!(w.add_pool(&p.name).unwrap() as usize, i);
            }
            for d in &info.dictionary.datasets {
                w.add_dataset(d.clone()).unwrap();
            }
            for rec in &records {
                w.push(rec).unwrap();
            }
            let summary = info.summary.clone().unwrap_or_default();
            let bytes = w.finish(&summary).unwrap();
            let again: Vec<_> = CaptureReader::new(&bytes[..], "rewritten")
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            assert_eq!(again, records);
        }
    }
    let mut opts = OpenOptions::default();
    drain(data, Format::Arct, &opts);
    opts.capture_prefetch = true;
    drain(data, Format::Arct, &opts);
}

/// Small valid captures written by the writer, as seeds for the `capture`
/// target: (file name, bytes).
pub fn capture_seeds() -> Vec<(String, Vec<u8>)> {
    use arclab_trace::capture::*;

    let header = CaptureHeader {
        host: "seed".into(),
        zfs_version: Some("2.2.2".into()),
        arc_c_bytes: Some(1 << 30),
        ..CaptureHeader::default()
    };
    let rec = |i: u64, pool: u16| CaptureRecord {
        time_ns: i * 1000,
        pool,
        objset: 54 + i % 2,
        object: i % 5,
        level: [0i8, 0, 1, -1, 2][(i % 5) as usize],
        blkid: if i % 7 == 0 { u64::MAX } else { i },
        size: 131_072,
        aflags: [
            0u32,
            ARC_FLAG_CACHED,
            ARC_FLAG_PREFETCH,
            ARC_FLAG_PREFETCH | ARC_FLAG_CACHED,
        ][(i % 4) as usize],
        pid: 1000 + i as u32,
    };
    let mut out = Vec::new();
    for (name, blocks, finish) in [
        ("one-block", vec![5usize], true),
        ("three-blocks", vec![3, 2, 4], true),
        ("cut", vec![3, 3], false),
        ("empty", vec![], true),
    ] {
        let mut w = CaptureWriter::new(Vec::new(), &header).unwrap();
        let tank = w.add_pool("tank").unwrap();
        w.add_dataset(Dataset {
            pool: tank,
            objset: 54,
            name: "tank/db".into(),
            recordsize: 16384,
        })
        .unwrap();
        let mut i = 0;
        for (b, n) in blocks.iter().enumerate() {
            let pool = if b == 1 {
                w.add_pool("scratch").unwrap()
            } else {
                tank
            };
            for _ in 0..*n {
                w.push(&rec(i, pool)).unwrap();
                i += 1;
            }
            w.flush().unwrap();
        }
        let bytes = if finish {
            let s = CaptureSummary {
                records: i,
                polls: 3,
                stopped_by: "duration".into(),
                ..Default::default()
            };
            w.finish(&s).unwrap()
        } else {
            // Cut 10 bytes before the end of a last records block: no summary.
            w.push(&rec(99, tank)).unwrap();
            w.flush().unwrap();
            let mut v = w.get_ref().clone();
            v.truncate(v.len() - 10);
            v
        };
        out.push((format!("{name}.arct"), bytes));
    }
    out
}
