//! The shared fast core of every policy: a slab of 24-byte nodes linked into
//! intrusive `u32`-indexed lists, and a `hashbrown::HashTable<u32>` from key to
//! slab index.
//!
//! Nothing here allocates per request once the slab and the table have grown
//! to the steady-state number of tracked objects: freed nodes go on a free list
//! that later insertions reuse.

use hashbrown::HashTable;

/// "No node": the null link of the intrusive lists.
pub const NIL: u32 = u32::MAX;

/// One tracked object (resident or ghost). 24 bytes.
#[derive(Clone, Copy, Debug, Default)]
pub struct Node {
    /// Object key.
    pub key: u64,
    /// Size in the policy's unit (kept from the admitting request).
    pub size: u32,
    /// Towards the head (more recent); `NIL` at the head.
    pub prev: u32,
    /// Towards the tail (older); `NIL` at the tail. Free-list link when free.
    pub next: u32,
    /// Which list the node is on (policy-specific; `TAG_FREE` when free).
    pub tag: u8,
    /// Policy-specific small counter (S3-FIFO frequency, SIEVE visited bit).
    pub freq: u8,
}

/// Tag of a node on the free list.
pub const TAG_FREE: u8 = u8::MAX;

/// A fast, good 64-bit mixer (the murmur3 `fmix64` finalizer).
#[inline(always)]
pub fn hash_key(key: u64) -> u64 {
    let mut h = key;
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^= h >> 33;
    h
}

/// Key → slab index table plus the slab itself.
#[derive(Debug, Default)]
pub struct Index {
    table: HashTable<u32>,
    /// The slab; indices are stable while a node is live.
    pub nodes: Vec<Node>,
    free: u32,
    live: usize,
}

impl Index {
    /// An index with room for `n` tracked objects before it reallocates.
    pub fn with_capacity(n: usize) -> Self {
        Index {
            table: HashTable::with_capacity(n),
            nodes: Vec::with_capacity(n),
            free: NIL,
            live: 0,
        }
    }

    /// Slab index of `key` (whose hash is `h`), if tracked.
    #[inline(always)]
    pub fn find(&self, h: u64, key: u64) -> Option<u32> {
        let nodes = &self.nodes;
        self.table
            .find(h, |&i| nodes[i as usize].key == key)
            .copied()
    }

    /// Track a new `key` (hash `h`, not yet present) and return its slab index.
    /// The node's links are `NIL`; the caller puts it on a list.
    #[inline(always)]
    pub fn insert(&mut self, h: u64, key: u64, size: u32, tag: u8) -> u32 {
        let node = Node {
            key,
            size,
            prev: NIL,
            next: NIL,
            tag,
            freq: 0,
        };
        let idx = if self.free != NIL {
            let i = self.free;
            self.free = self.nodes[i as usize].next;
            self.nodes[i as usize] = node;
            i
        } else {
            let i = u32::try_from(self.nodes.len()).expect("more than 2^32-1 tracked objects");
            assert!(i != NIL, "more than 2^32-1 tracked objects");
            self.nodes.push(node);
            i
        };
        let nodes = &self.nodes;
        self.table
            .insert_unique(h, idx, |&i| hash_key(nodes[i as usize].key));
        self.live += 1;
        idx
    }

    /// Forget node `idx` (already unlinked from its list) and recycle it.
    #[inline(always)]
    pub fn remove(&mut self, idx: u32) {
        let h = hash_key(self.nodes[idx as usize].key);
        match self.table.find_entry(h, |&i| i == idx) {
            Ok(e) => {
                e.remove();
            }
            Err(_) => panic!("node {idx} is not in the table"),
        }
        let n = &mut self.nodes[idx as usize];
        n.tag = TAG_FREE;
        n.prev = NIL;
        n.next = self.free;
        self.free = idx;
        self.live -= 1;
    }

    /// Number of tracked (live) nodes.
    #[inline]
    pub fn len(&self) -> usize {
        self.live
    }

    /// Whether nothing is tracked.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// Heap bytes held by the table and the slab.
    pub fn heap_bytes(&self) -> usize {
        self.table.allocation_size() + self.nodes.capacity() * std::mem::size_of::<Node>()
    }

    /// Check that the table and the slab agree: every table entry names a live
    /// node with that key, the live count matches, and the free list holds
    /// exactly the other nodes.
    pub fn check(&self) -> Result<(), String> {
        if self.table.len() != self.live {
            return Err(format!(
                "table has {} entries, live count is {}",
                self.table.len(),
                self.live
            ));
        }
        for &i in self.table.iter() {
            let n = self
                .nodes
                .get(i as usize)
                .ok_or_else(|| format!("table entry {i} out of slab"))?;
            if n.tag == TAG_FREE {
                return Err(format!("table entry {i} names a free node"));
            }
            if self.find(hash_key(n.key), n.key) != Some(i) {
                return Err(format!("key {} does not find its node {i}", n.key));
            }
        }
        let mut free = 0usize;
        let mut f = self.free;
        while f != NIL {
            let n = &self.nodes[f as usize];
            if n.tag != TAG_FREE {
                return Err(format!("free list holds live node {f}"));
            }
            free += 1;
            if free > self.nodes.len() {
                return Err("free list has a cycle".into());
            }
            f = n.next;
        }
        if free + self.live != self.nodes.len() {
            return Err(format!(
                "{free} free + {} live != {} slab nodes",
                self.live,
                self.nodes.len()
            ));
        }
        Ok(())
    }
}

/// An intrusive doubly-linked list over the slab: head = most recent.
#[derive(Clone, Copy, Debug)]
pub struct List {
    /// Most recent member, or [`NIL`].
    pub head: u32,
    /// Least recent member, or [`NIL`].
    pub tail: u32,
    /// Number of members.
    pub len: u32,
    /// Sum of the member nodes' sizes.
    pub bytes: u64,
}

impl Default for List {
    fn default() -> Self {
        List {
            head: NIL,
            tail: NIL,
            len: 0,
            bytes: 0,
        }
    }
}

impl List {
    /// Put the (unlinked) node `i` at the head.
    #[inline(always)]
    pub fn push_head(&mut self, nodes: &mut [Node], i: u32) {
        let old = self.head;
        {
            let n = &mut nodes[i as usize];
            n.prev = NIL;
            n.next = old;
            self.bytes += u64::from(n.size);
        }
        if old != NIL {
            nodes[old as usize].prev = i;
        } else {
            self.tail = i;
        }
        self.head = i;
        self.len += 1;
    }

    /// Take node `i` off the list (it must be on it).
    #[inline(always)]
    pub fn unlink(&mut self, nodes: &mut [Node], i: u32) {
        let (prev, next, size) = {
            let n = &nodes[i as usize];
            (n.prev, n.next, n.size)
        };
        if prev != NIL {
            nodes[prev as usize].next = next;
        } else {
            self.head = next;
        }
        if next != NIL {
            nodes[next as usize].prev = prev;
        } else {
            self.tail = prev;
        }
        self.bytes -= u64::from(size);
        self.len -= 1;
    }

    /// Move node `i` (on this list) to the head.
    #[inline(always)]
    pub fn move_to_head(&mut self, nodes: &mut [Node], i: u32) {
        if self.head != i {
            self.unlink(nodes, i);
            self.push_head(nodes, i);
        }
    }

    /// Unlink and return the tail, if any.
    #[inline(always)]
    pub fn pop_tail(&mut self, nodes: &mut [Node]) -> Option<u32> {
        let t = self.tail;
        if t == NIL {
            return None;
        }
        self.unlink(nodes, t);
        Some(t)
    }

    /// Walk the list and check links, tags, length and byte sum; `seen` counts
    /// the nodes visited (to prove every tracked node is on exactly one list).
    pub fn check(
        &self,
        name: &str,
        nodes: &[Node],
        tag: u8,
        seen: &mut usize,
    ) -> Result<(), String> {
        let mut i = self.head;
        let mut prev = NIL;
        let mut len = 0u32;
        let mut bytes = 0u64;
        while i != NIL {
            let n = nodes
                .get(i as usize)
                .ok_or_else(|| format!("{name}: link {i} out of slab"))?;
            if n.tag != tag {
                return Err(format!("{name}: node {i} has tag {} not {tag}", n.tag));
            }
            if n.prev != prev {
                return Err(format!("{name}: node {i} prev {} != {prev}", n.prev));
            }
            len += 1;
            if len as usize > nodes.len() {
                return Err(format!("{name}: cycle"));
            }
            bytes += u64::from(n.size);
            prev = i;
            i = n.next;
        }
        if prev != self.tail {
            return Err(format!("{name}: tail {} != last node {prev}", self.tail));
        }
        if len != self.len || bytes != self.bytes {
            return Err(format!(
                "{name}: walked {len} nodes / {bytes} B, recorded {} / {}",
                self.len, self.bytes
            ));
        }
        *seen += len as usize;
        Ok(())
    }
}

/// Number of objects to pre-reserve for a policy of `capacity` units that
/// tracks up to `factor` × capacity objects, assuming capacity is in objects;
/// capped so that a byte-mode capacity does not reserve gigabytes.
pub fn reserve_hint(capacity: u64, factor: u64) -> usize {
    const CAP: u64 = 1 << 16;
    capacity.saturating_mul(factor).min(CAP) as usize + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_is_24_bytes() {
        assert_eq!(std::mem::size_of::<Node>(), 24);
    }

    #[test]
    fn insert_find_remove_reuse() {
        let mut ix = Index::with_capacity(4);
        let mut l = List::default();
        for k in 0..10u64 {
            let i = ix.insert(hash_key(k), k, 1, 0);
            l.push_head(&mut ix.nodes, i);
        }
        let t = l.pop_tail(&mut ix.nodes).unwrap();
        assert_eq!(ix.nodes[t as usize].key, 0);
        ix.remove(t);
        assert_eq!(ix.find(hash_key(0), 0), None);
        let i = ix.insert(hash_key(99), 99, 1, 0);
        assert_eq!(i, t, "freed slot is reused");
        l.push_head(&mut ix.nodes, i);
        let mut seen = 0;
        l.check("l", &ix.nodes, 0, &mut seen).unwrap();
        ix.check().unwrap();
        assert_eq!(seen, ix.len());
    }
}
