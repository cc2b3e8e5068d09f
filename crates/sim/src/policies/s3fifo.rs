//! S3-FIFO (Yang et al., SOSP '23), as libCacheSim's `S3FIFO` with its
//! defaults.

use crate::Policy;
use arclab_arc::Request;
use arclab_arc::slab::{Index, List, hash_key, reserve_hint};

const SMALL: u8 = 1;
const MAIN: u8 = 2;
const GHOST: u8 = 3;

/// Small queue share of the capacity (libCacheSim `fifo-size-ratio`).
pub const SMALL_RATIO: f64 = 0.10;
/// Ghost queue share of the capacity (libCacheSim `ghost-size-ratio`).
pub const GHOST_RATIO: f64 = 0.90;
/// Hits needed in the small queue to be promoted to main
/// (libCacheSim `move-to-main-threshold`).
pub const MOVE_TO_MAIN_THRESHOLD: u8 = 2;
/// Frequency cap: main-queue reinsertion keeps `min(freq, 3) − 1`.
pub const FREQ_CAP: u8 = 3;

/// S3-FIFO: a small FIFO (10 % of `c`), a main FIFO with reinsertion (the
/// rest) and a ghost FIFO of keys (90 % of `c`, sized in the same unit).
///
/// libCacheSim parity (`S3FIFO.c`; sizes `small = ⌊0.1·c⌋`,
/// `main = c − small`, `ghost = ⌊0.9·c⌋`, computed in `f64` and truncated):
///
/// * a hit in small or main increments the object's frequency (saturating at
///   [`FREQ_CAP`], which changes nothing observable) and keeps its size;
/// * a miss whose key is in the ghost drops the ghost entry and admits the
///   object to the main head; any other miss admits it to the small head —
///   but only objects with `size ≤ small` are admissible at all, and a
///   non-ghost object with `size == small` triggers evictions and is then
///   not inserted (both as libCacheSim); until the cache first has to evict,
///   a miss that finds the small queue full goes to the main head instead
///   (libCacheSim's `has_evicted` warm-up rule);
/// * while `small + main + size > c`: if main exceeds its share or small is
///   empty, evict from main (tail objects with frequency ≥ 1 are reinserted at
///   the head with `min(freq, 3) − 1` until one with frequency 0 is evicted);
///   otherwise evict from small (tail objects with frequency ≥ 2 move to the
///   main head with frequency 0; the first other one is evicted into the
///   ghost FIFO, which evicts its own tail while over its share).
#[derive(Debug)]
pub struct S3Fifo {
    ix: Index,
    small: List,
    main: List,
    ghost: List,
    cap: u64,
    small_cap: u64,
    main_cap: u64,
    ghost_cap: u64,
    /// Whether the cache has ever had to evict (libCacheSim `has_evicted`).
    has_evicted: bool,
}

impl S3Fifo {
    /// An empty S3-FIFO cache of `capacity` units with libCacheSim's defaults.
    pub fn new(capacity: u64) -> Self {
        Self::with_expected_objects(capacity, reserve_hint(capacity, 2))
    }

    /// An empty S3-FIFO cache that pre-reserves room for `expected` tracked
    /// objects (ghosts included: about `1.9 × capacity` in object mode).
    pub fn with_expected_objects(capacity: u64, expected: usize) -> Self {
        let small_cap = (capacity as f64 * SMALL_RATIO) as u64;
        let ghost_cap = (capacity as f64 * GHOST_RATIO) as u64;
        S3Fifo {
            ix: Index::with_capacity(expected),
            small: List::default(),
            main: List::default(),
            ghost: List::default(),
            cap: capacity,
            small_cap,
            main_cap: capacity - small_cap,
            ghost_cap,
            has_evicted: false,
        }
    }

    /// Sizes of (small, main, ghost) in the policy's unit.
    pub fn queue_sizes(&self) -> [u64; 3] {
        [self.small.bytes, self.main.bytes, self.ghost.bytes]
    }

    fn evict_main(&mut self) {
        let nodes = &mut self.ix.nodes;
        while let Some(i) = self.main.pop_tail(nodes) {
            let f = nodes[i as usize].freq;
            if f >= 1 {
                nodes[i as usize].freq = f.min(FREQ_CAP) - 1;
                self.main.push_head(nodes, i);
            } else {
                self.ix.remove(i);
                return;
            }
        }
    }

    fn evict_small(&mut self) {
        while let Some(i) = self.small.pop_tail(&mut self.ix.nodes) {
            let n = &mut self.ix.nodes[i as usize];
            if n.freq >= MOVE_TO_MAIN_THRESHOLD {
                n.freq = 0;
                n.tag = MAIN;
                self.main.push_head(&mut self.ix.nodes, i);
            } else {
                let size = u64::from(n.size);
                if size > self.ghost_cap {
                    self.ix.remove(i);
                } else {
                    while self.ghost.bytes + size > self.ghost_cap {
                        let g = self.ghost.pop_tail(&mut self.ix.nodes).expect("ghost");
                        self.ix.remove(g);
                    }
                    let n = &mut self.ix.nodes[i as usize];
                    n.tag = GHOST;
                    n.freq = 0;
                    self.ghost.push_head(&mut self.ix.nodes, i);
                }
                return;
            }
        }
    }
}

impl Policy for S3Fifo {
    index_backed!(small, main);

    #[inline(always)]
    fn access(&mut self, req: &Request) -> bool {
        let h = hash_key(req.key);
        let mut ghost_hit = false;
        if let Some(i) = self.ix.find(h, req.key) {
            let n = &mut self.ix.nodes[i as usize];
            if n.tag != GHOST {
                n.freq = (n.freq + 1).min(FREQ_CAP);
                return true;
            }
            self.ghost.unlink(&mut self.ix.nodes, i);
            self.ix.remove(i);
            ghost_hit = true;
        }
        let size = u64::from(req.size);
        if size > self.small_cap {
            return false;
        }
        while self.small.bytes + self.main.bytes + size > self.cap {
            self.has_evicted = true;
            if self.main.bytes > self.main_cap || self.small.bytes == 0 {
                self.evict_main();
            } else {
                self.evict_small();
            }
        }
        if ghost_hit {
            let i = self.ix.insert(h, req.key, req.size, MAIN);
            self.main.push_head(&mut self.ix.nodes, i);
        } else if size < self.small_cap {
            // Before the first eviction, a full small queue overflows to main.
            if !self.has_evicted && self.small.bytes >= self.small_cap {
                let i = self.ix.insert(h, req.key, req.size, MAIN);
                self.main.push_head(&mut self.ix.nodes, i);
            } else {
                let i = self.ix.insert(h, req.key, req.size, SMALL);
                self.small.push_head(&mut self.ix.nodes, i);
            }
        }
        false
    }

    /// Table ↔ queues consistent, byte sums exact, `small + main ≤ c`,
    /// `ghost ≤ ⌊0.9·c⌋`, frequencies ≤ 3 (main may exceed its share
    /// transiently, as in libCacheSim).
    fn check_invariants(&self) -> Result<(), String> {
        self.ix.check()?;
        let nodes = &self.ix.nodes;
        let mut seen = 0;
        self.small.check("small", nodes, SMALL, &mut seen)?;
        self.main.check("main", nodes, MAIN, &mut seen)?;
        self.ghost.check("ghost", nodes, GHOST, &mut seen)?;
        if seen != self.ix.len() {
            return Err(format!("{seen} listed != {} tracked", self.ix.len()));
        }
        if self.occupied() > self.cap {
            return Err(format!(
                "occupied {} > capacity {}",
                self.occupied(),
                self.cap
            ));
        }
        if self.ghost.bytes > self.ghost_cap {
            return Err(format!("ghost {} > {}", self.ghost.bytes, self.ghost_cap));
        }
        if nodes.iter().any(|n| n.tag != u8::MAX && n.freq > FREQ_CAP) {
            return Err("frequency above cap".into());
        }
        Ok(())
    }
}
