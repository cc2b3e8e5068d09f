//! `check_invariants`: a full O(n) audit of the engine's state (for tests).

use super::behaviour::Split;
use super::engine::{ArcCache, F_DIRTY, F_HELD, F_IO, F_LISTED, State, li, tag};
use crate::slab::TAG_FREE;

impl ArcCache {
    /// Check every structural invariant and the §6.5 accounting identities;
    /// `Err` names the first violation. O(tracked headers).
    pub fn check_invariants(&self) -> Result<(), String> {
        self.ix.check()?;
        let mut seen = 0usize;
        for st in State::ALL.into_iter().skip(1) {
            for ty in 0..2 {
                let l = li(st, ty);
                self.lists[l].check(
                    &format!("{}[{ty}]", st.name()),
                    &self.ix.nodes,
                    tag(st, ty),
                    &mut seen,
                )?;
                if self.lists[l].bytes > self.sz[st as usize][ty] {
                    return Err(format!(
                        "{} type {ty}: evictable {} > size {}",
                        st.name(),
                        self.lists[l].bytes,
                        self.sz[st as usize][ty]
                    ));
                }
            }
        }
        let mut sz = [[0u64; 2]; 6];
        let mut listed = 0usize;
        let mut anon = 0u64;
        let mut in_flight = 0usize;
        for (i, n) in self.ix.nodes.iter().enumerate() {
            if n.tag == TAG_FREE {
                continue;
            }
            let st = State::from_u8(n.tag >> 1);
            sz[st as usize][(n.tag & 1) as usize] += u64::from(n.size);
            if n.aux != self.sublist_of(n.key) {
                return Err(format!("node {i}: sublist {} is not its key's", n.aux));
            }
            let f = n.freq;
            if f & F_LISTED != 0 {
                listed += 1;
                if f & (F_IO | F_HELD) != 0 || st == State::Anon {
                    return Err(format!(
                        "node {i} ({}) is listed while in flight, held or anon",
                        st.name()
                    ));
                }
            } else if st != State::Anon && f & (F_IO | F_HELD) == 0 {
                return Err(format!(
                    "node {i} ({}) is on no list, not in flight, not held",
                    st.name()
                ));
            }
            if st == State::Anon {
                anon += 1;
                if f & F_IO != 0 {
                    return Err(format!("anon node {i} is in flight"));
                }
            }
            if st.is_ghost() && f & (F_IO | F_HELD | F_DIRTY) != 0 {
                return Err(format!("ghost node {i} has data flags {f:#x}"));
            }
            if f & F_DIRTY != 0 && st != State::Anon {
                return Err(format!("dirty node {i} is in {}", st.name()));
            }
            if f & F_IO != 0 {
                in_flight += 1;
            }
            if f & F_HELD != 0 && !self.holds.contains_key(&(i as u32)) {
                return Err(format!("held node {i} has no hold count"));
            }
        }
        if listed != seen {
            return Err(format!("{listed} nodes flagged listed, {seen} on lists"));
        }
        sz[State::Mfu as usize][1] += self.held_meta;
        if sz != self.sz {
            return Err(format!("recomputed sizes {sz:?} != kept {:?}", self.sz));
        }
        if anon != self.anon_hdrs {
            return Err(format!("{anon} anon headers, kept {}", self.anon_hdrs));
        }
        let queued = self
            .io
            .iter()
            .filter(|&&(_, i, k)| {
                let n = &self.ix.nodes[i as usize];
                n.tag != TAG_FREE && n.key == k && n.freq & F_IO != 0
            })
            .count();
        if queued < in_flight {
            return Err(format!(
                "{in_flight} headers in flight but {queued} completions queued"
            ));
        }
        if !(self.c_min <= self.c && self.c <= self.c_max) {
            return Err(format!(
                "c {} outside [c_min {}, c_max {}]",
                self.c, self.c_min, self.c_max
            ));
        }
        if self.b.split == Split::ArcP && self.p > self.c {
            return Err(format!("p {} > c {}", self.p, self.c));
        }
        for (n, v) in [("meta", self.meta), ("pd", self.pd), ("pm", self.pm)] {
            if v > 1 << 32 {
                return Err(format!("{n} = {v} > 2^32"));
            }
        }
        let s = self.stats();
        let ids = [
            (
                "size",
                s.size,
                s.data_size
                    + s.metadata_size
                    + s.hdr_size
                    + s.dbuf_size
                    + s.dnode_size
                    + s.bonus_size,
            ),
            (
                "arc_meta_used",
                s.arc_meta_used,
                s.metadata_size + s.hdr_size + s.dbuf_size + s.dnode_size + s.bonus_size,
            ),
            (
                "data+metadata",
                s.data_size + s.metadata_size,
                s.compressed_size + s.overhead_size,
            ),
            (
                "states",
                s.data_size + s.metadata_size,
                s.anon_size + s.mru_size + s.mfu_size + s.uncached_size,
            ),
            ("anon", s.anon_size, s.anon_data + s.anon_metadata),
            ("mru", s.mru_size, s.mru_data + s.mru_metadata),
            ("mfu", s.mfu_size, s.mfu_data + s.mfu_metadata),
            (
                "uncached",
                s.uncached_size,
                s.uncached_data + s.uncached_metadata,
            ),
            (
                "mru_ghost",
                s.mru_ghost_size,
                s.mru_ghost_evictable_data + s.mru_ghost_evictable_metadata,
            ),
            (
                "mfu_ghost",
                s.mfu_ghost_size,
                s.mfu_ghost_evictable_data + s.mfu_ghost_evictable_metadata,
            ),
            (
                "anon evictable",
                s.anon_evictable_data + s.anon_evictable_metadata,
                0,
            ),
        ];
        for (n, a, b) in ids {
            if a != b {
                return Err(format!("identity {n}: {a} != {b}"));
            }
        }
        Ok(())
    }
}
