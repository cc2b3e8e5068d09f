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

use std::collections::BTreeMap;

#[path = "oracle/fixture.rs"]
mod fixture;
use fixture::{
    DRAWS, Fixture, ModelRun, draw_seed, fixture_root, fixtures, mean, mean_se, num, paced_root,
    paced2_root, replay, replay_seeded, run_range, run_values, twenty_root,
};
#[path = "oracle/tolerances.rs"]
mod tolerances;
use tolerances::{
    ghost_tolerance, paced_ghost_tolerance, paced_miss_tolerance, paced_tolerance,
    paced2_ghost_tolerance, paced2_mae_bound, paced2_miss_tolerance, paced2_tolerance, tolerance,
    twenty_hit_bound,
};

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
    let mut errors: BTreeMap<(String, bool), Vec<f64>> = BTreeMap::new();
    for (f, seed0) in all.iter().zip(&replayed) {
        assert_eq!(seed0.len(), 3, "{}: replays", f.dir.display());
        let path = f.dir.join("oracle-run1.json");
        let n = num(&f.runs[0], "config.requests", &path);
        let oracle: Vec<f64> = run_values(f, "result.demand_data_hits", 1.0 / n, &path).collect();
        // `check` replayed every clock with seed 0, which is run 1's first
        // draw; every other draw is a seed of its run's own (`draw_seed`).
        let model: Vec<f64> = f
            .clocks
            .iter()
            .zip(seed0)
            .flat_map(|(&k, &first)| {
                (0..DRAWS).map(move |s| match draw_seed(k, s) {
                    0 => first,
                    seed => replay_seeded(f, k, seed).demand_data_hits as f64 / n,
                })
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
            .flat_map(|&k| (0..DRAWS).map(move |s| replay_seeded(f, k, draw_seed(k, s))))
            .collect();
        let hits: fn(&ModelRun) -> u64 = |m| m.demand_data_hits;
        let misses: fn(&ModelRun) -> u64 = |m| m.demand_data_misses;
        for (what, key, of, bound) in [
            (
                "hit",
                "result.demand_data_hits",
                hits,
                twenty_hit_bound(&f.trace),
            ),
            ("miss", "result.demand_data_misses", misses, 2.0),
        ] {
            let oracle: Vec<f64> = run_values(f, key, 1.0 / n, &path).collect();
            let (om, se) = mean_se(&oracle);
            let model: Vec<f64> = replays.iter().map(|m| of(m) as f64 / n).collect();
            let mm = mean(&model);
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
