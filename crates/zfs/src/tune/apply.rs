//! Planning and applying a cap on `zfs_arc_max` (`arclab tune cap`).
//!
//! A [`CapPlan`] says which persistent line to write (Linux
//! `/etc/modprobe.d/zfs.conf`: `options zfs zfs_arc_max=N`; FreeBSD
//! `/boot/loader.conf`: `vfs.zfs.arc.max="N"`, or `vfs.zfs.arc_max` before
//! OpenZFS), which runtime write makes it effective now (Linux
//! `/sys/module/zfs/parameters/zfs_arc_max`; FreeBSD `sysctl vfs.zfs.arc.max=N`,
//! printed, never run), and when the running ARC will actually shrink on that
//! release (spec `zfs-arc.md` §3.4).
//!
//! [`apply_cap`] writes only those two files, under a root directory, the
//! runtime one first: the sysfs parameter in place (sysfs files cannot be
//! renamed over), then the persistent file through a temporary file in the
//! same directory and a rename (atomic), after copying the old file to a
//! backup. When the runtime write fails nothing else is written; when the
//! persistent write fails after it, the runtime parameter is set back to its
//! old value; the error says exactly what was and was not changed. It
//! refuses, before writing anything, when the effective uid is not 0 and a
//! target is not writable for that uid, or when a target resolves through a
//! symlink outside the root. What it needs from the machine (the uid, the
//! in-place write) comes through the [`System`] trait, so tests can be
//! another uid or a failing kernel. No shell and no external command is ever
//! run.
//!
//! ```
//! use arclab_zfs::tune::apply::edit_modprobe;
//! let out = edit_modprobe("options zfs zfs_arc_max=0 zfs_arc_min=1\n", 8 << 30);
//! assert_eq!(out, "options zfs zfs_arc_max=8589934592 zfs_arc_min=1\n");
//! ```

use std::io::Write;
use std::path::{Path, PathBuf};

use arclab_arc::limits::{self, Os, Verdict};
use arclab_arc::units::format_bytes;

use super::target::{Target, shrink_when};

/// What `tune cap` will do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CapPlan {
    /// OS.
    pub os: Os,
    /// Release.
    pub target: Target,
    /// The cap in bytes.
    pub bytes: u64,
    /// Persistent file, relative to the root (e.g. `etc/modprobe.d/zfs.conf`).
    pub persistent_path: PathBuf,
    /// The line that file must contain.
    pub persistent_line: String,
    /// Runtime parameter file relative to the root (Linux only).
    pub runtime_path: Option<PathBuf>,
    /// The command that applies it at runtime, for the operator to run (FreeBSD).
    pub runtime_command: Option<String>,
    /// When the running ARC will shrink.
    pub shrink: String,
    /// The kernel's verdict on the value, if RAM is known.
    pub verdict: Option<Verdict>,
    /// c_max, c_min and dnode limit before and after, and other remarks.
    pub notes: Vec<String>,
}

/// Plan a cap of `bytes` on `zfs_arc_max` from the release's defaults.
pub fn plan_cap(bytes: u64, os: Os, target: Target, ram: Option<u64>) -> CapPlan {
    plan_cap_with(bytes, os, target, ram, None)
}

/// Plan a cap of `bytes` on `zfs_arc_max` on a host where `in_force` (the
/// bytes and where they were read, see [`cap_in_force`]) already caps the
/// ARC: "before" is that cap, not the release's default.
pub fn plan_cap_with(
    bytes: u64,
    os: Os,
    target: Target,
    ram: Option<u64>,
    in_force: Option<(u64, String)>,
) -> CapPlan {
    let mut notes = Vec::new();
    let (persistent_path, persistent_line, runtime_path, runtime_command, shrink) = match (
        os, target,
    ) {
        (_, Target::FreeBsdLegacy) => (
            PathBuf::from("boot/loader.conf"),
            format!("vfs.zfs.arc_max=\"{bytes}\""),
            None,
            None,
            "at the next boot only: vfs.zfs.arc_max is a boot-time tunable on pre-OpenZFS FreeBSD"
                .to_string(),
        ),
        (Os::FreeBSD, Target::OpenZfs(v)) => (
            PathBuf::from("boot/loader.conf"),
            format!("vfs.zfs.arc.max=\"{bytes}\""),
            None,
            Some(format!("sysctl vfs.zfs.arc.max={bytes}")),
            shrink_when(v, os),
        ),
        (Os::Linux, Target::OpenZfs(v)) => (
            PathBuf::from("etc/modprobe.d/zfs.conf"),
            format!("options zfs zfs_arc_max={bytes}"),
            Some(PathBuf::from("sys/module/zfs/parameters/zfs_arc_max")),
            None,
            shrink_when(v, os),
        ),
    };
    let mut verdict = None;
    if let (Some(ram), Target::OpenZfs(v)) = (ram, target) {
        let before = limits::limits(ram, os, v, in_force.as_ref().map(|(b, _)| *b), None);
        let after = limits::limits(ram, os, v, Some(bytes), None);
        verdict = after.arc_max.clone();
        let now = match (&in_force, &before.arc_max) {
            (Some((b, from)), Some(Verdict::Accepted)) => {
                format!("zfs_arc_max={b} in {from}")
            }
            (Some((b, from)), _) => {
                format!("the default: zfs_arc_max={b} in {from} is ignored by the kernel")
            }
            (None, _) => "the default".to_string(),
        };
        notes.push(format!(
            "c_max {} ({now}) → {}; c_min {} → {}; dnode limit {} → {}",
            format_bytes(before.c_max_bytes),
            format_bytes(after.c_max_bytes),
            format_bytes(before.c_min_bytes),
            format_bytes(after.c_min_bytes),
            before.dnode_limit_bytes.map_or("none".into(), format_bytes),
            after.dnode_limit_bytes.map_or("none".into(), format_bytes),
        ));
        if after.arc_max.as_ref().is_some_and(Verdict::is_accepted)
            && after.c_min_bytes >= bytes / 2
            && after.c_min_bytes != before.c_min_bytes
        {
            notes.push("the default c_min was not below the cap, so the kernel lowers c_min at load (2.1.1+)".into());
        }
    }
    if os == Os::Linux {
        notes.push("the persistent line takes effect when the module loads; if zfs loads from the initramfs, regenerate it (update-initramfs -u / dracut -f)".into());
    }
    CapPlan {
        os,
        target,
        bytes,
        persistent_path,
        persistent_line,
        runtime_path,
        runtime_command,
        shrink,
        verdict,
        notes,
    }
}

/// The comment `edit_modprobe` writes above the line it owns.
const CAP_COMMENT: &str = "# arclab tune cap:";

/// Set `zfs_arc_max` in modprobe.d text: replace the value on every
/// `options zfs` line that has it, or append an `options zfs` line. The
/// `# arclab tune cap: SIZE` comment arclab wrote before is replaced, never
/// left stale above a new value.
pub fn edit_modprobe(existing: &str, bytes: u64) -> String {
    let comment = format!("{CAP_COMMENT} {}", format_bytes(bytes));
    let mut found = false;
    let mut out: Vec<String> = Vec::new();
    for line in existing.lines() {
        if line.trim_start().starts_with(CAP_COMMENT) {
            // Re-added right above the line it describes.
            continue;
        }
        let mut words = line.split_whitespace();
        if words.next() == Some("options")
            && words.next() == Some("zfs")
            && line.contains("zfs_arc_max=")
        {
            if !found && existing.contains(CAP_COMMENT) {
                out.push(comment.clone());
            }
            found = true;
            out.push(
                line.split(' ')
                    .map(|w| {
                        if w.starts_with("zfs_arc_max=") {
                            format!("zfs_arc_max={bytes}")
                        } else {
                            w.to_string()
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(" "),
            );
        } else {
            out.push(line.to_string());
        }
    }
    if !found {
        out.push(comment);
        out.push(format!("options zfs zfs_arc_max={bytes}"));
    }
    out.join("\n") + "\n"
}

/// The `zfs_arc_max` a persistent file sets (modprobe.d `options zfs
/// zfs_arc_max=N`, loader.conf `vfs.zfs.arc.max` / `vfs.zfs.arc_max`; the
/// last one wins, as when the kernel reads them), if any and readable as a
/// size.
///
/// ```
/// use arclab_zfs::tune::apply::cap_in_text;
/// assert_eq!(cap_in_text("options zfs zfs_arc_max=17179869184\n", "zfs.conf"), Some(16 << 30));
/// assert_eq!(cap_in_text("vfs.zfs.arc_max=\"6144M\"\n", "loader.conf"), Some(6 << 30));
/// assert_eq!(cap_in_text("options zfs zfs_arc_min=1\n", "zfs.conf"), None);
/// ```
pub fn cap_in_text(text: &str, file: &str) -> Option<u64> {
    let f = super::files::parse_text(text, file, None).ok()?;
    f.settings
        .iter()
        .filter(|s| match &s.module {
            Some(m) => m == "zfs" && s.name == "zfs_arc_max",
            None => s.name == "vfs.zfs.arc.max" || s.name == "vfs.zfs.arc_max",
        })
        .filter_map(|s| arclab_arc::units::parse_bytes(&s.value).ok())
        .next_back()
}

/// The cap in force on a host under `root` for `plan`'s OS: the runtime
/// parameter when it is set (non-zero), else the persistent file's value.
/// Returns the bytes and where they were read.
pub fn cap_in_force(plan: &CapPlan, root: &Path) -> Option<(u64, String)> {
    if let Some(rt) = &plan.runtime_path {
        let p = root.join(rt);
        if let Ok(t) = crate::read_text(&p, crate::MAX_SMALL_FILE_BYTES, "a module parameter")
            && let Ok(v) = t.trim().parse::<u64>()
            && v != 0
        {
            return Some((v, p.display().to_string()));
        }
    }
    let p = root.join(&plan.persistent_path);
    let text = crate::read_text(&p, crate::MAX_TUNABLES_BYTES, "a tunables file").ok()?;
    let shown = p.display().to_string();
    cap_in_text(&text, &shown).map(|v| (v, shown))
}

/// Set the ARC cap in loader.conf text: replace any `vfs.zfs.arc.max` /
/// `vfs.zfs.arc_max` line with `line`, or append it.
pub fn edit_loader(existing: &str, line: &str) -> String {
    let mut found = false;
    let mut out: Vec<String> = Vec::new();
    for l in existing.lines() {
        let name = l.split('=').next().unwrap_or("").trim();
        if name == "vfs.zfs.arc.max" || name == "vfs.zfs.arc_max" {
            if !found {
                out.push(line.to_string());
            }
            found = true;
        } else {
            out.push(l.to_string());
        }
    }
    if !found {
        out.push(line.to_string());
    }
    out.join("\n") + "\n"
}

/// Why `apply_cap` did not complete.
#[derive(Debug, thiserror::Error)]
pub enum ApplyError {
    /// Not root and a target is not writable.
    #[error(
        "refusing to apply: {path} is not writable for uid {uid} and this is not root; run it as root (e.g. with sudo), or drop --apply for a dry run. Nothing was changed."
    )]
    NotPrivileged {
        /// The directory or file that cannot be written.
        path: String,
        /// The effective uid.
        uid: u32,
    },
    /// A target resolves (through a symlink) outside the root.
    #[error(
        "refusing to apply: {path} resolves to {resolved}, outside the root {root}. Nothing was changed."
    )]
    OutsideRoot {
        /// The target under the root.
        path: String,
        /// Where it leads.
        resolved: String,
        /// The root.
        root: String,
    },
    /// The root is not a directory.
    #[error("--root {0} is not a directory")]
    BadRoot(String),
    /// The runtime parameter could not be written (the first write).
    #[error(
        "cannot write {value} to {path}: {source}. Nothing was changed: {persistent} was not written."
    )]
    Runtime {
        /// The runtime parameter.
        path: String,
        /// What was to be written.
        value: u64,
        /// The persistent file, left as it was.
        persistent: String,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// The persistent file (or its backup) could not be written, after the
    /// runtime parameter may have been.
    #[error("{path} was not written: {source}. {runtime}")]
    Persistent {
        /// The file that failed (the persistent file or its backup).
        path: String,
        /// The error.
        #[source]
        source: std::io::Error,
        /// What became of the runtime parameter, as a sentence.
        runtime: String,
    },
    /// An I/O error.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: String,
        /// The error.
        #[source]
        source: std::io::Error,
    },
}

/// What `apply_cap` did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Applied {
    /// The persistent file written.
    pub persistent: PathBuf,
    /// Its backup, if the file existed.
    pub backup: Option<PathBuf>,
    /// The runtime parameter written, if the module is loaded.
    pub runtime: Option<PathBuf>,
    /// Remarks (runtime not written, command to run by hand).
    pub notes: Vec<String>,
    /// Both files already held the cap: nothing was written, no backup made.
    pub unchanged: bool,
}

/// What [`apply_cap`] needs from the machine. [`Host`] is the real one;
/// tests give their own to run as another uid or to make a write fail
/// (they run as root, where mode bits stop nothing).
pub trait System {
    /// The effective uid; `None`: unknown, privileges are not checked.
    fn effective_uid(&self) -> Option<u32>;
    /// Write `text` to the existing file `path` in place (a sysfs
    /// parameter: truncate and write, no rename).
    fn write_in_place(&self, path: &Path, text: &str) -> std::io::Result<()>;
}

/// The machine arclab runs on.
#[derive(Clone, Copy, Debug, Default)]
pub struct Host;

impl System for Host {
    fn effective_uid(&self) -> Option<u32> {
        effective_uid()
    }

    fn write_in_place(&self, path: &Path, text: &str) -> std::io::Result<()> {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(path)?;
        f.write_all(text.as_bytes())
    }
}

/// The effective uid, read from the owner of `/proc/self` (Linux); `None`
/// where that is not available.
pub fn effective_uid() -> Option<u32> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata("/proc/self").ok().map(|m| m.uid())
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// Whether `uid` may write into `path` judging by owner and mode bits (root
/// always may; group bits are not evaluated and count as writable, leaving the
/// final word to the OS).
pub fn writable_by(path: &Path, uid: u32) -> bool {
    if uid == 0 {
        return true;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let Ok(m) = std::fs::metadata(path) else {
            return false;
        };
        let mode = m.mode();
        mode & 0o002 != 0 || mode & 0o020 != 0 || (m.uid() == uid && mode & 0o200 != 0)
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        true
    }
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ApplyError + '_ {
    move |source| ApplyError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// Nearest existing ancestor (the directory that would receive new entries).
fn existing_ancestor(p: &Path) -> &Path {
    let mut cur = p;
    while !cur.exists() {
        match cur.parent() {
            Some(parent) => cur = parent,
            None => break,
        }
    }
    cur
}

/// Write the plan's files under `root` on `sys` (privileges checked for
/// [`System::effective_uid`]): the runtime parameter first, then the
/// backup and the persistent file; see the module docs for what a failure
/// leaves.
pub fn apply_cap(plan: &CapPlan, root: &Path, sys: &dyn System) -> Result<Applied, ApplyError> {
    let uid = sys.effective_uid();
    if !root.is_dir() {
        return Err(ApplyError::BadRoot(root.display().to_string()));
    }
    let persistent = root.join(&plan.persistent_path);
    let dir = persistent.parent().unwrap_or(root).to_path_buf();
    let runtime = plan
        .runtime_path
        .as_ref()
        .map(|p| root.join(p))
        .filter(|p| p.is_file());
    let canon_root = root.canonicalize().map_err(io(root))?;
    let mut targets = vec![existing_ancestor(&dir).to_path_buf()];
    targets.extend(persistent.exists().then(|| persistent.clone()));
    targets.extend(runtime.clone());
    for t in &targets {
        let resolved = t.canonicalize().map_err(io(t))?;
        if !resolved.starts_with(&canon_root) {
            return Err(ApplyError::OutsideRoot {
                path: t.display().to_string(),
                resolved: resolved.display().to_string(),
                root: root.display().to_string(),
            });
        }
    }
    if let Some(uid) = uid {
        let mut needs = vec![existing_ancestor(&dir).to_path_buf()];
        needs.extend(runtime.clone());
        if let Some(bad) = needs.iter().find(|p| !writable_by(p, uid)) {
            return Err(ApplyError::NotPrivileged {
                path: bad.display().to_string(),
                uid,
            });
        }
    }
    std::fs::create_dir_all(&dir).map_err(io(&dir))?;
    let old = match crate::read_bytes(&persistent, crate::MAX_TUNABLES_BYTES, "a tunables file") {
        Ok(b) => Some(b),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(io(&persistent)(e)),
    };
    let old_text = old
        .as_deref()
        .map(String::from_utf8_lossy)
        .unwrap_or_default();
    let new_text = match plan.os {
        Os::Linux => edit_modprobe(&old_text, plan.bytes),
        Os::FreeBSD => edit_loader(&old_text, &plan.persistent_line),
    };
    // The runtime value before (for a rollback), when readable.
    let runtime_old: Option<String> = runtime.as_ref().and_then(|p| {
        crate::read_text(p, crate::MAX_SMALL_FILE_BYTES, "a module parameter")
            .ok()
            .map(|t| t.trim().to_string())
    });
    let runtime_set = runtime.is_none()
        || runtime_old
            .as_deref()
            .is_some_and(|t| t.parse::<u64>() == Ok(plan.bytes));
    if old.as_deref() == Some(new_text.as_bytes()) && runtime_set {
        return Ok(Applied {
            persistent,
            backup: None,
            runtime: None,
            notes: Vec::new(),
            unchanged: true,
        });
    }
    // The runtime parameter first: if the kernel refuses it, nothing has
    // been written yet.
    let mut notes = Vec::new();
    let mut wrote_runtime = None;
    match (&runtime, &plan.runtime_path) {
        (Some(p), _) if !runtime_set => {
            sys.write_in_place(p, &format!("{}\n", plan.bytes))
                .map_err(|source| ApplyError::Runtime {
                    path: p.display().to_string(),
                    value: plan.bytes,
                    persistent: persistent.display().to_string(),
                    source,
                })?;
            wrote_runtime = Some(p.clone());
        }
        (Some(p), _) => notes.push(format!(
            "{} already held this cap: left as it was",
            p.display()
        )),
        (None, Some(p)) => notes.push(format!(
            "{} does not exist (zfs module not loaded?): only the persistent file was written",
            root.join(p).display()
        )),
        (None, None) => {}
    }
    // What became of the runtime parameter when a later write fails.
    let undo_runtime = || -> String {
        let Some(p) = &wrote_runtime else {
            return "Nothing was changed.".to_string();
        };
        let shown = p.display();
        match &runtime_old {
            Some(old) => match sys.write_in_place(p, &format!("{old}\n")) {
                Ok(()) => format!(
                    "{shown} had been set to {} and was restored to its old value {old}: nothing was changed.",
                    plan.bytes
                ),
                Err(e) => format!(
                    "{shown} now holds {} (restoring its old value {old} failed: {e}): the cap is in force now but not persistent.",
                    plan.bytes
                ),
            },
            None => format!(
                "{shown} now holds {} (its old value could not be read, so it was not restored): the cap is in force now but not persistent.",
                plan.bytes
            ),
        }
    };
    let backup = match &old {
        Some(bytes) if bytes.as_slice() != new_text.as_bytes() => {
            let b = backup_path(&persistent);
            // The backup keeps the mode of the file it copies (a 0600
            // zfs.conf stays private) and, like every write, goes through a
            // random temporary name and never through a symlink.
            let mode = std::fs::metadata(&persistent)
                .map(|m| std::os::unix::fs::PermissionsExt::mode(&m.permissions()) & 0o7777)
                .unwrap_or(0o644);
            arclab_io::write_atomic_with(&b, arclab_io::Access::Mode(mode), |f| {
                std::io::Write::write_all(f, bytes)
            })
            .map_err(|e| ApplyError::Persistent {
                path: b.display().to_string(),
                source: e.into(),
                runtime: undo_runtime(),
            })?;
            Some(b)
        }
        _ => None,
    };
    if old.as_deref() != Some(new_text.as_bytes()) {
        arclab_io::write_atomic(&persistent, new_text.as_bytes()).map_err(|e| {
            ApplyError::Persistent {
                path: persistent.display().to_string(),
                source: e.into(),
                runtime: match &backup {
                    Some(b) => format!(
                        "A backup copy of it was made ({}). {}",
                        b.display(),
                        undo_runtime()
                    ),
                    None => undo_runtime(),
                },
            }
        })?;
    } else {
        notes.push(format!(
            "{} already had this cap: not rewritten",
            persistent.display()
        ));
    }
    if let Some(cmd) = &plan.runtime_command {
        notes.push(format!(
            "to apply it now, run: {cmd} (arclab never runs commands)"
        ));
    }
    Ok(Applied {
        persistent,
        backup,
        runtime: wrote_runtime,
        notes,
        unchanged: false,
    })
}

/// `FILE.arclab-backup`, or `.arclab-backup.N` if taken.
fn backup_path(p: &Path) -> PathBuf {
    let base = format!("{}.arclab-backup", p.display());
    let mut candidate = PathBuf::from(&base);
    let mut n = 1;
    while candidate.exists() {
        candidate = PathBuf::from(format!("{base}.{n}"));
        n += 1;
    }
    candidate
}
