//! What the ARC does with the RAM: the explanation model behind
//! `arclab status` (spec `zfs-arc.md` §3, §5.1, §6.1, §6.5, §12.1).
//!
//! From one `arcstats` snapshot (plus `zfetchstats` / `dbufstats` when
//! present) it derives: size against `c`, `c_min`, `c_max` and RAM; the default
//! `c_max` for this RAM and the inferred release and whether the limit was
//! changed; the state split (anon / MRU / MFU / uncached) and the structural
//! split (data, metadata, headers, dbuf, dnode, bonus, ABD waste); evictable
//! against non-evictable bytes; **why `size` is above `c`** (overshoot = size −
//! c, with the non-evictable contributors of §6.5 largest first); hit ratios
//! since boot; and plain-language warnings.
//!
//! Values are taken from the snapshot as they are; nothing is guessed. What an
//! old layout does not export is listed in [`Status::cannot_compute`].

use arclab_arc::limits::{self, Os, ZfsVersion};
use arclab_arc::units::format_bytes;

use serde::{Serialize, Serializer};

use crate::arcstats::ArcSnapshot;
use crate::version::{self, VersionRange};

/// One part of the non-evictable memory.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Contributor {
    /// Short name (`anon`, `mfu_referenced`, `dnode`, …).
    pub name: &'static str,
    /// The arcstats fields it is computed from.
    pub fields: &'static str,
    /// Bytes.
    pub bytes: u64,
    /// Why the ARC cannot evict it.
    pub why: &'static str,
}

/// Hit ratios since module load (`None` when the counters are all zero).
/// Serialized under the `status --json` keys (`hit_ratio`, `demand_hit_ratio`, …).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct HitRatios {
    /// hits / (hits + iohits + misses).
    #[serde(rename = "hit_ratio")]
    pub total: Option<f64>,
    /// Demand (data + metadata) hits over demand accesses.
    #[serde(rename = "demand_hit_ratio")]
    pub demand: Option<f64>,
    /// Demand data.
    #[serde(rename = "demand_data_hit_ratio")]
    pub demand_data: Option<f64>,
    /// Demand metadata.
    #[serde(rename = "demand_metadata_hit_ratio")]
    pub demand_metadata: Option<f64>,
    /// Prefetch (data + metadata).
    #[serde(rename = "prefetch_hit_ratio")]
    pub prefetch: Option<f64>,
    /// Accesses counted (hits + iohits + misses).
    pub accesses: u64,
    /// Demand accesses.
    pub demand_accesses: u64,
    /// Prefetch accesses.
    pub prefetch_accesses: u64,
}

/// The explanation of one snapshot. Serializes to the `arclab status --json`
/// object: `version` (the range as text), `limits_behaviour`,
/// `version_evidence`, `ram_bytes`/`ram_source`, `states`/`parts` as
/// name → bytes maps, the [`HitRatios`] keys at top level,
/// `dnode_bytes`/`dnode_limit_bytes`, `meta_used_bytes`/`meta_limit_bytes`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Status {
    /// What was explained (the file name given to [`explain`]).
    pub source: String,
    /// Inferred release range.
    #[serde(flatten, serialize_with = "ser_version")]
    pub version: VersionRange,
    /// OS (from the input format).
    #[serde(serialize_with = "ser_display")]
    pub os: Os,
    /// `size`.
    pub size_bytes: u64,
    /// `c`.
    pub c_bytes: u64,
    /// `c_min`.
    pub c_min_bytes: u64,
    /// `c_max`.
    pub c_max_bytes: u64,
    /// RAM (allmem) used for the defaults, and where it came from.
    #[serde(flatten, serialize_with = "ser_ram")]
    pub ram: Option<(u64, &'static str)>,
    /// Default `c_max` for that RAM and release.
    pub default_c_max_bytes: Option<u64>,
    /// Default `c_min`.
    pub default_c_min_bytes: Option<u64>,
    /// The default's formula with numbers.
    pub default_c_max_formula: Option<String>,
    /// Whether `c_max` differs from the default (`zfs_arc_max` set).
    pub c_max_changed: Option<bool>,
    /// `(name, bytes)` of the states: anon, mru, mfu, uncached, mru_ghost, mfu_ghost.
    #[serde(serialize_with = "ser_pairs")]
    pub states: Vec<(&'static str, u64)>,
    /// `(name, bytes)` of the structural parts, in the §6.5 identity.
    #[serde(serialize_with = "ser_pairs")]
    pub parts: Vec<(&'static str, u64)>,
    /// Evictable bytes (anon/mru/mfu/uncached `*_evictable_*`).
    pub evictable_bytes: Option<u64>,
    /// Non-evictable bytes: the contributors' sum.
    pub non_evictable_bytes: Option<u64>,
    /// size minus the sum of the structural parts (0 when the identity holds).
    pub unaccounted_bytes: Option<i128>,
    /// `size − c` when positive, else 0.
    pub overshoot_bytes: u64,
    /// Non-evictable contributors, largest first.
    pub contributors: Vec<Contributor>,
    /// Why size is above c (empty when it is not).
    #[serde(rename = "why_size_above_c")]
    pub why_over: Vec<String>,
    /// Hit ratios since load.
    #[serde(flatten)]
    pub hits: HitRatios,
    /// `memory_available_bytes` (signed).
    pub available_bytes: Option<i64>,
    /// `memory_free_bytes`.
    pub free_bytes: Option<u64>,
    /// `arc_sys_free`.
    pub sys_free_bytes: Option<u64>,
    /// `dnode_size` and `arc_dnode_limit`.
    #[serde(flatten, serialize_with = "ser_dnode")]
    pub dnode: Option<(u64, u64)>,
    /// `(arc_meta_used, arc_meta_limit)` (limit before 2.2 only).
    #[serde(flatten, serialize_with = "ser_meta")]
    pub meta: Option<(u64, Option<u64>)>,
    /// Summary lines of zfetchstats and dbufstats when given.
    pub extra: Vec<String>,
    /// What this layout cannot tell.
    pub cannot_compute: Vec<String>,
    /// Plain-language warnings, most important first.
    pub warnings: Vec<String>,
}

fn ser_display<S: Serializer, T: std::fmt::Display>(v: &T, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(v)
}

fn ser_version<S: Serializer>(v: &VersionRange, s: S) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct Keys<'a> {
        version: String,
        limits_behaviour: String,
        version_evidence: &'a [String],
    }
    Keys {
        version: v.to_string(),
        limits_behaviour: v.behaviour.to_string(),
        version_evidence: &v.evidence,
    }
    .serialize(s)
}

fn ser_ram<S: Serializer>(v: &Option<(u64, &'static str)>, s: S) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct Keys {
        ram_bytes: Option<u64>,
        ram_source: Option<&'static str>,
    }
    Keys {
        ram_bytes: v.map(|r| r.0),
        ram_source: v.map(|r| r.1),
    }
    .serialize(s)
}

fn ser_dnode<S: Serializer>(v: &Option<(u64, u64)>, s: S) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct Keys {
        dnode_bytes: Option<u64>,
        dnode_limit_bytes: Option<u64>,
    }
    Keys {
        dnode_bytes: v.map(|d| d.0),
        dnode_limit_bytes: v.map(|d| d.1),
    }
    .serialize(s)
}

fn ser_meta<S: Serializer>(v: &Option<(u64, Option<u64>)>, s: S) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct Keys {
        meta_used_bytes: Option<u64>,
        meta_limit_bytes: Option<u64>,
    }
    Keys {
        meta_used_bytes: v.map(|m| m.0),
        meta_limit_bytes: v.and_then(|m| m.1),
    }
    .serialize(s)
}

/// `(name, bytes)` pairs as a name → bytes map (names are unique by construction).
fn ser_pairs<S: Serializer>(v: &[(&'static str, u64)], s: S) -> Result<S::Ok, S::Error> {
    s.collect_map(v.iter().map(|(k, b)| (*k, *b)))
}

/// A failure to explain a snapshot.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{file}: arcstats lacks `{field}`, which status needs")]
pub struct MissingField {
    /// File name.
    pub file: String,
    /// The field.
    pub field: &'static str,
}

fn sum(s: &ArcSnapshot, names: &[&str]) -> Option<u64> {
    names
        .iter()
        .map(|n| s.get_u64(n))
        .try_fold(0u64, |a, v| v.map(|v| a.saturating_add(v)))
}

fn ratio(hits: u64, total: u64) -> Option<f64> {
    (total > 0).then(|| hits as f64 / total as f64)
}

/// `*_evictable_*` of a state, or the ≤ 0.6.4 `*_evict_*` names.
fn evictable(s: &ArcSnapshot, state: &str) -> Option<u64> {
    sum(
        s,
        &[
            &format!("{state}_evictable_data"),
            &format!("{state}_evictable_metadata"),
        ],
    )
    .or_else(|| {
        sum(
            s,
            &[
                &format!("{state}_evict_data"),
                &format!("{state}_evict_metadata"),
            ],
        )
    })
}

/// Explain `snap`. `ram` overrides `memory_all_bytes`; `file` names the
/// input in errors.
pub fn explain(
    snap: &ArcSnapshot,
    zfetch: Option<&ArcSnapshot>,
    dbuf: Option<&ArcSnapshot>,
    ram: Option<u64>,
    file: &str,
) -> Result<Status, MissingField> {
    let need = |field: &'static str| {
        snap.get_u64(field).ok_or(MissingField {
            file: file.to_string(),
            field,
        })
    };
    let (size, c, c_min, c_max) = (need("size")?, need("c")?, need("c_min")?, need("c_max")?);
    let version = version::infer(snap);
    let os = version.os;
    let mut cannot = Vec::new();
    let mut warnings = Vec::new();

    let ram = match (ram, snap.get_u64("memory_all_bytes")) {
        (Some(r), _) => Some((r, "--ram")),
        (None, Some(r)) => Some((r, "memory_all_bytes")),
        (None, None) => {
            cannot.push("RAM: this release does not export memory_all_bytes (0.7.3+); pass --ram BYTES to compare c_max with its default".into());
            None
        }
    };
    let dflt = ram.map(|(r, _)| limits::limits(r, os, version.behaviour, None, None));
    let c_max_changed = dflt.as_ref().map(|d| d.c_max_bytes != c_max);

    let mut states = Vec::new();
    for st in ["anon", "mru", "mfu", "uncached", "mru_ghost", "mfu_ghost"] {
        if let Some(v) = snap.get_u64(&format!("{st}_size")) {
            states.push((st, v));
        }
    }
    let mut parts = Vec::new();
    for (name, field) in [
        ("data", "data_size"),
        ("metadata", "metadata_size"),
        ("metadata", "meta_size"),
        ("headers", "hdr_size"),
        ("l2_headers", "l2_hdr_size"),
        ("dbuf", "dbuf_size"),
        ("dnode", "dnode_size"),
        ("bonus", "bonus_size"),
        ("abd_chunk_waste", "abd_chunk_waste_size"),
    ] {
        if let Some(v) = snap
            .get_u64(field)
            .filter(|_| !parts.iter().any(|(n, _)| *n == name))
        {
            parts.push((name, v));
        }
    }
    let split = ["dbuf_size", "dnode_size", "bonus_size"]
        .iter()
        .all(|f| snap.has(f));
    if !split && let Some(o) = snap.get_u64("other_size") {
        parts.push(("other (dbuf+dnode+bonus)", o));
        cannot.push(
            "dbuf / dnode / bonus split: this release reports only their sum, other_size".into(),
        );
    }
    let unaccounted = (!parts.is_empty())
        .then(|| i128::from(size) - parts.iter().map(|p| i128::from(p.1)).sum::<i128>());

    // Evictable and non-evictable (§6.5).
    let mut contributors = Vec::new();
    let mut evictable_total = Some(0u64);
    for (state, name, why) in [
        (
            "anon",
            "anon",
            "dirty or in-flight write buffers: not on any eviction list until written",
        ),
        (
            "mru",
            "mru_referenced",
            "MRU buffers with holders (open files' dbufs, the dbuf cache, reads in flight)",
        ),
        (
            "mfu",
            "mfu_referenced",
            "MFU buffers with holders (open files' dbufs, the dbuf cache, reads in flight)",
        ),
        (
            "uncached",
            "uncached_referenced",
            "uncached-state buffers still referenced",
        ),
    ] {
        let Some(total) = snap.get_u64(&format!("{state}_size")) else {
            continue;
        };
        match evictable(snap, state) {
            Some(e) => {
                evictable_total = evictable_total.map(|t| t + e);
                contributors.push(Contributor {
                    name,
                    fields: match state {
                        "anon" => "anon_size − anon_evictable_*",
                        "mru" => "mru_size − mru_evictable_*",
                        "mfu" => "mfu_size − mfu_evictable_*",
                        _ => "uncached_size − uncached_evictable_*",
                    },
                    bytes: total.saturating_sub(e),
                    why,
                });
            }
            None if state == "anon" => {
                contributors.push(Contributor {
                    name,
                    fields: "anon_size",
                    bytes: total,
                    why,
                });
            }
            None => {
                evictable_total = None;
            }
        }
    }
    if evictable_total.is_none() {
        cannot.push("evictable vs non-evictable bytes: this layout has no *_evictable_* fields, so referenced MRU/MFU bytes cannot be told from evictable ones".into());
    }
    for (field, name, why) in [
        (
            "dbuf_size",
            "dbuf",
            "dmu_buf_impl_t structures; freed when their dbufs are evicted",
        ),
        (
            "dnode_size",
            "dnode",
            "dnode_t of open and cached objects; freed only after the OS drops the inodes/vnodes (prune)",
        ),
        ("bonus_size", "bonus", "bonus buffers of held dnodes"),
        (
            "other_size",
            "other",
            "dbuf + dnode + bonus structures (not split in this release)",
        ),
        (
            "hdr_size",
            "headers",
            "ARC headers incl. ghost headers; shrink only as buffers and ghosts are evicted",
        ),
        (
            "l2_hdr_size",
            "l2_headers",
            "headers of blocks that live only on L2ARC",
        ),
        (
            "abd_chunk_waste_size",
            "abd_chunk_waste",
            "rounding waste of scatter ABD chunks",
        ),
    ] {
        if field == "other_size" && split {
            continue;
        }
        if let Some(b) = snap.get_u64(field) {
            contributors.push(Contributor {
                name,
                fields: field,
                bytes: b,
                why,
            });
        }
    }
    contributors.sort_by_key(|c| std::cmp::Reverse(c.bytes));
    let non_evictable = evictable_total.map(|_| contributors.iter().map(|c| c.bytes).sum::<u64>());
    if evictable_total.is_none() {
        // Only the structural contributors and anon are real; drop nothing, but
        // do not claim a total.
        contributors.retain(|c| !c.name.ends_with("_referenced"));
    }

    let overshoot = size.saturating_sub(c);
    let why_over = explain_overshoot(
        &version,
        size,
        c,
        overshoot,
        evictable_total,
        non_evictable,
        &contributors,
    );

    // Hit ratios.
    let g = |n: &str| snap.get_u64(n).unwrap_or(0);
    let accesses = g("hits") + g("iohits") + g("misses");
    let dd = |k: &str| {
        g(&format!("demand_{k}_hits"))
            + g(&format!("demand_{k}_iohits"))
            + g(&format!("demand_{k}_misses"))
    };
    let pf = |k: &str| {
        g(&format!("prefetch_{k}_hits"))
            + g(&format!("prefetch_{k}_iohits"))
            + g(&format!("prefetch_{k}_misses"))
    };
    let demand_accesses = dd("data") + dd("metadata");
    let prefetch_accesses = pf("data") + pf("metadata");
    let hits = HitRatios {
        total: ratio(g("hits"), accesses),
        demand: ratio(
            g("demand_data_hits") + g("demand_metadata_hits"),
            demand_accesses,
        ),
        demand_data: ratio(g("demand_data_hits"), dd("data")),
        demand_metadata: ratio(g("demand_metadata_hits"), dd("metadata")),
        prefetch: ratio(
            g("prefetch_data_hits") + g("prefetch_metadata_hits"),
            prefetch_accesses,
        ),
        accesses,
        demand_accesses,
        prefetch_accesses,
    };

    let available = snap
        .get("memory_available_bytes")
        .and_then(|v| i64::try_from(v.as_i128()).ok());
    let dnode = snap
        .get_u64("dnode_size")
        .zip(snap.get_u64("arc_dnode_limit"));
    let meta = snap
        .get_u64("arc_meta_used")
        .map(|u| (u, snap.get_u64("arc_meta_limit")));
    let mut extra = Vec::new();
    if let Some(z) = zfetch {
        let (h, m) = (
            z.get_u64("hits").unwrap_or(0),
            z.get_u64("misses").unwrap_or(0),
        );
        extra.push(format!(
            "prefetcher (zfetchstats): {h} stream hits, {m} misses ({} of calls matched a stream){}",
            ratio(h, h + m).map_or("n/a".into(), |r| format!("{:.1} %", r * 100.0)),
            z.get_u64("max_streams").map_or(String::new(), |x| format!(", stream limit reached {x} times"))
        ));
    }
    if let Some(d) = dbuf
        && let (Some(sz), tgt) = (
            d.get_u64("cache_size_bytes"),
            d.get_u64("cache_target_bytes"),
        )
    {
        extra.push(format!(
            "dbuf cache (dbufstats): {} of {} target — held by dbufs, so not evictable by the ARC",
            format_bytes(sz),
            tgt.map_or("unknown".into(), format_bytes)
        ));
    }

    // Warnings, most important first.
    if let Some((r, _)) = ram {
        let share = c_max as f64 / r as f64;
        if share >= 0.75 {
            warnings.push(format!(
                "c_max is {} = {:.0} % of RAM{}: the ARC may grow into nearly all memory, and it sits outside every container's memory limit — on a box running many memory-limited containers, they compete with a cache that gives memory back slowly; consider `arclab tune cap`",
                format_bytes(c_max), share * 100.0,
                if c_max_changed == Some(false) { " (the default)" } else { "" }
            ));
        }
    }
    if overshoot > 0 && !why_over.is_empty() {
        warnings.push(format!(
            "size is {} above c: see \"why size > c\"",
            format_bytes(overshoot)
        ));
    }
    if let Some((d, l)) = dnode
        && l > 0
        && d * 10 >= l * 9
    {
        warnings.push(format!(
            "dnode pressure: dnode_size {} is {:.0} % of arc_dnode_limit {} — the ARC keeps asking the OS to drop inodes (arc_prune); raise {} or lower the number of cached files",
            format_bytes(d), d as f64 * 100.0 / l as f64, format_bytes(l),
            crate::tune::catalog::name_on("zfs_arc_dnode_limit_percent", os)
        ));
    }
    if let Some((u, Some(l))) = meta
        && l > 0
        && u * 10 >= l * 9
    {
        warnings.push(format!(
            "metadata pressure: arc_meta_used {} is {:.0} % of arc_meta_limit {}",
            format_bytes(u),
            u as f64 * 100.0 / l as f64,
            format_bytes(l)
        ));
    }
    if let Some(a) = available {
        if !plausible_available(a) {
            warnings.push(format!("memory_available_bytes is {a}: implausible (a placeholder or a corrupted sample), ignored"));
        } else if a < 0 {
            warnings.push(format!(
                "available memory is negative ({}): the ARC is being asked to shrink",
                format_bytes(a.unsigned_abs())
            ));
        }
    }
    if g("arc_no_grow") == 1 {
        warnings.push("arc_no_grow = 1: free memory is low, the ARC is not allowed to grow".into());
    }
    if g("memory_throttle_count") > 0 {
        warnings.push(format!(
            "memory_throttle_count = {}: writes were delayed for low memory since boot",
            g("memory_throttle_count")
        ));
    }
    if g("arc_prune") > 0 {
        warnings.push(format!(
            "arc_prune = {}: the ARC asked the OS to drop cached inodes/dentries this many times since boot (dnode or metadata pressure at some point)",
            g("arc_prune")
        ));
    }
    if c == c_min && size > 0 {
        warnings.push("c is at c_min: memory pressure has pushed the target to its floor".into());
    }
    for w in &snap.warnings {
        warnings.push(format!("{file}: {w}"));
    }

    Ok(Status {
        source: file.to_string(),
        os,
        size_bytes: size,
        c_bytes: c,
        c_min_bytes: c_min,
        c_max_bytes: c_max,
        ram,
        default_c_max_bytes: dflt.as_ref().map(|d| d.c_max_bytes),
        default_c_min_bytes: dflt.as_ref().map(|d| d.c_min_bytes),
        default_c_max_formula: dflt.as_ref().map(|d| d.c_max.formula.clone()),
        c_max_changed,
        states,
        parts,
        evictable_bytes: evictable_total,
        non_evictable_bytes: non_evictable,
        unaccounted_bytes: unaccounted,
        overshoot_bytes: overshoot,
        contributors,
        why_over,
        hits,
        available_bytes: available,
        free_bytes: snap.get_u64("memory_free_bytes"),
        sys_free_bytes: snap.get_u64("arc_sys_free"),
        dnode,
        meta,
        extra,
        cannot_compute: cannot,
        warnings,
        version,
    })
}

/// Whether a `memory_available_bytes` (an int64 that is negative when free
/// memory is below `arc_sys_free`) is plausible: not below −1 PiB. The ZoL
/// 0.7 fixture carries −922337203685477580 (about −i64::MAX/10), a value no
/// host's memory shortfall reaches.
///
/// ```
/// assert!(arclab_zfs::status::plausible_available(-(3 << 30)));
/// assert!(!arclab_zfs::status::plausible_available(-922_337_203_685_477_580));
/// ```
pub fn plausible_available(a: i64) -> bool {
    a >= -(1i64 << 50)
}

/// The slack above `c` before eviction is triggered, per release (§6.1).
fn slack(v: &VersionRange, c: u64) -> (u64, &'static str) {
    let k = (c >> 8).max(16 << 20);
    match v.behaviour {
        ZfsVersion::V2_2_9 | ZfsVersion::V2_3 => {
            (16 << 20, "c + 16 MiB (zfs_max_recordsize), 2.2.9+/2.3+")
        }
        ZfsVersion::V2_1 | ZfsVersion::V2_2 => (k / 2, "c + max(16 MiB, c/256)/2, 2.1.1–2.2.8"),
        _ => (k, "c + max(16 MiB, c/256), 0.6.5–2.1.0"),
    }
}

fn explain_overshoot(
    v: &VersionRange,
    size: u64,
    c: u64,
    over: u64,
    evictable: Option<u64>,
    non_evictable: Option<u64>,
    contributors: &[Contributor],
) -> Vec<String> {
    if over == 0 {
        return Vec::new();
    }
    let mut out = vec![format!(
        "size {} is {} ({:.1} %) above c {}",
        format_bytes(size),
        format_bytes(over),
        over as f64 * 100.0 / c.max(1) as f64,
        format_bytes(c)
    )];
    let (s, rule) = slack(v, c);
    if over < s {
        out.push(format!("that is within the slack eviction allows: allocations trigger eviction only at {rule} = {} above c", format_bytes(s)));
    }
    match (evictable, non_evictable) {
        (Some(e), Some(n)) if n > c => out.push(format!(
            "non-evictable memory alone ({}) exceeds c: even evicting all {} of evictable buffers cannot bring size down to c",
            format_bytes(n), format_bytes(e)
        )),
        (Some(e), Some(_)) if e >= over && over >= s => out.push(format!(
            "{} is evictable, more than the overshoot: eviction has not run yet — nothing allocated ARC memory since c dropped (e.g. zfs_arc_max lowered at runtime), or eviction is skipping young prefetched and busy headers",
            format_bytes(e)
        )),
        (Some(e), Some(_)) => out.push(format!("only {} is evictable; the rest is held", format_bytes(e))),
        _ => out.push("this layout does not say which bytes are evictable (no *_evictable_* fields)".into()),
    }
    if let Some(top) = contributors.first() {
        let names: Vec<String> = contributors
            .iter()
            .take(3)
            .map(|c| format!("{} {}", c.name, format_bytes(c.bytes)))
            .collect();
        out.push(format!(
            "largest non-evictable contributors: {} (top: {})",
            names.join(", "),
            top.why
        ));
    }
    out
}
