//! `arclab_zfs::host`: reading a procfs/sysfs tree and the host as a
//! scenario, on every fixture in the repository's `data/arcstats/`. Expected
//! values are read from the fixture files by a naive reader here (never
//! copied from the code's output); the fake trees use the kernel's formats:
//!
//! * `/proc/meminfo`: `"%-15s %8lu kB"` lines (Linux `fs/proc/meminfo.c`,
//!   `show_val_kb`), sizes in KiB;
//! * `/sys/module/zfs/parameters/zfs_arc_{max,min}`: OpenZFS declares them
//!   `U64` parameters, printed by `spl_param_get_u64` as `"%llu\n"`;
//!   `zfs_prefetch_disable` is an `INT`, `param_get_int`: `"%d\n"`;
//! * `/sys/module/zfs/version`: `MODULE_VERSION(ZFS_META_VERSION "-"
//!   ZFS_META_RELEASE)`, printed with a newline (`2.2.2-1`).

mod common;

use std::path::Path;

use arclab_sim::scenario::Scenario;
use arclab_zfs::host::scenario::{HostInputs, scenario_from_host};
use arclab_zfs::host::{self, HostError, Meminfo, parse_meminfo};
use common::{FREEBSD, LINUX23, ZOL06, fixture};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A fake sysfs root with the module version and three parameters.
fn sysfs(dir: &Path, version: &str, arc_max: u64, arc_min: u64, prefetch_disable: i32) {
    write(&dir.join("module/zfs/version"), &format!("{version}\n"));
    let p = dir.join("module/zfs/parameters");
    write(&p.join("zfs_arc_max"), &format!("{arc_max}\n"));
    write(&p.join("zfs_arc_min"), &format!("{arc_min}\n"));
    write(
        &p.join("zfs_prefetch_disable"),
        &format!("{prefetch_disable}\n"),
    );
    // Other parameters exist too; they are not read.
    write(&p.join("zfs_arc_meta_limit_percent"), "75\n");
}

fn load(toml: &str) -> Scenario {
    Scenario::from_toml_str(toml, "host.toml").unwrap_or_else(|e| panic!("{e}\n{toml}"))
}

#[test]
fn every_fixture_gives_a_loadable_scenario_with_the_files_values() {
    for name in [LINUX23, ZOL06, FREEBSD] {
        let (path, text) = fixture(name);
        let r = arclab_testdata::naive_arcstats(&text);
        let k = host::read_kstat_file(Path::new(&path)).unwrap();
        // RAM: memory_all_bytes when the file has it (2.2 and FreeBSD
        // fixtures); the 0.6/0.7 fixture has none, so MemTotal of the
        // meminfo written here (8 GiB) is used.
        let total_kib = r.get("memory_all_bytes").map_or(8 << 20, |b| b / 1024);
        let avail_kib = total_kib / 4;
        let mem =
            parse_meminfo(&arclab_testdata::meminfo(total_kib, avail_kib), "meminfo").unwrap();
        let hs = scenario_from_host(&HostInputs {
            kstats: &k,
            meminfo: Some(mem),
            params: None,
        })
        .unwrap();
        let toml = hs.to_toml();
        let s = load(&toml);
        assert_eq!(s, hs.scenario, "{name}: the TOML round-trips");
        assert_eq!(
            s.ram_bytes,
            r.get("memory_all_bytes").copied().unwrap_or(8 << 30),
            "{name}"
        );
        assert_eq!(
            s.os,
            if name == FREEBSD { "freebsd" } else { "linux" },
            "{name}"
        );
        // No module parameters given: the caps in force are c_max / c_min.
        assert_eq!(s.arc_max, Some(r["c_max"]), "{name}");
        assert_eq!(s.arc_min, Some(r["c_min"]), "{name}");
        assert!(s.prefetch, "{name}: default on when not read");
        // Pinned: dnode/dbuf/bonus rows where the release has them (2.2 and
        // FreeBSD 14 fixtures); the ZoL 0.6/0.7 fixture has only other_size.
        match r.get("dnode_size") {
            Some(&dn) => {
                assert_eq!(s.pinned.dnode_bytes, dn, "{name}");
                assert_eq!(s.pinned.dbuf_bytes, r["dbuf_size"], "{name}");
                assert_eq!(s.pinned.bonus_bytes, r["bonus_size"], "{name}");
            }
            None => {
                assert_eq!(s.pinned.dnode_bytes, 0, "{name}");
                assert_eq!(s.pinned.dbuf_bytes, r["other_size"], "{name}");
                assert!(toml.contains("other_size"), "{name}: says why\n{toml}");
            }
        }
        // Other processes: MemTotal − MemAvailable − size.
        assert_eq!(s.demand.len(), 1, "{name}");
        assert_eq!(
            s.demand[0].bytes,
            (total_kib - avail_kib) * 1024 - r["size"],
            "{name}"
        );
        assert_eq!(s.demand[0].at_secs, 0.0);
        // Non-evictable metadata: [pinned] metadata_bytes = metadata_size −
        // Σ *_evictable_metadata, with a comment saying so.
        let ev: u64 = ["anon", "mru", "mfu", "uncached"]
            .iter()
            .filter_map(|st| r.get(&format!("{st}_evictable_metadata")))
            .sum();
        let held = r["metadata_size"] - ev;
        assert!(
            toml.contains(&format!("= {held} bytes")),
            "{name}: {held}\n{toml}"
        );
        assert_eq!(s.pinned.metadata_bytes, held, "{name}");
        // The version's evidence is a comment above zfs_version.
        let before = toml.split("\nzfs_version").next().unwrap();
        assert!(
            before.lines().last().unwrap().starts_with("#   evidence:"),
            "{name}\n{toml}"
        );
    }
}

#[test]
fn the_2_2_fixture_infers_2_3_from_its_c_max() {
    // c_max 32458756096 with memory_all_bytes 33532497920 is the 2.3 Linux
    // default max(5/8·allmem, allmem − 1 GiB) = 33532497920 − 1073741824.
    let (path, text) = fixture(LINUX23);
    let r = arclab_testdata::naive_arcstats(&text);
    assert_eq!(r["c_max"], r["memory_all_bytes"] - (1 << 30));
    let k = host::read_kstat_file(Path::new(&path)).unwrap();
    let hs = scenario_from_host(&HostInputs {
        kstats: &k,
        meminfo: None,
        params: None,
    })
    .unwrap();
    assert_eq!(hs.scenario.zfs_version, "2.3");
    assert!(hs.scenario.demand.is_empty());
    assert!(hs.to_toml().contains("no meminfo given"));
}

#[test]
fn a_fake_procfs_and_sysfs_tree_reads_like_the_host() {
    let (_, text) = fixture(LINUX23);
    let r = arclab_testdata::naive_arcstats(&text);
    let total_kib = r["memory_all_bytes"] / 1024;
    let avail_kib = 9_000_000;
    let d = tempfile::tempdir().unwrap();
    let (proc_, sys) = (d.path().join("proc"), d.path().join("sys"));
    write(&proc_.join("spl/kstat/zfs/arcstats"), &text);
    write(
        &proc_.join("meminfo"),
        &arclab_testdata::meminfo(total_kib, avail_kib),
    );

    // 1. zfs_arc_max as in force (equal to c_max), zfs_arc_min 0 (automatic), prefetch off.
    sysfs(&sys, "2.2.2-1", r["c_max"], 0, 1);
    let k = host::read_procfs(&proc_).unwrap();
    assert_eq!(k.arc.get_u64("size"), Some(r["size"]));
    let mem = host::procfs_meminfo(&proc_).unwrap().unwrap();
    assert_eq!(
        mem,
        Meminfo {
            total_bytes: total_kib * 1024,
            available_bytes: Some(avail_kib * 1024)
        }
    );
    let params = host::read_sysfs(&sys).unwrap();
    assert_eq!(params.version.as_deref(), Some("2.2.2-1"));
    assert_eq!(params.arc_max, Some(r["c_max"]));
    assert_eq!(params.arc_min, Some(0));
    assert_eq!(params.prefetch_disable, Some(1));
    let hs = scenario_from_host(&HostInputs {
        kstats: &k,
        meminfo: Some(mem),
        params: Some(&params),
    })
    .unwrap();
    let toml = hs.to_toml();
    let s = load(&toml);
    assert_eq!(s.zfs_version, "2.2.2", "the module's own version wins");
    assert!(toml.contains("module/zfs/version = 2.2.2-1"), "{toml}");
    assert_eq!(s.arc_max, Some(r["c_max"]));
    assert_eq!(s.arc_min, None, "0 = automatic: left to the model");
    assert!(!s.prefetch);
    assert_eq!(
        s.demand[0].bytes,
        total_kib * 1024 - avail_kib * 1024 - r["size"]
    );

    // 2. A zfs_arc_max the kernel did not take (not equal to c_max): c_max is what is in force.
    sysfs(&sys, "2.2.2-1", 32 << 20, r["c_min"], 0);
    let params = host::read_sysfs(&sys).unwrap();
    let hs = scenario_from_host(&HostInputs {
        kstats: &k,
        meminfo: None,
        params: Some(&params),
    })
    .unwrap();
    assert_eq!(hs.scenario.arc_max, Some(r["c_max"]));
    assert_eq!(hs.scenario.arc_min, Some(r["c_min"]));
    assert!(hs.scenario.prefetch);
    assert!(hs.to_toml().contains("is not in force"));
}

#[test]
fn a_symlink_out_of_the_root_is_refused() {
    let (_, text) = fixture(LINUX23);
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("arcstats");
    std::fs::write(&target, &text).unwrap();
    let d = tempfile::tempdir().unwrap();
    let kdir = d.path().join("spl/kstat/zfs");
    std::fs::create_dir_all(&kdir).unwrap();
    std::os::unix::fs::symlink(&target, kdir.join("arcstats")).unwrap();
    let e = host::read_procfs(d.path()).unwrap_err();
    assert!(matches!(e, HostError::OutsideRoot { .. }), "{e}");
    assert!(e.to_string().contains("outside"), "{e}");
    // A link that stays inside the root is followed.
    let inside = d.path().join("copy");
    std::fs::write(&inside, &text).unwrap();
    std::fs::remove_file(kdir.join("arcstats")).unwrap();
    std::os::unix::fs::symlink(&inside, kdir.join("arcstats")).unwrap();
    assert!(host::read_procfs(d.path()).is_ok());
}

#[test]
fn bad_host_files_name_the_file_and_line() {
    let e = parse_meminfo("MemTotal: 12 MB\n", "m").unwrap_err();
    assert_eq!(
        e.to_string(),
        "m: line 1: `MemTotal`: unit \"MB\", expected kB"
    );
    let e = parse_meminfo("MemFree: 1 kB\nMemTotal: x kB\n", "m").unwrap_err();
    assert!(e.to_string().starts_with("m: line 2:"), "{e}");
    let e = parse_meminfo("MemFree: 1 kB\n", "m").unwrap_err();
    assert!(e.to_string().contains("no `MemTotal:`"), "{e}");
    let e = parse_meminfo("MemTotal: 99999999999999999999 kB\n", "m").unwrap_err();
    assert!(e.to_string().starts_with("m: line 1:"), "{e}");
    let e = parse_meminfo("MemTotal: 18014398509481984 kB\n", "m").unwrap_err();
    assert!(e.to_string().contains("overflows"), "{e}");

    let d = tempfile::tempdir().unwrap();
    sysfs(d.path(), "2.3.1-1", 0, 0, 0);
    write(&d.path().join("module/zfs/parameters/zfs_arc_max"), "-1\n");
    let e = host::read_sysfs(d.path()).unwrap_err();
    assert!(e.to_string().contains("zfs_arc_max: line 1: `-1`"), "{e}");

    // An empty procfs root: no ZFS kstats.
    let e = host::read_procfs(d.path()).unwrap_err();
    assert!(e.to_string().contains("no ZFS kstats"), "{e}");

    // The 0.6/0.7 fixture without a meminfo: RAM is unknown, said so.
    let (path, _) = fixture(ZOL06);
    let k = host::read_kstat_file(Path::new(&path)).unwrap();
    let e = scenario_from_host(&HostInputs {
        kstats: &k,
        meminfo: None,
        params: None,
    })
    .unwrap_err();
    assert!(e.to_string().contains("memory_all_bytes"), "{e}");
}
