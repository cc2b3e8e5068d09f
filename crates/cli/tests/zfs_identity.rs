//! The ZFS model's counters do not move when its code is made faster.
//!
//! `data/golden/zfs-model.json` holds the full arcstats and zfetchstats of
//! `arclab sim --policy zfs-arc` on the repository's traces (every prefetcher
//! generation and both eviction families, prefetch on and off), as printed by
//! arclab at the commit named in the file, before the speed work of issue 16.
//! These are not independent figures (the oracle and libCacheSim goldens are):
//! they pin the model's behaviour so that an optimisation which changes any
//! counter fails here. Regenerate with `bash bench/zfs_golden.sh` only when
//! the behaviour is meant to change, and say so in the commit.

mod common;
use common::*;
use serde_json::Value;
use std::path::Path;

fn golden() -> Value {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/golden/zfs-model.json");
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    serde_json::from_str(&text).unwrap()
}

/// Every differing leaf, as `path: golden != now`.
fn diff(path: &str, want: &Value, got: &Value, out: &mut Vec<String>) {
    match (want, got) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in a {
                match b.get(k) {
                    Some(w) => diff(&format!("{path}.{k}"), v, w, out),
                    None => out.push(format!("{path}.{k}: missing now")),
                }
            }
        }
        _ if want != got => out.push(format!("{path}: {want} != {got}")),
        _ => {}
    }
}

#[test]
fn every_counter_matches_the_golden_runs() {
    let g = golden();
    let runs = g["runs"].as_array().unwrap();
    assert!(runs.len() >= 2);
    let mut bad = Vec::new();
    let mut rows = 0;
    for run in runs {
        let mut args: Vec<String> = run["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap().to_string())
            .collect();
        // The golden names traces relative to the repository root.
        let t = args.iter().position(|a| a == "--trace").unwrap() + 1;
        let name = Path::new(&args[t])
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .to_string();
        args[t] = trace(&name);
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let now = json(&argv);
        let want = run["results"].as_array().unwrap();
        let got = now["results"].as_array().unwrap();
        assert_eq!(want.len(), got.len(), "{argv:?}");
        for (i, (w, g)) in want.iter().zip(got).enumerate() {
            let label = format!(
                "{} row {i} ({} {} prefetch {})",
                name, w["zfs_version"], w["size"], w["prefetch"]
            );
            diff(&label, w, g, &mut bad);
            // A run that never reached the model would compare nothing.
            assert!(w["arcstats"]["hits"].as_u64().unwrap() > 0, "{label}");
            rows += 1;
        }
    }
    assert!(rows >= 20, "{rows} rows compared");
    assert!(
        bad.is_empty(),
        "{} counters moved:\n{}",
        bad.len(),
        bad.join("\n")
    );
}
