//! `arclab-io`: the file plumbing every arclab writer and input reader shares.
//!
//! * [`write_atomic`] / [`write_atomic_with`]: the one way arclab writes a
//!   file. The data goes to a temporary file created by `tempfile` in the
//!   target's directory (random name, `O_CREAT | O_EXCL`, mode 0600 while
//!   written), is flushed and `fsync`ed, gets its final mode, and is renamed
//!   over the target. A reader never sees a partial file, a failure leaves
//!   the original untouched and removes the temporary file, and no fixed
//!   temporary name exists that a planted symlink could redirect.
//! * [`read_to_string_limited`] / [`read_limited`] / [`Limited`]: input
//!   files and streams read with a size cap and a clear error above it.
//! * [`escape_controls`]: text from input files made safe to print on a
//!   terminal (no escape sequence from a file ever reaches it raw).
//!
//! ```
//! let dir = tempfile::tempdir().unwrap();
//! let p = dir.path().join("report.html");
//! arclab_io::write_atomic(&p, b"<p>hi</p>\n").unwrap();
//! assert_eq!(arclab_io::read_to_string_limited(&p, 1024).unwrap(), "<p>hi</p>\n");
//! let e = arclab_io::read_to_string_limited(&p, 4).unwrap_err();
//! assert!(e.to_string().ends_with("report.html is larger than 4 bytes"), "{e}");
//! ```

use std::borrow::Cow;
use std::fs::{self, File, Permissions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

#[cfg(unix)]
use std::os::unix::fs::{MetadataExt, PermissionsExt};

/// Why a file could not be written or read; every variant names the path.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The target is a symbolic link: arclab does not write through links.
    #[error("{}: is a symbolic link; refusing to write through it (give the link's target instead)", .0.display())]
    Symlink(PathBuf),
    /// The target is a directory.
    #[error("{}: is a directory, not a file", .0.display())]
    Directory(PathBuf),
    /// The file (or stream) is larger than the limit.
    #[error("{} is larger than {limit} bytes", .path.display())]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// The limit in bytes.
        limit: u64,
    },
    /// The file is not UTF-8 text.
    #[error("{}: not UTF-8 text (byte {offset})", .path.display())]
    NotUtf8 {
        /// The file.
        path: PathBuf,
        /// Offset of the first invalid byte.
        offset: usize,
    },
    /// An I/O error, with what was being done.
    #[error("cannot {what} {}: {source}", .path.display())]
    Io {
        /// `write`, `read`, …
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: io::Error,
    },
}

impl Error {
    fn io<'a>(what: &'static str, path: &'a Path) -> impl FnOnce(io::Error) -> Error + 'a {
        move |source| Error::Io {
            what,
            path: path.to_path_buf(),
            source,
        }
    }

    /// The path the error is about.
    pub fn path(&self) -> &Path {
        match self {
            Error::Symlink(p) | Error::Directory(p) => p,
            Error::TooLarge { path, .. } | Error::NotUtf8 { path, .. } | Error::Io { path, .. } => {
                path
            }
        }
    }
}

impl From<Error> for io::Error {
    /// An `io::Error` of the same kind where there is one, with the message
    /// (and so the path) kept.
    fn from(e: Error) -> io::Error {
        let kind = match &e {
            Error::Io { source, .. } => source.kind(),
            Error::Symlink(_) | Error::Directory(_) => io::ErrorKind::InvalidInput,
            Error::TooLarge { .. } => io::ErrorKind::FileTooLarge,
            Error::NotUtf8 { .. } => io::ErrorKind::InvalidData,
        };
        io::Error::new(kind, e)
    }
}

/// The permissions a written file gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Access {
    /// A replaced file keeps its mode (and, where allowed, its owner); a new
    /// file is `0644`.
    #[default]
    Public,
    /// For files holding secrets: a new file is `0600`, a replaced file
    /// keeps its owner bits and loses every group and other bit.
    Private,
    /// A new file gets this mode, permission bits only (e.g. a backup copying the mode of
    /// the file it backs up); a replaced file keeps its own, as with
    /// [`Access::Public`].
    Mode(u32),
}

impl Access {
    /// The mode for a new file.
    pub const fn new_file_mode(self) -> u32 {
        match self {
            Access::Public => 0o644,
            Access::Private => 0o600,
            Access::Mode(m) => m & 0o777,
        }
    }
}

/// The directory a temporary file for `path` goes in: its parent, or `.`.
fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// What the target is now: `None` when it does not exist. Refuses links and
/// directories (checked on the link itself: `lstat`).
fn existing(path: &Path) -> Result<Option<fs::Metadata>, Error> {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => Err(Error::Symlink(path.to_path_buf())),
        Ok(m) if m.is_dir() => Err(Error::Directory(path.to_path_buf())),
        Ok(m) => Ok(Some(m)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io("inspect", path)(e)),
    }
}

/// Check, before a long job, that `path` can be a target of
/// [`write_atomic_with`]: not a symbolic link, not a directory (the check is
/// repeated when writing).
pub fn check_target(path: impl AsRef<Path>) -> Result<(), Error> {
    existing(path.as_ref()).map(|_| ())
}

/// Write `bytes` to `path` atomically with [`Access::Public`] permissions.
///
/// See [`write_atomic_with`].
pub fn write_atomic(path: impl AsRef<Path>, bytes: &[u8]) -> Result<(), Error> {
    write_atomic_with(path, Access::Public, |f| f.write_all(bytes))
}

/// Write `path` atomically: `body` writes the whole content into a fresh
/// temporary file in the target's directory (wrap it in a `BufWriter` for
/// many small writes); the file is then `fsync`ed, given its mode (see
/// [`Access`]) and renamed over `path`, and the directory is synced.
///
/// Refuses (before writing anything) when `path` is a symbolic link or a
/// directory. When `body` or any step fails, the temporary file is removed
/// and an existing `path` is left as it was. Returns what `body` returned.
pub fn write_atomic_with<R>(
    path: impl AsRef<Path>,
    access: Access,
    body: impl FnOnce(&mut File) -> io::Result<R>,
) -> Result<R, Error> {
    let path = path.as_ref();
    let before = existing(path)?;
    let dir = parent_dir(path);
    let write = Error::io("write", path);
    let mut tmp = tempfile::Builder::new()
        .prefix(".arclab-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(|e| Error::Io {
            what: "create a temporary file for",
            path: path.to_path_buf(),
            source: e,
        })?;
    let result = (|| {
        let r = body(tmp.as_file_mut())?;
        tmp.as_file_mut().flush()?;
        set_permissions(tmp.as_file(), before.as_ref(), access)?;
        tmp.as_file().sync_all()?;
        Ok(r)
    })();
    let r = result.map_err(write)?;
    // The target may have changed since it was inspected; look again right
    // before the rename (rename itself never follows a link at the target).
    existing(path)?;
    tmp.persist(path)
        .map_err(|e| Error::io("replace", path)(e.error))?;
    // Make the rename durable; a directory that cannot be opened or synced
    // (some file systems) does not undo a write that has happened.
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(r)
}

#[cfg(unix)]
fn set_permissions(f: &File, before: Option<&fs::Metadata>, access: Access) -> io::Result<()> {
    let mode = match (before, access) {
        (Some(m), Access::Public | Access::Mode(_)) => m.mode() & 0o7777,
        (Some(m), Access::Private) => m.mode() & 0o700,
        (None, a) => a.new_file_mode(),
    };
    f.set_permissions(Permissions::from_mode(mode))?;
    if let Some(m) = before {
        let meta = f.metadata()?;
        if meta.uid() != m.uid() || meta.gid() != m.gid() {
            // Only root (or a member of the group) may give the file back
            // its owner; otherwise the writer owns the new file, as with
            // any editor that saves by rename.
            let _ = std::os::unix::fs::fchown(f, Some(m.uid()), Some(m.gid()));
        }
    }
    Ok(())
}

#[cfg(not(unix))]
fn set_permissions(f: &File, before: Option<&fs::Metadata>, _access: Access) -> io::Result<()> {
    if let Some(m) = before {
        f.set_permissions(m.permissions())?;
    }
    Ok(())
}

/// Read at most `max_bytes` of `path`; a larger file is an error that says
/// so (`FILE is larger than N bytes`). Files whose size the kernel does not
/// report (procfs, pipes) are cut off while reading, not trusted by size.
pub fn read_limited(path: impl AsRef<Path>, max_bytes: u64) -> Result<Vec<u8>, Error> {
    let path = path.as_ref();
    let f = File::open(path).map_err(Error::io("read", path))?;
    let meta = f.metadata().map_err(Error::io("read", path))?;
    if meta.is_dir() {
        return Err(Error::Directory(path.to_path_buf()));
    }
    if meta.len() > max_bytes {
        return Err(Error::TooLarge {
            path: path.to_path_buf(),
            limit: max_bytes,
        });
    }
    let mut buf = Vec::with_capacity(meta.len() as usize);
    Limited::new(f, max_bytes)
        .read_to_end(&mut buf)
        .map_err(|e| too_large_or(e, path, max_bytes))?;
    Ok(buf)
}

/// [`read_limited`] as UTF-8 text; invalid UTF-8 is an error naming the file
/// and the byte offset.
pub fn read_to_string_limited(path: impl AsRef<Path>, max_bytes: u64) -> Result<String, Error> {
    let path = path.as_ref();
    let bytes = read_limited(path, max_bytes)?;
    String::from_utf8(bytes).map_err(|e| Error::NotUtf8 {
        path: path.to_path_buf(),
        offset: e.utf8_error().valid_up_to(),
    })
}

fn too_large_or(e: io::Error, path: &Path, limit: u64) -> Error {
    if e.kind() == io::ErrorKind::FileTooLarge {
        Error::TooLarge {
            path: path.to_path_buf(),
            limit,
        }
    } else {
        Error::io("read", path)(e)
    }
}

/// A reader that fails with [`io::ErrorKind::FileTooLarge`] once more than
/// `limit` bytes come through: for streams whose size is not known in
/// advance (a decompressor, a socket). Unlike `Read::take`, hitting the
/// limit is an error, never a silently truncated input.
#[derive(Debug)]
pub struct Limited<R> {
    inner: R,
    left: u64,
    limit: u64,
}

impl<R: Read> Limited<R> {
    /// Wrap `inner`, allowing `limit` bytes.
    pub fn new(inner: R, limit: u64) -> Self {
        Limited {
            inner,
            left: limit,
            limit,
        }
    }

    /// The limit given to [`Limited::new`].
    pub fn limit(&self) -> u64 {
        self.limit
    }
}

impl<R: Read> Read for Limited<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        if self.left == 0 {
            // At the limit: one more byte means the input is too large.
            let mut probe = [0u8; 1];
            return match self.inner.read(&mut probe)? {
                0 => Ok(0),
                _ => Err(io::Error::new(
                    io::ErrorKind::FileTooLarge,
                    format!("input is larger than {} bytes", self.limit),
                )),
            };
        }
        let max = buf
            .len()
            .min(usize::try_from(self.left).unwrap_or(usize::MAX));
        let n = self.inner.read(&mut buf[..max])?;
        self.left -= n as u64;
        Ok(n)
    }
}

/// `text` with every control character except newline and tab written as
/// a visible escape (`\x1b`, `\r`, `\u{9b}`), so that text quoted from an
/// input file (an error naming a bad value, a setting echoed back) cannot
/// move the cursor, recolour or retitle the terminal, or hide itself. The
/// one function for this: the command line passes everything it prints
/// through it. Text without control characters is returned as is.
///
/// ```
/// use arclab_io::escape_controls;
/// assert_eq!(escape_controls("zfs_arc_max=\x1b[2J8G\n"), "zfs_arc_max=\\x1b[2J8G\n");
/// assert_eq!(escape_controls("a\rb\u{9b}c\td"), "a\\rb\\u{9b}c\td");
/// assert!(matches!(escape_controls("plain"), std::borrow::Cow::Borrowed(_)));
/// ```
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    let unsafe_char = |c: char| c.is_control() && c != '\n' && c != '\t';
    if !text.contains(unsafe_char) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\r' => out.push_str("\\r"),
            c if unsafe_char(c) && (c as u32) < 0x80 => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c if unsafe_char(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests;
