//! Memory-pressure scenarios: the host the ARC runs on, its limits and
//! tunables, the memory the ARC cannot evict, and the memory other processes
//! want over time.
//!
//! Sizes accept integers or strings with binary suffixes (`"31.24GiB"`).
//! `demand` is a piecewise-linear curve of the other processes' memory
//! (containers, VMs): between two points it is interpolated, before the
//! first and after the last it stays flat. `docs/whatif.md` lists every
//! field and tunable.
//!
//! ```
//! use arclab_sim::scenario::{self, Scenario};
//!
//! let s = scenario::builtin("homelab").unwrap();
//! assert_eq!(s.ram_bytes, 33_543_694_582); // 31.24 GiB
//! let cfg = s.arc_config(Some(8 << 30)).unwrap();
//! assert_eq!(cfg.arc_max, Some(8 << 30));
//! // A cap at or above RAM is an error naming it.
//! let e = s.arc_config(Some(40 << 30)).unwrap_err();
//! assert!(e.to_string().contains("arc_max"));
//!
//! let t = "name = \"x\"\nram_bytes = \"8GiB\"\n[[demand]]\nat_secs = 0\nbytes = \"1GiB\"\n\
//!          [[demand]]\nat_secs = 10\nbytes = \"3GiB\"\n";
//! let s = Scenario::from_toml_str(t, "x.toml").unwrap();
//! assert_eq!(s.demand_at(5_000_000_000), 2 << 30);
//! assert_eq!(s.demand_at(99_000_000_000), 3 << 30);
//! ```

use crate::error::DescriptionError;
use crate::workload::spec_bytes as bytes;
use arclab_arc::Os;
use arclab_arc::limits::MIN_ARC_MAX;
use arclab_arc::model::{ArcConfig, Behaviour, Tunables};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

mod curve;
pub use curve::Piece;
use curve::{piece, piecewise};

/// ARC memory the ARC cannot evict: open files' dnodes, dbufs and bonus
/// buffers (`dnode_size`, `dbuf_size`, `bonus_size`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Pinned {
    /// `dnode_size`.
    #[serde(default, with = "bytes")]
    pub dnode_bytes: u64,
    /// `dbuf_size`.
    #[serde(default, with = "bytes")]
    pub dbuf_bytes: u64,
    /// `bonus_size`.
    #[serde(default, with = "bytes")]
    pub bonus_bytes: u64,
    /// Metadata the ARC cannot evict: the dnode blocks cached dnodes keep
    /// referenced (arcstats `metadata_size` − `mru_evictable_metadata` −
    /// `mfu_evictable_metadata`), charged as MFU metadata on no evictable list.
    #[serde(default, with = "bytes", skip_serializing_if = "is_zero")]
    pub metadata_bytes: u64,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

impl Pinned {
    /// All pinned bytes.
    pub fn total(&self) -> u64 {
        self.dnode_bytes + self.dbuf_bytes + self.bonus_bytes + self.metadata_bytes
    }
}

/// ARC bytes one inode kept in the kernel's inode cache holds (its
/// `dnode_t`, its dbufs, its bonus buffer and its share of the dnode blocks
/// kept referenced), measured on a real OpenZFS 2.3 Linux host (`data/arcstats/linux-openzfs22plus-telegraf.arcstats`):
/// `bonus_size` 246,963,136 B is about 771,760 bonus buffers of 320 B (the bonus
/// space of a 512-byte dnode, `DN_SLOTS_TO_BONUSLEN(1)`), which hold
/// `dnode_size` 1,104,341,896 B (1,431 B each) and `dbuf_size` 301,577,840 B
/// (391 B each), and the metadata it cannot evict
/// (`metadata_size` − `mru_evictable_metadata` − `mfu_evictable_metadata` =
/// 1,865,288,704 B, the dnode blocks those dnodes keep: 2,417 B each): 4,559
/// B per cached inode.
pub const HELD_PER_FILE: Pinned = Pinned {
    dnode_bytes: 1_431,
    dbuf_bytes: 391,
    bonus_bytes: 320,
    metadata_bytes: 2_417,
};

/// The most files a `[[held]]` point may name (2^36, ~69 G): bounds the
/// bytes they stand for.
pub const MAX_HELD_FILES: u64 = 1 << 36;

/// One point of the files whose inodes the kernel keeps cached beyond
/// `[pinned]` (after a backup or a `find` walks them, say): each holds
/// [`HELD_PER_FILE`] of ARC memory the ARC cannot evict until the kernel
/// lets the inode go.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct HeldPoint {
    /// Seconds from the start of the run.
    pub at_secs: f64,
    /// Files whose inodes are cached then.
    pub files: u64,
}

/// One point of the other processes' memory demand.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DemandPoint {
    /// Seconds from the start of the run.
    pub at_secs: f64,
    /// Memory the other processes want then.
    #[serde(with = "bytes")]
    pub bytes: u64,
}

fn linux() -> String {
    "linux".into()
}
fn v23() -> String {
    "2.3".into()
}
const fn yes() -> bool {
    true
}

/// A host, its ZFS settings and the memory pressure on it.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Name.
    pub name: String,
    /// A one-line description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Physical RAM.
    #[serde(with = "bytes")]
    pub ram_bytes: u64,
    /// `linux` or `freebsd`.
    #[serde(default = "linux")]
    pub os: String,
    /// OpenZFS release whose behaviour to model (`2.3`, `2.2.7`, `latest`, …).
    #[serde(default = "v23")]
    pub zfs_version: String,
    /// `zfs_arc_max` (None: automatic).
    #[serde(default, with = "bytes::opt", skip_serializing_if = "Option::is_none")]
    pub arc_max: Option<u64>,
    /// `zfs_arc_min` (None: automatic).
    #[serde(default, with = "bytes::opt", skip_serializing_if = "Option::is_none")]
    pub arc_min: Option<u64>,
    /// Predictive prefetch on (`zfs_prefetch_disable=0`).
    #[serde(default = "yes")]
    pub prefetch: bool,
    /// Model tunables by name (`txg_timeout`, `meta_balance`, …; the
    /// `zfs_`/`zfs_arc_` prefixes are optional).
    #[serde(default)]
    pub tunables: BTreeMap<String, u64>,
    /// Memory the ARC holds but cannot evict.
    #[serde(default)]
    pub pinned: Pinned,
    /// Other processes' memory over time (piecewise linear).
    #[serde(default)]
    pub demand: Vec<DemandPoint>,
    /// Files whose inodes the kernel keeps cached over time, beyond
    /// `[pinned]` (piecewise linear; each holds [`HELD_PER_FILE`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub held: Vec<HeldPoint>,
    /// The workload: a built-in name or a path to a TOML file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workload: Option<String>,
    /// Seconds at the start left out of the counters (the cache fills).
    #[serde(default)]
    pub warmup_secs: f64,
}

const HOMELAB: &str = r#"# The blog's box, a day of it: 31.24 GiB of RAM, ~70 containers with memory
# limits (docs/whatif.md, "The homelab, fitted on the blog's before"). Fitted
# on the blog's uncapped figures only (median ARC 8.4 GiB, peaks 15 GiB).
name = "homelab"
description = "31.24 GiB Linux box, ~70 containers whose memory rises by day and falls at night"
ram_bytes = "31.24GiB"
os = "linux"
zfs_version = "2.3"
prefetch = true
workload = "homelab"
warmup_secs = 3600

# What the ARC holds for the inodes the kernel keeps cached (dnodes, dbufs,
# bonus buffers, and the dnode blocks they keep referenced): what a real
# 31.2 GiB OpenZFS 2.3 host holds (data/arcstats/
# linux-openzfs22plus-telegraf.arcstats: dnode_size, dbuf_size, bonus_size,
# metadata_size - the evictable metadata; ~771,760 inodes). Not fitted.
[pinned]
dnode_bytes = 1104341896
dbuf_bytes = 301577840
bonus_bytes = 246963136
metadata_bytes = 1865288704

# The containers' memory. An uncapped ARC fills what they leave, so their
# level is fitted on the ARC's size: 21.5 GiB by day gives the blog's median
# of 8.4 GiB, the night's low of 14.7 GiB (01:30-05:00) its peaks of 15 GiB.
# Twice a day they want 2.5 GiB more for ten minutes (not fitted).
[[demand]]
at_secs = 0
bytes = "21.5GiB"

[[demand]]
at_secs = 5400
bytes = "21.5GiB"

[[demand]]
at_secs = 7200
bytes = "14.7GiB"

[[demand]]
at_secs = 18000
bytes = "14.7GiB"

[[demand]]
at_secs = 21600
bytes = "21.5GiB"

[[demand]]
at_secs = 36000
bytes = "21.5GiB"

[[demand]]
at_secs = 36300
bytes = "24GiB"

[[demand]]
at_secs = 36900
bytes = "24GiB"

[[demand]]
at_secs = 37200
bytes = "21.5GiB"

[[demand]]
at_secs = 57600
bytes = "21.5GiB"

[[demand]]
at_secs = 57900
bytes = "24GiB"

[[demand]]
at_secs = 58500
bytes = "24GiB"

[[demand]]
at_secs = 58800
bytes = "21.5GiB"
"#;

const BONNIE: &str = r#"# The FreeBSD 8.2 box of the mailing-list thread: 8 GiB RAM, arc_max 6144M,
# a raidz of three 7200 rpm disks, prefetch disabled (its run #1).
name = "bonnie"
description = "FreeBSD, 8 GiB RAM, arc_max 6 GiB, raidz1 of 3 disks"
ram_bytes = "8GiB"
os = "freebsd"
zfs_version = "2.0"
arc_max = "6GiB"
prefetch = false
workload = "bonnie"

[tunables]
txg_timeout = 5
device_latency_ns = 8000000

[[demand]]
at_secs = 0
bytes = "512MiB"
"#;

/// The built-in scenarios: `homelab` (the default) and `bonnie`.
pub const BUILTINS: &[&str] = &["homelab", "bonnie"];

/// The TOML text of a built-in scenario.
pub fn builtin_toml(name: &str) -> Option<&'static str> {
    match name {
        "homelab" => Some(HOMELAB),
        "bonnie" => Some(BONNIE),
        _ => None,
    }
}

/// A built-in scenario by name (see [`BUILTINS`]).
pub fn builtin(name: &str) -> Option<Scenario> {
    Scenario::from_toml_str(builtin_toml(name)?, &format!("builtin:{name}")).ok()
}

/// Every tunable name a scenario accepts (after stripping `zfs_arc_`, `zfs_`, `arc_`).
pub const TUNABLES: &[&str] = &[
    "meta_balance",
    "shrink_shift",
    "no_grow_shift",
    "overflow_shift",
    "grow_retry",
    "min_prefetch_ms",
    "min_prescient_prefetch_ms",
    "txg_timeout",
    "dnode_limit_percent",
    "dnode_reduce_percent",
    "dnode_struct_bytes",
    "p_min_shift",
    "p_dampener_disable",
    "meta_min",
    "max_recordsize",
    "hdr_bytes",
    "hz",
    "promotion_window",
    "device_latency_ns",
    "primarycache_metadata",
    "shrinker_seeks",
    "shrinker_limit",
    "reclaim_period_ms",
    "evict_delay_ns",
    "sublist_seed",
];

fn canonical_tunable(name: &str) -> &str {
    let n = name.trim();
    for p in ["zfs_arc_", "zfs_", "arc_"] {
        if let Some(s) = n.strip_prefix(p) {
            return s;
        }
    }
    n
}

/// The longest evict-thread delay a scenario may set (1 s): longer would
/// let the ARC grow without bound between bursts.
pub const MAX_EVICT_DELAY_NS: u64 = 1_000_000_000;

/// Set the tunable `name` (a [`TUNABLES`] name, with or without its
/// `zfs_arc_` / `zfs_` / `arc_` prefix) to `v`; an error naming the known
/// ones when the name is unknown.
pub fn apply_tunable(t: &mut Tunables, name: &str, v: u64) -> Result<(), String> {
    if set_tunable(t, name, v) {
        Ok(())
    } else {
        Err(format!(
            "unknown tunable `{name}` (known: {})",
            TUNABLES.join(", ")
        ))
    }
}

/// Set one tunable; false when the name is unknown.
fn set_tunable(t: &mut Tunables, name: &str, v: u64) -> bool {
    let u32v = u32::try_from(v).unwrap_or(u32::MAX);
    match canonical_tunable(name) {
        "meta_balance" => t.meta_balance = u32v,
        "shrink_shift" => t.shrink_shift = u32v,
        "no_grow_shift" => t.no_grow_shift = u32v,
        "overflow_shift" => t.overflow_shift = u32v,
        "grow_retry" => t.grow_retry_s = v,
        "min_prefetch_ms" => t.min_prefetch_ms = v,
        "min_prescient_prefetch_ms" => t.min_prescient_prefetch_ms = v,
        "txg_timeout" => t.txg_timeout_s = v,
        "dnode_limit_percent" => t.dnode_limit_percent = v,
        "dnode_reduce_percent" => t.dnode_reduce_percent = v,
        "dnode_struct_bytes" => t.dnode_struct_bytes = v,
        "p_min_shift" => t.p_min_shift = u32v,
        "p_dampener_disable" => t.p_dampener_disable = v != 0,
        "meta_min" => t.meta_min = v,
        "max_recordsize" => t.max_recordsize = v,
        "hdr_bytes" => t.hdr_bytes = v,
        "hz" => t.hz = u32v.max(1),
        "promotion_window" => t.promotion_window = v != 0,
        "device_latency_ns" => t.device_latency_ns = v,
        "primarycache_metadata" => t.primarycache_metadata = v != 0,
        "shrinker_seeks" => t.shrinker_seeks = v,
        "shrinker_limit" => t.shrinker_limit_pages = v,
        "reclaim_period_ms" => t.reclaim_period_ms = v,
        "evict_delay_ns" => t.evict_delay_ns = v.min(MAX_EVICT_DELAY_NS),
        "sublist_seed" => t.sublist_seed = v,
        _ => return false,
    }
    true
}

impl Scenario {
    /// The scenario of a bare trace replay: a Linux host with `ram_bytes`,
    /// the default version, prefetch on, automatic limits, and nothing else
    /// on it — no pinned memory, no other processes' demand, no warm-up —
    /// so the ZFS model runs exactly as `arclab sim --policy zfs-arc` runs it.
    pub fn for_trace(ram_bytes: u64) -> Scenario {
        Scenario {
            name: "trace".into(),
            description: None,
            ram_bytes,
            os: linux(),
            zfs_version: v23(),
            arc_max: None,
            arc_min: None,
            prefetch: true,
            tunables: BTreeMap::new(),
            pinned: Pinned::default(),
            demand: Vec::new(),
            held: Vec::new(),
            workload: None,
            warmup_secs: 0.0,
        }
    }

    /// The host a capture of its own reads was taken on (`arclab
    /// capture`): a bare host of its RAM, its release and its prefetch
    /// setting, as the capture's header records them; `None` without RAM.
    pub fn for_capture(h: &arclab_trace::capture::CaptureHeader) -> Option<Scenario> {
        let mut s = Scenario::for_trace(h.ram_bytes?);
        s.name = "capture".into();
        if let Some(r) = h
            .zfs_version
            .as_deref()
            .and_then(|v| v.parse::<arclab_arc::Release>().ok())
        {
            s.zfs_version = r.to_string().replace(".x", "");
        }
        if h.os == "freebsd" {
            s.os = "freebsd".into();
        }
        s.prefetch = h.prefetch.unwrap_or(true);
        Some(s)
    }

    /// Parse and check a TOML scenario; `origin` names it in errors.
    pub fn from_toml_str(text: &str, origin: &str) -> Result<Scenario, DescriptionError> {
        let s: Scenario = toml::from_str(text)
            .map_err(|e| DescriptionError::from_toml(text, origin, &e, "n/a"))?;
        s.check(text, origin)?;
        Ok(s)
    }

    /// The TOML form.
    pub fn to_toml_string(&self) -> String {
        toml::to_string(self).unwrap_or_default()
    }

    fn check(&self, text: &str, origin: &str) -> Result<(), DescriptionError> {
        let err = |key: &str, msg: String| {
            let line = crate::workload::find_key_line(text, key);
            DescriptionError::new(origin, line, msg)
        };
        if let Err(e) = arclab_arc::limits::check_ram(self.ram_bytes) {
            return Err(err("ram_bytes", format!("ram_bytes: {e}")));
        }
        if let Err(e) = self.os.parse::<Os>() {
            return Err(err("os", e.to_string()));
        }
        if let Err(e) = Behaviour::preset(&self.zfs_version) {
            return Err(err("zfs_version", e.to_string()));
        }
        let mut scratch = Tunables::default();
        for (k, &v) in &self.tunables {
            if !set_tunable(&mut scratch, k, v) {
                return Err(err(
                    k,
                    format!("unknown tunable `{k}` (known: {})", TUNABLES.join(", ")),
                ));
            }
        }
        if !(self.warmup_secs.is_finite() && self.warmup_secs >= 0.0) {
            return Err(err("warmup_secs", "`warmup_secs` must be ≥ 0".into()));
        }
        let point_err = |table: &str, i: usize, key: &str, msg: String| {
            let line = crate::error::line_of_key(text, table, Some(i), key);
            DescriptionError::new(origin, line, msg)
        };
        let in_order = |table: &str, ats: &mut dyn Iterator<Item = f64>| {
            let mut last = 0.0;
            for (i, at) in ats.enumerate() {
                if !(at.is_finite() && at >= last) {
                    return Err(point_err(
                        table,
                        i,
                        "at_secs",
                        format!(
                            "{table} points must be in time order from 0 s, got at_secs = {at}"
                        ),
                    ));
                }
                last = at;
            }
            Ok(())
        };
        in_order("demand", &mut self.demand.iter().map(|d| d.at_secs))?;
        in_order("held", &mut self.held.iter().map(|h| h.at_secs))?;
        for (i, h) in self.held.iter().enumerate() {
            if h.files > MAX_HELD_FILES {
                return Err(point_err(
                    "held",
                    i,
                    "files",
                    format!(
                        "held files = {} is above the limit of {MAX_HELD_FILES}",
                        h.files
                    ),
                ));
            }
        }
        self.arc_config(None).map(|_| ()).map_err(|e| {
            let line = crate::workload::find_key_line(text, "arc_max");
            DescriptionError::new(origin, line, e.message())
        })
    }

    /// Other processes' demand at `t_ns` (linear between points).
    pub fn demand_at(&self, t_ns: u64) -> u64 {
        piecewise(&self.demand, t_ns, |p| (p.at_secs, p.bytes))
    }

    /// The piece of [`demand_at`](Self::demand_at)'s curve in force at `t_ns`.
    pub fn demand_piece(&self, t_ns: u64) -> Piece {
        piece(&self.demand, t_ns, |p| (p.at_secs, p.bytes))
    }

    /// The piece of [`held_files_at`](Self::held_files_at)'s curve in force at `t_ns`.
    pub fn held_piece(&self, t_ns: u64) -> Piece {
        piece(&self.held, t_ns, |p| (p.at_secs, p.files))
    }

    /// Files whose inodes the kernel keeps cached at `t_ns`, beyond
    /// `[pinned]` (linear between points).
    pub fn held_files_at(&self, t_ns: u64) -> u64 {
        piecewise(&self.held, t_ns, |p| (p.at_secs, p.files))
    }

    /// Everything the ARC holds and cannot evict at `t_ns`: `[pinned]`
    /// plus the held files' [`HELD_PER_FILE`].
    pub fn pinned_at(&self, t_ns: u64) -> Pinned {
        self.pinned_with(self.held_files_at(t_ns))
    }

    /// The most the ARC holds and cannot evict at any time of the run:
    /// [`Scenario::pinned_at`] at the held-files curve's highest point.
    pub fn pinned_most(&self) -> Pinned {
        self.pinned_with(self.held.iter().map(|p| p.files).max().unwrap_or(0))
    }

    /// `[pinned]` plus `n` held files.
    fn pinned_with(&self, n: u64) -> Pinned {
        let p = &self.pinned;
        Pinned {
            dnode_bytes: p.dnode_bytes + n * HELD_PER_FILE.dnode_bytes,
            dbuf_bytes: p.dbuf_bytes + n * HELD_PER_FILE.dbuf_bytes,
            bonus_bytes: p.bonus_bytes + n * HELD_PER_FILE.bonus_bytes,
            metadata_bytes: p.metadata_bytes + n * HELD_PER_FILE.metadata_bytes,
        }
    }

    /// The ARC configuration for this host with `arc_max` (None: the
    /// scenario's own) — an error when the cap is not below RAM or below
    /// 64 MiB, or `arc_min` is not below the cap.
    pub fn arc_config(&self, arc_max: Option<u64>) -> Result<ArcConfig, DescriptionError> {
        let origin = format!("scenario {}", self.name);
        let e = |m: String| DescriptionError::new(&origin, None, m);
        let os: Os = self
            .os
            .parse()
            .map_err(|x: arclab_arc::limits::ParseVersionError| e(x.to_string()))?;
        let b = Behaviour::preset(&self.zfs_version).map_err(|x| e(x.to_string()))?;
        let ram = arclab_arc::units::format_bytes(self.ram_bytes);
        let cap = arc_max.or(self.arc_max).filter(|&c| c != 0);
        let mut cfg = ArcConfig::new(self.ram_bytes).with_behaviour(b).with_os(os);
        if let Some(c) = cap {
            let cs = arclab_arc::units::format_bytes(c);
            if c >= self.ram_bytes {
                return Err(e(format!("arc_max {cs} is not below the RAM ({ram})")));
            }
            if c < MIN_ARC_MAX {
                return Err(e(format!(
                    "arc_max {cs} is below 64 MiB (the kernel would ignore it)"
                )));
            }
            cfg = cfg.with_arc_max(c);
        }
        if let Some(m) = self.arc_min.filter(|&m| m != 0) {
            if m >= cap.unwrap_or(self.ram_bytes) {
                return Err(e(format!(
                    "arc_min {} is not below arc_max / RAM",
                    arclab_arc::units::format_bytes(m)
                )));
            }
            cfg.arc_min = Some(m);
        }
        for (k, &v) in &self.tunables {
            if !set_tunable(&mut cfg.tunables, k, v) {
                return Err(e(format!(
                    "unknown tunable `{k}` (known: {})",
                    TUNABLES.join(", ")
                )));
            }
        }
        Ok(cfg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        Scenario::from_toml_str(text, "s.toml")
            .unwrap_err()
            .to_string()
    }

    /// A replay keeps the curve's piece while its clock stays inside it
    /// (`Run::sync_host`); kept that way, in order or not, it gives the
    /// curve's value at every time: flat 2 GiB before 10 s, up to 6 GiB at
    /// 20 s, down to 1 GiB at 30 s, flat after.
    #[test]
    fn a_kept_piece_gives_the_curves_value_at_every_time() {
        let s = Scenario::from_toml_str(
            "name = \"x\"\nram_bytes = \"8GiB\"\n\
             [[demand]]\nat_secs = 10\nbytes = \"2GiB\"\n\
             [[demand]]\nat_secs = 20\nbytes = \"6GiB\"\n\
             [[demand]]\nat_secs = 30\nbytes = \"1GiB\"\n",
            "s.toml",
        )
        .unwrap();
        let g = (1u64 << 30) as f64;
        let want = |t: u64| {
            let x = t as f64 / 1e9;
            let v = match x {
                x if x < 10.0 => 2.0 * g,
                x if x < 20.0 => 2.0 * g + 4.0 * g * (x - 10.0) / 10.0,
                x if x < 30.0 => 6.0 * g - 5.0 * g * (x - 20.0) / 10.0,
                _ => g,
            };
            v.round() as u64
        };
        let mut piece = s.demand_piece(0);
        let mut moved = 0;
        let times = (0..400u64).map(|i| i * 97_000_000).chain([
            25_000_000_000,
            3_000_000_000,
            20_000_000_000,
            19_999_999_999,
        ]);
        for t in times {
            if !piece.covers(t) {
                piece = s.demand_piece(t);
                moved += 1;
            }
            let got = piece.value(t);
            assert!(
                got.abs_diff(want(t)) <= 1,
                "at {t} ns: {got} against {}",
                want(t)
            );
            assert_eq!(got, s.demand_at(t));
        }
        assert_eq!(moved, 3 + 4, "one search per piece entered");
    }

    /// A piece's bounds in nanoseconds decide exactly as the seconds the
    /// curve reads (`t_ns as f64 / 1e9`) do, at instants that are not whole
    /// nanoseconds too; a piece between two equal points is constant.
    #[test]
    fn pieces_cover_the_instants_the_seconds_say() {
        let s = Scenario::from_toml_str(
            "name = \"x\"\nram_bytes = \"8GiB\"\n\
             [[demand]]\nat_secs = 0.1\nbytes = 100\n[[demand]]\nat_secs = 1.3000000001\nbytes = 100\n\
             [[demand]]\nat_secs = 5400.7\nbytes = 900\n[[demand]]\nat_secs = 86399.999999999\nbytes = 5\n",
            "s.toml",
        )
        .unwrap();
        const NS: u64 = 1_000_000_000;
        let at = [0.1, 1.3000000001, 5400.7, 86399.999999999];
        let mut checked = 0;
        for (k, &secs) in at.iter().enumerate() {
            let near = (secs * 1e9) as u64;
            for t in near.saturating_sub(3)..near + 3 {
                let p = s.demand_piece(t);
                // The piece is the one the seconds fall in…
                let i = at.partition_point(|&a| a <= t as f64 / 1e9);
                assert_eq!(i, if (t as f64 / 1e9) < secs { k } else { k + 1 }, "{t}");
                assert!(p.covers(t), "{t}");
                // …and its neighbours' pieces do not cover t.
                assert!(!s.demand_piece(0).covers(t) || i == 0, "{t}");
                assert_eq!(p.value(t), s.demand_at(t), "{t}");
                checked += 1;
            }
        }
        assert_eq!(checked, 24);
        // 0.1 s to 1.3000000001 s: 100 to 100, constant over the whole piece.
        let flat = s.demand_piece(500_000_000);
        assert_eq!(flat.constant_span(), 100_000_000..1_300_000_001);
        // The slope from 100 to 900 is read at every instant.
        let sloped = s.demand_piece(2_000_000_000);
        assert!(sloped.constant_span().is_empty());
        assert_ne!(s.demand_at(2_000 * NS), s.demand_at(3_000 * NS));
        // Past the last point: flat to the end of time.
        assert_eq!(s.demand_piece(u64::MAX / 2).constant_span().end, u64::MAX);
    }

    /// `[[held]]`: piecewise linear in files, each file the real host's
    /// 1,431 + 391 + 320 + 2,417 bytes on top of `[pinned]`.
    #[test]
    fn held_files_add_to_the_pinned_memory() {
        let s = Scenario::from_toml_str(
            "name = \"x\"\nram_bytes = \"8GiB\"\n[pinned]\ndnode_bytes = 1000\n\
             [[held]]\nat_secs = 10\nfiles = 1000\n[[held]]\nat_secs = 20\nfiles = 3000\n",
            "s.toml",
        )
        .unwrap();
        assert_eq!(s.held_files_at(0), 1000);
        assert_eq!(s.held_files_at(15_000_000_000), 2000);
        assert_eq!(s.held_files_at(99_000_000_000), 3000);
        let p = s.pinned_at(15_000_000_000);
        assert_eq!(
            (p.dnode_bytes, p.dbuf_bytes, p.bonus_bytes, p.metadata_bytes),
            (1000 + 2000 * 1431, 2000 * 391, 2000 * 320, 2000 * 2417)
        );
        assert_eq!(HELD_PER_FILE.total(), 4559);
        // The most of the run: at the curve's highest point, 3,000 files.
        assert_eq!(s.pinned_most().total(), 1000 + 3000 * 4559);
        // Written back, the points survive.
        let again = Scenario::from_toml_str(&s.to_toml_string(), "again").unwrap();
        assert_eq!(again, s);
    }

    #[test]
    fn bad_held_points_name_their_line() {
        let e = err(
            "name = \"x\"\nram_bytes = \"8GiB\"\n[[held]]\nat_secs = 5\nfiles = 1\n\
                     [[held]]\nat_secs = 2\nfiles = 1\n",
        );
        assert!(
            e.starts_with("s.toml: line 7:") && e.contains("held points must be in time order"),
            "{e}"
        );
        let e = err(
            "name = \"x\"\nram_bytes = \"8GiB\"\n[[held]]\nat_secs = 0\nfiles = 99999999999999\n",
        );
        assert!(
            e.starts_with("s.toml: line 5:") && e.contains("above the limit of 68719476736"),
            "{e}"
        );
        let e = err("name = \"x\"\nram_bytes = \"8GiB\"\n[[held]]\nat_secs = 0\nfiles = -1\n");
        assert!(e.starts_with("s.toml: line 5:"), "{e}");
        // The demand's points likewise: the line of the point out of order.
        let e = err(
            "name = \"x\"\nram_bytes = \"8GiB\"\n[[demand]]\nat_secs = 5\nbytes = 1\n\
                     [[demand]]\nat_secs = 9\nbytes = 1\n[[demand]]\nat_secs = 3\nbytes = 1\n",
        );
        assert!(e.starts_with("s.toml: line 10: demand points"), "{e}");
        let e = err("name = \"x\"\nram_bytes = \"8GiB\"\n[[held]]\nat_secs = 0\ninodes = 1\n");
        assert!(e.contains("unknown field `inodes`"), "{e}");
    }
}
