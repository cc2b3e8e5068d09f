//! Tunables files: parsing, the kernel's rules, and applying a cap.

use arclab_arc::limits::{Os, ZfsVersion};
use arclab_zfs::tune::apply::{self, ApplyError, System};
use arclab_zfs::tune::check::{CheckOptions, CheckReport, Severity, check};
use arclab_zfs::tune::files::{FileKind, parse_text, read_path};
use arclab_zfs::tune::{Target, parse_target};
use proptest::prelude::*;

/// The `/boot/loader.conf` and `/etc/sysctl.conf` of the freebsd-stable post
/// "kmem_map too small with ZFS and 8.2-RELEASE" (freebsd-stable list), as
/// posted (tab-indented).
const LOADER_CONF: &str = "\tahci_load=\"yes\"\n\tvm.kmem_size=\"8192M\"\n\tvfs.zfs.arc_max=\"6144M\"\n\tvfs.zfs.prefetch_disable=\"1\"\n\tvfs.zfs.txg.timeout=\"5\"\n";
const SYSCTL_CONF: &str =
    "\tkern.maxvnodes=250000\n\tvfs.zfs.txg.write_limit_override=1073741824\n";

fn finding<'a>(r: &'a CheckReport, name: &str) -> &'a arclab_zfs::tune::check::Finding {
    r.findings
        .iter()
        .find(|f| f.name == name)
        .unwrap_or_else(|| panic!("no finding for {name}"))
}

#[test]
fn mailing_list_files_pass_with_the_right_explanations() {
    let files = [
        parse_text(LOADER_CONF, "/boot/loader.conf", None).unwrap(),
        parse_text(SYSCTL_CONF, "/etc/sysctl.conf", None).unwrap(),
    ];
    assert_eq!(files[0].kind, FileKind::LoaderConf);
    assert_eq!(files[1].kind, FileKind::SysctlConf);
    let r = check(&files, &CheckOptions::default());
    // Detected: FreeBSD from the file kinds, pre-OpenZFS from vm.kmem_size.
    assert_eq!((r.os, r.target), (Os::FreeBSD, Target::FreeBsdLegacy));
    assert_eq!(r.findings.len(), 7);
    assert_eq!(r.count(Severity::Error), 0, "{:#?}", r.findings);
    assert_eq!(r.count(Severity::Warning), 0, "{:#?}", r.findings);

    let f = finding(&r, "vfs.zfs.arc_max");
    assert_eq!(
        (f.status, f.severity, f.line),
        ("accepted", Severity::Ok, 3)
    );
    for part in [
        "6.00 GiB",
        "vm.kmem_size 8.00 GiB",
        "2.00 GiB (25.0 %)",
        "kmem_map too small",
        "arc_meta_limit = c_max/4 = 1.50 GiB",
    ] {
        assert!(f.explanation.contains(part), "{part}: {}", f.explanation);
    }
    assert!(
        f.default.as_deref().unwrap().starts_with("7.00 GiB"),
        "{:?}",
        f.default
    );

    let k = finding(&r, "vm.kmem_size");
    assert_eq!(k.status, "non-ZFS");
    assert!(
        k.explanation.contains("default c_max 7.00 GiB"),
        "{}",
        k.explanation
    );

    let p = finding(&r, "vfs.zfs.prefetch_disable");
    assert!(
        p.explanation.starts_with("disables file-level prefetch"),
        "{}",
        p.explanation
    );
    assert!(
        p.explanation.contains("less than 4 GiB"),
        "{}",
        p.explanation
    );

    let t = finding(&r, "vfs.zfs.txg.timeout");
    assert!(t.explanation.contains("every 5 s"), "{}", t.explanation);
    assert!(t.default.as_deref().unwrap().contains("30 s"));

    let w = finding(&r, "vfs.zfs.txg.write_limit_override");
    assert_eq!(w.line, 2);
    assert!(
        w.explanation
            .contains("fixed per-txg write limit of 1.00 GiB"),
        "{}",
        w.explanation
    );

    assert_eq!(finding(&r, "ahci_load").status, "non-ZFS");
    assert!(finding(&r, "kern.maxvnodes").explanation.contains("vnode"));
    // c_min that follows from arc_max: max(kmem/32, c_max/8) = 768 MiB.
    assert!(
        r.assumptions.iter().any(|a| a.contains("768.00 MiB")),
        "{:?}",
        r.assumptions
    );

    // With 8 GiB of RAM the prefetch default is spelled out.
    let r = check(
        &files,
        &CheckOptions {
            ram_bytes: Some(8 << 30),
            ..Default::default()
        },
    );
    assert!(
        finding(&r, "vfs.zfs.prefetch_disable")
            .explanation
            .contains("default would be 0")
    );
}

#[test]
fn legacy_arc_max_too_close_to_kmem_size_is_an_error() {
    for (arc_max, sev) in [
        ("7680M", Severity::Error),
        ("6656M", Severity::Warning),
        ("8192M", Severity::Error),
    ] {
        let t = format!("vm.kmem_size=\"8192M\"\nvfs.zfs.arc_max=\"{arc_max}\"\n");
        let r = check(
            &[parse_text(&t, "loader.conf", None).unwrap()],
            &CheckOptions::default(),
        );
        assert_eq!(finding(&r, "vfs.zfs.arc_max").severity, sev, "{arc_max}");
    }
    // In sysctl.conf arc_max has no effect on pre-OpenZFS FreeBSD (boot-time tunable).
    let r = check(
        &[parse_text("vfs.zfs.arc_max=1073741824\n", "sysctl.conf", None).unwrap()],
        &CheckOptions {
            target: Some(Target::FreeBsdLegacy),
            ..Default::default()
        },
    );
    assert_eq!(finding(&r, "vfs.zfs.arc_max").status, "no effect");
}

fn linux(t: &str, ram: Option<u64>, v: ZfsVersion) -> CheckReport {
    let f = parse_text(t, "/etc/modprobe.d/zfs.conf", None).unwrap();
    check(
        &[f],
        &CheckOptions {
            ram_bytes: ram,
            os: None,
            target: Some(Target::OpenZfs(v)),
        },
    )
}

#[test]
fn linux_arc_max_rules() {
    let ram = Some(33_532_497_920);
    let r = linux(
        "options zfs zfs_arc_max=8589934592\n",
        ram,
        ZfsVersion::V2_3,
    );
    let f = finding(&r, "zfs_arc_max");
    assert_eq!((f.status, f.severity), ("accepted", Severity::Ok));
    assert!(
        f.explanation.contains("c_max = 8.00 GiB = 25.6 % of RAM"),
        "{}",
        f.explanation
    );
    assert!(
        f.explanation.contains("16 MiB"),
        "shrink rule: {}",
        f.explanation
    );
    assert!(
        f.default.as_deref().unwrap().starts_with("30.23 GiB"),
        "{:?}",
        f.default
    );
    for (v, why) in [
        ("33554432", "below 64 MiB"),
        ("33532497920", "not below all memory"),
        ("64G", "not a plain integer"),
    ] {
        let r = linux(
            &format!("options zfs zfs_arc_max={v}\n"),
            ram,
            ZfsVersion::V2_3,
        );
        let f = finding(&r, "zfs_arc_max");
        assert_eq!(f.severity, Severity::Error, "{v}");
        assert!(f.explanation.contains(why), "{v}: {}", f.explanation);
    }
    // Not above c_min (0.7: arc_max must exceed the default c_min = allmem/32).
    let r = linux(
        "options zfs zfs_arc_max=1000000000\n",
        ram,
        ZfsVersion::V0_7,
    );
    assert!(
        finding(&r, "zfs_arc_max")
            .explanation
            .contains("not above c_min")
    );
    // arc_min above arc_max: arc_min is ignored.
    let r = linux(
        "options zfs zfs_arc_max=4294967296 zfs_arc_min=8589934592\n",
        ram,
        ZfsVersion::V2_3,
    );
    let f = finding(&r, "zfs_arc_min");
    assert_eq!(f.status, "ignored");
    assert!(f.explanation.contains("above c_max"), "{}", f.explanation);
    let r = linux(
        "options zfs zfs_arc_max=4294967296 zfs_arc_min=8589934592\n",
        None,
        ZfsVersion::V2_3,
    );
    assert!(
        finding(&r, "zfs_arc_min")
            .explanation
            .contains("above zfs_arc_max")
    );
}

#[test]
fn unknown_removed_misnamed_and_duplicate_tunables_are_reported() {
    let r = linux(
        "options zfs zfs_arc_maxx=1 zfs_arc_meta_limit=1073741824\noptions zfs zfs_txg_timeout=10\noptions zfs zfs_txg_timeout=15\noptions spl spl_kmem_cache_slab_limit=16384\n",
        Some(16 << 30),
        ZfsVersion::V2_3,
    );
    assert_eq!(
        (
            finding(&r, "zfs_arc_maxx").status,
            finding(&r, "zfs_arc_maxx").severity
        ),
        ("unknown", Severity::Warning)
    );
    assert_eq!(finding(&r, "zfs_arc_meta_limit").status, "no effect");
    assert_eq!(r.findings[2].status, "overridden");
    assert_eq!(r.findings[3].status, "accepted");
    assert_eq!(finding(&r, "spl_kmem_cache_slab_limit").status, "non-ZFS");
    let r = linux("options zfs vfs.zfs.arc.max=1\n", None, ZfsVersion::V2_3);
    assert_eq!(r.findings[0].status, "wrong name");
}

#[test]
fn sysfs_directory_and_version_file() {
    let d = tempfile::tempdir().unwrap();
    let params = d.path().join("parameters");
    std::fs::create_dir(&params).unwrap();
    std::fs::write(d.path().join("version"), "2.2.2-1\n").unwrap();
    std::fs::write(params.join("zfs_arc_max"), "0\n").unwrap();
    std::fs::write(params.join("zfs_prefetch_disable"), "0\n").unwrap();
    std::fs::write(params.join("zfs_some_new_knob"), "3\n").unwrap();
    let f = read_path(&params).unwrap();
    assert_eq!(f.kind, FileKind::SysfsDir);
    assert_eq!(f.module_version.as_deref(), Some("2.2.2-1"));
    let r = check(
        &[f],
        &CheckOptions {
            ram_bytes: Some(16 << 30),
            ..Default::default()
        },
    );
    assert_eq!(r.target, Target::OpenZfs(ZfsVersion::V2_2));
    assert_eq!(finding(&r, "zfs_some_new_knob").severity, Severity::Note);
    assert_eq!(
        finding(&r, "zfs_arc_max").severity,
        Severity::Note,
        "0 = automatic"
    );
    assert_eq!(r.count(Severity::Error), 0);
}

#[test]
fn target_names() {
    assert_eq!(parse_target("legacy").unwrap().0, Target::FreeBsdLegacy);
    assert_eq!(
        parse_target("2.2.7").unwrap().0,
        Target::OpenZfs(ZfsVersion::V2_2)
    );
    assert!(parse_target("banana").is_err());
}

#[test]
fn apply_writes_atomically_with_a_backup() {
    let root = tempfile::tempdir().unwrap();
    let conf = root.path().join("etc/modprobe.d/zfs.conf");
    std::fs::create_dir_all(conf.parent().unwrap()).unwrap();
    std::fs::write(
        &conf,
        "# mine\noptions zfs zfs_arc_max=0 zfs_prefetch_disable=1\n",
    )
    .unwrap();
    let param = root.path().join("sys/module/zfs/parameters/zfs_arc_max");
    std::fs::create_dir_all(param.parent().unwrap()).unwrap();
    std::fs::write(&param, "17179869184\n").unwrap();
    let plan = apply::plan_cap(
        8 << 30,
        Os::Linux,
        Target::OpenZfs(ZfsVersion::V2_3),
        Some(32 << 30),
    );
    let done = apply::apply_cap(&plan, root.path(), &Fake::uid(0)).unwrap();
    assert_eq!(
        std::fs::read_to_string(&conf).unwrap(),
        "# mine\noptions zfs zfs_arc_max=8589934592 zfs_prefetch_disable=1\n"
    );
    let backup = done.backup.unwrap();
    assert_eq!(
        std::fs::read_to_string(&backup).unwrap(),
        "# mine\noptions zfs zfs_arc_max=0 zfs_prefetch_disable=1\n"
    );
    assert_eq!(std::fs::read_to_string(&param).unwrap(), "8589934592\n");
    // A second run with the same cap is a no-op: no rewrite, no second backup.
    let again = apply::apply_cap(&plan, root.path(), &Fake::uid(0)).unwrap();
    assert!(again.unchanged && again.backup.is_none(), "{again:?}");
    // No temporary files left behind.
    let names: Vec<String> = std::fs::read_dir(conf.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
}

#[test]
fn apply_refuses_without_privileges_and_changes_nothing() {
    let root = tempfile::tempdir().unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(root.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let plan = apply::plan_cap(8 << 30, Os::Linux, Target::OpenZfs(ZfsVersion::V2_3), None);
    let e = apply::apply_cap(&plan, root.path(), &Fake::uid(1000)).unwrap_err();
    assert!(
        matches!(e, ApplyError::NotPrivileged { uid: 1000, .. }),
        "{e}"
    );
    assert!(e.to_string().contains("Nothing was changed"));
    assert!(!root.path().join("etc").exists());
    // A root that is a file.
    let file = root.path().join("f");
    std::fs::write(&file, "").unwrap();
    assert!(matches!(
        apply::apply_cap(&plan, &file, &Fake::uid(0)),
        Err(ApplyError::BadRoot(_))
    ));
}

#[test]
fn apply_refuses_a_symlink_out_of_the_root() {
    let root = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(root.path().join("etc")).unwrap();
    std::os::unix::fs::symlink(outside.path(), root.path().join("etc/modprobe.d")).unwrap();
    let plan = apply::plan_cap(8 << 30, Os::Linux, Target::OpenZfs(ZfsVersion::V2_3), None);
    let e = apply::apply_cap(&plan, root.path(), &Fake::uid(0)).unwrap_err();
    assert!(matches!(e, ApplyError::OutsideRoot { .. }), "{e}");
    assert_eq!(
        std::fs::read_dir(outside.path()).unwrap().count(),
        0,
        "nothing written"
    );
    // The same link pointing inside the root is followed.
    let inside = root.path().join("real-modprobe.d");
    std::fs::create_dir_all(&inside).unwrap();
    std::fs::remove_file(root.path().join("etc/modprobe.d")).unwrap();
    std::os::unix::fs::symlink(&inside, root.path().join("etc/modprobe.d")).unwrap();
    apply::apply_cap(&plan, root.path(), &Fake::uid(0)).unwrap();
    assert!(
        std::fs::read_to_string(inside.join("zfs.conf"))
            .unwrap()
            .contains("zfs_arc_max=8589934592")
    );
}

#[test]
fn loader_conf_edit_replaces_both_spellings() {
    let out = apply::edit_loader(
        "a=1\nvfs.zfs.arc_max=\"6144M\"\nvfs.zfs.arc.max=5\n",
        "vfs.zfs.arc.max=\"4294967296\"",
    );
    assert_eq!(out, "a=1\nvfs.zfs.arc.max=\"4294967296\"\n");
}

proptest! {
    #[test]
    fn parsers_never_panic(t in "\\PC{0,200}", kind in 0usize..4) {
        let k = [FileKind::Modprobe, FileKind::LoaderConf, FileKind::SysctlConf, FileKind::KeyValue][kind];
        if let Ok(f) = parse_text(&t, "x", Some(k)) {
            let _ = check(&[f], &CheckOptions { ram_bytes: Some(1 << 30), ..Default::default() });
        }
    }

    #[test]
    fn shaped_lines_never_panic(lines in proptest::collection::vec("(options zfs |vfs\\.zfs\\.|vm\\.)[a-z_.]{0,12}(=\"?[0-9]{0,12}[KMGX]?\"?)?( #c)?", 0..8)) {
        let t = lines.join("\n");
        for k in [FileKind::Modprobe, FileKind::LoaderConf] {
            if let Ok(f) = parse_text(&t, "x", Some(k)) {
                let _ = check(&[f], &CheckOptions::default());
            }
        }
    }
}

/// A machine seen as `uid` whose kernel refuses in-place writes once
/// `ok_writes` have succeeded (the tests run as root, where mode bits stop
/// nothing: this is how they are another user or a failing sysfs).
struct Fake {
    uid: u32,
    ok_writes: std::cell::Cell<u32>,
}

impl Fake {
    fn uid(uid: u32) -> Fake {
        Fake {
            uid,
            ok_writes: std::cell::Cell::new(u32::MAX),
        }
    }

    fn failing_after(ok: u32) -> Fake {
        Fake {
            uid: 0,
            ok_writes: std::cell::Cell::new(ok),
        }
    }
}

impl System for Fake {
    fn effective_uid(&self) -> Option<u32> {
        Some(self.uid)
    }

    fn write_in_place(&self, path: &std::path::Path, text: &str) -> std::io::Result<()> {
        match self.ok_writes.get() {
            0 => Err(std::io::Error::from(std::io::ErrorKind::PermissionDenied)),
            n => {
                self.ok_writes.set(n - 1);
                apply::Host.write_in_place(path, text)
            }
        }
    }
}

/// Issue 14 item 12: the sysfs write failed after `zfs.conf` had been
/// written, and the error did not say so. Now the runtime write comes first:
/// when it fails, nothing is written and the error says so.
#[test]
fn apply_writes_nothing_when_the_runtime_write_fails() {
    let root = tempfile::tempdir().unwrap();
    let conf = root.path().join("etc/modprobe.d/zfs.conf");
    std::fs::create_dir_all(conf.parent().unwrap()).unwrap();
    std::fs::write(&conf, "options zfs zfs_arc_max=0\n").unwrap();
    let param = root.path().join("sys/module/zfs/parameters/zfs_arc_max");
    std::fs::create_dir_all(param.parent().unwrap()).unwrap();
    std::fs::write(&param, "0\n").unwrap();
    let plan = apply::plan_cap(8 << 30, Os::Linux, Target::OpenZfs(ZfsVersion::V2_3), None);
    let e = apply::apply_cap(&plan, root.path(), &Fake::failing_after(0)).unwrap_err();
    assert!(matches!(e, ApplyError::Runtime { .. }), "{e}");
    let msg = e.to_string();
    assert!(
        msg.contains("cannot write 8589934592 to ")
            && msg.contains("Nothing was changed")
            && msg.contains("zfs.conf was not written"),
        "{msg}"
    );
    assert_eq!(
        std::fs::read_to_string(&conf).unwrap(),
        "options zfs zfs_arc_max=0\n"
    );
    assert_eq!(std::fs::read_to_string(&param).unwrap(), "0\n");
    assert_eq!(
        std::fs::read_dir(conf.parent().unwrap()).unwrap().count(),
        1,
        "no backup"
    );
    // The real machine writes in place.
    apply::Host.write_in_place(&param, "5\n").unwrap();
    assert_eq!(std::fs::read_to_string(&param).unwrap(), "5\n");
}

/// When the persistent file cannot be written after the runtime parameter
/// was, the parameter is set back, and the error says what was changed;
/// when setting it back fails too, the error says the cap is in force but
/// not persistent.
#[test]
fn apply_rolls_the_runtime_write_back_when_the_file_write_fails() {
    for (ok_writes, restored) in [(2, true), (1, false)] {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("etc/modprobe.d");
        std::fs::create_dir_all(&dir).unwrap();
        // zfs.conf is a link (inside the root) to the real file: arclab never
        // writes through a link, so the persistent write fails.
        std::fs::write(dir.join("real.conf"), "options zfs zfs_arc_max=0\n").unwrap();
        std::os::unix::fs::symlink("real.conf", dir.join("zfs.conf")).unwrap();
        let param = root.path().join("sys/module/zfs/parameters/zfs_arc_max");
        std::fs::create_dir_all(param.parent().unwrap()).unwrap();
        std::fs::write(&param, "4294967296\n").unwrap();
        let plan = apply::plan_cap(8 << 30, Os::Linux, Target::OpenZfs(ZfsVersion::V2_3), None);
        let e = apply::apply_cap(&plan, root.path(), &Fake::failing_after(ok_writes)).unwrap_err();
        let msg = e.to_string();
        assert!(matches!(e, ApplyError::Persistent { .. }), "{msg}");
        assert!(msg.contains("zfs.conf was not written"), "{msg}");
        assert_eq!(
            std::fs::read_to_string(dir.join("real.conf")).unwrap(),
            "options zfs zfs_arc_max=0\n"
        );
        if restored {
            assert!(
                msg.contains("was restored to its old value 4294967296: nothing was changed"),
                "{msg}"
            );
            assert_eq!(std::fs::read_to_string(&param).unwrap(), "4294967296\n");
        } else {
            assert!(
                msg.contains("now holds 8589934592")
                    && msg.contains("the cap is in force now but not persistent"),
                "{msg}"
            );
            assert_eq!(std::fs::read_to_string(&param).unwrap(), "8589934592\n");
        }
    }
}
