//! The prefetcher's shortcuts against its full searches.

use super::*;
use crate::limits::Release;

/// One xorshift64 step: the tests' seeded source of reads.
fn xorshift(x: &mut u64) {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
}

/// The rest of one demand read on two prefetchers that prepared it alike
/// (each with its matched stream and the prefetch reads it pushed):
/// `run` the stream (the read `missed` or not), require the same prefetch
/// reads, complete them (`ok` or not) and require the same counters.
fn in_step(
    pair: [(&mut Zfetch, Option<StreamRef>, &mut Vec<PrefetchIo>); 2],
    missed: bool,
    ok: bool,
    what: &str,
) {
    let [(z1, s1, out_1), (z2, s2, out_2)] = pair;
    if let (Some(a), Some(b)) = (s1, s2) {
        z1.run(a, missed, out_1);
        z2.run(b, missed, out_2);
    }
    assert_eq!(out_1, out_2, "{what}");
    for io in out_1.iter() {
        z1.io_done(io, ok);
        z2.io_done(io, ok);
    }
    assert_eq!(z1.stats(), z2.stats(), "{what}");
}

/// `idle_from` is only a shortcut: a prefetcher that forgets it before
/// every call (so `create_stream` always searches) makes the same
/// decisions, prefetch reads, counters and streams, on random and
/// sequential reads, idle gaps, a clock that sometimes steps back, and
/// reap times changed at run time.
#[test]
fn the_idle_shortcut_changes_nothing() {
    for release in ["2.2.4", "2.2.8", "2.3.0", "2.3.4"] {
        let cfg = ZfetchConfig::for_release(release.parse::<Release>().unwrap());
        let (mut fast, mut slow) = (Zfetch::new(cfg), Zfetch::new(cfg));
        let info = FileInfo {
            maxblkid: 1 << 30,
            blocksize: 128 << 10,
        };
        let (mut x, mut now, mut last) = (0x2545_f491_4f6c_dd1du64, 0u64, 0u64);
        let (mut out_f, mut out_s) = (Vec::new(), Vec::new());
        let mut shortcuts = 0u64;
        for i in 0..200_000u64 {
            xorshift(&mut x);
            now = match x % 1000 {
                0 => now.saturating_sub(3 * NANOSEC as u64), // the clock steps back
                1..=4 => now + 5 * NANOSEC as u64,           // idle gap
                _ => now + 45_000 + x % 20_000,
            };
            if i % 50_000 == 25_000 {
                for z in [&mut fast, &mut slow] {
                    z.config_mut().min_sec_reap += 1;
                    z.config_mut().max_sec_reap += 2;
                }
            }
            let file = (x >> 20) as u32 % 3;
            last = if x % 4 == 0 {
                last + 1
            } else {
                (x >> 24) % (1 << 24)
            };
            for fs in &mut slow.files.states {
                fs.idle_from = None;
            }
            out_f.clear();
            out_s.clear();
            let a = fast.prepare(file, last, 1, true, now, &info, &mut out_f);
            let b = slow.prepare(file, last, 1, true, now, &info, &mut out_s);
            assert_eq!(a, b, "{release} read {i}");
            let what = format!("{release} read {i}");
            let pair = [(&mut fast, a, &mut out_f), (&mut slow, b, &mut out_s)];
            in_step(pair, x % 3 == 0, x % 5 != 0, &what);
            shortcuts += u64::from(fast.files.states.iter().any(|f| f.idle_from.is_some()));
        }
        for f in 0..3 {
            assert!(fast.streams(f).eq(slow.streams(f)), "{release} file {f}");
        }
        assert!(
            fast.stats().max_streams > 10_000,
            "{release}: {:?}",
            fast.stats()
        );
        assert!(shortcuts > 100_000, "{release}: the shortcut was used");
    }
}

/// An access ahead of a stream that only remembers a range (a `future`
/// access: no advance) prefetches nothing in every release from 2.2.4 to
/// 2.4.x: `dmu_zfetch_prepare`'s "Exit if we already prefetched for this
/// position before. `if (nblks == 0) goto out;`" (read in zfs-2.2.4,
/// 2.2.11, 2.3.0, 2.3.9, 2.4.4). Post-2.4 master (`ce837a28eb`) goes on to
/// the ramp unless the L1 window already covers the access, and prefetches.
/// (The model applied master's rule to every release until 2026-12-03: on
/// the paced oracle's `zipf` it issued 618 prefetch reads where arc.c 2.3.9
/// issued 503–504.)
#[test]
fn a_future_access_prefetches_nothing_before_master() {
    let info = FileInfo {
        maxblkid: 8191,
        blocksize: 128 << 10,
    };
    for (release, prefetches) in [
        ("2.2.4", false),
        ("2.2.11", false),
        ("2.3.9", false),
        ("2.4.4", false),
        ("2.4.99", true),
    ] {
        let mut z = Zfetch::new(ZfetchConfig::for_release(
            release.parse::<Release>().unwrap(),
        ));
        let mut out = Vec::new();
        // A miss creates a stream expecting block 101; a missed read of 101
        // hits it and prefetches block 102 (a distance of one block).
        assert!(z.prepare(0, 100, 1, true, 0, &info, &mut out).is_none());
        let s = z.prepare(0, 101, 1, true, 500_000, &info, &mut out);
        z.run(s.expect("a hit"), true, &mut out);
        assert!(
            out.iter().any(|io| io.level == 0 && io.blkid == 102),
            "{release}: {out:?}"
        );
        for io in &out {
            z.io_done(io, true);
        }
        out.clear();
        // Block 110 is 8 blocks ahead of the stream (102), inside the
        // reorder window (129 blocks of 128 KiB): remembered, but 8 blocks
        // of hole before it are more than 9 >> zfetch_hole_shift, so the
        // stream stays where it is.
        let got = z.prepare(0, 110, 1, true, 1_000_000, &info, &mut out);
        if let Some(s) = got {
            z.run(s, true, &mut out);
        }
        let data: Vec<_> = out.iter().filter(|io| io.level == 0).collect();
        assert_eq!(z.stats().future, 1, "{release}");
        assert_eq!(z.stats().stride, 0, "{release}");
        assert_eq!(!data.is_empty(), prefetches, "{release}: {out:?}");
        if !prefetches {
            assert!(got.is_none() && out.is_empty(), "{release}: {out:?}");
        }
    }
}

/// What is known of a file (`dn_maxblkid`, `dn_datablksz`) belongs to the
/// file, not to its streams: `dmu_zfetch_fini` frees a `zfetch_t`'s
/// streams but the dnode keeps its size. So after [`Zfetch::forget_file`]
/// the file has no streams and the same info, which its first read fixed;
/// a later read's other guess is ignored.
#[test]
fn forgetting_a_files_streams_keeps_what_is_known_of_it() {
    let cfg = ZfetchConfig::for_release("2.2.8".parse::<Release>().unwrap());
    let mut zf = Zfetch::new(cfg);
    let first = FileInfo {
        maxblkid: 2047,
        blocksize: 128 << 10,
    };
    let other = FileInfo {
        maxblkid: 9,
        blocksize: 4 << 10,
    };
    assert_eq!(zf.file_info(3, || first), first);
    let mut out = Vec::new();
    for b in 0..4 {
        if let Some(s) = zf.prepare(3, b, 1, true, b * 1_000_000, &first, &mut out) {
            zf.run(s, true, &mut out);
        }
    }
    assert_eq!(zf.num_streams(3), 1, "a sequential read made a stream");
    zf.forget_file(3);
    assert_eq!(zf.num_streams(3), 0);
    assert_eq!(zf.file_info(3, || other), first);
    assert_eq!(zf.file_info(4, || other), other, "another file's own");
}

/// `any_near`'s one-compare window test against its definition, `p ≠ 0`
/// and `|p − 1 − blkid| ≤ reach` for some slot, at the ends of the range
/// (windows that start at 0 or reach u64::MAX take the definition itself).
#[test]
fn any_near_is_the_distance_test() {
    let edges = [
        0u64,
        1,
        2,
        7,
        8,
        9,
        1 << 20,
        (1 << 20) + 1,
        u64::MAX / 2,
        u64::MAX - 9,
        u64::MAX - 8,
        u64::MAX - 1,
        u64::MAX,
    ];
    let mut fs = FileState::default();
    let mut checked = 0u64;
    for (k, &a) in edges.iter().enumerate() {
        for &b in &edges[k..] {
            // Two slots in the list (positions a and b), the rest free.
            fs.near = [0; 8];
            fs.near[1] = a.wrapping_add(1);
            fs.near[5] = b.wrapping_add(1);
            for &blkid in &edges {
                for reach in [0u64, 1, 8, 65_536, u64::MAX / 2, u64::MAX] {
                    let want = fs
                        .near
                        .iter()
                        .any(|&p| p != 0 && blkid.abs_diff(p - 1) <= reach);
                    assert_eq!(
                        fs.any_near(blkid, reach),
                        want,
                        "positions {a}, {b}; blkid {blkid}, reach {reach}"
                    );
                    checked += 1;
                }
            }
        }
    }
    assert_eq!(checked, 91 * 13 * 6);
}

/// `prepare_read` is `file_info` followed by `prepare` in one lookup: in
/// every generation (exact matches before 2.2.4, the reorder window
/// after; 0.7's sequential one; post-2.4 master's head-of-file tests, with
/// the dnode lock and without), on files whose first read fixes a size
/// of 1, 2 or many blocks (the `maxblkid < 2` exits) and a block size
/// rounded from the read, with random and sequential reads, the two give
/// the same file info, streams matched, prefetch reads, counters and
/// streams.
#[test]
fn prepare_read_is_file_info_then_prepare() {
    let releases = [
        "0.7.0", "0.8.0", "2.1.5", "2.2.0", "2.2.4", "2.2.8", "2.3.0", "2.3.4",
    ];
    let configs = releases
        .iter()
        .map(|r| (*r, ZfetchConfig::for_release(r.parse::<Release>().unwrap())))
        // Post-2.4 master, with and without the dnode lock: its
        // head-of-file exits depend on the file's streams.
        .chain([
            ("master", ZfetchConfig::default()),
            (
                "master, no lock",
                ZfetchConfig {
                    have_lock: false,
                    ..ZfetchConfig::default()
                },
            ),
        ]);
    for (release, cfg) in configs {
        let (mut one, mut two) = (Zfetch::new(cfg), Zfetch::new(cfg));
        let (mut x, mut now, mut last) = (0x9e37_79b9_7f4a_7c15u64, 0u64, [0u64; 6]);
        let (mut out_1, mut out_2) = (Vec::new(), Vec::new());
        let mut streams = 0u64;
        for i in 0..50_000u64 {
            xorshift(&mut x);
            now += 150_000 + x % 100_000;
            let file = (x >> 20) as u32 % 6;
            // Files 0 and 1 are one and two blocks long; the rest large.
            let maxblkid = [0, 1, 1 << 20, 1 << 20, 1 << 30, 1 << 30][file as usize];
            let size = [4096, 100, 128 << 10, 131_000, 1 << 20, 16 << 10][file as usize];
            let first = || FileInfo {
                maxblkid,
                blocksize: (size as u32).next_power_of_two(),
            };
            // Each file read on from where it was, or at random.
            let f = file as usize;
            last[f] = if x % 64 != 0 {
                last[f] + 1
            } else {
                // Block 0 a quarter of the time: the head-of-file exits,
                // which depend on the file's streams.
                ((x >> 24) % (maxblkid + 1).min(1 << 22)) * u64::from((x >> 50) % 4 != 0)
            };
            let blkid = last[f];
            out_1.clear();
            out_2.clear();
            let (info_1, a) = one.prepare_read(file, blkid, now, first, &mut out_1);
            let info_2 = two.file_info(file, first);
            let b = two.prepare(file, blkid, 1, true, now, &info_2, &mut out_2);
            assert_eq!((info_1, a), (info_2, b), "{release} read {i}");
            assert_eq!(out_1, out_2, "{release} read {i}");
            streams += u64::from(a.is_some());
            let what = format!("{release} read {i}");
            let pair = [(&mut one, a, &mut out_1), (&mut two, b, &mut out_2)];
            in_step(pair, x % 4 == 0, x % 5 != 0, &what);
        }
        for f in 0..6 {
            assert!(one.streams(f).eq(two.streams(f)), "{release} file {f}");
        }
        // The comparison covered matched streams and prefetch reads, not
        // only the exits (7,983–19,020 matches and 21,349–37,685 reads
        // over these releases when written).
        let issued = one.stats().io_issued;
        assert!(
            streams > 5_000 && issued > 10_000,
            "{release}: {streams} matches, {issued} reads"
        );
    }
}
