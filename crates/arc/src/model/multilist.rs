//! The ARC state lists as OpenZFS keeps them: each `arcs_list[type]` is a
//! `multilist_t` of `n` sublists, a header going to sublist
//! `hash(header) % n` (`arc_state_multilist_index_func`), each sublist an LRU
//! of its own. Eviction (`arc_evict_state`) starts at a random sublist and
//! takes at most `zfs_arc_evict_batch_limit` (10) headers from each sublist's
//! tail in turn, so the header evicted is the oldest of a random sublist,
//! not the oldest of all: on a loop slightly larger than the cache strict
//! LRU never hits, while arc.c keeps a part of it (docs/oracle.md).

use crate::slab::{List, Node, hash_key};

/// The most sublists a list may have (a 255-CPU kernel's count).
pub(super) const MAX_SUBLISTS: usize = 255;

/// `zfs_arc_evict_batch_limit`: headers evicted from one sublist per visit.
pub(super) const BATCH_LIMIT: u32 = 10;

/// One state's list of one type: `n` sublists and their totals.
#[derive(Clone, Debug)]
pub(super) struct MultiList {
    pub(super) sub: Box<[List]>,
    /// Members over all sublists.
    pub(super) len: u32,
    /// Bytes over all sublists.
    pub(super) bytes: u64,
}

impl MultiList {
    pub(super) fn new(n: usize) -> MultiList {
        MultiList {
            sub: vec![List::default(); n.clamp(1, MAX_SUBLISTS)].into_boxed_slice(),
            len: 0,
            bytes: 0,
        }
    }

    /// The sublist of `key` among `n` (kept in the header's `aux` byte at
    /// creation: every list of the engine has the same count).
    #[inline(always)]
    pub(super) fn index_of(key: u64, n: usize) -> u8 {
        if n <= 1 {
            0
        } else {
            (((hash_key(key) >> 32) * n as u64) >> 32) as u8
        }
    }

    #[inline(always)]
    pub(super) fn push_head(&mut self, nodes: &mut [Node], i: u32) {
        let s = usize::from(nodes[i as usize].aux);
        self.sub[s].push_head(nodes, i);
        self.len += 1;
        self.bytes += u64::from(nodes[i as usize].size);
    }

    #[inline(always)]
    pub(super) fn unlink(&mut self, nodes: &mut [Node], i: u32) {
        let s = usize::from(nodes[i as usize].aux);
        self.sub[s].unlink(nodes, i);
        self.len -= 1;
        self.bytes -= u64::from(nodes[i as usize].size);
    }

    #[inline(always)]
    pub(super) fn move_to_head(&mut self, nodes: &mut [Node], i: u32) {
        let s = usize::from(nodes[i as usize].aux);
        self.sub[s].move_to_head(nodes, i);
    }

    /// The tail of sublist `s`, or [`NIL`].
    #[inline(always)]
    pub(super) fn tail(&self, s: usize) -> u32 {
        self.sub[s].tail
    }

    /// A digest of where the sublists start and end (for the idle check).
    pub(super) fn ends(&self) -> (u32, u32) {
        let mut h = 0u32;
        let mut t = 0u32;
        for (k, l) in self.sub.iter().enumerate() {
            h ^= l.head.rotate_left(k as u32);
            t ^= l.tail.rotate_left(k as u32);
        }
        (h, t)
    }

    /// Check every sublist and the totals (each node's sublist is checked
    /// against its key by `check_invariants`).
    pub(super) fn check(
        &self,
        name: &str,
        nodes: &[Node],
        tag: u8,
        seen: &mut usize,
    ) -> Result<(), String> {
        let (mut len, mut bytes) = (0u32, 0u64);
        for (s, l) in self.sub.iter().enumerate() {
            l.check(&format!("{name} sublist {s}"), nodes, tag, seen)?;
            len += l.len;
            bytes += l.bytes;
        }
        if len != self.len || bytes != self.bytes {
            return Err(format!(
                "{name}: sublists hold {len} / {bytes} B, totals say {} / {}",
                self.len, self.bytes
            ));
        }
        Ok(())
    }
}
