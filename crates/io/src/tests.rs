use super::*;
use std::os::unix::fs::symlink;

fn mode(p: &Path) -> u32 {
    fs::metadata(p).unwrap().permissions().mode() & 0o7777
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn replacing_keeps_the_mode_of_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("arc.json");
    fs::write(&p, "old").unwrap();
    fs::set_permissions(&p, Permissions::from_mode(0o640)).unwrap();
    write_atomic(&p, b"new").unwrap();
    assert_eq!(fs::read_to_string(&p).unwrap(), "new");
    assert_eq!(mode(&p), 0o640);
    assert_eq!(names(dir.path()), ["arc.json"], "no temporary file left");
}

#[test]
fn a_new_file_is_0644_or_0600_when_private() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("report.html");
    write_atomic(&p, b"x").unwrap();
    assert_eq!(mode(&p), 0o644);
    let s = dir.path().join("token");
    write_atomic_with(&s, Access::Private, |f| f.write_all(b"secret")).unwrap();
    assert_eq!(mode(&s), 0o600);
    // Replacing a group-readable file with a secret drops group and other bits.
    fs::set_permissions(&p, Permissions::from_mode(0o640)).unwrap();
    write_atomic_with(&p, Access::Private, |f| f.write_all(b"secret")).unwrap();
    assert_eq!(mode(&p), 0o600);
    // An explicit mode for a new file (a backup of a 0640 file).
    let b = dir.path().join("zfs.conf.arclab-backup");
    write_atomic_with(&b, Access::Mode(0o640), |f| f.write_all(b"x")).unwrap();
    assert_eq!(mode(&b), 0o640);
}

#[test]
fn a_symlink_target_is_refused_and_its_target_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim");
    fs::write(&victim, "precious").unwrap();
    let link = dir.path().join("out.png");
    symlink(&victim, &link).unwrap();
    let e = write_atomic(&link, b"evil").unwrap_err();
    assert!(matches!(e, Error::Symlink(_)), "{e}");
    assert!(e.to_string().contains("out.png"), "{e}");
    assert_eq!(fs::read_to_string(&victim).unwrap(), "precious");
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    // A dangling link too: it would otherwise create a file wherever it points.
    let dangling = dir.path().join("dangling");
    symlink(dir.path().join("nowhere"), &dangling).unwrap();
    assert!(matches!(
        write_atomic(&dangling, b"x").unwrap_err(),
        Error::Symlink(_)
    ));
    assert!(!dir.path().join("nowhere").exists());
    assert_eq!(names(dir.path()), ["dangling", "out.png", "victim"]);
}

#[test]
fn a_directory_target_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let e = write_atomic(dir.path(), b"x").unwrap_err();
    assert!(matches!(e, Error::Directory(_)), "{e}");
    assert!(names(dir.path()).is_empty());
}

/// The name of the one file `write_atomic_with` adds to `dir` while its body runs.
fn temp_name_during_write(dir: &Path, target: &Path) -> String {
    let before = names(dir);
    write_atomic_with(target, Access::Public, |_| {
        let new: Vec<String> = names(dir)
            .into_iter()
            .filter(|n| !before.contains(n))
            .collect();
        assert_eq!(new.len(), 1, "{new:?}");
        Ok(new[0].clone())
    })
    .unwrap()
}

#[test]
fn no_predictable_temporary_name_is_used() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("out.html");
    // The names the old writers used, `.NAME.PID.tmp` and `.NAME.PID.tmp.png`
    // (issue 14, item 3), planted as links to a file that must not change.
    let victim = dir.path().join("victim");
    fs::write(&victim, "precious").unwrap();
    let pid = std::process::id();
    for planted in [
        format!(".out.html.{pid}.tmp"),
        format!(".out.html.{pid}.tmp.png"),
    ] {
        symlink(&victim, dir.path().join(planted)).unwrap();
    }
    let a = temp_name_during_write(dir.path(), &target);
    let b = temp_name_during_write(dir.path(), &target);
    assert_ne!(a, b, "two writes, two random names");
    for n in [&a, &b] {
        assert!(!n.contains(&pid.to_string()), "{n} is derived from the pid");
        assert!(!n.contains("out.html"), "{n} is derived from the target");
        // `.arclab-` + 6 random alphanumerics + `.tmp`.
        let random = n
            .strip_prefix(".arclab-")
            .unwrap()
            .strip_suffix(".tmp")
            .unwrap();
        assert_eq!(random.len(), 6);
    }
    assert_eq!(fs::read_to_string(&victim).unwrap(), "precious");
    assert_eq!(
        names(dir.path()).len(),
        4,
        "out.html, victim, two planted links"
    );
}

#[test]
fn a_failed_write_leaves_the_original_and_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("arc.json.gz");
    fs::write(&p, "original").unwrap();
    fs::set_permissions(&p, Permissions::from_mode(0o640)).unwrap();
    let e = write_atomic_with(&p, Access::Public, |f| {
        f.write_all(b"half")?;
        Err::<(), _>(io::Error::other("disk on fire"))
    })
    .unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("arc.json.gz") && msg.contains("disk on fire"),
        "{msg}"
    );
    assert_eq!(fs::read_to_string(&p).unwrap(), "original");
    assert_eq!(mode(&p), 0o640);
    assert_eq!(names(dir.path()), ["arc.json.gz"]);
    // A directory that does not exist: an error naming the file.
    let e = write_atomic(dir.path().join("missing/out.txt"), b"x").unwrap_err();
    assert!(e.to_string().contains("missing/out.txt"), "{e}");
}

#[test]
fn a_bare_file_name_is_written_in_the_current_directory() {
    assert_eq!(parent_dir(Path::new("out.svg")), Path::new("."));
    assert_eq!(parent_dir(Path::new("a/out.svg")), Path::new("a"));
}

#[test]
fn bounded_reads() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("arcstats");
    fs::write(&p, "hits 4 1\n").unwrap();
    assert_eq!(read_to_string_limited(&p, 9).unwrap(), "hits 4 1\n");
    let e = read_to_string_limited(&p, 8).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!("{} is larger than 8 bytes", p.display())
    );
    assert!(matches!(
        read_limited(dir.path(), 8).unwrap_err(),
        Error::Directory(_)
    ));
    fs::write(&p, b"ok\xff").unwrap();
    let e = read_to_string_limited(&p, 100).unwrap_err();
    assert!(e.to_string().contains("not UTF-8 text (byte 2)"), "{e}");
    let e = read_limited(dir.path().join("none"), 8).unwrap_err();
    assert!(e.to_string().starts_with("cannot read "), "{e}");
    // A file whose size is not reported (procfs says 0) is cut off while read.
    if Path::new("/proc/self/status").exists() {
        let e = read_limited("/proc/self/status", 16).unwrap_err();
        assert!(matches!(e, Error::TooLarge { limit: 16, .. }), "{e}");
    }
}

#[test]
fn limited_stream_fails_instead_of_truncating() {
    let mut out = Vec::new();
    Limited::new(&b"12345"[..], 5)
        .read_to_end(&mut out)
        .unwrap();
    assert_eq!(out, b"12345");
    let mut out = Vec::new();
    let e = Limited::new(&b"123456"[..], 5)
        .read_to_end(&mut out)
        .unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::FileTooLarge);
    assert_eq!(e.to_string(), "input is larger than 5 bytes");
}
