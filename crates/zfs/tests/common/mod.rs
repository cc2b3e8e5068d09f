//! Shared test helpers: the arcstats fixtures in the repository's `data/arcstats/`.
#![allow(dead_code, unreachable_pub)]

/// A file under `data/arcstats/`, read as text.
pub fn fixture(name: &str) -> (String, String) {
    let path = arclab_testdata::path(&format!("arcstats/{name}"));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read fixture {}: {e}", path.display()));
    (path.display().to_string(), text)
}

pub const ZOL06: &str = "linux-zol07-node_exporter.arcstats";
pub const LINUX23: &str = "linux-openzfs22plus-telegraf.arcstats";
pub const FREEBSD: &str = "freebsd14-telegraf.sysctl.txt";
