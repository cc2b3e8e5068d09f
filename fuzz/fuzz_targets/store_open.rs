//! `compare FILE` and `record --db FILE` on an arbitrary file that starts
//! like SQLite: open it read-only as a recording and read everything, then
//! open it for recording (which must refuse a foreign database before
//! changing it), append a sample and read again. Errors are fine; panics,
//! aborts and hangs are not.
#![no_main]

use arclab_metrics::store::Store;
use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;
use std::sync::OnceLock;

/// One directory per fuzzing process, on tmpfs when there is one.
fn dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let base = if std::path::Path::new("/dev/shm").is_dir() {
            PathBuf::from("/dev/shm")
        } else {
            std::env::temp_dir()
        };
        let d = base.join(format!("arclab-fuzz-store-{}", std::process::id()));
        std::fs::create_dir_all(&d).expect("fuzz dir");
        d
    })
}

fuzz_target!(|data: &[u8]| {
    let db = dir().join("f.db");
    // A WAL or journal left by the previous input must not leak into this one.
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let mut p = db.clone().into_os_string();
        p.push(suffix);
        let _ = std::fs::remove_file(p);
    }
    std::fs::write(&db, data).expect("write input");
    if let Ok(s) = Store::open_existing(&db) {
        let _ = s.changes();
        if let Ok(d) = s.dataset() {
            let _ = d.time_range();
        }
        let _ = s.sample_count();
    }
    let before = std::fs::read(&db).unwrap_or_default();
    match Store::create_or_open(&db, "fuzz") {
        Ok(mut s) => {
            let _ = s.insert_sample(1.0, &[("hits", 1.0), ("misses", 2.0)]);
            let _ = s.add_change(2.0, "zfs_arc_max=8G");
            let _ = s.dataset();
        }
        Err(e) => {
            let msg = e.to_string();
            assert!(msg.starts_with(&db.display().to_string()), "{msg}");
            // A refused database is left exactly as it was.
            if msg.contains("refusing to change it") {
                assert_eq!(std::fs::read(&db).unwrap_or_default(), before);
            }
        }
    }
});
