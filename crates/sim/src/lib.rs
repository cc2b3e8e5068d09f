//! `arclab-sim`: the replacement policies arclab compares against the ZFS ARC,
//! behind one [`Policy`] trait, and the replay engine that drives them.

mod policy;

pub use policy::{Policy, PolicyKind, UnknownPolicy};
