//! Miniature simulation: at R = 0.01 the canonical ARC and the ZFS model
//! give the full simulation's miss ratio within 0.005 (mean absolute error
//! over 8 caps of the mean of 8 independent samples) on a 5 M request
//! Zipf-plus-scans trace.

use arclab_arc::Request;
use arclab_sim::PolicyKind;
use arclab_sim::sample::SampleUnits;
use arclab_sim::scenario::Scenario;
use arclab_sim::whatif::plan::{self, PolicyName};
use arclab_sim::whatif::{self, RunResult, RunSpec};
use arclab_sim::workload::WorkloadSpec;

const TRACE: &str = r#"
name = "zipf+scans"
kind = "mixture"
duration_secs = 280
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

const HOST: &str = "name = \"big\"\nram_bytes = \"128GiB\"\nprefetch = false\n";

fn run_caps(reqs: &[Request], specs: Vec<RunSpec>) -> Vec<RunResult> {
    let out = std::sync::Mutex::new(vec![None; specs.len()]);
    std::thread::scope(|s| {
        for (i, spec) in specs.iter().enumerate() {
            let out = &out;
            s.spawn(move || {
                let mut pos = 0;
                let r = whatif::run(spec, &mut |buf, max| {
                    let end = (pos + max).min(reqs.len());
                    buf.extend_from_slice(&reqs[pos..end]);
                    let n = end - pos;
                    pos = end;
                    n
                });
                out.lock().unwrap()[i] = Some(r);
            });
        }
    });
    out.into_inner()
        .unwrap()
        .into_iter()
        .map(Option::unwrap)
        .collect()
}

/// The ZFS model on `sc` at each cap, sampled at `rate`, no series.
fn zfs_caps(sc: &Scenario, caps: &[u64], rate: Option<f64>) -> Vec<RunSpec> {
    caps.iter()
        .map(|&cap| {
            let mut s = plan::single(sc, PolicyName::ZfsArc, "x", plan::cap_of(Some(cap))).unwrap();
            s.sample_rate = rate;
            s.series_step_ns = 0;
            s
        })
        .collect()
}

#[test]
fn sampled_miss_ratios_match_full_simulation() {
    let w = WorkloadSpec::from_toml_str(TRACE, "inline").unwrap();
    let mut reqs = Vec::new();
    let mut g = w.generator(11);
    while g.next_batch(&mut reqs, 1 << 16) > 0 {}
    assert!(reqs.len() >= 5_000_000, "{}", reqs.len());
    let sc = Scenario::from_toml_str(HOST, "inline").unwrap();
    let caps: Vec<u64> = (0..8).map(|i| (8u64 + 6 * i) << 30).collect();
    // One sample's error is mostly which of the Zipf head's hottest keys it
    // holds (salt 0 misses more than the others: ARC 0.0106 alone, the
    // other seven 0.0011-0.0037), so the test asks what `whatif
    // --sample-seeds 8` reports, the mean of eight, and bounds each one.
    const SEEDS: usize = 8;
    for policy in ["arc", "zfs"] {
        let mut specs = Vec::new();
        for &cap in &caps {
            for salt in std::iter::once(None).chain((0..SEEDS as u64).map(Some)) {
                let mut s = if policy == "arc" {
                    plan::single(
                        &sc,
                        PolicyName::Baseline(PolicyKind::Arc),
                        "x",
                        plan::cap_of(Some(cap)),
                    )
                    .unwrap()
                } else {
                    plan::single(&sc, PolicyName::ZfsArc, "x", plan::cap_of(Some(cap))).unwrap()
                };
                s.sample_rate = salt.map(|_| 0.01);
                s.sample_salt = salt.unwrap_or(0);
                s.series_step_ns = 0;
                specs.push(s);
            }
        }
        let r = run_caps(&reqs, specs);
        let (mut mae, mut single) = (0.0, [0.0; SEEDS]);
        for (i, &cap) in caps.iter().enumerate() {
            let full = &r[(SEEDS + 1) * i];
            let minis = &r[(SEEDS + 1) * i + 1..(SEEDS + 1) * (i + 1)];
            assert!(minis.iter().all(|m| m.sampled == Some(0.01)));
            let a = 1.0 - full.hit_ratio;
            let b = minis.iter().map(|m| 1.0 - m.hit_ratio).sum::<f64>() / SEEDS as f64;
            println!(
                "{policy} {:>3} GiB: full {a:.4} mean of {SEEDS} samples {b:.4} (Δ {:+.4})",
                cap >> 30,
                b - a
            );
            mae += (a - b).abs() / caps.len() as f64;
            for (e, m) in single.iter_mut().zip(minis) {
                *e += (a - (1.0 - m.hit_ratio)).abs() / caps.len() as f64;
            }
        }
        println!("{policy}: MAE {mae:.4}, single samples {single:.4?}");
        assert!(mae < 0.005, "{policy}: MAE {mae}");
        assert!(single.iter().all(|&e| e < 0.02), "{policy}: {single:?}");
    }
}

/// A heavy head sampled by popularity rank: the built-in `zipf`'s shape
/// (Zipf 0.9 over 81,920 blocks of 128 KiB, 2.4 M reads) through LRU at
/// seven caps from 512 MiB to 8 GiB, each replayed whole and on eight
/// samples at R = 0.01 (819 blocks each). Sampled by hash, a sample holds a
/// binomial number of the hottest blocks and its error is mostly that
/// (measured here: mean absolute error of single samples 0.0088, the worst
/// sample 0.032, 0.066 at 512 MiB). Sampled by rank
/// (`WorkloadSpec::sample_units`: every 100 consecutive ranks keep one
/// block) it must be less than half of that on average, within the issue's
/// goal of 0.005, and no sample may be off by more than 0.0075. What is left
/// (measured 0.0038, the worst 0.0056) is about what the sample's own draws
/// leave: its ~24,000 requests miss ~12,000 times at 512 MiB, a Poisson
/// count whose relative spread, 1/√12,000, is 0.0045 of hit ratio there.
#[test]
fn a_heavy_head_sampled_by_rank() {
    let w = WorkloadSpec::from_toml_str(
        "name = \"z\"\nkind = \"zipf\"\nduration_secs = 120\nrate = 20000\n\
         alpha = 0.9\nobjects = 81920\nsize = \"128KiB\"\n",
        "inline",
    )
    .unwrap();
    let mut reqs = Vec::new();
    let mut g = w.generator(5);
    while g.next_batch(&mut reqs, 1 << 16) > 0 {}
    let sc = Scenario::from_toml_str(HOST, "inline").unwrap();
    let caps: Vec<u64> = [512u64, 1024, 2048, 3072, 4096, 6144, 8192]
        .iter()
        .map(|m| m << 20)
        .collect();
    const SEEDS: u64 = 8;
    let ranked = w.sample_units(0.01);
    assert!(ranked.ranked());
    let mut worst = [0.0f64; 2];
    let mut mean = [0.0f64; 2];
    for (v, units) in [SampleUnits::BLOCKS, ranked].into_iter().enumerate() {
        let mut specs = Vec::new();
        for &cap in &caps {
            for salt in std::iter::once(None).chain((0..SEEDS).map(Some)) {
                let mut s = plan::single(
                    &sc,
                    PolicyName::Baseline(PolicyKind::Lru),
                    "x",
                    plan::cap_of(Some(cap)),
                )
                .unwrap();
                s.sample_rate = salt.map(|_| 0.01);
                s.sample_salt = salt.unwrap_or(0);
                s.sample_units = units;
                s.series_step_ns = 0;
                specs.push(s);
            }
        }
        let r = run_caps(&reqs, specs);
        let k = SEEDS as usize + 1;
        for i in 0..caps.len() {
            let e: Vec<String> = (0..SEEDS as usize)
                .map(|j| format!("{:+.4}", r[k * i + 1 + j].hit_ratio - r[k * i].hit_ratio))
                .collect();
            println!(
                "{v} {} MiB full {:.4}: {}",
                caps[i] >> 20,
                r[k * i].hit_ratio,
                e.join(" ")
            );
        }
        for salt in 0..SEEDS as usize {
            let mae = (0..caps.len())
                .map(|i| (r[k * i].hit_ratio - r[k * i + 1 + salt].hit_ratio).abs())
                .sum::<f64>()
                / caps.len() as f64;
            worst[v] = worst[v].max(mae);
            mean[v] += mae / SEEDS as f64;
        }
    }
    println!("by hash: mean {:.4} worst {:.4}", mean[0], worst[0]);
    println!("by rank: mean {:.4} worst {:.4}", mean[1], worst[1]);
    assert!(mean[1] < 0.005, "by rank: mean MAE {}", mean[1]);
    assert!(
        worst[1] < 0.0075,
        "by rank: worst sample's MAE {}",
        worst[1]
    );
    assert!(
        mean[1] < mean[0] / 2.0,
        "by rank {} by hash {}",
        mean[1],
        mean[0]
    );
}

/// A mixture with every kind of request a Zipf component draws (data reads,
/// writes, indirect-block reads, a prefill) beside a scan generated whole.
const MIXED: &str = r#"
name = "mixed"
kind = "mixture"
duration_secs = 100
rate = 20000
[[components]]
kind = "zipf"
weight = 0.7
alpha = 0.9
objects = 200000
size = "16KiB"
metadata_fraction = 0.1
write_fraction = 0.2
prefill = true
[[components]]
kind = "oltp"
weight = 0.3
bytes = "2GiB"
size = "16KiB"
alpha = 1.1
write_fraction = 0.25
[[components]]
kind = "scan"
rate = 2000
bytes = "1GiB"
start_secs = 20
"#;

/// What a stream holds, by kind of request: (data reads, writes, metadata
/// reads, distinct keys).
fn census(reqs: &[Request]) -> (u64, u64, u64, usize) {
    use arclab_arc::{Kind, Op};
    let (mut d, mut w, mut m) = (0, 0, 0);
    for r in reqs {
        match (r.kind, r.op) {
            (Kind::Metadata, _) => m += 1,
            (_, Op::Write) => w += 1,
            _ => d += 1,
        }
    }
    let keys: std::collections::HashSet<u64> = reqs.iter().map(|r| r.key).collect();
    (d, w, m, keys.len())
}

/// `sampled_generator` draws the kept requests directly (thinned Poisson
/// streams); what it emits must be what filtering the whole stream keeps,
/// in distribution: the counts of each kind of request and of distinct
/// keys within a few percent (the two are independent draws, so they are
/// compared with a tolerance of several standard deviations), every key one
/// the sampler keeps, time order, and the whole stream's request count.
#[test]
fn sampled_generator_emits_the_filtered_stream() {
    use arclab_sim::sample::SpatialSampler;
    let w = WorkloadSpec::from_toml_str(MIXED, "inline").unwrap();
    let s = SpatialSampler::new(0.05, 0);
    let from_ns = 10_000_000_000;
    let mut all = Vec::new();
    let mut g = w.generator(3);
    while g.next_batch(&mut all, 1 << 16) > 0 {}
    assert_eq!(g.full_requests(), None);
    let after = all.iter().filter(|r| r.time_ns >= from_ns).count() as f64;
    let filtered: Vec<Request> = all.into_iter().filter(|r| s.keep(r.key)).collect();
    let mut thin = Vec::new();
    let mut g = w.sampled_generator(3, &[s], from_ns);
    while g.next_batch(&mut thin, 1 << 16) > 0 {}
    assert!(thin.iter().all(|r| s.keep(r.key)));
    assert!(thin.windows(2).all(|p| p[0].time_ns <= p[1].time_ns));
    let full = g.full_requests().unwrap() as f64;
    assert!((full / after - 1.0).abs() < 0.002, "{full} vs {after}");
    let (a, b) = (census(&filtered), census(&thin));
    println!("filtered {a:?}\nthinned  {b:?}");
    let close = |x: f64, y: f64, tol: f64| (x / y - 1.0).abs() < tol;
    assert!(
        close(b.0 as f64, a.0 as f64, 0.03),
        "data reads {b:?} vs {a:?}"
    );
    assert!(close(b.1 as f64, a.1 as f64, 0.05), "writes {b:?} vs {a:?}");
    assert!(
        close(b.2 as f64, a.2 as f64, 0.08),
        "metadata {b:?} vs {a:?}"
    );
    assert!(
        close(b.3 as f64, a.3 as f64, 0.03),
        "distinct keys {b:?} vs {a:?}"
    );
    // A prefill (every object once, in order, 200,000 a second) is not
    // random: its kept part is the filtered one, key for key.
    let fill = WorkloadSpec::from_toml_str(
        "kind = \"zipf\"\nobjects = 100000\nalpha = 1.0\nrate = 1000\nprefill = true\nduration_secs = 0.5\n",
        "fill",
    )
    .unwrap();
    let mut a = Vec::new();
    let mut g = fill.generator(1);
    while g.next_batch(&mut a, 1 << 16) > 0 {}
    a.retain(|r| s.keep(r.key));
    let mut b = Vec::new();
    let mut g = fill.sampled_generator(1, &[s], 0);
    while g.next_batch(&mut b, 1 << 16) > 0 {}
    assert_eq!(g.full_requests(), Some(100_000));
    assert!((4_000..6_000).contains(&a.len()), "{}", a.len());
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x.key, y.key);
        assert!(x.time_ns.abs_diff(y.time_ns) <= 1, "{x:?} {y:?}");
    }
}

/// The day-in-a-minute path (issue 16, item 3) on a shorter run: the
/// built-in homelab workload (22,000 reads/s) for 10 minutes on the homelab
/// scenario, four caps, replayed whole and as a sample generated directly
/// at R = 0.01 (`run_all` with every run sampling). The demand hit ratio
/// must agree within 0.015 at each cap — twice the largest error
/// `bench/sampling_error.py` measured on this workload between 2 and 16 GiB
/// (`docs/bench.md`, 2026-12-02: 0.0048 mean; 1 GiB, where pinned memory
/// fills the cap, is off by 0.10 and left out) — and the request count the
/// sample reports is the whole workload's.
#[test]
fn a_sample_generated_directly_matches_the_full_replay() {
    let text = arclab_sim::workload::builtin_toml("homelab")
        .unwrap()
        .replace("duration_secs = 86400", "duration_secs = 600");
    let w = WorkloadSpec::from_toml_str(&text, "homelab-10min").unwrap();
    let mut sc = arclab_sim::scenario::builtin("homelab").unwrap();
    sc.warmup_secs = 60.0;
    let caps = [16u64 << 30, 8 << 30, 6 << 30, 4 << 30];
    let (full_specs, mini_specs) = (zfs_caps(&sc, &caps, None), zfs_caps(&sc, &caps, Some(0.01)));
    let full = whatif::run_all(&full_specs, &w, 1, 2, |_| {});
    let mini = whatif::run_all(&mini_specs, &w, 1, 2, |_| {});
    for (((f, m), cap), spec) in full.iter().zip(&mini).zip(caps).zip(&mini_specs) {
        println!(
            "{:>2} GiB: full {:.4} ({} req) sampled {:.4} ({} req)",
            cap >> 30,
            f.hit_ratio,
            f.n_req,
            m.hit_ratio,
            m.n_req
        );
        // R × cap stays at or above 64 MiB, and R × (cap − pinned) holds
        // 128 blocks: 4 GiB samples at 16 MiB / (4 GiB − 3.28 GiB pinned).
        assert_eq!(m.sampled, spec.effective_rate());
        assert!(m.sampled.unwrap() >= 0.01);
        assert!((m.n_req as f64 / f.n_req as f64 - 1.0).abs() < 0.001);
        assert!((m.hit_ratio - f.hit_ratio).abs() < 0.015, "{cap}");
    }
}

/// A cap under what the ARC holds pinned leaves data only the dbuf cache in
/// front of it (c/32): at 2 GiB with 3 GiB pinned, 512 blocks of 128 KiB.
/// The model then answers as an LRU of 512 blocks would: the full replay of
/// a Zipf 0.9 over 81,920 blocks must be within 0.01 of Che's approximation
/// for that LRU (an independent formula, computed here; measured 0.2878
/// against 0.2930). A miniature of it at R = 0.01 would hold 5 blocks, and
/// the 64 MiB floor made it 16: its hit ratio is a sum over the handful of
/// hot blocks the sample kept (Che's approximation of that: off by 0.005 on
/// average over 16 salts at 256 blocks, 0.010 at 768; here the four samples
/// were off by +0.014, −0.001, −0.013, +0.016). The rate is raised so that
/// the miniature has room for 128 blocks (`whatif::MIN_DATA_BLOCKS`; Che's
/// approximation: off by 0.0008 and 0.0009), here R = 0.25, and every one
/// of four samples must be within 0.005 of the whole replay (measured
/// −0.0026 to +0.0005). The prefetcher is off: on, the whole replay gains
/// 0.004 from chance streams among the random reads, which a sample, whose
/// kept blocks are rarely neighbours, does not see (`docs/whatif.md`, "Room
/// for data in a miniature").
#[test]
fn a_cap_that_leaves_data_only_the_dbuf_cache_samples_enough_of_it() {
    let w = WorkloadSpec::from_toml_str(
        "name = \"z\"\nkind = \"zipf\"\nduration_secs = 30\nrate = 20000\nalpha = 0.9\n\
         objects = 81920\nsize = \"128KiB\"\n",
        "z",
    )
    .unwrap();
    let sc = Scenario::from_toml_str(
        "name = \"pinned\"\nram_bytes = \"32GiB\"\nwarmup_secs = 0\nprefetch = false\n[pinned]\n\
         dnode_bytes = \"3GiB\"\n",
        "pinned",
    )
    .unwrap();
    let cap = 2u64 << 30;
    let full = &whatif::run_all(&zfs_caps(&sc, &[cap], None), &w, 1, 1, |_| {})[0];
    // Che: the characteristic time T with Σ (1 − e^(−p·T)) = 512 blocks,
    // then the hit ratio Σ p·(1 − e^(−p·T)).
    let n = 81_920;
    let z: f64 = (1..=n).map(|k| f64::from(k).powf(-0.9)).sum();
    let p: Vec<f64> = (1..=n).map(|k| f64::from(k).powf(-0.9) / z).collect();
    let filled = |t: f64| p.iter().map(|&q| 1.0 - (-q * t).exp()).sum::<f64>();
    let (mut lo, mut hi) = (0.0f64, 1e9f64);
    for _ in 0..100 {
        let mid = (lo + hi) / 2.0;
        if filled(mid) > 512.0 {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    let che: f64 = p.iter().map(|&q| q * (1.0 - (-q * lo).exp())).sum();
    println!(
        "full {:.4}, Che's LRU of 512 blocks {che:.4}",
        full.hit_ratio
    );
    assert!(
        (full.hit_ratio - che).abs() < 0.01,
        "{} {che}",
        full.hit_ratio
    );
    let specs = whatif::with_seeds(&zfs_caps(&sc, &[cap], Some(0.01)), 4);
    // 128 blocks × 128 KiB ÷ (2 GiB / 32).
    assert_eq!(specs[0].effective_rate(), Some(0.25));
    // At 512 MiB it would take all of it (16 MiB ÷ 16 MiB): a sample at
    // `MAX_ROOM_RATE` instead, never a whole replay among sampled runs.
    let small = zfs_caps(&sc, &[512 << 20], Some(0.01)).remove(0);
    assert_eq!(small.effective_rate(), Some(whatif::MAX_ROOM_RATE));
    // The room is what is left at the most the ARC holds in the run: with
    // 117,760 files' inodes held at one point (4,559 bytes each), 4 GiB
    // leaves 1 GiB − 536,867,840 bytes, and 16 MiB of that is R ≈ 0.0312
    // (the 64 MiB floor alone would give 1/64).
    let held = Scenario::from_toml_str(
        "name = \"held\"\nram_bytes = \"32GiB\"\nwarmup_secs = 0\nprefetch = false\n\
         [pinned]\ndnode_bytes = \"3GiB\"\n[[held]]\nat_secs = 0\nfiles = 0\n\
         [[held]]\nat_secs = 10\nfiles = 117760\n[[held]]\nat_secs = 20\nfiles = 0\n",
        "held",
    )
    .unwrap();
    let r = zfs_caps(&held, &[4 << 30], Some(0.01))[0]
        .effective_rate()
        .unwrap();
    let want = (16u64 << 20) as f64 / ((1u64 << 30) - 117_760 * 4_559) as f64;
    assert!((r - want).abs() < 1e-12, "{r} {want}");
    for (salt, m) in whatif::run_all(&specs, &w, 1, 2, |_| {}).iter().enumerate() {
        println!("salt {salt}: sampled {:.4}", m.hit_ratio);
        assert_eq!(m.sampled, Some(0.25));
        assert!(
            (m.hit_ratio - full.hit_ratio).abs() < 0.005,
            "salt {salt}: {} against {}",
            m.hit_ratio,
            full.hit_ratio
        );
    }
}

/// The sampling units of the built-in homelab: each sequential component
/// in runs as long as leave ≥ 10 runs of a pass in the sample, the others
/// block by block.
#[test]
fn sample_units_follow_each_sequential_component() {
    use arclab_arc::block_key;
    let w = arclab_sim::workload::builtin("homelab").unwrap();
    let u = w.sample_units(0.01);
    let file = |component: u32| component << 17;
    // Runs of 2^g blocks, g = floor(log2(blocks × R / 10)) ≤ 4: the 128 MiB
    // files of data read once (1,024 blocks) give 1.02 → 0, the nightly
    // 4 GiB backup (32,768 blocks) 32.8 → 5, bounded by 4; the Zipf and
    // OLTP components are not sequential (0).
    for (c, g) in [(1, 0), (2, 0), (3, 0), (4, 0), (5, 4)] {
        assert_eq!(u.shift_of(block_key(file(c), 0, 100)), g, "component {c}");
    }
    // At R = 0.004 the backup's runs are shorter, 13.1 → 3 (below the
    // bound); at R = 0.1, 327.7 → 8, bounded by 4; the 128 MiB files
    // 10.2 → 3.
    assert_eq!(w.sample_units(0.004).shift_of(block_key(file(5), 0, 0)), 3);
    assert_eq!(w.sample_units(0.1).shift_of(block_key(file(5), 0, 0)), 4);
    assert_eq!(w.sample_units(0.1).shift_of(block_key(file(4), 0, 0)), 3);
}

/// A sequential-heavy workload with the prefetcher on: half the reads a
/// backup streaming 64 files of 256 MiB (`bench/workloads/backup-heavy.toml`,
/// shortened to 5 minutes). Sampled block by block, the prefetcher in the
/// miniature never finds a stream and the backup's reads — hits in the
/// whole replay — all miss (hit ratio 0.463 against 0.987 at 8 GiB,
/// measured 2026-12-02); sampled in runs of blocks with the stream carried
/// into each run, the sample must agree with the whole replay within 0.055
/// at each cap (`bench/sampling_error.py` measured a mean error of 0.0175
/// over eight caps on the 10-minute workload). The bound was 0.04 until the
/// evict thread's burst landed 2 ms after its wake-up (the default since
/// 2026-12-03): the whole replay did not move (0.9915 at 16 GiB) but the
/// 16 GiB sample moves by ±0.013 with the delay (0.9567 at 0, 0.9667 at
/// 0.1 ms, 0.9466 at 0.5 ms, 0.9405 at 2 ms): the miniature's overflow
/// window, c/512, is 2.5 blocks of 128 KiB, so whether a burst lands after
/// the delay or at the window's end probably turns on a block or two.
#[test]
fn a_sequential_heavy_sample_keeps_the_prefetchers_hits() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../bench/workloads/backup-heavy.toml"
    ))
    .unwrap()
    .replace("duration_secs = 600", "duration_secs = 300");
    let w = WorkloadSpec::from_toml_str(&text, "backup-heavy").unwrap();
    // The host these figures were measured on (the homelab scenario before
    // 2026-12-02): 31.24 GiB, 1.1 GiB pinned, 16 GiB of other processes.
    let sc = Scenario::from_toml_str(
        "name = \"host\"\nram_bytes = \"31.24GiB\"\nwarmup_secs = 60\n[pinned]\n\
         dnode_bytes = \"400MiB\"\ndbuf_bytes = \"600MiB\"\nbonus_bytes = \"100MiB\"\n\
         [[demand]]\nat_secs = 0\nbytes = \"16GiB\"\n",
        "host",
    )
    .unwrap();
    let caps = [16u64 << 30, 8 << 30, 4 << 30];
    let full = whatif::run_all(&zfs_caps(&sc, &caps, None), &w, 1, 2, |_| {});
    let mini = whatif::run_all(&zfs_caps(&sc, &caps, Some(0.01)), &w, 1, 2, |_| {});
    for ((f, m), cap) in full.iter().zip(&mini).zip(caps) {
        println!(
            "{:>2} GiB: full {:.4} sampled {:.4}",
            cap >> 30,
            f.hit_ratio,
            m.hit_ratio
        );
        assert!(f.hit_ratio > 0.9, "the prefetcher serves the backup");
        assert!((m.hit_ratio - f.hit_ratio).abs() < 0.055, "{cap}");
    }
}

/// `reqs` through `whatif::run_stream` on two threads, in batches as asked.
fn streamed(specs: &[RunSpec], reqs: &[Request]) -> Vec<RunResult> {
    let mut pos = 0;
    let Ok(r) = whatif::run_stream(
        specs,
        2,
        |buf, max| {
            let end = (pos + max).min(reqs.len());
            buf.extend_from_slice(&reqs[pos..end]);
            let n = end - pos;
            pos = end;
            Ok::<_, std::convert::Infallible>(n)
        },
        |_| {},
    );
    r
}

/// `run_stream` samples a stream once as it is read when every run samples
/// (a trace's whatif); each run then gets only the sample. That must not
/// change a single count: the same runs fed the whole stream one at a time
/// (`whatif::run`, which filters in the run) give identical results.
#[test]
fn sampling_a_stream_at_its_source_changes_nothing() {
    let w = WorkloadSpec::from_toml_str(MIXED, "inline").unwrap();
    let mut reqs = Vec::new();
    let mut g = w.generator(5);
    while g.next_batch(&mut reqs, 1 << 16) > 0 {}
    let sc = Scenario::from_toml_str(HOST, "inline").unwrap();
    let mut specs = zfs_caps(&sc, &[1 << 30, 4 << 30], Some(0.01));
    specs[1].sample_rate = Some(0.02);
    // With a series: its last point is at the stream's last request.
    for s in &mut specs {
        s.series_step_ns = 1_000_000_000;
    }
    let one_by_one = run_caps(&reqs, specs.clone());
    let at_source = streamed(&specs, &reqs);
    for (a, b) in one_by_one.iter().zip(&at_source) {
        assert!(a.sampled.is_some());
        assert_eq!(
            (a.n_req, a.n_miss, a.hit_ratio, a.sampled),
            (b.n_req, b.n_miss, b.hit_ratio, b.sampled)
        );
        assert_eq!(a.arcstats, b.arcstats);
    }
}

/// `run_clocked` (a trace's whatif) drops the requests outside the sample
/// before the trace's clock spreads them. The runs must see what they saw
/// when the whole clocked trace went through `run_stream`, to the last
/// field, and what each run sees fed the whole trace alone: for a
/// whole-second clock (oracleGeneral: ~20,000 requests share each second)
/// and a synthetic one (txt), with a warm-up, whose count starts inside a
/// second.
#[test]
fn a_trace_sampled_before_its_clock_changes_nothing() {
    use arclab_trace::clock::{Clock, Clocked};
    let w = WorkloadSpec::from_toml_str(MIXED, "inline").unwrap();
    let mut reqs = Vec::new();
    let mut g = w.generator(5);
    while g.next_batch(&mut reqs, 1 << 16) > 0 && reqs.len() < 400_000 {}
    let dir = tempfile::tempdir().unwrap();
    let og = dir.path().join("t.oracleGeneral.bin");
    arclab_trace::write_oracle_general(&og, reqs.iter().copied()).unwrap();
    let txt = dir.path().join("t.txt");
    let lines: String = reqs.iter().map(|r| format!("{}\n", r.key)).collect();
    std::fs::write(&txt, lines).unwrap();
    let mut sc = Scenario::from_toml_str(HOST, "inline").unwrap();
    sc.warmup_secs = 2.5;
    let mut specs = zfs_caps(&sc, &[1 << 30, 4 << 30], Some(0.01));
    specs[1].sample_rate = Some(0.02);
    for s in &mut specs {
        s.series_step_ns = 1_000_000_000;
    }
    for (path, rate) in [(&og, 1e4), (&txt, 3e4)] {
        let open = || {
            let r = arclab_trace::open(path, &Default::default()).unwrap();
            let clock = Clock::for_format(r.format(), rate).unwrap();
            Clocked::new(r, clock)
        };
        let mut whole = open();
        let mut all = Vec::new();
        while whole.next_batch(&mut all, 1 << 16).unwrap() > 0 {}
        assert!(all.last().unwrap().time_ns > 5_000_000_000);
        let streamed = streamed(&specs, &all);
        let mut trace = open();
        let mut batches = 0;
        let clocked = whatif::run_clocked(&specs, 2, &mut trace, |_| batches += 1).unwrap();
        assert!(batches > 0);
        let one_by_one = run_caps(&all, specs.clone());
        for ((a, b), c) in streamed.iter().zip(&clocked).zip(&one_by_one) {
            assert!(b.sampled.is_some() && b.n_miss > 0, "{}", path.display());
            assert_eq!(format!("{a:?}"), format!("{b:?}"), "{}", path.display());
            assert_eq!(
                (c.n_req, c.n_miss, c.hit_ratio, c.sampled),
                (b.n_req, b.n_miss, b.hit_ratio, b.sampled)
            );
            assert_eq!(c.arcstats, b.arcstats);
        }
    }
}
