//! The tolerances of the oracle test: how far the model may lie outside
//! arc.c's own run-to-run range, per release, trace and prefetch setting,
//! with the gap each was set from and its history.

/// Allowed distance (in points of demand-data hit ratio) of the model from
/// the oracle's min–max range, per (trace, prefetch), over 2.3.9 and 2.2.11
/// and the three caps (other releases: [`TOLERANCE_PTS_BY_RELEASE`]). Each is today's largest gap (docs/oracle.md, replayed on
/// run 1's clock as here) rounded up a little; issue 11's goal is an MAE of
/// 0.2 points everywhere, so these are meant to shrink.
const TOLERANCE_PTS: &[(&str, bool, f64)] = &[
    // Since the model has the DMU's indirect blocks (each read holds its L1)
    // and arc.c's multilists (4 sublists, eviction from a random sublist's
    // tail in batches of 10), the largest gaps are as follows (they were
    // 0.46/0.69, 0.54/0.31, 0.03/8.35, 37.11/9.65, 3.33/0.99 and 3.67/12.37
    // for the traces below, off/on, with one LRU per list, no indirect
    // blocks and the small files folded into one).
    // Since the overflow check reads the size's aggsum lower bound, 2-4 MiB
    // behind the size (the evict thread wakes that much later, as in arc.c),
    // the gaps moved as noted (before: after the last change without it).
    // Since the evict thread's burst lands 2 ms after its wake-up (the
    // readers go on meanwhile, as beside arc.c's thread), they moved again
    // as noted ("delay: x → y").
    // Zipf: 0.41 off, 0.76 on (2.3.9 at 96 and 128 MiB; were 0.61 and 0.94:
    // the model's random sublist choice is per evicted block, arc.c's evict
    // thread takes bursts). Delay: 0.41 → 0.50 off, 0.76 → 0.71 on.
    // Since the harness's held dnodes are given to the model (`--pinned`,
    // 60 KB for the one big object, 3.9 MB for the small files), the gaps
    // moved as noted ("held: x → y").
    // Held: 0.50 → 0.52 off, 0.71 → 0.66 on.
    // Since the sublist draws also hash how much was evicted so far (they
    // repeated themselves under a steady stream, docs/oracle.md), the gaps
    // moved as noted ("draws: x → y").
    // Draws: 0.52 → 0.54 off, 0.66 → 0.81 on (2.3.9, 128 MiB).
    // Since a `future` access prefetches nothing before post-2.4 master:
    // 0.76 on (2.3.9, 128 MiB: model 0.792, arc.c 0.800–0.803; unpaced the
    // race of the oracle's prefetch reads decides these rows).
    ("zipf", false, 0.55),
    ("zipf", true, 0.85),
    // Zipf + scans: 0.28 off (2.3.9, 96 MiB; was 0.21), 0.46 on (2.2.11,
    // 128 MiB; was 0.39). Delay: 0.28 → 0.16 off, 0.46 → 0.56 on.
    // Held: 0.16 → 0.20 off, 0.56 → 0.23 on.
    // Draws: 0.20 → 0.06 off, 0.23 → 0.31 on (2.2.11, 128 MiB).
    // Future: 0.29 on (2.2.11, 128 MiB).
    ("zipf_scan", false, 0.25),
    ("zipf_scan", true, 0.35),
    // Sequential passes: without prefetch at 192 MiB the sublists kept
    // 0.9 % of the pass (arc.c 0–0.8 %, 0.65 outside; delay: 0.03); with prefetch the model
    // serves ~99.9 % of reads from prefetched buffers while the real ARC,
    // whose prefetch I/O competes for the loaded machine, reaches 73-99 %
    // (8.35 points, 2.2.11).
    ("seq", false, 0.1),
    ("seq", true, 8.5),
    // A loop of 1.1 x cap: at 192 MiB arc.c keeps 34–39 % of the loop, the
    // model 23–27 % (was 21–23 % before the aggsum lag, 0 with strict LRU,
    // which never hits a loop larger than the cache); 13.85 points outside
    // (was 15.87). What is left is the evict thread running beside the
    // reads: arc.c's takes ~2 ms to evict a burst while the replay goes on
    // reading the very blocks at the MRU tail it is evicting (paced to 500
    // reads/s, arc.c keeps 28.7 %, the model 30.6 %). Delay: the model's
    // burst lands 2 ms after the wake-up, and the reads meanwhile hit the
    // tail it would have evicted: the model keeps 32 % (2.3.9), 4.82 points
    // outside (was 13.85). With prefetch the model is optimistic (9.90
    // points, 2.2.11 at 128 MiB).
    // Held: 4.82 → 4.50 off (2.2.11; 2.3.9 at 192 MiB 4.82 → 2.81).
    // Draws: 4.50 → 4.30 off (2.3.9, 192 MiB).
    ("loop", false, 4.35),
    ("loop", true, 10.0),
    // 8 interleaved streams of one object: 0.72 off (2.3.9, 96 MiB: the
    // model keeps 0.7 % of the streams' blocks, arc.c none; was 0.26); on,
    // 10.10 at 192 MiB (2.2.11: the model keeps 26 % of the streams' blocks,
    // arc.c 14–15 %; was 11.34). Delay: off 1.81 (2.2.11, 192 MiB: the model
    // now keeps 1.5 %, arc.c 3.3–5.5 %); on 0.68 (2.2.11, 96 MiB; was 10.10).
    // Held: on 0.68 → 0.95 (2.2.11, 96 MiB: model 0.130, arc.c 0.120–0.121).
    // Draws: off 1.81 → 2.04 (2.2.11, 192 MiB: the model keeps 1.3 %, arc.c
    // 3.3–5.5 %), on 0.95 → 0.64 (2.2.11, 96 MiB).
    ("streams", false, 2.1),
    ("streams", true, 0.7),
    // 2,048 small files, each an object of 8 blocks with its own L1:
    // 0.55 off; on, the model was optimistic by up to 7.54 (2.3.9, 96 MiB):
    // every prefetch through a file's L1 re-inserted it into the dbuf cache
    // and trimmed the cache to c/32, where arc.c finds the L1 still held by
    // the demand read in progress (no re-insert, no notify), so its dbuf
    // cache grows between the evict thread's 1 s wake-ups, as without
    // prefetch, and its uncompressed L1s crowd out data. Since the model
    // holds the L1 for the read's life: 3.76 (2.2.11, 128 MiB; 2.3.9 at
    // 96 MiB 0.11). Held: 3.76 → 3.48 (2.2.11, 128 MiB; 2.3.9 128 MiB 2.09
    // → 0.86, 96 MiB 0.11 → 1.65).
    ("small", false, 0.6),
    ("small", true, 3.5),
];

/// Per-release tolerances (points of demand-data hit ratio outside the
/// oracle's min–max), used instead of [`TOLERANCE_PTS`] for the releases
/// listed here. Each is that release's largest gap per (trace, prefetch)
/// over the three caps, replayed on run 1's clock as here, rounded up a
/// little (docs/oracle.md, "2.1.x").
const TOLERANCE_PTS_BY_RELEASE: &[(&str, &str, bool, f64)] = &[
    // 2.1.16 (arc_p split, shift-based overflow, no iohits). With prefetch,
    // a demand read that finds the prefetch of its block still in flight is
    // counted by 2.1's arc_read as neither hit nor miss (the dbuf's NOWAIT
    // read joins the I/O; no arc_access either): arc.c left up to 2,972 of
    // 16,000 reads uncounted (`small`, 96 MiB), 9–505 on the one-object
    // traces. The model counted them as hits until it did the same (`small`
    // with prefetch: 16.05 → 9.21 points outside the oracle's range).
    // Zipf: 0.22 off, 0.47 on (96 MiB).
    ("2.1.16", "zipf", false, 0.25),
    ("2.1.16", "zipf", true, 0.5),
    // Zipf + scans: 3.84 off (128 MiB), 12.77 on (96 MiB): the model keeps
    // the MFU (its MFU ghost hits are 84–398, arc.c's 623–2,202) and wins.
    // (4.28 off at 128 MiB since the aggsum lag; 4.68 since the evict
    // thread's delay.)
    // (4.59 since the held dnodes are given.)
    ("2.1.16", "zipf_scan", false, 4.6),
    ("2.1.16", "zipf_scan", true, 13.0),
    // Sequential passes: 2.46 off (128 MiB: the model keeps 2.5 % of a pass,
    // arc.c none); 14.30 on (128 MiB; model 0.999, arc.c 0.71–0.91): arc.c's
    // prefetch runs further ahead (its reads wait for the loaded machine), so
    // a demand hit comes more than ARC_MINTIME after the prefetch and ≤ 2.1
    // promotes the buffer to the MFU (78 MiB MFU at the end vs the model's
    // 1 MiB), MFU ghost hits push arc_p to its floor in most runs, and
    // prefetched blocks are evicted before they are read (9,700 prefetch
    // reads for 8,000 requests, the model 8,056).
    ("2.1.16", "seq", false, 2.5),
    ("2.1.16", "seq", true, 14.5),
    // Loop of 1.1 x cap: 45.05 off (96 MiB: model 0.89, arc.c 0.37–0.44;
    // 14.24 before the aggsum lag, model 0.23). A knife edge: at the end of
    // the first pass the size is ~2.9 MB past 2.1's wake point (c + 8 MiB),
    // and the model's lower bound, 3.3 MB behind, never reaches it, so the
    // model evicts nothing and hits the whole loop; arc.c evicts. Its
    // 0.95 MB of pool metadata held from the import (which the model does
    // not start with) is not enough to explain it; open (docs/oracle.md).
    // 19.95 on (96 MiB: model 0.998, arc.c 0.71–0.80).
    ("2.1.16", "loop", false, 45.5),
    ("2.1.16", "loop", true, 20.0),
    // 8 interleaved streams: 4.83 off (96 MiB; 2.84 at 192 MiB since the
    // evict thread's delay; 3.88 since the sublist draws hash the evicted
    // bytes), 10.38 on (128 MiB); the model is optimistic everywhere.
    ("2.1.16", "streams", false, 3.9),
    ("2.1.16", "streams", true, 10.5),
    // 2,048 small files: 6.21 off (96 MiB: model 0.549, arc.c 0.486),
    // 9.21 on (96 MiB); 5.96 on (128 MiB) since the demand read holds its
    // L1 while the prefetcher runs. With the harness's 3.9 MB of held
    // dnodes: 5.43 off (96 MiB), 5.52 on (128 MiB).
    ("2.1.16", "small", false, 5.5),
    ("2.1.16", "small", true, 5.6),
];

/// Allowed relative distance of the model's ghost hits (MRU + MFU) from the
/// oracle's min–max range, on the traces where both sides have hundreds of
/// them, per release (`None`: the releases without an entry of their own).
/// Today's largest gaps on 2.3.9 and 2.2.11: 16.6 % on `zipf` (2.3.9 at
/// 128 MiB with prefetch: the model has more), 19.2 % on `zipf_scan`
/// (fewer; was 25.2 %).
const GHOST_TOLERANCE: &[(Option<&str>, &str, f64)] = &[
    (None, "zipf", 0.17),
    (None, "zipf_scan", 0.2),
    // 2.1.16: 6.2 % on `zipf` (192 MiB without prefetch: the model has
    // fewer; 4.3 % before the aggsum lag, 96 MiB with prefetch);
    // 68.2 % on `zipf_scan` (96 MiB with prefetch: 747 against 2,350–2,526,
    // nearly all of the difference MFU ghost hits).
    (Some("2.1.16"), "zipf", 0.07),
    (Some("2.1.16"), "zipf_scan", 0.7),
];

pub(crate) fn tolerance(release: &str, trace: &str, prefetch: bool) -> f64 {
    if let Some(&(_, _, _, tol)) = TOLERANCE_PTS_BY_RELEASE
        .iter()
        .find(|(r, t, p, _)| *r == release && *t == trace && *p == prefetch)
    {
        return tol;
    }
    lookup(TOLERANCE_PTS, trace, prefetch)
}

/// The entry of `table` for (trace, prefetch); every trace of the matrix
/// has one.
fn lookup<T: Copy>(table: &[(&str, bool, T)], trace: &str, prefetch: bool) -> T {
    table
        .iter()
        .find(|(t, p, _)| *t == trace && *p == prefetch)
        .map(|&(_, _, tol)| tol)
        .unwrap_or_else(|| panic!("no tolerance for trace {trace} prefetch {prefetch}"))
}

pub(crate) fn ghost_tolerance(release: &str, trace: &str) -> Option<f64> {
    let own = GHOST_TOLERANCE
        .iter()
        .find(|(r, t, _)| *r == Some(release) && *t == trace);
    let listed = GHOST_TOLERANCE.iter().any(|(r, _, _)| *r == Some(release));
    own.or_else(|| {
        (!listed).then(|| {
            GHOST_TOLERANCE
                .iter()
                .find(|(r, t, _)| r.is_none() && *t == trace)
        })?
    })
    .map(|g| g.2)
}

/// Allowed distance of the model from the paced oracle's min–max range, per
/// (trace, prefetch), over 2.3.9 and 2.2.11 and the three caps, in points of
/// (hit ratio, miss ratio) of demand data: each is today's largest gap on
/// run 1's clock (docs/oracle.md, "The oracle's device"), rounded up a
/// little. The miss ratio counts the demand reads that went to the disk,
/// neither hits nor iohits: without prefetch every read is a hit or a miss,
/// so both gaps are the same; with prefetch the miss ratio leaves out how the
/// rest split into hits and iohits, which depends on the device latency.
///
/// The paced set was re-measured on 2026-12-03 with a floor under the
/// oracle's device latency (`replay -L 100`): without it a userland read
/// could complete before the DMU looked, arc.c's prefetcher took the demand
/// miss for a hit and did not start (241 of 1,642 misses on `small` at
/// 192 MiB). The model's device latency is the median read latency the
/// harness measured in run 1 (350–1,100 µs). Before the floor, the largest
/// hit-ratio gaps were 0.12/0.41 (zipf off/on), 0.11/0.26 (zipf_scan),
/// 0.12/0.40 (seq), 6.81/0.16 (loop), 1.81/0.46 (streams), 0.37/1.89
/// (small).
const PACED_TOLERANCE_PTS: &[(&str, bool, (f64, f64))] = &[
    // Zipf: 0.10 off, 0.41 on (both 2.2.11, 192 MiB: the model hits more;
    // misses the same). Since a `future` access prefetches nothing before
    // post-2.4 master (the model issued 618 prefetch reads on these rows,
    // arc.c 503–504): 0.05 on (2.3.9, 128 MiB), misses 0.05.
    ("zipf", false, (0.15, 0.15)),
    ("zipf", true, (0.1, 0.1)),
    // Zipf + scans: 0.14 off, 0.19 on (2.3.9, 192 MiB). Future: 0.28 on
    // (2.2.11, 96 MiB: model 0.572, arc.c 0.566–0.569), misses 0.26.
    ("zipf_scan", false, (0.15, 0.15)),
    ("zipf_scan", true, (0.3, 0.3)),
    // Sequential passes: 0 off, 0.02 on; misses 0 and 0.
    ("seq", false, (0.05, 0.05)),
    ("seq", true, (0.05, 0.05)),
    // A loop of 1.1 x cap: 0 off (was 6.81 at 192 MiB before the floor:
    // the reads of misses now take the device's time, as the model's, and
    // what of the loop survives the evict thread's bursts agrees). With
    // prefetch 3.95 (2.2.11, 192 MiB: model 0.970, arc.c 0.817–0.930) —
    // all of it how the reads that were not misses split into hits and
    // iohits: arc.c's device latency varied from read to read (run 1's
    // median 3,638 µs, the runs' 709–3,638), its prefetch distance grew in
    // some runs (`zs_more`, 9,965–10,552 prefetch reads); misses 0.11
    // (2.2.11, 128 MiB: model 0.03 %, arc.c 0.14–0.20 %).
    ("loop", false, (0.05, 0.05)),
    ("loop", true, (4.0, 0.15)),
    // 8 interleaved streams: 0.63 off (2.2.11, 192 MiB: the model keeps
    // 3.2 % of the streams' blocks, arc.c 0.2–2.6 %), 1.26 on (2.2.11,
    // 192 MiB: the model hits less), misses 1.32.
    ("streams", false, (0.7, 0.7)),
    ("streams", true, (1.3, 1.35)),
    // 2,048 small files: 0.38 off (2.3.9, 96 MiB: arc.c evicts ~70 of the
    // files' L1 blocks and reads them again, 797–806 metadata misses
    // against the model's 727); 3.67 on (2.2.11, 128 MiB: model 0.774,
    // arc.c 0.810–0.812), the iohit split again (run 1's median latency
    // 716 µs, the other configurations' 300–600): misses 0.10 (2.2.11,
    // 96 MiB).
    ("small", false, (0.4, 0.4)),
    ("small", true, (3.7, 0.15)),
];

pub(crate) fn paced_tolerance(_release: &str, trace: &str, prefetch: bool) -> f64 {
    lookup(PACED_TOLERANCE_PTS, trace, prefetch).0
}

pub(crate) fn paced_miss_tolerance(_release: &str, trace: &str, prefetch: bool) -> f64 {
    lookup(PACED_TOLERANCE_PTS, trace, prefetch).1
}

/// Relative ghost-hit tolerance on the paced fixtures (the Zipf traces):
/// the largest gap is 9.8 % (`zipf` at 192 MiB without prefetch, 2.2.11);
/// before the device floor it was 12.4 % (the same row).
pub(crate) fn paced_ghost_tolerance(_release: &str, trace: &str) -> Option<f64> {
    match trace {
        "zipf" | "zipf_scan" => Some(0.1),
        _ => None,
    }
}

/// The second paced set (`data/oracle-paced-2/`), per (trace, prefetch):
/// the allowed distance of the model from arc.c's min–max range in points
/// of demand-data hit ratio and miss ratio, over 2.3.9 and 2.2.11, the three
/// caps and the model's replay of each run's clock (with that run's median
/// read latency); and the bound on the MAE of the hit ratio over those
/// configurations (issue 11's measure, whose goal is 0.002 everywhere), the
/// model's mean over 8 sublist draws per clock, each run's its own (`draw_seed`,
/// since 2026-12-05; 8 draws shared by the three clocks before). Each distance is the value
/// when the set was added (2026-12-04, docs/oracle.md "Every run's clock"),
/// each MAE bound the value once the model drew its headers' sublists afresh
/// per seed (docs/oracle.md "A new draw of sublists at every import"),
/// rounded up a little; the traces still above the goal are `loop` without
/// prefetch and `streams` (what of them survives a pass turns on the sublist
/// draws: three arc.c runs are three draws, and their mean is itself 0.3–0.9
/// points uncertain there) and `small` with prefetch (the hit/iohit split).
const PACED2_TOLERANCE_PTS: &[(&str, bool, (f64, f64, f64))] = &[
    // Zipf: 0.23 off (2.3.9, 96 MiB), 0.17 on (2.2.11, 128 MiB).
    ("zipf", false, (0.25, 0.25, 0.0015)),
    ("zipf", true, (0.2, 0.2, 0.0011)),
    // Zipf + scans: 0.36 off (2.3.9, 96 MiB, run 2), 0.11 on.
    ("zipf_scan", false, (0.4, 0.4, 0.0015)),
    ("zipf_scan", true, (0.15, 0.15, 0.001)),
    // Sequential passes: 0 off, 0.04 on; MAE off 0.00048 (one draw in 8
    // keeps 1.5 % of a pass at 192 MiB, arc.c 0–0.7 %).
    ("seq", false, (0.05, 0.05, 0.0006)),
    ("seq", true, (0.05, 0.05, 0.0005)),
    // A loop of 1.1 x cap: 2.79 off (2.2.11, 192 MiB, run 3's clock: what
    // of the loop survives a pass turns on the sublist draws, arc.c
    // 0.260–0.276, the model 0.284–0.304); on 0.16 (2.2.11, 128 MiB: the
    // model 0.9997, arc.c 0.9976–0.9981), misses 0.10. MAE off 0.0031 with
    // 8 draws shared by the clocks, 0.0036 with 24 of their own: the model's
    // mean moved toward the twenty runs' (within 0.16 standard errors of
    // both releases' there) and away from these three, whose own mean is
    // uncertain by 0.9 points at 192 MiB; bound 0.004.
    ("loop", false, (2.85, 2.85, 0.004)),
    ("loop", true, (0.2, 0.15, 0.001)),
    // 8 interleaved streams: 2.66 off (2.3.9, 192 MiB, run 2's clock: the
    // model keeps 1.7–2.0 % of the streams' blocks, arc.c 4.3–7.6 %); on
    // 0.33, misses 0.42 (2.2.11, 192 MiB).
    ("streams", false, (2.7, 2.7, 0.0065)),
    ("streams", true, (0.4, 0.45, 0.004)),
    // 2,048 small files: 0.41 off (2.2.11, 96 MiB: the L1 re-reads, as in
    // the first set); on 1.29 (2.2.11, 128 MiB: the model 0.847, arc.c
    // 0.860–0.861, how the reads that were not misses split into hits and
    // iohits), misses 0.10.
    ("small", false, (0.45, 0.45, 0.0015)),
    ("small", true, (1.35, 0.15, 0.0085)),
];

pub(crate) fn paced2_tolerance(_release: &str, trace: &str, prefetch: bool) -> f64 {
    lookup(PACED2_TOLERANCE_PTS, trace, prefetch).0
}

pub(crate) fn paced2_miss_tolerance(_release: &str, trace: &str, prefetch: bool) -> f64 {
    lookup(PACED2_TOLERANCE_PTS, trace, prefetch).1
}

pub(crate) fn paced2_mae_bound(trace: &str, prefetch: bool) -> f64 {
    lookup(PACED2_TOLERANCE_PTS, trace, prefetch).2
}

/// Relative ghost-hit tolerance on the second paced set (the Zipf traces):
/// 12.9 % (2.3.9 `zipf` at 192 MiB without prefetch: the model's 148 ghost
/// hits against arc.c's 170–174; the first set's 10 % held there by its
/// runs' wider range).
pub(crate) fn paced2_ghost_tolerance(_release: &str, trace: &str) -> Option<f64> {
    match trace {
        "zipf" | "zipf_scan" => Some(0.15),
        _ => None,
    }
}

/// How far, in standard errors of arc.c's mean over twenty runs, the model's
/// mean demand-data hit ratio (every run's clock, 8 sublist draws) may lie
/// from it (`data/oracle-20-runs/`). `loop` and `streams` (192 MiB, no
/// prefetch): at most 0.8 when the set was added (2.2.11 `loop`, −0.45
/// points), and with draws of each run's own (2026-12-05) at most 1.37
/// (2.2.11 `streams`; `loop` +0.16 and −0.09), bound 1.5. `small` with prefetch: the model is 0.57 and 1.16
/// points low (2.3.9, 2.2.11; −3.5 and −5.5 standard errors) while its miss
/// ratio is exact: a bias in how reads that were not misses split into hits
/// and iohits (docs/oracle.md), bound 6.
pub(crate) fn twenty_hit_bound(trace: &str) -> f64 {
    match trace {
        "small" => 6.0,
        _ => 1.5,
    }
}
