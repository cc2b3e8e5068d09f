//! Tunables: reading the files that set them ([`files`]), the catalogue of
//! known tunables ([`catalog`]), judging each setting for a RAM and release
//! ([`check`]), the release a setting is judged for ([`target`]), and planning
//! and applying a cap on `zfs_arc_max` ([`apply`]).
//!
//! Dependencies run one way: `apply → target`, `check → {files, catalog,
//! target}`; `check`'s private judges use `check`'s finding types.

pub mod apply;
pub mod catalog;
pub mod check;
pub mod files;
pub mod target;

pub use target::{Target, parse_target};
