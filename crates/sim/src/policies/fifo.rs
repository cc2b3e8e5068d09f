//! First in, first out, as libCacheSim's `FIFO`.

use crate::Policy;
use arclab_arc::Request;
use arclab_arc::slab::{Index, List, hash_key, reserve_hint};

const TAG: u8 = 0;

/// First-in-first-out replacement.
///
/// libCacheSim parity: a hit changes nothing (the object keeps the size
/// it was admitted with); a miss
/// evicts from the tail until the object fits; objects larger than the
/// capacity are not admitted.
#[derive(Debug)]
pub struct Fifo {
    ix: Index,
    list: List,
    cap: u64,
}

impl Fifo {
    /// An empty FIFO cache of `capacity` units.
    pub fn new(capacity: u64) -> Self {
        Self::with_expected_objects(capacity, reserve_hint(capacity, 1))
    }

    /// An empty FIFO cache that pre-reserves room for `expected` objects (use
    /// `expected = capacity` in object mode, so no request ever reallocates).
    pub fn with_expected_objects(capacity: u64, expected: usize) -> Self {
        Fifo {
            ix: Index::with_capacity(expected),
            list: List::default(),
            cap: capacity,
        }
    }
}

impl Policy for Fifo {
    index_backed!(list);

    #[inline(always)]
    fn access(&mut self, req: &Request) -> bool {
        let h = hash_key(req.key);
        if self.ix.find(h, req.key).is_some() {
            return true;
        }
        let size = u64::from(req.size);
        if size > self.cap {
            return false;
        }
        // `size <= cap` here, so the subtraction cannot wrap.
        self.ix.evict_tail_until(&mut self.list, self.cap - size);
        let i = self.ix.insert(h, req.key, req.size, TAG);
        self.list.push_head(&mut self.ix.nodes, i);
        false
    }

    fn check_invariants(&self) -> Result<(), String> {
        self.ix.check()?;
        let mut seen = 0;
        self.list.check("fifo", &self.ix.nodes, TAG, &mut seen)?;
        if seen != self.ix.len() {
            return Err(format!("{seen} listed != {} tracked", self.ix.len()));
        }
        if self.list.bytes > self.cap {
            return Err(format!(
                "occupied {} > capacity {}",
                self.list.bytes, self.cap
            ));
        }
        Ok(())
    }
}
