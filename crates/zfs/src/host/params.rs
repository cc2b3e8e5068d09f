//! Module parameters under a sysfs root (`ROOT/module/zfs/parameters/NAME`):
//! reading one, setting one for a while and putting it back.
//!
//! [`ParamGuard`] remembers each parameter's value before it first changes it
//! and writes the old values back when [`ParamGuard::restore`] is called, when
//! it is dropped (a normal end, an error, an unwinding panic), and — because
//! release builds abort on panic without unwinding — from a panic hook that
//! [`ParamGuard::new`] installs once per process.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::{HostError, io, path_in};

/// `module/zfs/parameters/NAME` relative to a sysfs root.
pub fn param_rel(name: &str) -> String {
    format!("module/zfs/parameters/{name}")
}

/// The value of parameter `name`, trimmed; `None` when its file is missing.
pub fn read_param(sysfs: &Path, name: &str) -> Result<Option<String>, HostError> {
    let Some(p) = path_in(sysfs, &param_rel(name))? else {
        return Ok(None);
    };
    let text = arclab_io::read_to_string_limited(&p, 4096).map_err(|e| HostError::Input {
        file: p.display().to_string(),
        message: e.to_string(),
    })?;
    Ok(Some(text.trim().to_string()))
}

/// Write `value` to an existing parameter file (sysfs files are never
/// created, and a symlink out of the root is refused by [`path_in`]; the
/// final component is opened without following a link).
pub fn write_param(sysfs: &Path, name: &str, value: &str) -> Result<PathBuf, HostError> {
    let Some(p) = path_in(sysfs, &param_rel(name))? else {
        return Err(HostError::Input {
            file: sysfs.join(param_rel(name)).display().to_string(),
            message: "no such parameter (is the zfs module loaded, and is this OpenZFS on Linux?)"
                .into(),
        });
    };
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.custom_flags(libc::O_NOFOLLOW);
    }
    let mut f = opts.open(&p).map_err(io(&p))?;
    f.write_all(format!("{value}\n").as_bytes())
        .map_err(io(&p))?;
    Ok(p)
}

/// The module version and parameters from FreeBSD `sysctl` output (a saved
/// `sysctl vfs.zfs kstat.zfs.misc.arcstats`, say): `vfs.zfs.version.module`,
/// `vfs.zfs.arc.max` / `.min` (13.0+; `vfs.zfs.arc_max` / `arc_min`
/// before) and `vfs.zfs.prefetch.disable` (`vfs.zfs.prefetch_disable`
/// before). `None` when the text has none of them. A malformed value is an
/// error naming the file and line.
pub fn params_from_sysctl(
    text: &str,
    file: &str,
) -> Result<Option<super::ModuleParams>, HostError> {
    let mut p = super::ModuleParams {
        dir: file.to_string(),
        ..Default::default()
    };
    let mut any = false;
    for (i, line) in text.lines().enumerate() {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let (name, value) = (name.trim(), value.trim());
        let slot = match name {
            "vfs.zfs.version.module" => {
                p.version = Some(value.to_string()).filter(|v| !v.is_empty());
                any = true;
                continue;
            }
            "vfs.zfs.arc.max" | "vfs.zfs.arc_max" => &mut p.arc_max,
            "vfs.zfs.arc.min" | "vfs.zfs.arc_min" => &mut p.arc_min,
            "vfs.zfs.prefetch.disable" | "vfs.zfs.prefetch_disable" => &mut p.prefetch_disable,
            _ => continue,
        };
        let v = value.parse::<u64>().map_err(|_| HostError::Value {
            file: file.to_string(),
            line: i + 1,
            message: format!(
                "`{name}` is `{}`, not a non-negative integer",
                value.escape_debug()
            ),
        })?;
        *slot = Some(v);
        any = true;
    }
    Ok(any.then_some(p))
}

/// Values to put back if the process panics (release builds abort on panic,
/// so `Drop` would not run).
static PANIC_RESTORE: Mutex<Vec<(PathBuf, String)>> = Mutex::new(Vec::new());

fn install_panic_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if let Ok(mut list) = PANIC_RESTORE.lock() {
                for (path, value) in list.drain(..).rev() {
                    let _ = std::fs::write(&path, format!("{value}\n"));
                }
            }
            previous(info);
        }));
    });
}

/// One parameter changed by a [`ParamGuard`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Changed {
    /// The parameter's name.
    pub name: String,
    /// Its file.
    pub path: PathBuf,
    /// Its value before.
    pub before: String,
    /// The value set.
    pub set: String,
}

/// Sets parameters and puts their previous values back (see the module
/// docs).
#[derive(Debug)]
pub struct ParamGuard {
    sysfs: PathBuf,
    changed: Vec<Changed>,
    restored: bool,
}

impl ParamGuard {
    /// A guard over parameters under `sysfs` (nothing changed yet).
    pub fn new(sysfs: &Path) -> Self {
        install_panic_hook();
        ParamGuard {
            sysfs: sysfs.to_path_buf(),
            changed: Vec::new(),
            restored: false,
        }
    }

    /// Set `name` to `value`, remembering the value before. Setting a
    /// parameter to the value it has is not a change.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), HostError> {
        let before = read_param(&self.sysfs, name)?.ok_or_else(|| HostError::Input {
            file: self.sysfs.join(param_rel(name)).display().to_string(),
            message: "no such parameter (is the zfs module loaded, and is this OpenZFS on Linux?)"
                .into(),
        })?;
        if before == value {
            return Ok(());
        }
        // Changed before: write the new value, keep the first `before`.
        if let Some(i) = self.changed.iter().position(|c| c.name == name) {
            write_param(&self.sysfs, name, value)?;
            self.changed[i].set = value.to_string();
            self.restored = false;
            return Ok(());
        }
        let path = write_param(&self.sysfs, name, value)?;
        if let Ok(mut list) = PANIC_RESTORE.lock() {
            list.push((path.clone(), before.clone()));
        }
        self.changed.push(Changed {
            name: name.to_string(),
            path,
            before,
            set: value.to_string(),
        });
        self.restored = false;
        Ok(())
    }

    /// What was changed (and will be, or was, restored).
    pub fn changed(&self) -> &[Changed] {
        &self.changed
    }

    /// Put every changed parameter back, last changed first. Every value is
    /// tried; the first failure is returned.
    pub fn restore(&mut self) -> Result<(), HostError> {
        if self.restored {
            return Ok(());
        }
        self.restored = true;
        let mut first_err = None;
        for c in self.changed.iter().rev() {
            if let Err(e) = write_param(&self.sysfs, &c.name, &c.before) {
                first_err.get_or_insert(e);
            }
            if let Ok(mut list) = PANIC_RESTORE.lock() {
                list.retain(|(p, _)| p != &c.path);
            }
        }
        first_err.map_or(Ok(()), Err)
    }
}

impl Drop for ParamGuard {
    fn drop(&mut self) {
        let _ = self.restore();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sysfs(values: &[(&str, &str)]) -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("module/zfs/parameters");
        std::fs::create_dir_all(&p).unwrap();
        for (n, v) in values {
            std::fs::write(p.join(n), format!("{v}\n")).unwrap();
        }
        d
    }

    #[test]
    fn freebsd_sysctl_gives_version_caps_and_prefetch() {
        // Names from FreeBSD 14's OpenZFS (sys/contrib/openzfs, module/os/freebsd:
        // vfs.zfs.arc.max, vfs.zfs.prefetch.disable) and 12's legacy spellings.
        let text = "kstat.zfs.misc.arcstats.hits: 5\nvfs.zfs.version.module: 2.2.0-FreeBSD_g95785196f\nvfs.zfs.arc.max: 8589934592\nvfs.zfs.arc.min: 0\nvfs.zfs.prefetch.disable: 1\n";
        let p = params_from_sysctl(text, "s.txt").unwrap().unwrap();
        assert_eq!(p.version.as_deref(), Some("2.2.0-FreeBSD_g95785196f"));
        assert_eq!(
            (p.arc_max, p.arc_min, p.prefetch_disable),
            (Some(8 << 30), Some(0), Some(1))
        );
        let legacy = params_from_sysctl(
            "vfs.zfs.arc_max: 1073741824\nvfs.zfs.prefetch_disable: 0\n",
            "s",
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            (legacy.arc_max, legacy.prefetch_disable),
            (Some(1 << 30), Some(0))
        );
        assert!(
            params_from_sysctl("kstat.zfs.misc.arcstats.hits: 5\n", "s")
                .unwrap()
                .is_none()
        );
        let e = params_from_sysctl("a: 1\nvfs.zfs.arc.max: -1\n", "s.txt")
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "s.txt: line 2: `vfs.zfs.arc.max` is `-1`, not a non-negative integer"
        );
    }

    #[test]
    fn set_then_restore_and_drop_put_values_back() {
        let d = sysfs(&[("zfs_read_history", "0"), ("zfs_read_history_hits", "0")]);
        {
            let mut g = ParamGuard::new(d.path());
            g.set("zfs_read_history", "100000").unwrap();
            g.set("zfs_read_history_hits", "1").unwrap();
            assert_eq!(
                read_param(d.path(), "zfs_read_history").unwrap().unwrap(),
                "100000"
            );
            assert_eq!(g.changed().len(), 2);
        }
        assert_eq!(
            read_param(d.path(), "zfs_read_history").unwrap().unwrap(),
            "0"
        );
        assert_eq!(
            read_param(d.path(), "zfs_read_history_hits")
                .unwrap()
                .unwrap(),
            "0"
        );
        assert!(PANIC_RESTORE.lock().unwrap().is_empty());
    }

    #[test]
    fn an_unchanged_value_is_not_touched_and_a_missing_one_is_an_error() {
        let d = sysfs(&[("zfs_read_history_hits", "1")]);
        let mut g = ParamGuard::new(d.path());
        g.set("zfs_read_history_hits", "1").unwrap();
        assert!(g.changed().is_empty());
        let e = g.set("zfs_read_history", "5").unwrap_err().to_string();
        assert!(
            e.contains("module/zfs/parameters/zfs_read_history: no such parameter"),
            "{e}"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_out_of_the_root_is_refused() {
        let d = sysfs(&[]);
        let outside = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(outside.path(), "0\n").unwrap();
        std::os::unix::fs::symlink(
            outside.path(),
            d.path().join("module/zfs/parameters/zfs_read_history"),
        )
        .unwrap();
        let mut g = ParamGuard::new(d.path());
        assert!(g.set("zfs_read_history", "9").is_err());
        assert_eq!(std::fs::read_to_string(outside.path()).unwrap(), "0\n");
    }
}
