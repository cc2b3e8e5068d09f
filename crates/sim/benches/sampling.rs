//! Miniature simulation speed-up: the ZFS model on a 2 M request
//! Zipf-plus-scans trace, full vs spatially sampled at R = 0.01 (the
//! ratio of the two times is the speed-up; accuracy is in tests/sampling.rs).

use arclab_arc::Request;
use arclab_sim::scenario::Scenario;
use arclab_sim::whatif::plan::{self, PolicyName};
use arclab_sim::whatif::{self, RunSpec};
use arclab_sim::workload::WorkloadSpec;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

const TRACE: &str = r#"
kind = "mixture"
duration_secs = 100
rate = 20000
[[components]]
kind = "zipf"
weight = 0.9
alpha = 0.8
objects = 1000000
[[components]]
kind = "scan"
weight = 0.1
bytes = "8GiB"
period_secs = 60
"#;

fn replay(spec: &RunSpec, reqs: &[Request]) -> u64 {
    let mut pos = 0;
    whatif::run(spec, &mut |buf, max| {
        let end = (pos + max).min(reqs.len());
        buf.extend_from_slice(&reqs[pos..end]);
        let n = end - pos;
        pos = end;
        n
    })
    .n_miss
}

fn sampling(c: &mut Criterion) {
    let w = WorkloadSpec::from_toml_str(TRACE, "bench").unwrap();
    let mut reqs = Vec::new();
    let mut g = w.generator(11);
    while g.next_batch(&mut reqs, 1 << 16) > 0 {}
    let sc = Scenario::from_toml_str(
        "name = \"big\"\nram_bytes = \"128GiB\"\nprefetch = false\n",
        "bench",
    )
    .unwrap();
    let mut g = c.benchmark_group("zfs_model_16GiB_cap");
    g.throughput(Throughput::Elements(reqs.len() as u64));
    g.sample_size(10);
    for rate in [None, Some(0.01)] {
        let mut spec =
            plan::single(&sc, PolicyName::ZfsArc, "16G", plan::cap_of(Some(16 << 30))).unwrap();
        spec.sample_rate = rate;
        spec.series_step_ns = 0;
        let id = match rate {
            Some(r) => format!("sampled_R{r}"),
            None => "full".into(),
        };
        g.bench_with_input(BenchmarkId::from_parameter(id), &spec, |b, spec| {
            b.iter(|| black_box(replay(spec, black_box(&reqs))))
        });
    }
    g.finish();
}

/// The sample's membership test alone (`SpatialSampler::keep`), which a
/// sampled replay of a trace runs on every request it reads: 1 M keys of the
/// workloads' lattice (`file << 41 | blkid`, 1,000 files of 1,000 blocks).
fn keep(c: &mut Criterion) {
    let keys: Vec<u64> = (0..1_000u64)
        .flat_map(|f| (0..1_000u64).map(move |b| (f << 41) | b))
        .collect();
    let mut g = c.benchmark_group("sampler_keep");
    g.throughput(Throughput::Elements(keys.len() as u64));
    let s = arclab_sim::sample::SpatialSampler::new(0.01, 3);
    g.bench_function("1M_lattice_keys_R0.01", |b| {
        b.iter(|| black_box(&keys).iter().filter(|&&k| s.keep(k)).count())
    });
    g.finish();
}

criterion_group!(benches, sampling, keep);
criterion_main!(benches);
