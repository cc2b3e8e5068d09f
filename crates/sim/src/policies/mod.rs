//! The baseline policies (LRU, FIFO, canonical ARC, S3-FIFO, SIEVE), each a
//! libCacheSim-exact re-implementation over one shared slab + hash-table core,
//! and [`AnyPolicy`], which dispatches over them once per batch.
//!
//! See `docs/policies.md` for the parity details and measured numbers.

/// The `Policy` methods every policy over the shared slab index
/// core writes the same way: the prefetch hint, the capacity, and the sizes
/// summed over the named resident lists. Expects fields `ix` (the index),
/// `cap` (the capacity) and each named list.
macro_rules! index_backed {
    ($($list:ident),+) => {
        #[inline(always)]
        fn prefetch(&self, key: u64, stage: u8) {
            self.ix.prefetch(key, stage);
        }

        fn capacity(&self) -> u64 {
            self.cap
        }

        fn occupied(&self) -> u64 {
            0 $(+ self.$list.bytes)+
        }

        fn resident(&self) -> usize {
            (0 $(+ self.$list.len)+) as usize
        }

        fn tracked(&self) -> usize {
            self.ix.len()
        }

        fn heap_bytes(&self) -> usize {
            self.ix.heap_bytes()
        }
    };
}

mod arc;
mod fifo;
mod lru;
mod s3fifo;
mod sieve;

pub use arc::{Adaptation, ArcPolicy, CanonicalArc};
pub use fifo::Fifo;
pub use lru::Lru;
pub use s3fifo::{FREQ_CAP, GHOST_RATIO, MOVE_TO_MAIN_THRESHOLD, S3Fifo, SMALL_RATIO};
pub use sieve::Sieve;

use crate::{Policy, PolicyKind};
use arclab_arc::Request;
use arclab_arc::slab::reserve_hint;

/// Request and miss counts of a replay, in objects and in bytes.
///
/// Byte counters always use the request's real size, also in object mode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Requests seen.
    pub n_req: u64,
    /// Requests that missed.
    pub n_miss: u64,
    /// Bytes requested (sum of the requests' real sizes).
    pub n_req_byte: u64,
    /// Bytes of the requests that missed.
    pub n_miss_byte: u64,
}

impl Counters {
    /// Object miss ratio (`n_miss / n_req`; 0 when there were no requests).
    pub fn miss_ratio(&self) -> f64 {
        if self.n_req == 0 {
            0.0
        } else {
            self.n_miss as f64 / self.n_req as f64
        }
    }

    /// Byte miss ratio (`n_miss_byte / n_req_byte`; 0 when no bytes).
    pub fn byte_miss_ratio(&self) -> f64 {
        if self.n_req_byte == 0 {
            0.0
        } else {
            self.n_miss_byte as f64 / self.n_req_byte as f64
        }
    }

    /// Add another replay's counts to these.
    pub fn add(&mut self, other: &Counters) {
        self.n_req += other.n_req;
        self.n_miss += other.n_miss;
        self.n_req_byte += other.n_req_byte;
        self.n_miss_byte += other.n_miss_byte;
    }
}

/// Replay `reqs` through `policy`, adding to `out`. In `object_mode` the
/// policy sees each request with `size == 1`; the byte counters still use the
/// real size. Generic, so each policy gets its own tight loop.
#[inline]
pub fn run_batch<P: Policy + ?Sized>(
    policy: &mut P,
    reqs: &[Request],
    object_mode: bool,
    out: &mut Counters,
) {
    let mut miss = 0u64;
    let mut req_byte = 0u64;
    let mut miss_byte = 0u64;
    // Start the cache misses of requests a few positions ahead: the bucket
    // 16 ahead, the node it names 8 ahead (by then the bucket has landed).
    const AHEAD_BUCKET: usize = 16;
    const AHEAD_NODE: usize = 8;
    #[inline(always)]
    fn ahead<P: Policy + ?Sized>(policy: &P, reqs: &[Request], i: usize) {
        if let Some(n) = reqs.get(i + AHEAD_BUCKET) {
            policy.prefetch(n.key, 0);
        }
        if let Some(n) = reqs.get(i + AHEAD_NODE) {
            policy.prefetch(n.key, 1);
        }
    }
    if object_mode {
        for (i, r) in reqs.iter().enumerate() {
            ahead(policy, reqs, i);
            let mut unit = *r;
            unit.size = 1;
            let hit = policy.access(&unit);
            let b = u64::from(r.size);
            req_byte += b;
            miss += u64::from(!hit);
            miss_byte += if hit { 0 } else { b };
        }
    } else {
        for (i, r) in reqs.iter().enumerate() {
            ahead(policy, reqs, i);
            let hit = policy.access(r);
            let b = u64::from(r.size);
            req_byte += b;
            miss += u64::from(!hit);
            miss_byte += if hit { 0 } else { b };
        }
    }
    out.n_req += reqs.len() as u64;
    out.n_miss += miss;
    out.n_req_byte += req_byte;
    out.n_miss_byte += miss_byte;
}

/// Any of the baseline policies, chosen at run time by [`PolicyKind`].
#[derive(Debug)]
pub enum AnyPolicy {
    /// [`Lru`].
    Lru(Lru),
    /// [`Fifo`].
    Fifo(Fifo),
    /// [`ArcPolicy`] (size-scaled adaptation).
    Arc(ArcPolicy),
    /// [`S3Fifo`].
    S3Fifo(S3Fifo),
    /// [`Sieve`].
    Sieve(Sieve),
}

macro_rules! each {
    ($self:expr, $p:ident => $e:expr) => {
        match $self {
            AnyPolicy::Lru($p) => $e,
            AnyPolicy::Fifo($p) => $e,
            AnyPolicy::Arc($p) => $e,
            AnyPolicy::S3Fifo($p) => $e,
            AnyPolicy::Sieve($p) => $e,
        }
    };
}

impl AnyPolicy {
    /// A new, empty policy of `kind` with `capacity` units.
    pub fn new(kind: PolicyKind, capacity: u64) -> AnyPolicy {
        match kind {
            PolicyKind::Lru => AnyPolicy::Lru(Lru::new(capacity)),
            PolicyKind::Fifo => AnyPolicy::Fifo(Fifo::new(capacity)),
            PolicyKind::Arc => AnyPolicy::Arc(ArcPolicy::new(capacity)),
            PolicyKind::S3Fifo => AnyPolicy::S3Fifo(S3Fifo::new(capacity)),
            PolicyKind::Sieve => AnyPolicy::Sieve(Sieve::new(capacity)),
        }
    }

    /// Like [`AnyPolicy::new`] for a `capacity` that counts objects (object
    /// mode). Nothing is reserved by capacity: a user-given capacity can be
    /// 10^12 objects on a trace of 49,000 (issue 14); the slab and table
    /// start small and grow with the objects actually seen. See
    /// [`AnyPolicy::new_object_mode_expecting`] when the trace's objects are
    /// known.
    pub fn new_object_mode(kind: PolicyKind, capacity: u64) -> AnyPolicy {
        Self::new_object_mode_expecting(kind, capacity, 0)
    }

    /// Object mode, pre-reserving room for what the policy can track on a
    /// trace of `objects` distinct objects: at most `objects`, and at most
    /// `capacity` for LRU/FIFO/SIEVE (`2 × capacity` for ARC and S3-FIFO:
    /// ghosts), so that the slab and table do not grow during the replay.
    /// An `objects` of 0 (unknown) reserves a small start and grows.
    pub fn new_object_mode_expecting(kind: PolicyKind, capacity: u64, objects: u64) -> AnyPolicy {
        let reserve = |factor: u64| {
            if objects == 0 {
                reserve_hint(capacity, factor)
            } else {
                let n = capacity.saturating_mul(factor).min(objects);
                usize::try_from(n).unwrap_or(usize::MAX).saturating_add(1)
            }
        };
        let (n, n2) = (reserve(1), reserve(2));
        match kind {
            PolicyKind::Lru => AnyPolicy::Lru(Lru::with_expected_objects(capacity, n)),
            PolicyKind::Fifo => AnyPolicy::Fifo(Fifo::with_expected_objects(capacity, n)),
            PolicyKind::Arc => AnyPolicy::Arc(ArcPolicy::with_options(
                capacity,
                Adaptation::SizeScaled,
                n2,
            )),
            PolicyKind::S3Fifo => AnyPolicy::S3Fifo(S3Fifo::with_expected_objects(capacity, n2)),
            PolicyKind::Sieve => AnyPolicy::Sieve(Sieve::with_expected_objects(capacity, n)),
        }
    }

    /// Which policy this is.
    pub fn kind(&self) -> PolicyKind {
        match self {
            AnyPolicy::Lru(_) => PolicyKind::Lru,
            AnyPolicy::Fifo(_) => PolicyKind::Fifo,
            AnyPolicy::Arc(_) => PolicyKind::Arc,
            AnyPolicy::S3Fifo(_) => PolicyKind::S3Fifo,
            AnyPolicy::Sieve(_) => PolicyKind::Sieve,
        }
    }

    /// Replay a batch: dispatch once, then run the policy's monomorphised
    /// loop ([`run_batch`]) over all of `reqs`, adding to `out`.
    pub fn access_batch(&mut self, reqs: &[Request], object_mode: bool, out: &mut Counters) {
        each!(self, p => run_batch(p, reqs, object_mode, out))
    }
}

impl Policy for AnyPolicy {
    #[inline]
    fn access(&mut self, req: &Request) -> bool {
        each!(self, p => p.access(req))
    }

    fn capacity(&self) -> u64 {
        each!(self, p => p.capacity())
    }

    fn occupied(&self) -> u64 {
        each!(self, p => p.occupied())
    }

    fn resident(&self) -> usize {
        each!(self, p => p.resident())
    }

    fn tracked(&self) -> usize {
        each!(self, p => p.tracked())
    }

    fn heap_bytes(&self) -> usize {
        each!(self, p => p.heap_bytes())
    }

    fn check_invariants(&self) -> Result<(), String> {
        each!(self, p => p.check_invariants())
    }
}
