//! Per-request path of the ARC model on a Zipf(1.0) stream over 1 M 4 KiB
//! objects (the replay-speed target: ≥ 8 M requests/s).

use arclab_arc::Request;
use arclab_arc::model::{ArcCache, ArcConfig};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

/// Zipf(1.0) over `n` objects by inverse CDF over a precomputed table, with
/// a xorshift generator (deterministic).
pub fn zipf_stream(n: usize, len: usize, seed: u64) -> Vec<Request> {
    let mut cdf = Vec::with_capacity(n);
    let mut acc = 0.0f64;
    for k in 1..=n {
        acc += 1.0 / k as f64;
        cdf.push(acc);
    }
    let total = acc;
    let mut x = seed | 1;
    (0..len)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let u = (x >> 11) as f64 / (1u64 << 53) as f64 * total;
            let k = cdf.partition_point(|&c| c < u) as u64;
            // 10 µs apart: 5 M requests span 50 s of model time.
            Request::read(i as u64 * 10_000, k, 4096)
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let reqs = zipf_stream(1_000_000, 5_000_000, 0x9e37_79b9_7f4a_7c15);
    let mut g = c.benchmark_group("model");
    g.throughput(Throughput::Elements(reqs.len() as u64));
    g.sample_size(10);
    g.bench_function("zipf1.0_1M_objects_5M_requests", |b| {
        b.iter(|| {
            let mut arc = ArcCache::new(ArcConfig::new(16 << 30));
            let mut hits = 0u64;
            for r in &reqs {
                hits += u64::from(arc.access(r).is_hit());
            }
            hits
        })
    });
    g.bench_function("zipf1.0_1M_objects_5M_requests_batch", |b| {
        b.iter(|| {
            let mut arc = ArcCache::new(ArcConfig::new(16 << 30));
            let mut hits = 0u64;
            arc.access_batch(&reqs, |_, o| hits += u64::from(o.is_hit()));
            hits
        })
    });
    g.finish();
}

/// The prefetcher alone on random reads of one large file (the issue-16
/// trace's common case: every read misses the streams and recycles one),
/// 2.2.8 rules, 22,000 reads/s, with every 8th read the next block of the
/// one before so some streams hit.
fn zfetch(c: &mut Criterion) {
    use arclab_arc::zfetch::{FileInfo, Zfetch, ZfetchConfig};
    let release: arclab_arc::limits::Release = "2.2.8".parse().expect("a release");
    let info = FileInfo {
        maxblkid: 1 << 40,
        blocksize: 128 << 10,
    };
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut last = 0u64;
    let reads: Vec<(u64, u64)> = (0..1_000_000u64)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            last = if i % 8 == 7 { last + 1 } else { x % (1 << 30) };
            (last, i * 45_454)
        })
        .collect();
    let mut g = c.benchmark_group("zfetch");
    g.throughput(Throughput::Elements(reads.len() as u64));
    g.sample_size(10);
    g.bench_function("random_reads_1M", |b| {
        b.iter(|| {
            let mut z = Zfetch::new(ZfetchConfig::for_release(release));
            let mut out = Vec::new();
            let mut n = 0usize;
            for &(blkid, now) in &reads {
                out.clear();
                if let Some(s) = z.prepare(0, blkid, 1, true, now, &info, &mut out) {
                    z.run(s, true, &mut out);
                    for io in out.drain(..) {
                        z.io_done(&io, false);
                    }
                }
                n += out.len();
            }
            n
        })
    });
    g.finish();
}

criterion_group!(benches, bench, zfetch);
criterion_main!(benches);
