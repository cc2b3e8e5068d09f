//! The live host: where Linux and FreeBSD keep what `status`, `top`,
//! `tune cap` and `scenario --from-host` read, and reading it.
//!
//! Every reader takes the root it reads under — a procfs root (`/proc`), a
//! sysfs root (`/sys`) — or an explicit file, so a saved copy or a fake tree
//! reads exactly like the real one. A path that resolves (through a symlink)
//! outside the root it was asked under is refused.
//!
//! | what | where (under its root) | reader |
//! |---|---|---|
//! | `arcstats`, `zfetchstats`, `dbufstats` | procfs `spl/kstat/zfs/` | [`read_procfs`] |
//! | a saved kstat or FreeBSD `sysctl` dump | any file | [`read_kstat_file`] |
//! | `MemTotal`, `MemAvailable` | procfs `meminfo` | [`read_meminfo`] |
//! | module version and parameters | sysfs `module/zfs/{version,parameters/}` | [`read_sysfs`] |
//!
//! [`scenario`] turns what was read into a `whatif` scenario.
//!
//! ```
//! use arclab_zfs::host::parse_meminfo;
//! let m = parse_meminfo("MemTotal: 32746580 kB\nMemAvailable: 1000 kB\n", "meminfo").unwrap();
//! assert_eq!(m.total_bytes, 32_746_580 * 1024);
//! assert_eq!(m.available_bytes, Some(1000 * 1024));
//! ```

pub mod params;
pub mod scenario;

use std::path::{Path, PathBuf};

use crate::ReadError;
use crate::arcstats::{self, ArcSnapshot, KstatKind, ParseError};

/// The kstats of one sample.
#[derive(Clone, Debug, PartialEq)]
pub struct Kstats {
    /// What was read (a path), for messages.
    pub name: String,
    /// `arcstats`.
    pub arc: ArcSnapshot,
    /// `zfetchstats`, when present.
    pub zfetch: Option<ArcSnapshot>,
    /// `dbufstats`, when present.
    pub dbuf: Option<ArcSnapshot>,
}

/// A failure reading the host.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    /// A file could not be read, or parsed as a kstat.
    #[error(transparent)]
    Kstat(#[from] ReadError<ParseError>),
    /// A file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The procfs root has no ZFS kstats.
    #[error(
        "{dir}: no ZFS kstats here (is the zfs module loaded? use --arcstats FILE for a saved copy, Linux kstat or FreeBSD sysctl text)"
    )]
    NoKstats {
        /// `ROOT/spl/kstat/zfs`.
        dir: String,
    },
    /// A path resolves outside the root it was asked under.
    #[error("{path}: resolves to {resolved}, outside {root}; refusing to follow it")]
    OutsideRoot {
        /// The path asked for.
        path: String,
        /// Where it leads.
        resolved: String,
        /// The root.
        root: String,
    },
    /// arcstats lacks a field the reader needs.
    #[error(transparent)]
    Missing(#[from] crate::status::MissingField),
    /// The input as a whole cannot give what is asked.
    #[error("{file}: {message}")]
    Input {
        /// The file (or what was read).
        file: String,
        /// What is wrong.
        message: String,
    },
    /// A value in a file is not what the kernel writes.
    #[error("{file}: line {line}: {message}")]
    Value {
        /// The file.
        file: String,
        /// 1-based line.
        line: usize,
        /// What is wrong.
        message: String,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> HostError + '_ {
    move |source| HostError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// `root/rel`, refused when it resolves (through symlinks) outside `root`.
/// `Ok(None)` when it does not exist.
pub fn path_in(root: &Path, rel: &str) -> Result<Option<PathBuf>, HostError> {
    let p = root.join(rel);
    if std::fs::symlink_metadata(&p).is_err() {
        return Ok(None);
    }
    let canon_root = root.canonicalize().map_err(io(root))?;
    let resolved = match p.canonicalize() {
        Ok(r) => r,
        // A dangling link: nothing to read.
        Err(_) if !p.exists() => return Ok(None),
        Err(e) => return Err(io(&p)(e)),
    };
    if !resolved.starts_with(&canon_root) {
        return Err(HostError::OutsideRoot {
            path: p.display().to_string(),
            resolved: resolved.display().to_string(),
            root: root.display().to_string(),
        });
    }
    Ok(Some(p))
}

/// This host's name: the kernel's (`/proc/sys/kernel/hostname`), else
/// `/etc/hostname`, else `local` (it labels recordings).
pub fn hostname() -> String {
    ["/proc/sys/kernel/hostname", "/etc/hostname"]
        .iter()
        .find_map(|p| std::fs::read_to_string(p).ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "local".into())
}

/// Read arcstats, and zfetchstats / dbufstats when present, under a procfs
/// root: `ROOT/spl/kstat/zfs/{arcstats,zfetchstats,dbufstats}`.
pub fn read_procfs(root: &Path) -> Result<Kstats, HostError> {
    let base = root.join("spl/kstat/zfs");
    let Some(arc_path) = path_in(root, "spl/kstat/zfs/arcstats")? else {
        if root.is_dir() && !base.exists() {
            return Err(HostError::NoKstats {
                dir: base.display().to_string(),
            });
        }
        let p = base.join("arcstats");
        return Err(io(&p)(std::io::Error::from(std::io::ErrorKind::NotFound)));
    };
    let arc = arcstats::read_kstat(&arc_path, KstatKind::ArcStats)?;
    let opt = |name: &str, kind| -> Result<Option<ArcSnapshot>, HostError> {
        match path_in(root, &format!("spl/kstat/zfs/{name}"))? {
            None => Ok(None),
            Some(p) => Ok(Some(arcstats::read_kstat(&p, kind)?)),
        }
    };
    Ok(Kstats {
        name: arc_path.display().to_string(),
        arc,
        zfetch: opt("zfetchstats", KstatKind::ZfetchStats)?,
        dbuf: opt("dbufstats", KstatKind::DbufStats)?,
    })
}

/// Read one saved file: a Linux arcstats copy or a FreeBSD `sysctl
/// kstat.zfs.misc` dump (which may hold zfetchstats too).
pub fn read_kstat_file(path: &Path) -> Result<Kstats, HostError> {
    let name = path.display().to_string();
    let text = crate::read_text(path, crate::MAX_KSTAT_BYTES, "a kstat file").map_err(io(path))?;
    let arc = arcstats::parse_arcstats(&text, &name).map_err(ReadError::from)?;
    let zfetch = if text.contains("kstat.zfs.misc.zfetchstats.") {
        Some(arcstats::parse_zfetchstats(&text, &name).map_err(ReadError::from)?)
    } else {
        None
    };
    Ok(Kstats {
        name,
        arc,
        zfetch,
        dbuf: None,
    })
}

/// Read a saved Prometheus node_exporter metrics text (the `node_zfs_arc_*`
/// samples, see [`arcstats::parse_node_exporter`]).
pub fn read_metrics_file(path: &Path) -> Result<Kstats, HostError> {
    let name = path.display().to_string();
    let text =
        crate::read_text(path, crate::MAX_METRICS_BYTES, "a metrics file").map_err(io(path))?;
    let arc = arcstats::parse_node_exporter(&text, &name).map_err(ReadError::from)?;
    Ok(Kstats {
        name,
        arc,
        zfetch: None,
        dbuf: None,
    })
}

/// What `scenario` needs from `/proc/meminfo`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Meminfo {
    /// `MemTotal`, bytes.
    pub total_bytes: u64,
    /// `MemAvailable`, bytes (Linux 3.14+).
    pub available_bytes: Option<u64>,
}

/// Parse `/proc/meminfo` text (`Name:   N kB` lines; the kernel prints
/// every size in kB = KiB). `file` names it in errors.
pub fn parse_meminfo(text: &str, file: &str) -> Result<Meminfo, HostError> {
    let (mut total, mut avail) = (None, None);
    for (i, line) in text.lines().enumerate() {
        let Some((name, rest)) = line.split_once(':') else {
            continue;
        };
        let slot = match name.trim() {
            "MemTotal" => &mut total,
            "MemAvailable" => &mut avail,
            _ => continue,
        };
        let bad = |message: String| HostError::Value {
            file: file.to_string(),
            line: i + 1,
            message,
        };
        let mut w = rest.split_whitespace();
        let n: u64 = w
            .next()
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| bad(format!("`{}`: expected `{}: N kB`", line.trim(), name)))?;
        match w.next() {
            Some("kB") => {}
            other => {
                return Err(bad(format!(
                    "`{}`: unit {:?}, expected kB",
                    name.trim(),
                    other.unwrap_or("")
                )));
            }
        }
        *slot = Some(
            n.checked_mul(1024)
                .ok_or_else(|| bad(format!("{} {n} kB overflows", name.trim())))?,
        );
    }
    let total_bytes = total.ok_or_else(|| HostError::Input {
        file: file.to_string(),
        message: "no `MemTotal:` line (not a /proc/meminfo file?)".into(),
    })?;
    Ok(Meminfo {
        total_bytes,
        available_bytes: avail,
    })
}

/// Read and parse a meminfo file.
pub fn read_meminfo(path: &Path) -> Result<Meminfo, HostError> {
    let text =
        crate::read_text(path, crate::MAX_SMALL_FILE_BYTES, "/proc/meminfo").map_err(io(path))?;
    parse_meminfo(&text, &path.display().to_string())
}

/// `ROOT/meminfo` under a procfs root, when present.
pub fn procfs_meminfo(root: &Path) -> Result<Option<Meminfo>, HostError> {
    path_in(root, "meminfo")?
        .map(|p| read_meminfo(&p))
        .transpose()
}

/// The ZFS module's version and the parameters `scenario` and `tune cap`
/// use, from a sysfs root (`ROOT/module/zfs/`). A value is `None` when its
/// file is missing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModuleParams {
    /// Where they were read (`ROOT/module/zfs`).
    pub dir: String,
    /// `version` (e.g. `2.2.2-1`), trimmed.
    pub version: Option<String>,
    /// `parameters/zfs_arc_max` (0 = automatic).
    pub arc_max: Option<u64>,
    /// `parameters/zfs_arc_min` (0 = automatic).
    pub arc_min: Option<u64>,
    /// `parameters/zfs_prefetch_disable` (0 = prefetch on).
    pub prefetch_disable: Option<u64>,
}

/// Read the module version and parameters under a sysfs root. An
/// unreadable or malformed parameter is an error naming its file.
pub fn read_sysfs(root: &Path) -> Result<ModuleParams, HostError> {
    let dir = root.join("module/zfs");
    let text = |rel: &str| -> Result<Option<(String, String)>, HostError> {
        match path_in(root, &format!("module/zfs/{rel}"))? {
            None => Ok(None),
            Some(p) => {
                let t = crate::read_text(&p, crate::MAX_SMALL_FILE_BYTES, "a module parameter")
                    .map_err(io(&p))?;
                Ok(Some((p.display().to_string(), t)))
            }
        }
    };
    // Module parameters print as `%lu` / `%d` (param_get_ulong / param_get_int) and a newline.
    let num = |rel: &str| -> Result<Option<u64>, HostError> {
        let Some((file, t)) = text(rel)? else {
            return Ok(None);
        };
        t.trim()
            .parse::<u64>()
            .map(Some)
            .map_err(|_| HostError::Value {
                file,
                line: 1,
                message: format!("`{}` is not a non-negative integer", t.trim()),
            })
    };
    Ok(ModuleParams {
        dir: dir.display().to_string(),
        version: text("version")?
            .map(|(_, t)| t.trim().to_string())
            .filter(|t| !t.is_empty()),
        arc_max: num("parameters/zfs_arc_max")?,
        arc_min: num("parameters/zfs_arc_min")?,
        prefetch_disable: num("parameters/zfs_prefetch_disable")?,
    })
}
