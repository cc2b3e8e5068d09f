//! Oracle goldens: the real OpenZFS ARC (stock `module/zfs` of a release
//! tag, compiled into userland libzpool and driven by the `arcoracle`
//! harness) replayed a matrix of block traces; its counters, the requests
//! and the issue time of every request are committed under `data/oracle/`
//! (provenance: `data/oracle/README.md`; how to regenerate:
//! `docs/oracle.md`, `bench/oracle/run.py`).
//!
//! Each fixture is replayed here through the model on the same requests and
//! the same clock (every run's own clock where the fixture kept it,
//! `data/oracle-paced-2/`; run 1's in the older sets), exactly as
//! `arclab sim --policy zfs-arc` does (the CSV
//! reader, then the trace clock adapter `arclab sim` uses, then `ZfsArc`), and the model's
//! demand-data hit ratio must lie within the oracle's own run-to-run range
//! (min–max over its runs) widened by the tolerance stated per trace in
//! [`TOLERANCE_PTS`]. Those tolerances document today's gap between the
//! model and arc.c; they are meant to shrink as the model improves.

use arclab_arc::Request;
use arclab_arc::model::{ArcConfig, Behaviour};
use arclab_sim::model::{ZfsArc, ZfsSpec};
use arclab_trace::clock::{Clock, Clocked};
use arclab_trace::{CsvOptions, Format, OpenOptions};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[path = "oracle/tolerances.rs"]
mod tolerances;
use tolerances::{
    ghost_tolerance, paced_ghost_tolerance, paced_miss_tolerance, paced_tolerance,
    paced2_ghost_tolerance, paced2_mae_bound, paced2_miss_tolerance, paced2_tolerance, tolerance,
    twenty_hit_bound,
};

/// The oracle fixtures: `data/oracle/<release>/<trace>/<cap>-pf<on|off>/`.
fn fixture_root() -> PathBuf {
    arclab_testdata::dir().join("oracle")
}

/// The paced oracle fixtures (the same layout): the harness issued the
/// requests at a fixed rate (`arcoracle replay -r`), so that its prefetch
/// reads and its evict threads keep up with the reads instead of racing a
/// replay that runs as fast as the loaded machine lets it.
fn paced_root() -> PathBuf {
    arclab_testdata::dir().join("oracle-paced")
}

/// The second paced set: the same matrix, every run's clock kept
/// (`requests-runK.csv.zst`), measured on a quieter machine.
fn paced2_root() -> PathBuf {
    arclab_testdata::dir().join("oracle-paced-2")
}

/// Twenty oracle runs of three rows of the paced matrix, every run's clock
/// kept (`data/oracle-20-runs/README.md`).
fn twenty_root() -> PathBuf {
    arclab_testdata::dir().join("oracle-20-runs")
}

/// A flat JSON object as written by `bench/oracle/run.py` (numbers or
/// strings), each value kept as its text.
fn read_flat_json(path: &Path) -> BTreeMap<String, String> {
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

fn num(map: &BTreeMap<String, String>, key: &str, path: &Path) -> f64 {
    let v = map
        .get(key)
        .unwrap_or_else(|| panic!("{}: no field {key}", path.display()));
    v.parse()
        .unwrap_or_else(|e| panic!("{}: field {key} = {v}: {e}", path.display()))
}

/// One (release, trace, cap, prefetch) of the matrix.
struct Fixture {
    dir: PathBuf,
    release: String,
    trace: String,
    cap: u64,
    ram: u64,
    prefetch: bool,
    /// The floor the harness gave its device (`replay -L`, µs; 0: none).
    floor_us: u64,
    /// The oracle's counters, one map per run.
    runs: Vec<BTreeMap<String, String>>,
    /// The runs whose clock the fixture kept (1-based): run K's requests
    /// and issue times are `requests-runK.csv.zst` (run 1's
    /// `requests.csv.zst`). Sets measured before every run's clock was kept
    /// have run 1's only.
    clocks: Vec<usize>,
}

impl Fixture {
    /// The file with run `k`'s requests and issue times.
    fn clock(&self, k: usize) -> PathBuf {
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
    fn model_latency_us(&self, k: usize) -> u64 {
        let run = &self.runs[k - 1];
        let path = self.dir.join(format!("oracle-run{k}.json"));
        if run.contains_key("result.read_latency_us_p50") {
            num(run, "result.read_latency_us_p50", &path) as u64
        } else {
            self.floor_us
        }
    }
}

fn fixtures(root: PathBuf) -> Vec<Fixture> {
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
fn requests(f: &Fixture, k: usize) -> Vec<Request> {
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
struct ModelRun {
    requests: usize,
    demand_data_hits: u64,
    demand_data_misses: u64,
    /// `mru_ghost_hits + mfu_ghost_hits`.
    ghost_hits: u64,
    /// `demand_metadata_hits`, `demand_metadata_misses`.
    metadata: (u64, u64),
    /// zfetchstats `hits` and `misses` (prefetch on only).
    zfetch: Option<(u64, u64)>,
}

/// Sublist draws (`sublist_seed` 0, 1, ...) the model's mean is taken over
/// where arc.c's runs are compared as draws of their own.
const DRAWS: u64 = 8;

/// The model on oracle run `k`'s clock, with the device latency that run
/// measured.
fn replay(f: &Fixture, k: usize) -> ModelRun {
    replay_seeded(f, k, 0)
}

/// [`replay`] with the model's draw of eviction sublists `seed`
/// (`sublist_seed`; 0 is the default draw).
fn replay_seeded(f: &Fixture, k: usize, seed: u64) -> ModelRun {
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

#[test]
fn model_matches_the_real_arc_within_stated_tolerances() {
    let all = fixtures(fixture_root());
    // 3 releases x 6 traces x 3 caps x prefetch on/off (data/oracle/README.md).
    assert_eq!(
        all.len(),
        108,
        "fixtures under {}",
        fixture_root().display()
    );
    let (failures, _) = check(
        &all,
        &Tolerances {
            hit: tolerance,
            miss: None,
            ghost: ghost_tolerance,
            metadata_miss: 0.03,
            zfetch: 0.0,
        },
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// How far the model may lie outside the oracle's min–max range on one
/// fixture set.
struct Tolerances {
    /// Points of demand-data hit ratio, per release, trace and prefetch.
    hit: fn(&str, &str, bool) -> f64,
    /// Points of demand-data miss ratio (the reads that went to the disk),
    /// where the set is checked on it.
    miss: Option<fn(&str, &str, bool) -> f64>,
    /// Relative, for the ghost hits, per release and trace.
    ghost: fn(&str, &str) -> Option<f64>,
    /// Relative, for `demand_metadata_misses`.
    metadata_miss: f64,
    /// Relative, for the zfetch hits and misses.
    zfetch: f64,
}

/// The oracle's `key` in each of its runs (scaled by `scale`).
fn run_values<'a>(
    f: &'a Fixture,
    key: &'a str,
    scale: f64,
    path: &'a Path,
) -> impl Iterator<Item = f64> + 'a {
    f.runs.iter().map(move |r| num(r, key, path) * scale)
}

/// The oracle's min–max over its runs of `key` (scaled by `scale`).
fn run_range(f: &Fixture, key: &str, scale: f64, path: &Path) -> (f64, f64) {
    run_values(f, key, scale, path).fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    })
}

/// Replay every fixture through the model; what lies outside the oracle's
/// range by more than the tolerances, and per fixture the model's
/// demand-data hit ratio on each clock it replayed.
fn check(all: &[Fixture], tol: &Tolerances) -> (Vec<String>, Vec<Vec<f64>>) {
    let mut failures = Vec::new();
    let mut replayed = vec![Vec::new(); all.len()];
    // Every run whose clock the fixture kept is replayed on it, and each
    // replay must lie within the oracle's range (widened by the tolerances).
    for (i, f, k) in all
        .iter()
        .enumerate()
        .flat_map(|(i, f)| f.clocks.iter().map(move |&k| (i, f, k)))
    {
        let before = failures.len();
        let m = replay(f, k);
        let path = f.dir.join("oracle-run1.json");
        let n = num(&f.runs[0], "config.requests", &path) as usize;
        assert_eq!(m.requests, n, "{}: request count", f.dir.display());
        let (lo, hi) = run_range(f, "result.demand_data_hits", 1.0 / n as f64, &path);
        let got = m.demand_data_hits as f64 / n as f64;
        replayed[i].push(got);
        let outside_pts = (lo - got).max(got - hi).max(0.0) * 100.0;
        let hit_tol = (tol.hit)(&f.release, &f.trace, f.prefetch);
        if outside_pts > hit_tol {
            failures.push(format!(
                "{} {} cap {} MiB prefetch {}: model {got:.4}, oracle {lo:.4}..{hi:.4} \
                 ({outside_pts:.2} pts outside, tolerance {hit_tol})",
                f.release,
                f.trace,
                f.cap >> 20,
                f.prefetch
            ));
        }
        let own = num(
            &f.runs[k - 1],
            "result.demand_data_hits",
            &f.dir.join(format!("oracle-run{k}.json")),
        ) / n as f64;
        println!(
            "{} {:9} {:3}M pf {:3} run {k}: model {got:.4} oracle {lo:.4}..{hi:.4} \
             (run {k} {own:.4}) outside {outside_pts:.2} pts",
            f.release,
            f.trace,
            f.cap >> 20,
            if f.prefetch { "on" } else { "off" }
        );
        // The demand reads that went to the disk: neither a hit nor an
        // iohit. How a read that was not a miss splits into hits and iohits
        // depends on the device's latency, which the model takes as one
        // number and the oracle's userland device varies from read to read.
        if let Some(miss_tolerance) = tol.miss {
            let (lo, hi) = run_range(f, "result.demand_data_misses", 1.0 / n as f64, &path);
            let got = m.demand_data_misses as f64 / n as f64;
            let outside_pts = (lo - got).max(got - hi).max(0.0) * 100.0;
            let miss_tol = miss_tolerance(&f.release, &f.trace, f.prefetch);
            println!(
                "  miss ratio model {got:.4} oracle {lo:.4}..{hi:.4} outside {outside_pts:.2} pts"
            );
            if outside_pts > miss_tol {
                failures.push(format!(
                    "{} {} cap {} MiB prefetch {}: miss ratio model {got:.4}, oracle \
                     {lo:.4}..{hi:.4} ({outside_pts:.2} pts outside, tolerance {miss_tol})",
                    f.release,
                    f.trace,
                    f.cap >> 20,
                    f.prefetch
                ));
            }
        }
        // Ghost hits (what drives the MRU/MFU adaptation) on the Zipf traces,
        // where both sides have hundreds of them.
        if let Some(ghost_tol) = (tol.ghost)(&f.release, &f.trace) {
            let v: Vec<f64> = f
                .runs
                .iter()
                .map(|r| {
                    num(r, "delta.mru_ghost_hits", &path) + num(r, "delta.mfu_ghost_hits", &path)
                })
                .collect();
            let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let g = m.ghost_hits as f64;
            let outside = ((lo - g) / lo).max((g - hi) / hi).max(0.0);
            println!(
                "  ghost hits model {g} oracle {lo}..{hi} outside {:.1} %",
                outside * 100.0
            );
            if outside > ghost_tol {
                failures.push(format!(
                    "{} {} cap {} MiB prefetch {}: ghost hits model {g}, oracle {lo}..{hi} \
                     ({:.1} % outside, tolerance {:.0} %)",
                    f.release,
                    f.trace,
                    f.cap >> 20,
                    f.prefetch,
                    outside * 100.0,
                    ghost_tol * 100.0
                ));
            }
        }
        // The indirect blocks: every data read holds its L1 (a demand
        // metadata hit through arc_buf_access once the dbuf is cached), the
        // first read of each indirect block misses. With prefetch off the
        // model's counts lie within the oracle's range widened by 0.5 %
        // (hits) and `metadata_miss_tol` (misses, which also count the pool's
        // own metadata reads at import: 3–9 on the one-object traces; 3 %
        // unpaced).
        if !f.prefetch {
            // (2.1.16 counted each arc_buf_access hit twice until the ≤ 2.1
            // path was split: 31,998 against arc.c's 15,999 on `zipf`.)
            for (name, got, tol) in [
                ("hits", m.metadata.0, 0.005),
                ("misses", m.metadata.1, tol.metadata_miss),
            ] {
                let key = format!("delta.demand_metadata_{name}");
                let (lo, hi) = run_range(f, &key, 1.0, &path);
                let g = got as f64;
                if g < lo * (1.0 - tol) - 1.0 || g > hi * (1.0 + tol) + 1.0 {
                    failures.push(format!(
                        "{} {} cap {} MiB: demand_metadata_{name} model {got}, oracle {lo}..{hi}",
                        f.release,
                        f.trace,
                        f.cap >> 20
                    ));
                }
            }
        }
        // The prefetcher's stream detection sees the same reads on both
        // sides: the model's zfetch hits and misses lie within the oracle's
        // range (the small files trace too, now that each object is a file),
        // widened by `tol.zfetch`.
        if let Some((zh, zm)) = m.zfetch {
            for (name, got) in [("hits", zh), ("misses", zm)] {
                let key = format!("delta.zfetch.{name}");
                let v: Vec<u64> = f.runs.iter().map(|r| num(r, &key, &path) as u64).collect();
                let (lo, hi) = (*v.iter().min().unwrap(), *v.iter().max().unwrap());
                let (lo_ok, hi_ok) = (
                    (lo as f64 * (1.0 - tol.zfetch)).floor() as u64,
                    (hi as f64 * (1.0 + tol.zfetch)).ceil() as u64,
                );
                if !(lo_ok..=hi_ok).contains(&got) {
                    failures.push(format!(
                        "{} {} cap {} MiB: zfetch {name} model {got}, oracle {lo}..{hi}",
                        f.release,
                        f.trace,
                        f.cap >> 20
                    ));
                }
            }
        }
        if f.clocks.len() > 1 {
            for msg in &mut failures[before..] {
                msg.push_str(&format!(" [on run {k}'s clock]"));
            }
        }
    }
    (failures, replayed)
}

#[test]
fn model_matches_the_paced_arc_within_stated_tolerances() {
    let all = fixtures(paced_root());
    // 2 releases x 6 traces x 3 caps x prefetch on/off
    // (data/oracle-paced/README.md).
    assert_eq!(all.len(), 72, "fixtures under {}", paced_root().display());
    // Metadata misses: paced, arc.c evicts some of the small files' L1
    // blocks at 96 MiB and reads them again (796–800 against the model's
    // 727, 8.7 %), which the unpaced runs, over in about a second, did not.
    let (failures, _) = check(
        &all,
        &Tolerances {
            hit: paced_tolerance,
            miss: Some(paced_miss_tolerance),
            ghost: paced_ghost_tolerance,
            metadata_miss: 0.09,
            zfetch: 0.01,
        },
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The second paced set (`data/oracle-paced-2/`): the same matrix measured
/// again with every run's clock kept, on a quieter machine. Each run is
/// replayed on its own clock with the read latency it measured, and each
/// replay must lie within arc.c's range widened by the tolerances; then,
/// issue 11's measure, the mean absolute error of the demand-data hit ratio
/// per trace and prefetch setting (the model's mean over the runs' clocks
/// against arc.c's mean over its runs, over both releases and the three
/// caps) must stay within [`paced2_mae_bound`] (the goal is 0.002).
///
/// For the MAE the model replays each clock with [`DRAWS`] sublist draws
/// and takes their mean: every arc.c run imports the pool afresh, with a new
/// random `spa_load_guid` that `buf_hash` mixes into each header's sublist,
/// so arc.c's three runs are three draws of which blocks share a sublist,
/// and the model's seed 0 alone is one draw (docs/oracle.md, "A new draw of
/// sublists at every import").
#[test]
fn model_matches_the_second_paced_set_within_stated_tolerances() {
    let all = fixtures(paced2_root());
    // 2 releases x 6 traces x 3 caps x prefetch on/off, 3 runs each with
    // its own clock (data/oracle-paced-2/README.md).
    assert_eq!(all.len(), 72, "fixtures under {}", paced2_root().display());
    for f in &all {
        assert_eq!(
            f.clocks,
            [1, 2, 3],
            "{}: every run's clock",
            f.dir.display()
        );
    }
    let (failures, replayed) = check(
        &all,
        &Tolerances {
            hit: paced2_tolerance,
            miss: Some(paced2_miss_tolerance),
            ghost: paced2_ghost_tolerance,
            metadata_miss: 0.09,
            zfetch: 0.01,
        },
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // (trace, prefetch) -> absolute errors of the configurations.
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let mut errors: BTreeMap<(String, bool), Vec<f64>> = BTreeMap::new();
    for (f, seed0) in all.iter().zip(&replayed) {
        assert_eq!(seed0.len(), 3, "{}: replays", f.dir.display());
        let path = f.dir.join("oracle-run1.json");
        let n = num(&f.runs[0], "config.requests", &path);
        let oracle: Vec<f64> = run_values(f, "result.demand_data_hits", 1.0 / n, &path).collect();
        // Seed 0 is `check`'s replay; seeds 1.. are further draws.
        let model: Vec<f64> = f
            .clocks
            .iter()
            .zip(seed0)
            .flat_map(|(&k, &first)| {
                std::iter::once(first).chain(
                    (1..DRAWS).map(move |s| replay_seeded(f, k, s).demand_data_hits as f64 / n),
                )
            })
            .collect();
        errors
            .entry((f.trace.clone(), f.prefetch))
            .or_default()
            .push((mean(&model) - mean(&oracle)).abs());
    }
    let mut over = Vec::new();
    for ((trace, prefetch), e) in &errors {
        let mae = mean(e);
        let bound = paced2_mae_bound(trace, *prefetch);
        println!("{trace:9} prefetch {prefetch:5}: MAE {mae:.5} (bound {bound})");
        if mae > bound {
            over.push(format!(
                "{trace} prefetch {prefetch}: MAE {mae:.4} over {bound}"
            ));
        }
    }
    assert!(over.is_empty(), "{}", over.join("\n"));
}

/// In arc.c which blocks share a sublist (`buf_hash` of the pool's
/// `spa_load_guid`, new at every import, and the block's DVA and birth) and
/// the sublist an eviction burst starts from (`multilist_get_random_index`)
/// are random draws, and what of a loop larger than the cache, or of
/// streams that just fill it, survives a pass depends on those draws:
/// arc.c's three paced runs of `loop` and `streams` at 192 MiB without
/// prefetch span 2.4–5.1 points of demand-data hit ratio (the fixtures'
/// `oracle-run*.json`; nothing else varies there). The model's draws with
/// `sublist_seed` 0–7 must spread too, by at least half arc.c's span, over a
/// range that meets arc.c's (seed 0, the default draw, is what
/// `model_matches_the_paced_arc_within_stated_tolerances` checks).
#[test]
fn the_sublist_draws_spread_as_the_real_arc_runs_do() {
    let all = fixtures(paced_root());
    let chosen: Vec<&Fixture> = all
        .iter()
        .filter(|f| {
            (f.trace == "loop" || f.trace == "streams") && f.cap == 192 << 20 && !f.prefetch
        })
        .collect();
    // 2 releases x loop, streams.
    assert_eq!(chosen.len(), 4, "fixtures under {}", paced_root().display());
    for f in chosen {
        let path = f.dir.join("oracle-run1.json");
        let n = num(&f.runs[0], "config.requests", &path);
        let (lo, hi) = run_range(f, "result.demand_data_hits", 1.0 / n, &path);
        let draws: Vec<f64> = (0..8)
            .map(|k| replay_seeded(f, 1, k).demand_data_hits as f64 / n)
            .collect();
        let (mlo, mhi) = draws
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| {
                (a.min(v), b.max(v))
            });
        println!(
            "{} {} 192M off: oracle {lo:.4}..{hi:.4}, model draws {mlo:.4}..{mhi:.4}",
            f.release, f.trace
        );
        assert!(
            mhi - mlo >= 0.5 * (hi - lo),
            "{}: the model's draws span {mlo:.4}..{mhi:.4}, arc.c's runs {lo:.4}..{hi:.4}",
            f.dir.display()
        );
        assert!(
            mlo <= hi && mhi >= lo,
            "{}: the model's draws {mlo:.4}..{mhi:.4} miss arc.c's runs {lo:.4}..{hi:.4}",
            f.dir.display()
        );
    }
}

/// Twenty arc.c runs of the rows where three could not tell the model's
/// error from arc.c's own spread (`data/oracle-20-runs/`). The model replays
/// every run's clock with [`DRAWS`] sublist draws; the mean of those
/// replays against arc.c's mean over its twenty runs, in standard errors of
/// arc.c's mean, must stay within [`twenty_hit_bound`] for the demand-data
/// hit ratio, and within 2 for the demand-data miss ratio (reads that went
/// to the disk). With seed 0 alone (one draw of which blocks share a
/// sublist, what the model compared before) `loop` and `streams` at 192 MiB
/// were 3.3–3.7 standard errors low, and with 8 draws of where eviction
/// bursts start but one of the sublists 2.6–3.3 (docs/oracle.md).
#[test]
fn model_meets_twenty_arc_runs_within_their_standard_error() {
    let all = fixtures(twenty_root());
    // 2 releases x (loop, streams at 192 MiB off; small at 128 MiB on).
    assert_eq!(all.len(), 6, "fixtures under {}", twenty_root().display());
    let mean_se = |v: &[f64]| {
        let n = v.len() as f64;
        let m = v.iter().sum::<f64>() / n;
        let var = v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0);
        (m, (var / n).sqrt())
    };
    let mut over = Vec::new();
    for f in &all {
        assert_eq!(
            f.clocks,
            (1..=20).collect::<Vec<_>>(),
            "{}: twenty runs, every run's clock",
            f.dir.display()
        );
        let path = f.dir.join("oracle-run1.json");
        let n = num(&f.runs[0], "config.requests", &path);
        let replays: Vec<ModelRun> = f
            .clocks
            .iter()
            .flat_map(|&k| (0..DRAWS).map(move |s| replay_seeded(f, k, s)))
            .collect();
        for (what, key, bound) in [
            ("hit", "result.demand_data_hits", twenty_hit_bound(&f.trace)),
            ("miss", "result.demand_data_misses", 2.0),
        ] {
            let oracle: Vec<f64> = run_values(f, key, 1.0 / n, &path).collect();
            let (om, se) = mean_se(&oracle);
            let model: Vec<f64> = replays
                .iter()
                .map(|m| {
                    let v = if what == "hit" {
                        m.demand_data_hits
                    } else {
                        m.demand_data_misses
                    };
                    v as f64 / n
                })
                .collect();
            let (mm, _) = mean_se(&model);
            // A ratio that never varies between runs must be met to within
            // one request.
            let z = (mm - om) / se.max(1.0 / n);
            println!(
                "{} {:7} {what:4} ratio: arc.c {om:.4} (s.e. {se:.4}), model {mm:.4}: {z:+.2} s.e. \
                 (bound {bound})",
                f.release, f.trace
            );
            if z.abs() > bound {
                over.push(format!(
                    "{} {} {what} ratio: model {mm:.4}, arc.c {om:.4} +- {se:.4}: {z:+.2} s.e., \
                     bound {bound}",
                    f.release, f.trace
                ));
            }
        }
    }
    assert!(over.is_empty(), "{}", over.join("\n"));
}
