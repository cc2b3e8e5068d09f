//! `arclab-sim`: the replacement policies arclab compares against the ZFS ARC,
//! behind one [`Policy`] trait, and the replay engine that drives them.

pub mod clock;
pub mod policies;
mod policy;
pub mod replay;
pub mod sample;
pub mod scenario;
pub mod whatif;
pub mod workload;
pub mod zfs;

pub use policies::{
    Adaptation, AnyPolicy, ArcPolicy, CanonicalArc, Counters, Fifo, Lru, S3Fifo, Sieve,
};
pub use policy::{Policy, PolicyKind, UnknownPolicy};
