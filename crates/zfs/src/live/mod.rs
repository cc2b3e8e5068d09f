//! The live view behind the full-screen `arclab top`: one [`Live`] state fed
//! a [`Sample`] per refresh, holding what the screen shows — the RAM split
//! and what is really available ([`Ram`]), the explanation of the newest
//! snapshot ([`crate::status::Status`]), per-second rates ([`Rates`]), their
//! recent history for sparklines ([`History`]) and the events seen between
//! samples ([`Event`]). The CLI only draws it and handles keys.
//!
//! **Really available memory.** The ARC is not counted in Linux's
//! `MemAvailable` (openzfs/zfs#10255). htop, btop and netdata add the ARC's
//! shrinkable part `size − c_min` (clipped at 0). arclab uses that rule and
//! also keeps out what the ARC cannot evict (non-evictable bytes, when the
//! layout exports `*_evictable_*`), since those bytes cannot be given back
//! either: reclaimable = `size − max(c_min, non-evictable)`, at least 0 (see
//! [`reclaimable`] and [`RECLAIMABLE_RULE`]); really available =
//! `MemAvailable` + reclaimable.
//!
//! **Events** between two samples ([`EventKind`]): `c` falling (with how much
//! `size` gave back, and whether `c` reached `c_min`), `arc_no_grow` set or
//! cleared, `memory_throttle_count` rising, `zfs_arc_max` / `c_max` changed at
//! runtime (and whether the new value is in force), counters reset or the
//! module reloaded, intervals missed (the sampler was late), read failures,
//! and pauses.
//!
//! ```
//! use arclab_zfs::live::reclaimable;
//! // htop's rule alone would say 10 GiB − 1 GiB = 9 GiB; 3 GiB cannot be evicted.
//! assert_eq!(reclaimable(10 << 30, 1 << 30, Some(3 << 30)), 7 << 30);
//! assert_eq!(reclaimable(10 << 30, 1 << 30, None), 9 << 30);
//! assert_eq!(reclaimable(1 << 30, 2 << 30, None), 0);
//! ```

use std::collections::VecDeque;
use std::path::Path;

use crate::arcstats::ArcSnapshot;
use crate::host::{self, HostError, Kstats, Meminfo, ModuleParams};
use crate::status::{self, MissingField, Status};

/// The rule for [`reclaimable`], as shown on screen and in help.
pub const RECLAIMABLE_RULE: &str = "ARC reclaimable = size − max(c_min, non-evictable), at least 0: htop/btop/netdata count size − c_min; arclab also keeps out the bytes the ARC cannot evict. Really available = MemAvailable + ARC reclaimable (Linux does not count the ARC in MemAvailable).";

/// The most events kept (older ones are dropped).
pub const MAX_EVENTS: usize = 500;

/// The most history points kept per metric.
pub const MAX_HISTORY: usize = 3600;

/// How much of the ARC can be given back to applications: `size −
/// max(c_min, non_evictable)`, at least 0 (the htop/btop/netdata rule `size −
/// c_min`, without what cannot be evicted when that is known).
pub fn reclaimable(size: u64, c_min: u64, non_evictable: Option<u64>) -> u64 {
    size.saturating_sub(non_evictable.map_or(c_min, |n| n.max(c_min)))
}

/// One read of the host.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// arcstats (and zfetchstats / dbufstats).
    pub kstats: Kstats,
    /// `/proc/meminfo`, when read.
    pub meminfo: Option<Meminfo>,
    /// The module's parameters from sysfs, when read.
    pub params: Option<ModuleParams>,
}

impl Sample {
    /// Read `ROOT/spl/kstat/zfs/*` and `ROOT/meminfo` under a procfs root, and
    /// `module/zfs/` under a sysfs root when given.
    pub fn read(procfs: &Path, sysfs: Option<&Path>) -> Result<Self, HostError> {
        Ok(Sample {
            kstats: host::read_procfs(procfs)?,
            meminfo: host::procfs_meminfo(procfs)?,
            params: sysfs.map(host::read_sysfs).transpose()?,
        })
    }

    /// A saved kstat file (no meminfo, no parameters).
    pub fn read_file(path: &Path) -> Result<Self, HostError> {
        Ok(Sample {
            kstats: host::read_kstat_file(path)?,
            meminfo: None,
            params: None,
        })
    }

    fn arc(&self) -> &ArcSnapshot {
        &self.kstats.arc
    }
}

/// The RAM split of the bar: `other + arc_size + free = total` (`other` is
/// applications, the kernel and the page cache).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ram {
    /// RAM: `memory_all_bytes`, else `MemTotal`.
    pub total: u64,
    /// Where `total` came from.
    pub total_source: &'static str,
    /// Everything that is neither the ARC nor free: applications, kernel, page cache.
    pub other: u64,
    /// ARC `size`.
    pub arc_size: u64,
    /// The evictable part of the ARC (`None`: the layout does not say).
    pub arc_evictable: Option<u64>,
    /// The non-evictable part.
    pub arc_non_evictable: Option<u64>,
    /// Free pages (`memory_free_bytes`), when exported.
    pub free: Option<u64>,
    /// `MemAvailable`, when meminfo was read.
    pub mem_available: Option<u64>,
    /// [`reclaimable`].
    pub arc_reclaimable: u64,
    /// `MemAvailable + arc_reclaimable`.
    pub really_available: Option<u64>,
}

impl Ram {
    /// The split for one snapshot explained as `st`; `None` without a RAM size.
    pub fn of(st: &Status, arc: &ArcSnapshot, meminfo: Option<&Meminfo>) -> Option<Ram> {
        let (total, total_source) = match (arc.get_u64("memory_all_bytes"), meminfo) {
            (Some(t), _) => (t, "memory_all_bytes"),
            (None, Some(m)) => (m.total_bytes, "MemTotal"),
            (None, None) => return None,
        };
        let size = st.size_bytes;
        let free = arc.get_u64("memory_free_bytes").map(|f| f.min(total));
        let other = total.saturating_sub(size).saturating_sub(free.unwrap_or(0));
        let arc_reclaimable = reclaimable(size, st.c_min_bytes, st.non_evictable_bytes);
        let mem_available = meminfo.and_then(|m| m.available_bytes);
        Some(Ram {
            total,
            total_source,
            other,
            arc_size: size,
            arc_evictable: st.evictable_bytes.map(|e| e.min(size)),
            arc_non_evictable: st.non_evictable_bytes.map(|n| n.min(size)),
            free,
            mem_available,
            arc_reclaimable,
            really_available: mem_available.map(|a| a.saturating_add(arc_reclaimable)),
        })
    }
}

/// One ARC state's split into data and metadata bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateSplit {
    /// `anon`, `mru`, `mfu`, `uncached`, `mru_ghost`, `mfu_ghost`.
    pub state: &'static str,
    /// `<state>_size`.
    pub size: u64,
    /// `<state>_data`, when exported.
    pub data: Option<u64>,
    /// `<state>_metadata`, when exported.
    pub metadata: Option<u64>,
}

/// The data/metadata split of every state the snapshot exports.
pub fn state_split(arc: &ArcSnapshot) -> Vec<StateSplit> {
    ["anon", "mru", "mfu", "uncached", "mru_ghost", "mfu_ghost"]
        .into_iter()
        .filter_map(|state| {
            Some(StateSplit {
                state,
                size: arc.get_u64(&format!("{state}_size"))?,
                data: arc.get_u64(&format!("{state}_data")),
                metadata: arc.get_u64(&format!("{state}_metadata")),
            })
        })
        .collect()
}

/// The live state.
#[derive(Clone, Debug)]
pub struct Live {
    interval: f64,
    prev: Sample,
    /// The newest snapshot explained.
    pub status: Status,
    /// The RAM split of the newest snapshot.
    pub ram: Option<Ram>,
    /// Rates of the newest interval (since load, for the first sample).
    pub rates: Rates,
    /// Recent rates.
    pub history: History,
    /// Recent events, oldest first (at most [`MAX_EVENTS`]).
    pub events: VecDeque<Event>,
    /// Samples taken.
    pub samples: u64,
    /// Intervals missed since the start.
    pub missed: u64,
    /// Intervals with a counter reset since the start.
    pub resets: u64,
    /// The last read error, cleared by the next good read.
    pub error: Option<String>,
    /// The `zfs_arc_max` module parameter, when sysfs is read.
    pub arc_max_param: Option<u64>,
}

impl Live {
    /// The module's own version string (sysfs `module/zfs/version`) of the
    /// newest sample, when sysfs was read and has it.
    pub fn module_version(&self) -> Option<&str> {
        self.prev.params.as_ref()?.version.as_deref()
    }

    /// Start from the first sample; `interval` is the configured refresh,
    /// `history` the points kept per metric.
    pub fn new(first: Sample, interval: f64, history: usize) -> Result<Live, MissingField> {
        let status = status::explain(
            first.arc(),
            first.kstats.zfetch.as_ref(),
            first.kstats.dbuf.as_ref(),
            None,
            &first.kstats.name,
        )?;
        Ok(Live {
            interval,
            ram: Ram::of(&status, first.arc(), first.meminfo.as_ref()),
            rates: Rates::since_load(first.arc()),
            arc_max_param: first.params.as_ref().and_then(|p| p.arc_max),
            status,
            history: History::new(history),
            events: VecDeque::new(),
            samples: 1,
            missed: 0,
            resets: 0,
            error: None,
            prev: first,
        })
    }

    /// The newest snapshot.
    pub fn snapshot(&self) -> &ArcSnapshot {
        self.prev.arc()
    }

    /// What was read (a path), for the title.
    pub fn source(&self) -> &str {
        &self.prev.kstats.name
    }

    /// The configured interval (s).
    pub fn interval(&self) -> f64 {
        self.interval
    }

    fn event(&mut self, kind: EventKind, unix_secs: u64) {
        if self.events.len() == MAX_EVENTS {
            self.events.pop_front();
        }
        self.events.push_back(Event {
            unix_secs,
            message: message(&kind),
            kind,
        });
    }

    /// Take the next sample, `wall_seconds` after the previous one.
    pub fn push(&mut self, cur: Sample, wall_seconds: f64, unix_secs: u64) {
        let r = Rates::between(self.prev.arc(), cur.arc(), wall_seconds);
        let evs = events(&self.prev, &cur, &r, self.interval);
        for e in evs {
            match &e {
                EventKind::Missed { intervals, .. } => {
                    self.missed += intervals;
                    self.history.gaps(*intervals);
                }
                EventKind::Reset(_) | EventKind::Reloaded => self.resets += 1,
                _ => {}
            }
            self.event(e, unix_secs);
        }
        self.history.push(&r);
        self.rates = r;
        self.samples += 1;
        self.take(cur, unix_secs);
    }

    /// Make `cur` the newest sample: explain it, split the RAM.
    fn take(&mut self, cur: Sample, unix_secs: u64) {
        match status::explain(
            cur.arc(),
            cur.kstats.zfetch.as_ref(),
            cur.kstats.dbuf.as_ref(),
            None,
            &cur.kstats.name,
        ) {
            Ok(s) => {
                self.ram = Ram::of(&s, cur.arc(), cur.meminfo.as_ref());
                self.status = s;
                self.error = None;
            }
            Err(e) => {
                self.error = Some(e.to_string());
                self.event(EventKind::ReadFailed(e.to_string()), unix_secs);
            }
        }
        self.arc_max_param = cur.params.as_ref().and_then(|p| p.arc_max);
        self.prev = cur;
    }

    /// A read failed: keep the last state, note it once per distinct error.
    pub fn read_failed(&mut self, error: String, unix_secs: u64) {
        if self.error.as_deref() != Some(error.as_str()) {
            self.event(EventKind::ReadFailed(error.clone()), unix_secs);
        }
        self.error = Some(error);
        self.history.gaps(1);
    }

    /// Resume after a pause of `seconds`: `cur` becomes the new base (no rate
    /// spans the pause).
    /// What changed during the pause (c falling, throttles, arc_max, resets)
    /// is still reported; a pause is not a missed interval.
    pub fn resume(&mut self, cur: Sample, seconds: f64, unix_secs: u64) {
        self.event(EventKind::Paused(seconds), unix_secs);
        let r = Rates::between(self.prev.arc(), cur.arc(), seconds);
        for e in events(&self.prev, &cur, &r, self.interval) {
            if !matches!(e, EventKind::Missed { .. }) {
                self.event(e, unix_secs);
            }
        }
        self.history.gaps(1);
        self.take(cur, unix_secs);
    }

    /// Whether `zfs_arc_max` is set (non-zero) and `c_max` differs from it.
    pub fn arc_max_not_in_force(&self) -> Option<u64> {
        self.arc_max_param
            .filter(|p| *p != 0 && *p != self.status.c_max_bytes)
    }
}

mod events;
mod intervals;

pub use events::*;
pub use intervals::*;

#[cfg(test)]
mod tests;
