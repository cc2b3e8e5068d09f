//! Support for the measure tests: running arclab, generated data, and real
//! Prometheus / VictoriaMetrics servers on loopback behind Drop guards.
#![allow(dead_code, unreachable_pub)]

pub mod tsdb;

#[path = "../common/mod.rs"]
mod common;
#[allow(unused_imports)] // each measure test uses a different subset
pub use common::{arclab, fails, json, ok};

use arclab_metrics::export::{ExportFile, QueryResult, Request};
use arclab_metrics::series::Dataset;
use std::path::{Path, PathBuf};

/// Write a data set as an export file.
pub fn write_export(data: &Dataset, path: &Path) {
    let (from, to) = data.time_range().unwrap_or((0.0, 0.0));
    let mut f = ExportFile::new(Request {
        url: "generated".into(),
        from,
        to,
        step: 300.0,
        metrics: "arc".into(),
        r#match: String::new(),
        queries: vec!["generated".into()],
    });
    f.changes = data.changes.clone();
    f.results
        .push(QueryResult::new("generated", data.series.clone()));
    f.write_atomic(path).expect("write export");
}

/// The blog host's generated data as an export file in `dir`.
pub fn blog_export(dir: &Path) -> PathBuf {
    let p = dir.join("blog.json.gz");
    write_export(&arclab_metrics::synth::blog("nas:9100"), &p);
    p
}

/// A minimal Linux arcstats kstat text.
pub fn arcstats_text(hits: u64, misses: u64, size: u64) -> String {
    let rows = [
        ("hits", hits),
        ("misses", misses),
        ("size", size),
        ("c", size),
        ("c_max", 8 << 30),
    ];
    let mut s = format!(
        "13 1 0x01 {} 1000 1 2\nname                            type data\n",
        rows.len()
    );
    for (n, v) in rows {
        s.push_str(&format!("{n:<32}4    {v}\n"));
    }
    s
}
