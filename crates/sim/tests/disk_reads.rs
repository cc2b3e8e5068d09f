//! Issue 11, gap 7: the prefetcher's reads load the disk too. A pure
//! sequential scan, with the numbers derived from the OpenZFS source rather
//! than from the model's output:
//!
//! * arc.c (`arc_read`, 2.2/2.3): a read that misses the ARC, demand or
//!   prefetch, issues one `zio_read` of the block; a hit issues none, and a
//!   read of a block already in flight (an `iohit`) waits for that read.
//!   So on a cold cache large enough to keep the scan, each block is read
//!   from disk exactly once, by whichever read came first.
//! * dmu_zfetch.c (2.3, 64-bit): `zfetch_max_distance` = 64 MiB, so the
//!   prefetcher reads at most 64 MiB ÷ 128 KiB = 512 data blocks past the
//!   last block demanded; `zfetch_max_idistance` = 128 MiB of L1 indirect
//!   blocks, each covering 128 KiB ÷ 128 B per block pointer = 1024 data
//!   blocks.
//! * vdev_queue.c: `zfs_vdev_aggregation_limit` = 1 MiB (rotating),
//!   `zfs_vdev_aggregation_limit_non_rotating` = 128 KiB: N contiguous
//!   128 KiB reads merge into ⌈N ÷ 8⌉ I/Os on a disk, none merge on flash.

use arclab_arc::Request;
use arclab_arc::model::{ArcConfig, Behaviour};
use arclab_sim::model::{ZfsArc, ZfsSpec};
use arclab_sim::scenario::Scenario;
use arclab_sim::whatif::device::{Device, merged_ios};
use arclab_sim::whatif::plan::{self, PolicyName};
use arclab_sim::whatif::{self, RunResult};

/// 1 GiB of 128 KiB blocks.
const N: u64 = 8192;
const BLOCK: u32 = 128 << 10;
/// Data blocks the prefetcher may read past the last one demanded (2.3:
/// `zfetch_max_distance` 64 MiB ÷ 128 KiB).
const OVERSHOOT: u64 = (64 << 20) / (128 << 10);
/// L1 indirect blocks the scan and its indirect prefetch can touch: one
/// per 1024 data blocks over N + `zfetch_max_idistance` (128 MiB = 1024
/// blocks), plus one for a partial block at each end.
const L1S: u64 = (N + 1024) / 1024 + 2;

fn spec(prefetch: bool) -> ZfsSpec {
    ZfsSpec {
        // 4 GiB cap: the 1 GiB scan is never evicted before it is read.
        config: ArcConfig::new(16 << 30)
            .with_behaviour(Behaviour::preset("2.3").unwrap())
            .with_arc_max(4 << 30),
        prefetch,
        block_keys: false,
        blocks_per_file: None,
        indirect_reads: false,
        dmu_reads: false,
        compress_ratio: 1.0,
        pinned: [0; 3],
        held_metadata: 0,
        kstat_every: 0,
    }
}

/// One read of each block in order, one every 0.5 ms; the demand misses.
fn scan(z: &mut ZfsArc) -> u64 {
    (0..N)
        .filter(|&i| !z.access(&Request::read(i * 500_000, i, BLOCK)))
        .count() as u64
}

#[test]
fn prefetch_off_every_disk_read_is_a_demand_miss() {
    let mut z = ZfsArc::new(&spec(false));
    let misses = scan(&mut z);
    // Cold cache, each block once: every demand read misses.
    assert_eq!(misses, N);
    // No prefetcher, no prefetch reads: disk reads = demand misses.
    assert_eq!(z.prefetch_reads().reads, 0);
    assert!(z.prefetch_reads().runs().is_empty());
}

#[test]
fn prefetch_on_the_disk_reads_are_the_prefetchers() {
    let mut z = ZfsArc::new(&spec(true));
    let misses = scan(&mut z);
    let p = z.prefetch_reads().clone();
    let s = z.stats();
    println!(
        "demand misses {misses}, prefetch reads {} ({} B), runs {:?}",
        p.reads,
        p.bytes,
        p.runs()
    );
    // Nearly every demand read hits or iohits: only the reads before the
    // stream is detected go to the disk as demand misses.
    assert!(misses * 100 <= N, "demand misses {misses}");
    // Each block is read from disk once: the disk reads cover the scan,
    // plus at most the prefetch distance past its end and the L1s.
    let disk = misses + p.reads;
    assert!(
        (N..=N + OVERSHOOT + L1S).contains(&disk),
        "disk reads {disk} for {N} blocks"
    );
    // The counter is arcstats' own: prefetch_data_misses +
    // prefetch_metadata_misses (every prefetch read that missed).
    assert_eq!(p.reads, s.prefetch_data_misses + s.prefetch_metadata_misses);
    assert_eq!(p.bytes, p.reads * u64::from(BLOCK));
    // The runs hold every prefetch read once.
    let in_runs: u64 = p.runs().iter().map(|&(_, n, c)| n * c).sum();
    assert_eq!(in_runs, p.reads);
    // Merged on a rotating disk, 8 to a 1 MiB I/O: a data stream of R
    // contiguous reads costs ⌈R/8⌉; each L1 (not adjacent to the next
    // L1 read in time or place in general) at most one I/O.
    let ios_hdd: u64 = p
        .runs()
        .iter()
        .map(|&(b, n, c)| c * merged_ios(n, b, 1 << 20))
        .sum();
    let data_reads = p.reads.min(N + OVERSHOOT);
    assert!(
        ios_hdd >= (N - misses).div_ceil(8) && ios_hdd <= data_reads.div_ceil(8) + L1S + misses,
        "{ios_hdd} I/Os for {} prefetch reads",
        p.reads
    );
    // On flash (128 KiB limit) 128 KiB reads never merge.
    let ios_ssd: u64 = p
        .runs()
        .iter()
        .map(|&(b, n, c)| c * merged_ios(n, b, 128 << 10))
        .sum();
    assert_eq!(ios_ssd, p.reads);
}

/// Through the what-if runner: the disk reads are counted over the same
/// window as the demand misses (after the warm-up), per second.
#[test]
fn the_runner_counts_disk_reads_after_the_warmup() {
    let run = |prefetch: bool, warmup_secs: f64| -> RunResult {
        let mut sc = Scenario::for_trace(16 << 30);
        sc.prefetch = prefetch;
        sc.warmup_secs = warmup_secs;
        let spec =
            plan::single(&sc, PolicyName::ZfsArc, "4G", plan::cap_of(Some(4 << 30))).unwrap();
        let mut i = 0u64;
        whatif::run(&spec, &mut |buf: &mut Vec<Request>, max: usize| {
            let n = (max as u64).min(N - i);
            buf.extend((i..i + n).map(|k| Request::read(k * 500_000, k, BLOCK)));
            i += n;
            n as usize
        })
    };
    // The scan takes (N − 1) × 0.5 ms; measured from the warm-up on.
    let measured = |r: &RunResult| (r.duration_ns - r.warmup_ns) as f64 / 1e9;
    let off = run(false, 0.0);
    assert_eq!(off.n_miss, N);
    assert_eq!(off.disk_reads_per_sec, off.misses_per_sec);
    assert_eq!(off.disk_bytes_per_sec, off.miss_bytes_per_sec);
    assert_eq!(off.prefetch_reads_per_sec, 0.0);
    // Prefetch on, warm-up over the first half: the second half's 4096
    // blocks are read from disk once each, by the prefetcher (its stream
    // is running by then), plus up to the distance past the end.
    let on = run(true, (N / 2) as f64 * 0.5e-3);
    let s = measured(&on);
    let (disk, misses) = (on.disk_reads_per_sec * s, on.misses_per_sec * s);
    println!("half: {misses:.1} demand misses, {disk:.1} disk reads over {s} s");
    assert!(misses < 1.0, "{misses}");
    let half = (N / 2) as f64;
    assert!(
        disk >= half - 1.0 && disk <= half + (OVERSHOOT + L1S) as f64 + 1.0,
        "{disk}"
    );
    assert!(
        (on.disk_bytes_per_sec - on.disk_reads_per_sec * f64::from(BLOCK)).abs() < 1e-3,
        "{on:?}"
    );
    // The pool prices the I/Os: on a rotating disk the prefetch reads go
    // 8 to an I/O, on flash one each.
    let hdd = Device::hdd().ios_per_sec(on.misses_per_sec, &on.prefetch_runs) * s;
    let ssd = Device::ssd().ios_per_sec(on.misses_per_sec, &on.prefetch_runs) * s;
    assert!((ssd - disk).abs() < 1e-6, "{ssd} vs {disk}");
    assert!(
        hdd >= half / 8.0 - 1.0 && hdd <= (half + OVERSHOOT as f64) / 8.0 + L1S as f64 + 2.0,
        "{hdd}"
    );
}
