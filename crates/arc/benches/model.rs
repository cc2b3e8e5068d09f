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

criterion_group!(benches, bench);
criterion_main!(benches);
