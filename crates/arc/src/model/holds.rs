//! Consumers' references on ARC buffers (spec §1): a held header leaves its
//! evictable list until its last hold is released, and a consumer that keeps
//! an uncompressed copy of a compressed block charges it to the header.

use super::engine::{ArcCache, F_HELD, F_LISTED, State};

impl ArcCache {
    /// Keep a reference on `key`'s buffer (a consumer such as an open file's
    /// dnode block holds it): it leaves its evictable list until
    /// [`ArcCache::release`]. Returns false if the key is not a resident header.
    pub fn hold(&mut self, key: u64) -> bool {
        let (_, Some(i)) = self.find(key) else {
            return false;
        };
        self.hold_index(i)
    }

    /// [`ArcCache::hold`] of the header in slot `i`.
    fn hold_index(&mut self, i: u32) -> bool {
        let st = self.state_of(i);
        if st.is_ghost() || st == State::Anon {
            return false;
        }
        if self.ix.nodes[i as usize].freq & F_LISTED != 0 {
            self.unlink(i);
        }
        self.ix.nodes[i as usize].freq |= F_HELD;
        *self.holds.entry(i).or_insert(0) += 1;
        true
    }

    /// [`ArcCache::hold`] by a consumer that keeps its own uncompressed copy
    /// of a compressed block (a dbuf of an indirect block: `arc_buf_alloc_impl`
    /// decompresses into a buffer of the logical size beside the header's
    /// physical one): `extra` bytes are allocated (`arc_get_data_impl`) and
    /// charged to the header's state until [`ArcCache::release_buf`].
    ///
    /// Returns the header's slot (for [`ArcCache::buf_access_slot`]), or
    /// `None` if `key` is not a resident header.
    pub fn hold_buf(&mut self, key: u64, extra: u32) -> Option<u32> {
        let (_, Some(i)) = self.find(key) else {
            return None;
        };
        // Held first, so that the allocation's eviction cannot take it.
        if !self.hold_index(i) {
            return None;
        }
        if extra > 0 {
            self.allocate(u64::from(extra), None);
        }
        self.charge_copy(i, i64::from(extra));
        Some(i)
    }

    /// Add (or, negative, take back) `delta` bytes of a held header's
    /// uncompressed copy: its size, its state's, and `overhead_size`.
    fn charge_copy(&mut self, i: u32, delta: i64) {
        let n = &mut self.ix.nodes[i as usize];
        n.size = n.size.saturating_add_signed(delta as i32);
        let (st, ty) = ((n.tag >> 1) as usize, (n.tag & 1) as usize);
        self.sz[st][ty] = self.sz[st][ty].saturating_add_signed(delta);
        self.overhead = self.overhead.saturating_add_signed(delta);
    }

    /// Drop a hold taken by [`ArcCache::hold_buf`] with the same `extra`.
    pub fn release_buf(&mut self, key: u64, extra: u32) -> bool {
        let (_, Some(i)) = self.find(key) else {
            return false;
        };
        self.release_buf_index(i, extra)
    }

    /// [`ArcCache::release_buf`] by the slot [`ArcCache::hold_buf`] returned
    /// (no hash lookup); `key` is checked against the slot, and looked up if
    /// the slot holds something else.
    pub fn release_buf_slot(&mut self, slot: u32, key: u64, extra: u32) -> bool {
        match self.ix.nodes.get(slot as usize) {
            Some(n) if n.key == key && n.freq & F_HELD != 0 => self.release_buf_index(slot, extra),
            _ => self.release_buf(key, extra),
        }
    }

    fn release_buf_index(&mut self, i: u32, extra: u32) -> bool {
        if !self.holds.contains_key(&i) {
            return false;
        }
        let extra = extra.min(self.ix.nodes[i as usize].size.saturating_sub(1));
        self.charge_copy(i, -i64::from(extra));
        self.release_index(i)
    }

    /// Drop one reference taken by [`ArcCache::hold`]; the last one puts the
    /// header back at its list head. Returns false if `key` was not held.
    pub fn release(&mut self, key: u64) -> bool {
        let (_, Some(i)) = self.find(key) else {
            return false;
        };
        self.release_index(i)
    }

    fn release_index(&mut self, i: u32) -> bool {
        let Some(cnt) = self.holds.get_mut(&i) else {
            return false;
        };
        *cnt -= 1;
        if *cnt == 0 {
            self.holds.remove(&i);
            self.ix.nodes[i as usize].freq &= !F_HELD;
            if self.listable(i) {
                self.link(i);
            }
        }
        true
    }
}
