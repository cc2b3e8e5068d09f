//! Whole-trace statistics, exact LRU reuse (stack) distances included.
//!
//! ```
//! use arclab_trace::{from_reader, stats::TraceStats, Format, OpenOptions};
//! let txt = std::io::Cursor::new(b"1\n2\n3\n1\n2\n2".to_vec());
//! let mut reader = from_reader(txt, Format::Txt, &OpenOptions::default(), "mem.txt")?;
//! let s = TraceStats::compute(&mut reader, |_| {})?;
//! assert_eq!((s.n_req, s.n_obj, s.one_hit_wonders), (6, 3, 1));
//! // distances: 1 → 2 (2, 3 in between), 2 → 2 (3, 1), 2 → 0
//! assert_eq!((s.reuse_distance.count, s.reuse_distance.max), (3, 2));
//! # Ok::<(), arclab_trace::TraceError>(())
//! ```

use arclab_arc::slab::KeyMap;
use arclab_arc::{Op, Request};

use crate::{Format, TraceError, TraceReader};

/// Summary of the LRU stack distances of reused accesses: for each access to
/// an object seen before, the number of distinct other objects accessed since
/// its previous access (0 = immediate re-access).
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ReuseSummary {
    /// Number of reused accesses (requests minus distinct objects).
    pub count: u64,
    /// Mean distance (0 when `count` is 0).
    pub mean: f64,
    /// Median (nearest-rank: the smallest d with at least 50 % of distances ≤ d).
    pub p50: u64,
    /// 90th percentile (nearest-rank).
    pub p90: u64,
    /// 99th percentile (nearest-rank).
    pub p99: u64,
    /// Largest distance.
    pub max: u64,
}

/// The distinct objects of a trace and their bytes (each object counted at
/// the size of its first request): what a cache size given as a fraction of
/// the working set needs, in one cheap pass — no reuse distances.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WorkingSet {
    /// Distinct objects.
    pub objects: u64,
    /// Their bytes.
    pub bytes: u64,
}

impl WorkingSet {
    /// Read `reader` to its end.
    pub fn compute(reader: &mut TraceReader) -> Result<WorkingSet, TraceError> {
        let mut seen: KeyMap<u64, ()> = KeyMap::default();
        let mut ws = WorkingSet::default();
        let mut batch: Vec<Request> = Vec::with_capacity(1 << 16);
        loop {
            batch.clear();
            if reader.read_batch(&mut batch, 1 << 16)? == 0 {
                return Ok(ws);
            }
            for r in &batch {
                if seen.insert(r.key, ()).is_none() {
                    ws.objects += 1;
                    ws.bytes += u64::from(r.size);
                }
            }
        }
    }
}

/// Statistics of a whole trace.
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct TraceStats {
    /// Requests.
    pub n_req: u64,
    /// Distinct keys.
    pub n_obj: u64,
    /// Sum of request sizes.
    pub n_req_byte: u64,
    /// Working-set size: sum over objects of the size of the object's
    /// **first** request (libCacheSim's convention for `n_obj_byte`).
    pub working_set_bytes: u64,
    /// Smallest request time (0 for a trace without requests).
    pub start_time_ns: u64,
    /// Largest request time.
    pub end_time_ns: u64,
    /// Read requests.
    pub n_read: u64,
    /// Write requests.
    pub n_write: u64,
    /// Delete requests.
    pub n_delete: u64,
    /// Objects requested exactly once.
    pub one_hit_wonders: u64,
    /// LRU stack distances of reused accesses.
    pub reuse_distance: ReuseSummary,
}

/// Whether a trace of `format` records each request's operation (read,
/// write, delete): vscsi does (its SCSI command), lcs from record version 2
/// (`op` field), csv when an op column is configured (`csv_op_col`);
/// oracleGeneral, lcs v1, txt, ARC `.lis` and arct (only `arc_read()` calls,
/// never a write) do not, and their readers
/// report every request as a read, so [`TraceStats::n_read`] and the others
/// mean nothing for them.
///
/// ```
/// use arclab_trace::{stats::records_op, Format};
/// assert!(!records_op(Format::OracleGeneral, None, None));
/// assert!(records_op(Format::Vscsi, None, None));
/// assert!(!records_op(Format::Lcs, Some(1), None) && records_op(Format::Lcs, Some(2), None));
/// assert!(records_op(Format::Csv, None, Some(3)));
/// ```
pub fn records_op(format: Format, lcs_version: Option<u64>, csv_op_col: Option<usize>) -> bool {
    match format {
        Format::Vscsi => true,
        Format::Lcs => lcs_version.is_some_and(|v| v >= 2),
        Format::Csv => csv_op_col.is_some(),
        // arct holds only arc_read() calls: no writes, so no read/write mix.
        Format::OracleGeneral | Format::Txt | Format::Lis | Format::Arct => false,
    }
}

/// Fenwick (binary indexed) tree of 0/1 marks over access positions.
struct Fenwick {
    t: Vec<u64>,
}

impl Fenwick {
    /// A tree over positions `0..cap` with positions `0..marked` set.
    fn with_marked(cap: usize, marked: usize) -> Self {
        let mut t = vec![0u64; cap + 1];
        for v in t.iter_mut().take(marked + 1).skip(1) {
            *v = 1;
        }
        for i in 1..=cap {
            let j = i + (i & i.wrapping_neg());
            if j <= cap {
                t[j] += t[i];
            }
        }
        Fenwick { t }
    }

    fn cap(&self) -> usize {
        self.t.len() - 1
    }

    fn add(&mut self, pos: usize, delta: i64) {
        let mut i = pos + 1;
        while i < self.t.len() {
            self.t[i] = self.t[i].wrapping_add(delta as u64);
            i += i & i.wrapping_neg();
        }
    }

    /// Marks at positions `0..=pos`.
    fn prefix(&self, pos: usize) -> u64 {
        let mut i = pos + 1;
        let mut s = 0;
        while i > 0 {
            s += self.t[i];
            i -= i & i.wrapping_neg();
        }
        s
    }
}

struct Obj {
    pos: usize,
    count: u32,
}

const MIN_CAP: usize = 1 << 16;

/// Exact stack distances: each object's last access position is marked in a
/// Fenwick tree; the distance of a re-access is the number of marks after the
/// previous position. When positions run out, live positions are renumbered
/// `0..n_obj` in order and the tree is rebuilt with room for as many again,
/// so memory is O(distinct objects) and the amortised cost O(log n_obj).
struct StackDistance {
    tree: Fenwick,
    objs: KeyMap<u64, Obj>,
    now: usize,
    hist: Vec<u64>,
}

impl StackDistance {
    fn new() -> Self {
        StackDistance {
            tree: Fenwick::with_marked(MIN_CAP, 0),
            objs: KeyMap::default(),
            now: 0,
            hist: Vec::new(),
        }
    }

    fn compact(&mut self) {
        let mut positions: Vec<usize> = self.objs.values().map(|o| o.pos).collect();
        positions.sort_unstable();
        for o in self.objs.values_mut() {
            o.pos = positions.binary_search(&o.pos).unwrap_or(0);
        }
        let k = positions.len();
        self.tree = Fenwick::with_marked((2 * k).max(MIN_CAP), k);
        self.now = k;
    }

    /// Record an access; returns true when the object is new.
    fn access(&mut self, key: u64) -> bool {
        if self.now == self.tree.cap() {
            self.compact();
        }
        let now = self.now;
        self.now += 1;
        let live = self.objs.len() as u64;
        match self.objs.get_mut(&key) {
            Some(o) => {
                let d = (live - self.tree.prefix(o.pos)) as usize;
                if d >= self.hist.len() {
                    self.hist.resize(d + 1, 0);
                }
                self.hist[d] += 1;
                self.tree.add(o.pos, -1);
                o.pos = now;
                o.count = o.count.saturating_add(1);
                self.tree.add(now, 1);
                false
            }
            None => {
                self.objs.insert(key, Obj { pos: now, count: 1 });
                self.tree.add(now, 1);
                true
            }
        }
    }

    fn summary(&self) -> ReuseSummary {
        let count: u64 = self.hist.iter().sum();
        if count == 0 {
            return ReuseSummary::default();
        }
        let total: f64 = self
            .hist
            .iter()
            .enumerate()
            .map(|(d, &c)| d as f64 * c as f64)
            .sum();
        let pct = |q: f64| {
            let rank = ((q * count as f64).ceil() as u64).max(1);
            let mut cum = 0;
            for (d, &c) in self.hist.iter().enumerate() {
                cum += c;
                if cum >= rank {
                    return d as u64;
                }
            }
            (self.hist.len() - 1) as u64
        };
        ReuseSummary {
            count,
            mean: total / count as f64,
            p50: pct(0.5),
            p90: pct(0.9),
            p99: pct(0.99),
            max: self.hist.iter().rposition(|&c| c > 0).unwrap_or(0) as u64,
        }
    }
}

impl TraceStats {
    /// Read `reader` to its end and summarise it. `progress` is called after
    /// every batch with the number of requests read so far.
    pub fn compute(
        reader: &mut TraceReader,
        mut progress: impl FnMut(u64),
    ) -> Result<TraceStats, TraceError> {
        let mut s = TraceStats {
            start_time_ns: u64::MAX,
            ..TraceStats::default()
        };
        let mut sd = StackDistance::new();
        let mut batch: Vec<Request> = Vec::with_capacity(1 << 16);
        loop {
            batch.clear();
            if reader.read_batch(&mut batch, 1 << 16)? == 0 {
                break;
            }
            for r in &batch {
                s.n_req += 1;
                s.n_req_byte += r.size as u64;
                s.start_time_ns = s.start_time_ns.min(r.time_ns);
                s.end_time_ns = s.end_time_ns.max(r.time_ns);
                match r.op {
                    Op::Read => s.n_read += 1,
                    Op::Write => s.n_write += 1,
                    Op::Delete => s.n_delete += 1,
                }
                if sd.access(r.key) {
                    s.working_set_bytes += r.size as u64;
                }
            }
            progress(s.n_req);
        }
        if s.n_req == 0 {
            s.start_time_ns = 0;
        }
        s.n_obj = sd.objs.len() as u64;
        s.one_hit_wonders = sd.objs.values().filter(|o| o.count == 1).count() as u64;
        s.reuse_distance = sd.summary();
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_brute_force_across_compactions() {
        // 300k accesses over 500 keys: several compactions of the 65536-slot tree.
        const K: usize = 500;
        let mut x: u64 = 12345;
        let keys: Vec<usize> = (0..300_000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x % K as u64) as usize
            })
            .collect();
        // Brute force: distance = keys whose last access is after this key's last access.
        let mut last = [usize::MAX; K];
        let mut want = vec![0u64; K];
        for (t, &k) in keys.iter().enumerate() {
            if last[k] != usize::MAX {
                let d = last
                    .iter()
                    .filter(|&&l| l != usize::MAX && l > last[k])
                    .count();
                want[d] += 1;
            }
            last[k] = t;
        }
        let mut sd = StackDistance::new();
        for &k in &keys {
            sd.access(k as u64);
        }
        let mut got = sd.hist.clone();
        got.resize(K, 0);
        assert_eq!(got, want);
    }

    #[test]
    fn compaction_is_exact() {
        // Distinct keys force compaction with many live objects; then check a re-access.
        let mut sd = StackDistance::new();
        for k in 0..200_000u64 {
            sd.access(k);
        }
        sd.access(100_000);
        assert_eq!(sd.hist[99_999], 1);
        sd.access(0);
        assert_eq!(sd.hist[199_999], 1);
        sd.access(100_000);
        assert_eq!(sd.hist[1], 1);
    }
}
