//! Support for the measure tests: running arclab, generated data, and real
//! Prometheus / VictoriaMetrics servers on loopback behind Drop guards.
#![allow(dead_code, unreachable_pub)]

pub mod tsdb;

use arclab_metrics::export::{ExportFile, QueryResult, Request};
use arclab_metrics::series::Dataset;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn arclab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_arclab"))
        .args(args)
        .output()
        .expect("run arclab")
}

/// Run, expect success; return stdout.
pub fn ok(args: &[&str]) -> String {
    let out = arclab(args);
    assert!(
        out.status.success(),
        "arclab {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 stdout")
}

/// Run, expect success, parse stdout as JSON.
pub fn json(args: &[&str]) -> serde_json::Value {
    serde_json::from_str(&ok(args)).expect("stdout is JSON")
}

/// Run, expect exit `code` and no panic; return stderr.
pub fn fails(args: &[&str], code: i32) -> String {
    let out = arclab(args);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(code), "arclab {args:?}: {err}");
    assert!(!err.contains("panicked"), "arclab {args:?} panicked: {err}");
    err
}

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

/// `../shared` beside the workspace, or `$ARCLAB_SHARED`; panics loudly when missing.
pub fn shared() -> PathBuf {
    let dir = std::env::var_os("ARCLAB_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared")));
    assert!(
        dir.join("fixtures/arcstats").is_dir(),
        "shared test data not found at {} — put ../shared beside the repository or set ARCLAB_SHARED",
        dir.display()
    );
    dir
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
