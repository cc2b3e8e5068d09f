//! The recording database: arcstats samples and change markers in SQLite
//! (bundled), WAL mode, one transaction per sample, so a killed recorder
//! loses at most the sample in flight and a restart appends to the same file.
//!
//! Schema, version 1 (`PRAGMA user_version`):
//!
//! ```sql
//! meta(key TEXT PRIMARY KEY, value TEXT)          -- 'host', 'created'
//! fields(id INTEGER PRIMARY KEY, name TEXT UNIQUE) -- arcstats field names
//! samples(field INTEGER, t REAL, value REAL, PRIMARY KEY(field, t)) WITHOUT ROWID
//! changes(id INTEGER PRIMARY KEY, t REAL, what TEXT)
//! ```
//!
//! As a [`Dataset`], field `f` becomes the series `node_zfs_arc_f{instance=host}`,
//! so a recording compares exactly like a Prometheus export.
//!
//! ```
//! use arclab_metrics::store::Store;
//! let dir = tempfile::tempdir().unwrap();
//! let p = dir.path().join("arc.db");
//! let mut s = Store::create_or_open(&p, "nas").unwrap();
//! s.insert_sample(100.0, &[("hits", 10.0), ("size", 5.0)]).unwrap();
//! s.add_change(150.0, "zfs_arc_max=8G").unwrap();
//! let d = Store::open_existing(&p).unwrap().dataset().unwrap();
//! assert_eq!(d.series.len(), 2);
//! assert_eq!(d.series[0].labels["__name__"], "node_zfs_arc_hits");
//! assert_eq!(d.changes[0].what, "zfs_arc_max=8G");
//! ```

use crate::series::{ChangeMarker, Dataset, Labels, Series};
use rusqlite::{Connection, OpenFlags, OptionalExtension, params};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The schema version this code writes and the newest it reads.
pub const DB_VERSION: i64 = 1;

/// Why the database could not be used.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite failed (including "file is not a database").
    #[error("{path}: {source}")]
    Sqlite {
        /// The database.
        path: PathBuf,
        /// The cause.
        source: rusqlite::Error,
    },
    /// Created by a newer arclab.
    #[error(
        "{path}: recording format version {found} is newer than this arclab reads ({DB_VERSION}); upgrade arclab"
    )]
    TooNew {
        /// The database.
        path: PathBuf,
        /// Its version.
        found: i64,
    },
    /// Not a recording (no `samples` table) or missing.
    #[error("{path}: {message}")]
    NotARecording {
        /// The database.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

/// An open recording.
#[derive(Debug)]
pub struct Store {
    conn: Connection,
    path: PathBuf,
    field_ids: BTreeMap<String, i64>,
}

impl Store {
    fn err(&self, source: rusqlite::Error) -> StoreError {
        StoreError::Sqlite {
            path: self.path.clone(),
            source,
        }
    }

    /// Open `path` for recording, creating it (with `host` as its instance
    /// name) if needed; WAL mode.
    pub fn create_or_open(path: &Path, host: &str) -> Result<Self, StoreError> {
        let sq = |source| StoreError::Sqlite {
            path: path.to_path_buf(),
            source,
        };
        let conn = Connection::open(path).map_err(sq)?;
        let mut s = Store {
            conn,
            path: path.to_path_buf(),
            field_ids: BTreeMap::new(),
        };
        s.check_version()?;
        s.check_ours_or_empty()?;
        s.conn
            .execute_batch(
                "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA busy_timeout=5000;
                 CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
                 CREATE TABLE IF NOT EXISTS fields(id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL);
                 CREATE TABLE IF NOT EXISTS samples(field INTEGER NOT NULL, t REAL NOT NULL,
                     value REAL NOT NULL, PRIMARY KEY(field, t)) WITHOUT ROWID;
                 CREATE TABLE IF NOT EXISTS changes(id INTEGER PRIMARY KEY, t REAL NOT NULL,
                     what TEXT NOT NULL);",
            )
            .map_err(sq)?;
        s.conn
            .execute_batch(&format!("PRAGMA user_version={DB_VERSION};"))
            .map_err(sq)?;
        s.conn
            .execute(
                "INSERT OR IGNORE INTO meta(key, value) VALUES('host', ?1)",
                params![host],
            )
            .map_err(sq)?;
        let ids = {
            let mut st = s.conn.prepare("SELECT name, id FROM fields").map_err(sq)?;
            st.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))
                .and_then(|rows| rows.collect::<Result<BTreeMap<_, _>, _>>())
                .map_err(sq)?
        };
        s.field_ids = ids;
        Ok(s)
    }

    /// Open an existing recording (never creates a file).
    pub fn open_existing(path: &Path) -> Result<Self, StoreError> {
        if !path.is_file() {
            return Err(StoreError::NotARecording {
                path: path.to_path_buf(),
                message: "no such file".into(),
            });
        }
        let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE).map_err(
            |source| StoreError::Sqlite {
                path: path.to_path_buf(),
                source,
            },
        )?;
        let s = Store {
            conn,
            path: path.to_path_buf(),
            field_ids: BTreeMap::new(),
        };
        s.check_version()?;
        let has: Option<String> = s
            .conn
            .query_row(
                "SELECT name FROM sqlite_master WHERE type='table' AND name='samples'",
                [],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| s.err(e))?;
        if has.is_none() {
            return Err(StoreError::NotARecording {
                path: path.to_path_buf(),
                message: "not an arclab recording (no samples table)".into(),
            });
        }
        Ok(s)
    }

    /// Refuse a database that is neither empty nor an arclab recording
    /// (another program's file), before anything is written to it.
    fn check_ours_or_empty(&self) -> Result<(), StoreError> {
        const OURS: [(&str, &str); 4] = [
            ("meta", "key,value"),
            ("fields", "id,name"),
            ("samples", "field,t,value"),
            ("changes", "id,t,what"),
        ];
        let objects: Vec<(String, String)> = self
            .conn
            .prepare("SELECT type, name FROM sqlite_master ORDER BY name")
            .and_then(|mut st| {
                st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                    .collect::<Result<_, _>>()
            })
            .map_err(|e| self.err(e))?;
        let refuse = |why: String| StoreError::NotARecording {
            path: self.path.clone(),
            message: format!(
                "not an arclab recording and not empty ({why}); refusing to change it, give a new file"
            ),
        };
        for (kind, name) in &objects {
            // SQLite's own indexes for the primary keys and UNIQUE columns.
            if kind == "index" && name.starts_with("sqlite_autoindex_") {
                continue;
            }
            let Some((_, want)) = OURS.iter().find(|(t, _)| kind == "table" && t == name) else {
                return Err(refuse(format!("it has the {kind} `{name}`")));
            };
            let cols: Vec<String> = self
                .conn
                .prepare("SELECT name FROM pragma_table_info(?1) ORDER BY cid")
                .and_then(|mut st| {
                    st.query_map([name], |r| r.get(0))?
                        .collect::<Result<_, _>>()
                })
                .map_err(|e| self.err(e))?;
            if cols.join(",") != *want {
                return Err(refuse(format!(
                    "its table `{name}` has the columns ({}), not ({want})",
                    cols.join(", ")
                )));
            }
        }
        Ok(())
    }

    fn check_version(&self) -> Result<(), StoreError> {
        let v: i64 = self
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(|e| self.err(e))?;
        if v > DB_VERSION {
            return Err(StoreError::TooNew {
                path: self.path.clone(),
                found: v,
            });
        }
        Ok(())
    }

    /// Store one sample (all fields at time `t`) in one transaction.
    pub fn insert_sample(&mut self, t: f64, values: &[(&str, f64)]) -> Result<(), StoreError> {
        let path = self.path.clone();
        let sq = |source| StoreError::Sqlite {
            path: path.clone(),
            source,
        };
        let tx = self.conn.transaction().map_err(sq)?;
        for (name, v) in values {
            let id = match self.field_ids.get(*name) {
                Some(id) => *id,
                None => {
                    tx.execute(
                        "INSERT OR IGNORE INTO fields(name) VALUES(?1)",
                        params![name],
                    )
                    .map_err(sq)?;
                    let id: i64 = tx
                        .query_row("SELECT id FROM fields WHERE name=?1", params![name], |r| {
                            r.get(0)
                        })
                        .map_err(sq)?;
                    self.field_ids.insert((*name).to_string(), id);
                    id
                }
            };
            tx.prepare_cached("INSERT OR REPLACE INTO samples(field, t, value) VALUES(?1, ?2, ?3)")
                .and_then(|mut st| st.execute(params![id, t, v]))
                .map_err(sq)?;
        }
        tx.commit().map_err(sq)
    }

    /// Record a change marker.
    pub fn add_change(&mut self, t: f64, what: &str) -> Result<(), StoreError> {
        self.conn
            .execute(
                "INSERT INTO changes(t, what) VALUES(?1, ?2)",
                params![t, what],
            )
            .map(|_| ())
            .map_err(|e| self.err(e))
    }

    /// Number of distinct sample times.
    pub fn sample_count(&self) -> Result<u64, StoreError> {
        self.conn
            .query_row("SELECT COUNT(DISTINCT t) FROM samples", [], |r| {
                r.get::<_, i64>(0)
            })
            .map(|n| n as u64)
            .map_err(|e| self.err(e))
    }

    /// Recorded changes, oldest first.
    pub fn changes(&self) -> Result<Vec<ChangeMarker>, StoreError> {
        let mut st = self
            .conn
            .prepare("SELECT t, what FROM changes ORDER BY t")
            .map_err(|e| self.err(e))?;
        st.query_map([], |r| {
            Ok(ChangeMarker {
                time: r.get(0)?,
                what: r.get(1)?,
            })
        })
        .and_then(|rows| rows.collect())
        .map_err(|e| self.err(e))
    }

    /// Everything as a [`Dataset`].
    pub fn dataset(&self) -> Result<Dataset, StoreError> {
        let host: String = self
            .conn
            .query_row("SELECT value FROM meta WHERE key='host'", [], |r| r.get(0))
            .optional()
            .map_err(|e| self.err(e))?
            .unwrap_or_else(|| "local".into());
        let mut st = self
            .conn
            .prepare("SELECT f.name, s.t, s.value FROM samples s JOIN fields f ON f.id = s.field ORDER BY f.name, s.t")
            .map_err(|e| self.err(e))?;
        let mut rows = st.query([]).map_err(|e| self.err(e))?;
        let mut series: Vec<Series> = Vec::new();
        while let Some(r) = rows.next().map_err(|e| self.err(e))? {
            let name: String = r.get(0).map_err(|e| self.err(e))?;
            let t: f64 = r.get(1).map_err(|e| self.err(e))?;
            let v: f64 = r.get(2).map_err(|e| self.err(e))?;
            let metric = format!("node_zfs_arc_{name}");
            if series.last().is_none_or(|s| s.labels["__name__"] != metric) {
                let mut labels = Labels::new();
                labels.insert("__name__".into(), metric);
                labels.insert("instance".into(), host.clone());
                series.push(Series {
                    labels,
                    points: Vec::new(),
                });
            }
            if let Some(s) = series.last_mut() {
                s.points.push((t, v));
            }
        }
        Ok(Dataset {
            series,
            metadata: BTreeMap::new(),
            changes: self.changes()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resumes_into_the_same_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("r.db");
        {
            let mut s = Store::create_or_open(&p, "h1").unwrap();
            s.insert_sample(1.0, &[("hits", 1.0)]).unwrap();
        }
        let mut s = Store::create_or_open(&p, "other").unwrap();
        s.insert_sample(2.0, &[("hits", 2.0), ("misses", 0.0)])
            .unwrap();
        assert_eq!(s.sample_count().unwrap(), 2);
        let d = s.dataset().unwrap();
        assert_eq!(d.series[0].points, vec![(1.0, 1.0), (2.0, 2.0)]);
        assert_eq!(d.series[0].labels["instance"], "h1");
        let mode: String = s
            .conn
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
    }

    #[test]
    fn refuses_newer_and_foreign_files() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("n.db");
        Store::create_or_open(&p, "h")
            .unwrap()
            .conn
            .execute_batch("PRAGMA user_version=9")
            .unwrap();
        assert!(matches!(
            Store::open_existing(&p),
            Err(StoreError::TooNew { found: 9, .. })
        ));
        assert!(matches!(
            Store::create_or_open(&p, "h"),
            Err(StoreError::TooNew { .. })
        ));
        let q = dir.path().join("junk.db");
        std::fs::write(&q, b"this is not sqlite at all, not even close........").unwrap();
        assert!(Store::open_existing(&q).is_err());
        assert!(Store::open_existing(&dir.path().join("missing.db")).is_err());
        assert!(!dir.path().join("missing.db").exists());
    }

    /// Issue 14 item 11: another program's database is refused before
    /// anything in it changes (tables, journal mode, user_version, bytes).
    #[test]
    fn refuses_another_programs_database_untouched() {
        let dir = tempfile::tempdir().unwrap();
        for (name, sql, why) in [
            (
                "own_samples.db",
                "CREATE TABLE samples(id INTEGER PRIMARY KEY, reading TEXT);
                 INSERT INTO samples(reading) VALUES('x');",
                "its table `samples` has the columns (id, reading)",
            ),
            (
                "other_table.db",
                "CREATE TABLE invoices(id INTEGER PRIMARY KEY, total REAL);",
                "it has the table `invoices`",
            ),
        ] {
            let p = dir.path().join(name);
            Connection::open(&p).unwrap().execute_batch(sql).unwrap();
            let bytes = std::fs::read(&p).unwrap();
            let e = Store::create_or_open(&p, "h").unwrap_err().to_string();
            assert!(
                e.contains("not an arclab recording") && e.contains(why),
                "{e}"
            );
            assert_eq!(std::fs::read(&p).unwrap(), bytes, "{name} changed");
            assert!(!dir.path().join(format!("{name}-wal")).exists());
            let c = Connection::open(&p).unwrap();
            let v: i64 = c
                .query_row("PRAGMA user_version", [], |r| r.get(0))
                .unwrap();
            let mode: String = c
                .query_row("PRAGMA journal_mode", [], |r| r.get(0))
                .unwrap();
            let tables: i64 = c
                .query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))
                .unwrap();
            assert_eq!((v, mode.as_str(), tables), (0, "delete", 1), "{name}");
        }
        // An empty SQLite file (made by another program, nothing in it) is taken.
        let p = dir.path().join("empty.db");
        Connection::open(&p)
            .unwrap()
            .execute_batch("PRAGMA user_version=0")
            .unwrap();
        Store::create_or_open(&p, "h").unwrap();
        // And arclab's own recording reopens.
        Store::create_or_open(&p, "h").unwrap();
    }
}
