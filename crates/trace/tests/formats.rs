//! Small hand-made traces for each format's mapping rules.

mod common;

use std::io::Cursor;

use arclab_arc::{Op, Request};
use arclab_trace::stats::TraceStats;
use arclab_trace::{Format, OpenOptions, from_reader, hash_id};
use common::read_all;

fn read(bytes: &[u8], f: Format, o: &OpenOptions) -> Vec<Request> {
    read_all(&mut from_reader(Cursor::new(bytes.to_vec()), f, o, "mem").unwrap())
}

#[test]
fn oracle_general_skips_zero_size() {
    let mut b = Vec::new();
    for (t, id, size) in [(1u32, 10u64, 100u32), (2, 11, 0), (3, 12, 5)] {
        b.extend(t.to_le_bytes());
        b.extend(id.to_le_bytes());
        b.extend(size.to_le_bytes());
        b.extend((-1i64).to_le_bytes());
    }
    let v = read(&b, Format::OracleGeneral, &OpenOptions::default());
    assert_eq!(
        v,
        [
            Request::read(1_000_000_000, 10, 100),
            Request::read(3_000_000_000, 12, 5)
        ]
    );
}

#[test]
fn lcs_v3_ops_and_sizes() {
    let mut b = vec![0u8; 8192];
    b[..8].copy_from_slice(&0x1234_5678_9abc_def0u64.to_le_bytes());
    b[8184..].copy_from_slice(&0x1234_5678_9abc_def0u64.to_le_bytes());
    b[8..16].copy_from_slice(&4u64.to_le_bytes()); // v4 = v3 + 1 feature, 40 B
    for (id, size, op) in [(1u64, 4096i64, 1u8), (2, 8192, 3), (3, 1, 9), (4, 0, 1)] {
        let mut r = vec![0u8; 40];
        r[0..4].copy_from_slice(&7u32.to_le_bytes());
        r[4..12].copy_from_slice(&id.to_le_bytes());
        r[12..20].copy_from_slice(&size.to_le_bytes());
        r[20] = op;
        b.extend(r);
    }
    let v = read(&b, Format::Lcs, &OpenOptions::default());
    let got: Vec<_> = v.iter().map(|r| (r.key, r.size, r.op, r.time_ns)).collect();
    assert_eq!(
        got,
        [
            (1, 4096, Op::Read, 7_000_000_000),
            (2, 8192, Op::Write, 7_000_000_000),
            (3, 1, Op::Delete, 7_000_000_000)
        ]
    );
    // A size beyond 32 bits is an error naming the record.
    let mut big = b[..8192].to_vec();
    let mut r = vec![0u8; 40];
    r[12..20].copy_from_slice(&(1i64 << 40).to_le_bytes());
    big.extend(&r);
    let mut rd = from_reader(
        Cursor::new(big),
        Format::Lcs,
        &OpenOptions::default(),
        "big.lcs",
    )
    .unwrap();
    let e = rd.read_batch(&mut Vec::new(), 10).unwrap_err();
    assert_eq!(
        e.to_string(),
        "big.lcs: record 1 (byte offset 8192): object size 1099511627776 does not fit in 32 bits"
    );
}

#[test]
fn vscsi_v2_records() {
    let mut b = Vec::new();
    for (i, cmd) in [(0u64, 0x28u16), (1, 0x2a), (2, 0x28)] {
        let mut r = vec![0u8; 40];
        r[0..2].copy_from_slice(&cmd.to_le_bytes());
        r[2..4].copy_from_slice(&0x0200u16.to_le_bytes());
        r[8..12].copy_from_slice(&4096u32.to_le_bytes());
        r[16..24].copy_from_slice(&(100 + i).to_le_bytes());
        r[24..32].copy_from_slice(&(1_500_000 * i).to_le_bytes());
        b.extend(r);
    }
    let v = read(&b, Format::Vscsi, &OpenOptions::default());
    let got: Vec<_> = v.iter().map(|r| (r.key, r.size, r.op, r.time_ns)).collect();
    assert_eq!(
        got,
        [
            (100, 4096, Op::Read, 0),
            (101, 4096, Op::Write, 1_500_000_000),
            (102, 4096, Op::Read, 3_000_000_000)
        ]
    );
}

#[test]
fn csv_options() {
    let mut o = OpenOptions::default();
    o.csv.delimiter = b'\t';
    o.csv.time_col = Some(1);
    o.csv.id_col = 2;
    o.csv.size_col = Some(3);
    o.csv.op_col = Some(4);
    let text = "ts\tkey\tsize\top\r\n1.5\tfoo\t10\tget\n\n2\t0x10\t0\tset\n3\t\"17\"\t20\tW\n";
    let v = read(text.as_bytes(), Format::Csv, &o);
    let got: Vec<_> = v.iter().map(|r| (r.time_ns, r.key, r.size, r.op)).collect();
    // The zero-size row is skipped; "foo" is hashed.
    assert_eq!(
        got,
        [
            (1_500_000_000, hash_id(b"foo"), 10, Op::Read),
            (3_000_000_000, 17, 20, Op::Write)
        ]
    );
    // id_is_num = false hashes even numbers; no header is detected then.
    o.csv = Default::default();
    o.csv.id_is_num = false;
    let v = read(b"5\n6\n", Format::Csv, &o);
    assert_eq!(
        v.iter().map(|r| r.key).collect::<Vec<_>>(),
        [hash_id(b"5"), hash_id(b"6")]
    );
    // Header detection with default options.
    let v = read(b"id\n5\n6", Format::Csv, &OpenOptions::default());
    assert_eq!(v.iter().map(|r| r.key).collect::<Vec<_>>(), [5, 6]);
    let v = read(b"5\n6", Format::Csv, &OpenOptions::default());
    assert_eq!(v.len(), 2);
}

#[test]
fn txt_and_lis() {
    let v = read(b"1\n\n2\r\nabc\n3", Format::Txt, &OpenOptions::default());
    assert_eq!(
        v.iter().map(|r| r.key).collect::<Vec<_>>(),
        [1, 2, hash_id(b"abc"), 3]
    );
    assert!(v.iter().all(|r| r.size == 1 && r.time_ns == 0));
    let o = OpenOptions {
        lis_block_size: 4096,
        ..OpenOptions::default()
    };
    let v = read(b"10 3 0 0\n\n5 0 0 1\n7 1 0 2", Format::Lis, &o);
    assert_eq!(v.iter().map(|r| r.key).collect::<Vec<_>>(), [10, 11, 12, 7]);
    assert!(v.iter().all(|r| r.size == 4096));
    // Expansion across batch boundaries.
    let mut r = from_reader(Cursor::new(b"100 5 0 0\n".to_vec()), Format::Lis, &o, "m").unwrap();
    let mut b = Vec::new();
    assert_eq!(r.read_batch(&mut b, 2).unwrap(), 2);
    assert_eq!(r.read_batch(&mut b, 2).unwrap(), 2);
    assert_eq!(r.read_batch(&mut b, 2).unwrap(), 1);
    assert_eq!(r.read_batch(&mut b, 2).unwrap(), 0);
    assert_eq!(
        b.iter().map(|r| r.key).collect::<Vec<_>>(),
        [100, 101, 102, 103, 104]
    );
}

#[test]
fn iterator_and_batches_mix() {
    let mut r = from_reader(
        Cursor::new(b"1\n2\n3\n4\n5".to_vec()),
        Format::Txt,
        &OpenOptions::default(),
        "m",
    )
    .unwrap();
    assert_eq!(r.next().unwrap().unwrap().key, 1);
    let mut b = Vec::new();
    while r.read_batch(&mut b, 2).unwrap() > 0 {}
    assert_eq!(b.iter().map(|r| r.key).collect::<Vec<_>>(), [2, 3, 4, 5]);
    assert!(r.next().is_none());
}

#[test]
fn stats_by_hand() {
    // keys: a b c a b b d a ; sizes: first-seen sizes count for the working set.
    // reuse distances: a@3 → {b,c}=2, b@4 → {c,a}=2, b@5 → 0, a@7 → {b,d}=2
    let keys = [1u64, 2, 3, 1, 2, 2, 4, 1];
    let sizes = [10u32, 20, 30, 99, 20, 20, 40, 10];
    let mut b = Vec::new();
    for (i, (k, s)) in keys.iter().zip(sizes).enumerate() {
        b.extend((i as u32 * 2 + 5).to_le_bytes());
        b.extend(k.to_le_bytes());
        b.extend(s.to_le_bytes());
        b.extend((-1i64).to_le_bytes());
    }
    let mut r = from_reader(
        Cursor::new(b),
        Format::OracleGeneral,
        &OpenOptions::default(),
        "m",
    )
    .unwrap();
    let s = TraceStats::compute(&mut r, |_| {}).unwrap();
    assert_eq!((s.n_req, s.n_obj), (8, 4));
    assert_eq!(s.n_req_byte, 10 + 20 + 30 + 99 + 20 + 20 + 40 + 10);
    assert_eq!(s.working_set_bytes, 10 + 20 + 30 + 40);
    assert_eq!(
        (s.start_time_ns, s.end_time_ns),
        (5_000_000_000, 19_000_000_000)
    );
    assert_eq!((s.n_read, s.n_write, s.n_delete), (8, 0, 0));
    assert_eq!(s.one_hit_wonders, 2); // c and d
    let d = &s.reuse_distance;
    assert_eq!((d.count, d.max), (4, 2));
    assert_eq!(d.mean, 1.5);
    // sorted distances 0 2 2 2: p50 = 2nd smallest = 2, p90/p99 = 2
    assert_eq!((d.p50, d.p90, d.p99), (2, 2, 2));
}
