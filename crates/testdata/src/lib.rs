//! Where arclab's test data lives: the `data/` directory at the workspace root
//! (sample traces in `data/traces/`, arcstats captures in `data/arcstats/`;
//! `data/README.md` gives each file's origin, licence and checksum).
//!
//! Dev-only: tests, benches and examples depend on this crate, no library
//! does. The directory is found from this crate's own location in the
//! workspace, so the tests run from a fresh clone with nothing beside it.
//!
//! ```
//! let oltp = arclab_testdata::path("traces/OLTP.lis.zst");
//! assert!(oltp.is_file());
//! ```

pub mod http;

use std::path::{Path, PathBuf};

/// The workspace's `data/` directory.
pub fn dir() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    // crates/testdata → the workspace root.
    manifest.ancestors().nth(2).unwrap_or(manifest).join("data")
}

/// The value of row `name` of the arcstats file `rel` under `data/` (rows are
/// `name type value`, split on whitespace).
///
/// # Panics
///
/// When the file or the row is missing or the value is not a `u64`.
#[track_caller]
pub fn arcstat(rel: &str, name: &str) -> u64 {
    let text = std::fs::read_to_string(path(rel)).expect("readable test data");
    text.lines()
        .find_map(|l| {
            let mut w = l.split_whitespace();
            (w.next() == Some(name)).then(|| w.nth(1).and_then(|v| v.parse().ok()))
        })
        .flatten()
        .unwrap_or_else(|| panic!("{rel} has no u64 row `{name}`"))
}

/// The file `rel` under `data/` (for example `"traces/OLTP.lis.zst"` or
/// `"arcstats/linux-zol07-node_exporter.arcstats"`).
///
/// # Panics
///
/// When the file does not exist; the message names the full path.
#[track_caller]
pub fn path(rel: &str) -> PathBuf {
    let p = dir().join(rel);
    assert!(
        p.is_file(),
        "test data file {} is missing: it is committed under the repository's data/ \
         (see data/README.md); is the checkout complete?",
        p.display()
    );
    p
}

/// A naive reading of an arcstats capture, independent of arclab's parsers:
/// `name → value` from Linux kstat rows (`name type value`) and FreeBSD
/// `kstat.zfs.misc.arcstats.name: value` lines; rows whose value is not a
/// `u64` (a negative int64) are left out. Tests compare arclab's results with
/// these values read straight from the file.
pub fn naive_arcstats(text: &str) -> std::collections::HashMap<String, u64> {
    let mut m = std::collections::HashMap::new();
    for l in text.lines() {
        if let Some(rest) = l.strip_prefix("kstat.zfs.misc.arcstats.") {
            if let Some((k, v)) = rest.split_once(": ")
                && let Ok(v) = v.trim().parse()
            {
                m.insert(k.to_string(), v);
            }
        } else {
            let w: Vec<&str> = l.split_whitespace().collect();
            if w.len() == 3
                && w[1] != "type"
                && let Ok(v) = w[2].parse()
            {
                m.insert(w[0].to_string(), v);
            }
        }
    }
    m
}

/// A `/proc/meminfo` in the kernel's layout (`fs/proc/meminfo.c`:
/// `"%-15s %8lu kB"`), with MemFree half of MemAvailable.
pub fn meminfo(total_kib: u64, avail_kib: u64) -> String {
    format!(
        "MemTotal:       {total_kib:>8} kB\nMemFree:        {:>8} kB\nMemAvailable:   {avail_kib:>8} kB\nBuffers:        {:>8} kB\n",
        avail_kib / 2,
        1234
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every file under data/traces and data/arcstats has a sha256 line in
    /// data/README.md, and every file a sha256 line names is present (or,
    /// for an original listed before compression, its `.zst`).
    #[test]
    fn readme_and_files_agree() {
        let readme = std::fs::read_to_string(path("README.md")).unwrap();
        // `<64 hex digits>  <file name>[  <original size>]`
        let named: Vec<&str> = readme
            .lines()
            .filter(|l| {
                l.len() > 66 && l[..64].bytes().all(|b| b.is_ascii_hexdigit()) && &l[64..66] == "  "
            })
            .filter_map(|l| l[66..].split_whitespace().next())
            .collect();
        let mut files = Vec::new();
        for sub in ["traces", "arcstats"] {
            for e in std::fs::read_dir(dir().join(sub)).unwrap() {
                let name = e.unwrap().file_name().into_string().unwrap();
                files.push((sub, name));
            }
        }
        assert!(files.len() >= 11, "{files:?}");
        for (sub, f) in &files {
            assert!(
                named.contains(&f.as_str()),
                "data/{sub}/{f} has no sha256 line in data/README.md"
            );
        }
        for name in named {
            let committed = files.iter().any(|(_, f)| f == name);
            let original = files.iter().any(|(_, f)| *f == format!("{name}.zst"));
            assert!(
                committed || original,
                "data/README.md lists {name}, which is not in data/"
            );
        }
    }

    #[test]
    #[should_panic(expected = "no-such-file")]
    fn a_missing_file_is_named() {
        path("traces/no-such-file");
    }
}
