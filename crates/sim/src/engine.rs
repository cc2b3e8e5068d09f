//! The one engine behind every run: a baseline policy or the ZFS model,
//! shared by `replay`'s jobs and `whatif`'s runs.

use crate::Policy;
use crate::model::{ZfsArc, ZfsSpec};
use crate::policies::{AnyPolicy, Counters};
use crate::replay::Target;
use arclab_arc::Request;

/// A baseline policy or the ZFS model.
pub(crate) enum Engine {
    Policy(AnyPolicy),
    Zfs(Box<ZfsArc>),
}

impl Engine {
    /// The engine for `target`: a policy holding `capacity` (objects in
    /// object mode, else bytes), or the ZFS model as its spec says.
    /// `objects` is the stream's distinct objects when known (0: unknown).
    pub(crate) fn new(target: &Target, capacity: u64, object_mode: bool, objects: u64) -> Engine {
        match target {
            // In object mode the policy reserves what it can track on this
            // stream (never by capacity alone) and grows past a guess.
            Target::Policy(p) if object_mode => {
                Engine::Policy(AnyPolicy::new_object_mode_expecting(*p, capacity, objects))
            }
            Target::Policy(p) => Engine::Policy(AnyPolicy::new(*p, capacity)),
            Target::Zfs(spec) => Engine::zfs(spec),
        }
    }

    /// The ZFS model built from `spec`.
    pub(crate) fn zfs(spec: &ZfsSpec) -> Engine {
        Engine::Zfs(Box::new(ZfsArc::new(spec)))
    }

    /// Serve one request; whether it was a hit.
    #[inline]
    pub(crate) fn access(&mut self, req: &Request) -> bool {
        match self {
            Engine::Policy(p) => p.access(req),
            Engine::Zfs(z) => z.access(req),
        }
    }

    /// Serve a batch, counting into `c` (policies match their kind once per
    /// batch; the model gets memory hints for the requests ahead).
    #[inline]
    pub(crate) fn access_batch(&mut self, batch: &[Request], object_mode: bool, c: &mut Counters) {
        match self {
            Engine::Policy(p) => p.access_batch(batch, object_mode, c),
            Engine::Zfs(z) => z.access_batch(batch, |r, hit| {
                let b = u64::from(r.size);
                c.n_req += 1;
                c.n_req_byte += b;
                c.n_miss += u64::from(!hit);
                c.n_miss_byte += if hit { 0 } else { b };
            }),
        }
    }
}
