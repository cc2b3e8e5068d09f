#![no_main]

//! A workload TOML description (`whatif --workload FILE.toml`): parse and
//! check it, then describe it, print it back, and run its generator for at
//! most `MAX_REQUESTS` requests, checking the stream stays in time order.
use arclab_sim::workload::WorkloadSpec;
use arclab_trace_fuzz::MAX_REQUESTS;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let spec = match WorkloadSpec::from_toml_str(&text, "fuzz.toml") {
        Ok(s) => s,
        Err(e) => {
            assert!(e.to_string().starts_with("fuzz.toml: "), "{e}");
            return;
        }
    };
    let _ = spec.describe();
    let _ = spec.phases();
    let _ = spec.mean_rate();
    // What it prints reads back to the same description.
    let again = WorkloadSpec::from_toml_str(&spec.to_toml_string(), "again.toml")
        .expect("a checked workload prints back to valid TOML");
    assert_eq!(again, spec);
    let mut g = spec.generator(1);
    let mut buf = Vec::new();
    let mut last = 0;
    while buf.len() < MAX_REQUESTS {
        let start = buf.len();
        if g.next_batch(&mut buf, 4096) == 0 {
            break;
        }
        for r in &buf[start..] {
            assert!(r.time_ns >= last, "time went backwards");
            assert!(r.time_ns <= spec.duration_ns());
            last = r.time_ns;
        }
    }
});
