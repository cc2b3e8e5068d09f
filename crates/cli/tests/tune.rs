//! `arclab tune check` and `arclab tune cap`.

mod common;

use common::{arclab, fails, json};
use std::path::Path;
use std::process::Command;

/// The two files of the freebsd-stable post "kmem_map too small with ZFS and
/// 8.2-RELEASE" on the freebsd-stable mailing list, exactly as posted.
const LOADER_CONF: &str = "\tahci_load=\"yes\"\n\tvm.kmem_size=\"8192M\"\n\tvfs.zfs.arc_max=\"6144M\"\n\tvfs.zfs.prefetch_disable=\"1\"\n\tvfs.zfs.txg.timeout=\"5\"\n";
const SYSCTL_CONF: &str =
    "\tkern.maxvnodes=250000\n\tvfs.zfs.txg.write_limit_override=1073741824\n";

fn files(dir: &Path) -> (String, String) {
    std::fs::create_dir_all(dir.join("boot")).unwrap();
    std::fs::create_dir_all(dir.join("etc")).unwrap();
    let (l, s) = (dir.join("boot/loader.conf"), dir.join("etc/sysctl.conf"));
    std::fs::write(&l, LOADER_CONF).unwrap();
    std::fs::write(&s, SYSCTL_CONF).unwrap();
    (l.display().to_string(), s.display().to_string())
}

#[test]
fn mailing_list_files_pass_with_explanations() {
    let d = tempfile::tempdir().unwrap();
    let (l, s) = files(d.path());
    let out = arclab(&["tune", "check", &l, &s]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for part in [
        "Checking as pre-OpenZFS FreeBSD",
        &format!("{l}:3  vfs.zfs.arc_max = 6144M  [accepted]"),
        "leaves 2.00 GiB (25.0 %) of kmem_map",
        "\"kmem_map too small\" panic",
        "default: 7.00 GiB",
        "disables file-level prefetch",
        "every 5 s",
        "30 s (ZFS v13/v15",
        "fixed per-txg write limit of 1.00 GiB",
        &format!("{s}:1  kern.maxvnodes = 250000  [non-ZFS]"),
        "0 warning(s), 0 error(s)",
    ] {
        assert!(text.contains(part), "missing `{part}`:\n{text}");
    }
    let v = json(&["tune", "check", "--json", "--ram", "8G", &l, &s]);
    assert_eq!(v["errors"], 0);
    assert_eq!(v["findings"].as_array().unwrap().len(), 7);
    let arc = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == "vfs.zfs.arc_max")
        .unwrap();
    assert_eq!(
        (arc["status"].as_str(), arc["tunable"].as_str()),
        (Some("accepted"), Some("zfs_arc_max"))
    );
}

#[test]
fn linux_rules_and_errors_name_file_and_line() {
    let d = tempfile::tempdir().unwrap();
    let conf = d.path().join("zfs.conf");
    std::fs::write(&conf, "# caps\noptions zfs zfs_arc_max=8589934592\noptions zfs zfs_arc_min=17179869184 zfs_no_such=1\n").unwrap();
    let c = conf.to_str().unwrap();
    let e = fails(
        &["tune", "check", "--ram", "32G", "--zfs-version", "2.3", c],
        1,
    );
    assert!(
        e.contains(&format!("{c}: line 3: zfs_arc_min = 17179869184")),
        "{e}"
    );
    assert!(e.contains("above c_max"), "{e}");
    // Unknown names are warnings: reported; --strict fails on them.
    std::fs::write(&conf, "options zfs zfs_arc_max=8589934592 zfs_no_such=1\n").unwrap();
    let out = arclab(&["tune", "check", "--ram", "32G", c]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("zfs_no_such = 1  [unknown, warning]"));
    let e = fails(&["tune", "check", "--strict", "--ram", "32G", c], 1);
    assert!(e.contains(&format!("{c}: line 1: zfs_no_such")), "{e}");
    // A suffix in modprobe.d: the kernel rejects it.
    std::fs::write(&conf, "options zfs zfs_arc_max=8G\n").unwrap();
    let e = fails(&["tune", "check", c], 1);
    assert!(
        e.contains("line 1") && e.contains("not a plain integer"),
        "{e}"
    );
}

#[test]
fn syntax_errors_and_bad_sizes() {
    let d = tempfile::tempdir().unwrap();
    let conf = d.path().join("zfs.conf");
    std::fs::write(
        &conf,
        "options zfs zfs_arc_max=1\noptions zfs zfs_arc_min\n",
    )
    .unwrap();
    let e = fails(&["tune", "check", conf.to_str().unwrap()], 1);
    assert!(e.contains(&format!("{}: line 2:", conf.display())), "{e}");
    let loader = d.path().join("loader.conf");
    std::fs::write(&loader, "vm.kmem_size=\"8G\"\nvfs.zfs.arc_max=\"8X\"\n").unwrap();
    let e = fails(&["tune", "check", loader.to_str().unwrap()], 1);
    assert!(
        e.contains(&format!(
            "{}: line 2: vfs.zfs.arc_max = 8X",
            loader.display()
        )) && e.contains("invalid size"),
        "{e}"
    );
    std::fs::write(&loader, "vfs.zfs.arc_max=\"6G\nx=1\n").unwrap();
    let e = fails(&["tune", "check", loader.to_str().unwrap()], 1);
    assert!(e.contains("line 1: unbalanced quote"), "{e}");
    fails(&["tune", "check", "/nonexistent/zfs.conf"], 1);
    fails(
        &[
            "tune",
            "check",
            "--zfs-version",
            "banana",
            conf.to_str().unwrap(),
        ],
        2,
    );
    fails(
        &["tune", "check", "--os", "plan9", conf.to_str().unwrap()],
        2,
    );
    fails(&["tune", "check"], 2);
    fails(&["tune", "cap", "8X"], 2);
}

fn root_with_module(zfs_conf: Option<&str>) -> tempfile::TempDir {
    let r = tempfile::tempdir().unwrap();
    let p = r.path().join("sys/module/zfs/parameters");
    std::fs::create_dir_all(&p).unwrap();
    std::fs::write(p.join("zfs_arc_max"), "0\n").unwrap();
    std::fs::write(r.path().join("sys/module/zfs/version"), "2.2.6-1\n").unwrap();
    if let Some(c) = zfs_conf {
        std::fs::create_dir_all(r.path().join("etc/modprobe.d")).unwrap();
        std::fs::write(r.path().join("etc/modprobe.d/zfs.conf"), c).unwrap();
    }
    r
}

#[test]
fn cap_dry_run_prints_both_lines_and_writes_nothing() {
    let r = root_with_module(None);
    let root = r.path().to_str().unwrap();
    let out = arclab(&["tune", "cap", "8G", "--ram", "32G", "--root", root]);
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{s}");
    for part in [
        "options zfs zfs_arc_max=8589934592",
        "sys/module/zfs/parameters/zfs_arc_max",
        "release 2.2.6-1 from",
        "c + max(16 MiB, c/256)/2",
        "Dry run",
    ] {
        assert!(s.contains(part), "missing `{part}`:\n{s}");
    }
    assert!(!r.path().join("etc").exists());
    assert_eq!(
        std::fs::read_to_string(r.path().join("sys/module/zfs/parameters/zfs_arc_max")).unwrap(),
        "0\n"
    );
    // FreeBSD: loader.conf and a sysctl command, never run.
    let out = arclab(&[
        "tune",
        "cap",
        "6G",
        "--os",
        "freebsd",
        "--zfs-version",
        "2.3",
        "--ram",
        "16G",
        "--root",
        root,
    ]);
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(
        s.contains("vfs.zfs.arc.max=\"6442450944\"")
            && s.contains("sysctl vfs.zfs.arc.max=6442450944"),
        "{s}"
    );
    // A cap the kernel would ignore fails.
    let e = fails(&["tune", "cap", "32M", "--ram", "32G", "--root", root], 1);
    assert!(e.contains("below 64 MiB"), "{e}");
}

fn cap(root: &str) -> std::process::Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_arclab"));
    c.args([
        "tune", "cap", "8G", "--ram", "32G", "--root", root, "--apply",
    ]);
    c.output().unwrap()
}

#[test]
fn cap_apply_writes_both_files_with_a_backup() {
    let r = root_with_module(Some("options zfs zfs_prefetch_disable=1\n"));
    let out = cap(r.path().to_str().unwrap());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let conf = r.path().join("etc/modprobe.d/zfs.conf");
    let text = std::fs::read_to_string(&conf).unwrap();
    assert!(
        text.starts_with("options zfs zfs_prefetch_disable=1\n")
            && text.ends_with("options zfs zfs_arc_max=8589934592\n"),
        "{text}"
    );
    let backup = r.path().join("etc/modprobe.d/zfs.conf.arclab-backup");
    assert_eq!(
        std::fs::read_to_string(backup).unwrap(),
        "options zfs zfs_prefetch_disable=1\n"
    );
    assert_eq!(
        std::fs::read_to_string(r.path().join("sys/module/zfs/parameters/zfs_arc_max")).unwrap(),
        "8589934592\n"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("Backup of the previous file"));
}

/// Refusing without privileges is the library's (`apply_refuses_without_privileges_and_changes_nothing`
/// in crates/zfs/tests/tune.rs, through `apply::System`): the binary has no
/// test hook for its uid (issue 14 removed `ARCLAB_FAKE_UID`), and the tests
/// run as root, where mode bits stop nothing.
#[test]
fn cap_apply_refuses_a_root_that_is_not_a_directory() {
    let r = tempfile::tempdir().unwrap();
    let f = r.path().join("plain-file");
    std::fs::write(&f, "").unwrap();
    let out = cap(f.to_str().unwrap());
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not a directory"));
}

/// What `tune check` prints cites no spec section (a `§` the output never
/// defines): the vm.kmem_size note and the prefetch explanation used to.
#[test]
fn check_output_cites_no_spec_sections() {
    let d = tempfile::tempdir().unwrap();
    let l = d.path().join("loader.conf");
    std::fs::write(
        &l,
        "vfs.zfs.arc_max=\"4G\"\nvfs.zfs.prefetch_disable=\"1\"\n",
    )
    .unwrap();
    let l = l.to_str().unwrap();
    let out = arclab(&[
        "tune",
        "check",
        "--os",
        "freebsd",
        "--zfs-version",
        "legacy",
        l,
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("autotuned at boot"), "{text}");
    assert!(!text.contains('§'), "{text}");
}

fn cap_args(root: &str, extra: &[&str]) -> std::process::Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_arclab"));
    c.args(["tune", "cap", "8G", "--root", root]).args(extra);
    c.output().unwrap()
}

/// `tune cap` says where RAM came from, shows the cap in force as "before",
/// applies idempotently and replaces its own stale comment.
#[test]
fn cap_names_ram_source_shows_cap_in_force_and_is_idempotent() {
    // 16 GiB already set in the file; on 64 GiB the 2.2 default would be
    // allmem/2 = 32 GiB (module/zfs/arc.c arc_init(), 2.0–2.2), so "before"
    // must say 16 GiB.
    let r = root_with_module(Some("options zfs zfs_arc_max=17179869184\n"));
    let root = r.path().to_str().unwrap();
    let out = cap_args(root, &["--ram", "64G"]);
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{s}");
    assert!(
        s.contains("RAM 64.00 GiB (68719476736 bytes) from --ram"),
        "{s}"
    );
    assert!(
        s.contains("c_max 16.00 GiB (zfs_arc_max=17179869184 in ") && s.contains("→ 8.00 GiB"),
        "{s}"
    );
    assert!(!s.contains("c_max 32.00 GiB"), "{s}");
    // No --ram: RAM from the root's /proc/meminfo, and the output says so.
    std::fs::create_dir_all(r.path().join("proc")).unwrap();
    std::fs::write(
        r.path().join("proc/meminfo"),
        "MemTotal:       16777216 kB\nMemFree: 1 kB\n",
    )
    .unwrap();
    let s = String::from_utf8(cap_args(root, &[]).stdout).unwrap();
    assert!(
        s.contains("RAM 16.00 GiB (17179869184 bytes) from MemTotal of "),
        "{s}"
    );
    assert!(s.contains("give --ram for another host"), "{s}");

    // A stale arclab comment is replaced, not left above the new value.
    let conf = r.path().join("etc/modprobe.d/zfs.conf");
    std::fs::write(
        &conf,
        "# arclab tune cap: 64.00 MiB\noptions zfs zfs_arc_max=67108864\n",
    )
    .unwrap();
    let out = cap_args(root, &["--ram", "64G", "--apply"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let after = std::fs::read_to_string(&conf).unwrap();
    assert_eq!(
        after,
        "# arclab tune cap: 8.00 GiB\noptions zfs zfs_arc_max=8589934592\n"
    );
    // The same cap again: nothing written, no second backup.
    let out = cap_args(root, &["--ram", "64G", "--apply"]);
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success() && s.contains("Nothing to do"), "{s}");
    assert_eq!(std::fs::read_to_string(&conf).unwrap(), after);
    assert!(
        r.path()
            .join("etc/modprobe.d/zfs.conf.arclab-backup")
            .exists()
    );
    assert!(
        !r.path()
            .join("etc/modprobe.d/zfs.conf.arclab-backup.1")
            .exists()
    );
}

/// A FreeBSD 14 loader.conf (OpenZFS 2.x names, `vfs.zfs.arc.min` /
/// `vfs.zfs.arc.max` as in FreeBSD 14's loader.conf(5) / OpenZFS
/// module/os/freebsd sysctl names) with one leftover pre-OpenZFS
/// `vfs.zfs.prefetch_disable`: checked as OpenZFS, the modern names are not
/// "wrong names", and the output says what was inferred and why.
#[test]
fn freebsd14_loader_conf_with_one_legacy_line_is_checked_as_openzfs() {
    let d = tempfile::tempdir().unwrap();
    let l = d.path().join("loader.conf");
    std::fs::write(
        &l,
        "zfs_load=\"YES\"\nvfs.zfs.arc.min=\"1G\"\nvfs.zfs.arc.max=\"8G\"\nvfs.zfs.prefetch_disable=\"1\"\n",
    )
    .unwrap();
    let l = l.to_str().unwrap();
    let out = arclab(&["tune", "check", "--ram", "32G", l]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("Checking as OpenZFS"), "{text}");
    assert!(!text.contains("pre-OpenZFS FreeBSD (base"), "{text}");
    assert!(
        text.contains("inferred OpenZFS") && text.contains("2 OpenZFS-only name(s)"),
        "{text}"
    );
    let line = text
        .lines()
        .find(|x| x.contains("vfs.zfs.arc.min = 1G"))
        .unwrap();
    assert!(!line.contains("wrong name"), "{line}");
    // Legacy evidence that outweighs the modern one still selects pre-OpenZFS.
    let old = d.path().join("old-loader.conf");
    std::fs::write(
        &old,
        "vm.kmem_size=\"8192M\"\nvfs.zfs.arc_max=\"6144M\"\nvfs.zfs.prefetch_disable=\"1\"\n",
    )
    .unwrap();
    let text = String::from_utf8(arclab(&["tune", "check", old.to_str().unwrap()]).stdout).unwrap();
    assert!(
        text.contains("Checking as pre-OpenZFS FreeBSD") && text.contains("inferred pre-OpenZFS"),
        "{text}"
    );
}
