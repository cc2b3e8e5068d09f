//! SIEVE (Zhang et al., NSDI '24), as libCacheSim's `Sieve`.

use crate::Policy;
use arclab_arc::Request;
use arclab_arc::slab::{Index, List, NIL, hash_key, reserve_hint};

const TAG: u8 = 0;

/// SIEVE: a FIFO queue with a one-bit "visited" flag and a moving hand.
///
/// libCacheSim parity: new objects go to the head unvisited; a hit sets the
/// visited bit (size unchanged). To evict, the hand starts at its last
/// position (the tail at first, or after it fell off the head), clears visited
/// bits while walking towards the head (wrapping to the tail), evicts the first
/// unvisited object and parks on its newer neighbour.
#[derive(Debug)]
pub struct Sieve {
    ix: Index,
    list: List,
    hand: u32,
    cap: u64,
}

impl Sieve {
    /// An empty SIEVE cache of `capacity` units.
    pub fn new(capacity: u64) -> Self {
        Self::with_expected_objects(capacity, reserve_hint(capacity, 1))
    }

    /// An empty SIEVE cache that pre-reserves room for `expected` objects.
    pub fn with_expected_objects(capacity: u64, expected: usize) -> Self {
        Sieve {
            ix: Index::with_capacity(expected),
            list: List::default(),
            hand: NIL,
            cap: capacity,
        }
    }

    #[inline]
    fn evict_one(&mut self) {
        let nodes = &mut self.ix.nodes;
        let mut i = if self.hand == NIL {
            self.list.tail
        } else {
            self.hand
        };
        while nodes[i as usize].freq > 0 {
            nodes[i as usize].freq = 0;
            let p = nodes[i as usize].prev;
            i = if p == NIL { self.list.tail } else { p };
        }
        self.hand = nodes[i as usize].prev;
        self.list.unlink(nodes, i);
        self.ix.remove(i);
    }
}

impl Policy for Sieve {
    index_backed!(list);

    #[inline(always)]
    fn access(&mut self, req: &Request) -> bool {
        let h = hash_key(req.key);
        if let Some(i) = self.ix.find(h, req.key) {
            self.ix.nodes[i as usize].freq = 1;
            return true;
        }
        let size = u64::from(req.size);
        if size > self.cap {
            return false;
        }
        while self.list.bytes + size > self.cap {
            self.evict_one();
        }
        let i = self.ix.insert(h, req.key, req.size, TAG);
        self.list.push_head(&mut self.ix.nodes, i);
        false
    }

    fn check_invariants(&self) -> Result<(), String> {
        self.ix.check()?;
        let mut seen = 0;
        self.list.check("sieve", &self.ix.nodes, TAG, &mut seen)?;
        if seen != self.ix.len() {
            return Err(format!("{seen} listed != {} tracked", self.ix.len()));
        }
        if self.list.bytes > self.cap {
            return Err(format!(
                "occupied {} > capacity {}",
                self.list.bytes, self.cap
            ));
        }
        if self.hand != NIL {
            let n = self.ix.nodes.get(self.hand as usize);
            if n.is_none_or(|n| n.tag != TAG) {
                return Err(format!("hand {} is not on the list", self.hand));
            }
        }
        Ok(())
    }
}
