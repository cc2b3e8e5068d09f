//! `arclab record` and `arclab change`: a SQLite recording that survives a
//! kill, resumes into the same file, and compares like an export.

mod measure_support;

use measure_support::{arcstats_text, fails, json, ok};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn procfs(dir: &Path, text: &str) -> String {
    let k = dir.join("proc/spl/kstat/zfs");
    std::fs::create_dir_all(&k).unwrap();
    std::fs::write(k.join("arcstats"), text).unwrap();
    dir.join("proc").display().to_string()
}

fn count(db: &Path) -> u64 {
    arclab_metrics::store::Store::open_existing(db)
        .unwrap()
        .sample_count()
        .unwrap()
}

#[test]
fn records_real_arcstats_fixtures_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = arclab_testdata::path("arcstats/linux-openzfs22plus-telegraf.arcstats");
    let proc = procfs(dir.path(), &std::fs::read_to_string(fixture).unwrap());
    let db = dir.path().join("arc.db");
    let dbs = db.to_str().unwrap();
    ok(&[
        "record",
        "--db",
        dbs,
        "--procfs",
        &proc,
        "--interval",
        "100ms",
        "--count",
        "2",
        "--host",
        "nas",
    ]);
    assert_eq!(count(&db), 2);
    ok(&[
        "record",
        "--db",
        dbs,
        "--procfs",
        &proc,
        "--interval",
        "100ms",
        "--count",
        "2",
    ]);
    assert_eq!(count(&db), 4);
    let d = arclab_metrics::store::Store::open_existing(&db)
        .unwrap()
        .dataset()
        .unwrap();
    assert!(d.series.len() > 100, "every arcstats row is kept");
    assert!(d.series.iter().all(|s| s.labels["instance"] == "nas"));
    // A missing procfs creates no database.
    let none = dir.path().join("none.db");
    fails(
        &[
            "record",
            "--db",
            none.to_str().unwrap(),
            "--procfs",
            "/nonexistent",
            "--count",
            "1",
        ],
        1,
    );
    assert!(!none.exists());
}

#[test]
fn change_markers_and_compare_on_a_recording() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("arc.db");
    let dbs = db.to_str().unwrap();
    // Write samples through the library with known times, then mark changes.
    {
        let mut s = arclab_metrics::store::Store::create_or_open(&db, "nas").unwrap();
        for i in 0..=240u32 {
            let t = 1_700_000_000.0 + f64::from(i) * 30.0;
            let misses = if i <= 120 {
                10.0 * f64::from(i) * 30.0
            } else {
                36_000.0 + 40.0 * f64::from(i - 120) * 30.0
            };
            s.insert_sample(
                t,
                &[
                    ("hits", 1000.0 * f64::from(i) * 30.0),
                    ("misses", misses),
                    ("size", 8e9),
                ],
            )
            .unwrap();
        }
    }
    ok(&[
        "change",
        "zfs_arc_max=8G",
        "--at",
        "1700003600",
        "--db",
        dbs,
    ]);
    ok(&["change", "autotrim=on", "--at", "1700001000", "--db", dbs]);
    let j = json(&[
        "compare",
        dbs,
        "--around",
        "zfs_arc_max=8G",
        "--days",
        "0.04",
        "--skip",
        "0s",
        "--json",
        "--batches",
        "10",
    ]);
    assert!((j["derived"]["misses_per_sec"]["before"].as_f64().unwrap() - 10.0).abs() < 1e-9);
    assert!((j["derived"]["misses_per_sec"]["after"].as_f64().unwrap() - 40.0).abs() < 1e-9);
    assert!((j["derived"]["miss_multiplier"].as_f64().unwrap() - 4.0).abs() < 1e-9);
    let w = j["warnings"].to_string();
    assert!(
        w.contains("confounded: another change, `autotrim=on`"),
        "{w}"
    );
    fails(&["change", "  ", "--db", dbs], 2);
    fails(&["change", "x", "--at", "soon", "--db", dbs], 2);
}

#[test]
fn a_killed_recorder_loses_at_most_one_sample_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let proc = procfs(dir.path(), &arcstats_text(1000, 10, 8 << 30));
    let db = dir.path().join("arc.db");
    let mut child = Command::new(env!("CARGO_BIN_EXE_arclab"))
        .args([
            "record",
            "--db",
            db.to_str().unwrap(),
            "--procfs",
            &proc,
            "--interval",
            "50ms",
        ])
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while !(db.exists() && std::panic::catch_unwind(|| count(&db)).unwrap_or(0) >= 5) {
        assert!(Instant::now() < deadline, "recorder made no progress");
        std::thread::sleep(Duration::from_millis(50));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let n = count(&db);
    assert!(n >= 5);
    ok(&[
        "record",
        "--db",
        db.to_str().unwrap(),
        "--procfs",
        &proc,
        "--interval",
        "50ms",
        "--count",
        "2",
    ]);
    assert_eq!(count(&db), n + 2);
}

#[test]
fn a_database_from_a_newer_format_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("new.db");
    drop(arclab_metrics::store::Store::create_or_open(&db, "h").unwrap());
    let c = rusqlite_free_set_version(&db, 42);
    assert!(c, "could not bump the version");
    let e = fails(
        &[
            "compare",
            db.to_str().unwrap(),
            "--before",
            "1..2",
            "--after",
            "3..4",
        ],
        1,
    );
    assert!(e.contains("newer than this arclab reads"), "{e}");
    let e = fails(
        &[
            "record",
            "--db",
            db.to_str().unwrap(),
            "--procfs",
            &procfs(dir.path(), &arcstats_text(1, 1, 1)),
            "--count",
            "1",
        ],
        1,
    );
    assert!(e.contains("newer"), "{e}");
}

/// Set SQLite's `user_version` (header offset 60, big-endian) without a SQLite binding.
fn rusqlite_free_set_version(db: &Path, v: u32) -> bool {
    let mut b = std::fs::read(db).unwrap();
    if b.len() < 100 || !b.starts_with(b"SQLite format 3\0") {
        return false;
    }
    b[60..64].copy_from_slice(&v.to_be_bytes());
    std::fs::write(db, b).is_ok()
}

/// Issue 14 item 11: `record --db` on another program's SQLite file (made
/// here with rusqlite) refuses before changing anything in it.
#[test]
fn another_programs_database_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let proc = procfs(dir.path(), &arcstats_text(1, 1, 1));
    for (name, sql, why) in [
        (
            "own_samples.db",
            "CREATE TABLE samples(id INTEGER PRIMARY KEY, reading TEXT);
             INSERT INTO samples(reading) VALUES('x');",
            "`samples` has the columns (id, reading)",
        ),
        (
            "other.db",
            "CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT);",
            "it has the table `notes`",
        ),
    ] {
        let db = dir.path().join(name);
        rusqlite::Connection::open(&db)
            .unwrap()
            .execute_batch(sql)
            .unwrap();
        let bytes = std::fs::read(&db).unwrap();
        for args in [
            vec![
                "record",
                "--db",
                db.to_str().unwrap(),
                "--procfs",
                &proc,
                "--count",
                "1",
            ],
            vec!["change", "zfs_arc_max=8G", "--db", db.to_str().unwrap()],
        ] {
            let e = fails(&args, 1);
            assert!(
                e.contains("not an arclab recording") && e.contains(why),
                "{e}"
            );
            assert_eq!(std::fs::read(&db).unwrap(), bytes, "{name} changed");
            assert!(!dir.path().join(format!("{name}-wal")).exists());
        }
    }
}

/// Issue 14 item 16: an arcstats read that fails mid-run (the file empty for
/// a moment) costs that sample only; the recorder says so and goes on.
#[test]
fn an_unreadable_sample_is_skipped_and_recording_goes_on() {
    use std::io::BufRead;
    let dir = tempfile::tempdir().unwrap();
    let text = arcstats_text(1000, 10, 8 << 30);
    let proc = procfs(dir.path(), &text);
    let file = dir.path().join("proc/spl/kstat/zfs/arcstats");
    let db = dir.path().join("arc.db");
    let total = 40u64;
    let mut child = Command::new(env!("CARGO_BIN_EXE_arclab"))
        .args([
            "record",
            "--db",
            db.to_str().unwrap(),
            "--procfs",
            &proc,
            "--interval",
            "100ms",
            "--count",
            &total.to_string(),
        ])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let err = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        for line in std::io::BufReader::new(err).lines() {
            tx.send(line.unwrap()).unwrap();
        }
    });
    let deadline = Instant::now() + Duration::from_secs(30);
    while !(db.exists() && std::panic::catch_unwind(|| count(&db)).unwrap_or(0) >= 1) {
        assert!(Instant::now() < deadline, "recorder made no progress");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::fs::write(&file, "").unwrap();
    let mut lines = Vec::new();
    while !lines
        .iter()
        .any(|l: &String| l.contains("skipped the sample"))
    {
        let left = deadline.saturating_duration_since(Instant::now());
        lines.push(rx.recv_timeout(left).expect("no skipped-sample warning"));
    }
    std::fs::write(&file, &text).unwrap();
    let status = child.wait().unwrap();
    reader.join().unwrap();
    lines.extend(rx.try_iter());
    let all = lines.join("\n");
    assert!(status.success(), "{all}");
    let skipped = lines
        .iter()
        .filter(|l| l.contains("skipped the sample"))
        .count() as u64;
    assert!(skipped >= 1 && skipped < total, "{all}");
    // Every attempt is either stored or skipped, and the summary says how many were skipped.
    assert_eq!(count(&db) + skipped, total, "{all}");
    assert!(
        all.contains(&format!("; {skipped} skipped (arcstats unreadable)")),
        "{all}"
    );
}
