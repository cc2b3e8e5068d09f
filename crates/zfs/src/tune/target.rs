//! The ZFS a tunable, a cap or a limit is judged for: [`Target`], its one
//! parser ([`parse_target`], used by every command that takes
//! `--zfs-version`), and what that release does when `zfs_arc_max` is lowered
//! at runtime ([`shrink_when`]).
//!
//! ```
//! use arclab_zfs::tune::target::{Target, parse_target};
//! use arclab_arc::limits::ZfsVersion;
//! assert_eq!(parse_target("legacy").unwrap().0, Target::FreeBsdLegacy);
//! assert_eq!(parse_target("2.2.7").unwrap().0, Target::OpenZfs(ZfsVersion::V2_2));
//! assert!(parse_target("two").is_err());
//! ```

use arclab_arc::limits::{Os, ZfsVersion};

/// The ZFS implementation the files are for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// ZFS on Linux / OpenZFS with this limits behaviour (Linux or FreeBSD 13+).
    OpenZfs(ZfsVersion),
    /// FreeBSD's base-system ZFS before OpenZFS (FreeBSD 7–12, pool v13–v28).
    FreeBsdLegacy,
}

/// Parse a `--zfs-version`: any [`ZfsVersion`] spelling, or `legacy`
/// (also `pre-openzfs`, `freebsd-legacy`, `v13`, `v15`, `v28`) for
/// pre-OpenZFS FreeBSD. Returns the target and a note about the mapping.
pub fn parse_target(s: &str) -> Result<(Target, Option<String>), String> {
    let t = s.trim().to_ascii_lowercase();
    if matches!(
        t.as_str(),
        "legacy" | "pre-openzfs" | "freebsd-legacy" | "v13" | "v15" | "v28"
    ) {
        return Ok((Target::FreeBsdLegacy, None));
    }
    ZfsVersion::parse_with_note(s)
        .map(|(v, n)| (Target::OpenZfs(v), n))
        .map_err(|e| format!("{e} (or `legacy` for pre-OpenZFS FreeBSD)"))
}

/// When lowering `zfs_arc_max` at runtime shrinks the running ARC (§3.4).
pub fn shrink_when(v: ZfsVersion, os: Os) -> String {
    let pressure = if os == Os::FreeBSD {
        "or when the pagedaemon signals low memory"
    } else {
        "or under memory pressure (kswapd / direct reclaim)"
    };
    match v {
        ZfsVersion::V0_6 => "within about a second: the reclaim thread evicts down to the new target every second, even when idle".into(),
        ZfsVersion::V0_7 => format!(
            "on 0.7.x within about a second (the reclaim thread adjusts every second, even when idle); on 0.8.x only at the next ARC allocation once size ≥ c + max(16 MiB, c/256), {pressure}"
        ),
        ZfsVersion::V2_0 => format!(
            "at the next ARC allocation (read miss or write) once size ≥ c + max(16 MiB, c/256) — that allocation then waits for eviction — {pressure}; an idle ARC stays above the cap"
        ),
        ZfsVersion::V2_1 | ZfsVersion::V2_2 => format!(
            "when the next ARC allocation finds size ≥ c + max(16 MiB, c/256)/2 (eviction wakes), {pressure}; an idle ARC stays above the cap"
        ),
        ZfsVersion::V2_2_9 | ZfsVersion::V2_3 => format!(
            "at the first ARC allocation (any read miss or write) once size ≥ c + 16 MiB, {pressure}; c and c_max drop at once, but an idle ARC stays above the cap"
        ),
    }
}

/// The target of a live host: its module version file's text (sysfs
/// `module/zfs/version`) when readable, else the release inferred from its
/// arcstats, else 2.3.0+. Returns the target and how it was found.
pub fn detect(
    version_file: Option<(&str, &str)>,
    snap: Option<&crate::arcstats::ArcSnapshot>,
) -> (Target, String) {
    if let Some((path, text)) = version_file
        && let Ok((zv, _)) = ZfsVersion::parse_with_note(text.trim())
    {
        return (
            Target::OpenZfs(zv),
            format!("release {} from {path}", text.trim()),
        );
    }
    if let Some(s) = snap {
        let v = crate::version::infer(s);
        return (
            Target::OpenZfs(v.behaviour),
            format!("release inferred from arcstats: {v}"),
        );
    }
    (
        Target::OpenZfs(ZfsVersion::V2_3),
        "release unknown: assuming OpenZFS 2.3.0+ (use --zfs-version)".into(),
    )
}
