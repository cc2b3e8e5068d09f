//! Helpers shared by the integration tests.
#![allow(dead_code, unreachable_pub)]

use std::path::PathBuf;

use arclab_arc::Request;
use arclab_trace::{OpenOptions, TraceReader};

/// The shared read-only data directory: `$ARCLAB_SHARED`, else `../shared`
/// relative to the workspace root. Panics loudly when it is missing.
pub fn shared_dir() -> PathBuf {
    let dir = match std::env::var_os("ARCLAB_SHARED") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
    };
    assert!(
        dir.join("traces").is_dir(),
        "shared test data not found at {} (set ARCLAB_SHARED to the directory holding traces/)",
        dir.display()
    );
    dir
}

/// A file of the shared trace directory.
pub fn trace(name: &str) -> PathBuf {
    shared_dir().join("traces").join(name)
}

/// Drain a reader through `read_batch`.
pub fn read_all(r: &mut TraceReader) -> Vec<Request> {
    let mut v = Vec::new();
    while r.read_batch(&mut v, 10_000).unwrap() > 0 {}
    v
}

/// Open with the csv layout of the cloudPhysicsIO sample.
pub fn cloud_csv_opts() -> OpenOptions {
    let mut o = OpenOptions::default();
    o.csv.time_col = Some(2);
    o.csv.op_col = Some(3);
    o.csv.size_col = Some(4);
    o.csv.id_col = 5;
    o
}
