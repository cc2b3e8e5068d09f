//! Single-thread replay throughput (per CPU second of the replaying thread) and memory per tracked object, on a 5 M
//! request Zipf(1.0) stream over 1 M objects (object mode). Ignored by
//! default; run in release:
//!
//! `cargo test --release -p arclab-sim --test throughput -- --ignored --nocapture`

#[path = "common/zipf.rs"]
mod zipf;

use arclab_arc::Request;
use arclab_sim::{AnyPolicy, Counters, Policy, PolicyKind};

/// CPU time (user + system) of this thread, in seconds, from
/// `/proc/thread-self/stat` (10 ms ticks): robust against other processes
/// competing for the 2 cores, unlike wall-clock time.
fn thread_cpu_secs() -> f64 {
    let s = std::fs::read_to_string("/proc/thread-self/stat").unwrap();
    let after = &s[s.rfind(')').unwrap() + 2..];
    let f: Vec<&str> = after.split(' ').collect();
    // Fields 14 and 15 of stat(5) are utime and stime; `after` starts at field 3.
    let ticks: u64 = f[11].parse::<u64>().unwrap() + f[12].parse::<u64>().unwrap();
    ticks as f64 / 100.0
}

/// Object-mode replay through `access` only, monomorphised per policy.
fn plain_loop(p: &mut AnyPolicy, reqs: &[Request]) -> u64 {
    fn run<P: Policy>(p: &mut P, reqs: &[Request]) -> u64 {
        let mut miss = 0;
        for r in reqs {
            let mut u = *r;
            u.size = 1;
            miss += u64::from(!p.access(&u));
        }
        miss
    }
    match p {
        AnyPolicy::Lru(p) => run(p, reqs),
        AnyPolicy::Fifo(p) => run(p, reqs),
        AnyPolicy::Arc(p) => run(p, reqs),
        AnyPolicy::S3Fifo(p) => run(p, reqs),
        AnyPolicy::Sieve(p) => run(p, reqs),
    }
}

#[test]
#[ignore = "benchmark: run in release with --ignored --nocapture"]
fn zipf_5m_over_1m_objects() {
    let reqs = zipf::zipf_requests(5_000_000, 1_000_000, 1.0, 4096, 42);
    println!(
        "| policy | cache (objects) | miss ratio | M req/s access_batch | M req/s plain access loop | tracked | B/tracked |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    // ARCLAB_TP_POLICIES=lru,arc and ARCLAB_TP_SIZES=100000,400000 narrow the run.
    let kinds: Vec<PolicyKind> = std::env::var("ARCLAB_TP_POLICIES")
        .map(|s| s.split(',').map(|k| k.parse().unwrap()).collect())
        .unwrap_or_else(|_| PolicyKind::ALL.to_vec());
    let sizes: Vec<u64> = std::env::var("ARCLAB_TP_SIZES")
        .map(|s| s.split(',').map(|k| k.parse().unwrap()).collect())
        .unwrap_or_else(|_| vec![10_000, 50_000, 100_000, 200_000, 400_000]);
    for &kind in &kinds {
        for &cap in &sizes {
            let mut best = f64::MAX;
            let mut best_plain = f64::MAX;
            let mut counters = Counters::default();
            let mut mem = (0, 0);
            for _ in 0..3 {
                let mut p = AnyPolicy::new_object_mode(kind, cap);
                let mut c = Counters::default();
                let t = thread_cpu_secs();
                p.access_batch(&reqs, true, &mut c);
                best = best.min(thread_cpu_secs() - t);
                counters = c;
                mem = (p.tracked(), p.heap_bytes());
                // The same replay through `access` alone (no look-ahead warming).
                let mut q = AnyPolicy::new_object_mode(kind, cap);
                let t = thread_cpu_secs();
                let misses = plain_loop(&mut q, &reqs);
                best_plain = best_plain.min(thread_cpu_secs() - t);
                assert_eq!(misses, c.n_miss);
            }
            println!(
                "| {kind} | {cap} | {:.4} | {:.1} | {:.1} | {} | {:.1} |",
                counters.miss_ratio(),
                reqs.len() as f64 / best / 1e6,
                reqs.len() as f64 / best_plain / 1e6,
                mem.0,
                mem.1 as f64 / mem.0 as f64
            );
        }
    }
}
