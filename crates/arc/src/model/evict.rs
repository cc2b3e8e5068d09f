//! Eviction: the evict thread (§6.2), `arc_evict` for 2.2+ (§6.3) and ≤ 2.1
//! (§3.6), `arc_evict_state`/`arc_evict_hdr` (§6.4), and the adaptation
//! arithmetic `arc_evict_adj` (§3.5) and `arc_p` (§3.6).

use super::behaviour::{AdjConsts, Split};
use super::engine::{
    ArcCache, DATA, F_INDIRECT, F_PREFETCH, F_PRESCIENT, META, State, li, list_of,
};
use super::multilist::{BATCH_LIMIT, MAX_SUBLISTS};
use crate::slab::NIL;

/// `highbit64(x)`: 1-based index of the highest set bit, 0 for 0.
#[inline]
pub const fn highbit64(x: u64) -> u32 {
    64 - x.leading_zeros()
}

/// `arc_evict_adj(frac, total, up, down, balance)` in u64 fixed point
/// (§3.5), with the constants of `consts`.
pub fn arc_evict_adj(
    frac: u64,
    total: u64,
    up: u64,
    down: u64,
    balance: u32,
    consts: AdjConsts,
) -> u64 {
    let (skip, cap, scale_to) = consts.numbers();
    let (mut up, mut down) = (up, down);
    if total < skip || up + down == 0 {
        return frac;
    }
    if up + down >= total / cap {
        let scale = (up + down) / (total / scale_to);
        up /= scale;
        down /= scale;
    }
    let s = (64 - highbit64(total)).min(32);
    let ofrac = (1u64 << 32) - frac;
    if frac >= 4 * ofrac {
        up /= frac / (2 * ofrac + 1);
    }
    up = (up << s) / (total >> (32 - s));
    if ofrac >= 4 * frac {
        down /= ofrac / (2 * frac + 1);
    }
    down = (down << s) / (total >> (32 - s));
    down = down * 100 / u64::from(balance.max(1));
    (frac + up).saturating_sub(down)
}

/// `arc_mf(x, multiplier, divisor)`: `x·multiplier/divisor` without overflow.
fn arc_mf(x: i64, mult: i64, div: i64) -> i64 {
    let q = x / div;
    let r = x % div;
    q * mult + r * mult / div
}

/// `p` adaptation of a ≤ 2.1 ghost hit (`arc_adapt`, §3.6), returning the new `p`.
/// `g`: 0 = MRU ghost, 1 = MFU ghost; sizes are the ghost lists' byte sizes.
#[allow(clippy::too_many_arguments)] // the kernel's inputs, one by one
pub fn adapt_p_value(
    p: u64,
    c: u64,
    bytes: u64,
    g: usize,
    mrug: u64,
    mfug: u64,
    p_min_shift: u32,
    dampener_disable: bool,
) -> u64 {
    let p_min = c >> p_min_shift;
    let cap = |m: u64| if dampener_disable { m } else { m.min(10) };
    if g == 0 {
        let mult = cap(if mrug >= mfug { 1 } else { mfug / mrug.max(1) });
        (p + bytes * mult).min(c.saturating_sub(p_min))
    } else {
        let mult = cap(if mfug >= mrug { 1 } else { mrug / mfug.max(1) });
        let delta = (bytes * mult).min(p);
        (p - delta).max(p_min)
    }
}

impl ArcCache {
    /// ≤ 2.1 `arc_adapt(bytes, ghost state)`: `p` then growth.
    pub(super) fn adapt_p(&mut self, bytes: u64, g: usize) {
        let mrug = self.sz[2][0] + self.sz[2][1];
        let mfug = self.sz[4][0] + self.sz[4][1];
        self.p = adapt_p_value(
            self.p,
            self.c,
            bytes,
            g,
            mrug,
            mfug,
            self.t.p_min_shift,
            self.t.p_dampener_disable,
        );
        self.grow(bytes, false);
    }

    /// The evict zthr: flush uncached, run `arc_evict` while needed (§6.2).
    pub(super) fn run_evict_thread(&mut self) {
        let mut guard = 0u32;
        while self.evict_needed {
            // arc_evict starts from aggsum_value(arcstat_size).
            self.size_sum_read();
            let mut evicted = self.flush_uncached();
            evicted += match self.b.split {
                Split::MetaPdPm => self.arc_evict(),
                Split::ArcP => self.arc_evict_legacy(),
            };
            self.s.model_evict_runs += 1;
            self.evict_needed = evicted > 0 && self.size() > self.c;
            guard += 1;
            if guard > 1_000_000 {
                break;
            }
        }
    }

    /// Flush the evictable `uncached` headers (each still subject to the
    /// prefetch lifetime).
    pub(super) fn flush_uncached(&mut self) -> u64 {
        let l0 = li(State::Uncached, DATA);
        let l1 = li(State::Uncached, META);
        if self.lists[l0].len + self.lists[l1].len == 0 {
            return 0;
        }
        self.last_uncached_flush = self.tick;
        let a = self.evict_state(State::Uncached, DATA, u64::MAX as i64 >> 1);
        a + self.evict_state(State::Uncached, META, u64::MAX as i64 >> 1)
    }

    /// `arc_evict_impl`: evict up to `bytes` (if > 0) from (state, type).
    pub(super) fn evict_state(&mut self, st: State, ty: usize, bytes: i64) -> u64 {
        let l = li(st, ty);
        let es = self.lists[l].bytes;
        if bytes <= 0 || es == 0 {
            return 0;
        }
        let goal = es.min(bytes as u64);
        // One walk for the ghost lists and one for the others, so that each
        // header's eviction is decided at compile time, not per header.
        let done = if st.is_ghost() {
            self.evict_walk::<true>(l, st, goal)
        } else {
            self.evict_walk::<false>(l, st, goal)
        };
        if done < goal {
            self.s.evict_not_enough += 1;
        }
        done
    }

    /// Evict `goal` bytes from list `l` of state `st` (a ghost state iff
    /// `GHOST`): from the tail of a single list, or over its sublists.
    fn evict_walk<const GHOST: bool>(&mut self, l: usize, st: State, goal: u64) -> u64 {
        debug_assert_eq!(GHOST, st.is_ghost());
        let n = self.lists[l].sub.len();
        if n == 1 {
            let mut done = 0u64;
            let mut i = self.lists[l].tail(0);
            while i != NIL && done < goal {
                let prev = self.ix.nodes[i as usize].prev;
                done += self.evict_hdr::<GHOST>(i, st);
                i = prev;
            }
            done
        } else {
            self.evict_sublists::<GHOST>(l, st, n, goal)
        }
    }

    /// `arc_evict_state` over `n` sublists (§6.4): from a random sublist,
    /// each in turn gives up to [`BATCH_LIMIT`] headers from where the last
    /// visit stopped (its marker), until `goal` bytes are evicted or a full
    /// round evicts nothing.
    fn evict_sublists<const GHOST: bool>(
        &mut self,
        l: usize,
        st: State,
        n: usize,
        goal: u64,
    ) -> u64 {
        // Markers: where each sublist's next visit starts (its tail at first);
        // on the stack for up to 16 sublists (this runs for every eviction).
        let mut small = [NIL; 16];
        let mut big = Vec::new();
        let marker: &mut [u32] = if n <= small.len() {
            &mut small[..n]
        } else {
            big.resize(n.min(MAX_SUBLISTS), NIL);
            &mut big
        };
        for (s, m) in marker.iter_mut().enumerate() {
            *m = self.lists[l].tail(s);
        }
        // A walk ahead of the eviction (a memory hint, no effect on results):
        // while one sublist is evicted, the chain of nodes of the sublist
        // visited after it is loaded alongside from its marker, a node per
        // header visited, up to a batch and a little beyond, so that two
        // chains of dependent loads are in flight instead of one. (Two or
        // three sublists walked at once measured no better: docs/bench.md.)
        const STEPS: u32 = BATCH_LIMIT + 2;
        let mut done = 0u64;
        let mut rounds = 0u64;
        while done < goal {
            let mut round = 0u64;
            let start = self.random_index(l, rounds);
            rounds += 1;
            for k in 0..n {
                if done >= goal {
                    break;
                }
                let s = (start + k) % n;
                let mut ahead = marker[(s + 1) % n];
                let mut steps = STEPS;
                let mut i = marker[s];
                let mut batch = BATCH_LIMIT;
                while i != NIL && batch > 0 && done < goal {
                    let prev = self.ix.nodes[i as usize].prev;
                    if steps > 0 {
                        steps -= 1;
                        ahead = self.warm_ahead(ahead, GHOST);
                    }
                    let e = self.evict_hdr::<GHOST>(i, st);
                    if e > 0 {
                        batch -= 1;
                    }
                    done += e;
                    round += e;
                    i = prev;
                }
                marker[s] = i;
            }
            if round == 0 {
                break;
            }
        }
        done
    }

    /// `arc_evict_hdr`: returns the bytes evicted (lsize for ghosts);
    /// `GHOST`: whether `st` is a ghost state.
    #[inline(always)]
    fn evict_hdr<const GHOST: bool>(&mut self, i: u32, st: State) -> u64 {
        let n = self.ix.nodes[i as usize];
        let size = u64::from(n.size);
        debug_assert_eq!(n.tag >> 1, st as u8);
        let (l, s) = (list_of(n.tag), usize::from(n.aux));
        if GHOST {
            self.s.deleted += 1;
            self.destroy(i);
            self.warm_tail(l, s, true);
            return size;
        }
        if n.freq & (F_PREFETCH | F_INDIRECT) != 0 {
            let life = if n.freq & F_PRESCIENT != 0 {
                self.min_presc_ticks
            } else {
                self.min_pf_ticks
            };
            if self.tick.wrapping_sub(self.atime[i as usize]) < life {
                self.s.evict_skip += 1;
                return 0;
            }
        }
        if n.freq & F_PREFETCH != 0 {
            self.s.evict_l2_ineligible += size;
        } else {
            self.s.evict_l2_eligible += size;
            match st {
                State::Mru => self.s.evict_l2_eligible_mru += size,
                State::Mfu => self.s.evict_l2_eligible_mfu += size,
                _ => {}
            }
        }
        self.s.model_evicted_bytes += size;
        match st {
            State::Uncached => self.destroy(i),
            State::Mru => self.change_state(i, State::MruGhost),
            _ => self.change_state(i, State::MfuGhost),
        }
        self.warm_tail(l, s, false);
        size
    }

    /// `arc_evict()` of 2.2+ (§6.3), returning non-ghost bytes evicted.
    pub(super) fn arc_evict(&mut self) -> u64 {
        let sz = self.sz;
        let mut mrud = (sz[1][DATA] + sz[0][DATA]) as i64;
        let mut mrum = (sz[1][META] + sz[0][META]) as i64;
        let mut mfud = sz[3][DATA] as i64;
        let mut mfum = sz[3][META] as i64;
        let m = mrum + mfum;
        let t = mrud + mrum + mfud + mfum;
        let ng = [
            self.ghost_hits[0][DATA],
            self.ghost_hits[0][META],
            self.ghost_hits[1][DATA],
            self.ghost_hits[1][META],
        ];
        let [grd, grm, gfd, gfm] = [
            ng[0] - self.og[0],
            ng[1] - self.og[1],
            ng[2] - self.og[2],
            ng[3] - self.og[3],
        ];
        self.og = ng;
        let [gsrd, gsrm, gsfd, gsfm] = self.gs;
        let k = self.b.adj;
        self.meta = arc_evict_adj(
            self.meta,
            gsrd + gsrm + gsfd + gsfm,
            grm + gfm,
            grd + gfd,
            self.t.meta_balance,
            k,
        );
        self.pd = arc_evict_adj(self.pd, gsrd + gsfd, grd, gfd, 100, k);
        self.pm = arc_evict_adj(self.pm, gsrm + gsfm, grm, gfm, 100, k);

        let mut asize = self.size() as i64;
        let ac = self.c as i64;
        let mut wt = t - (asize - ac);

        // Dnode pruning (step 1).
        let dn = self.dnode as i64;
        let nem = (sz[1][META] + sz[3][META]) as i64
            - (self.lists[li(State::Mru, META)].bytes + self.lists[li(State::Mfu, META)].bytes)
                as i64;
        let w = (wt * (self.meta >> 16) as i64) >> 16;
        let per = self.t.dnode_struct_bytes.max(1) as i64;
        let red = self.t.dnode_reduce_percent as i64;
        let mut prune = 0i64;
        let over_limit = dn > self.dnode_limit as i64;
        if nem > w * 3 / 4 {
            prune = dn / per * red / 100;
            if self.b.dnode_prune_rework && nem < w && w > 4 {
                prune = arc_mf(prune, nem - w * 3 / 4, w / 4);
            }
            if self.b.dnode_prune_rework && over_limit {
                prune = prune.max((dn - self.dnode_limit as i64) / per * red / 100);
            }
        } else if over_limit {
            prune = (dn - self.dnode_limit as i64) / per * red / 100;
        }
        if prune > 0 {
            self.s.arc_prune += 1;
            self.s.model_prune_dnodes += prune as u64;
        }

        let mut total = 0u64;
        // Step 2: MRU metadata.
        let w = (wt * (self.meta.wrapping_mul(self.pm) >> 48) as i64) >> 16;
        let e = (asize - ac).min(mrum - w);
        let b1 = self.evict_state(State::Mru, META, e);
        total += b1;
        mrum -= b1 as i64;
        asize -= b1 as i64;
        // Step 3: MFU metadata.
        let w = (wt * (self.meta >> 16) as i64) >> 16;
        let rest = if self.b.mfu_meta_fix {
            m - b1 as i64 - w
        } else {
            m - w
        };
        let e = (asize - ac).min(rest);
        let b2 = self.evict_state(State::Mfu, META, e);
        total += b2;
        mfum -= b2 as i64;
        asize -= b2 as i64;
        // Step 4: MRU data.
        wt -= m - total as i64;
        let w = (wt * (self.pd >> 16) as i64) >> 16;
        let e = (asize - ac).min(mrud - w);
        let b3 = self.evict_state(State::Mru, DATA, e);
        total += b3;
        mrud -= b3 as i64;
        asize -= b3 as i64;
        // Step 5: MFU data.
        let b4 = self.evict_state(State::Mfu, DATA, asize - ac);
        total += b4;
        mfud -= b4 as i64;
        // Step 6: ghost trimming and the targets for the next adaptation.
        let gsrd = ((mrum + mfud + mfum) / 2).max(0) as u64;
        let gsrm = ((mrud + mfud + mfum) / 2).max(0) as u64;
        let gsfd = ((mrud + mrum + mfum) / 2).max(0) as u64;
        let gsfm = ((mrud + mrum + mfud) / 2).max(0) as u64;
        self.gs = [gsrd, gsrm, gsfd, gsfm];
        for (st, ty, tgt) in [
            (State::MruGhost, DATA, gsrd),
            (State::MruGhost, META, gsrm),
            (State::MfuGhost, DATA, gsfd),
            (State::MfuGhost, META, gsfm),
        ] {
            let e = self.sz[st as usize][ty] as i64 - tgt as i64;
            self.evict_state(st, ty, e);
        }
        total
    }

    /// `arc_evict_type`: the type whose tail is older, comparing a random
    /// sublist of each (data on ties of absence).
    fn evict_type(&self, st: State) -> usize {
        let (ld, lm) = (li(st, DATA), li(st, META));
        let (sd, sm) = (self.random_index(ld, 0), self.random_index(lm, 0));
        match (self.tail(ld, sd), self.tail(lm, sm)) {
            (None, None) | (Some(_), None) => DATA,
            (None, Some(_)) => META,
            (Some(d), Some(m)) => {
                let (ad, am) = (self.atime[d as usize], self.atime[m as usize]);
                if (ad.wrapping_sub(am) as i32) < 0 {
                    DATA
                } else {
                    META
                }
            }
        }
    }

    /// `arc_meta_used`.
    pub(super) fn meta_used(&self) -> u64 {
        self.sz[0][META]
            + self.sz[1][META]
            + self.sz[3][META]
            + self.sz[5][META]
            + self.hdr_size()
            + self.dbuf
            + self.dnode
            + self.bonus
    }

    fn evict_state_pair(&mut self, st: State, target: i64, meta_ok: bool) -> u64 {
        let first = if self.evict_type(st) == META && meta_ok {
            META
        } else {
            DATA
        };
        let a = self.evict_state(st, first, target);
        a + self.evict_state(st, 1 - first, target - a as i64)
    }

    /// `arc_evict()` of ≤ 2.1 (`arc_adjust` in 0.x), §3.6. The metadata-limit
    /// pass is the `meta_only` strategy (simplification, see docs/model.md).
    pub(super) fn arc_evict_legacy(&mut self) -> u64 {
        let mut total = 0u64;
        let st_total = |a: &Self, s: usize| (a.sz[s][0] + a.sz[s][1]) as i64;
        let p = self.p as i64;
        let c = self.c as i64;
        let ameta = self.meta_used() as i64;
        let over = ameta - self.meta_limit as i64;
        if over > 0 {
            let e = over.min(st_total(self, 0) + st_total(self, 1) - p);
            total += self.evict_state(State::Mru, META, e);
            let e = over.min(st_total(self, 3) - (c - p));
            total += self.evict_state(State::Mfu, META, e);
        }
        let asize = self.size() as i64;
        let ameta = self.meta_used() as i64;
        let target = (asize - c).min(st_total(self, 0) + st_total(self, 1) + ameta - p);
        let meta_ok = ameta > self.t.meta_min as i64;
        total += self.evict_state_pair(State::Mru, target, meta_ok);
        let asize = self.size() as i64;
        let meta_ok = self.meta_used() as i64 > self.t.meta_min as i64;
        total += self.evict_state_pair(State::Mfu, asize - c, meta_ok);
        let target = st_total(self, 1) + st_total(self, 2) - c;
        let a = self.evict_state(State::MruGhost, DATA, target);
        self.evict_state(State::MruGhost, META, target - a as i64);
        let target = st_total(self, 2) + st_total(self, 4) - c;
        let a = self.evict_state(State::MfuGhost, DATA, target);
        self.evict_state(State::MfuGhost, META, target - a as i64);
        total
    }
}
