//! The observed host as a `whatif` scenario (`arclab scenario --from-host`).
//!
//! | scenario key | taken from |
//! |---|---|
//! | `ram_bytes` | arcstats `memory_all_bytes` (the kernel's total RAM, 0.7.3+), else meminfo `MemTotal` |
//! | `os` | the input format (Linux kstat or FreeBSD sysctl) |
//! | `zfs_version` | sysfs `module/zfs/version` when given, else inferred from the arcstats rows ([`crate::version::infer`]); the evidence is written as a comment |
//! | `arc_max`, `arc_min` | the module parameters `zfs_arc_max`/`zfs_arc_min` when given and in force (equal to arcstats `c_max`/`c_min`; 0 = automatic: left out); else arcstats `c_max`/`c_min` |
//! | `prefetch` | `!zfs_prefetch_disable` when given, else on (the default) |
//! | `[pinned]` | arcstats `dnode_size`, `dbuf_size`, `bonus_size`; releases that export only `other_size` (their sum) have it counted as `dbuf_bytes`; `metadata_bytes`: the metadata it cannot evict, `metadata_size − Σ *_evictable_metadata` |
//! | `[[demand]]` | meminfo: `MemTotal − MemAvailable − size` (see below) |
//!
//! **Other processes' memory.** On Linux the ARC's buffers are neither page
//! cache nor reclaimable slab, so `MemAvailable` does not count any of the
//! ARC, evictable or not (openzfs/zfs#10255): `MemTotal − MemAvailable` is
//! the other processes' memory *plus the whole ARC*. The ARC's share is its
//! arcstats `size`; subtracting only its non-evictable part would charge the
//! evictable cache to the other processes. So the demand is
//! `MemTotal − MemAvailable − size` (never below 0), one point at `t = 0`.

use std::collections::BTreeMap;

use arclab_arc::limits::{Os, Release, ZfsVersion};
use arclab_sim::scenario::{DemandPoint, Pinned, Scenario};

use super::{HostError, Kstats, Meminfo, ModuleParams};
use crate::status::MissingField;
use crate::version;

/// What was read from the host.
#[derive(Clone, Copy, Debug)]
pub struct HostInputs<'a> {
    /// arcstats (from procfs or a saved file).
    pub kstats: &'a Kstats,
    /// `/proc/meminfo`, when given.
    pub meminfo: Option<Meminfo>,
    /// Module version and parameters, when given.
    pub params: Option<&'a ModuleParams>,
}

/// A scenario of the host, with the comments that say where each value came from.
#[derive(Clone, Debug, PartialEq)]
pub struct HostScenario {
    /// The scenario (loads with [`Scenario::from_toml_str`]).
    pub scenario: Scenario,
    /// Comment lines by the TOML key they explain (`""`: the file header).
    pub notes: BTreeMap<&'static str, Vec<String>>,
}

impl HostScenario {
    /// The TOML text: the scenario with each key's comments above it.
    pub fn to_toml(&self) -> String {
        let body = self.scenario.to_toml_string();
        let mut placed: Vec<&str> = Vec::new();
        let mut out = String::new();
        for line in body.lines() {
            let t = line.trim_start_matches('[').trim_start();
            for (&key, lines) in &self.notes {
                if key.is_empty() || placed.contains(&key) {
                    continue;
                }
                let hit = t
                    .strip_prefix(key)
                    .is_some_and(|r| r.starts_with(' ') || r.starts_with(']'));
                if hit {
                    placed.push(key);
                    for l in lines {
                        out.push_str(&format!("# {l}\n"));
                    }
                }
            }
            out.push_str(line);
            out.push('\n');
        }
        let mut head = String::new();
        for (&key, lines) in &self.notes {
            if key.is_empty() || !placed.contains(&key) {
                for l in lines {
                    head.push_str(&format!("# {l}\n"));
                }
            }
        }
        head + &out
    }
}

fn os_key(os: Os) -> &'static str {
    match os {
        Os::Linux => "linux",
        Os::FreeBSD => "freebsd",
    }
}

/// Build the scenario of the observed host. The result is checked by
/// loading its own TOML back ([`Scenario::from_toml_str`]).
pub fn scenario_from_host(inp: &HostInputs<'_>) -> Result<HostScenario, HostError> {
    let snap = &inp.kstats.arc;
    let file = inp.kstats.name.as_str();
    let need = |field: &'static str| {
        snap.get_u64(field).ok_or(MissingField {
            file: file.to_string(),
            field,
        })
    };
    let (size, c_max, c_min) = (need("size")?, need("c_max")?, need("c_min")?);
    let mut notes: BTreeMap<&'static str, Vec<String>> = BTreeMap::new();
    let mut note = |k: &'static str, s: String| notes.entry(k).or_default().push(s);
    note(
        "",
        format!("The host observed from {file} by `arclab scenario --from-host`."),
    );
    if let Some(p) = inp.params {
        note("", format!("Module parameters from {}.", p.dir));
    }

    // RAM.
    let ram_bytes = match (snap.get_u64("memory_all_bytes"), inp.meminfo) {
        (Some(r), m) => {
            note("ram_bytes", "arcstats memory_all_bytes".into());
            if let Some(m) = m
                && m.total_bytes.abs_diff(r) >= 1024
            {
                note(
                    "ram_bytes",
                    format!("meminfo MemTotal is {} bytes", m.total_bytes),
                );
            }
            r
        }
        (None, Some(m)) => {
            note(
                "ram_bytes",
                "meminfo MemTotal (this arcstats has no memory_all_bytes)".into(),
            );
            m.total_bytes
        }
        (None, None) => {
            return Err(HostError::Input {
                file: file.to_string(),
                message: "RAM unknown: this arcstats has no memory_all_bytes (0.7.3+); give a meminfo file".into(),
            });
        }
    };

    // OS and release.
    let range = version::infer(snap);
    let os = range.os;
    let sysfs_release = inp
        .params
        .and_then(|p| p.version.as_deref())
        .and_then(|v| v.parse::<Release>().ok().map(|r| (v, r)));
    let zfs_version = match sysfs_release {
        Some((raw, r)) if ZfsVersion::for_release(r).is_ok() => {
            note(
                "zfs_version",
                format!("module/zfs/version = {raw} (arcstats rows suggest {range})"),
            );
            r.to_string().replace(".x", "")
        }
        _ => {
            note(
                "zfs_version",
                format!("inferred from the arcstats rows: {range}"),
            );
            for e in &range.evidence {
                note("zfs_version", format!("  evidence: {e}"));
            }
            range.behaviour.to_string()
        }
    };

    // Limits in force.
    let mut in_force = |key: &'static str,
                        param_name: &str,
                        param: Option<u64>,
                        stat_name: &str,
                        stat: u64|
     -> Option<u64> {
        match param {
            Some(0) => {
                note(
                    key,
                    format!(
                        "{param_name} = 0 (automatic): left out, the model computes it (arcstats {stat_name} = {stat})"
                    ),
                );
                None
            }
            Some(v) if v == stat => {
                note(key, format!("{param_name} = {v}, in force ({stat_name})"));
                Some(v)
            }
            Some(v) => {
                note(
                    key,
                    format!(
                        "{param_name} = {v} is not in force: arcstats {stat_name} = {stat} (ignored by the kernel or not applied yet); using {stat_name}"
                    ),
                );
                Some(stat)
            }
            None => {
                note(
                    key,
                    format!("arcstats {stat_name} (module parameter {param_name} not read)"),
                );
                Some(stat)
            }
        }
    };
    let arc_max = in_force(
        "arc_max",
        "zfs_arc_max",
        inp.params.and_then(|p| p.arc_max),
        "c_max",
        c_max,
    );
    let arc_min = in_force(
        "arc_min",
        "zfs_arc_min",
        inp.params.and_then(|p| p.arc_min),
        "c_min",
        c_min,
    );

    // Prefetch.
    let prefetch = match inp.params.and_then(|p| p.prefetch_disable) {
        Some(v) => {
            note("prefetch", format!("zfs_prefetch_disable = {v}"));
            v == 0
        }
        None => {
            note(
                "prefetch",
                "zfs_prefetch_disable not read: prefetch assumed on (the default)".into(),
            );
            true
        }
    };

    // Pinned.
    let (dn, db, bo) = (
        snap.get_u64("dnode_size"),
        snap.get_u64("dbuf_size"),
        snap.get_u64("bonus_size"),
    );
    let mut pinned = if dn.is_some() || db.is_some() || bo.is_some() {
        note(
            "pinned",
            "arcstats dnode_size, dbuf_size, bonus_size".into(),
        );
        Pinned {
            dnode_bytes: dn.unwrap_or(0),
            dbuf_bytes: db.unwrap_or(0),
            bonus_bytes: bo.unwrap_or(0),
            ..Pinned::default()
        }
    } else if let Some(o) = snap.get_u64("other_size") {
        note(
            "pinned",
            "arcstats other_size (dbuf + dnode + bonus, not split in this release), counted as dbuf_bytes".into(),
        );
        Pinned {
            dbuf_bytes: o,
            ..Pinned::default()
        }
    } else {
        note(
            "pinned",
            "this arcstats has no dnode/dbuf/bonus/other sizes: nothing pinned".into(),
        );
        Pinned::default()
    };
    if let Some(meta) = snap.get_u64("metadata_size") {
        let ev: Vec<u64> = ["anon", "mru", "mfu", "uncached"]
            .iter()
            .filter_map(|s| snap.get_u64(&format!("{s}_evictable_metadata")))
            .collect();
        if !ev.is_empty() {
            let held = meta.saturating_sub(ev.iter().sum());
            note(
                "pinned",
                format!(
                    "metadata_bytes: metadata_size − Σ *_evictable_metadata = {held} bytes the ARC cannot evict"
                ),
            );
            pinned.metadata_bytes = held;
        }
    }

    // Other processes' memory.
    let mut demand = Vec::new();
    match inp.meminfo {
        Some(Meminfo {
            total_bytes,
            available_bytes: Some(avail),
        }) => {
            let other = total_bytes.saturating_sub(avail).saturating_sub(size);
            note(
                "demand",
                format!(
                    "other processes = MemTotal − MemAvailable − ARC size = {total_bytes} − {avail} − {size}"
                ),
            );
            note(
                "demand",
                "MemAvailable counts none of the ARC (evictable or not), so the whole ARC size is taken out".into(),
            );
            if os == Os::FreeBSD {
                note(
                    "demand",
                    "meminfo on FreeBSD is linprocfs's view: check it against `sysctl vm.stats`".into(),
                );
            }
            demand.push(DemandPoint {
                at_secs: 0.0,
                bytes: other,
            });
        }
        Some(_) => note(
            "",
            "meminfo has no MemAvailable (Linux < 3.14): other processes' memory unknown, no [[demand]]".into(),
        ),
        None => note(
            "",
            "no meminfo given: other processes' memory unknown, no [[demand]]".into(),
        ),
    }

    let scenario = Scenario {
        name: "host".into(),
        description: Some(format!("observed host ({file})")),
        ram_bytes,
        os: os_key(os).into(),
        zfs_version,
        arc_max,
        arc_min,
        prefetch,
        tunables: BTreeMap::new(),
        pinned,
        demand,
        held: Vec::new(),
        workload: None,
        warmup_secs: 0.0,
    };
    let hs = HostScenario { scenario, notes };
    Scenario::from_toml_str(&hs.to_toml(), "scenario of the host").map_err(|e| {
        HostError::Input {
            file: file.to_string(),
            message: format!("the host's scenario does not load: {e}"),
        }
    })?;
    Ok(hs)
}
