//! Inferring the ZFS release from an `arcstats` snapshot.
//!
//! 1. **Field set.** Each release era exports a known set of fields (see
//!    [`crate::catalog`]); the era whose set differs least from the snapshot
//!    wins (`p` ⇒ ≤ 2.1, `meta`/`pd`/`pm` and `iohits` ⇒ ≥ 2.2, `l2_ndev` ⇒
//!    2.3.8+/2.4.3+, …). Fields that do not fit are listed as evidence.
//! 2. **Values**, inside the 2.2.0–2.4.2 era (147 Linux rows, spec §11.3):
//!    `hash_elements_max > hash_elements` ⇒ ≤ 2.2.x (2.3.0 made it a copy of
//!    `hash_elements`); on Linux a `c_max` equal to the 2.3 default
//!    (`max(5/8·allmem, allmem − 1 GiB)`) but not the 2.2 one (`allmem/2`) ⇒
//!    ≥ 2.3.0, and the reverse ⇒ ≤ 2.2.x; failing both, equal hash counts ⇒
//!    ≥ 2.3.0 (weak). Inside 2.2.x, `arc_sys_free` tells 2.2.0–2.2.8 from 2.2.9+.
//!
//! ```
//! use arclab_zfs::{arcstats::parse_arcstats, version::infer};
//! use arclab_arc::limits::ZfsVersion;
//! let text = "kstat.zfs.misc.arcstats.p: 5\nkstat.zfs.misc.arcstats.hits: 1\n";
//! let v = infer(&parse_arcstats(text, "x").unwrap());
//! assert!(v.behaviour < ZfsVersion::V2_2); // `p` ⇒ before 2.2
//! ```

use arclab_arc::limits::{Os, Release, ZfsVersion, limits};

use crate::arcstats::{ArcSnapshot, Source};
use crate::catalog;

/// The releases a snapshot can come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VersionRange {
    /// Oldest possible release.
    pub min: Release,
    /// Newest possible release (`None`: up to the newest known).
    pub max: Option<Release>,
    /// Releases inside `min..=max` that are ruled out (inclusive bounds).
    pub excluded: Option<(Release, Release)>,
    /// The OS, from the input format.
    pub os: Os,
    /// The limits behaviour set to use for this snapshot.
    pub behaviour: ZfsVersion,
    /// Why, one finding per entry.
    pub evidence: Vec<String>,
}

impl VersionRange {
    /// Whether `r` is inside the range.
    pub fn contains(&self, r: Release) -> bool {
        r >= self.min
            && self.max.is_none_or(|m| r <= m)
            && self.excluded.is_none_or(|(a, b)| r < a || r > b)
    }
}

impl std::fmt::Display for VersionRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.max {
            Some(m) if m == self.min => write!(f, "{}", self.min)?,
            Some(m) => write!(f, "{}–{}", self.min, m)?,
            None => write!(f, "{}+", self.min)?,
        }
        if let Some((a, b)) = self.excluded {
            write!(f, " except {a}–{b}")?;
        }
        write!(f, " on {} (limits behaviour {})", self.os, self.behaviour)
    }
}

struct Era {
    rep: Release,
    min: Release,
    max: Option<Release>,
    excluded: Option<(Release, Release)>,
}

const fn r(a: u16, b: u16, c: u16) -> Release {
    Release::new(a, b, c)
}
const X: u16 = Release::ANY_PATCH;

const ERAS: &[Era] = &[
    Era {
        rep: r(0, 6, 0),
        min: r(0, 6, 0),
        max: Some(r(0, 6, 4)),
        excluded: None,
    },
    Era {
        rep: r(0, 6, 5),
        min: r(0, 6, 5),
        max: Some(r(0, 6, X)),
        excluded: None,
    },
    Era {
        rep: r(0, 7, 0),
        min: r(0, 7, 0),
        max: Some(r(0, 7, 2)),
        excluded: None,
    },
    Era {
        rep: r(0, 7, 3),
        min: r(0, 7, 3),
        max: Some(r(0, 7, 5)),
        excluded: None,
    },
    Era {
        rep: r(0, 7, 6),
        min: r(0, 7, 6),
        max: Some(r(0, 7, X)),
        excluded: None,
    },
    Era {
        rep: r(0, 8, 0),
        min: r(0, 8, 0),
        max: Some(r(0, 8, X)),
        excluded: None,
    },
    Era {
        rep: r(2, 0, 0),
        min: r(2, 0, 0),
        max: Some(r(2, 0, X)),
        excluded: None,
    },
    Era {
        rep: r(2, 1, 0),
        min: r(2, 1, 0),
        max: Some(r(2, 1, X)),
        excluded: None,
    },
    Era {
        rep: r(2, 2, 0),
        min: r(2, 2, 0),
        max: Some(r(2, 4, 2)),
        excluded: Some((r(2, 3, 8), r(2, 3, X))),
    },
    Era {
        rep: r(2, 3, 8),
        min: r(2, 3, 8),
        max: None,
        excluded: Some((r(2, 4, 0), r(2, 4, 2))),
    },
];

/// The fields an era exports on the given OS.
fn expected(rep: Release, freebsd: bool) -> Vec<&'static str> {
    catalog::all()
        .iter()
        .map(|f| f.name)
        .filter(|n| catalog::field_in(n, rep, freebsd))
        .collect()
}

/// `memory_all_bytes` (allmem) of a snapshot, if exported (0.7.3+).
pub fn allmem_bytes(snap: &ArcSnapshot) -> Option<u64> {
    snap.get_u64("memory_all_bytes")
}

/// The OS a snapshot comes from, by its format.
pub fn os_of(snap: &ArcSnapshot) -> Os {
    match snap.source {
        Source::LinuxProc => Os::Linux,
        Source::FreeBsdSysctl => Os::FreeBSD,
    }
}

/// Infer the release range of an `arcstats` snapshot.
pub fn infer(snap: &ArcSnapshot) -> VersionRange {
    let os = os_of(snap);
    let freebsd = os == Os::FreeBSD;
    let mut evidence = vec![format!(
        "{} output: {os}",
        if freebsd { "sysctl" } else { "procfs kstat" }
    )];
    let names: Vec<&str> = snap.names().collect();
    let scored: Vec<(usize, &Era, Vec<&str>, Vec<&str>)> = ERAS
        .iter()
        .map(|era| {
            let exp = expected(era.rep, freebsd);
            let missing: Vec<&str> = exp.iter().copied().filter(|n| !names.contains(n)).collect();
            let extra: Vec<&str> = names.iter().copied().filter(|n| !exp.contains(n)).collect();
            (missing.len() + extra.len(), era, missing, extra)
        })
        .collect();
    let best = scored.iter().map(|s| s.0).min().unwrap_or(0);
    // Among equally good eras take the newest (a field added later is the
    // stronger signal); list the others.
    let Some((_, era, missing, extra)) = scored.iter().rev().find(|s| s.0 == best) else {
        unreachable!("ERAS is not empty")
    };
    let exp_len = expected(era.rep, freebsd).len();
    evidence.push(format!(
        "{} rows; closest field set is that of {} ({exp_len} rows{})",
        names.len(),
        era_label(era),
        if best == 0 { ", exact match" } else { "" }
    ));
    if !missing.is_empty() {
        evidence.push(format!("missing from that set: {}", missing.join(", ")));
    }
    if !extra.is_empty() {
        evidence.push(format!("not in that set: {}", extra.join(", ")));
    }
    if let Some(h) = snap.header {
        evidence.push(format!("kstat header announces {} rows", h.ndata));
    }
    for (marker, what) in [
        ("p", "`p` ⇒ before 2.2"),
        ("meta", "`meta`/`pd`/`pm` ⇒ 2.2+"),
        ("iohits", "`iohits` ⇒ 2.2+"),
        ("l2_ndev", "`l2_ndev` ⇒ 2.3.8+ or 2.4.3+"),
        ("recycle_miss", "`recycle_miss` ⇒ 0.6.4 or older"),
        ("duplicate_buffers", "`duplicate_buffers` ⇒ 0.6.x"),
    ] {
        if snap.has(marker) {
            evidence.push(what.to_string());
        }
    }
    let mut range = VersionRange {
        min: era.min,
        max: era.max,
        excluded: era.excluded,
        os,
        behaviour: ZfsVersion::for_release(era.min).map_or(ZfsVersion::V2_3, |(v, _)| v),
        evidence,
    };
    if era.rep == r(2, 1, 0) {
        range.behaviour = ZfsVersion::V2_1;
        range
            .evidence
            .push("2.1.0 and 2.1.1+ export the same fields; using the 2.1.1+ limits".into());
    }
    if era.rep == r(2, 2, 0) {
        refine_2x(snap, &mut range);
    }
    if freebsd && range.min >= r(2, 2, 0) && range.max == Some(r(2, 2, X)) {
        range
            .evidence
            .push("consistent with FreeBSD 14.x, whose base system ships OpenZFS 2.2".into());
    }
    range
}

fn era_label(era: &Era) -> String {
    let mut s = match era.max {
        Some(m) => format!("{}–{}", era.min, m),
        None => format!("{}+", era.min),
    };
    if let Some((a, b)) = era.excluded {
        s.push_str(&format!(" except {a}–{b}"));
    }
    s
}

/// Split the 2.2.0–2.4.2 era into ≤ 2.2.x and ≥ 2.3.0 using values.
fn refine_2x(snap: &ArcSnapshot, range: &mut VersionRange) {
    let to_22 = |range: &mut VersionRange| {
        range.max = Some(r(2, 2, X));
        range.excluded = None;
        range.behaviour = ZfsVersion::V2_2;
    };
    let to_23 = |range: &mut VersionRange| {
        range.min = r(2, 3, 0);
        range.behaviour = ZfsVersion::V2_3;
    };
    let (he, hm) = (
        snap.get_u64("hash_elements"),
        snap.get_u64("hash_elements_max"),
    );
    let allmem = allmem_bytes(snap);
    let c_max = snap.get_u64("c_max");
    if let (Some(he), Some(hm)) = (he, hm)
        && hm > he
    {
        range.evidence.push(format!(
            "hash_elements_max {hm} > hash_elements {he}: still a high-water mark ⇒ ≤ 2.2.x"
        ));
        to_22(range);
    }

    let is_22 = range.max == Some(r(2, 2, X));
    if let (false, Os::Linux, Some(allmem), Some(c_max)) = (is_22, range.os, allmem, c_max) {
        let d23 = limits(allmem, Os::Linux, ZfsVersion::V2_3, None, None).c_max_bytes;
        let d22 = limits(allmem, Os::Linux, ZfsVersion::V2_2, None, None).c_max_bytes;
        if c_max == d23 && c_max != d22 {
            range.evidence.push(format!(
                "c_max {c_max} = 2.3.0+ Linux default max(allmem·5/8, allmem − 1 GiB) for allmem {allmem} (2.2 would give {d22}) ⇒ ≥ 2.3.0"
            ));
            to_23(range);
        } else if c_max == d22 && c_max != d23 {
            range.evidence.push(format!(
                "c_max {c_max} = ≤ 2.2 Linux default allmem/2 ⇒ ≤ 2.2.x"
            ));
            to_22(range);
        } else if he.is_some() && he == hm {
            range.evidence.push(format!(
                "c_max {c_max} is neither default (zfs_arc_max set by hand); hash_elements_max == hash_elements ⇒ 2.3.0+ (weak: a 2.2 host at its peak shows the same)"
            ));
            to_23(range);
        }
    } else if !is_22 && he.is_some() && he == hm {
        range.evidence.push(
            "hash_elements_max == hash_elements ⇒ 2.3.0+ (weak: a 2.2 host at its peak shows the same)".into(),
        );
        to_23(range);
    }
    // 2.2.9 changed the Linux arc_sys_free watermark.
    if range.max == Some(r(2, 2, X))
        && range.os == Os::Linux
        && let (Some(allmem), Some(sf)) = (allmem, snap.get_u64("arc_sys_free"))
    {
        let old = limits(allmem, Os::Linux, ZfsVersion::V2_2, None, None).sys_free_bytes;
        let new = limits(allmem, Os::Linux, ZfsVersion::V2_2_9, None, None).sys_free_bytes;
        if sf == new && sf != old {
            range.min = r(2, 2, 9);
            range.behaviour = ZfsVersion::V2_2_9;
            range.evidence.push(format!(
                "arc_sys_free {sf} uses the 2.2.9+ watermark ⇒ ≥ 2.2.9"
            ));
        } else if sf == old && sf != new {
            range.max = Some(r(2, 2, 8));
            range.evidence.push(format!(
                "arc_sys_free {sf} uses the ≤ 2.2.8 watermark ⇒ ≤ 2.2.8"
            ));
        }
    }
}
