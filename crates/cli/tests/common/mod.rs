//! Helpers shared by the CLI integration tests.
#![allow(dead_code, unreachable_pub)]

use std::process::{Command, Output};

/// Path of a file in the repository's `data/traces/`.
pub fn trace(name: &str) -> String {
    arclab_testdata::path(&format!("traces/{name}"))
        .display()
        .to_string()
}

/// Run the built `arclab` binary.
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

/// Run, expect failure with `code`; return stderr.
pub fn fails(args: &[&str], code: i32) -> String {
    let out = arclab(args);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(code), "arclab {args:?}: {err}");
    assert!(!err.contains("panicked"), "arclab {args:?} panicked: {err}");
    err
}
