//! Miniature simulation: at R = 0.01 the canonical ARC and the ZFS model
//! give the full simulation's miss ratio within 0.005 (mean absolute error
//! over 8 caps) on a 5 M request Zipf-plus-scans trace.

use arclab_arc::Request;
use arclab_sim::PolicyKind;
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

#[test]
fn sampled_miss_ratios_match_full_simulation() {
    let w = WorkloadSpec::from_toml_str(TRACE, "inline").unwrap();
    let mut reqs = Vec::new();
    let mut g = w.generator(11);
    while g.next_batch(&mut reqs, 1 << 16) > 0 {}
    assert!(reqs.len() >= 5_000_000, "{}", reqs.len());
    let sc = Scenario::from_toml_str(HOST, "inline").unwrap();
    let caps: Vec<u64> = (0..8).map(|i| (8u64 + 6 * i) << 30).collect();
    for policy in ["arc", "zfs"] {
        let mut specs = Vec::new();
        for &cap in &caps {
            for rate in [None, Some(0.01)] {
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
                s.sample_rate = rate;
                s.series_step_ns = 0;
                specs.push(s);
            }
        }
        let r = run_caps(&reqs, specs);
        let mut mae = 0.0;
        for (i, &cap) in caps.iter().enumerate() {
            let (full, mini) = (&r[2 * i], &r[2 * i + 1]);
            assert_eq!(mini.sampled, Some(0.01));
            let (a, b) = (1.0 - full.hit_ratio, 1.0 - mini.hit_ratio);
            println!(
                "{policy} {:>3} GiB: full {a:.4} sampled {b:.4} (Δ {:+.4})",
                cap >> 30,
                b - a
            );
            mae += (a - b).abs() / caps.len() as f64;
        }
        println!("{policy}: MAE {mae:.4}");
        assert!(mae < 0.005, "{policy}: MAE {mae}");
    }
}
