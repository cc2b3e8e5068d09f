//! `arclab-arc`: the vocabulary every arclab crate shares, and the home of the
//! OpenZFS ARC model.
//!
//! This crate is pure: no I/O, no clock, no threads. Trace readers produce
//! [`Request`]s, policies consume them.
//!
//! ```
//! use arclab_arc::{Request, Op};
//! let r = Request::read(1_000_000_000, 42, 4096);
//! assert_eq!(r.op, Op::Read);
//! assert_eq!(r.time_ns, 1_000_000_000);
//! ```

pub mod limits;
pub mod model;
mod request;
pub mod slab;
pub mod units;
pub mod zfetch;

pub use limits::{
    Limits, LimitsInput, Os, Release, Verdict, ZfsVersion, limits, limits_for_release, limits_with,
};
pub use request::{Kind, Op, Request, block_key, key_blkid, key_file, key_level};
