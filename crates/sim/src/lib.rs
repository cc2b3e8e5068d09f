//! `arclab-sim`: the simulator.
//!
//! * [`policies`]: the replacement policies arclab compares against the ZFS
//!   ARC, behind one [`Policy`] trait;
//! * [`model`]: the ZFS ARC model of `arclab-arc` and its prefetcher driven
//!   as one replay target;
//! * [`replay`]: the one replay driver: a request stream (a decoded trace or
//!   a generated workload) read once and fanned out to every run on a work
//!   queue ([`replay::drive`]), and the (policy, capacity) jobs of `sim`;
//! * [`workload`] and [`scenario`]: generated workloads, and the host with
//!   its memory pressure;
//! * [`whatif`]: what a cap costs: the plan (policy × version × prefetch ×
//!   cap), the runs, the disk model, the rows and the verdict;
//! * [`sample`]: spatial sampling for miniature simulation.

pub mod dmu;
mod engine;
pub mod error;
pub mod model;
pub mod policies;
mod policy;
pub mod replay;
pub mod sample;
pub mod scenario;
pub mod whatif;
pub mod workload;

pub use policies::{
    Adaptation, AnyPolicy, ArcPolicy, CanonicalArc, Counters, Fifo, Lru, S3Fifo, Sieve,
};
pub use policy::{Policy, PolicyKind, UnknownPolicy};
