//! The shared fast core of every policy: a slab of 24-byte nodes linked into
//! intrusive `u32`-indexed lists, and an open-addressing table from key to
//! slab index.
//!
//! The table holds one `u64` per bucket: the upper 32 bits of the key's hash
//! (which also choose the home bucket) and the slab index. Linear probing,
//! at most half full, with backward-shift deletion (no tombstones). A lookup
//! touches one bucket line and, when the fingerprint matches, one node: two
//! cache misses for a cold key. [`Index::prefetch_bucket`] and
//! [`Index::prefetch_node`] let a batch loop start those misses for requests
//! a few positions ahead, which is where most of the replay speed comes from
//! on caches larger than the CPU's caches.
//!
//! Nothing here allocates per request once the slab and the table have grown
//! to the steady-state number of tracked objects: freed nodes go on a free list
//! that later insertions reuse.

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
    /// Policy-specific small tag set at insertion (the ZFS model's sublist);
    /// fits in what would be padding.
    pub aux: u8,
}

/// Tag of a node on the free list.
pub const TAG_FREE: u8 = u8::MAX;

/// A [`std::hash::Hasher`] for integer ids (file ids, block keys): each
/// integer written is mixed in with [`hash_key`]. Deterministic, no seed.
#[derive(Clone, Copy, Debug, Default)]
pub struct KeyHasher(u64);

impl std::hash::Hasher for KeyHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = hash_key(self.0 ^ u64::from(b));
        }
    }
    #[inline]
    fn write_u8(&mut self, n: u8) {
        self.write_u64(u64::from(n));
    }
    #[inline]
    fn write_u16(&mut self, n: u16) {
        self.write_u64(u64::from(n));
    }
    #[inline]
    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }
    #[inline]
    fn write_u64(&mut self, x: u64) {
        self.0 = hash_key(self.0 ^ x);
    }
}

/// A (hashbrown) hash map keyed by integer ids, hashed with [`KeyHasher`].
pub type KeyMap<K, V> = hashbrown::HashMap<K, V, std::hash::BuildHasherDefault<KeyHasher>>;

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

/// An empty bucket (no valid entry has slab index `NIL`).
const EMPTY: u64 = u64::MAX;

/// Fingerprint of a hash: its upper half. Its low bits pick the home bucket.
#[inline(always)]
fn fingerprint(h: u64) -> u32 {
    (h >> 32) as u32
}

/// Hint the CPU to bring the cache line at `p` closer. Never faults.
#[inline(always)]
pub(crate) fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    {
        // The one `unsafe` in arclab. SAFETY: `_mm_prefetch` is a hint: it
        // never faults, reads nothing into the program and writes nothing,
        // whatever the address; it is `unsafe` only because it is an SSE
        // intrinsic, and SSE is part of the x86_64 baseline.
        #[allow(unsafe_code)]
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast());
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Open-addressing key → slab index table (see the module docs).
#[derive(Debug, Clone)]
struct Table {
    buckets: Vec<u64>,
    len: usize,
}

impl Default for Table {
    fn default() -> Self {
        Table::with_capacity(0)
    }
}

impl Table {
    fn with_capacity(n: usize) -> Self {
        let size = (n.max(4) * 2).next_power_of_two();
        Table {
            buckets: vec![EMPTY; size],
            len: 0,
        }
    }

    #[inline(always)]
    fn mask(&self) -> usize {
        self.buckets.len() - 1
    }

    #[inline(always)]
    fn home(&self, fp: u32) -> usize {
        fp as usize & self.mask()
    }

    #[inline(always)]
    fn find(&self, h: u64, key: u64, nodes: &[Node]) -> Option<u32> {
        let fp = fingerprint(h);
        let mask = self.mask();
        let mut i = self.home(fp);
        loop {
            let e = self.buckets[i];
            if e == EMPTY {
                return None;
            }
            if (e >> 32) as u32 == fp && nodes[e as u32 as usize].key == key {
                return Some(e as u32);
            }
            i = (i + 1) & mask;
        }
    }

    /// Insert an entry known to be absent; grows to stay at most half full.
    #[inline(always)]
    fn insert(&mut self, h: u64, idx: u32) {
        if (self.len + 1) * 2 > self.buckets.len() {
            self.grow();
        }
        self.place(((h >> 32) << 32) | u64::from(idx));
        self.len += 1;
    }

    #[inline(always)]
    fn place(&mut self, entry: u64) {
        let mask = self.mask();
        let mut i = self.home((entry >> 32) as u32);
        while self.buckets[i] != EMPTY {
            i = (i + 1) & mask;
        }
        self.buckets[i] = entry;
    }

    #[cold]
    fn grow(&mut self) {
        let size = (self.buckets.len() * 2).max(8);
        let old = std::mem::replace(&mut self.buckets, vec![EMPTY; size]);
        for e in old.into_iter().filter(|&e| e != EMPTY) {
            self.place(e);
        }
    }

    /// Remove the entry for slab index `idx` (hash `h`); false if absent.
    #[inline(always)]
    fn remove(&mut self, h: u64, idx: u32) -> bool {
        let mask = self.mask();
        let mut i = self.home(fingerprint(h));
        loop {
            let e = self.buckets[i];
            if e == EMPTY {
                return false;
            }
            if e as u32 == idx {
                break;
            }
            i = (i + 1) & mask;
        }
        // Backward-shift deletion: pull later entries of the run into the
        // hole unless their home lies cyclically in (hole, j].
        let mut hole = i;
        let mut j = i;
        loop {
            j = (j + 1) & mask;
            let e = self.buckets[j];
            if e == EMPTY {
                break;
            }
            let home = self.home((e >> 32) as u32);
            let stays = if hole <= j {
                hole < home && home <= j
            } else {
                hole < home || home <= j
            };
            if !stays {
                self.buckets[hole] = e;
                hole = j;
            }
        }
        self.buckets[hole] = EMPTY;
        self.len -= 1;
        true
    }

    fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.buckets
            .iter()
            .filter(|&&e| e != EMPTY)
            .map(|&e| e as u32)
    }
}

/// Key → slab index table plus the slab itself.
#[derive(Debug, Default)]
pub struct Index {
    table: Table,
    /// The slab; indices are stable while a node is live.
    pub nodes: Vec<Node>,
    free: u32,
    live: usize,
}

impl Index {
    /// An index with room for `n` tracked objects before it reallocates.
    pub fn with_capacity(n: usize) -> Self {
        Index {
            table: Table::with_capacity(n),
            nodes: Vec::with_capacity(n),
            free: NIL,
            live: 0,
        }
    }

    /// Slab index of `key` (whose hash is `h`), if tracked.
    #[inline(always)]
    pub fn find(&self, h: u64, key: u64) -> Option<u32> {
        self.table.find(h, key, &self.nodes)
    }

    /// A hint that `key` is about to be looked up: stage 0 starts loading its
    /// home bucket, stage 1 the node that bucket names (issue stage 0 a few
    /// requests further ahead). No effect on results.
    #[inline(always)]
    pub fn prefetch(&self, key: u64, stage: u8) {
        let h = hash_key(key);
        if stage == 0 {
            self.prefetch_bucket(h);
        } else {
            self.prefetch_node(h);
        }
    }

    /// Start loading the home bucket of hash `h` (a hint; no effect on results).
    #[inline(always)]
    pub fn prefetch_bucket(&self, h: u64) {
        let i = self.table.home(fingerprint(h));
        prefetch(self.table.buckets.as_ptr().wrapping_add(i));
    }

    /// Start loading node `i` (a hint; any index, `NIL` included, is fine).
    #[inline(always)]
    pub fn prefetch_slot(&self, i: u32) {
        prefetch(self.nodes.as_ptr().wrapping_add(i as usize));
    }

    /// Start loading the node that the home bucket of `h` names, if its
    /// fingerprint matches, else node 0 ([`Index::home_node`]; a hint, best
    /// after [`Index::prefetch_bucket`] had time to land).
    #[inline(always)]
    pub fn prefetch_node(&self, h: u64) {
        self.prefetch_slot(self.home_node(h));
    }

    /// For hints only: the node that the home bucket of `h` names if its
    /// fingerprint matches, else node 0. Without a branch: whether the
    /// bucket names the key is as unpredictable as a hit, and a hint is not
    /// worth a mispredicted branch. A key displaced from its home bucket is
    /// not found; an empty bucket has the fingerprint `u32::MAX` and names
    /// [`NIL`] (a hint takes any index).
    #[inline(always)]
    pub fn home_node(&self, h: u64) -> u32 {
        let e = self.table.buckets[self.table.home(fingerprint(h))];
        let same = u32::from((e >> 32) as u32 == fingerprint(h));
        // `e as u32` where the fingerprints match, else 0: a mask, no branch.
        e as u32 & same.wrapping_neg()
    }

    /// Eviction pipeline hint, for a list whose tail `tail` goes next; call
    /// it right after an eviction from that list. Walking a list is a chain
    /// of dependent loads, so each call reads one node that the previous
    /// call prefetched and prefetches the one after it. With `bucket` (the
    /// victims will be removed from the table) it also starts loading the
    /// home buckets of the next two victims, so a bucket has two evictions'
    /// time to arrive. No effect on results.
    #[inline(always)]
    pub fn warm_victim(&self, tail: u32, bucket: bool) {
        let Some(n1) = self.nodes.get(tail as usize) else {
            return;
        };
        if !bucket {
            prefetch(self.nodes.as_ptr().wrapping_add(n1.prev as usize));
            return;
        }
        self.prefetch_bucket(hash_key(n1.key));
        if let Some(n2) = self.nodes.get(n1.prev as usize) {
            self.prefetch_bucket(hash_key(n2.key));
            prefetch(self.nodes.as_ptr().wrapping_add(n2.prev as usize));
        }
    }

    /// Make room on a single-list policy (LRU, FIFO): while `list` holds
    /// more than `room` units, evict its tail and forget it; after any
    /// eviction, warm the next victims ([`Index::warm_victim`]).
    #[inline(always)]
    pub fn evict_tail_until(&mut self, list: &mut List, room: u64) {
        if list.bytes <= room {
            return;
        }
        while list.bytes > room {
            let t = list.pop_tail(&mut self.nodes).expect("non-empty");
            self.remove(t);
        }
        self.warm_victim(list.tail, true);
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
            aux: 0,
        };
        let idx = if self.free != NIL {
            let i = self.free;
            self.free = self.nodes[i as usize].next;
            self.nodes[i as usize] = node;
            // The next insertion reuses the next free node: start its miss.
            prefetch(self.nodes.as_ptr().wrapping_add(self.free as usize));
            i
        } else {
            let i = u32::try_from(self.nodes.len()).expect("more than 2^32-1 tracked objects");
            assert!(i != NIL, "more than 2^32-1 tracked objects");
            self.nodes.push(node);
            i
        };
        self.table.insert(h, idx);
        self.live += 1;
        idx
    }

    /// Forget node `idx` (already unlinked from its list) and recycle it.
    #[inline(always)]
    pub fn remove(&mut self, idx: u32) {
        let h = hash_key(self.nodes[idx as usize].key);
        assert!(self.table.remove(h, idx), "node {idx} is not in the table");
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
        self.table.buckets.capacity() * std::mem::size_of::<u64>()
            + self.nodes.capacity() * std::mem::size_of::<Node>()
    }

    /// Check that the table and the slab agree: every table entry names a live
    /// node with that key, the live count matches, and the free list holds
    /// exactly the other nodes.
    pub fn check(&self) -> Result<(), String> {
        if self.table.len != self.live || self.table.iter().count() != self.live {
            return Err(format!(
                "table has {} entries, live count is {}",
                self.table.len, self.live
            ));
        }
        for i in self.table.iter() {
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
        let old = self.head;
        if old == i {
            return;
        }
        // Not unlink + push_head: the length and byte sum do not change, and
        // `i` has a predecessor (it is not the head).
        let (prev, next) = (nodes[i as usize].prev, nodes[i as usize].next);
        nodes[prev as usize].next = next;
        if next != NIL {
            nodes[next as usize].prev = prev;
        } else {
            self.tail = prev;
        }
        let n = &mut nodes[i as usize];
        n.prev = NIL;
        n.next = old;
        nodes[old as usize].prev = i;
        self.head = i;
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

    #[test]
    fn home_node_names_a_key_in_its_home_bucket_and_node_0_otherwise() {
        // A 16-bucket table and keys chosen by their home bucket: `f` fills
        // node 0 elsewhere, `a` sits in its home bucket, `b` shares it and is
        // displaced to the next one, `c` is absent and its home is empty.
        let mut ix = Index::with_capacity(8);
        let home = |ix: &Index, k: u64| ix.table.home(fingerprint(hash_key(k)));
        let a = 1u64;
        let (ha, next) = (home(&ix, a), (home(&ix, a) + 1) & ix.table.mask());
        let b = (2u64..).find(|&k| home(&ix, k) == ha).unwrap();
        let f = (2u64..)
            .find(|&k| ![ha, next].contains(&home(&ix, k)))
            .unwrap();
        let hf = home(&ix, f);
        let c = (2u64..)
            .find(|&k| {
                ![ha, next, hf].contains(&home(&ix, k)) && fingerprint(hash_key(k)) != u32::MAX
            })
            .unwrap();
        let i_f = ix.insert(hash_key(f), f, 1, 0);
        let ia = ix.insert(hash_key(a), a, 1, 0);
        let ib = ix.insert(hash_key(b), b, 1, 0);
        assert_eq!(ix.table.buckets.len(), 16, "no growth");
        assert_eq!((i_f, ia, ib), (0, 1, 2));
        assert_eq!(ix.home_node(hash_key(a)), ia, "a key in its home bucket");
        assert_eq!(ix.home_node(hash_key(f)), i_f);
        // Not `a`'s node, whose bucket `b`'s home is.
        assert_eq!(ix.home_node(hash_key(b)), 0, "a displaced key");
        assert_eq!(
            ix.find(hash_key(b), b),
            Some(ib),
            "the lookup itself is exact"
        );
        assert_eq!(ix.home_node(hash_key(c)), 0, "an absent key, empty home");

        // Many keys: the hint names each key's own node or node 0, never
        // another key's (whose fingerprint differs), and both happen.
        let mut ix = Index::with_capacity(4);
        let idx: Vec<u32> = (0..3_000u64)
            .map(|k| ix.insert(hash_key(k), k, 1, 0))
            .collect();
        let (mut at_home, mut displaced) = (0, 0);
        for (k, &i) in (0..3_000u64).zip(&idx) {
            let h = hash_key(k);
            assert_eq!(ix.find(h, k), Some(i), "the lookup itself is exact");
            match ix.home_node(h) {
                n if n == i => at_home += 1,
                0 => displaced += 1,
                n => panic!("key {k} (node {i}): the hint names node {n}"),
            }
        }
        // Coverage of both cases (at 3,000 keys in 8,192 buckets), not a result.
        assert!(
            at_home > 2_000 && displaced > 100,
            "{at_home} / {displaced}"
        );
    }

    #[test]
    fn table_agrees_with_a_hash_map_under_churn() {
        // Random inserts and removes, with colliding home buckets (a tiny
        // table that grows), checked against std's HashMap after every step.
        let mut ix = Index::with_capacity(2);
        let mut model = std::collections::HashMap::new();
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for step in 0..20_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let key = x % 500;
            let h = hash_key(key);
            match model.get(&key) {
                Some(&i) if x.is_multiple_of(3) => {
                    ix.remove(i);
                    model.remove(&key);
                }
                Some(&i) => assert_eq!(ix.find(h, key), Some(i)),
                None => {
                    assert_eq!(ix.find(h, key), None);
                    model.insert(key, ix.insert(h, key, 1, 0));
                }
            }
            if step.is_multiple_of(997) {
                ix.check().unwrap();
            }
        }
        for (&k, &i) in &model {
            assert_eq!(ix.find(hash_key(k), k), Some(i));
        }
        ix.check().unwrap();
    }
}
