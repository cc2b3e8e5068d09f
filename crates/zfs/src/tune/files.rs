//! Reading ZFS tunables files: Linux `/etc/modprobe.d/*.conf`
//! (`options zfs name=value …`), a Linux `/sys/module/zfs/parameters`
//! directory (one file per parameter), and FreeBSD `/boot/loader.conf` and
//! `/etc/sysctl.conf` (`name=value` or `name="value"`).
//!
//! This module only reads what the files say; [`super::check`] judges the
//! values. Every line that is not a comment becomes either a [`Setting`] (with
//! its file and line) or a [`SyntaxError`] naming the file and line. Lines of
//! other modules and non-ZFS sysctls are kept and marked, never dropped.
//!
//! ```
//! use arclab_zfs::tune::files::{parse_text, FileKind};
//! let f = parse_text("options zfs zfs_arc_max=8589934592 zfs_prefetch_disable=1\n",
//!                    "zfs.conf", None).unwrap();
//! assert_eq!(f.kind, FileKind::Modprobe);
//! assert_eq!(f.settings[0].name, "zfs_arc_max");
//! assert_eq!(f.settings[1].value, "1");
//! let f = parse_text("vfs.zfs.arc_max=\"6144M\" # cap\n", "loader.conf", None).unwrap();
//! assert_eq!((f.kind, f.settings[0].value.as_str()), (FileKind::LoaderConf, "6144M"));
//! assert!(parse_text("options zfs zfs_arc_max\n", "zfs.conf", None).is_err());
//! ```

use std::fmt;

use crate::ReadError;
use std::path::Path;

/// The kind of a tunables source.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FileKind {
    /// Linux `modprobe.d` configuration (`options MODULE name=value …`).
    Modprobe,
    /// Linux `/sys/module/zfs/parameters` directory (current values).
    SysfsDir,
    /// FreeBSD `/boot/loader.conf` (boot-time kernel environment).
    LoaderConf,
    /// FreeBSD `/etc/sysctl.conf` (runtime sysctls set by rc).
    SysctlConf,
    /// `name=value` lines of a file that is neither named `loader.conf` nor
    /// `sysctl.conf` (treated as FreeBSD loader/sysctl syntax).
    KeyValue,
}

impl FileKind {
    /// A short human name.
    pub fn label(self) -> &'static str {
        match self {
            FileKind::Modprobe => "modprobe.d options",
            FileKind::SysfsDir => "/sys/module/zfs/parameters",
            FileKind::LoaderConf => "FreeBSD loader.conf",
            FileKind::SysctlConf => "FreeBSD sysctl.conf",
            FileKind::KeyValue => "name=value file (FreeBSD syntax)",
        }
    }

    /// Whether the file is a FreeBSD one.
    pub fn is_freebsd(self) -> bool {
        matches!(
            self,
            FileKind::LoaderConf | FileKind::SysctlConf | FileKind::KeyValue
        )
    }
}

/// One `name=value` assignment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setting {
    /// The module the setting is for (`zfs`, `spl`, …) on Linux; `None` for
    /// FreeBSD files, where the name carries the scope (`vfs.zfs.…`).
    pub module: Option<String>,
    /// The name as written.
    pub name: String,
    /// The value with quotes removed.
    pub value: String,
    /// Whether the value was quoted.
    pub quoted: bool,
    /// 1-based line number (1 for a sysfs parameter file).
    pub line: usize,
    /// The file (for a sysfs directory: the parameter file).
    pub file: String,
}

/// A parsed tunables source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TunablesFile {
    /// The path as given.
    pub path: String,
    /// What kind of file it is.
    pub kind: FileKind,
    /// Assignments in file order.
    pub settings: Vec<Setting>,
    /// Other recognised lines (`blacklist`, `install`, … in modprobe.d), as
    /// `(line, text)`.
    pub other_lines: Vec<(usize, String)>,
    /// For a sysfs directory: the module version read from `../version`.
    pub module_version: Option<String>,
}

/// A line that is not valid syntax for its file kind.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{file}: line {line}: {message}")]
pub struct SyntaxError {
    /// The file.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

const MODPROBE_COMMANDS: &[&str] = &[
    "options",
    "alias",
    "blacklist",
    "install",
    "remove",
    "softdep",
    "weakdep",
];

/// Guess the kind from the file name and the first meaningful line.
pub fn detect_kind(file: &str, text: &str) -> FileKind {
    let base = Path::new(file)
        .file_name()
        .map(|b| b.to_string_lossy().to_string())
        .unwrap_or_default();
    if base == "loader.conf" || base.starts_with("loader.conf.") {
        return FileKind::LoaderConf;
    }
    if base == "sysctl.conf" || base.starts_with("sysctl.conf.") {
        return FileKind::SysctlConf;
    }
    let first = text
        .lines()
        .map(strip_comment)
        .map(str::trim)
        .find(|l| !l.is_empty());
    match first {
        Some(l) if MODPROBE_COMMANDS.contains(&l.split_whitespace().next().unwrap_or("")) => {
            FileKind::Modprobe
        }
        Some(_) if file.contains("modprobe") => FileKind::Modprobe,
        _ => FileKind::KeyValue,
    }
}

/// Remove a `#` comment (outside double quotes).
fn strip_comment(line: &str) -> &str {
    let mut in_quote = false;
    for (i, c) in line.char_indices() {
        match c {
            '"' => in_quote = !in_quote,
            '#' if !in_quote => return &line[..i],
            _ => {}
        }
    }
    line
}

/// Parse the text of a tunables file. `kind` overrides detection.
pub fn parse_text(
    text: &str,
    file: &str,
    kind: Option<FileKind>,
) -> Result<TunablesFile, SyntaxError> {
    let kind = kind.unwrap_or_else(|| detect_kind(file, text));
    let mut out = TunablesFile {
        path: file.to_string(),
        kind,
        settings: Vec::new(),
        other_lines: Vec::new(),
        module_version: None,
    };
    match kind {
        FileKind::Modprobe => parse_modprobe(text, file, &mut out)?,
        FileKind::SysfsDir => {
            return Err(SyntaxError {
                file: file.into(),
                line: 1,
                message: "a sysfs parameters directory is read with read_path, not parsed as text"
                    .into(),
            });
        }
        _ => parse_key_value(text, file, &mut out)?,
    }
    Ok(out)
}

fn parse_modprobe(text: &str, file: &str, out: &mut TunablesFile) -> Result<(), SyntaxError> {
    let err = |line: usize, message: String| SyntaxError {
        file: file.into(),
        line,
        message,
    };
    // Join backslash continuations, remembering the first line of each.
    let mut logical: Vec<(usize, String)> = Vec::new();
    let mut pending: Option<(usize, String)> = None;
    for (i, raw) in text.lines().enumerate() {
        let (start, mut acc) = pending.take().unwrap_or((i + 1, String::new()));
        if let Some(body) = raw.strip_suffix('\\') {
            acc.push_str(body);
            acc.push(' ');
            pending = Some((start, acc));
        } else {
            acc.push_str(raw);
            logical.push((start, acc));
        }
    }
    if let Some(p) = pending {
        logical.push(p);
    }
    for (lineno, line) in logical {
        let line = strip_comment(&line).trim();
        if line.is_empty() {
            continue;
        }
        let mut words = line.split_whitespace();
        let cmd = words.next().unwrap_or("");
        if !MODPROBE_COMMANDS.contains(&cmd) {
            return Err(err(
                lineno,
                format!(
                    "`{cmd}` is not a modprobe.d command (expected one of: {}); modprobe ignores this line",
                    MODPROBE_COMMANDS.join(", ")
                ),
            ));
        }
        if cmd != "options" {
            out.other_lines.push((lineno, line.to_string()));
            continue;
        }
        let Some(module) = words.next() else {
            return Err(err(lineno, "`options` without a module name".into()));
        };
        let rest: Vec<&str> = words.collect();
        if rest.is_empty() {
            return Err(err(
                lineno,
                format!("`options {module}` without any name=value"),
            ));
        }
        for word in split_words(&rest.join(" ")).map_err(|m| err(lineno, m))? {
            let (name, value, quoted) = match word.split_once('=') {
                Some((n, v)) => {
                    let (v, q) = unquote(v).map_err(|m| err(lineno, m))?;
                    (n.to_string(), v, q)
                }
                None => {
                    return Err(err(
                        lineno,
                        format!(
                            "`{word}` has no `=value` (write `{word}=1` for a flag; the kernel rejects a bare name for numeric parameters)"
                        ),
                    ));
                }
            };
            if name.is_empty() {
                return Err(err(lineno, format!("`{word}`: empty parameter name")));
            }
            out.settings.push(Setting {
                module: Some(module.replace('-', "_")),
                name,
                value,
                quoted,
                line: lineno,
                file: file.into(),
            });
        }
    }
    Ok(())
}

/// Split on whitespace outside double quotes.
fn split_words(s: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_quote = false;
    for c in s.chars() {
        match c {
            '"' => {
                in_quote = !in_quote;
                cur.push(c);
            }
            c if c.is_whitespace() && !in_quote => {
                if !cur.is_empty() {
                    words.push(std::mem::take(&mut cur));
                }
            }
            c => cur.push(c),
        }
    }
    if in_quote {
        return Err("unterminated double quote".into());
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    Ok(words)
}

/// Remove one level of double (or single) quotes.
fn unquote(v: &str) -> Result<(String, bool), String> {
    let v = v.trim();
    for q in ['"', '\''] {
        if let Some(body) = v.strip_prefix(q) {
            return match body.strip_suffix(q) {
                Some(inner) if !inner.contains(q) => Ok((inner.to_string(), true)),
                _ => Err(format!("unbalanced quote in value `{v}`")),
            };
        }
        if v.ends_with(q) || v.contains(q) {
            return Err(format!("stray quote in value `{v}`"));
        }
    }
    Ok((v.to_string(), false))
}

fn parse_key_value(text: &str, file: &str, out: &mut TunablesFile) -> Result<(), SyntaxError> {
    for (i, raw) in text.lines().enumerate() {
        let lineno = i + 1;
        let err = |message: String| SyntaxError {
            file: file.into(),
            line: lineno,
            message,
        };
        let line = strip_comment(raw).trim();
        if line.is_empty() {
            continue;
        }
        let Some((name, value)) = line.split_once('=') else {
            return Err(err(format!(
                "`{line}` is not `name=value` (loader.conf and sysctl.conf lines are `name=value` or `name=\"value\"`)"
            )));
        };
        let name = name.trim();
        if name.is_empty() || name.contains(char::is_whitespace) || name.contains('"') {
            return Err(err(format!("`{name}` is not a valid variable name")));
        }
        let (value, quoted) = unquote(value).map_err(err)?;
        if !quoted && value.contains(char::is_whitespace) {
            return Err(err(format!(
                "value `{value}` contains spaces: quote it or remove them"
            )));
        }
        out.settings.push(Setting {
            module: None,
            name: name.to_string(),
            value,
            quoted,
            line: lineno,
            file: file.into(),
        });
    }
    Ok(())
}

/// Read a tunables file, or a `/sys/module/zfs/parameters` directory.
pub fn read_path(path: &Path) -> Result<TunablesFile, ReadError<SyntaxError>> {
    let name = path.display().to_string();
    let io = |source| ReadError::Io {
        path: name.clone(),
        source,
    };
    if path.is_dir() {
        return read_sysfs_dir(path).map_err(io);
    }
    let bytes =
        crate::read_bytes(path, crate::MAX_TUNABLES_BYTES, "a tunables file").map_err(io)?;
    let text = String::from_utf8_lossy(&bytes);
    Ok(parse_text(&text, &name, None)?)
}

fn read_sysfs_dir(dir: &Path) -> std::io::Result<TunablesFile> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .collect();
    entries.sort_by_key(|e| e.file_name());
    let mut settings = Vec::new();
    for e in entries {
        let p = e.path();
        // Write-only or unreadable parameters are skipped, as `cat` would fail.
        let Ok(bytes) = arclab_io::read_limited(&p, crate::MAX_SMALL_FILE_BYTES) else {
            continue;
        };
        settings.push(Setting {
            module: Some("zfs".into()),
            name: e.file_name().to_string_lossy().to_string(),
            value: String::from_utf8_lossy(&bytes).trim().to_string(),
            quoted: false,
            line: 1,
            file: p.display().to_string(),
        });
    }
    let module_version = dir
        .parent()
        .and_then(|m| std::fs::read_to_string(m.join("version")).ok())
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty());
    Ok(TunablesFile {
        path: dir.display().to_string(),
        kind: FileKind::SysfsDir,
        settings,
        other_lines: Vec::new(),
        module_version,
    })
}

impl fmt::Display for Setting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}", self.name, self.value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modprobe_lines() {
        let t = "# comment\noptions zfs zfs_arc_max=1 \\\n  zfs_arc_min=2\nblacklist foo\noptions spl spl_hostid=3 # c\n";
        let f = parse_text(t, "/etc/modprobe.d/zfs.conf", None).unwrap();
        assert_eq!(f.kind, FileKind::Modprobe);
        let names: Vec<_> = f
            .settings
            .iter()
            .map(|s| (s.name.as_str(), s.line))
            .collect();
        assert_eq!(
            names,
            [("zfs_arc_max", 2), ("zfs_arc_min", 2), ("spl_hostid", 5)]
        );
        assert_eq!(f.other_lines.len(), 1);
        assert_eq!(f.settings[2].module.as_deref(), Some("spl"));
    }

    #[test]
    fn syntax_errors_name_the_line() {
        for (t, line) in [
            ("options zfs zfs_arc_max\n", 1),
            ("\noptions\n", 2),
            ("options zfs\n", 1),
            ("options zfs a=\"1\n", 1),
            ("options zfs x=1\nfrobnicate zfs\n", 2),
        ] {
            let e = parse_text(t, "zfs.conf", Some(FileKind::Modprobe)).unwrap_err();
            assert_eq!(e.line, line, "{t:?}: {e}");
            assert!(e.to_string().starts_with("zfs.conf: line "), "{e}");
        }
        for (t, line) in [
            ("a=1\nnot a setting\n", 2),
            ("vfs.zfs.arc_max=\"6144M\n", 1),
            ("=5\n", 1),
            ("a=b c\n", 1),
        ] {
            let e = parse_text(t, "loader.conf", None).unwrap_err();
            assert_eq!(e.line, line, "{t:?}: {e}");
        }
    }

    #[test]
    fn loader_conf_quotes_and_comments() {
        let t = "ahci_load=\"yes\"\n\tvm.kmem_size=\"8192M\"  # kmem\nvfs.zfs.txg.timeout=5\n";
        let f = parse_text(t, "/boot/loader.conf", None).unwrap();
        assert_eq!(f.kind, FileKind::LoaderConf);
        assert_eq!(f.settings[1].value, "8192M");
        assert!(f.settings[1].quoted);
        assert_eq!(f.settings[2].line, 3);
    }
}
