//! Shared test helpers: locating /work/shared fixtures.
#![allow(dead_code, unreachable_pub)]

use std::path::PathBuf;

/// The shared read-only data directory: `$ARCLAB_SHARED`, else `<workspace>/../shared`.
pub fn shared_dir() -> PathBuf {
    let dir = std::env::var_os("ARCLAB_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared")));
    assert!(
        dir.is_dir(),
        "shared data directory {} is missing: set ARCLAB_SHARED to the arclab shared/ directory",
        dir.display()
    );
    dir
}

/// A file under `shared/fixtures/arcstats/`, read as text.
pub fn fixture(name: &str) -> (String, String) {
    let path = shared_dir().join("fixtures/arcstats").join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read fixture {}: {e}", path.display()));
    (path.display().to_string(), text)
}

pub const ZOL06: &str = "linux-zol07-node_exporter.arcstats";
pub const LINUX23: &str = "linux-openzfs22plus-telegraf.arcstats";
pub const FREEBSD: &str = "freebsd14-telegraf.sysctl.txt";
