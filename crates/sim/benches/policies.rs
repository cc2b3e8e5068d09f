//! Per-request access cost of each policy on a deterministic Zipf(1.0)
//! stream of 1 M requests (object mode), for several key spaces and caches.

#[path = "../tests/common/zipf.rs"]
mod zipf;

use arclab_sim::{AnyPolicy, Counters, PolicyKind};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

fn policies(c: &mut Criterion) {
    for n_keys in [100_000usize, 1_000_000] {
        let reqs = zipf::zipf_requests(1_000_000, n_keys, 1.0, 4096, 7);
        let mut g = c.benchmark_group(format!("zipf1.0_1M_req_{}k_keys", n_keys / 1000));
        g.throughput(Throughput::Elements(reqs.len() as u64));
        g.sample_size(10);
        for kind in PolicyKind::ALL {
            for cap in [10_000u64, 100_000] {
                g.bench_with_input(BenchmarkId::new(kind.name(), cap), &cap, |b, &cap| {
                    b.iter(|| {
                        let mut p = AnyPolicy::new_object_mode(kind, cap);
                        let mut out = Counters::default();
                        p.access_batch(black_box(&reqs), true, &mut out);
                        black_box(out)
                    })
                });
            }
        }
        g.finish();
    }
}

criterion_group!(benches, policies);
criterion_main!(benches);
