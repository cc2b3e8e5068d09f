//! Least recently used, as libCacheSim's `LRU`.

use crate::Policy;
use arclab_arc::Request;
use arclab_arc::slab::{Index, List, hash_key, reserve_hint};

const TAG: u8 = 0;

/// Least-recently-used replacement.
///
/// libCacheSim parity: a hit moves the object to the head and keeps the size
/// it was admitted with (a changed request size is ignored on a hit); a miss
/// evicts from the tail until the object fits; objects larger than the
/// capacity are not admitted.
#[derive(Debug)]
pub struct Lru {
    ix: Index,
    list: List,
    cap: u64,
}

impl Lru {
    /// An empty LRU cache of `capacity` units.
    pub fn new(capacity: u64) -> Self {
        Self::with_expected_objects(capacity, reserve_hint(capacity, 1))
    }

    /// An empty LRU cache that pre-reserves room for `expected` objects (use
    /// `expected = capacity` in object mode, so no request ever reallocates).
    pub fn with_expected_objects(capacity: u64, expected: usize) -> Self {
        Lru {
            ix: Index::with_capacity(expected),
            list: List::default(),
            cap: capacity,
        }
    }
}

impl Policy for Lru {
    index_backed!(list);

    #[inline(always)]
    fn access(&mut self, req: &Request) -> bool {
        let h = hash_key(req.key);
        if let Some(i) = self.ix.find(h, req.key) {
            self.list.move_to_head(&mut self.ix.nodes, i);
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
        self.list.check("lru", &self.ix.nodes, TAG, &mut seen)?;
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
