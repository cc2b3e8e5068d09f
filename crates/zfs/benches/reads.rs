//! How fast a capture poll digests a `reads` ring: a full 100,000-line ring
//! (the default `--ring`) parsed whole, and the same ring when every line
//! but the last 1,000 was seen by the previous poll (the steady state).
//! The poll interval must exceed this time for the capture to keep up:
//! lines per second sustained ≈ new lines per poll ÷ poll time.

use arclab_zfs::capture::reads::{ReadRow, header_line, parse_reads_into};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn ring(n: u64) -> String {
    let mut s = header_line();
    for uid in 1..=n {
        s.push_str(
            &ReadRow {
                uid,
                start_ns: 7_000_000_000_000 + uid * 10_000,
                objset: 0x36,
                object: 1000 + uid % 64,
                level: 0,
                blkid: (uid * 7919 % 100_000) as i64,
                aflags: if uid % 3 == 0 { 0xa } else { 0x2 },
                origin: String::new(),
                pid: 4242,
                process: "postgres".into(),
            }
            .to_string(),
        );
    }
    s
}

fn bench(c: &mut Criterion) {
    let text = ring(100_000);
    let mut g = c.benchmark_group("reads_ring_100k");
    g.throughput(Throughput::Elements(100_000));
    let mut rows = Vec::with_capacity(100_000);
    g.bench_function("all_new", |b| {
        b.iter(|| {
            rows.clear();
            parse_reads_into(&text, "reads", &mut rows, 0).unwrap()
        })
    });
    g.bench_function("last_1000_new", |b| {
        b.iter(|| {
            rows.clear();
            parse_reads_into(&text, "reads", &mut rows, 99_000).unwrap()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
