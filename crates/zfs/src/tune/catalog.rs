//! The tunables catalogue: every ZFS tunable `arclab tune check` knows, under
//! its Linux module-parameter name, its FreeBSD OpenZFS sysctl names and its
//! pre-OpenZFS FreeBSD names, with value kind, default and effect (spec
//! `zfs-arc.md` §3, §5, §6, §9, §10.2, §13; defaults are HEAD's unless the text
//! says otherwise, and the limits that depend on RAM and version are computed
//! by [`super::check`]).
//!
//! ```
//! use arclab_zfs::tune::catalog::{lookup, Naming};
//! let (t, how) = lookup("vfs.zfs.arc_max").unwrap();
//! assert_eq!(t.linux, "zfs_arc_max");
//! assert_eq!(how, Naming::FreeBsdAlias);
//! assert_eq!(lookup("vfs.zfs.arc.max").unwrap().1, Naming::FreeBsd);
//! assert!(lookup("zfs_no_such_thing").is_none());
//! ```

use arclab_arc::limits::Release;

/// What kind of value a tunable takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueKind {
    /// A byte count.
    Bytes,
    /// A plain integer (count, shift, percentage, milliseconds, seconds).
    Integer,
    /// 0 or 1.
    Bool,
}

/// One tunable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tunable {
    /// Linux module parameter (`/sys/module/zfs/parameters/<name>`); the
    /// canonical name used in reports.
    pub linux: &'static str,
    /// FreeBSD OpenZFS sysctl (`vfs.zfs.<scope>.<name>`).
    pub freebsd: &'static str,
    /// Other names FreeBSD OpenZFS accepts (legacy aliases, through 2.4.x).
    pub freebsd_aliases: &'static [&'static str],
    /// Names of pre-OpenZFS FreeBSD (8.x–12.x base-system ZFS).
    pub legacy: &'static [&'static str],
    /// Value kind.
    pub kind: ValueKind,
    /// Default, as text.
    pub default: &'static str,
    /// What it does.
    pub effect: &'static str,
    /// First OpenZFS/ZoL release with it (`None`: always there).
    pub added: Option<Release>,
    /// First release without it.
    pub removed: Option<Release>,
}

/// How a name matched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Naming {
    /// The Linux module-parameter name.
    Linux,
    /// The FreeBSD OpenZFS sysctl name.
    FreeBsd,
    /// A legacy alias FreeBSD OpenZFS still accepts.
    FreeBsdAlias,
    /// A pre-OpenZFS FreeBSD name only.
    Legacy,
}

const fn r(a: u16, b: u16, c: u16) -> Release {
    Release::new(a, b, c)
}

#[allow(clippy::too_many_arguments)]
const fn t(
    linux: &'static str,
    freebsd: &'static str,
    freebsd_aliases: &'static [&'static str],
    legacy: &'static [&'static str],
    kind: ValueKind,
    default: &'static str,
    effect: &'static str,
    added: Option<Release>,
    removed: Option<Release>,
) -> Tunable {
    Tunable {
        linux,
        freebsd,
        freebsd_aliases,
        legacy,
        kind,
        default,
        effect,
        added,
        removed,
    }
}

use ValueKind::{Bool, Bytes, Integer};

#[rustfmt::skip]
static TUNABLES: &[Tunable] = &[
    t("zfs_arc_max", "vfs.zfs.arc.max", &["vfs.zfs.arc_max"], &["vfs.zfs.arc_max"], Bytes, "0 (automatic)",
      "upper limit of the ARC target (c_max)", None, None),
    t("zfs_arc_min", "vfs.zfs.arc.min", &["vfs.zfs.arc_min"], &["vfs.zfs.arc_min"], Bytes, "0 (automatic)",
      "floor of the ARC target (c_min): memory pressure never shrinks the target below it", None, None),
    t("zfs_arc_meta_limit", "vfs.zfs.arc.meta_limit", &["vfs.zfs.arc_meta_limit"], &["vfs.zfs.arc_meta_limit"], Bytes,
      "0 (75 % of c_max; c_max/4 on pre-OpenZFS FreeBSD)", "cap on ARC metadata before 2.2", None, Some(r(2, 2, 0))),
    t("zfs_arc_meta_limit_percent", "vfs.zfs.arc.meta_limit_percent", &[], &[], Integer, "75",
      "metadata cap as % of c_max before 2.2", Some(r(0, 7, 0)), Some(r(2, 2, 0))),
    t("zfs_arc_meta_min", "vfs.zfs.arc.meta_min", &["vfs.zfs.arc_meta_min"], &[], Bytes, "0 (16 MiB)",
      "metadata floor before 2.2", None, Some(r(2, 2, 0))),
    t("zfs_arc_meta_balance", "vfs.zfs.arc.meta_balance", &[], &[], Integer, "500",
      "how strongly ghost hits move the data/metadata split (2.2+)", Some(r(2, 2, 0)), None),
    t("zfs_arc_dnode_limit", "vfs.zfs.arc.dnode_limit", &[], &[], Bytes, "0 (zfs_arc_dnode_limit_percent of c_max)",
      "dnode memory above which the ARC asks the OS to drop inodes (prune)", Some(r(0, 7, 0)), None),
    t("zfs_arc_dnode_limit_percent", "vfs.zfs.arc.dnode_limit_percent", &[], &[], Integer, "10",
      "dnode limit as % of c_max (of arc_meta_limit before 2.2)", Some(r(0, 7, 0)), None),
    t("zfs_arc_dnode_reduce_percent", "vfs.zfs.arc.dnode_reduce_percent", &[], &[], Integer, "10",
      "share of excess dnodes a prune asks to release", Some(r(0, 7, 0)), None),
    t("zfs_arc_sys_free", "vfs.zfs.arc.sys_free", &[], &[], Bytes, "0 (computed: arc_set_sys_free())",
      "memory the ARC keeps free for the rest of the system", None, None),
    t("zfs_arc_grow_retry", "vfs.zfs.arc.grow_retry", &[], &[], Integer, "0 (5 s)",
      "seconds after a shrink before the ARC may grow again", None, None),
    t("zfs_arc_shrink_shift", "vfs.zfs.arc.shrink_shift", &[], &[], Integer, "0 (7: 1/128 per step)",
      "size of one memory-pressure shrink step, as c >> shift", None, None),
    t("zfs_arc_no_grow_shift", "vfs.zfs.arc.no_grow_shift", &[], &[], Integer, "5",
      "stop growing when free memory is within c >> shift of the reserve", None, None),
    t("zfs_arc_overflow_shift", "vfs.zfs.arc.overflow_shift", &[], &[], Integer, "8",
      "how far size may exceed c before allocations wait for eviction (c >> shift)", None, None),
    t("zfs_arc_eviction_pct", "vfs.zfs.arc.eviction_pct", &[], &[], Integer, "200",
      "bytes a blocked allocation waits to see evicted, as % of its size", None, None),
    t("zfs_arc_evict_batch_limit", "vfs.zfs.arc.evict_batch_limit", &[], &[], Integer, "10",
      "headers evicted per sublist before moving on", None, None),
    t("zfs_arc_evict_threads", "vfs.zfs.arc.evict_threads", &[], &[], Integer, "0 (automatic)",
      "parallel eviction threads", Some(r(2, 3, 3)), None),
    t("zfs_arc_min_prefetch_ms", "vfs.zfs.arc.min_prefetch_ms", &[], &[], Integer, "0 (1000 ms)",
      "how long a prefetched block is protected from eviction", None, None),
    t("zfs_arc_min_prescient_prefetch_ms", "vfs.zfs.arc.min_prescient_prefetch_ms", &[], &[], Integer, "0 (6000 ms)",
      "protection time of prescient-prefetched blocks", None, None),
    t("zfs_arc_lotsfree_percent", "vfs.zfs.arc.lotsfree_percent", &[], &[], Integer, "10",
      "throttle writes when free memory falls below this % (Linux)", None, None),
    t("zfs_arc_pc_percent", "vfs.zfs.arc.pc_percent", &[], &[], Integer, "0",
      "let the ARC shrink less when the page cache is large (Linux)", None, None),
    t("zfs_arc_shrinker_limit", "vfs.zfs.arc.shrinker_limit", &[], &[], Integer, "10000 in 2.0.0–2.2.x, 0 (no limit) from 2.3.0",
      "cap on pages one kernel shrinker call may take (Linux)", None, None),
    t("zfs_arc_average_blocksize", "vfs.zfs.arc.average_blocksize", &[], &[], Integer, "8192",
      "sizes the header hash table (RAM / this)", None, None),
    t("zfs_arc_prune_task_threads", "vfs.zfs.arc.prune_task_threads", &[], &[], Integer, "1",
      "threads running prune callbacks", None, None),
    t("zfs_compressed_arc_enabled", "vfs.zfs.compressed_arc_enabled", &[], &[], Bool, "1",
      "keep blocks compressed in the ARC", None, None),
    t("dbuf_cache_shift", "vfs.zfs.dbuf_cache.shift", &[], &[], Integer, "5 (c/32)",
      "dbuf cache target as c >> shift (its buffers cannot be evicted by the ARC)", None, None),
    t("dbuf_metadata_cache_shift", "vfs.zfs.dbuf_metadata_cache.shift", &[], &[], Integer, "6 (c/64)",
      "dbuf metadata cache cap as c >> shift", None, None),
    t("dbuf_cache_max_bytes", "vfs.zfs.dbuf_cache.max_bytes", &[], &[], Bytes, "UINT64_MAX (use the shift)",
      "absolute dbuf cache cap", None, None),
    t("zfs_prefetch_disable", "vfs.zfs.prefetch.disable", &[], &["vfs.zfs.prefetch_disable"], Bool, "0",
      "1 disables predictive (file-level) prefetch", None, None),
    t("zfetch_max_streams", "vfs.zfs.prefetch.max_streams", &["vfs.zfs.zfetch.max_streams"], &["vfs.zfs.zfetch.max_streams"], Integer, "8",
      "prefetch streams per file", None, None),
    t("zfetch_min_sec_reap", "vfs.zfs.prefetch.min_sec_reap", &["vfs.zfs.zfetch.min_sec_reap"], &["vfs.zfs.zfetch.min_sec_reap"], Integer, "1 at HEAD (2 in older releases)",
      "seconds before an idle stream may be recycled", None, None),
    t("zfetch_max_sec_reap", "vfs.zfs.prefetch.max_sec_reap", &[], &[], Integer, "2",
      "seconds before an idle stream is deleted", None, None),
    t("zfetch_min_distance", "vfs.zfs.prefetch.min_distance", &[], &[], Bytes, "4 MiB",
      "prefetch distance doubles up to this", None, None),
    t("zfetch_max_distance", "vfs.zfs.prefetch.max_distance", &["vfs.zfs.zfetch.max_distance"], &[], Bytes, "64 MiB (8 MiB on 32-bit builds)",
      "hard cap on prefetch distance", None, None),
    t("zfetch_max_idistance", "vfs.zfs.prefetch.max_idistance", &["vfs.zfs.zfetch.max_idistance"], &[], Bytes, "128 MiB (64 MiB before 2.3)",
      "cap on indirect-block prefetch distance", None, None),
    t("zfetch_array_rd_sz", "vfs.zfs.prefetch.array_rd_sz", &["vfs.zfs.zfetch.array_rd_sz"], &["vfs.zfs.zfetch.array_rd_sz"], Bytes, "1 MiB",
      "reads of arrays larger than this are not prefetched (through 2.1.x)", None, Some(r(2, 2, 0))),
    t("zfetch_block_cap", "vfs.zfs.zfetch.block_cap", &[], &["vfs.zfs.zfetch.block_cap"], Integer, "256",
      "max blocks prefetched at a time (old prefetcher)", None, Some(r(2, 0, 0))),
    t("zfs_txg_timeout", "vfs.zfs.txg.timeout", &[], &["vfs.zfs.txg.timeout"], Integer, "5 s",
      "longest time a transaction group stays open before it is written", None, None),
    t("zfs_txg_synctime_ms", "vfs.zfs.txg.synctime_ms", &[], &["vfs.zfs.txg.synctime"], Integer, "1000 ms (5 s in v15)",
      "target txg sync time used by the old write limit (replaced by the dirty-data throttle in 2013/2014)", None, Some(r(2, 0, 0))),
    t("zfs_write_limit_override", "vfs.zfs.txg.write_limit_override", &[], &["vfs.zfs.txg.write_limit_override"], Bytes, "0 (automatic)",
      "fixed per-txg write limit of the old write throttle (replaced by the dirty-data throttle in 2013/2014)", None, Some(r(2, 0, 0))),
    t("zfs_dirty_data_max", "vfs.zfs.dirty_data_max", &[], &[], Bytes, "min(10 % of RAM, 4 GiB)",
      "dirty data allowed before writes are throttled", None, None),
    t("l2arc_write_max", "vfs.zfs.l2arc.write_max", &["vfs.zfs.l2arc_write_max"], &["vfs.zfs.l2arc_write_max"], Bytes,
      "64 MiB (32 MiB 2.2.7–2.4.x, 8 MiB before)", "bytes written to L2ARC per feed", None, None),
    t("l2arc_headroom", "vfs.zfs.l2arc.headroom", &["vfs.zfs.l2arc_headroom"], &["vfs.zfs.l2arc_headroom"], Integer, "8 (2 before 2.2.7)",
      "how far down the lists the L2ARC feed scans, in write_max units", None, None),
    t("l2arc_noprefetch", "vfs.zfs.l2arc.noprefetch", &["vfs.zfs.l2arc_noprefetch"], &["vfs.zfs.l2arc_noprefetch"], Bool, "1",
      "do not write prefetched, never-demanded buffers to L2ARC", None, None),
];

/// Every catalogued tunable.
pub fn all() -> &'static [Tunable] {
    TUNABLES
}

/// How an operator of `os` spells the tunable whose Linux name is `linux`:
/// the Linux name on Linux; on FreeBSD the OpenZFS sysctl, with the first
/// alias it still accepts (`vfs.zfs.arc.max` / `vfs.zfs.arc_max`). An
/// uncatalogued name is returned as given.
///
/// ```
/// use arclab_zfs::tune::catalog::name_on;
/// use arclab_arc::limits::Os;
/// assert_eq!(name_on("zfs_arc_max", Os::Linux), "zfs_arc_max");
/// assert_eq!(name_on("zfs_arc_max", Os::FreeBSD), "vfs.zfs.arc.max / vfs.zfs.arc_max");
/// ```
pub fn name_on(linux: &str, os: arclab_arc::limits::Os) -> String {
    match (os, TUNABLES.iter().find(|t| t.linux == linux)) {
        (arclab_arc::limits::Os::FreeBSD, Some(t)) => match t.freebsd_aliases.first() {
            Some(a) => format!("{} / {a}", t.freebsd),
            None => t.freebsd.to_string(),
        },
        _ => linux.to_string(),
    }
}

/// Find a tunable by any of its names.
pub fn lookup(name: &str) -> Option<(&'static Tunable, Naming)> {
    TUNABLES.iter().find_map(|t| {
        if t.linux == name {
            Some((t, Naming::Linux))
        } else if t.freebsd == name {
            Some((t, Naming::FreeBsd))
        } else if t.freebsd_aliases.contains(&name) {
            Some((t, Naming::FreeBsdAlias))
        } else if t.legacy.contains(&name) {
            Some((t, Naming::Legacy))
        } else {
            None
        }
    })
}

/// Explanations of non-ZFS settings that matter to the ARC (§13).
pub fn non_zfs_note(name: &str) -> Option<&'static str> {
    Some(match name {
        "vm.kmem_size" => {
            "kernel malloc arena size; pre-OpenZFS FreeBSD sizes the ARC from it (c_max = max(5/8·kmem, kmem − 1 GiB)) and requires vfs.zfs.arc_max < kmem_size"
        }
        "vm.kmem_size_max" => "upper bound of the autotuned kmem_size (pre-OpenZFS ARC sizing)",
        "vm.kmem_size_min" => "lower bound of the autotuned kmem_size",
        "vm.kmem_size_scale" => "kmem_size autotuning divisor: physmem / scale",
        "kern.maxvnodes" => {
            "cached vnodes; each keeps a znode and its dnode, which the ARC counts as metadata it cannot evict"
        }
        _ if name.ends_with("_load") => "loads a kernel module at boot (not ZFS)",
        _ => return None,
    })
}
