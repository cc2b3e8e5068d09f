//! Test helpers: the repository's sample traces (`data/traces/`).

#![allow(dead_code, unreachable_pub)]

use arclab_arc::Request;

/// Every request of a trace in `data/traces/`, read by `arclab-trace` (format detected
/// from the name; zero-size requests skipped as libCacheSim does).
pub fn load(name: &str) -> Vec<Request> {
    let p = arclab_testdata::path(&format!("traces/{name}"));
    let reader = arclab_trace::open(&p, &arclab_trace::OpenOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    reader
        .map(|r| r.unwrap_or_else(|e| panic!("{e}")))
        .collect()
}

pub const MIB: u64 = 1 << 20;
