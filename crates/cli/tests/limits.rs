//! `arclab limits`: exit codes, citations and width of the text output.

mod common;

use common::{arclab, fails, json, ok};

/// A zfs_arc_max ZFS would ignore fails the command, as `tune cap` does.
/// OpenZFS module/zfs/arc.c arc_tuning_update() ignores zfs_arc_max unless
/// it is below allmem: 40 GiB on a 24 GiB host is ignored.
#[test]
fn ignored_setting_exits_1_like_tune_cap() {
    let e = fails(&["limits", "--ram", "24G", "--arc-max", "40G"], 1);
    assert!(e.contains("zfs_arc_max=42949672960"), "{e}");
    let e2 = fails(
        &[
            "tune",
            "cap",
            "40G",
            "--ram",
            "24G",
            "--os",
            "linux",
            "--zfs-version",
            "2.3",
        ],
        1,
    );
    assert!(e2.contains("ignore"), "{e2}");
    // The same through --json: the JSON is printed, the exit is still 1.
    let out = arclab(&["limits", "--ram", "24G", "--arc-max", "40G", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["arc_max"]["Ignored"].is_object(), "{v}");
    // A zfs_arc_min of 16 MiB is below the 32 MiB floor (2 << SPA_MAXBLOCKSHIFT).
    fails(&["limits", "--ram", "24G", "--arc-min", "16M"], 1);
    // An accepted cap exits 0.
    let text = ok(&["limits", "--ram", "24G", "--arc-max", "8G"]);
    assert!(
        text.contains("zfs_arc_max=8589934592 (8.00 GiB): accepted"),
        "{text}"
    );
}

/// No spec section signs in what `limits` prints; the OpenZFS source is
/// cited instead; lines fit the terminal width (COLUMNS, else 100).
#[test]
fn cites_openzfs_source_and_wraps() {
    for (version, os) in [
        ("2.3", "linux"),
        ("0.7", "linux"),
        ("2.1", "freebsd"),
        ("2.2", "linux"),
    ] {
        for cols in [None, Some("60")] {
            let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_arclab"));
            c.args([
                "limits",
                "--ram",
                "24G",
                "--os",
                os,
                "--zfs-version",
                version,
                "--arc-max",
                "8G",
            ]);
            match cols {
                Some(n) => c.env("COLUMNS", n),
                None => c.env_remove("COLUMNS"),
            };
            let out = c.output().unwrap();
            assert!(out.status.success());
            let text = String::from_utf8(out.stdout).unwrap();
            assert!(!text.contains('§'), "{text}");
            assert!(!text.contains("spec"), "{text}");
            assert!(
                text.contains("source: module/zfs/arc.c: arc_init()"),
                "{text}"
            );
            let limit = cols.map_or(100, |n| n.parse().unwrap());
            for line in text.lines() {
                assert!(
                    line.chars().count() <= limit,
                    "{} > {limit}: {line}",
                    line.chars().count()
                );
            }
        }
    }
    let v = json(&["limits", "--ram", "24G", "--zfs-version", "2.3", "--json"]);
    assert!(!v.to_string().contains('§'), "{v}");
    assert_eq!(v["c_min"]["source"], "module/zfs/arc.c: arc_init()");
}

/// `32GB` is read as binary, as ZFS reads sizes (32 GiB = 2^35 =
/// 34359738368 bytes), and every size option of limits, tune and status says
/// so in its --help; so do whatif, sim and capture, and whatif's device
/// bandwidths say they are decimal, like data sheets.
#[test]
fn sizes_are_binary_and_help_says_so() {
    let v = json(&["limits", "--ram", "32GB", "--json"]);
    assert_eq!(v["ram_bytes"], 34_359_738_368u64);
    let help = |args: &[&str]| {
        let mut a = args.to_vec();
        a.push("--help");
        ok(&a)
    };
    for (args, options) in [
        (vec!["limits"], vec!["--ram", "--arc-max", "--arc-min"]),
        (vec!["tune", "check"], vec!["--ram"]),
        (vec!["tune", "cap"], vec!["--ram", "<SIZE>"]),
        (vec!["status"], vec!["--ram"]),
        (vec!["whatif"], vec!["--caps", "--ram"]),
        (vec!["sim"], vec!["--size", "--ram", "--arc-max"]),
        (vec!["capture"], vec!["--recordsize"]),
    ] {
        let h = help(&args);
        for o in options {
            // The option's own paragraph (up to the next option) says it.
            let start = h
                .find(&format!("{o} <"))
                .or_else(|| h.find(&format!("  {o}")))
                .unwrap_or_else(|| panic!("{o} in {h}"));
            let rest = &h[start + 2..];
            let end = rest.find("\n  -").unwrap_or(rest.len());
            // Wrapped to the terminal: compare words, not lines.
            let para = rest[..end].split_whitespace().collect::<Vec<_>>().join(" ");
            assert!(
                para.contains("Binary units, like ZFS"),
                "{args:?} {o}: {para}"
            );
        }
    }
    let h = help(&["whatif"]);
    let device = &h[h.find("  --device").expect("--device")..];
    let device = &device[..device[2..].find("\n  -").map_or(device.len(), |e| e + 2)];
    let device = device.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        device.contains("decimal units, like data sheets"),
        "{device}"
    );
}
