//! Workloads: determinism, TOML round trips, time order, and bad input.

use arclab_arc::{Kind, Request};
use arclab_sim::workload::{self, BUILTINS, WorkloadSpec};

fn take(w: &WorkloadSpec, seed: u64, n: usize) -> Vec<Request> {
    let mut g = w.generator(seed);
    let mut out = Vec::new();
    while out.len() < n && g.next_batch(&mut out, 4096) > 0 {}
    out.truncate(n);
    out
}

#[test]
fn builtins_round_trip_and_generate_in_time_order() {
    for name in BUILTINS {
        let w = workload::builtin(name).unwrap_or_else(|| panic!("builtin {name}"));
        assert_eq!(w.name(), *name);
        let text = w.to_toml_string();
        let back = WorkloadSpec::from_toml_str(&text, "round-trip").unwrap();
        assert_eq!(back, w, "{name}:\n{text}");
        let reqs = take(&w, 1, 200_000);
        assert!(!reqs.is_empty(), "{name}");
        assert!(
            reqs.windows(2).all(|p| p[0].time_ns <= p[1].time_ns),
            "{name}"
        );
        assert!(reqs.iter().all(|r| r.time_ns < w.duration_ns()), "{name}");
        assert!(w.expected_requests() > 0 && !w.describe().is_empty());
        println!("{}", w.describe());
    }
}

#[test]
fn examples_match_builtins() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples");
    for name in ["homelab", "zipf", "bonnie", "mixture"] {
        let path = format!("{dir}/{name}.toml");
        let text = std::fs::read_to_string(&path).unwrap();
        let w = WorkloadSpec::from_toml_str(&text, &path).unwrap();
        assert_eq!(Some(w), workload::builtin(name), "{path}");
    }
    let path = format!("{dir}/scenario-homelab.toml");
    let s = arclab_sim::scenario::Scenario::from_toml_str(
        &std::fs::read_to_string(&path).unwrap(),
        &path,
    )
    .unwrap();
    assert_eq!(Some(s), arclab_sim::scenario::builtin("homelab"));
}

#[test]
fn same_seed_same_stream_other_seed_other_stream() {
    for name in ["homelab", "oltp", "zipf", "bonnie"] {
        let w = workload::builtin(name).unwrap();
        let a = take(&w, 7, 400_000);
        assert!(a == take(&w, 7, 400_000), "{name}: same seed, other stream");
        if name != "bonnie" {
            assert!(a != take(&w, 8, 400_000), "{name}: other seed, same stream");
        }
    }
    // bonnie's seeks are the random part.
    let w = workload::builtin("bonnie").unwrap();
    let all = |seed| {
        let mut g = w.generator(seed);
        let mut v = Vec::new();
        while g.next_batch(&mut v, 1 << 16) > 0 {}
        v
    };
    let (a, b) = (all(1), all(2));
    assert!(a.len().abs_diff(w.expected_requests() as usize) < 1000);
    assert!(a != b);
}

#[test]
fn rates_and_kinds_are_as_described() {
    // The built-in's first four minutes (the whole day is 1.9 G requests).
    let text = workload::builtin_toml("homelab")
        .unwrap()
        .replace("duration_secs = 86400", "duration_secs = 240");
    let w = WorkloadSpec::from_toml_str(&text, "homelab-4min").unwrap();
    let mut g = w.generator(3);
    let mut v = Vec::new();
    while g.next_batch(&mut v, 1 << 16) > 0 {}
    let n = v.len() as f64;
    let expect = w.expected_requests() as f64;
    assert!((n - expect).abs() < 0.02 * expect, "{n} vs {expect}");
    assert!(v.iter().any(|r| r.kind == Kind::Metadata));
    assert!(v.iter().any(|r| r.size == 16 << 10) && v.iter().any(|r| r.size == 128 << 10));
}

fn err(text: &str) -> String {
    WorkloadSpec::from_toml_str(text, "w.toml")
        .unwrap_err()
        .to_string()
}

#[test]
fn bad_input_is_reported_with_its_line() {
    let e = err("name = \"x\"\nduration_secs = 10\nrate = 5\n\n\n\nkind = \"zipff\"\n");
    assert!(
        e.starts_with("w.toml: line 7: unknown workload kind `zipff` (known: zipf, scan"),
        "{e}"
    );
    let e =
        err("kind = \"zipf\"\nalpha = 1\nobjects = 10\nrate = 5\nduration_secs = 1\nalpah = 2\n");
    assert!(
        e.starts_with("w.toml: line 6: unknown field `alpah`"),
        "{e}"
    );
    // A prefill of a metadata-only component would read blocks it never
    // reads again.
    let e = err(
        "kind = \"zipf\"\nalpha = 1\nobjects = 10\nrate = 5\nduration_secs = 1\n\
                 metadata_fraction = 1.0\nprefill = true\n",
    );
    assert!(
        e.starts_with("w.toml: line 7: `prefill` reads the component's data blocks once"),
        "{e}"
    );
    let e = err("kind = \"zipf\"\nalpha = 1\nobjects = [\n");
    assert!(e.starts_with("w.toml: line 3:"), "{e}");
    let e = err("kind = \"zipf\"\nalpha = 1\nobjects = 10\nrate = -5\nduration_secs = 1\n");
    assert!(
        e.starts_with("w.toml: line 4: `rate` must be a positive number, got -5"),
        "{e}"
    );
    let e = err("kind = \"zipf\"\nalpha = 1\nobjects = 10\nrate = 0\nduration_secs = 1\n");
    assert!(e.contains("`rate` must be a positive number, got 0"), "{e}");
    let e = err("");
    assert!(e.contains("no workload `kind` given"), "{e}");
    let e = err("kind = \"mixture\"\nrate = 10\nduration_secs = 1\ncomponents = []\n");
    assert!(e.contains("empty workload"), "{e}");
    let e = err(
        "kind = \"mixture\"\nrate = 10\nduration_secs = 1\n[[components]]\nkind = \"scan\"\nbytes = \"1GiB\"\n[[components]]\nkind = \"loop\"\nbytes = \"1GiB\"\nsize = 3\n",
    );
    assert!(
        e.starts_with("w.toml: line 10: component 2: block `size`"),
        "{e}"
    );
    let e = err("kind = \"scan\"\nbytes = \"1GiB\"\nrate = 10\n");
    assert!(e.contains("`duration_secs` is missing"), "{e}");
    let e = err("kind = \"scan\"\nbytes = \"12XB\"\nrate = 10\nduration_secs = 1\n");
    assert!(e.contains("12XB"), "{e}");
}

/// Issue 14: absurd but valid sizes must not overflow when the workload is
/// described (`objects × size` panicked in a debug build and wrapped in a
/// release one): the footprint saturates.
#[test]
fn absurd_footprints_saturate() {
    for text in [
        "kind = \"zipf\"\nalpha = 1.0\nobjects = 18446744073709551615\nrate = 10\nduration_secs = 1\n",
        "kind = \"backup\"\nfiles = 18446744073709551615\nfile_bytes = \"1GiB\"\nrate = 10\nduration_secs = 1\n",
    ] {
        let w = WorkloadSpec::from_toml_str(text, "absurd.toml").unwrap();
        let d = w.describe();
        assert!(d.contains("10 req/s"), "{d}");
    }
}
