//! Configuration of the engine: the release behaviour, the host and every
//! tunable (defaults = OpenZFS HEAD, spec §9).

use super::behaviour::Behaviour;
use crate::limits::Os;

/// ZFS tunables and model parameters. `Default` gives the HEAD defaults.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Tunables {
    /// `zfs_arc_meta_balance` (500).
    pub meta_balance: u32,
    /// `arc_shrink_shift` (7).
    pub shrink_shift: u32,
    /// `zfs_arc_no_grow_shift` (5).
    pub no_grow_shift: u32,
    /// `zfs_arc_overflow_shift` (8).
    pub overflow_shift: u32,
    /// `arc_grow_retry` in seconds (5).
    pub grow_retry_s: u64,
    /// `arc_min_prefetch` in ms (1000).
    pub min_prefetch_ms: u64,
    /// `arc_min_prescient_prefetch` in ms (6000).
    pub min_prescient_prefetch_ms: u64,
    /// `zfs_txg_timeout` in seconds (5): dirty buffers join MRU at each sync.
    pub txg_timeout_s: u64,
    /// `zfs_arc_dnode_limit_percent` (10).
    pub dnode_limit_percent: u64,
    /// `zfs_arc_dnode_reduce_percent` (10).
    pub dnode_reduce_percent: u64,
    /// `sizeof (dnode_t)` used to turn dnode bytes into a prune count (≈ 1 KiB on Linux x86-64).
    pub dnode_struct_bytes: u64,
    /// `arc_p_min_shift` (4), ≤ 2.1 only.
    pub p_min_shift: u32,
    /// `zfs_arc_p_dampener_disable` (1 = the ×10 cap on the `arc_p` multiplier is off), ≤ 2.1 only.
    pub p_dampener_disable: bool,
    /// `zfs_arc_meta_min` (16 MiB), ≤ 2.1 only.
    pub meta_min: u64,
    /// `zfs_max_recordsize` (16 MiB): the lax overflow margin (2.2.9+/2.3+);
    /// also used for the `SPA_MAXBLOCKSIZE` floor (same 16 MiB) of the older
    /// overflow rules.
    pub max_recordsize: u64,
    /// Header bytes per ARC header, resident or ghost or anon (`hdr_size`); the
    /// §11.3 sample gives `hdr_size / hash_elements` ≈ 244 B.
    pub hdr_bytes: u64,
    /// Scheduler ticks per second (`HZ`, 1000); `ARC_MINTIME = hz >> 4` ticks.
    pub hz: u32,
    /// Whether the ~62 ms MRU→MFU promotion window applies (off: any second
    /// demand access promotes; for canonical-ARC comparisons).
    pub promotion_window: bool,
    /// Read latency of the pool device in ns (100 µs: a SATA SSD under light
    /// load). A read is in flight from its miss until `issue + latency`.
    pub device_latency_ns: u64,
    /// Keys carry the [`crate::block_key`] encoding: bit 40 set ⇒ level > 0
    /// (indirect, metadata, young-indirect eviction skip). Turn off for traces
    /// whose keys are arbitrary 64-bit ids.
    pub keys_encode_level: bool,
    /// `primarycache=metadata` (2.2+): data blocks are read `ARC_FLAG_UNCACHED`
    /// into the `uncached` state.
    pub primarycache_metadata: bool,
    /// `zfs_arc_shrinker_seeks` (2) for the modelled kernel scan count.
    pub shrinker_seeks: u64,
    /// `zfs_arc_shrinker_limit` in pages (0 = no cap). The default,
    /// [`Tunables::RELEASE_DEFAULT`], takes the release's own default
    /// ([`super::Behaviour::shrinker_limit_default_pages`]: 10000 in
    /// 2.0.0–2.2.x, none before and from 2.3.0).
    pub shrinker_limit_pages: u64,
    /// How often the kernel calls the shrinker / lowmem handler while under
    /// pressure (model: 100 ms).
    pub reclaim_period_ms: u64,
    /// Sublists of each ARC state list (`zfs_multilist_num_sublists`; the
    /// kernel's default is the number of CPUs, at least 4). 4: the oracle's
    /// userland build on 2 CPUs, and any host of up to 4; 1 gives strict LRU
    /// eviction within each list.
    pub multilist_sublists: u32,
    /// Model parameter, not a kernel tunable: how long after the overflow
    /// check signals the evict thread its burst takes effect, in ns. The
    /// real thread runs beside the readers: it is scheduled, then evicts
    /// for a while (arc.c 2.3.9 in the oracle: ~2 ms for a 19 MB burst),
    /// and a block read meanwhile is a hit. The model applies the burst at
    /// once, this long after the wake-up (0: at the wake-up, as before).
    /// Allocations that must wait for eviction, and the reap and shrinker
    /// paths, still evict at once.
    #[cfg_attr(feature = "serde", serde(default))]
    pub evict_delay_ns: u64,
    /// Model parameter, not a kernel tunable: mixed into the sublist each
    /// header joins (as arc.c's `buf_hash` mixes in the pool's
    /// `spa_load_guid`, a new random number at every import) and into the
    /// draw of the sublist an eviction burst starts from
    /// (`multilist_get_random_index`), so that runs with different seeds are
    /// different draws, as arc.c's runs (each its own import) are. 0 (the
    /// default) is the draw every earlier release made.
    #[cfg_attr(feature = "serde", serde(default))]
    pub sublist_seed: u64,
}

impl Tunables {
    /// A tunable value meaning "the modelled release's own default" (for
    /// tunables whose default changed between releases).
    pub const RELEASE_DEFAULT: u64 = u64::MAX;
}

impl Default for Tunables {
    fn default() -> Self {
        Tunables {
            meta_balance: 500,
            shrink_shift: 7,
            no_grow_shift: 5,
            overflow_shift: 8,
            grow_retry_s: 5,
            min_prefetch_ms: 1000,
            min_prescient_prefetch_ms: 6000,
            txg_timeout_s: 5,
            dnode_limit_percent: 10,
            dnode_reduce_percent: 10,
            dnode_struct_bytes: 1024,
            p_min_shift: 4,
            p_dampener_disable: true,
            meta_min: 16 << 20,
            max_recordsize: 16 << 20,
            hdr_bytes: 244,
            hz: 1000,
            promotion_window: true,
            device_latency_ns: 100_000,
            keys_encode_level: true,
            primarycache_metadata: false,
            shrinker_seeks: 2,
            shrinker_limit_pages: Tunables::RELEASE_DEFAULT,
            reclaim_period_ms: 100,
            multilist_sublists: 4,
            evict_delay_ns: 2_000_000,
            sublist_seed: 0,
        }
    }
}

/// The host the ARC lives on (spec §5.1, model §"host" in `docs/model.md`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct HostConfig {
    /// Memory used by the kernel and everything that is neither the ARC nor
    /// the modelled "other processes" (never reclaimable here).
    pub base_bytes: u64,
    /// Whether the kernel calls the Linux shrinker / FreeBSD lowmem handler
    /// (off: only the ARC's own reap thread reacts to pressure).
    pub kernel_reclaim: bool,
    /// FreeBSD `zfs_arc_free_target` in bytes (`None`: allmem/64, an approximation of
    /// `vm.v_free_target`).
    pub freebsd_free_target: Option<u64>,
}

impl Default for HostConfig {
    fn default() -> Self {
        HostConfig {
            base_bytes: 0,
            kernel_reclaim: true,
            freebsd_free_target: None,
        }
    }
}

/// Everything [`super::ArcCache::new`] needs.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ArcConfig {
    /// Version behaviour.
    pub behaviour: Behaviour,
    /// Operating system.
    pub os: Os,
    /// Physical RAM in bytes.
    pub ram_bytes: u64,
    /// `zfs_arc_max` at module load (`None`: automatic).
    pub arc_max: Option<u64>,
    /// `zfs_arc_min` at module load (`None`: automatic).
    pub arc_min: Option<u64>,
    /// Experiment mode: pin `c = c_min = c_max` to this many bytes, ignoring
    /// the kernel's limits (for canonical-ARC comparisons).
    pub fixed_c: Option<u64>,
    /// Tunables.
    pub tunables: Tunables,
    /// Host model.
    pub host: HostConfig,
    /// This host is a miniature of a larger one (spatial sampling): the
    /// limits are the larger host's, scaled by `ram_bytes / miniature.ram_bytes`.
    #[cfg_attr(feature = "serde", serde(default))]
    pub miniature: Option<Miniature>,
}

/// The full-size host a miniature stands for (spatial sampling at rate R:
/// `ArcConfig::ram_bytes` is R × `ram_bytes`). The kernel's limits are not
/// proportional to RAM — `c_max` is RAM − 1 GiB from 2.3 on but 5/8 of a
/// small box's, `arc_sys_free` is a square root, `c_min` and `zfs_arc_max`
/// have floors — so a miniature computes them for the full-size host and
/// scales the result, and scales the kernel's fixed byte quantities too
/// (the shrinker's page, the 32 MiB growth margin).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Miniature {
    /// The full-size host's RAM.
    pub ram_bytes: u64,
    /// Its `zfs_arc_max` at load (`None`: automatic).
    pub arc_max: Option<u64>,
    /// Its `zfs_arc_min` at load (`None`: automatic).
    pub arc_min: Option<u64>,
}

impl Miniature {
    /// `bytes` of the full-size host in the miniature `mini_ram` bytes of
    /// RAM stand for (rounded; `bytes` when the miniature is not smaller).
    pub fn scale(&self, bytes: u64, mini_ram: u64) -> u64 {
        if self.ram_bytes == 0 || mini_ram >= self.ram_bytes {
            return bytes;
        }
        let v = (u128::from(bytes) * u128::from(mini_ram) + u128::from(self.ram_bytes) / 2)
            / u128::from(self.ram_bytes);
        v as u64
    }
}

impl ArcConfig {
    /// A Linux host with `ram_bytes` of RAM and the latest behaviour.
    pub fn new(ram_bytes: u64) -> Self {
        ArcConfig {
            behaviour: Behaviour::latest(),
            os: Os::Linux,
            ram_bytes,
            arc_max: None,
            arc_min: None,
            fixed_c: None,
            tunables: Tunables::default(),
            host: HostConfig::default(),
            miniature: None,
        }
    }

    /// Builder: the behaviour.
    pub fn with_behaviour(mut self, b: Behaviour) -> Self {
        self.behaviour = b;
        self
    }

    /// Builder: `zfs_arc_max` at load.
    pub fn with_arc_max(mut self, bytes: u64) -> Self {
        self.arc_max = Some(bytes);
        self
    }

    /// Builder: the OS.
    pub fn with_os(mut self, os: Os) -> Self {
        self.os = os;
        self
    }

    /// A configuration with ZFS-specific features off, for comparing with the
    /// canonical ARC of Megiddo & Modha on unit-size blocks of `block` bytes:
    /// fixed `c = pages·block`, no promotion window, no header/DMU overheads,
    /// instant I/O, eviction as soon as `size > c` (lax rule with a zero margin).
    pub fn canonical(pages: u64, block: u64) -> Self {
        let mut c = ArcConfig::new(1 << 40);
        c.fixed_c = Some(pages * block);
        c.tunables.promotion_window = false;
        c.tunables.hdr_bytes = 0;
        c.tunables.device_latency_ns = 0;
        c.tunables.max_recordsize = 0;
        c.tunables.overflow_shift = 63;
        c.tunables.keys_encode_level = false;
        c.host.kernel_reclaim = false;
        c.tunables.shrinker_limit_pages = 0;
        c.tunables.multilist_sublists = 1;
        c.behaviour.size_sum = super::SizeSum::Exact;
        c.tunables.evict_delay_ns = 0;
        c
    }
}
