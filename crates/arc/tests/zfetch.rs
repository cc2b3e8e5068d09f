//! Tests of `arclab_arc::zfetch`. Expected values are worked out by hand
//! from spec §10 (+§17) and the kernel rules; the arithmetic is in comments.

use arclab_arc::Release;
use arclab_arc::zfetch::{
    FileInfo, Generation, PrefetchIo, Stream, Zfetch, ZfetchConfig, ZfetchStats, block_key,
};

const KIB: u64 = 1024;
const MIB: u64 = 1024 * KIB;
const SEC: u64 = 1_000_000_000;
/// 2^20 blocks of 128 KiB = 128 GiB: stream limit min(8, 128 GiB / 64 MiB) = 8.
const BIG: FileInfo = FileInfo {
    maxblkid: 1 << 20,
    blocksize: 128 << 10,
};

fn rel(s: &str) -> ZfetchConfig {
    ZfetchConfig::for_release(s.parse::<Release>().unwrap())
}

fn only_stream(zf: &Zfetch, file: u32) -> Stream {
    let v: Vec<Stream> = zf.streams(file).cloned().collect();
    assert_eq!(v.len(), 1);
    v[0].clone()
}

/// prepare + run with `missed`, returning the (level, blkid) of run's reads.
fn read(
    zf: &mut Zfetch,
    blk: u64,
    n: u64,
    now: u64,
    missed: bool,
    info: &FileInfo,
) -> Vec<(u8, u64)> {
    let mut ios = Vec::new();
    if let Some(s) = zf.prepare(1, blk, n, true, now, info, &mut ios) {
        ios.clear();
        zf.run(s, missed, &mut ios);
    }
    ios.iter().map(|io| (io.level, io.blkid)).collect()
}

fn data(v: &[(u8, u64)]) -> Vec<u64> {
    v.iter().filter(|x| x.0 == 0).map(|x| x.1).collect()
}

#[test]
fn release_mapping() {
    let c = rel("0.7");
    assert_eq!(c.generation, Generation::Sequential07);
    assert_eq!(
        (
            c.max_distance as u64,
            c.max_idistance as u64,
            c.min_sec_reap
        ),
        (8 * MIB, 64 * MIB, 2)
    );
    assert!(!c.io_active_brake);
    assert_eq!(rel("2.1.5").generation, Generation::Sequential21);
    let c = rel("2.1.6");
    assert_eq!(
        (c.generation, c.io_active_brake, c.min_sec_reap),
        (Generation::Ramp, false, 1)
    );
    assert!(rel("2.1.10").io_active_brake);
    assert_eq!(rel("2.2.3").generation, Generation::Ramp);
    assert_eq!(rel("2.2.3").array_rd_sz, None);
    assert_eq!(rel("2.1.16").array_rd_sz, Some(MIB));
    let c = rel("2.2.7");
    assert_eq!(
        (c.generation, c.max_idistance as u64),
        (Generation::Reorder, 64 * MIB)
    );
    let c = rel("2.3");
    assert_eq!(
        (c.generation, c.max_idistance as u64),
        (Generation::Prescient, 128 * MIB)
    );
    assert!(!c.head_tweaks);
    assert_eq!(rel("0.6.5").generation, Generation::Sequential07);
    let d = ZfetchConfig::default();
    assert_eq!(
        (
            d.max_streams,
            d.min_sec_reap,
            d.max_sec_reap,
            d.hole_shift,
            d.epbs()
        ),
        (8, 1, 2, 2, 10)
    );
    assert_eq!(
        (
            d.min_distance as u64,
            d.max_distance as u64,
            d.max_reorder as u64
        ),
        (4 * MIB, 64 * MIB, 16 * MIB)
    );
}

#[test]
fn sequential_reader_ramp_and_windows() {
    let mut zf = Zfetch::new(ZfetchConfig::default());
    // Block 0: HEAD read path holds the lock, so no blkid==0 fast path: miss.
    assert!(read(&mut zf, 0, 1, 0, true, &BIG).is_empty());
    assert_eq!(zf.stats().misses, 1);
    assert_eq!(only_stream(&zf, 1).blkid, 1);
    // hit k reads block k; pf_dist 128K·2^(k-1) (1, 2, 4, 8, 16, 32 blocks) up to 4 MiB.
    // hit1: end 2, pf [2, 2+1=3); hit2: end 3, pf_start max(3,3)=3, pf_end 3+2=5;
    // hit3: end 4, pf [5, 4+4=8); hit4: [8, 5+8=13); hit5: [13, 6+16=22);
    // hit6: [22, 7+32=39); hit7: dist stays 4 MiB (no zs_more): [39, 8+32=40).
    let want: [(u64, u64); 7] = [
        (2, 3),
        (3, 5),
        (5, 8),
        (8, 13),
        (13, 22),
        (22, 39),
        (39, 40),
    ];
    let dists = [1u64, 2, 4, 8, 16, 32, 32];
    for k in 1..=7u64 {
        let got = read(&mut zf, k, 1, 0, true, &BIG);
        let (a, b) = want[k as usize - 1];
        assert_eq!(data(&got), (a..b).collect::<Vec<_>>(), "hit {k}");
        let zs = only_stream(&zf, 1);
        assert_eq!(zs.pf_dist, dists[k as usize - 1] * 128 * KIB);
        assert_eq!((zs.pf_start, zs.pf_end), (b, b));
        assert_eq!(zs.blkid, k + 1);
    }
    assert_eq!(zf.stats().hits, 7);
    // ipf_dist doubles from 128 KiB: after hit7 8 MiB; hits 8..11 give 16, 32, 64,
    // 128 MiB (cap). hit11: pf_end 12+32=44, ipf_end = 44 + 1024 = 1068 → L1 index
    // ceil(555/1024)=1 .. ceil(1068/1024)=2 (ipf_start = hit10's 43+512 = 555).
    for k in 8..=10 {
        let got = read(&mut zf, k, 1, 0, true, &BIG);
        assert!(got.iter().all(|x| x.0 == 0), "no L1 yet at hit {k}");
    }
    let got = read(&mut zf, 11, 1, 0, true, &BIG);
    assert_eq!(
        got.iter().filter(|x| x.0 == 1).copied().collect::<Vec<_>>(),
        [(1, 1)]
    );
    let zs = only_stream(&zf, 1);
    assert_eq!((zs.ipf_dist, zs.ipf_end), (128 * MIB, 1068));
    read(&mut zf, 12, 1, 0, true, &BIG);
    assert_eq!(only_stream(&zf, 1).ipf_dist, 128 * MIB);
}

#[test]
fn idistance_cap_is_64_mib_before_2_3() {
    let mut zf = Zfetch::new(rel("2.2.7"));
    read(&mut zf, 0, 1, 0, true, &BIG);
    for k in 1..=20 {
        read(&mut zf, k, 1, 0, true, &BIG);
    }
    // 128K·2^(k−1) reaches 64 MiB at hit 10 and stays there.
    let zs = only_stream(&zf, 1);
    assert_eq!((zs.ipf_dist, zs.pf_dist), (64 * MIB, 4 * MIB));
    // ipf_end = pf_end + 512 = (21 + 32) + 512 = 565.
    assert_eq!(zs.ipf_end, 565);
}

#[test]
fn more_grows_by_an_eighth_up_to_64_mib() {
    let mut zf = Zfetch::new(ZfetchConfig::default());
    let mut pending: Vec<PrefetchIo> = Vec::new();
    let mut ios = Vec::new();
    zf.prepare(1, 0, 1, true, 0, &BIG, &mut ios);
    for k in 1..=7 {
        let s = zf.prepare(1, k, 1, true, 0, &BIG, &mut ios).unwrap();
        zf.run(s, true, &mut ios);
    }
    pending.append(&mut ios);
    assert_eq!(only_stream(&zf, 1).pf_dist, 4 * MIB);
    // Block 2 (prefetched at hit 1) completes after the stream reached 8: late.
    let late = *pending
        .iter()
        .find(|io| io.level == 0 && io.blkid == 2)
        .unwrap();
    zf.io_done(&late, true);
    assert!(only_stream(&zf, 1).more);
    let s = zf.prepare(1, 8, 1, true, 0, &BIG, &mut ios).unwrap();
    zf.run(s, true, &mut ios);
    // 4 MiB + 4 MiB/8 = 4.5 MiB = 36 blocks; pf_end = 9 + 36 = 45.
    let zs = only_stream(&zf, 1);
    assert_eq!(
        (zs.pf_dist, zs.pf_end, zs.more),
        (4 * MIB + 512 * KIB, 45, false)
    );
    // A prefetch completing ahead of the stream is not late.
    let early = *ios
        .iter()
        .find(|io| io.level == 0 && io.blkid == 44)
        .unwrap();
    zf.io_done(&early, true);
    assert!(!only_stream(&zf, 1).more);
    // Without zs_more the distance holds.
    let s = zf.prepare(1, 9, 1, true, 0, &BIG, &mut ios).unwrap();
    zf.run(s, true, &mut ios);
    assert_eq!(only_stream(&zf, 1).pf_dist, 4 * MIB + 512 * KIB);
    // Force zs_more each hit: ×9/8 per hit, capped at exactly 64 MiB.
    let mut d = 4 * MIB + 512 * KIB;
    pending.append(&mut ios);
    for k in 10..60 {
        pending.append(&mut ios);
        let lag = pending
            .iter()
            .position(|io| io.level == 0 && io.blkid < k)
            .unwrap();
        let io = pending.remove(lag);
        zf.io_done(&io, true);
        let s = zf.prepare(1, k, 1, true, 0, &BIG, &mut ios).unwrap();
        zf.run(s, true, &mut ios);
        d = (d + d / 8).min(64 * MIB);
        assert_eq!(only_stream(&zf, 1).pf_dist, d);
    }
    assert_eq!(d, 64 * MIB);
}

#[test]
fn no_data_prefetch_before_a_demand_miss() {
    let mut zf = Zfetch::new(ZfetchConfig::default());
    read(&mut zf, 0, 1, 0, false, &BIG);
    assert!(read(&mut zf, 1, 1, 0, false, &BIG).is_empty());
    assert!(read(&mut zf, 2, 1, 0, false, &BIG).is_empty());
    // hit3: pf_start = max(3, 4) = 4 (follows the reader), pf_end = 8 → the
    // first run with missed issues [4, 8).
    assert_eq!(data(&read(&mut zf, 3, 1, 0, true, &BIG)), [4, 5, 6, 7]);
    // Sticky: a later cached read still prefetches: hit4 [8, 5+8=13).
    assert_eq!(
        data(&read(&mut zf, 4, 1, 0, false, &BIG)),
        [8, 9, 10, 11, 12]
    );
}

#[test]
fn disable_issues_nothing_not_even_prescient() {
    // Miss at 1000..1100 (HEAD): prescient L1 for data blocks [1001, 1100) →
    // L1 indices ceil(1001/1024)=1 .. ceil(1100/1024)=2 → L1 block 1.
    let mut zf = Zfetch::new(ZfetchConfig::default());
    let mut ios = Vec::new();
    assert!(zf.prepare(1, 1000, 100, true, 0, &BIG, &mut ios).is_none());
    assert_eq!(ios.len(), 1);
    assert_eq!((ios[0].level, ios[0].blkid, ios[0].prescient), (1, 1, true));
    assert_eq!(ios[0].key(), (1 << 41) | (1 << 40) | 1);
    assert_eq!(block_key(3, 0, 5), (3 << 41) | 5);
    assert_eq!((zf.stats().io_issued, zf.stats().io_active), (1, 0));

    let mut zf = Zfetch::new(ZfetchConfig {
        disable: true,
        ..ZfetchConfig::default()
    });
    let mut ios = Vec::new();
    for k in 0..50 {
        assert!(
            zf.prepare(1, 1000 + k * 100, 100, true, 0, &BIG, &mut ios)
                .is_none()
        );
    }
    assert!(ios.is_empty());
    assert_eq!(zf.stats(), ZfetchStats::default());
    assert_eq!(zf.num_streams(1), 0);
}

#[test]
fn random_reader_stream_limit_and_recycling() {
    let mut zf = Zfetch::new(ZfetchConfig::default());
    // Spaced 10 000 blocks apart (> window 16 MiB/128 KiB + 1 = 129).
    for k in 1..=8 {
        read(&mut zf, k * 10_000, 1, 0, true, &BIG);
    }
    assert_eq!(
        (zf.num_streams(1), zf.stats().misses, zf.stats().max_streams),
        (8, 8, 0)
    );
    // New streams have atime = 0 − 1; at second 0 none is idle: refused.
    read(&mut zf, 90_000, 1, 0, true, &BIG);
    read(&mut zf, 100_000, 1, SEC - 1, true, &BIG);
    assert_eq!(
        (zf.num_streams(1), zf.stats().max_streams, zf.stats().misses),
        (8, 2, 10)
    );
    // Second 1: t = 1 − 1 = 0 > atime (−1): recyclable. All tie; HEAD takes the
    // last in list order = the first created (expects 10 001).
    read(&mut zf, 110_000, 1, SEC, true, &BIG);
    assert_eq!((zf.num_streams(1), zf.stats().max_streams), (8, 2));
    let heads: Vec<u64> = zf.streams(1).map(|s| s.blkid).collect();
    assert_eq!(heads[0], 110_001);
    assert!(!heads.contains(&10_001));
}

#[test]
fn effective_stream_limit_from_file_size() {
    // maxblkid 1535: (1535 << 17) / 64 MiB = 1535/512 = 2 streams.
    let info = FileInfo {
        maxblkid: 1535,
        blocksize: 128 << 10,
    };
    let mut zf = Zfetch::new(ZfetchConfig::default());
    for b in [10, 300, 600] {
        read(&mut zf, b, 1, 0, true, &info);
    }
    assert_eq!((zf.num_streams(1), zf.stats().max_streams), (2, 1));
}

#[test]
fn reaping_whole_seconds_strict() {
    let cfg = ZfetchConfig {
        max_streams: 2,
        ..ZfetchConfig::default()
    };
    let mut zf = Zfetch::new(cfg);
    let mut ios = Vec::new();
    let mut step = |zf: &mut Zfetch, b: u64, now: u64| {
        if let Some(s) = zf.prepare(1, b, 1, true, now, &BIG, &mut ios) {
            zf.run(s, true, &mut ios);
        }
        for io in ios.drain(..) {
            zf.io_done(&io, true); // complete at once: no outstanding refs
        }
    };
    step(&mut zf, 1000, 0); // A created, atime −1
    step(&mut zf, 1001, 0); // A hit, atime 0
    step(&mut zf, 50_000, 0); // B, atime −1
    // 1.5 s (second 1): max pass t = −1: A (0) and B (−1) active. Limit 2:
    // min pass t = 0: A 0 ≮ 0 active, B −1 < 0 → recycle B for C.
    step(&mut zf, 90_000, 3 * SEC / 2);
    let v: Vec<u64> = zf.streams(1).map(|s| s.blkid).collect();
    assert_eq!(v, [90_001, 1002]);
    // Second 2: max pass t = 0: A (0), C (1−1 = 0) both active (strict <).
    // min pass t = 1: both idle with atime 0; tie → later in list = A → D.
    step(&mut zf, 130_000, 2 * SEC);
    let v: Vec<u64> = zf.streams(1).map(|s| s.blkid).collect();
    assert_eq!(v, [130_001, 90_001]);
    // Second 3: max pass t = 1: D (2−1 = 1) active, C (0) < 1 → deleted and
    // reused for E at the head.
    step(&mut zf, 170_000, 3 * SEC);
    let v: Vec<u64> = zf.streams(1).map(|s| s.blkid).collect();
    assert_eq!(v, [170_001, 130_001]);
    assert_eq!(zf.stats().max_streams, 0);
}

#[test]
fn outstanding_prefetch_blocks_recycling() {
    let cfg = ZfetchConfig {
        max_streams: 1,
        ..ZfetchConfig::default()
    };
    let mut zf = Zfetch::new(cfg);
    read(&mut zf, 1000, 1, 0, true, &BIG);
    let ios = read(&mut zf, 1001, 1, 0, true, &BIG); // data block 1002 in flight
    assert_eq!(ios, [(0, 1002)]);
    read(&mut zf, 50_000, 1, 10 * SEC, true, &BIG);
    assert_eq!(zf.stats().max_streams, 1);
    assert_eq!(zf.stats().io_active, 1);
}

#[test]
fn reorder_window_classification_head_vs_2_2_3() {
    let seq: [(u64, u64); 7] = [
        (100, 1),
        (103, 1),
        (102, 1),
        (101, 1),
        (105, 4),
        (107, 1),
        (107, 4),
    ];
    let mut zf = Zfetch::new(ZfetchConfig::default());
    let mut ios = Vec::new();
    let mut blk = Vec::new();
    for &(b, n) in &seq {
        if let Some(s) = zf.prepare(1, b, n, true, 0, &BIG, &mut ios) {
            zf.run(s, true, &mut ios);
        }
        blk.push(zf.streams(1).next().map(|s| s.blkid));
    }
    // 100 miss → @101. 103: rel 2, range (2,3), hole 2 > 3>>2 → future.
    // 102: merged (1,3), hole 1 > 0 → future. 101: exact, swallows (1,3) → @104.
    // 105×4: rel 1..5, hole 1 ≤ 5>>2 = 1 → stride, @109. 107: behind, within
    // the window, active → past. 107×4 straddles 109 → hit for 2 → @111.
    assert_eq!(
        blk,
        [
            Some(101),
            Some(101),
            Some(101),
            Some(104),
            Some(109),
            Some(109),
            Some(111)
        ]
    );
    let st = zf.stats();
    assert_eq!(
        (st.hits, st.future, st.stride, st.past, st.misses),
        (2, 2, 1, 1, 1)
    );

    let mut zf = Zfetch::new(rel("2.2.3"));
    for &(b, n) in &seq {
        let mut ios = Vec::new();
        if let Some(s) = zf.prepare(1, b, n, true, 0, &BIG, &mut ios) {
            zf.run(s, true, &mut ios);
        }
    }
    // Exact-only: 100, 103, 102, 105, 107 miss; 101 exact, 107×4 matches the
    // stream at 108 by the +1 rule.
    let st = zf.stats();
    assert_eq!(
        (st.hits, st.future, st.stride, st.past, st.misses),
        (2, 0, 0, 0, 5)
    );
    assert_eq!(zf.num_streams(1), 5);
}

#[test]
fn interleaved_readers_in_one_file() {
    let mut zf = Zfetch::new(ZfetchConfig::default());
    for k in 0..10 {
        read(&mut zf, 1000 + k, 1, 0, true, &BIG);
        read(&mut zf, 500_000 + k, 1, 0, true, &BIG);
    }
    let st = zf.stats();
    assert_eq!((st.misses, st.hits, zf.num_streams(1)), (2, 18, 2));
}

#[test]
fn end_of_file_and_small_files() {
    // maxblkid 40: one stream (40·128K / 64M = 0 → max(1, 0)).
    let info = FileInfo {
        maxblkid: 40,
        blocksize: 128 << 10,
    };
    let mut zf = Zfetch::new(ZfetchConfig::default());
    let mut all = Vec::new();
    for k in 0..=38 {
        all.extend(read(&mut zf, k, 1, 0, true, &info));
    }
    assert_eq!(zf.num_streams(1), 1);
    // Block 39: hit → zs_blkid 40 ≥ maxblkid → stream removed.
    assert!(read(&mut zf, 39, 1, 0, true, &info).is_empty());
    assert_eq!(zf.num_streams(1), 0);
    // Block 40: miss, end 41 ≥ 40 → no stream.
    read(&mut zf, 40, 1, 0, true, &info);
    assert_eq!(
        (zf.stats().hits, zf.stats().misses, zf.num_streams(1)),
        (39, 2, 0)
    );
    assert!(
        all.iter()
            .all(|&(l, b)| (l == 0 && b <= 40) || (l == 1 && b == 0))
    );

    for maxblkid in [0, 1] {
        let tiny = FileInfo {
            maxblkid,
            blocksize: 128 << 10,
        };
        let mut zf = Zfetch::new(ZfetchConfig::default());
        read(&mut zf, 1, 1, 0, true, &tiny);
        assert_eq!(zf.stats(), ZfetchStats::default());
    }
    // blkid 0 without the dnode lock: skipped while the file has no streams.
    let nolock = ZfetchConfig {
        have_lock: false,
        ..ZfetchConfig::default()
    };
    let mut zf = Zfetch::new(nolock);
    read(&mut zf, 0, 1, 0, true, &BIG);
    assert_eq!(zf.stats(), ZfetchStats::default());
    read(&mut zf, 5000, 1, 0, true, &BIG);
    read(&mut zf, 0, 1, 0, true, &BIG); // HEAD: a stream exists → counted
    assert_eq!(zf.stats().misses, 2);
    let mut zf = Zfetch::new(ZfetchConfig {
        have_lock: false,
        ..rel("2.4.0")
    });
    read(&mut zf, 5000, 1, 0, true, &BIG);
    read(&mut zf, 0, 1, 0, true, &BIG); // released code: always skipped
    assert_eq!(zf.stats().misses, 1);
}

#[test]
fn kstat_text_format() {
    let st = ZfetchStats {
        hits: 5,
        misses: 2,
        io_issued: 7,
        ..ZfetchStats::default()
    };
    let t = st.kstat_text(&ZfetchConfig::default(), 3, 100, 200);
    let lines: Vec<&str> = t.lines().collect();
    assert_eq!(lines[0], "3 1 0x01 8 2176 100 200"); // 8 × 272 = 2176
    assert_eq!(lines[1], format!("{:<31} {:<4} {}", "name", "type", "data"));
    assert_eq!(lines[2], format!("hits{} 4    5", " ".repeat(27)));
    assert_eq!(lines.len(), 10);
    assert!(lines[9].starts_with("io_active "));
    let old = st.kstat_text(&rel("2.2.3"), 3, 0, 0);
    let names: Vec<&str> = old
        .lines()
        .skip(2)
        .map(|l| l.split(' ').next().unwrap())
        .collect();
    assert_eq!(
        names,
        ["hits", "misses", "max_streams", "io_issued", "io_active"]
    );
    assert_eq!(
        ZfetchStats::field_names(&rel("0.7")),
        ["hits", "misses", "max_streams"]
    );
}

/// xorshift64*: a deterministic stand-in for proptest (not a dependency here).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

#[test]
fn randomized_invariants() {
    for seed in 1..=60u64 {
        let mut r = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let cfg = match seed % 4 {
            0 => ZfetchConfig::default(),
            1 => rel("2.2.7"),
            2 => ZfetchConfig {
                max_streams: 3,
                c_max: 1 << 28,
                ..ZfetchConfig::default()
            },
            _ => ZfetchConfig {
                have_lock: false,
                ..rel("2.3.1")
            },
        };
        let mut zf = Zfetch::new(cfg);
        let infos = [
            FileInfo {
                maxblkid: 1 << 16,
                blocksize: 128 << 10,
            },
            FileInfo {
                maxblkid: 600,
                blocksize: 16 << 10,
            },
            FileInfo {
                maxblkid: 1,
                blocksize: 4096,
            },
        ];
        let (mut passed, mut run_issued, mut done) = (0u64, 0u64, 0u64);
        let mut inflight: Vec<PrefetchIo> = Vec::new();
        let mut pending = Vec::new();
        let mut now = 0u64;
        let mut ios = Vec::new();
        for _ in 0..3000 {
            now += r.below(SEC / 4);
            let file = r.below(3) as u32;
            let info = infos[file as usize];
            match r.below(10) {
                0..=5 => {
                    // Mostly-sequential cursors with jumps, reorders and repeats.
                    let base = (now / SEC * 37 + u64::from(file) * 11) % (info.maxblkid + 3);
                    let blk = if r.below(4) == 0 {
                        r.below(info.maxblkid + 3)
                    } else {
                        base + r.below(8)
                    };
                    let n = 1 + r.below(4);
                    // HEAD only skips these while the file has no streams.
                    let quiet = cfg.head_tweaks && zf.num_streams(file) > 0;
                    let fast = (!cfg.have_lock && blk == 0 && !quiet)
                        || (info.maxblkid < 2 && (info.maxblkid == 0 || !quiet));
                    if !fast {
                        passed += 1;
                    }
                    ios.clear();
                    if let Some(s) = zf.prepare(file, blk, n, r.below(5) != 0, now, &info, &mut ios)
                    {
                        pending.push(s);
                    }
                    assert!(ios.iter().all(|io| io.prescient && io.level == 1));
                }
                6 | 7 => {
                    if !pending.is_empty() {
                        let s = pending.swap_remove(r.below(pending.len() as u64) as usize);
                        ios.clear();
                        zf.run(s, r.below(2) == 0, &mut ios);
                        run_issued += ios.len() as u64;
                        inflight.extend(ios.iter().copied());
                    }
                }
                _ => {
                    for _ in 0..r.below(6) {
                        if inflight.is_empty() {
                            break;
                        }
                        let io = inflight.swap_remove(r.below(inflight.len() as u64) as usize);
                        zf.io_done(&io, r.below(8) != 0);
                        done += 1;
                    }
                }
            }
            let st = zf.stats();
            assert_eq!(st.io_active, run_issued - done, "seed {seed}");
            assert_eq!(
                st.hits + st.future + st.stride + st.past + st.misses,
                passed,
                "seed {seed}"
            );
            for f in 0..3u32 {
                assert!(zf.num_streams(f) <= cfg.max_streams as usize);
                for zs in zf.streams(f) {
                    assert!(
                        zs.pf_start <= zs.pf_end && zs.ipf_start <= zs.ipf_end,
                        "seed {seed}"
                    );
                    assert!(zs.pf_dist <= u64::from(cfg.max_distance));
                    assert!(zs.ipf_dist <= u64::from(cfg.max_idistance));
                }
            }
        }
    }
}

#[test]
fn legacy_sequential_generations() {
    // 2.1.5: "double how far ahead": pf_nblks = min(pf_blkid − blkid + nblks,
    // 64 − (pf_start − end)) with 8 MiB = 64 blocks. hit1: min(1−1+1, 64) = 1 →
    // [2,3); hit2: 3−2+1 = 2 → [3,5); hit3: 5−3+1 = 3 → [5,8); hit4: 5 → [8,13);
    // hit5: 9 → [13,22); hit6: 17 → [22,39); hit7: min(33, 64−(39−8)=33) → [39,72);
    // hit8: min(65, 64−(72−9)=1) → [72,73): 64 blocks ahead of the reader.
    let mut zf = Zfetch::new(rel("2.1.5"));
    read(&mut zf, 0, 1, 0, true, &BIG);
    let want: [(u64, u64); 8] = [
        (2, 3),
        (3, 5),
        (5, 8),
        (8, 13),
        (13, 22),
        (22, 39),
        (39, 72),
        (72, 73),
    ];
    for (k, &(a, b)) in want.iter().enumerate() {
        let got = read(&mut zf, k as u64 + 1, 1, 0, true, &BIG);
        assert_eq!(data(&got), (a..b).collect::<Vec<_>>(), "hit {}", k + 1);
    }
    assert_eq!(only_stream(&zf, 1).pf_end - only_stream(&zf, 1).blkid, 64);
    // 2.1.x skips the prefetcher for calls over 1 MiB (9 × 128 KiB).
    let before = zf.stats();
    read(&mut zf, 9, 9, 0, true, &BIG);
    assert_eq!(zf.stats(), before);

    // 0.7: block 0 always ignored; data prefetch without a demand miss.
    let mut zf = Zfetch::new(rel("0.7.13"));
    read(&mut zf, 0, 1, 0, false, &BIG);
    assert_eq!(zf.stats(), ZfetchStats::default());
    read(&mut zf, 1, 1, 0, false, &BIG); // miss → stream @2
    assert_eq!(data(&read(&mut zf, 2, 1, 0, false, &BIG)), [3]);
    // 0.7 reaping: idle (now − atime)/1 s > 2, i.e. 3 s; limit 8 streams.
    for k in 1..=7 {
        read(&mut zf, k * 10_000, 1, 0, false, &BIG);
    }
    read(&mut zf, 90_000, 1, 2 * SEC + SEC / 2, false, &BIG);
    assert_eq!((zf.num_streams(1), zf.stats().max_streams), (8, 1));
    read(&mut zf, 90_000, 1, 3 * SEC, false, &BIG); // all 8 idle ≥ 3 s: reaped
    assert_eq!(zf.num_streams(1), 1);
}
