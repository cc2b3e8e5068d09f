//! `arclab-zfs`: the host side of arclab — reading `arcstats` (and
//! `zfetchstats`, `dbufstats`) from Linux procfs and FreeBSD `sysctl` output,
//! the field catalogue, and inferring the ZFS release a snapshot comes from;
//! explaining a snapshot ([`status`]), rates between snapshots ([`rates`]),
//! reading and checking tunables files ([`tunables`], [`tunecat`],
//! [`tunecheck`]) and applying a cap on `zfs_arc_max` ([`apply`]).
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

pub mod apply;
pub mod arcstats;
pub mod catalog;
pub mod rates;
pub mod status;
pub mod tunables;
pub mod tunecat;
pub mod tunecheck;
mod tunejudge;
pub mod version;

pub use arclab_arc::limits;
pub use arcstats::{ArcSnapshot, KstatKind, ParseError, ParseErrorKind, Source, Value};
pub use version::{VersionRange, infer};
