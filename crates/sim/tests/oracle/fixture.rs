//! The oracle fixtures of `crates/sim/tests/oracle.rs`: where the sets
//! live, how a fixture is read (its config, the oracle's counters per run,
//! the clocks it kept), and the model's replay of one run's clock exactly as
//! `bench/oracle/run.py` runs `arclab sim`.

use arclab_arc::Request;
use arclab_arc::model::{ArcConfig, Behaviour};
use arclab_sim::model::{ZfsArc, ZfsSpec};
use arclab_trace::clock::{Clock, Clocked};
use arclab_trace::{CsvOptions, Format, OpenOptions};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The oracle fixtures: `data/oracle/<release>/<trace>/<cap>-pf<on|off>/`.
pub(crate) fn fixture_root() -> PathBuf {
    arclab_testdata::dir().join("oracle")
}

/// The paced oracle fixtures (the same layout): the harness issued the
/// requests at a fixed rate (`arcoracle replay -r`), so that its prefetch
/// reads and its evict threads keep up with the reads instead of racing a
/// replay that runs as fast as the loaded machine lets it.
pub(crate) fn paced_root() -> PathBuf {
    arclab_testdata::dir().join("oracle-paced")
}

/// The second paced set: the same matrix, every run's clock kept
/// (`requests-runK.csv.zst`), measured on a quieter machine.
pub(crate) fn paced2_root() -> PathBuf {
    arclab_testdata::dir().join("oracle-paced-2")
}

/// Twenty oracle runs of three rows of the paced matrix, every run's clock
/// kept (`data/oracle-20-runs/README.md`).
pub(crate) fn twenty_root() -> PathBuf {
    arclab_testdata::dir().join("oracle-20-runs")
}

/// A flat JSON object as written by `bench/oracle/run.py` (numbers or
/// strings), each value kept as its text.
pub(crate) fn read_flat_json(path: &Path) -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let map: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    map.into_iter()
        .map(|(k, v)| {
            let v = match v {
                serde_json::Value::String(s) => s,
                other => other.to_string(),
            };
            (k, v)
        })
        .collect()
}

pub(crate) fn num(map: &BTreeMap<String, String>, key: &str, path: &Path) -> f64 {
    let v = map
        .get(key)
        .unwrap_or_else(|| panic!("{}: no field {key}", path.display()));
    v.parse()
        .unwrap_or_else(|e| panic!("{}: field {key} = {v}: {e}", path.display()))
}

/// One (release, trace, cap, prefetch) of the matrix.
pub(crate) struct Fixture {
    pub(crate) dir: PathBuf,
    pub(crate) release: String,
    pub(crate) trace: String,
    pub(crate) cap: u64,
    pub(crate) ram: u64,
    pub(crate) prefetch: bool,
    /// The floor the harness gave its device (`replay -L`, µs; 0: none).
    pub(crate) floor_us: u64,
    /// The oracle's counters, one map per run.
    pub(crate) runs: Vec<BTreeMap<String, String>>,
    /// The runs whose clock the fixture kept (1-based): run K's requests
    /// and issue times are `requests-runK.csv.zst` (run 1's
    /// `requests.csv.zst`). Sets measured before every run's clock was kept
    /// have run 1's only.
    pub(crate) clocks: Vec<usize>,
}

impl Fixture {
    /// The file with run `k`'s requests and issue times.
    pub(crate) fn clock(&self, k: usize) -> PathBuf {
        if k == 1 {
            self.dir.join("requests.csv.zst")
        } else {
            self.dir.join(format!("requests-run{k}.csv.zst"))
        }
    }

    /// The model's device latency in µs (0: the model's default) for a
    /// replay of run `k`'s clock, as run.py gives it: the median read
    /// latency the harness measured in that run
    /// (`result.read_latency_us_p50`: requests that were one demand data
    /// read and nothing else), else the floor it gave its device; the
    /// unpaced fixtures have neither.
    pub(crate) fn model_latency_us(&self, k: usize) -> u64 {
        let run = &self.runs[k - 1];
        let path = self.dir.join(format!("oracle-run{k}.json"));
        if run.contains_key("result.read_latency_us_p50") {
            num(run, "result.read_latency_us_p50", &path) as u64
        } else {
            self.floor_us
        }
    }
}

pub(crate) fn fixtures(root: PathBuf) -> Vec<Fixture> {
    let mut out = Vec::new();
    let mut dirs = vec![root.clone()];
    while let Some(d) = dirs.pop() {
        let entries = std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display()));
        for e in entries {
            let p = e.expect("directory entry").path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.file_name().is_some_and(|n| n == "config.json") {
                let dir = p.parent().expect("config.json has a parent").to_path_buf();
                let cfg = read_flat_json(&p);
                let mut runs = Vec::new();
                for k in 1.. {
                    let r = dir.join(format!("oracle-run{k}.json"));
                    if !r.exists() {
                        break;
                    }
                    runs.push(read_flat_json(&r));
                }
                assert!(!runs.is_empty(), "{}: no oracle-run1.json", dir.display());
                let mut f = Fixture {
                    release: cfg["release"].clone(),
                    trace: cfg["trace"].clone(),
                    cap: num(&cfg, "cap", &p) as u64,
                    ram: num(&cfg, "ram", &p) as u64,
                    prefetch: cfg["prefetch"] == "on",
                    floor_us: if cfg.contains_key("device_latency_us") {
                        num(&cfg, "device_latency_us", &p) as u64
                    } else {
                        0
                    },
                    runs,
                    clocks: Vec::new(),
                    dir,
                };
                f.clocks = (1..=f.runs.len())
                    .filter(|&k| f.clock(k).exists())
                    .collect();
                assert!(
                    f.clocks.first() == Some(&1),
                    "{}: no requests.csv.zst",
                    f.dir.display()
                );
                out.push(f);
            }
        }
    }
    out.sort_by(|a, b| {
        (&a.release, &a.trace, a.cap, a.prefetch).cmp(&(&b.release, &b.trace, b.cap, b.prefetch))
    });
    out
}

/// Run `k`'s requests with the clock `arclab sim` gives them.
pub(crate) fn requests(f: &Fixture, k: usize) -> Vec<Request> {
    let path = f.clock(k);
    let opts = OpenOptions {
        format: Some(Format::Csv),
        csv: CsvOptions {
            time_col: Some(1),
            id_col: 2,
            size_col: Some(3),
            has_header: Some(true),
            ..CsvOptions::default()
        },
        ..OpenOptions::default()
    };
    let reader = arclab_trace::open(&path, &opts).unwrap_or_else(|e| panic!("{e}"));
    // The clock `arclab sim` gives a csv trace: its own seconds, requests
    // sharing a second spread over it, time relative to the first request.
    let clock = Clock::for_format(Format::Csv, 1.0).unwrap();
    let mut clocked = Clocked::new(reader, clock);
    let mut out = Vec::new();
    while clocked
        .next_batch(&mut out, 1 << 16)
        .unwrap_or_else(|e| panic!("{e}"))
        > 0
    {}
    out
}

/// What the model gives on one fixture.
pub(crate) struct ModelRun {
    pub(crate) requests: usize,
    pub(crate) demand_data_hits: u64,
    pub(crate) demand_data_misses: u64,
    /// `mru_ghost_hits + mfu_ghost_hits`.
    pub(crate) ghost_hits: u64,
    /// `demand_metadata_hits`, `demand_metadata_misses`.
    pub(crate) metadata: (u64, u64),
    /// zfetchstats `hits` and `misses` (prefetch on only).
    pub(crate) zfetch: Option<(u64, u64)>,
}

/// Sublist draws the model's mean is taken over, per oracle run, where
/// arc.c's runs are compared as draws of their own.
pub(crate) const DRAWS: u64 = 8;

/// The model's draw `s` (below [`DRAWS`]) on oracle run `k`'s clock: a
/// `sublist_seed` of that run's own, `(k - 1) * DRAWS + s`, since every
/// arc.c run is its own import and so its own draw of the sublists; draws
/// shared by every run would make the model's mean rest on [`DRAWS`]
/// layouts however many runs there are (as `bench/oracle/run.py`'s
/// `run_seeds`).
pub(crate) fn draw_seed(k: usize, s: u64) -> u64 {
    (k as u64 - 1) * DRAWS + s
}

/// The model on oracle run `k`'s clock, with the device latency that run
/// measured.
pub(crate) fn replay(f: &Fixture, k: usize) -> ModelRun {
    replay_seeded(f, k, 0)
}

/// [`replay`] with the model's draw of eviction sublists `seed`
/// (`sublist_seed`; 0 is the default draw).
pub(crate) fn replay_seeded(f: &Fixture, k: usize, seed: u64) -> ModelRun {
    let behaviour = Behaviour::preset(&f.release)
        .unwrap_or_else(|e| panic!("{}: release {}: {e}", f.dir.display(), f.release));
    // As `bench/oracle/run.py` runs `arclab sim`: the oracle's objects of
    // `config.nblocks` blocks (trace id g = block g % n of object g / n),
    // each data read through its indirect blocks (the default).
    let run = &f.runs[k - 1];
    let path = f.dir.join(format!("oracle-run{k}.json"));
    let mut config = ArcConfig::new(f.ram)
        .with_behaviour(behaviour)
        .with_arc_max(f.cap);
    let latency_us = f.model_latency_us(k);
    if latency_us > 0 {
        config.tunables.device_latency_ns = latency_us * 1000;
    }
    config.tunables.sublist_seed = seed;
    let mut spec = ZfsSpec::new(config, f.prefetch, false);
    spec.blocks_per_file = Some(num(run, "config.nblocks", &path) as u64);
    spec.indirect_reads = true;
    // The harness keeps every object it created open: their dnode_t's and
    // bonus buffers are held in the ARC (`dnode_size`, `bonus_size`: the
    // same at the end of every run of one pool), given to the model as
    // `--pinned` is by run.py.
    let held = |key: &str| run.get(key).map_or(0, |_| num(run, key, &path) as u64);
    spec.pinned = [
        held("end.arcstats.dnode_size"),
        0,
        held("end.arcstats.bonus_size"),
    ];
    let mut z = ZfsArc::new(&spec);
    let reqs = requests(f, k);
    for r in &reqs {
        z.access(r);
    }
    z.check_invariants()
        .unwrap_or_else(|e| panic!("{}: {e}", f.dir.display()));
    let s = z.stats();
    ModelRun {
        requests: reqs.len(),
        demand_data_hits: s.demand_data_hits,
        demand_data_misses: s.demand_data_misses,
        ghost_hits: s.mru_ghost_hits + s.mfu_ghost_hits,
        metadata: (s.demand_metadata_hits, s.demand_metadata_misses),
        zfetch: z.zfetch_stats().map(|s| (s.hits, s.misses)),
    }
}

/// The mean of `v` (not empty).
pub(crate) fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// The mean of `v` (at least two values) and its standard error (the
/// sample standard deviation, divisor n − 1, over √n).
pub(crate) fn mean_se(v: &[f64]) -> (f64, f64) {
    let (n, m) = (v.len() as f64, mean(v));
    let var = v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0);
    (m, (var / n).sqrt())
}

/// The oracle's `key` in each of its runs (scaled by `scale`).
pub(crate) fn run_values<'a>(
    f: &'a Fixture,
    key: &'a str,
    scale: f64,
    path: &'a Path,
) -> impl Iterator<Item = f64> + 'a {
    f.runs.iter().map(move |r| num(r, key, path) * scale)
}

/// The oracle's min–max over its runs of `key` (scaled by `scale`).
pub(crate) fn run_range(f: &Fixture, key: &str, scale: f64, path: &Path) -> (f64, f64) {
    run_values(f, key, scale, path).fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    })
}
