//! Helpers shared by the integration tests.
#![allow(dead_code, unreachable_pub)]

use std::path::PathBuf;

use arclab_arc::Request;
use arclab_trace::{OpenOptions, TraceReader};

/// A file of the repository's `data/traces/`.
pub fn trace(name: &str) -> PathBuf {
    arclab_testdata::path(&format!("traces/{name}"))
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
