//! Unit tests of the ZFS model as a replay target.

use super::prefetch_reads::OPEN_RUNS;
use super::*;
use arclab_arc::model::Behaviour;

fn spec(prefetch: bool) -> ZfsSpec {
    ZfsSpec::new(
        ArcConfig::new(8 << 30)
            .with_behaviour(Behaviour::preset("2.3").unwrap())
            .with_arc_max(1 << 30),
        prefetch,
        false,
    )
}

/// A sequential reader of 128 KiB blocks, one every 10 ms.
fn sequential(z: &mut ZfsArc, n: u64) -> u64 {
    (0..n)
        .filter(|&i| !z.access(&Request::read(i * 10_000_000, 1000 + i, 128 << 10)))
        .count() as u64
}

#[test]
fn prefetch_turns_sequential_misses_into_hits() {
    let mut on = ZfsArc::new(&spec(true));
    let mut off = ZfsArc::new(&spec(false));
    let (m_on, m_off) = (sequential(&mut on, 500), sequential(&mut off, 500));
    // Without prefetch every block of a one-pass read is a miss.
    assert_eq!(m_off, 500);
    // With it, the stream is detected after the first reads and the rest
    // arrive before they are demanded.
    assert!(m_on < 10, "misses with prefetch: {m_on}");
    let s = on.stats();
    assert!(s.demand_hit_predictive_prefetch > 400, "{s:?}");
    assert_eq!(off.stats().predictive_prefetch, 0);
    let z = on.zfetch_stats().unwrap();
    assert!(z.hits > 400 && z.misses >= 1, "{z:?}");
    on.check_invariants().unwrap();
}

/// A sampled run of a sequential file starts at block 256: the shadow
/// reads of blocks 128..256 stand for the whole stream, which had missed
/// at the file's start and so was prefetching (from 2.2 `dmu_zfetch_run`
/// issues data prefetch only once `zs_missed` is set). The run's first
/// block must then be on its way, as in the whole replay, not a demand
/// miss that starts the stream.
#[test]
fn a_sampled_runs_first_block_was_prefetched_by_the_stream() {
    let mut z = ZfsArc::new(&ZfsSpec {
        block_keys: true,
        ..spec(true)
    });
    let t = 1_000_000_000;
    let first = Request::read(t, block_key(7, 0, 256), 128 << 10);
    z.shadow_reads(&first, 128);
    assert!(z.access(&first), "the run's first block missed");
    let misses = (257..300u64)
        .filter(|&b| {
            !z.access(&Request::read(
                t + (b - 256) * 1_000_000,
                block_key(7, 0, b),
                128 << 10,
            ))
        })
        .count();
    assert_eq!(misses, 0);
    assert_eq!(z.stats().demand_data_misses, 0);
}

#[test]
fn block_keys_keep_files_apart_for_the_prefetcher() {
    // Two files read sequentially, interleaved: with block keys the
    // prefetcher sees two streams and serves both.
    let mut z = ZfsArc::new(&ZfsSpec {
        block_keys: true,
        ..spec(true)
    });
    let mut misses = 0;
    for i in 0..400u64 {
        let key = block_key(1 + (i % 2) as u32, 0, 10 + i / 2);
        misses += u64::from(!z.access(&Request::read(i * 10_000_000, key, 128 << 10)));
    }
    assert!(misses < 10, "misses: {misses}");
    assert!(z.zfetch_stats().unwrap().hits > 380);
}

#[test]
fn prefetch_reads_form_runs_of_consecutive_blocks() {
    let b = 128 << 10;
    let mut p = PrefetchReads::default();
    // Two streams interleaved (files 1 and 2): two runs of 4.
    for i in 0..4 {
        p.note(1, 0, 100 + i, b);
        p.note(2, 0, 500 + i, b);
    }
    // A gap in file 1 starts a new run; an L1 block is its own level.
    p.note(1, 0, 110, b);
    p.note(1, 1, 104, b);
    assert_eq!((p.reads, p.bytes), (10, 10 * u64::from(b)));
    assert_eq!(p.runs(), vec![(b, 1, 2), (b, 4, 2)]);
    // The warm-up ends: counts restart, a run in progress goes on and
    // counts only what follows.
    p.restart();
    p.note(2, 0, 504, b);
    p.note(2, 0, 505, b);
    assert_eq!((p.reads, p.runs()), (2, vec![(b, 2, 1)]));
    // Sixteen more streams: the four runs extended longest ago are
    // closed (file 1's three, empty since the restart, and file 2's
    // two), and the runs still hold every read once; file 2 then starts
    // over, closing the oldest of the sixteen.
    for f in 10..26 {
        p.note(f, 0, 0, b);
    }
    assert_eq!(p.open.len(), OPEN_RUNS);
    assert_eq!(p.runs(), vec![(b, 1, 16), (b, 2, 1)]);
    p.note(2, 0, 506, b);
    assert_eq!(p.runs(), vec![(b, 1, 16 + 1), (b, 2, 1)]);
}

#[test]
fn psize_rounds_to_sectors_and_keeps_blocks_that_save_too_little() {
    let k128 = 128 << 10;
    assert_eq!(psize(k128, 1.0), k128);
    assert_eq!(psize(k128, 2.0), 64 << 10);
    // 131,072 / 1.5 = 87,381.3 B -> 22 sectors of 4 KiB.
    assert_eq!(psize(k128, 1.5), 22 * 4096);
    // 1.1: 30 sectors = 122,880 B saves less than 1/8 (16 KiB): stored as is.
    assert_eq!(psize(k128, 1.1), k128);
    assert_eq!(psize(4096, 3.0), 4096);
    assert_eq!(psize(k128, f64::NAN), k128);
}

#[test]
fn compressed_blocks_let_a_cap_hold_more_logical_data() {
    // 1.5 GiB of 128 KiB blocks read twice under a 1 GiB cap, prefetch
    // off, no indirect blocks: at ratio 2 the ARC holds 768 MiB of
    // compressed blocks and the second pass is all hits; uncompressed, the
    // pass does not fit.
    let n = 12_288u64;
    let run = |ratio: f64| {
        let mut z = ZfsArc::new(&ZfsSpec {
            indirect_reads: false,
            compress_ratio: ratio,
            ..spec(false)
        });
        let mut hits = 0;
        for pass in 0..2u64 {
            for b in 0..n {
                let t = (pass * n + b) * 1_000_000;
                let hit = z.access(&Request::read(t, b, 128 << 10));
                hits += u64::from(pass == 1 && hit);
            }
        }
        z.check_invariants().unwrap();
        (hits, z.stats())
    };
    let (h2, s2) = run(2.0);
    assert_eq!(h2, n);
    assert_eq!(s2.data_size, n * (64 << 10));
    assert_eq!(s2.compressed_size, s2.data_size);
    assert_eq!(s2.uncompressed_size, n * (128 << 10));
    let (h1, s1) = run(1.0);
    assert!(h1 < n / 2, "{h1}");
    assert_eq!(s1.uncompressed_size, s1.compressed_size);
}

#[test]
fn large_keys_are_hashed_into_block_space() {
    let k = 1u64 << 50;
    assert!(ZfsArc::blkid_of(k) <= BLKID_MASK);
    assert_eq!(ZfsArc::blkid_of(12345), 12345);
}

/// `dmu_buf_hold_array_by_dnode` (2.1–2.3) tells `dmu_zfetch_run` the read
/// missed when its dbuf is not `DB_CACHED` after `dbuf_read`, and a block
/// still being read (an I/O hit: the NOWAIT read joins the I/O in flight)
/// is not. From 2.2 a stream issues data prefetch only once it has missed,
/// so a stream whose first demand read joins an I/O in flight starts
/// prefetching at once.
#[test]
fn an_io_hit_counts_as_missed_for_the_stream() {
    let run = |in_flight: bool| {
        let mut z = ZfsArc::new(&spec(true));
        let t = 1_000_000_000;
        if in_flight {
            // Block 1002 is already being read (someone's prefetch); the
            // device takes 100 µs.
            let key = block_key(0, 0, ZfsArc::blkid_of(1002));
            let pre = Request {
                prefetch: true,
                ..Request::read(t, key, 128 << 10)
            };
            assert!(matches!(z.arc.access(&pre), Outcome::Miss { .. }));
        }
        // Block 1001 matches no stream: one is created at 1002.
        assert!(!z.access(&Request::read(t, 1001, 128 << 10)));
        // Block 1002, 1 µs later: the stream's first hit.
        let served = z.access(&Request::read(t + 1_000, 1002, 128 << 10));
        let s = z.stats();
        let zs = z.zfetch_stats().unwrap();
        assert_eq!((zs.hits, zs.misses), (1, 1), "{zs:?}");
        (served, s.demand_data_iohits, s.predictive_prefetch)
    };
    // The stream prefetches block 1003 (one predictive prefetch besides
    // the one in flight).
    assert_eq!(
        run(true),
        (true, 1, 2),
        "served, iohits, predictive prefetches"
    );
    // Without the read in flight block 1002 is a plain miss: the same
    // prefetch.
    assert_eq!(run(false), (false, 0, 1));
}

/// `dbuf_prefetch_impl` issues nothing for a block whose dbuf exists
/// (`dbuf_find`, then `no_issue`: not counted in `io_issued`, no
/// `arc_read`). A sequential reader of blocks 900–1,099 of a large file
/// reaches, through the prefetcher's L1 window, indirect block 1 (blocks
/// 1,024–2,047) before it reads there: without its dbuf that is a prefetch
/// of metadata from the pool; after a read of block 1,500 has left the L1's
/// dbuf in the dbuf cache, it is nothing.
#[test]
fn an_indirect_prefetch_whose_dbuf_exists_issues_nothing() {
    let run = |l1_cached: bool| {
        let mut sp = spec(true);
        sp.blocks_per_file = Some(1 << 20);
        sp.indirect_reads = true;
        let mut z = ZfsArc::new(&sp);
        let mut t = 1_000_000_000;
        if l1_cached {
            z.access(&Request::read(t, 1500, 128 << 10));
            t += 10_000_000;
        }
        for b in 900..1100 {
            z.access(&Request::read(t, b, 128 << 10));
            t += 10_000_000;
        }
        let s = z.stats();
        let zs = z.zfetch_stats().unwrap();
        (
            s.prefetch_metadata_hits + s.prefetch_metadata_misses,
            zs.io_issued,
            s.predictive_prefetch,
        )
    };
    let (meta_cached, issued_cached, pf_cached) = run(true);
    let (meta, issued, pf) = run(false);
    // The L1 window (spec §10.3, item 6) runs from the data window's end
    // (the read + 32 blocks once `pf_dist` is 4 MiB) for `ipf_dist`, which
    // doubles on every hit to 128 MiB = 1,024 blocks: within the first ten
    // hits it passes block 1,024 (indirect block 1), and at block 992 it
    // reaches 992 + 32 + 1,024 = 2,048 (indirect block 2). Without the
    // dbuf both are prefetched; with block 1,500's L1 in the dbuf cache
    // only block 2: one metadata prefetch, one predictive prefetch and one
    // `io_issued` fewer, the data prefetches the same.
    assert_eq!(meta, 2, "indirect prefetches without the dbuf");
    assert_eq!(meta_cached, 1, "and with block 1's dbuf cached");
    assert_eq!(pf - pf_cached, 1);
    assert_eq!(issued - issued_cached, 1);
}

/// A generated workload's replay (block keys), prefetch off, on a host
/// holding `held` bytes of dnodes; its reads through the dbuf cache
/// (`dmu_reads`) or the ARC alone.
fn generated(dmu_reads: bool, held: u64) -> ZfsArc {
    ZfsArc::new(&ZfsSpec {
        block_keys: true,
        dmu_reads,
        pinned: [held, 0, 0],
        ..spec(false)
    })
}

/// A block of dnodes opened again and again while data streams through a
/// full ARC whose metadata is over its share (held dnodes): `dnode_hold`
/// holds the block's dbuf, and the release leaves it in the dbuf cache
/// (`dbuf_rele_and_unlock`: no holds, cacheable → `DB_DBUF_CACHE`; "DMU
/// dnode" is not a metadata-cache type in `dmu_ot`), where it keeps its
/// ARC buffer referenced, so the ARC cannot evict it. Every open after the
/// first is then an `arc_buf_access` (0.8+: counted as a demand metadata
/// hit) and no disk read. As plain ARC reads (a capture's, already behind
/// the host's dbuf cache) the same block is evictable metadata, which an
/// eviction between two opens may take (the bound below only asks that it
/// happens at all, often).
#[test]
fn a_generated_dnode_block_stays_in_the_dbuf_cache_between_opens() {
    let run = |dmu_reads: bool| {
        let mut z = generated(dmu_reads, 600 << 20);
        let dnode_block = block_key(4000, 0, 0);
        let mut opens = 0;
        let mut open_misses = 0;
        // 10 s: a 128 KiB data block every 0.5 ms (2.5 GiB through a 1 GiB
        // cap), an open of the block every 20 ms.
        for i in 0..20_000u64 {
            let t = i * 500_000;
            if i % 40 == 0 {
                let open = Request {
                    time_ns: t,
                    key: dnode_block,
                    size: 16 << 10,
                    op: Op::Read,
                    kind: Kind::Metadata,
                    prefetch: false,
                };
                opens += 1;
                open_misses += u64::from(!z.access(&open));
            }
            z.access(&Request::read(t, block_key(1, 0, i), 128 << 10));
        }
        z.check_invariants().unwrap();
        (opens, open_misses, z.stats())
    };
    let (opens, with_dbuf, s) = run(true);
    assert_eq!(opens, 500);
    assert_eq!(with_dbuf, 1, "only the first open reads the block");
    assert_eq!(s.demand_metadata_misses, 1, "{s:?}");
    assert_eq!(s.demand_metadata_hits, 499, "{s:?}");
    let (_, without, _) = run(false);
    assert!(
        without >= 20,
        "as ARC reads the block was kept: {without} misses"
    );
}

/// A cap below what the host holds (2 GiB of dnodes against a 1 GiB cap):
/// the ARC stays above its target and evicts whatever becomes evictable,
/// so a block read through the ARC alone lives only until the next
/// eviction. A generated workload's data read is a `dbuf_hold` whose
/// release leaves the data dbuf in the dbuf cache (`dbuf_rele_and_unlock`,
/// `primarycache=all`), holding its ARC buffer, so a hot block read every
/// 10 ms among a stream of cold ones stays there (c/32 = 32 MiB of
/// dbufs, trimmed from the least recently released), and every re-read
/// after the first is an `arc_buf_access` hit. A write to it drops the
/// dbuf (the next read finds no dbuf).
#[test]
fn data_dbufs_stay_cached_when_the_arc_cannot_get_below_its_cap() {
    let run = |dmu_reads: bool| {
        let mut z = generated(dmu_reads, 2 << 30);
        let hot = block_key(9, 0, 0);
        let mut hot_misses = 0;
        for i in 0..20_000u64 {
            let t = i * 500_000;
            if i % 20 == 0 {
                hot_misses += u64::from(!z.access(&Request::read(t, hot, 128 << 10)));
            }
            z.access(&Request::read(t, block_key(1, 0, i), 128 << 10));
        }
        z.check_invariants().unwrap();
        (hot_misses, z)
    };
    let (with_dbufs, mut z) = run(true);
    assert_eq!(with_dbufs, 1, "the hot block left the dbuf cache");
    let (without, _) = run(false);
    assert!(
        without > 500,
        "through the ARC alone the hot block stayed: {without} misses of 1,000"
    );
    // A write drops its dbuf: the block is no longer held by the cache.
    let t = 20_000 * 500_000;
    let hot = block_key(9, 0, 0);
    let w = Request {
        op: Op::Write,
        ..Request::read(t, hot, 128 << 10)
    };
    z.access(&w);
    assert!(!z.dmu.as_mut().unwrap().has_block(hot));
    z.check_invariants().unwrap();
}

/// A stream of distinct 128 KiB reads, one every 10 ms, into a 256 MiB ARC
/// (arcstats read after every `kstat_every` requests), up to the first
/// `arc_evict`: the ARC's (`c`, size) after each read before it, and the
/// read at which it ran.
fn until_first_eviction(kstat_every: u64) -> (Vec<(u64, u64)>, usize) {
    let mut config = ArcConfig::new(8 << 30)
        .with_behaviour(Behaviour::preset("2.3").unwrap())
        .with_arc_max(256 << 20);
    // The burst at the wake-up itself, so the wake-up is what is measured.
    config.tunables.evict_delay_ns = 0;
    let mut s = ZfsSpec::new(config, false, false);
    s.kstat_every = kstat_every;
    let mut z = ZfsArc::new(&s);
    let mut seen = Vec::new();
    for i in 0..10_000u64 {
        z.access(&Request::read(i * 10_000_000, 1000 + i, 128 << 10));
        let st = z.stats();
        if st.model.evict_runs > 0 {
            return (seen, i as usize);
        }
        seen.push((st.c, st.size));
    }
    panic!("no eviction in 10,000 reads");
}

/// `arc_is_overflowing` (2.3.9) wakes the evict thread once the lower bound
/// of `arcstat_size`'s per-CPU sum exceeds `c` by `zfs_max_recordsize`
/// (16 MiB), checked before the new buffer is added; between folds a bucket
/// hides up to its borrow (2 MiB, 16 of these buffers, and up to twice that
/// behind). A read of arcstats (`arc_kstat_update` takes `aggsum_value`)
/// folds the buckets, so read after every request the check sees the exact
/// size: the first eviction comes at the first read that finds the ARC 16
/// MiB over `c`, and without the reads up to 32 buffers later. (The oracle's
/// harness reads arcstats every 1,000 requests, and instrumented arc.c
/// starts bursts right after those reads: docs/oracle.md.)
#[test]
fn an_arcstats_read_lets_the_overflow_check_see_the_exact_size() {
    const RECORDSIZE: u64 = 16 << 20;
    let (seen, exact) = until_first_eviction(1);
    let (c, size) = seen[exact - 1];
    assert!(
        size >= c + RECORDSIZE,
        "woken at read {exact}: size {size}, c {c}"
    );
    let (c, size) = seen[exact - 2];
    assert!(
        size < c + RECORDSIZE,
        "not woken at read {}: size {size}, c {c}",
        exact - 1
    );
    let (_, lagged) = until_first_eviction(0);
    assert!(
        lagged > exact && lagged <= exact + 32,
        "without arcstats reads the first eviction is at read {lagged}, with them at {exact}"
    );
}

/// Metadata held from the start (`ZfsSpec::held_metadata`, what the oracle's
/// pool import keeps referenced) is charged to the ARC's size and metadata
/// and is never evicted, however far a stream of reads pushes past `c`.
#[test]
fn held_metadata_counts_in_the_size_and_is_never_evicted() {
    const HELD: u64 = 860_672;
    let mut s = spec(false);
    s.held_metadata = HELD;
    let mut z = ZfsArc::new(&s);
    let mut plain = ZfsArc::new(&spec(false));
    let st = z.stats();
    assert_eq!(st.size, plain.stats().size + HELD);
    assert!(st.metadata_size >= HELD, "{st:?}");
    for i in 0..20_000u64 {
        let r = Request::read(i * 1_000_000, 1000 + i, 128 << 10);
        z.access(&r);
        plain.access(&r);
    }
    let (st, p) = (z.stats(), plain.stats());
    assert!(st.model.evict_runs > 0);
    assert!(
        st.metadata_size >= HELD + p.metadata_size,
        "held {HELD}, metadata {} against {} without",
        st.metadata_size,
        p.metadata_size
    );
    z.check_invariants().unwrap();
}

/// `access_batch` (keys mapped and hashed once per batch, memory hints
/// ahead) is `access` on each request in turn: for plain keys (small, and
/// large ones hashed into block space), files of 64 and of 1,000 blocks (a
/// power of two placed by a shift, the other by a division) with indirect
/// reads, and block keys through the dbuf cache, with and without the
/// prefetcher, served flags, arcstats, zfetchstats and prefetch reads
/// are the same; batches of 1, 7 and 4,096 requests (shorter than the
/// hints' reach, and longer).
#[test]
fn a_batch_is_its_requests_in_turn() {
    let specs = |prefetch: bool| {
        let base = spec(prefetch);
        [
            base.clone(),
            ZfsSpec {
                blocks_per_file: Some(64),
                indirect_reads: true,
                ..base.clone()
            },
            ZfsSpec {
                blocks_per_file: Some(1000),
                indirect_reads: true,
                ..base.clone()
            },
            ZfsSpec {
                block_keys: true,
                dmu_reads: true,
                ..base
            },
        ]
    };
    // Sequential runs and random reads over a space 4× the cap, some keys
    // beyond the block space; a write or a delete now and then.
    let mut rng = crate::workload::rng::Rng::new(7);
    let (mut next, mut t) = (0u64, 0u64);
    let reqs: Vec<Request> = (0..30_000)
        .map(|i| {
            let x = rng.next_u64();
            t += 20_000 + x % 40_000;
            next = if !x.is_multiple_of(4) {
                next + 1
            } else {
                x % 32_768
            };
            let key = if x.is_multiple_of(97) {
                next | 1 << 50
            } else {
                next
            };
            let mut r = Request::read(t, key, 128 << 10);
            r.op = match i % 500 {
                17 => Op::Write,
                251 => Op::Delete,
                _ => Op::Read,
            };
            r
        })
        .collect();
    for prefetch in [false, true] {
        for (k, sp) in specs(prefetch).iter().enumerate() {
            let mut one = ZfsArc::new(sp);
            let each: Vec<bool> = reqs.iter().map(|r| one.access(r)).collect();
            for len in [1, 7, 4096] {
                let mut many = ZfsArc::new(sp);
                let mut served = Vec::new();
                for b in reqs.chunks(len) {
                    many.access_batch(b, |_, s| served.push(s));
                }
                let what = format!("spec {k}, prefetch {prefetch}, batches of {len}");
                assert_eq!(served, each, "{what}");
                assert_eq!(many.stats(), one.stats(), "{what}");
                assert_eq!(many.zfetch_stats(), one.zfetch_stats(), "{what}");
                assert_eq!(many.prefetch_reads(), one.prefetch_reads(), "{what}");
            }
            // The comparison saw hits and misses alike.
            let hits = each.iter().filter(|&&s| s).count();
            assert!(hits > 3_000 && hits < 27_000, "spec {k}: {hits} served");
        }
    }
}
