//! `arclab-zfs`: the host side of arclab — reading the live host under a
//! procfs / sysfs root ([`host`]: kstats, meminfo, module parameters) and the
//! host as a `whatif` scenario ([`host::scenario`]); parsing `arcstats` (and
//! `zfetchstats`, `dbufstats`) from Linux procfs and FreeBSD `sysctl` output,
//! the field catalogue, and inferring the ZFS release a snapshot comes from;
//! explaining a snapshot ([`status`]), rates between snapshots ([`rates`]), the
//! live view of `arclab top` ([`live`]: RAM split, events, history),
//! reading and checking tunables files and applying a cap on `zfs_arc_max`
//! ([`tune`]).
//! The version-aware limit formulas themselves live in
//! [`arclab_arc::limits`](mod@arclab_arc::limits) (re-exported here as [`limits`](mod@limits)).
//!
//! A tour: parse a snapshot, look fields up in the catalogue, infer the
//! release, and check the host's limits against the formulas.
//!
//! ```
//! use arclab_zfs::{arcstats, catalog, version, limits};
//! let text = "\
//! 22 1 0x01 4 1088 2746799574 1351143854159630
//! name                            type data
//! hits                            4    33266704081
//! c_min                           4    1047890560
//! c_max                           4    32458756096
//! memory_all_bytes                4    33532497920
//! ";
//! let snap = arcstats::parse_arcstats(text, "arcstats").unwrap();
//! assert_eq!(snap.snaptime_ns, Some(1_351_143_854_159_630));
//! assert_eq!(catalog::field("hits").unwrap().kind, catalog::Kind::Counter);
//! let v = version::infer(&snap);
//! let l = limits::limits(33_532_497_920, v.os, limits::ZfsVersion::V2_3, None, None);
//! assert_eq!(Some(l.c_max_bytes), snap.get_u64("c_max"));
//! assert_eq!(Some(l.c_min_bytes), snap.get_u64("c_min"));
//! ```

pub mod arcstats;
pub mod capture;
pub mod catalog;
pub mod exposition;
pub mod host;
pub mod live;
pub mod rates;
pub mod source;
pub mod status;
pub mod tune;
pub mod version;

pub use arclab_arc::limits;

use std::path::Path;

/// The largest kstat file read (`arcstats`, `zfetchstats`, `dbufstats`, a
/// FreeBSD `sysctl kstat.zfs.misc` dump): 1 MiB. A real one is 5–40 KiB; a
/// 200 MB file of valid-looking rows took 4.3 GB of memory (issue 14).
pub const MAX_KSTAT_BYTES: u64 = 1 << 20;
/// The largest saved node_exporter metrics text read: 64 MiB (a full scrape
/// of a large host is a few MiB).
pub const MAX_METRICS_BYTES: u64 = 64 << 20;
/// The largest tunables file read (modprobe.d, loader.conf, sysctl.conf):
/// 1 MiB (real ones are a few lines).
pub const MAX_TUNABLES_BYTES: u64 = 1 << 20;
/// The largest single-value file read (`/proc/meminfo`, a module
/// parameter, the module's `version`): 64 KiB.
pub const MAX_SMALL_FILE_BYTES: u64 = 64 << 10;

/// Read a host file with a size cap; the error leaves the path out (every
/// caller's error names it) and says what the limit is and why. `what`
/// names the kind of file (`a kstat file`).
pub(crate) fn read_bytes(path: &Path, limit: u64, what: &str) -> std::io::Result<Vec<u8>> {
    use std::io::{Error, ErrorKind};
    match arclab_io::read_limited(path, limit) {
        Ok(bytes) => Ok(bytes),
        Err(arclab_io::Error::TooLarge { limit, .. }) => Err(Error::new(
            ErrorKind::FileTooLarge,
            format!(
                "larger than {} ({limit} bytes), the most arclab reads for {what}: is this the right file?",
                arclab_arc::units::format_bytes(limit)
            ),
        )),
        Err(arclab_io::Error::Directory(_)) => Err(Error::new(
            ErrorKind::InvalidInput,
            "is a directory, not a file",
        )),
        Err(arclab_io::Error::Io { source, .. }) => Err(source),
        Err(e) => Err(e.into()),
    }
}

/// [`read_bytes`] as UTF-8 text.
pub(crate) fn read_text(path: &Path, limit: u64, what: &str) -> std::io::Result<String> {
    String::from_utf8(read_bytes(path, limit, what)?).map_err(|e| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("not UTF-8 text (byte {})", e.utf8_error().valid_up_to()),
        )
    })
}

/// A failure to read a file (or directory) that then parses into `E`: kstats
/// ([`arcstats::read_kstat`], `E` = [`ParseError`]), tunables
/// ([`tune::files::read_path`], `E` = [`tune::files::SyntaxError`]) and the
/// host's other files ([`host`]).
#[derive(Debug, thiserror::Error)]
pub enum ReadError<E: std::error::Error + 'static> {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The file could not be parsed.
    #[error(transparent)]
    Parse(#[from] E),
}
pub use arcstats::{ArcSnapshot, KstatKind, ParseError, ParseErrorKind, Source, Value};
pub use version::{VersionRange, infer};
