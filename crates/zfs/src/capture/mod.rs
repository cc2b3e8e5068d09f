//! `arclab capture`: the host's own ARC reads as a replayable trace.
//!
//! Linux OpenZFS logs every `arc_read()` of a pool into a ring,
//! `/proc/spl/kstat/zfs/<pool>/reads` ([`reads`]), once the module parameter
//! `zfs_read_history` gives the ring a size; with `zfs_read_history_hits=1`
//! hits are logged too, flagged `ARC_FLAG_CACHED`. [`capture`]:
//!
//! 1. notes each pool's last UID (what was logged before it started is not
//!    part of the capture), then sets both parameters through a
//!    [`ParamGuard`] — they are put back on every way out: the end, the time
//!    limit, a stop request (the CLI's SIGINT/SIGTERM), an error, a panic;
//! 2. polls every pool's ring, keeps the lines with a UID above the last one
//!    seen, counts the UIDs it never saw (the ring wrapped between two polls)
//!    as **lost**, and polls faster when a poll finds the ring more than half
//!    new;
//! 3. names each objset from its `objset-0x…` kstat and gives each block a
//!    **nominal** size ([`SizeRule`]): the ring has no block sizes;
//! 4. keeps a block when `hash(objset, object, blkid) < R · 2^64` with
//!    `--sample-rate R` (spatial sampling: every read of a kept block is
//!    kept), and writes the records, pool by pool merged in time order, with
//!    [`arclab_trace::capture::CaptureWriter`], which ends a block of records
//!    at least once a second so an interrupted capture stays readable.

pub mod reads;

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use arclab_arc::slab::hash_key;
use arclab_trace::capture::{
    ARC_FLAG_CACHED, ARC_FLAG_PREFETCH, CaptureRecord, CaptureSummary, CaptureWriter, Dataset,
};

use crate::host::params::{Changed, ParamGuard};
use crate::host::{HostError, path_in};
use reads::{ReadRow, ReadsError};

/// The ring size asked for by default: one second of 100,000 reads/s.
pub const DEFAULT_RING: u32 = 100_000;

/// The largest ring accepted: each entry costs the kernel ~120 bytes, and a
/// poll reads the whole ring (~130 bytes a line).
pub const MAX_RING: u32 = 2_000_000;

/// The shortest poll interval the capture speeds up to.
pub const MIN_POLL: Duration = Duration::from_millis(5);

/// The nominal size of an indirect block (`DN_MAX_INDBLKSHIFT`, 128 KiB).
pub const INDIRECT_BYTES: u32 = 128 << 10;

/// The nominal size of a dnode block (`DNODE_BLOCK_SIZE`, 16 KiB), for the
/// level-0 blocks of object 0 (the meta-dnode) and of the MOS.
pub const DNODE_BLOCK_BYTES: u32 = 16 << 10;

/// The nominal size of a special-level block (objset root, ZIL): 4 KiB.
pub const SPECIAL_BYTES: u32 = 4 << 10;

/// How a record's nominal size is chosen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SizeRule {
    /// Level-0 blocks of a dataset not in `per_dataset` (the `--recordsize`,
    /// 128 KiB by default).
    pub default_recordsize: u32,
    /// `recordsize` / `volblocksize` by dataset name (from `zfs get -Hp`).
    pub per_dataset: HashMap<String, u32>,
}

impl Default for SizeRule {
    fn default() -> Self {
        SizeRule {
            default_recordsize: 128 << 10,
            per_dataset: HashMap::new(),
        }
    }
}

impl SizeRule {
    /// The nominal size of a block at `level` of `object` in a dataset whose
    /// record size is `recordsize`.
    pub fn size(objset: u64, object: u64, level: i64, recordsize: u32) -> u32 {
        match level {
            0 if objset == 0 || object == 0 => DNODE_BLOCK_BYTES,
            0 => recordsize,
            l if l > 0 => INDIRECT_BYTES,
            _ => SPECIAL_BYTES,
        }
    }

    /// The record size of dataset `name`.
    pub fn recordsize(&self, name: &str) -> u32 {
        self.per_dataset
            .get(name)
            .copied()
            .unwrap_or(self.default_recordsize)
    }
}

/// A block size ZFS allows for a dataset (`recordsize`, `volblocksize`): a
/// power of two from 512 bytes to 16 MiB.
pub fn valid_block_size(v: u64) -> Option<u32> {
    u32::try_from(v)
        .ok()
        .filter(|v| v.is_power_of_two() && (512..=16 << 20).contains(v))
}

/// Parse `zfs get -Hp recordsize,volblocksize` output: tab-separated
/// `NAME PROPERTY VALUE SOURCE` lines; a `-` value (a volume's
/// `recordsize`) is skipped.
pub fn parse_zfs_get(text: &str, file: &str) -> Result<HashMap<String, u32>, ReadsError> {
    let mut out = HashMap::new();
    for (i, line) in text.lines().enumerate() {
        let err = |message: String| ReadsError {
            file: file.to_string(),
            line: i + 1,
            message,
        };
        if line.trim().is_empty() {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        let [name, prop, value, ..] = cols.as_slice() else {
            return Err(err(
                "expected `NAME<TAB>PROPERTY<TAB>VALUE<TAB>SOURCE` (`zfs get -Hp recordsize,volblocksize`)"
                    .into(),
            ));
        };
        if !matches!(*prop, "recordsize" | "volblocksize") {
            return Err(err(format!(
                "property `{}`: only recordsize and volblocksize are used",
                prop.escape_debug()
            )));
        }
        if *value == "-" {
            continue;
        }
        let v = value
            .parse::<u64>()
            .ok()
            .and_then(valid_block_size)
            .ok_or_else(|| {
                err(format!(
                    "{prop} `{}` is not a power of two in 512..16M bytes (use -p for exact numbers)",
                    value.escape_debug()
                ))
            })?;
        out.insert(name.to_string(), v);
    }
    Ok(out)
}

/// The dataset name in an `objset-0x…` kstat (a named kstat whose
/// `dataset_name` row, type 7 = string, holds it; `dataset_kstats.c`).
pub fn parse_objset_kstat(text: &str, file: &str) -> Result<String, ReadsError> {
    for (i, line) in text.lines().enumerate() {
        let Some(rest) = line.strip_prefix("dataset_name") else {
            continue;
        };
        let rest = rest.trim_start();
        let Some(name) = rest.strip_prefix('7').map(str::trim) else {
            return Err(ReadsError {
                file: file.to_string(),
                line: i + 1,
                message: "dataset_name is not a string (type 7)".into(),
            });
        };
        if name.is_empty() {
            break;
        }
        return Ok(name.to_string());
    }
    Err(ReadsError {
        file: file.to_string(),
        line: text.lines().count().max(1),
        message: "no dataset_name row".into(),
    })
}

/// What to capture and how.
#[derive(Clone, Debug)]
pub struct CaptureOptions {
    /// The procfs root (`/proc`).
    pub procfs: PathBuf,
    /// The sysfs root (`/sys`).
    pub sysfs: PathBuf,
    /// `zfs_read_history` while capturing (entries per pool).
    pub ring: u32,
    /// Double the ring (up to [`MAX_RING`]) when polling every
    /// [`MIN_POLL`] still finds it more than half new: the ring size follows
    /// the read rate.
    pub grow_ring: bool,
    /// Log hits too (`zfs_read_history_hits=1`); without it the capture
    /// holds misses only and is no workload.
    pub hits: bool,
    /// The first poll interval (shortened when the ring fills fast).
    pub poll: Duration,
    /// Stop after this long (`None`: until asked to stop).
    pub duration: Option<Duration>,
    /// Spatial sampling rate in (0, 1].
    pub sample_rate: f64,
    /// Nominal block sizes.
    pub sizes: SizeRule,
}

/// Where a capture stands (for a progress line).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Progress {
    /// Records written.
    pub records: u64,
    /// Reads the ring logged that the capture never saw.
    pub lost: u64,
    /// Polls so far.
    pub polls: u64,
    /// Since the start.
    pub elapsed: Duration,
    /// The poll interval now.
    pub poll: Duration,
}

/// A failure of the capture.
#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    /// Reading the host or setting a parameter.
    #[error(transparent)]
    Host(#[from] HostError),
    /// A `reads` or `objset` file is not what the kernel writes.
    #[error(transparent)]
    Reads(#[from] ReadsError),
    /// Writing the trace.
    #[error("{path}: {source}")]
    Write {
        /// The output.
        path: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// Nothing to capture.
    #[error("{0}")]
    Input(String),
}

/// How the capture ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The time limit passed.
    TimeLimit,
    /// The stop flag was raised (a signal).
    Requested,
}

struct PoolState {
    name: String,
    index: u16,
    reads: PathBuf,
    /// Last UID taken (or present before the capture started).
    last_uid: u64,
    /// Whether `last_uid` is known (a pool seen at the start or polled).
    known: bool,
}

/// Figures of a capture beyond the records, for the summary's `extra`.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Tally {
    /// Lines taken from the rings (before sampling).
    pub seen: u64,
    /// Lines left out by sampling.
    pub sampled_out: u64,
    /// Demand reads written.
    pub demand: u64,
    /// Demand reads the kernel served from the ARC (`ARC_FLAG_CACHED`).
    pub demand_cached: u64,
    /// Prefetch reads written.
    pub prefetch: u64,
    /// Objsets without an `objset-0x…` kstat (the MOS, snapshots): named
    /// `POOL/objset-0x…`.
    pub unnamed_objsets: u64,
    /// Times a ring's UIDs went backwards (module reloaded).
    pub uid_resets: u64,
    /// The shortest poll interval used, ms.
    pub min_poll_ms: f64,
    /// The ring size at the end (`zfs_read_history`).
    pub ring: u32,
}

/// Capture until `opts.duration` passes or `stop` is raised, writing to
/// `out`; returns the summary (for the caller to write as the file's last
/// block through [`CaptureWriter::finish`]). Parameters are restored
/// before this returns, whatever it returns; `on_progress` is called after
/// every poll.
pub fn capture<W: Write>(
    opts: &CaptureOptions,
    out: &mut CaptureWriter<W>,
    out_name: &str,
    stop: &AtomicBool,
    mut on_progress: impl FnMut(&Progress),
) -> Result<Captured, CaptureError> {
    if !(opts.sample_rate > 0.0 && opts.sample_rate <= 1.0) {
        return Err(CaptureError::Input(format!(
            "sample rate {} is not in (0, 1]",
            opts.sample_rate
        )));
    }
    if opts.ring == 0 || opts.ring > MAX_RING {
        return Err(CaptureError::Input(format!(
            "ring of {} entries: must be 1..={MAX_RING} (each costs the kernel ~120 bytes per pool, and a poll reads it whole)",
            opts.ring
        )));
    }
    let start = Instant::now();
    let mut pools: Vec<PoolState> = Vec::new();
    // Before changing anything: what each ring holds already is not ours.
    discover(opts, &mut pools, out, out_name, true)?;
    if pools.is_empty() {
        return Err(CaptureError::Input(format!(
            "{}: no pool has a `reads` read history (is the zfs module loaded and a pool imported? Linux only)",
            opts.procfs.join("spl/kstat/zfs").display()
        )));
    }
    let mut guard = ParamGuard::new(&opts.sysfs);
    let result = (|| {
        guard.set("zfs_read_history", &opts.ring.to_string())?;
        if opts.hits {
            guard.set("zfs_read_history_hits", "1")?;
        }
        poll_loop(
            opts,
            &mut guard,
            &mut pools,
            out,
            out_name,
            stop,
            start,
            &mut on_progress,
        )
    })();
    let restored = guard.restore();
    let (summary, tally) = result?;
    restored?;
    Ok(Captured {
        summary,
        tally,
        restored: guard.changed().to_vec(),
    })
}

/// What [`capture`] returns.
#[derive(Clone, Debug)]
pub struct Captured {
    /// The summary (for [`CaptureWriter::finish`]).
    pub summary: CaptureSummary,
    /// Figures beyond the summary's.
    pub tally: Tally,
    /// The parameters changed during the capture and put back since.
    pub restored: Vec<Changed>,
}

fn write_err(out_name: &str) -> impl FnOnce(std::io::Error) -> CaptureError + '_ {
    move |source| CaptureError::Write {
        path: out_name.to_string(),
        source,
    }
}

/// Find pools with a `reads` file; new ones get a dictionary entry.
fn discover<W: Write>(
    opts: &CaptureOptions,
    pools: &mut Vec<PoolState>,
    out: &mut CaptureWriter<W>,
    out_name: &str,
    at_start: bool,
) -> Result<(), CaptureError> {
    let dir = opts.procfs.join("spl/kstat/zfs");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Ok(());
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    names.sort();
    for name in names {
        if pools.iter().any(|p| p.name == name) {
            continue;
        }
        let Some(reads) = path_in(&opts.procfs, &format!("spl/kstat/zfs/{name}/reads"))? else {
            continue;
        };
        if !reads.is_file() {
            continue;
        }
        if pools.len() >= usize::from(u16::MAX) {
            return Err(CaptureError::Input("more than 65,535 pools".into()));
        }
        let (last_uid, known) = if at_start {
            let (_, newest) = read_ring(&reads, u64::MAX)?;
            (newest.unwrap_or(0), true)
        } else {
            (0, false)
        };
        let index = out.add_pool(&name).map_err(write_err(out_name))?;
        pools.push(PoolState {
            name,
            index,
            reads,
            last_uid,
            known,
        });
    }
    Ok(())
}

/// The ring's lines with a UID above `after_uid`, and its newest UID.
fn read_ring(path: &Path, after_uid: u64) -> Result<(Vec<ReadRow>, Option<u64>), CaptureError> {
    // A ring of MAX_RING lines of < 512 bytes each.
    let max = u64::from(MAX_RING) * 512 + 4096;
    let text = match arclab_io::read_to_string_limited(path, max) {
        Ok(t) => t,
        // The pool was exported between listing and reading.
        Err(arclab_io::Error::Io { source, .. })
            if source.kind() == std::io::ErrorKind::NotFound =>
        {
            return Ok((Vec::new(), None));
        }
        Err(e) => {
            return Err(CaptureError::Input(e.to_string()));
        }
    };
    let mut rows = Vec::new();
    let newest = reads::parse_reads_into(&text, &path.display().to_string(), &mut rows, after_uid)?;
    Ok((rows, newest))
}

/// Whether a block is in the sample.
pub fn sampled_in(rate: f64, objset: u64, object: u64, blkid: u64) -> bool {
    if rate >= 1.0 {
        return true;
    }
    let h = hash_key(hash_key(objset ^ hash_key(object).rotate_left(17)) ^ blkid);
    (h as f64) < rate * 18_446_744_073_709_551_616.0
}

#[allow(clippy::too_many_arguments)]
fn poll_loop<W: Write>(
    opts: &CaptureOptions,
    guard: &mut ParamGuard,
    pools: &mut Vec<PoolState>,
    out: &mut CaptureWriter<W>,
    out_name: &str,
    stop: &AtomicBool,
    start: Instant,
    on_progress: &mut impl FnMut(&Progress),
) -> Result<(CaptureSummary, Tally), CaptureError> {
    let mut tally = Tally::default();
    let mut progress = Progress {
        poll: opts.poll.max(MIN_POLL),
        ..Progress::default()
    };
    tally.min_poll_ms = progress.poll.as_secs_f64() * 1e3;
    let mut ring = opts.ring;
    tally.ring = ring;
    let mut names: HashMap<(u16, u64), (String, u32)> = HashMap::new();
    let mut first_start: Option<u64> = None;
    let mut last_time = 0u64;
    let mut last_flush = Instant::now();
    let mut batch: Vec<(u16, ReadRow)> = Vec::new();
    let stopped = loop {
        let poll_began = Instant::now();
        discover(opts, pools, out, out_name, false)?;
        batch.clear();
        let mut fullest = 0.0f64;
        for pool in pools.iter_mut() {
            // Only lines newer than the last UID taken are parsed.
            let (mut fresh, newest) = read_ring(&pool.reads, pool.last_uid)?;
            let Some(newest) = newest else {
                continue;
            };
            if pool.known && newest < pool.last_uid {
                // UIDs went backwards: the module was reloaded.
                tally.uid_resets += 1;
                pool.last_uid = 0;
                pool.known = false;
                fresh = read_ring(&pool.reads, 0)?.0;
            }
            let Some(first) = fresh.first() else {
                continue;
            };
            if pool.known && first.uid > pool.last_uid + 1 {
                progress.lost += first.uid - pool.last_uid - 1;
            }
            // Gaps inside one snapshot cannot happen in a ring, but count them.
            for w in fresh.windows(2) {
                progress.lost += w[1].uid.saturating_sub(w[0].uid + 1);
            }
            fullest = fullest.max(fresh.len() as f64 / f64::from(ring));
            pool.last_uid = newest;
            pool.known = true;
            batch.extend(fresh.into_iter().map(|r| (pool.index, r)));
        }
        batch.sort_by_key(|(_, r)| r.start_ns);
        for (pool, r) in &batch {
            tally.seen += 1;
            let blkid = r.blkid as u64;
            if !sampled_in(opts.sample_rate, r.objset, r.object, blkid) {
                tally.sampled_out += 1;
                continue;
            }
            let recordsize = match names.get(&(*pool, r.objset)) {
                Some((_, rs)) => *rs,
                None => {
                    let pool_name = &pools[usize::from(*pool)].name;
                    let (name, found) = dataset_name(&opts.procfs, pool_name, r.objset)?;
                    if !found {
                        tally.unnamed_objsets += 1;
                    }
                    let rs = opts.sizes.recordsize(&name);
                    out.add_dataset(Dataset {
                        pool: *pool,
                        objset: r.objset,
                        name: name.clone(),
                        recordsize: rs,
                    })
                    .map_err(write_err(out_name))?;
                    names.insert((*pool, r.objset), (name, rs));
                    rs
                }
            };
            let t0 = *first_start.get_or_insert(r.start_ns);
            let t = r.start_ns.saturating_sub(t0).max(last_time);
            last_time = t;
            let prefetch = r.aflags & ARC_FLAG_PREFETCH != 0;
            if prefetch {
                tally.prefetch += 1;
            } else {
                tally.demand += 1;
                if r.aflags & ARC_FLAG_CACHED != 0 {
                    tally.demand_cached += 1;
                }
            }
            out.push(&CaptureRecord {
                time_ns: t,
                pool: *pool,
                objset: r.objset,
                object: r.object,
                level: r.level.clamp(-128, 127) as i8,
                blkid,
                size: SizeRule::size(r.objset, r.object, r.level, recordsize),
                aflags: r.aflags,
                pid: r.pid.clamp(0, i64::from(u32::MAX)) as u32,
            })
            .map_err(write_err(out_name))?;
        }
        progress.records = out.records();
        progress.polls += 1;
        progress.elapsed = start.elapsed();
        if last_flush.elapsed() >= Duration::from_secs(1) {
            out.flush().map_err(write_err(out_name))?;
            last_flush = Instant::now();
        }
        // More than half the ring new since the last poll: poll twice as
        // often, and once at the fastest poll, double the ring.
        if fullest > 0.5 && progress.poll > MIN_POLL {
            progress.poll = (progress.poll / 2).max(MIN_POLL);
            tally.min_poll_ms = tally.min_poll_ms.min(progress.poll.as_secs_f64() * 1e3);
        } else if fullest > 0.5 && opts.grow_ring && ring < MAX_RING {
            ring = ring.saturating_mul(2).min(MAX_RING);
            guard.set("zfs_read_history", &ring.to_string())?;
            tally.ring = ring;
        }
        on_progress(&progress);
        if stop.load(Ordering::Relaxed) {
            break Stop::Requested;
        }
        if opts.duration.is_some_and(|d| start.elapsed() >= d) {
            break Stop::TimeLimit;
        }
        // Sleep the rest of the interval in short steps, so a stop request
        // or the time limit is seen within 50 ms.
        let wake = poll_began + progress.poll;
        while Instant::now() < wake {
            if stop.load(Ordering::Relaxed) || opts.duration.is_some_and(|d| start.elapsed() >= d) {
                break;
            }
            std::thread::sleep((wake - Instant::now()).min(Duration::from_millis(50)));
        }
    };
    out.flush().map_err(write_err(out_name))?;
    let summary = CaptureSummary {
        records: out.records(),
        lost: progress.lost,
        polls: progress.polls,
        duration_ns: u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX),
        stopped_by: match stopped {
            Stop::TimeLimit => "time limit".into(),
            Stop::Requested => "signal".into(),
        },
        extra: serde_json::to_value(&tally).unwrap_or_default(),
    };
    Ok((summary, tally))
}

/// The dataset an objset belongs to, from `POOL/objset-0x…`; when that kstat
/// is missing (the MOS, a snapshot, an objset gone since), `POOL/objset-0x…`
/// and `false`.
fn dataset_name(procfs: &Path, pool: &str, objset: u64) -> Result<(String, bool), CaptureError> {
    let rel = format!("spl/kstat/zfs/{pool}/objset-0x{objset:x}");
    let fallback = || {
        if objset == 0 {
            format!("{pool} (MOS)")
        } else {
            format!("{pool}/objset-0x{objset:x}")
        }
    };
    let Some(p) = path_in(procfs, &rel)? else {
        return Ok((fallback(), false));
    };
    let text = match arclab_io::read_to_string_limited(&p, 1 << 20) {
        Ok(t) => t,
        Err(_) => return Ok((fallback(), false)),
    };
    Ok((parse_objset_kstat(&text, &p.display().to_string())?, true))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zfs_get_output_gives_record_sizes() {
        let text = "tank\trecordsize\t131072\tdefault\ntank/db\trecordsize\t16384\tlocal\ntank/vol\trecordsize\t-\t-\ntank/vol\tvolblocksize\t8192\tdefault\n";
        let m = parse_zfs_get(text, "rs.txt").unwrap();
        assert_eq!(m["tank/db"], 16384);
        assert_eq!(m["tank/vol"], 8192);
        assert_eq!(m["tank"], 131072);
        let e = parse_zfs_get("tank\trecordsize\t128K\tdefault\n", "rs.txt").unwrap_err();
        assert_eq!(e.line, 1);
        assert!(
            e.to_string()
                .starts_with("rs.txt: line 1: recordsize `128K`")
        );
    }

    #[test]
    fn objset_kstat_names_the_dataset() {
        // Layout of a named kstat (spl-kstat.c: "%-31s %-4s %s" header,
        // "%-31s %-4d " then the string) for dataset_kstats.c's objset kstat.
        let text = "35 1 0x01 7 2160 5214515218 5216054541\nname                            type data\ndataset_name                    7    tank/home dir\nwrites                          4    0\n";
        assert_eq!(
            parse_objset_kstat(text, "objset-0x36").unwrap(),
            "tank/home dir"
        );
        assert!(parse_objset_kstat("name type data\n", "x").is_err());
    }

    #[test]
    fn nominal_sizes_follow_the_level() {
        assert_eq!(SizeRule::size(0x36, 128, 0, 16384), 16384);
        assert_eq!(SizeRule::size(0x36, 0, 0, 16384), DNODE_BLOCK_BYTES);
        assert_eq!(SizeRule::size(0, 5, 0, 16384), DNODE_BLOCK_BYTES);
        assert_eq!(SizeRule::size(0x36, 128, 2, 16384), INDIRECT_BYTES);
        assert_eq!(SizeRule::size(0x36, 0, -1, 16384), SPECIAL_BYTES);
    }

    #[test]
    fn sampling_keeps_about_the_rate_and_whole_blocks() {
        let kept = (0..200_000u64)
            .filter(|&b| sampled_in(0.1, 0x36, b / 100, b % 100))
            .count();
        assert!((18_000..22_000).contains(&kept), "{kept}");
        assert!(sampled_in(1.0, 1, 2, 3));
        // Deterministic: the same block, the same answer.
        assert_eq!(sampled_in(0.3, 7, 8, 9), sampled_in(0.3, 7, 8, 9));
    }
}
