//! Canonical ARC (Megiddo & Modha, FAST '03), with libCacheSim's rules for
//! variable sizes.

use crate::Policy;
use arclab_arc::Request;
use arclab_arc::slab::{Index, List, hash_key, reserve_hint};

const T1: u8 = 1;
const T2: u8 = 2;
const B1: u8 = 3;
const B2: u8 = 4;

/// How `p` adapts on a ghost hit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Adaptation {
    /// `p` moves by `size × max(ratio, 1)` units, where `size` is the ghost
    /// object's size: unit-invariant like the paper (sizes of 1) and ZFS's
    /// byte-scaled `arc_adapt` (without ZFS's cap of 10 on the ratio).
    SizeScaled,
    /// `p` moves by `max(ratio, 1)` units whatever the object's size, as
    /// libCacheSim's `ARC.c` does (in byte mode that is ≥ 1 *byte* per ghost
    /// hit, so its results depend on the unit).
    LibCacheSim,
}

/// Canonical ARC: resident lists T1 (seen once) and T2 (seen twice or more),
/// ghost lists B1 and B2, and the adaptive target `p` for T1.
///
/// All list sizes are sums of object sizes (objects in object mode). Ghosts
/// live in the same table and slab as resident objects. The replacement rules
/// are libCacheSim's `ARC.c` (which reproduces the paper exactly when every
/// size is 1):
///
/// * hit in T1 → move to T2 head; hit in T2 → move to T2 head (size kept);
/// * ghost hit in B1: `p = min(p + δ·max(|B2|/|B1|, 1), c)`; in B2:
///   `p = max(p − δ·max(|B1|/|B2|, 1), 0)` (`p` is an `f64`, `δ` per
///   [`Adaptation`]); the ghost is dropped and the object re-admitted at the
///   T2 head, running REPLACE while it does not fit;
/// * REPLACE: demote the T1 tail to B1 if `|T1| > 0 && (|T1| > p || (|T1| == p
///   && x ∈ B2))` or `|T2| == 0`, else the T2 tail to B2;
/// * a miss everywhere, while it does not fit: if `|T1| + |B1| + size > c`,
///   drop the B1 tail and REPLACE when B1 is non-empty, else evict the T1 tail
///   with no ghost; otherwise drop the B2 tail if `|T1|+|T2|+|B1|+|B2| ≥ 2c`
///   and REPLACE; then admit at the T1 head;
/// * objects larger than `c` are not admitted (a ghost hit still adapts `p`
///   and drops the ghost).
#[derive(Debug)]
pub struct ArcPolicy {
    ix: Index,
    t1: List,
    t2: List,
    b1: List,
    b2: List,
    p: f64,
    cap: u64,
    adapt: Adaptation,
    /// Whether every admitted object so far had size 1 (object mode).
    unit_only: bool,
}

/// Alias: the canonical ARC policy.
pub type CanonicalArc = ArcPolicy;

impl ArcPolicy {
    /// An empty ARC of `capacity` units with [`Adaptation::SizeScaled`].
    pub fn new(capacity: u64) -> Self {
        Self::with_options(capacity, Adaptation::SizeScaled, reserve_hint(capacity, 2))
    }

    /// An empty ARC that moves `p` exactly as libCacheSim does
    /// ([`Adaptation::LibCacheSim`]); identical to [`ArcPolicy::new`] when
    /// every size is 1.
    pub fn libcachesim_compatible(capacity: u64) -> Self {
        Self::with_options(capacity, Adaptation::LibCacheSim, reserve_hint(capacity, 2))
    }

    /// An empty ARC with the given adaptation rule that pre-reserves room for
    /// `expected` tracked objects (ghosts included: use `2 × capacity` in
    /// object mode).
    pub fn with_options(capacity: u64, adapt: Adaptation, expected: usize) -> Self {
        ArcPolicy {
            ix: Index::with_capacity(expected),
            t1: List::default(),
            t2: List::default(),
            b1: List::default(),
            b2: List::default(),
            p: 0.0,
            cap: capacity,
            adapt,
            unit_only: true,
        }
    }

    /// The current target size of T1.
    pub fn p(&self) -> f64 {
        self.p
    }

    /// The adaptation rule.
    pub fn adaptation(&self) -> Adaptation {
        self.adapt
    }

    /// Sizes of (T1, T2, B1, B2) in the policy's unit.
    pub fn list_sizes(&self) -> [u64; 4] {
        [self.t1.bytes, self.t2.bytes, self.b1.bytes, self.b2.bytes]
    }

    /// REPLACE(x, p): demote one resident object to its ghost list.
    #[inline]
    fn replace(&mut self, x_in_b2: bool) {
        let t1 = self.t1.bytes as f64;
        let nodes = &mut self.ix.nodes;
        if (self.t1.bytes > 0 && (t1 > self.p || (t1 == self.p && x_in_b2))) || self.t2.bytes == 0 {
            let i = self.t1.pop_tail(nodes).expect("T1 non-empty");
            nodes[i as usize].tag = B1;
            self.b1.push_head(nodes, i);
            self.ix.warm_victim(self.t1.tail, false);
        } else {
            let i = self.t2.pop_tail(nodes).expect("T2 non-empty");
            nodes[i as usize].tag = B2;
            self.b2.push_head(nodes, i);
            self.ix.warm_victim(self.t2.tail, false);
        }
    }

    /// Case IV: make room for a brand-new object of `size`.
    #[inline]
    fn evict_for_new(&mut self, size: u64) {
        if self.t1.bytes + self.b1.bytes + size > self.cap {
            if self.b1.bytes > 0 {
                let g = self.b1.pop_tail(&mut self.ix.nodes).expect("B1 non-empty");
                self.ix.remove(g);
                self.ix.warm_victim(self.b1.tail, true);
                self.replace(false);
            } else {
                let i = self.t1.pop_tail(&mut self.ix.nodes).expect("T1 non-empty");
                self.ix.remove(i);
                self.ix.warm_victim(self.t1.tail, true);
            }
        } else {
            let total = self.t1.bytes + self.t2.bytes + self.b1.bytes + self.b2.bytes;
            if total >= 2 * self.cap && self.b2.bytes > 0 {
                let g = self.b2.pop_tail(&mut self.ix.nodes).expect("B2 non-empty");
                self.ix.remove(g);
                self.ix.warm_victim(self.b2.tail, true);
            }
            self.replace(false);
        }
    }

    #[inline]
    fn delta(&self, ratio: f64, size: u32) -> f64 {
        let d = if ratio > 1.0 { ratio } else { 1.0 };
        match self.adapt {
            Adaptation::SizeScaled => d * f64::from(size),
            Adaptation::LibCacheSim => d,
        }
    }
}

impl Policy for ArcPolicy {
    index_backed!(t1, t2);

    #[inline(always)]
    fn access(&mut self, req: &Request) -> bool {
        let h = hash_key(req.key);
        // 0 = miss everywhere, B1/B2 = ghost hit there.
        let mut ghost = 0u8;
        if let Some(i) = self.ix.find(h, req.key) {
            let node = self.ix.nodes[i as usize];
            match node.tag {
                T1 => {
                    let nodes = &mut self.ix.nodes;
                    self.t1.unlink(nodes, i);
                    nodes[i as usize].tag = T2;
                    self.t2.push_head(nodes, i);
                    return true;
                }
                T2 => {
                    self.t2.move_to_head(&mut self.ix.nodes, i);
                    return true;
                }
                B1 => {
                    let d = self.delta(self.b2.bytes as f64 / self.b1.bytes as f64, node.size);
                    self.p = (self.p + d).min(self.cap as f64);
                    self.b1.unlink(&mut self.ix.nodes, i);
                }
                _ => {
                    let d = self.delta(self.b1.bytes as f64 / self.b2.bytes as f64, node.size);
                    self.p = (self.p - d).max(0.0);
                    self.b2.unlink(&mut self.ix.nodes, i);
                }
            }
            self.ix.remove(i);
            ghost = node.tag;
        }
        let size = u64::from(req.size);
        if size > self.cap {
            return false;
        }
        while self.t1.bytes + self.t2.bytes + size > self.cap {
            if ghost == 0 {
                self.evict_for_new(size);
            } else {
                self.replace(ghost == B2);
            }
        }
        self.unit_only &= req.size == 1;
        if ghost == 0 {
            let i = self.ix.insert(h, req.key, req.size, T1);
            self.t1.push_head(&mut self.ix.nodes, i);
        } else {
            let i = self.ix.insert(h, req.key, req.size, T2);
            self.t2.push_head(&mut self.ix.nodes, i);
        }
        false
    }

    /// Always: table ↔ lists consistent, byte sums exact, `|T1|+|T2| ≤ c`,
    /// `0 ≤ p ≤ c`. When every admitted object had size 1 (object mode) also the
    /// paper's `|T1|+|B1| ≤ c` and `|T1|+|T2|+|B1|+|B2| ≤ 2c`; with variable
    /// sizes libCacheSim's rules do not maintain those two (see
    /// `docs/policies.md`), so they are not checked then.
    fn check_invariants(&self) -> Result<(), String> {
        self.ix.check()?;
        let nodes = &self.ix.nodes;
        let mut seen = 0;
        self.t1.check("T1", nodes, T1, &mut seen)?;
        self.t2.check("T2", nodes, T2, &mut seen)?;
        self.b1.check("B1", nodes, B1, &mut seen)?;
        self.b2.check("B2", nodes, B2, &mut seen)?;
        if seen != self.ix.len() {
            return Err(format!("{seen} listed != {} tracked", self.ix.len()));
        }
        let c = self.cap;
        let [t1, t2, b1, b2] = self.list_sizes();
        if t1 + t2 > c {
            return Err(format!("|T1|+|T2| = {} > c = {c}", t1 + t2));
        }
        if !(0.0..=c as f64).contains(&self.p) {
            return Err(format!("p = {} outside [0, {c}]", self.p));
        }
        if self.unit_only {
            if t1 + b1 > c {
                return Err(format!("unit sizes: |T1|+|B1| = {} > c = {c}", t1 + b1));
            }
            if t1 + t2 + b1 + b2 > 2 * c {
                return Err(format!("unit sizes: total {} > 2c", t1 + t2 + b1 + b2));
            }
        }
        Ok(())
    }
}
