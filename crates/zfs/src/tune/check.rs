//! Judging tunables against the kernel's rules (spec `zfs-arc.md` §3.3, §13):
//! for every setting read by [`super::files`], whether the kernel will use
//! it, what it changes, and its default for the given RAM and release.
//!
//! * `zfs_arc_max` is ignored below 64 MiB, at or above all memory, or not above
//!   `c_min`; `zfs_arc_min` below 32 MiB or above `c_max` (so above
//!   `zfs_arc_max`). The verdicts come from [`arclab_arc::limits`](mod@arclab_arc::limits).
//! * Pre-OpenZFS FreeBSD ([`Target::FreeBsdLegacy`]) sizes the ARC from
//!   `vm.kmem_size`; an `arc_max` close to it risks the `kmem_map too small`
//!   panic, and `arc_max`/`arc_min` are boot-time-only.
//! * Linux module parameters take plain integers; a suffix (`8G`) makes the
//!   kernel reject the parameter.
//! * Unknown names are reported, never silently accepted.
//!
//! ```
//! use arclab_zfs::tune::files::parse_text;
//! use arclab_zfs::tune::check::{check, CheckOptions, Severity};
//! let f = parse_text("options zfs zfs_arc_max=32M\n", "zfs.conf", None).unwrap();
//! let r = check(&[f], &CheckOptions { ram_bytes: Some(8 << 30), ..Default::default() });
//! assert_eq!(r.findings[0].severity, Severity::Error); // below 64 MiB: ignored
//! ```

use arclab_arc::limits::{Os, ZfsVersion};
use arclab_arc::units::parse_bytes;

use super::catalog::{self as tunecat, Naming, Tunable, ValueKind};
use super::files::{FileKind, Setting, TunablesFile};
pub use super::target::{Target, parse_target};

mod judge;
use judge::{Ctx, explain_other, judge_arc};

/// How bad a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// In effect as intended.
    Ok,
    /// Worth knowing (not ZFS, a default, an alias).
    Note,
    /// Probably not what was meant (unknown name, no effect here).
    Warning,
    /// Ignored or harmful (value rejected, panic risk, module will not load).
    Error,
}

impl Severity {
    /// Lower-case label.
    pub fn label(self) -> &'static str {
        match self {
            Severity::Ok => "ok",
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// What `check` found about one setting.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// File the setting is in.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// The name as written.
    pub name: String,
    /// The value as written (unquoted).
    pub value: String,
    /// Linux parameter name of the tunable, if known.
    pub tunable: Option<&'static str>,
    /// Short status: `accepted`, `ignored`, `invalid`, `unknown`, `non-ZFS`, …
    pub status: &'static str,
    /// Severity.
    pub severity: Severity,
    /// The default for this RAM and release, as text.
    pub default: Option<String>,
    /// What the value does, in plain language.
    pub explanation: String,
}

/// Inputs besides the files.
#[derive(Clone, Debug, Default)]
pub struct CheckOptions {
    /// Physical RAM (`memory_all_bytes`), if known.
    pub ram_bytes: Option<u64>,
    /// OS; detected from the file kinds when `None`.
    pub os: Option<Os>,
    /// Release; detected (sysfs `version`, legacy FreeBSD names) or latest when `None`.
    pub target: Option<Target>,
}

/// The result of [`check`].
#[derive(Clone, Debug)]
pub struct CheckReport {
    /// OS checked for.
    pub os: Os,
    /// Release checked for.
    pub target: Target,
    /// RAM used for the defaults.
    pub ram_bytes: Option<u64>,
    /// How OS and release were chosen, and what could not be checked.
    pub assumptions: Vec<String>,
    /// One finding per setting, in file order.
    pub findings: Vec<Finding>,
}

impl CheckReport {
    /// Number of findings at `severity`.
    pub fn count(&self, severity: Severity) -> usize {
        self.findings
            .iter()
            .filter(|f| f.severity == severity)
            .count()
    }

    /// A label for the target, e.g. `OpenZFS 2.3.0+ on Linux`.
    pub fn target_label(&self) -> String {
        match self.target {
            Target::OpenZfs(v) => format!("{} on {}", v.releases(), self.os),
            Target::FreeBsdLegacy => "pre-OpenZFS FreeBSD (base-system ZFS, v28 era)".into(),
        }
    }
}

/// Names whose presence suggests pre-OpenZFS FreeBSD.
const LEGACY_MARKERS: &[&str] = &[
    "vm.kmem_size",
    "vm.kmem_size_max",
    "vfs.zfs.prefetch_disable",
    "vfs.zfs.txg.write_limit_override",
    "vfs.zfs.txg.synctime",
    "vfs.zfs.zfetch.block_cap",
];

fn decide(files: &[TunablesFile], opts: &CheckOptions) -> (Os, Target, Vec<String>) {
    let mut notes = Vec::new();
    let bsd = files.iter().any(|f| f.kind.is_freebsd());
    let linux = files.iter().any(|f| !f.kind.is_freebsd());
    let os = opts.os.unwrap_or_else(|| {
        let os = if bsd && !linux {
            Os::FreeBSD
        } else {
            Os::Linux
        };
        if bsd && linux {
            notes.push("both Linux and FreeBSD files given: checking as Linux (use --os)".into());
        } else {
            notes.push(format!(
                "OS {os} from the file kinds (use --os to override)"
            ));
        }
        os
    });
    let target = opts.target.unwrap_or_else(|| {
        if let Some(v) = files.iter().find_map(|f| f.module_version.as_deref())
            && let Ok((zv, _)) = ZfsVersion::parse_with_note(v)
        {
            notes.push(format!(
                "release {v} from the module's sysfs `version` file"
            ));
            return Target::OpenZfs(zv);
        }
        if os == Os::FreeBSD {
            let (t, why) = infer_freebsd_target(files);
            notes.push(why);
            return t;
        }
        notes.push(
            "release not given: assuming the latest behaviour, OpenZFS 2.3.0+ (use --zfs-version)"
                .into(),
        );
        Target::OpenZfs(ZfsVersion::V2_3)
    });
    if target == Target::FreeBsdLegacy && os == Os::Linux {
        notes.push("pre-OpenZFS targets are FreeBSD only: checking as FreeBSD".into());
        return (Os::FreeBSD, target, notes);
    }
    (os, target, notes)
}

/// Weigh the names in FreeBSD files: names only OpenZFS has (`vfs.zfs.arc.min`)
/// against names only pre-OpenZFS FreeBSD has (`vfs.zfs.prefetch_disable`,
/// `vm.kmem_size`, …). Pre-OpenZFS only when its names outnumber the OpenZFS
/// ones, so one legacy line left in a modern file does not turn the modern
/// names into "wrong names". Names both accept (`vfs.zfs.arc_max`) weigh
/// nothing. Returns the target and what was inferred and why.
fn infer_freebsd_target(files: &[TunablesFile]) -> (Target, String) {
    let mut modern = Vec::new();
    let mut legacy = Vec::new();
    for s in files.iter().flat_map(|f| &f.settings) {
        let at = format!("`{}` ({}:{})", s.name, s.file, s.line);
        if LEGACY_MARKERS.contains(&s.name.as_str()) {
            legacy.push(at);
            continue;
        }
        match tunecat::lookup(&s.name) {
            Some((_, Naming::Legacy)) => legacy.push(at),
            Some((t, Naming::FreeBsd)) if !t.legacy.contains(&s.name.as_str()) => modern.push(at),
            _ => {}
        }
    }
    let list = |v: &[String]| {
        let mut l = v.iter().take(3).cloned().collect::<Vec<_>>().join(", ");
        if v.len() > 3 {
            l.push_str(&format!(" and {} more", v.len() - 3));
        }
        l
    };
    let hint = "use --zfs-version to override";
    match (modern.len(), legacy.len()) {
        (0, 0) => (
            Target::OpenZfs(ZfsVersion::V2_3),
            format!(
                "release not given and no name is specific to OpenZFS or to pre-OpenZFS FreeBSD: assuming OpenZFS 2.3.0+ ({hint})"
            ),
        ),
        (m, l) if l > m => (
            Target::FreeBsdLegacy,
            format!(
                "inferred pre-OpenZFS FreeBSD: {l} pre-OpenZFS name(s) ({}) outweigh {m} OpenZFS-only name(s){} ({hint})",
                list(&legacy),
                if m > 0 {
                    format!(" ({})", list(&modern))
                } else {
                    String::new()
                }
            ),
        ),
        (m, l) => (
            Target::OpenZfs(ZfsVersion::V2_3),
            format!(
                "inferred OpenZFS (FreeBSD 13+), checked as 2.3.0+: {m} OpenZFS-only name(s) ({}){} ({hint})",
                list(&modern),
                if l > 0 {
                    format!(
                        " outweigh {l} pre-OpenZFS name(s) ({}), reported below",
                        list(&legacy)
                    )
                } else {
                    String::new()
                }
            ),
        ),
    }
}

/// Parse a numeric value the way the file's reader would.
fn parse_value(
    kind: ValueKind,
    s: &Setting,
    fk: FileKind,
) -> Result<(u64, Option<String>), String> {
    let v = s.value.trim();
    let plain = |v: &str| -> Option<u64> {
        match v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
            Some(h) => u64::from_str_radix(h, 16).ok(),
            None => v.parse().ok(),
        }
    };
    if let Some(n) = plain(v) {
        if kind == ValueKind::Bool && n > 1 {
            return Err(format!("`{v}` is not 0 or 1"));
        }
        return Ok((n, None));
    }
    match (fk, kind) {
        (FileKind::Modprobe | FileKind::SysfsDir, _) => Err(format!(
            "`{v}` is not a plain integer: the Linux kernel rejects it (no K/M/G suffixes), so loading zfs with this option fails"
        )),
        (_, ValueKind::Bytes) => match parse_bytes(v) {
            Ok(n) if fk == FileKind::SysctlConf => Ok((
                n,
                Some(format!(
                    "write {n} in sysctl.conf: K/M/G suffixes are a loader.conf (kernel environment) feature"
                )),
            )),
            Ok(n) => Ok((n, None)),
            Err(e) => Err(e.to_string()),
        },
        _ => Err(format!("`{v}` is not an integer")),
    }
}

/// Check every setting of `files`.
pub fn check(files: &[TunablesFile], opts: &CheckOptions) -> CheckReport {
    let (os, target, mut assumptions) = decide(files, opts);
    let ram = opts.ram_bytes;
    if ram.is_none() {
        assumptions.push(
            "RAM not given: defaults that depend on RAM and the `< all memory` rule are not checked (use --ram)"
                .into(),
        );
    }
    let mut findings = Vec::new();
    let mut arc: Vec<(usize, &'static str, u64)> = Vec::new();
    let mut kmem: Option<u64> = None;
    for f in files {
        for s in &f.settings {
            let idx = findings.len();
            let mut fd = Finding {
                file: s.file.clone(),
                line: s.line,
                name: s.name.clone(),
                value: s.value.clone(),
                tunable: None,
                status: "accepted",
                severity: Severity::Ok,
                default: None,
                explanation: String::new(),
            };
            classify(&mut fd, s, f.kind, os, target, &mut arc, idx);
            if s.name == "vm.kmem_size"
                && let Ok(k) = parse_bytes(&s.value)
            {
                kmem = Some(k);
            }
            findings.push(fd);
        }
    }
    mark_duplicates(&mut findings);
    let ctx = Ctx {
        os,
        target,
        ram,
        kmem,
    };
    judge_arc(&ctx, &arc, &mut findings, &mut assumptions);
    for fd in &mut findings {
        explain_other(&ctx, fd);
    }
    CheckReport {
        os,
        target,
        ram_bytes: ram,
        assumptions,
        findings,
    }
}

fn classify(
    fd: &mut Finding,
    s: &Setting,
    fk: FileKind,
    os: Os,
    target: Target,
    arc: &mut Vec<(usize, &'static str, u64)>,
    idx: usize,
) {
    let set = |fd: &mut Finding, st: &'static str, sev: Severity, text: String| {
        fd.status = st;
        fd.severity = sev;
        fd.explanation = text;
    };
    if let Some(m) = s.module.as_deref().filter(|m| *m != "zfs") {
        return set(
            fd,
            "non-ZFS",
            Severity::Note,
            format!("option for module `{m}`: not checked"),
        );
    }
    let name = s.name.as_str();
    if fk.is_freebsd() && !name.starts_with("vfs.zfs.") {
        let note = tunecat::non_zfs_note(name).unwrap_or("not a ZFS setting: not checked");
        return set(fd, "non-ZFS", Severity::Note, note.to_string());
    }
    let Some((t, naming)) = tunecat::lookup(name) else {
        let sev = if fk == FileKind::SysfsDir {
            Severity::Note
        } else {
            Severity::Warning
        };
        return set(
            fd,
            "unknown",
            sev,
            format!(
                "not a tunable arclab knows: a typo, or one it does not check{}",
                if fk == FileKind::SysfsDir {
                    " (it exists in this kernel module)"
                } else {
                    "; an unknown name has no effect"
                }
            ),
        );
    };
    fd.tunable = Some(t.linux);
    fd.default = Some(t.default.to_string());
    if let Some(msg) = naming_problem(t, naming, fk, os, target) {
        return set(fd, "wrong name", Severity::Warning, msg);
    }
    if target == Target::FreeBsdLegacy
        && fk == FileKind::SysctlConf
        && matches!(t.linux, "zfs_arc_max" | "zfs_arc_min")
    {
        return set(
            fd,
            "no effect",
            Severity::Warning,
            format!(
                "{name} is a boot-time tunable on pre-OpenZFS FreeBSD (read-only at runtime): put it in /boot/loader.conf"
            ),
        );
    }
    if let Target::OpenZfs(v) = target {
        let rel = v.first_release();
        if t.removed.is_some_and(|r| rel >= r) || t.added.is_some_and(|a| rel < a) {
            return set(
                fd,
                "no effect",
                Severity::Warning,
                format!(
                    "{} does not exist in {}: the setting has no effect ({})",
                    t.linux,
                    v.releases(),
                    t.effect
                ),
            );
        }
    }
    match parse_value(t.kind, s, fk) {
        Err(e) => set(fd, "invalid", Severity::Error, e),
        Ok((n, note)) => {
            if let Some(note) = note {
                fd.severity = Severity::Warning;
                fd.explanation = note;
            }
            if matches!(t.linux, "zfs_arc_max" | "zfs_arc_min") {
                arc.push((idx, t.linux, n));
            }
        }
    }
}

fn naming_problem(
    t: &Tunable,
    naming: Naming,
    fk: FileKind,
    os: Os,
    target: Target,
) -> Option<String> {
    let linux_file = matches!(fk, FileKind::Modprobe | FileKind::SysfsDir);
    match (linux_file, naming, target) {
        (true, Naming::Linux, _) => None,
        (true, _, _) => Some(format!(
            "FreeBSD name in a Linux file: the module parameter is `{}`",
            t.linux
        )),
        (false, Naming::Linux, _) => Some(format!(
            "Linux parameter name in a FreeBSD file: FreeBSD calls it `{}`",
            if target == Target::FreeBsdLegacy {
                t.legacy.first().copied().unwrap_or(t.freebsd)
            } else {
                t.freebsd
            }
        )),
        (false, _, Target::FreeBsdLegacy)
            if !t.legacy.is_empty() && !t.legacy.contains(&t_name(t, naming)) =>
        {
            Some(format!(
                "OpenZFS name: pre-OpenZFS FreeBSD calls it `{}`",
                t.legacy[0]
            ))
        }
        (false, _, Target::FreeBsdLegacy) if t.legacy.is_empty() => Some(format!(
            "`{}` is an OpenZFS tunable: pre-OpenZFS FreeBSD does not have it",
            t.freebsd
        )),
        (false, Naming::Legacy, Target::OpenZfs(_)) if os == Os::FreeBSD || !linux_file => {
            Some(format!(
                "pre-OpenZFS name: OpenZFS on FreeBSD calls it `{}`; check `sysctl {}` after boot",
                t.freebsd, t.freebsd
            ))
        }
        _ => None,
    }
}

fn t_name(t: &Tunable, naming: Naming) -> &'static str {
    match naming {
        Naming::Linux => t.linux,
        Naming::FreeBsd => t.freebsd,
        Naming::FreeBsdAlias => t.freebsd_aliases.first().copied().unwrap_or(t.freebsd),
        Naming::Legacy => t.legacy.first().copied().unwrap_or(t.freebsd),
    }
}

/// A tunable set twice: the earlier one has no effect (the last one wins).
fn mark_duplicates(findings: &mut [Finding]) {
    for i in 0..findings.len() {
        let Some(t) = findings[i].tunable else {
            continue;
        };
        if let Some(j) = (i + 1..findings.len()).rfind(|&j| findings[j].tunable == Some(t)) {
            let (file, line) = (findings[j].file.clone(), findings[j].line);
            let fd = &mut findings[i];
            fd.status = "overridden";
            fd.severity = fd.severity.max(Severity::Warning);
            fd.explanation = format!("set again at {file}:{line}; the later value wins");
        }
    }
}
