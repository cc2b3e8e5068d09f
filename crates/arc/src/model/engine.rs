//! The engine's state: headers in the shared slab, per-(state, type) sizes and
//! evictable lists, targets, and the low-level list/state operations (spec §1).

use std::collections::VecDeque;

use super::behaviour::{Behaviour, Split};
use super::config::{ArcConfig, HostConfig, Tunables};
use super::multilist::MultiList;
use super::stats::Counters;
use crate::limits::{LimitsInput, Os, limits_for_release};
use crate::slab::{Index, KeyMap, NIL, hash_key};

/// An ARC state (spec §1; `l2c_only` is not modelled).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[repr(u8)]
pub enum State {
    /// Dirty / unwritten buffers (no DVA, not in the hash table).
    Anon = 0,
    /// Seen once recently (T1).
    Mru = 1,
    /// Evicted from MRU (B1), header only.
    MruGhost = 2,
    /// Seen at least twice (T2).
    Mfu = 3,
    /// Evicted from MFU (B2), header only.
    MfuGhost = 4,
    /// Read uncached (2.2+), dropped as soon as possible.
    Uncached = 5,
}

impl State {
    /// All states in kstat order.
    pub const ALL: [State; 6] = [
        State::Anon,
        State::Mru,
        State::MruGhost,
        State::Mfu,
        State::MfuGhost,
        State::Uncached,
    ];

    /// `GHOST_STATE()`.
    pub const fn is_ghost(self) -> bool {
        matches!(self, State::MruGhost | State::MfuGhost)
    }

    pub(super) const fn from_u8(v: u8) -> State {
        match v {
            0 => State::Anon,
            1 => State::Mru,
            2 => State::MruGhost,
            3 => State::Mfu,
            4 => State::MfuGhost,
            _ => State::Uncached,
        }
    }

    /// Name as in arcstats (`anon`, `mru`, `mru_ghost`, …).
    pub const fn name(self) -> &'static str {
        match self {
            State::Anon => "anon",
            State::Mru => "mru",
            State::MruGhost => "mru_ghost",
            State::Mfu => "mfu",
            State::MfuGhost => "mfu_ghost",
            State::Uncached => "uncached",
        }
    }
}

/// Content type index: data.
pub(super) const DATA: usize = 0;
/// Content type index: metadata.
pub(super) const META: usize = 1;

// Header flags kept in `Node::freq`.
pub(super) const F_PREFETCH: u8 = 1;
pub(super) const F_PRESCIENT: u8 = 2;
pub(super) const F_INDIRECT: u8 = 4;
pub(super) const F_IO: u8 = 8;
pub(super) const F_LISTED: u8 = 16;
pub(super) const F_HELD: u8 = 32;
pub(super) const F_UNCACHED: u8 = 64;
/// `ARC_FLAG_PREDICTIVE_PREFETCH` (≤ 2.1 only, where no header is uncached:
/// shares the bit of [`F_UNCACHED`]).
pub(super) const F_PREDICTIVE: u8 = F_UNCACHED;
pub(super) const F_DIRTY: u8 = 128;

/// Index of the evictable list of (state, type); anon has none.
#[inline(always)]
pub(super) const fn li(state: State, ty: usize) -> usize {
    list_of(tag(state, ty))
}

/// Index of the evictable list of a header with node tag `tag` (see
/// [`tag`]): the lists go mru data, mru metadata, mru ghost data, … in
/// state order, so it is the tag less anon's two.
#[inline(always)]
pub(super) const fn list_of(tag: u8) -> usize {
    tag as usize - 2
}

/// Node tag = `state << 1 | type`.
#[inline(always)]
pub(super) const fn tag(state: State, ty: usize) -> u8 {
    ((state as u8) << 1) | ty as u8
}

/// The OpenZFS ARC engine (see the module documentation).
#[derive(Debug)]
pub struct ArcCache {
    pub(super) b: Behaviour,
    pub(super) t: Tunables,
    pub(super) os: Os,
    pub(super) host: HostConfig,
    pub(super) ix: Index,
    /// `b_arc_access` in ticks (wrapping u32, compared like `ddi_time_after`).
    pub(super) atime: Vec<u32>,
    /// The evictable lists, (state, type) by [`li`], each of
    /// `multilist_sublists` sublists.
    pub(super) lists: [MultiList; 10],
    /// `arcs_size[type]` per state (ghosts: logical bytes).
    pub(super) sz: [[u64; 2]; 6],
    pub(super) anon_hdrs: u64,
    /// Cumulative ghost-hit bytes `arcs_hits[type]` of mru_ghost, mfu_ghost.
    pub(super) ghost_hits: [[u64; 2]; 2],
    /// Ghost-hit bytes already consumed by adaptation (grd, grm, gfd, gfm).
    pub(super) og: [u64; 4],
    /// Mixed into every header's key before its sublist is taken, as arc.c
    /// mixes the pool's `spa_load_guid` (new at every import) into
    /// `buf_hash`: `hash_key(sublist_seed)`, 0 for seed 0.
    pub(super) sublist_salt: u64,
    /// Ghost targets of the previous `arc_evict` (gsrd, gsrm, gsfd, gsfm).
    pub(super) gs: [u64; 4],
    pub(super) c: u64,
    pub(super) c_min: u64,
    pub(super) c_max: u64,
    pub(super) p: u64,
    pub(super) meta: u64,
    pub(super) pd: u64,
    pub(super) pm: u64,
    pub(super) meta_limit: u64,
    pub(super) dnode_limit: u64,
    pub(super) allmem: u64,
    pub(super) sys_free: u64,
    /// A memory page as the shrinker counts it (4 KiB; scaled in a miniature).
    pub(super) page_bytes: u64,
    /// `arc_adapt`'s growth margin: `c` grows while `size` is within it (32 MiB;
    /// scaled in a miniature).
    pub(super) grow_margin: u64,
    pub(super) no_grow: bool,
    pub(super) warm: bool,
    pub(super) growtime_ns: u64,
    pub(super) evict_needed: bool,
    /// When a deferred evict-thread burst is due (`Tunables::evict_delay_ns`);
    /// `u64::MAX`: none pending.
    pub(super) evict_due: u64,
    /// `arcstat_size`'s aggsum as the overflow check reads it (§6.1, one
    /// bucket): the committed lower bound, the bucket's borrow (0: just
    /// read exactly, so the bound is the size), and the last buffer added
    /// since the previous check (settled at the next one).
    pub(super) sum_lower: u64,
    pub(super) sum_borrowed: u64,
    pub(super) sum_pending: u64,
    /// The miniature's scale for a borrow (1 at full size).
    pub(super) sum_scale: f64,
    pub(super) dnode: u64,
    pub(super) dbuf: u64,
    pub(super) bonus: u64,
    /// Metadata buffers held by dbufs the model does not track (the dnode
    /// blocks of cached dnodes): in `sz[Mfu][META]`, on no list.
    pub(super) held_meta: u64,
    pub(super) other_demand: u64,
    pub(super) now: u64,
    pub(super) tick: u32,
    pub(super) ns_per_tick: u64,
    /// The model times `[from, to)` of `tick` (empty: none known), so that
    /// setting the clock within the same tick costs no division.
    tick_span: (u64, u64),
    pub(super) mintime: u32,
    pub(super) min_pf_ticks: u32,
    pub(super) min_presc_ticks: u32,
    pub(super) next_event: u64,
    pub(super) next_second: u64,
    pub(super) next_txg: u64,
    pub(super) next_reclaim: u64,
    pub(super) last_integrate: u64,
    pub(super) last_uncached_flush: u32,
    pub(super) shrink_priority: u32,
    /// Reads in flight: (completion time, slab index, key), in time order.
    pub(super) io: VecDeque<(u64, u32, u64)>,
    /// Dirty buffers of the open txg: (slab index, key).
    pub(super) dirty: Vec<(u32, u64)>,
    pub(super) holds: KeyMap<u32, u32>,
    /// Bytes of consumers' uncompressed copies charged by
    /// [`ArcCache::hold_buf`] (`overhead_size`).
    pub(super) overhead: u64,
    pub(super) s: Counters,
    pub(super) hash_max: u64,
    pub(super) need_free: u64,
    /// Whether idle stretches are jumped (off: every event is stepped).
    pub(super) idle_jump: bool,
    /// The period idle jumps work in (0: never jump).
    pub(super) cycle_ns: u64,
    /// Timed-event instants processed (`run_due` calls).
    pub(super) periodic_runs: u64,
    /// Idle jumps taken.
    pub(super) idle_jumps: u64,
}

/// Headers to reserve room for at first. The kernel sizes its hash table
/// from physical memory (`buf_init`), but the model's table only has to hold
/// the headers the trace creates: it starts small and doubles as they come,
/// so memory follows the trace, not the RAM or the cap the user gives.
const HASH_RESERVE: usize = 1 << 10;

impl ArcCache {
    /// Build the engine: limits from [`mod@crate::limits`], `c` at `c_min` (2.0+)
    /// or `c_max` (0.x), `p = c/2`, `meta = 1/4`, `pd = pm = 1/2` (§3).
    pub fn new(cfg: ArcConfig) -> ArcCache {
        // A miniature takes the full-size host's limits, scaled (`Miniature`).
        let (ram_bytes, arc_max, arc_min) = match &cfg.miniature {
            Some(m) => (m.ram_bytes, m.arc_max, m.arc_min),
            None => (cfg.ram_bytes, cfg.arc_max, cfg.arc_min),
        };
        let mut l = limits_for_release(
            LimitsInput {
                ram_bytes,
                os: cfg.os,
                version: cfg.behaviour.limits,
                arc_max,
                arc_min,
                linux_before_5_7: false,
            },
            cfg.behaviour.release,
        );
        let mini = |b: u64| match &cfg.miniature {
            Some(m) => m.scale(b, cfg.ram_bytes),
            None => b,
        };
        for b in [
            &mut l.allmem_bytes,
            &mut l.c_min_bytes,
            &mut l.c_max_bytes,
            &mut l.sys_free_bytes,
        ] {
            *b = mini(*b);
        }
        l.meta_limit_bytes = l.meta_limit_bytes.map(mini);
        l.dnode_limit_bytes = l.dnode_limit_bytes.map(mini);
        let (mut c_min, mut c_max) = (l.c_min_bytes, l.c_max_bytes);
        if let Some(fc) = cfg.fixed_c {
            c_min = fc;
            c_max = fc;
        }
        let c = if cfg.behaviour.c_starts_at_min {
            c_min
        } else {
            c_max
        };
        let t = cfg.tunables;
        let hz = t.hz.max(1);
        let ns_per_tick = if 1_000_000_000 % u64::from(hz) == 0 {
            1_000_000_000 / u64::from(hz)
        } else {
            0
        };
        let ms_ticks = |ms: u64| u32::try_from(ms * u64::from(hz) / 1000).unwrap_or(u32::MAX);
        let meta_limit = l.meta_limit_bytes.unwrap_or(c_max);
        let dnode_limit = if cfg.behaviour.split == Split::MetaPdPm {
            c_max / 100 * t.dnode_limit_percent.min(100)
                + c_max % 100 * t.dnode_limit_percent.min(100) / 100
        } else {
            l.dnode_limit_bytes.unwrap_or(meta_limit / 10)
        };
        let reclaim = t.reclaim_period_ms.max(1) * 1_000_000;
        let mut a = ArcCache {
            mintime: if t.promotion_window {
                Behaviour::mintime_ticks(hz)
            } else {
                0
            },
            min_pf_ticks: ms_ticks(t.min_prefetch_ms),
            min_presc_ticks: ms_ticks(t.min_prescient_prefetch_ms),
            b: cfg.behaviour,
            os: cfg.os,
            host: cfg.host,
            ix: Index::with_capacity(HASH_RESERVE),
            atime: Vec::with_capacity(HASH_RESERVE),
            lists: std::array::from_fn(|_| MultiList::new(t.multilist_sublists as usize)),
            sz: [[0; 2]; 6],
            anon_hdrs: 0,
            ghost_hits: [[0; 2]; 2],
            og: [0; 4],
            sublist_salt: hash_key(t.sublist_seed),
            gs: [0; 4],
            c,
            c_min,
            c_max,
            p: c / 2,
            meta: 1 << 30,
            pd: 1 << 31,
            pm: 1 << 31,
            meta_limit,
            dnode_limit,
            allmem: l.allmem_bytes,
            sys_free: l.sys_free_bytes,
            page_bytes: mini(4096).max(1),
            grow_margin: mini(32 << 20),
            no_grow: false,
            warm: false,
            growtime_ns: 0,
            evict_needed: false,
            evict_due: u64::MAX,
            sum_lower: 0,
            sum_borrowed: 0,
            sum_pending: 0,
            sum_scale: mini(1 << 30) as f64 / (1u64 << 30) as f64,
            dnode: 0,
            dbuf: 0,
            bonus: 0,
            held_meta: 0,
            other_demand: 0,
            now: 0,
            tick: 0,
            ns_per_tick,
            tick_span: (1, 0),
            next_event: 0,
            next_second: 1_000_000_000,
            next_txg: t.txg_timeout_s.max(1) * 1_000_000_000,
            next_reclaim: reclaim,
            last_integrate: 0,
            last_uncached_flush: 0,
            shrink_priority: 12,
            io: VecDeque::with_capacity(256),
            dirty: Vec::with_capacity(256),
            holds: KeyMap::default(),
            overhead: 0,
            s: Counters::default(),
            hash_max: 0,
            need_free: 0,
            idle_jump: true,
            cycle_ns: super::host::idle_cycle_ns(t.reclaim_period_ms),
            periodic_runs: 0,
            idle_jumps: 0,
            t,
        };
        a.next_event = a.next_second.min(a.next_txg).min(a.next_reclaim);
        a
    }

    /// The behaviour in use.
    pub fn behaviour(&self) -> &Behaviour {
        &self.b
    }

    /// The tunables in use.
    pub fn tunables(&self) -> &Tunables {
        &self.t
    }

    /// The model clock (ns).
    pub fn now_ns(&self) -> u64 {
        self.now
    }

    /// Jump idle stretches (the default) or, with `false`, step through
    /// every timed event as a reference; both give the same results.
    pub fn set_idle_jump(&mut self, on: bool) {
        self.idle_jump = on;
    }

    /// Timed-event instants the clock has processed so far (a measure of the
    /// periodic work done, not of the model's time).
    pub fn periodic_runs(&self) -> u64 {
        self.periodic_runs
    }

    /// Idle stretches jumped at once so far.
    pub fn idle_jumps(&self) -> u64 {
        self.idle_jumps
    }

    /// Heap bytes the model holds: the header table and slab (resident and
    /// ghost headers), the per-header access ticks, the I/O and dirty queues
    /// and the held-buffer map (its entries at their payload size).
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        self.ix.heap_bytes()
            + self.atime.capacity() * size_of::<u32>()
            + self.io.capacity() * size_of::<(u64, u32, u64)>()
            + self.dirty.capacity() * size_of::<(u32, u64)>()
            + self.holds.capacity() * size_of::<(u32, u32)>()
    }

    /// Current target `c`.
    pub fn c(&self) -> u64 {
        self.c
    }

    /// A hint that `key` is about to be accessed: stage 0 starts loading its
    /// hash bucket, stage 1 the header it names, stage 2 (once both have
    /// arrived) the headers beside it on its list, which a hit relinks, and
    /// its access time. Issue the stages a few requests apart, 0 first.
    /// Never changes a result. `h` is the key's [`hash_key`], computed once
    /// for all three stages. Stage 2 takes the header its home bucket names
    /// ([`Index::home_node`]) rather than looking the key up, whose branches
    /// would mispredict as often as the lookup that follows.
    #[inline(always)]
    pub fn prefetch_hashed(&self, h: u64, stage: u8) {
        if stage == 0 {
            self.ix.prefetch_bucket(h);
        } else if stage == 1 {
            self.ix.prefetch_node(h);
        } else {
            let i = self.ix.home_node(h);
            let Some(n) = self.ix.nodes.get(i as usize) else {
                return;
            };
            self.ix.prefetch_slot(n.prev);
            self.ix.prefetch_slot(n.next);
            crate::slab::prefetch(self.atime.as_ptr().wrapping_add(i as usize));
        }
    }

    /// Current `size` (the §6.5 identity: buffers + headers + dbuf/dnode/bonus).
    #[inline]
    pub fn size(&self) -> u64 {
        self.buffers() + self.hdr_size() + self.dbuf + self.dnode + self.bonus
    }

    /// Data + metadata bytes of the four non-ghost states.
    #[inline(always)]
    pub(super) fn buffers(&self) -> u64 {
        let s = &self.sz;
        s[0][0] + s[0][1] + s[1][0] + s[1][1] + s[3][0] + s[3][1] + s[5][0] + s[5][1]
    }

    #[inline(always)]
    pub(super) fn hdr_size(&self) -> u64 {
        self.ix.len() as u64 * self.t.hdr_bytes
    }

    /// Set `tick` to the tick of model time `ns` (wrapping u32), dividing
    /// only when `ns` leaves the current tick's span.
    #[inline(always)]
    pub(super) fn set_tick(&mut self, ns: u64) {
        let (from, to) = self.tick_span;
        if ns >= from && ns < to {
            return;
        }
        (self.tick, self.tick_span) = match ns.checked_div(self.ns_per_tick) {
            Some(q) => {
                let from = q * self.ns_per_tick;
                (q as u32, (from, from.saturating_add(self.ns_per_tick)))
            }
            // Ticks of unequal lengths: no span, divide every time.
            None => (
                (u128::from(ns) * u128::from(self.t.hz) / 1_000_000_000) as u32,
                (1, 0),
            ),
        };
    }

    /// Block type of a new header for `key` of request kind `meta`.
    #[inline(always)]
    pub(super) fn type_of(&self, key: u64, meta: bool) -> (usize, u8) {
        let indirect = self.t.keys_encode_level && crate::key_level(key) > 0;
        let ty = if meta || indirect { META } else { DATA };
        (ty, if indirect { F_INDIRECT } else { 0 })
    }

    #[inline(always)]
    pub(super) fn state_of(&self, i: u32) -> State {
        State::from_u8(self.ix.nodes[i as usize].tag >> 1)
    }

    /// Put an unlisted header on its state's list head (remove_reference → 0).
    #[inline(always)]
    pub(super) fn link(&mut self, i: u32) {
        let n = &mut self.ix.nodes[i as usize];
        debug_assert!(n.freq & F_LISTED == 0 && n.tag >> 1 != 0);
        n.freq |= F_LISTED;
        let l = list_of(n.tag);
        self.lists[l].push_head(&mut self.ix.nodes, i);
    }

    /// Take a listed header off its list (add_reference 0 → 1, or state change).
    #[inline(always)]
    pub(super) fn unlink(&mut self, i: u32) {
        let n = &mut self.ix.nodes[i as usize];
        debug_assert!(n.freq & F_LISTED != 0);
        n.freq &= !F_LISTED;
        let l = list_of(n.tag);
        self.lists[l].unlink(&mut self.ix.nodes, i);
    }

    /// Whether a header may sit on a list (no reference, no I/O, not anon).
    #[inline(always)]
    pub(super) fn listable(&self, i: u32) -> bool {
        let n = &self.ix.nodes[i as usize];
        n.freq & (F_IO | F_HELD) == 0 && n.tag >> 1 != 0
    }

    /// `arc_change_state`: move sizes, re-list at the new head when unreferenced.
    #[inline(always)]
    pub(super) fn change_state(&mut self, i: u32, to: State) {
        let n = self.ix.nodes[i as usize];
        if n.freq & F_LISTED != 0 {
            self.unlink(i);
        }
        let ty = (n.tag & 1) as usize;
        let from = (n.tag >> 1) as usize;
        self.sz[from][ty] -= u64::from(n.size);
        self.sz[to as usize][ty] += u64::from(n.size);
        if from == 0 {
            self.anon_hdrs -= 1;
        }
        if to == State::Anon {
            self.anon_hdrs += 1;
        }
        self.ix.nodes[i as usize].tag = tag(to, ty);
        if self.listable(i) {
            self.link(i);
        }
    }

    /// Create a header for `key` in `state` (sizes accounted), unlisted.
    #[inline(always)]
    pub(super) fn create(
        &mut self,
        h: u64,
        key: u64,
        size: u32,
        state: State,
        ty: usize,
        flags: u8,
    ) -> u32 {
        let i = self.ix.insert(h, key, size, tag(state, ty));
        self.ix.nodes[i as usize].freq = flags;
        self.ix.nodes[i as usize].aux = self.sublist_of(key);
        if i as usize >= self.atime.len() {
            self.atime.resize(i as usize + 1, 0);
        }
        self.atime[i as usize] = self.tick;
        self.sz[state as usize][ty] += u64::from(size);
        if state == State::Anon {
            self.anon_hdrs += 1;
        }
        i
    }

    /// Destroy a header (after unlinking it and removing its bytes).
    #[inline(always)]
    pub(super) fn destroy(&mut self, i: u32) {
        let n = self.ix.nodes[i as usize];
        if n.freq & F_LISTED != 0 {
            self.unlink(i);
        }
        let st = (n.tag >> 1) as usize;
        self.sz[st][(n.tag & 1) as usize] -= u64::from(n.size);
        if st == 0 {
            self.anon_hdrs -= 1;
        }
        if n.freq & F_HELD != 0 {
            self.holds.remove(&i);
        }
        self.ix.remove(i);
    }

    /// Headers in the hash table (all but anon).
    #[inline]
    pub(super) fn hash_elements(&self) -> u64 {
        self.ix.len() as u64 - self.anon_hdrs
    }

    /// Look a key up.
    #[inline(always)]
    pub(super) fn find(&self, key: u64) -> (u64, Option<u32>) {
        let h = hash_key(key);
        (h, self.ix.find(h, key))
    }

    /// The sublist of the header with `key` (`arc_state_multilist_index_func`):
    /// the same for every list of the engine, drawn afresh per
    /// `sublist_seed` as arc.c's per import.
    #[inline(always)]
    pub(super) fn sublist_of(&self, key: u64) -> u8 {
        MultiList::index_of(key ^ self.sublist_salt, self.lists[0].sub.len())
    }

    /// `multilist_get_random_index` for list `l`: a sublist index below its
    /// count, drawn from a hash of the list's own state, of how much the
    /// engine has evicted so far and of `salt` rather than a generator, so
    /// that the same state always makes the same draw (an idle period that
    /// repeats itself stays a repeat, and runs are reproducible), while
    /// successive evictions land on unrelated sublists. The eviction
    /// counters matter: under a steady stream the evict thread's bursts
    /// find the list at the same length and size every time, and a draw
    /// from those alone repeated itself, so the burst's short last round
    /// always spared the same sublist, which grew to twice the others and
    /// kept blocks a whole pass of a sequential read (docs/oracle.md, "The
    /// oracle paced").
    #[inline(always)]
    pub(super) fn random_index(&self, l: usize, salt: u64) -> usize {
        let ml = &self.lists[l];
        let n = ml.sub.len();
        if n <= 1 {
            return 0;
        }
        let history = hash_key(
            self.s.model_evicted_bytes
                ^ self.s.deleted.rotate_left(32)
                ^ self.t.sublist_seed.rotate_left(48),
        );
        let x = hash_key(
            history ^ u64::from(ml.len) ^ ml.bytes.rotate_left(21) ^ (l as u64) << 58 ^ salt,
        );
        (((x >> 32) * n as u64) >> 32) as usize
    }

    /// Memory hints after sublist `s` of list `l` lost its tail (no effect
    /// on results): the new tail was just written by the unlink, so its
    /// fields cost nothing to read; start loading what the next eviction
    /// from this sublist touches first: the node before the tail (its link
    /// is rewritten), the tail's access time and, on a ghost list, the
    /// tail's table bucket (a ghost is removed from the table).
    #[inline(always)]
    pub(super) fn warm_tail(&self, l: usize, s: usize, ghost: bool) {
        self.ix
            .prefetch_slot(self.warm_ahead(self.lists[l].tail(s), ghost));
    }

    /// One step of a walk ahead of the eviction (no effect on results):
    /// start loading what evicting node `i` reads beyond its node (its
    /// access time; on a ghost list its table bucket) and return the node
    /// evicted after it, the one before it on its list ([`NIL`] from `NIL`).
    #[inline(always)]
    pub(super) fn warm_ahead(&self, i: u32, ghost: bool) -> u32 {
        match self.ix.nodes.get(i as usize) {
            Some(n) => {
                crate::slab::prefetch(self.atime.as_ptr().wrapping_add(i as usize));
                if ghost {
                    self.ix.prefetch_bucket(hash_key(n.key));
                }
                n.prev
            }
            None => NIL,
        }
    }

    /// The tail (oldest) header of sublist `s` of a list, if any.
    pub(super) fn tail(&self, l: usize, s: usize) -> Option<u32> {
        let t = self.lists[l].tail(s);
        (t != NIL).then_some(t)
    }
}

#[cfg(test)]
mod tick_tests;

#[cfg(test)]
mod list_tests {
    use super::{State, li, list_of, tag};

    #[test]
    fn a_tag_names_its_state_and_type_list() {
        // The ten lists in kstat state order (mru, mru_ghost, mfu,
        // mfu_ghost, uncached), data before metadata: (state − 1)·2 + type.
        for st in State::ALL.into_iter().filter(|&s| s != State::Anon) {
            for ty in 0..2 {
                let want = (st as usize - 1) * 2 + ty;
                assert_eq!(list_of(tag(st, ty)), want, "{st:?} {ty}");
                assert_eq!(li(st, ty), want, "{st:?} {ty}");
            }
        }
    }
}
