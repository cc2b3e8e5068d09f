//! Every example in every `--help` runs: the `Examples:` sections of every
//! subcommand are extracted from the built binary and run from a temporary
//! directory holding the sample files they name. The examples that cannot
//! run on a test machine (no ZFS kernel module, no Prometheus, no root) are
//! listed with the reason, and the list is checked against the help so it
//! cannot go stale.

mod common;

use std::path::Path;
use std::process::Command;

/// Examples that cannot run here, by their start, and why.
const CANNOT_RUN: &[(&str, &str)] = &[
    (
        "arclab status  ",
        "reads the live /proc/spl/kstat/zfs/arcstats: no ZFS module on a test machine",
    ),
    (
        "arclab scenario --from-host -o host.toml",
        "reads the live /proc and /sys: no ZFS module on a test machine",
    ),
    (
        "arclab scenario --from-host --procfs /host/proc",
        "needs a host's procfs and sysfs mounted at /host",
    ),
    (
        "arclab status --procfs /host/proc",
        "needs a host's procfs mounted at /host/proc",
    ),
    (
        "arclab top  ",
        "reads the live arcstats every second until interrupted",
    ),
    (
        "arclab top --interval 5s",
        "reads the live arcstats: no ZFS module on a test machine",
    ),
    (
        "arclab top --procfs /host/proc",
        "needs a host's procfs mounted at /host/proc",
    ),
    (
        "arclab record --db /var/lib/arclab",
        "samples the live arcstats into /var/lib (root, ZFS module)",
    ),
    (
        "arclab record --db arc.db --procfs /host/proc",
        "needs a host's procfs mounted at /host/proc",
    ),
    ("arclab export ", "needs a Prometheus-compatible server"),
    (
        "arclab exporter  ",
        "serves the live /proc until interrupted (tests/exporter.rs drives it against a fake procfs)",
    ),
    (
        "arclab exporter --listen 0.0.0.0:9615",
        "serves a host's procfs mounted at /host/proc until interrupted",
    ),
    (
        "arclab compare http://",
        "needs a Prometheus-compatible server",
    ),
    (
        "arclab compare arc.json.gz",
        "needs an export of a real host's series",
    ),
    ("arclab compare arc.db", "needs a recording of a real host"),
    (
        "arclab change \"zfs_arc_max=8G\" --db /var/lib/arclab",
        "writes under /var/lib (root)",
    ),
    (
        "arclab tune check /sys/module",
        "reads the live ZFS module parameters",
    ),
    (
        "arclab tune check --ram 32G /etc/modprobe.d/zfs.conf",
        "reads the host's /etc/modprobe.d/zfs.conf (an absolute path)",
    ),
    (
        "arclab tune check --os freebsd",
        "reads a FreeBSD host's /boot/loader.conf and /etc/sysctl.conf (absolute paths)",
    ),
    (
        "sudo arclab capture",
        "root: sets the live zfs_read_history module parameters and polls /proc/spl/kstat/zfs (tests/capture.rs drives it against a fake kernel)",
    ),
    (
        "sudo arclab tune cap",
        "root: writes /etc/modprobe.d and /sys/module",
    ),
];

/// `(subcommand path, help text)` for every subcommand, nested ones included.
fn helps() -> Vec<(Vec<String>, String)> {
    let mut out = Vec::new();
    let mut todo: Vec<Vec<String>> = vec![vec![]];
    while let Some(path) = todo.pop() {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        let help = common::ok(&args);
        let mut in_commands = false;
        for line in help.lines() {
            if line.starts_with("Commands:") {
                in_commands = true;
                continue;
            }
            if in_commands {
                if line.trim().is_empty() || !line.starts_with("  ") {
                    in_commands = false;
                    continue;
                }
                // A wrapped description is indented further than a name.
                if line[2..].starts_with(' ') {
                    continue;
                }
                let Some(name) = line.split_whitespace().next() else {
                    continue;
                };
                if name != "help" {
                    let mut p = path.clone();
                    p.push(name.to_string());
                    todo.push(p);
                }
            }
        }
        out.push((path, help));
    }
    out
}

/// The example command lines of one help text (continuations joined,
/// trailing `(comments)` dropped).
fn examples(help: &str) -> Vec<String> {
    let Some((_, rest)) = help.split_once("Examples:\n") else {
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    let mut cont = false;
    for line in rest.lines() {
        let l = line.trim();
        if l.is_empty() {
            break;
        }
        let (body, more) = match l.strip_suffix('\\') {
            Some(b) => (b.trim_end(), true),
            None => (l, false),
        };
        // Two spaces then a parenthesis: a comment, not an argument.
        let body = match body.find("  (") {
            Some(i) => body[..i].trim_end(),
            None => body,
        };
        if cont {
            let last = out.last_mut().unwrap();
            last.push(' ');
            last.push_str(body);
        } else if body.starts_with("arclab ")
            || body.starts_with("sudo arclab ")
            || body == "arclab"
        {
            out.push(body.to_string());
        }
        cont = more;
    }
    out
}

/// Split a command line the way a POSIX shell would for these examples:
/// whitespace, single and double quotes, `~` left as is.
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote = None;
    let mut any = false;
    for c in line.chars() {
        match (quote, c) {
            (None, '\'' | '"') => {
                quote = Some(c);
                any = true;
            }
            (Some(q), c) if c == q => quote = None,
            (None, c) if c.is_whitespace() => {
                if any {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            (_, c) => {
                cur.push(c);
                any = true;
            }
        }
    }
    if any {
        out.push(cur);
    }
    out
}

/// A small capture as `arclab capture` writes one (the live command needs
/// root and a ZFS module): 20,000 reads of four 128 KiB-record files on a
/// 32 GiB host whose c_max was 8 GiB, every third read a hit.
fn write_capture(path: &Path) {
    use arclab_trace::capture::{
        CaptureHeader, CaptureRecord, CaptureSummary, CaptureWriter, Dataset,
    };
    let header = CaptureHeader {
        host: "example".into(),
        os: "linux".into(),
        zfs_version: Some("2.3.9-1".into()),
        sample_rate: 1.0,
        ram_bytes: Some(32 << 30),
        arc_c_bytes: Some(8 << 30),
        arc_c_min_bytes: Some(1 << 30),
        arc_c_max_bytes: Some(8 << 30),
        sizes_nominal: true,
        hits_logged: true,
        prefetch: Some(true),
        ..CaptureHeader::default()
    };
    let file = std::fs::File::create(path).unwrap();
    let mut w = CaptureWriter::new(std::io::BufWriter::new(file), &header).unwrap();
    let pool = w.add_pool("tank").unwrap();
    w.add_dataset(Dataset {
        pool,
        objset: 0x36,
        name: "tank/data".into(),
        recordsize: 128 << 10,
    })
    .unwrap();
    for i in 0..20_000u64 {
        w.push(&CaptureRecord {
            time_ns: i * 50_000,
            pool,
            objset: 0x36,
            object: 100 + i % 4,
            level: 0,
            blkid: (i * 7919) % 3000,
            size: 128 << 10,
            aflags: if i % 3 == 0 { 1 << 3 } else { 0 },
            pid: 1,
        })
        .unwrap();
    }
    let summary = CaptureSummary {
        records: 20_000,
        stopped_by: "time limit".into(),
        ..CaptureSummary::default()
    };
    use std::io::Write;
    w.finish(&summary).unwrap().flush().unwrap();
}

fn link(dir: &Path, name: &str, target: &Path) {
    std::os::unix::fs::symlink(target, dir.join(name)).unwrap();
}

#[test]
fn every_help_example_runs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // The sample files the examples name (the repository keeps the
    // oracleGeneral sample zstd-compressed; the example names it plain).
    let og = std::fs::read(arclab_testdata::path(
        "traces/cloudPhysicsIO.oracleGeneral.bin.zst",
    ))
    .unwrap();
    std::fs::write(
        d.join("cloudPhysicsIO.oracleGeneral.bin"),
        zstd::decode_all(&og[..]).unwrap(),
    )
    .unwrap();
    link(
        d,
        "OLTP.lis.zst",
        &arclab_testdata::path("traces/OLTP.lis.zst"),
    );
    link(
        d,
        "saved-arcstats.txt",
        &arclab_testdata::path("arcstats/linux-openzfs22plus-telegraf.arcstats"),
    );
    // `scenario --from-host --arcstats arcstats.txt --meminfo meminfo.txt`:
    // the OpenZFS 2.2+ capture and a meminfo of a 32 GiB host beside it.
    link(
        d,
        "arcstats.txt",
        &arclab_testdata::path("arcstats/linux-openzfs22plus-telegraf.arcstats"),
    );
    std::fs::write(
        d.join("meminfo.txt"),
        arclab_testdata::meminfo(32_746_580, 8_000_000),
    )
    .unwrap();
    link(
        d,
        "node_exporter-metrics.txt",
        &arclab_testdata::path("arcstats/linux-zol07-node_exporter.metrics.txt"),
    );
    link(
        d,
        "freebsd-sysctl.txt",
        &arclab_testdata::path("arcstats/freebsd14-telegraf.sysctl.txt"),
    );
    std::fs::create_dir(d.join("plots")).unwrap();
    write_capture(&d.join("capture.arct"));

    // `whatif --scenario host.toml` reads what the live example would write.
    let made = Command::new(env!("CARGO_BIN_EXE_arclab"))
        .args(["scenario", "--from-host", "--arcstats", "arcstats.txt"])
        .args(["--meminfo", "meminfo.txt", "-o", "host.toml"])
        .current_dir(d)
        .output()
        .expect("run arclab");
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let mut ran = Vec::new();
    let mut skipped = Vec::new();
    let mut failed = Vec::new();
    let mut used = vec![false; CANNOT_RUN.len()];
    for (path, help) in helps() {
        for ex in examples(&help) {
            let padded = format!("{ex}  ");
            if let Some(i) = CANNOT_RUN.iter().position(|(p, _)| padded.starts_with(p)) {
                used[i] = true;
                skipped.push(format!("{ex}: {}", CANNOT_RUN[i].1));
                continue;
            }
            let w = words(&ex);
            assert_eq!(w[0], "arclab", "{ex}");
            let out = Command::new(env!("CARGO_BIN_EXE_arclab"))
                .args(&w[1..])
                .current_dir(d)
                .output()
                .expect("run arclab");
            let err = String::from_utf8_lossy(&out.stderr);
            if !out.status.success() {
                failed.push(format!(
                    "arclab {} ({path:?}): {ex}\n  {err}",
                    path.join(" ")
                ));
            }
            ran.push(ex);
        }
    }
    println!("ran {} examples:\n  {}", ran.len(), ran.join("\n  "));
    println!("cannot run {}:\n  {}", skipped.len(), skipped.join("\n  "));
    assert!(
        failed.is_empty(),
        "examples that fail:\n{}",
        failed.join("\n")
    );
    for (i, u) in used.iter().enumerate() {
        assert!(*u, "stale entry in CANNOT_RUN: {:?}", CANNOT_RUN[i].0);
    }
    // The whatif --trace example of issue #10 is among those that ran.
    assert!(
        ran.iter()
            .any(|e| e == "arclab whatif --trace cloudPhysicsIO.oracleGeneral.bin --ram 16G --json"),
        "{ran:?}"
    );
}

#[test]
fn examples_are_extracted_with_continuations_and_comments() {
    let help = "x\n\nExamples:\n  arclab a --b 'c d'\n  arclab top   (every second)\n  arclab e \\\n      --f g\n\nmore\n  arclab not-an-example\n";
    assert_eq!(
        examples(help),
        ["arclab a --b 'c d'", "arclab top", "arclab e --f g"]
    );
    assert_eq!(
        words("arclab a --b 'c d' \"e=f\""),
        ["arclab", "a", "--b", "c d", "e=f"]
    );
}
