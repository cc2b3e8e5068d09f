//! Test helpers: the shared data folder and its traces.

#![allow(dead_code, unreachable_pub)]

use arclab_arc::Request;
use std::path::PathBuf;

/// The shared data folder: `$ARCLAB_SHARED`, else `<workspace>/../shared`.
pub fn shared_dir() -> PathBuf {
    let dir = match std::env::var_os("ARCLAB_SHARED") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
    };
    assert!(
        dir.join("traces").is_dir(),
        "shared data folder not found at {} (set ARCLAB_SHARED to the folder holding traces/)",
        dir.display()
    );
    dir
}

/// Every request of a shared trace, read by `arclab-trace` (format detected
/// from the name; zero-size requests skipped as libCacheSim does).
pub fn load(name: &str) -> Vec<Request> {
    let p = shared_dir().join("traces").join(name);
    let reader = arclab_trace::open(&p, &arclab_trace::OpenOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    reader
        .map(|r| r.unwrap_or_else(|e| panic!("{e}")))
        .collect()
}

pub const MIB: u64 = 1 << 20;
