//! `arclab scenario --from-host` on the real fixtures (values read from the
//! files here), through a fake procfs/sysfs tree, and into `whatif`.

mod common;

use arclab_sim::scenario::Scenario;
use common::{arclab, fails, json, ok};
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    arclab_testdata::path(&format!("arcstats/{name}"))
}

fn put(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

const CASES: [(&str, &str); 3] = [
    ("linux-openzfs22plus-telegraf.arcstats", "--arcstats"),
    ("linux-zol07-node_exporter.arcstats", "--arcstats"),
    ("freebsd14-telegraf.sysctl.txt", "--sysctl"),
];

#[test]
fn every_fixture_becomes_a_scenario_whatif_loads() {
    let d = tempfile::tempdir().unwrap();
    for (name, flag) in CASES {
        let path = fixture(name);
        let r = arclab_testdata::naive_arcstats(&std::fs::read_to_string(&path).unwrap());
        // The 0.6/0.7 fixture has no memory_all_bytes: its RAM comes from this meminfo (16 GiB).
        let total_kib = r.get("memory_all_bytes").map_or(16 << 20, |b| b / 1024);
        let avail_kib = total_kib / 3;
        let mi = d.path().join(format!("{name}.meminfo"));
        put(&mi, &arclab_testdata::meminfo(total_kib, avail_kib));
        let out = d.path().join(format!("{name}.toml"));
        let res = arclab(&[
            "scenario",
            "--from-host",
            flag,
            path.to_str().unwrap(),
            "--meminfo",
            mi.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]);
        assert!(res.status.success(), "{name}: {res:?}");
        assert!(res.stdout.is_empty(), "{name}: -o writes only the file");
        let text = std::fs::read_to_string(&out).unwrap();
        let s = Scenario::from_toml_str(&text, name).unwrap();
        assert_eq!(
            s.ram_bytes,
            r.get("memory_all_bytes").copied().unwrap_or(16 << 30),
            "{name}"
        );
        assert_eq!(s.arc_max, Some(r["c_max"]), "{name}");
        assert_eq!(s.arc_min, Some(r["c_min"]), "{name}");
        let pinned = match r.get("dnode_size") {
            Some(dn) => dn + r["dbuf_size"] + r["bonus_size"],
            None => r["other_size"],
        };
        // Plus the metadata it cannot evict: metadata_size − Σ evictable.
        let evictable: u64 = ["anon", "mru", "mfu", "uncached"]
            .iter()
            .filter_map(|st| r.get(&format!("{st}_evictable_metadata")))
            .sum();
        let held = r.get("metadata_size").map_or(0, |m| m - evictable);
        assert_eq!(s.pinned.metadata_bytes, held, "{name}");
        assert_eq!(s.pinned.total(), pinned + held, "{name}");
        assert_eq!(
            s.demand[0].bytes,
            (total_kib - avail_kib) * 1024 - r["size"],
            "{name}"
        );
        assert!(text.contains("evidence:"), "{name}: {text}");
        // whatif takes the file (1 % sample of the built-in workload, one cap, to stay quick).
        let cap = (r["c_max"] / 2).to_string();
        let v = json(&[
            "whatif",
            "--scenario",
            out.to_str().unwrap(),
            "--workload",
            "homelab",
            "--caps",
            &cap,
            "--sample-rate",
            "0.01",
            "--json",
        ]);
        assert_eq!(v["scenario"], "host", "{name}");
        assert_eq!(v["ram_bytes"].as_u64(), Some(s.ram_bytes), "{name}");
    }
}

#[test]
fn a_fake_proc_and_sys_tree_sets_caps_prefetch_and_version() {
    let path = fixture(CASES[0].0);
    let r = arclab_testdata::naive_arcstats(&std::fs::read_to_string(&path).unwrap());
    let d = tempfile::tempdir().unwrap();
    let (p, sys) = (d.path().join("proc"), d.path().join("sys"));
    put(
        &p.join("spl/kstat/zfs/arcstats"),
        &std::fs::read_to_string(&path).unwrap(),
    );
    let total_kib = r["memory_all_bytes"] / 1024;
    put(
        &p.join("meminfo"),
        &arclab_testdata::meminfo(total_kib, 12_000_000),
    );
    // OpenZFS sysfs formats: U64 parameters "%llu\n", INT "%d\n", version "2.2.2-1\n".
    put(&sys.join("module/zfs/version"), "2.2.2-1\n");
    let params = sys.join("module/zfs/parameters");
    put(&params.join("zfs_arc_max"), &format!("{}\n", r["c_max"]));
    put(&params.join("zfs_arc_min"), "0\n");
    put(&params.join("zfs_prefetch_disable"), "1\n");
    let text = ok(&[
        "scenario",
        "--from-host",
        "--procfs",
        p.to_str().unwrap(),
        "--sysfs",
        sys.to_str().unwrap(),
    ]);
    let s = Scenario::from_toml_str(&text, "stdout").unwrap();
    assert_eq!(s.zfs_version, "2.2.2");
    assert_eq!(s.arc_max, Some(r["c_max"]));
    assert_eq!(s.arc_min, None);
    assert!(!s.prefetch);
    assert_eq!(
        s.demand[0].bytes,
        (total_kib - 12_000_000) * 1024 - r["size"]
    );
    assert!(text.contains("zfs_prefetch_disable = 1"), "{text}");
}

#[test]
fn bad_input_fails_cleanly() {
    let lin = fixture(CASES[0].0);
    let lin = lin.to_str().unwrap();
    // --from-host is required; --sysctl wants FreeBSD output.
    fails(&["scenario", "--arcstats", lin], 2);
    let e = fails(&["scenario", "--from-host", "--sysctl", lin], 2);
    assert!(e.contains("--sysctl expects FreeBSD"), "{e}");
    fails(
        &["scenario", "--from-host", "--arcstats", "/nonexistent/a"],
        1,
    );
    // The ZoL 0.6/0.7 fixture without meminfo: RAM unknown.
    let zol = fixture(CASES[1].0);
    let e = fails(
        &[
            "scenario",
            "--from-host",
            "--arcstats",
            zol.to_str().unwrap(),
        ],
        1,
    );
    assert!(e.contains("memory_all_bytes"), "{e}");
    // A meminfo in the wrong unit names the file and line.
    let d = tempfile::tempdir().unwrap();
    let mi = d.path().join("meminfo");
    put(&mi, "MemTotal: 12 MB\n");
    let e = fails(
        &[
            "scenario",
            "--from-host",
            "--arcstats",
            lin,
            "--meminfo",
            mi.to_str().unwrap(),
        ],
        1,
    );
    assert!(e.contains("meminfo: line 1"), "{e}");
    // -o into a missing directory: an error, nothing half-written.
    let e = fails(
        &[
            "scenario",
            "--from-host",
            "--arcstats",
            lin,
            "-o",
            d.path().join("no/dir/host.toml").to_str().unwrap(),
        ],
        1,
    );
    assert!(e.contains("host.toml"), "{e}");
    // A sysfs root without module/zfs.
    let e = fails(
        &[
            "scenario",
            "--from-host",
            "--arcstats",
            lin,
            "--sysfs",
            d.path().to_str().unwrap(),
        ],
        1,
    );
    assert!(e.contains("no module/zfs"), "{e}");
}

#[test]
fn limits_and_tune_share_one_version_parser() {
    // tune check accepts `legacy`; limits reads it with the same parser and
    // explains why it has no RAM formula for it (usage error, not "invalid version").
    let e = fails(&["limits", "--ram", "8G", "--zfs-version", "legacy"], 2);
    assert!(e.contains("vm.kmem_size"), "{e}");
    let e = fails(&["limits", "--ram", "8G", "--zfs-version", "two"], 2);
    assert!(e.contains("or `legacy`"), "{e}");
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("loader.conf");
    put(&f, "vfs.zfs.arc_max=\"4G\"\n");
    let out = arclab(&[
        "tune",
        "check",
        "--os",
        "freebsd",
        "--zfs-version",
        "legacy",
        f.to_str().unwrap(),
    ]);
    assert_ne!(out.status.code(), Some(2), "{out:?}");
}

#[test]
fn freebsd_vfs_zfs_sysctls_give_the_caps_prefetch_and_version() {
    // The real FreeBSD 14 arcstats capture plus the `vfs.zfs.*` lines
    // `sysctl vfs.zfs` prints (names from FreeBSD 14's OpenZFS:
    // vfs.zfs.arc.max, vfs.zfs.arc.min, vfs.zfs.prefetch.disable,
    // vfs.zfs.version.module).
    let d = tempfile::tempdir().unwrap();
    let mut text = std::fs::read_to_string(fixture("freebsd14-telegraf.sysctl.txt")).unwrap();
    text.push_str("vfs.zfs.version.module: 2.2.0-FreeBSD_g95785196f\nvfs.zfs.arc.max: 4294967296\nvfs.zfs.arc.min: 0\nvfs.zfs.prefetch.disable: 1\n");
    let f = d.path().join("sysctl.txt");
    put(&f, &text);
    let out = d.path().join("bsd.toml");
    ok(&[
        "scenario",
        "--from-host",
        "--sysctl",
        &f.display().to_string(),
        "-o",
        &out.display().to_string(),
    ]);
    let toml = std::fs::read_to_string(&out).unwrap();
    let sc = Scenario::from_toml_str(&toml, "bsd.toml").unwrap();
    // The 4 GiB cap was read, and judged: this 4 GiB host's arcstats c_max
    // (3178811392) shows the kernel did not take it.
    assert!(
        toml.contains("zfs_arc_max = 4294967296 is not in force: arcstats c_max = 3178811392"),
        "{toml}"
    );
    assert_eq!(sc.arc_max, Some(3_178_811_392), "{toml}");
    assert!(!sc.prefetch, "{toml}");
    assert_eq!(sc.zfs_version, "2.2.0", "{toml}");
    assert_eq!(sc.os, "freebsd");
    // Without the vfs.zfs lines: no caps in force, prefetch assumed on.
    let plain = d.path().join("plain.toml");
    ok(&[
        "scenario",
        "--from-host",
        "--sysctl",
        &fixture("freebsd14-telegraf.sysctl.txt")
            .display()
            .to_string(),
        "-o",
        &plain.display().to_string(),
    ]);
    let sc = Scenario::from_toml_str(&std::fs::read_to_string(&plain).unwrap(), "p").unwrap();
    let plain_toml = std::fs::read_to_string(&plain).unwrap();
    assert!(
        sc.prefetch && !plain_toml.contains("zfs_arc_max ="),
        "{plain_toml}"
    );
    // A bad value names the file and line.
    put(
        &f,
        &format!(
            "{}vfs.zfs.arc.max: lots\n",
            std::fs::read_to_string(fixture("freebsd14-telegraf.sysctl.txt")).unwrap()
        ),
    );
    let err = fails(
        &[
            "scenario",
            "--from-host",
            "--sysctl",
            &f.display().to_string(),
        ],
        1,
    );
    assert!(
        err.contains("sysctl.txt: line 149: `vfs.zfs.arc.max` is `lots`"),
        "{err}"
    );
}
