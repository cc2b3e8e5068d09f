//! Version-aware ARC limits: `c_min`, `c_max`, `arc_sys_free`, the dnode limit
//! (and the pre-2.2 metadata limit), and what the kernel does with
//! `zfs_arc_max` / `zfs_arc_min` at module load.
//!
//! This is the one home of these formulas (spec `zfs-arc.md` §3.1–3.3, §5.1,
//! §17; facts re-read from the OpenZFS release tags). Everything is integer
//! arithmetic in the kernel's order, including page rounding: `allmem` is
//! `ptob(pages)`, so `ram_bytes` is first rounded down to whole 4 KiB pages.
//!
//! ```
//! use arclab_arc::limits::{limits, Os, ZfsVersion};
//! // 33 532 497 920 bytes of RAM (the "31 GiB" box), OpenZFS 2.3 on Linux.
//! let l = limits(33_532_497_920, Os::Linux, ZfsVersion::V2_3, None, None);
//! assert_eq!(l.c_max_bytes, 33_532_497_920 - (1 << 30)); // RAM − 1 GiB
//! assert_eq!(l.c_min_bytes, 33_532_497_920 / 32);
//! let capped = limits(33_532_497_920, Os::Linux, ZfsVersion::V2_3, Some(8 << 30), None);
//! assert!(capped.arc_max.unwrap().is_accepted());
//! assert_eq!(capped.c_max_bytes, 8 << 30);
//! ```

use std::fmt;
use std::str::FromStr;

/// Page size assumed for page rounding (x86-64, and most arm64 kernels).
pub const PAGE_SIZE: u64 = 4096;
/// `MIN_ARC_MAX`: the smallest `zfs_arc_max` the kernel accepts (64 MiB).
pub const MIN_ARC_MAX: u64 = 64 << 20;
/// The smallest host RAM arclab models: 64 MiB, the smallest `zfs_arc_max`
/// the kernel accepts ([`MIN_ARC_MAX`]). One rule for `limits`, `sim`,
/// `whatif` and scenario files (see [`check_ram`]).
pub const MIN_RAM: u64 = MIN_ARC_MAX;
/// The largest host RAM arclab models: 1 PiB, far above any machine that
/// runs ZFS (and far from the model's 64-bit byte counters overflowing).
pub const MAX_RAM: u64 = 1 << 50;

/// Why a host RAM size is refused (see [`check_ram`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RamOutOfRange(pub u64);

impl fmt::Display for RamOutOfRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ram = crate::units::format_bytes(self.0);
        if self.0 < MIN_RAM {
            write!(
                f,
                "RAM {ram} is below 64 MiB: no ZFS host is that small (the smallest zfs_arc_max the kernel accepts is 64 MiB)"
            )
        } else {
            write!(f, "RAM {ram} is above 1 PiB: no ZFS host is that large")
        }
    }
}

impl std::error::Error for RamOutOfRange {}

/// The one check of a host's RAM: within [`MIN_RAM`]`..=`[`MAX_RAM`].
///
/// ```
/// use arclab_arc::limits::check_ram;
/// assert!(check_ram(8 << 30).is_ok());
/// assert!(check_ram(1 << 20).unwrap_err().to_string().contains("below 64 MiB"));
/// ```
pub fn check_ram(ram_bytes: u64) -> Result<(), RamOutOfRange> {
    if (MIN_RAM..=MAX_RAM).contains(&ram_bytes) {
        Ok(())
    } else {
        Err(RamOutOfRange(ram_bytes))
    }
}

/// `2 << SPA_MAXBLOCKSHIFT`: the floor of `c_min` and of `zfs_arc_min` (32 MiB).
pub const ARC_MIN_FLOOR: u64 = 32 << 20;
/// `1 << SPA_MAXBLOCKSHIFT`: `arc_meta_min`, the floor of the pre-2.2 metadata limit.
const META_MIN: u64 = 16 << 20;
const GIB: u64 = 1 << 30;

/// An OpenZFS / ZFS on Linux release number such as `2.2.7`.
///
/// A `patch` of [`Release::ANY_PATCH`] stands for "any patch release of this
/// series" and prints as `2.2.x`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Release {
    /// Major number (0 for ZFS on Linux, 2 for OpenZFS 2.x).
    pub major: u16,
    /// Minor number.
    pub minor: u16,
    /// Patch number, or [`Release::ANY_PATCH`].
    pub patch: u16,
}

impl Release {
    /// Patch value meaning "the whole series".
    pub const ANY_PATCH: u16 = u16::MAX;

    /// A release `major.minor.patch`.
    pub const fn new(major: u16, minor: u16, patch: u16) -> Self {
        Release {
            major,
            minor,
            patch,
        }
    }

    /// The last release of the series `major.minor` (`major.minor.x`).
    pub const fn series_end(major: u16, minor: u16) -> Self {
        Release::new(major, minor, Release::ANY_PATCH)
    }
}

impl fmt::Display for Release {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.patch == Release::ANY_PATCH {
            write!(f, "{}.{}.x", self.major, self.minor)
        } else {
            write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
        }
    }
}

/// Why a version string could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseVersionError {
    input: String,
    why: &'static str,
}

impl fmt::Display for ParseVersionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid ZFS version `{}`: {}", self.input, self.why)
    }
}

impl std::error::Error for ParseVersionError {}

impl FromStr for Release {
    type Err = ParseVersionError;

    /// Accepts `2.2`, `2.2.7`, `0.6.5.11`, `zfs-2.3.4`, `v2.1.5`,
    /// `2.2.0-rc4`, `2.1.5-1ubuntu6` (anything after `-` is ignored).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = |why| ParseVersionError {
            input: s.to_string(),
            why,
        };
        let t = s.trim();
        let t = t.strip_prefix("zfs-").unwrap_or(t);
        let t = t.strip_prefix('v').unwrap_or(t);
        let t = t.split('-').next().unwrap_or("");
        let parts: Vec<&str> = t.split('.').collect();
        if !(2..=4).contains(&parts.len()) {
            return Err(err("expected MAJOR.MINOR[.PATCH], e.g. 2.2 or 2.2.7"));
        }
        let num = |p: &str| p.parse::<u16>().ok().filter(|&n| n != u16::MAX);
        let (Some(major), Some(minor)) = (num(parts[0]), num(parts[1])) else {
            return Err(err("version parts must be numbers"));
        };
        let patch = match parts.get(2) {
            None => Release::ANY_PATCH,
            Some(p) => num(p).ok_or_else(|| err("version parts must be numbers"))?,
        };
        Ok(Release::new(major, minor, patch))
    }
}

/// A set of releases that behave identically as far as the limits go.
///
/// | set | releases | what changes at its start |
/// |---|---|---|
/// | `V0_6` | ZoL 0.6.x | `c_min` fixed 32 MiB; `arc_sys_free = ptob(physmem/64)` |
/// | `V0_7` | ZoL 0.7.0 – 0.8.6 | `c_min = max(allmem/32, 32 MiB)` (0.7.2+, see [`limits_for_release`]); dnode limit |
/// | `V2_0` | OpenZFS 2.0.0 – 2.1.0 | `c_max ≥ c_min`; watermark `arc_sys_free`; `zfs_arc_min` applied before `zfs_arc_max` |
/// | `V2_1` | 2.1.1 – 2.1.x | a load-time `zfs_arc_max` below `c_min` lowers `c_min` |
/// | `V2_2` | 2.2.0 – 2.2.8 | no `arc_meta_limit`; dnode limit = 10 % of `c_max` |
/// | `V2_2_9` | 2.2.9 – 2.2.x | new `arc_sys_free` watermark (`isqrt(KiB·16)`, 256 MiB clamp) |
/// | `V2_3` | 2.3.0 and later (default) | Linux `c_max = max(5/8·allmem, allmem − 1 GiB)` |
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum ZfsVersion {
    /// ZFS on Linux 0.6.x.
    V0_6,
    /// ZFS on Linux 0.7.0 – 0.8.6.
    V0_7,
    /// OpenZFS 2.0.0 – 2.1.0.
    V2_0,
    /// OpenZFS 2.1.1 – 2.1.x.
    V2_1,
    /// OpenZFS 2.2.0 – 2.2.8.
    V2_2,
    /// OpenZFS 2.2.9 – 2.2.x.
    V2_2_9,
    /// OpenZFS 2.3.0 and later (2.4.x, master): the latest behaviour.
    #[default]
    V2_3,
}

impl ZfsVersion {
    /// Every behaviour set, oldest first.
    pub const ALL: [ZfsVersion; 7] = [
        ZfsVersion::V0_6,
        ZfsVersion::V0_7,
        ZfsVersion::V2_0,
        ZfsVersion::V2_1,
        ZfsVersion::V2_2,
        ZfsVersion::V2_2_9,
        ZfsVersion::V2_3,
    ];

    /// The releases this set covers, e.g. `"OpenZFS 2.2.0–2.2.8"`.
    pub fn releases(self) -> &'static str {
        match self {
            ZfsVersion::V0_6 => "ZFS on Linux 0.6.x",
            ZfsVersion::V0_7 => "ZFS on Linux 0.7.0–0.8.6",
            ZfsVersion::V2_0 => "OpenZFS 2.0.0–2.1.0",
            ZfsVersion::V2_1 => "OpenZFS 2.1.1–2.1.x",
            ZfsVersion::V2_2 => "OpenZFS 2.2.0–2.2.8",
            ZfsVersion::V2_2_9 => "OpenZFS 2.2.9–2.2.x",
            ZfsVersion::V2_3 => "OpenZFS 2.3.0+",
        }
    }

    /// The first release of this set.
    pub fn first_release(self) -> Release {
        match self {
            ZfsVersion::V0_6 => Release::new(0, 6, 0),
            ZfsVersion::V0_7 => Release::new(0, 7, 0),
            ZfsVersion::V2_0 => Release::new(2, 0, 0),
            ZfsVersion::V2_1 => Release::new(2, 1, 1),
            ZfsVersion::V2_2 => Release::new(2, 2, 0),
            ZfsVersion::V2_2_9 => Release::new(2, 2, 9),
            ZfsVersion::V2_3 => Release::new(2, 3, 0),
        }
    }

    /// The behaviour set of a release, with a note when the mapping is a guess
    /// (future releases map to the latest set) or worth knowing.
    pub fn for_release(r: Release) -> Result<(ZfsVersion, Option<String>), &'static str> {
        let any = r.patch == Release::ANY_PATCH;
        Ok(match (r.major, r.minor) {
            (0, 0..=5) => (
                ZfsVersion::V0_6,
                Some(format!("{r} predates ZoL 0.6: treated as 0.6")),
            ),
            (0, 6) => (ZfsVersion::V0_6, None),
            (0, 7 | 8) => (ZfsVersion::V0_7, None),
            (0, _) | (1, _) => return Err("no such ZFS on Linux / OpenZFS release series"),
            (2, 0) => (ZfsVersion::V2_0, None),
            (2, 1) if r.patch == 0 => (
                ZfsVersion::V2_0,
                Some("2.1.0 still has the 2.0 load-time zfs_arc_max handling".into()),
            ),
            (2, 1) => (ZfsVersion::V2_1, None),
            (2, 2) if any => (
                ZfsVersion::V2_2,
                Some(
                    "2.2 means 2.2.0–2.2.8; give 2.2.9 or later for the newer arc_sys_free".into(),
                ),
            ),
            (2, 2) if r.patch >= 9 => (ZfsVersion::V2_2_9, None),
            (2, 2) => (ZfsVersion::V2_2, None),
            (2, 3 | 4) => (ZfsVersion::V2_3, None),
            _ => (
                ZfsVersion::V2_3,
                Some(format!(
                    "{r} is newer than any release this table knows (2.4.x): assuming the latest behaviour"
                )),
            ),
        })
    }

    /// Like [`FromStr`] but also returns the mapping note, if any.
    pub fn parse_with_note(s: &str) -> Result<(ZfsVersion, Option<String>), ParseVersionError> {
        let t = s.trim();
        if t.eq_ignore_ascii_case("latest") {
            return Ok((ZfsVersion::V2_3, None));
        }
        let r: Release = t.parse()?;
        ZfsVersion::for_release(r).map_err(|why| ParseVersionError {
            input: s.to_string(),
            why,
        })
    }
}

impl FromStr for ZfsVersion {
    type Err = ParseVersionError;

    /// `0.6`, `0.7`, `0.8`, `2.0`, `2.1`, `2.2`, `2.2.9`, `2.3`, `2.4`,
    /// `latest`, or any full release (`2.2.7`, `2.3.4`, `0.8.6`, `zfs-2.1.5`).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ZfsVersion::parse_with_note(s).map(|(v, _)| v)
    }
}

impl fmt::Display for ZfsVersion {
    /// Prints a string that parses back to the same set (`0.7`, `2.2.9`, `2.3`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ZfsVersion::V0_6 => "0.6",
            ZfsVersion::V0_7 => "0.7",
            ZfsVersion::V2_0 => "2.0",
            ZfsVersion::V2_1 => "2.1",
            ZfsVersion::V2_2 => "2.2",
            ZfsVersion::V2_2_9 => "2.2.9",
            ZfsVersion::V2_3 => "2.3",
        })
    }
}

/// The operating system the module runs on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Os {
    /// Linux (ZFS on Linux / OpenZFS).
    #[default]
    Linux,
    /// FreeBSD with OpenZFS (FreeBSD 13+).
    FreeBSD,
}

impl fmt::Display for Os {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Os::Linux => "Linux",
            Os::FreeBSD => "FreeBSD",
        })
    }
}

impl FromStr for Os {
    type Err = ParseVersionError;

    /// `linux` or `freebsd` (any case).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "linux" => Ok(Os::Linux),
            "freebsd" => Ok(Os::FreeBSD),
            _ => Err(ParseVersionError {
                input: s.to_string(),
                why: "expected linux or freebsd",
            }),
        }
    }
}

/// What the kernel did with a `zfs_arc_max` / `zfs_arc_min` setting.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Verdict {
    /// The value is in effect.
    Accepted,
    /// The kernel ignored the value (Linux logs "ignoring tunable"; FreeBSD's
    /// sysctl returns `EINVAL`) and kept the value in `reason`.
    Ignored {
        /// Which rule rejected it, with the numbers.
        reason: String,
    },
}

impl Verdict {
    /// True for [`Verdict::Accepted`].
    pub fn is_accepted(&self) -> bool {
        matches!(self, Verdict::Accepted)
    }
}

/// How one limit was computed.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Derivation {
    /// The formula with the numbers filled in.
    pub formula: String,
    /// The releases and OS the formula applies to.
    pub applies_to: String,
    /// Where the spec (`zfs-arc.md`) describes it.
    pub spec: &'static str,
}

/// The limits a host ends up with.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Limits {
    /// `allmem` (kstat `memory_all_bytes`): the RAM rounded down to pages.
    pub allmem_bytes: u64,
    /// The OS the limits were computed for.
    pub os: Os,
    /// The behaviour set the limits were computed for.
    pub version: ZfsVersion,
    /// `c_min` (`arc_c_min`).
    pub c_min_bytes: u64,
    /// How `c_min` was computed.
    pub c_min: Derivation,
    /// `c_max` (`arc_c_max`).
    pub c_max_bytes: u64,
    /// How `c_max` was computed.
    pub c_max: Derivation,
    /// `arc_sys_free`: memory the ARC leaves to the system (0 on FreeBSD).
    pub sys_free_bytes: u64,
    /// How `arc_sys_free` was computed.
    pub sys_free: Derivation,
    /// `arc_dnode_limit`; `None` before 0.7 (no such limit).
    pub dnode_limit_bytes: Option<u64>,
    /// How the dnode limit was computed.
    pub dnode_limit: Derivation,
    /// `arc_meta_limit` (before 2.2 only).
    pub meta_limit_bytes: Option<u64>,
    /// How `arc_meta_limit` was computed (before 2.2 only).
    pub meta_limit: Option<Derivation>,
    /// What happened to `zfs_arc_max`, if it was given.
    pub arc_max: Option<Verdict>,
    /// What happened to `zfs_arc_min`, if it was given.
    pub arc_min: Option<Verdict>,
    /// Assumptions made (page size, kernel version, OS/version substitutions).
    pub notes: Vec<String>,
}

/// Every input of [`limits_with`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LimitsInput {
    /// Physical RAM in bytes (Linux `totalram_pages`, FreeBSD `physmem`, times the page size).
    pub ram_bytes: u64,
    /// Operating system.
    pub os: Os,
    /// Behaviour set.
    pub version: ZfsVersion,
    /// `zfs_arc_max` set at module load (`None` or `Some(0)`: automatic).
    pub arc_max: Option<u64>,
    /// `zfs_arc_min` set at module load.
    pub arc_min: Option<u64>,
    /// Linux kernel older than 5.7 (2.2.9+/2.3+ clamp the watermark at 64 MiB
    /// instead of 256 MiB there; matters from 256 GiB of RAM).
    pub linux_before_5_7: bool,
}

/// The limits for `ram_bytes` of RAM, assuming 4 KiB pages and (Linux) a
/// kernel ≥ 5.7. See [`limits_with`] for the other knobs.
pub fn limits(
    ram_bytes: u64,
    os: Os,
    version: ZfsVersion,
    arc_max: Option<u64>,
    arc_min: Option<u64>,
) -> Limits {
    limits_with(LimitsInput {
        ram_bytes,
        os,
        version,
        arc_max,
        arc_min,
        linux_before_5_7: false,
    })
}

fn mib(b: u64) -> String {
    if b.is_multiple_of(1 << 20) {
        format!("{} MiB", b >> 20)
    } else {
        format!("{b}")
    }
}

/// `a * num / den` in 128 bits (the kernel's u64 product cannot overflow for
/// any real RAM size; this only keeps absurd inputs from panicking).
fn muldiv(a: u64, num: u64, den: u64) -> u64 {
    u64::try_from(u128::from(a) * u128::from(num) / u128::from(den)).unwrap_or(u64::MAX)
}

/// The limits as the kernel computes them at module load.
pub fn limits_with(input: LimitsInput) -> Limits {
    compute(input, false)
}

/// [`limits_with`] for one exact release, with the boundaries inside a
/// behaviour set: ZoL 0.7.0 and 0.7.1 keep 0.6's fixed 32 MiB `c_min`
/// (`arc_init`: `arc_c_min = 2ULL << SPA_MAXBLOCKSHIFT` in the kernel
/// branch); `max(allmem/32, 32 MiB)` arrived in 0.7.2 ("Increase default
/// arc_c_min", commit 266b181e75).
pub fn limits_for_release(input: LimitsInput, release: Release) -> Limits {
    let fixed = release.major == 0 && release.minor == 7 && release.patch <= 1;
    compute(input, fixed)
}

fn compute(input: LimitsInput, c_min_32m: bool) -> Limits {
    use ZfsVersion::*;
    let os = input.os;
    let mut notes = vec![format!(
        "allmem = ptob(btop(RAM)) with {PAGE_SIZE}-byte pages"
    )];
    let mut v = input.version;
    if os == Os::FreeBSD && v < V2_0 {
        notes.push(format!(
            "FreeBSD never ran ZoL {v}; pre-OpenZFS FreeBSD sized the ARC from vm.kmem_size, \
             which is not modelled: computed as FreeBSD OpenZFS 2.0"
        ));
        v = V2_0;
    }
    let pages = input.ram_bytes / PAGE_SIZE;
    let allmem = pages * PAGE_SIZE;
    let applies = |set: &str| format!("{set} on {os}");

    // c_min (§3.1).
    let c_min_32m = v == V0_6 || (c_min_32m && v == V0_7);
    let (mut c_min, c_min_f) = if c_min_32m {
        (
            ARC_MIN_FLOOR,
            "2 << SPA_MAXBLOCKSHIFT = 32 MiB (fixed in 0.6.x, 0.7.0, 0.7.1)".to_string(),
        )
    } else {
        let c = (allmem / 32).max(ARC_MIN_FLOOR);
        (
            c,
            format!("max(allmem/32, 32 MiB) = max({allmem}/32, 32 MiB) = {c}"),
        )
    };
    let mut c_min_d = Derivation {
        formula: c_min_f,
        applies_to: applies(if c_min_32m {
            "ZoL 0.6.x – 0.7.1"
        } else {
            "ZoL 0.7+ / OpenZFS"
        }),
        spec: "§3.1",
    };

    // c_max (§3.2).
    let (mut c_max, c_max_f, c_max_set) = if os == Os::FreeBSD || v >= V2_3 {
        let size = if allmem >= GIB { allmem - GIB } else { c_min };
        let c = muldiv(allmem, 5, 8).max(size);
        let alt = if allmem >= GIB {
            "allmem − 1 GiB"
        } else {
            "c_min"
        };
        let set = if os == Os::FreeBSD {
            "FreeBSD OpenZFS 2.0+"
        } else {
            "OpenZFS 2.3.0+"
        };
        (
            c,
            format!(
                "max(allmem·5/8, {alt}) = max({}, {size}) = {c}",
                muldiv(allmem, 5, 8)
            ),
            set,
        )
    } else if v >= V2_0 {
        let c = (allmem / 2).max(c_min);
        (
            c,
            format!("max(allmem/2, c_min) = max({}, {c_min}) = {c}", allmem / 2),
            "OpenZFS 2.0.0–2.2.x",
        )
    } else {
        (
            allmem / 2,
            format!("allmem/2 = {allmem}/2 = {}", allmem / 2),
            "ZoL 0.6–0.8",
        )
    };
    let mut c_max_d = Derivation {
        formula: c_max_f,
        applies_to: applies(c_max_set),
        spec: "§3.2",
    };

    // arc_sys_free (§5.1).
    let (sys_free, sys_free_d) = sys_free(allmem, pages, os, v, input.linux_before_5_7, &mut notes);

    // Tunables (§3.3). 2.1.1+: a load-time zfs_arc_max is applied in arc_init
    // before arc_tuning_update, lowering c_min if needed.
    let arc_max = input.arc_max.filter(|&m| m != 0);
    let arc_min = input.arc_min.filter(|&m| m != 0);
    let mut max_verdict = input.arc_max.map(|_| Verdict::Accepted);
    let mut min_verdict = input.arc_min.map(|_| Verdict::Accepted);
    let zero = |what: &str| Verdict::Ignored {
        reason: format!("{what}=0 means automatic: the default applies"),
    };
    if input.arc_max == Some(0) {
        max_verdict = Some(zero("zfs_arc_max"));
    }
    if input.arc_min == Some(0) {
        min_verdict = Some(zero("zfs_arc_min"));
    }
    let mut max_done = false;
    if let Some(m) = arc_max
        && v >= V2_1
        && m >= MIN_ARC_MAX
        && m < allmem
    {
        c_max = m;
        c_max_d.formula = format!("zfs_arc_max = {m}");
        if c_min >= c_max {
            c_min = (m / 2).max(ARC_MIN_FLOOR);
            c_min_d.formula = format!(
                "max(zfs_arc_max/2, 32 MiB) = {c_min} (default c_min ≥ zfs_arc_max; arc_init lowers it)"
            );
        }
        max_done = true;
    }
    // Pre-2.2 metadata limit, as arc_init sets it (after the load-time c_max).
    let mut meta_limit = (v < V2_2).then(|| {
        if v == V0_6 {
            (3 * c_max / 4).max(META_MIN)
        } else {
            muldiv(c_max, 75, 100).max(META_MIN)
        }
    });
    let mut dnode = match v {
        V0_6 => None,
        V0_7 | V2_0 | V2_1 => meta_limit.map(|m| muldiv(m, 10, 100)),
        _ => Some(muldiv(c_max, 10, 100)),
    };

    let check_min = |c_min: u64, c_max: u64, m: u64| -> Result<(), String> {
        if m < ARC_MIN_FLOOR {
            Err(format!(
                "zfs_arc_min {m} is below 32 MiB (2 << SPA_MAXBLOCKSHIFT)"
            ))
        } else if m > c_max {
            Err(format!(
                "zfs_arc_min {m} is above c_max {c_max} (zfs_arc_min must be ≤ c_max; is zfs_arc_min above zfs_arc_max?)"
            ))
        } else {
            let _ = c_min;
            Ok(())
        }
    };
    let check_max = |c_min: u64, m: u64| -> Result<(), String> {
        let floor_ok = if v == V0_6 {
            m > MIN_ARC_MAX
        } else {
            m >= MIN_ARC_MAX
        };
        if !floor_ok {
            let rel = if v == V0_6 { "not above" } else { "below" };
            Err(format!("zfs_arc_max {m} is {rel} 64 MiB (MIN_ARC_MAX)"))
        } else if m >= allmem {
            Err(format!(
                "zfs_arc_max {m} is not below all memory (allmem = memory_all_bytes = {allmem})"
            ))
        } else if m <= c_min {
            Err(format!(
                "zfs_arc_max {m} is not above c_min {c_min} (lower zfs_arc_min too)"
            ))
        } else {
            Ok(())
        }
    };
    let mut apply_min = |c_min: &mut u64, c_max: u64, d: &mut Derivation| {
        if let Some(m) = arc_min {
            match check_min(*c_min, c_max, m) {
                Ok(()) => {
                    *c_min = m;
                    d.formula = format!("zfs_arc_min = {m}");
                }
                Err(reason) => min_verdict = Some(Verdict::Ignored { reason }),
            }
        }
    };
    // ≤ 2.0: zfs_arc_max first (0.x) or after zfs_arc_min (2.0+), both in arc_tuning_update.
    if v >= V2_0 {
        apply_min(&mut c_min, c_max, &mut c_min_d);
    }
    if let (Some(m), false) = (arc_max, max_done) {
        match check_max(c_min, m) {
            Ok(()) => {
                c_max = m;
                c_max_d.formula = format!("zfs_arc_max = {m}");
                if let Some(ml) = meta_limit.as_mut() {
                    if v == V0_6 {
                        *ml = (*ml).min(3 * c_max / 4);
                    } else {
                        *ml = (*ml).min(c_max);
                        dnode = dnode.map(|d| d.min(*ml));
                    }
                }
            }
            Err(reason) => max_verdict = Some(Verdict::Ignored { reason }),
        }
    }
    if v < V2_0 {
        apply_min(&mut c_min, c_max, &mut c_min_d);
    }
    // 0.7–2.1 recompute meta and dnode limits from the final c_max, if in range.
    if matches!(v, V0_7 | V2_0 | V2_1) {
        if let Some(ml) = meta_limit.as_mut() {
            let limit = muldiv(c_max, 75, 100);
            if limit >= META_MIN && limit <= c_max {
                *ml = limit;
            }
            let limit = muldiv(*ml, 10, 100);
            if limit >= META_MIN && limit <= *ml {
                dnode = Some(limit);
            }
        }
    } else if v >= V2_2 {
        dnode = Some(muldiv(c_max, 10, 100));
    }
    let dnode_limit = Derivation {
        formula: match (v, dnode) {
            (V0_6, _) | (_, None) => "none: ZoL 0.6 has no arc_dnode_limit".to_string(),
            (v, Some(d)) if v >= V2_2 => format!("c_max·10/100 = {c_max}·10/100 = {d}"),
            (_, Some(d)) => format!(
                "arc_meta_limit·10/100 = {}·10/100 = {d}",
                meta_limit.unwrap_or(0)
            ),
        },
        applies_to: applies(if v >= V2_2 {
            "OpenZFS 2.2.0+"
        } else {
            "ZoL 0.7 – OpenZFS 2.1.x"
        }),
        spec: "§3.1",
    };
    let meta_d = meta_limit.map(|m| Derivation {
        formula: if v == V0_6 {
            format!("max(3·c_max/4, 16 MiB) = {m}")
        } else {
            format!("max(c_max·75/100, 16 MiB) = {m}")
        },
        applies_to: applies("ZoL 0.6 – OpenZFS 2.1.x"),
        spec: "§3.6",
    });
    Limits {
        allmem_bytes: allmem,
        os,
        version: v,
        c_min_bytes: c_min,
        c_min: c_min_d,
        c_max_bytes: c_max,
        c_max: c_max_d,
        sys_free_bytes: sys_free,
        sys_free: sys_free_d,
        dnode_limit_bytes: dnode,
        dnode_limit,
        meta_limit_bytes: meta_limit,
        meta_limit: meta_d,
        arc_max: max_verdict,
        arc_min: min_verdict,
        notes,
    }
}

fn sys_free(
    allmem: u64,
    pages: u64,
    os: Os,
    v: ZfsVersion,
    old_kernel: bool,
    notes: &mut Vec<String>,
) -> (u64, Derivation) {
    use ZfsVersion::*;
    let d = |formula: String, set: &str| Derivation {
        formula,
        applies_to: format!("{set} on {os}"),
        spec: "§5.1",
    };
    if os == Os::FreeBSD {
        return (
            0,
            d(
                "0: FreeBSD reclaims against vm.v_free_target; only vfs.zfs.arc.sys_free sets it"
                    .into(),
                "OpenZFS",
            ),
        );
    }
    match v {
        V0_6 => {
            let s = (pages / 64 * PAGE_SIZE).max(512 << 10);
            (
                s,
                d(
                    format!(
                        "max(ptob(physmem/64), 512 KiB) = max(ptob({pages}/64), 512 KiB) = {s}"
                    ),
                    "ZoL 0.6.x",
                ),
            )
        }
        V0_7 => {
            let s = (allmem / 64).max(512 << 10);
            (
                s,
                d(format!("max(allmem/64, 512 KiB) = {s}"), "ZoL 0.7–0.8"),
            )
        }
        V2_0 | V2_1 | V2_2 => {
            let w = 4 * (allmem / 1024).isqrt() * 1024;
            let w = w.clamp(128 << 10, 64 << 20);
            let w = w + w * 150 / 100;
            let s = w * 3 + allmem / 32;
            let f = format!(
                "wmark = clamp(4·isqrt(allmem/1024)·1024, 128 KiB, 64 MiB) ·2.5 = {w}; 3·wmark + allmem/32 = {s}"
            );
            (s, d(f, "OpenZFS 2.0.0–2.2.8"))
        }
        V2_2_9 | V2_3 => {
            let cap: u64 = if old_kernel { 64 << 20 } else { 256 << 20 };
            if !old_kernel {
                notes.push("Linux kernel ≥ 5.7 assumed (watermark clamp 256 MiB)".into());
            }
            let w = (allmem / 1024 * 16).isqrt() * 1024;
            let w = w.clamp(128 << 10, cap);
            let w = w + w * 150 / 100;
            let s = w * 3 + allmem / 32;
            let f = format!(
                "wmark = clamp(isqrt(allmem/1024·16)·1024, 128 KiB, {}) ·2.5 = {w}; 3·wmark + allmem/32 = {s}",
                mib(cap)
            );
            (s, d(f, "OpenZFS 2.2.9+ / 2.3.0+"))
        }
    }
}
