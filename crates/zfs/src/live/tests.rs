//! Tests of the live view: RAM split, rates, events and history.

use super::*;
use crate::arcstats::parse_arcstats;

fn kstat(rows: &[(&str, u64)], snaptime: u64) -> String {
    let mut t = format!("22 1 0x01 {} 0 5 {snaptime}\nname type data\n", rows.len());
    for (n, v) in rows {
        t.push_str(&format!("{n} 4 {v}\n"));
    }
    t
}

fn sample(rows: &[(&str, u64)], snaptime: u64, arc_max: Option<u64>) -> Sample {
    Sample {
        kstats: Kstats {
            name: "t".into(),
            arc: parse_arcstats(&kstat(rows, snaptime), "t").unwrap(),
            zfetch: None,
            dbuf: None,
        },
        meminfo: None,
        params: arc_max.map(|a| ModuleParams {
            arc_max: Some(a),
            ..ModuleParams::default()
        }),
    }
}

const G: u64 = 1 << 30;

fn base(c: u64, size: u64, c_max: u64, throttle: u64, no_grow: u64) -> Vec<(&'static str, u64)> {
    vec![
        ("hits", 1000),
        ("misses", 10),
        ("mru_ghost_hits", 0),
        ("mfu_ghost_hits", 0),
        ("c", c),
        ("c_min", G),
        ("c_max", c_max),
        ("size", size),
        ("memory_throttle_count", throttle),
        ("arc_no_grow", no_grow),
    ]
}

#[test]
fn the_fixture_ram_split_adds_up_and_reclaimable_is_the_evictable_part() {
    // data/arcstats/linux-openzfs22plus-telegraf.arcstats: size 14960038920,
    // c_min 1047890560, memory_all_bytes 33532497920, memory_free_bytes 5194235904;
    // evictable = mru_evictable_{data,metadata} 2661687808 + 324192768
    // + mfu_evictable_{data,metadata} 7483030528 + 393818112 (anon, uncached 0).
    let text = std::fs::read_to_string(arclab_testdata::path(
        "arcstats/linux-openzfs22plus-telegraf.arcstats",
    ))
    .unwrap();
    let arc = parse_arcstats(&text, "f").unwrap();
    let st = status::explain(&arc, None, None, None, "f").unwrap();
    let mem = Meminfo {
        total_bytes: 33_532_497_920,
        available_bytes: Some(4 * G),
    };
    let ram = Ram::of(&st, &arc, Some(&mem)).unwrap();
    let evictable = 2_661_687_808 + 324_192_768 + 7_483_030_528 + 393_818_112;
    assert_eq!(ram.arc_evictable, Some(evictable));
    assert_eq!(ram.arc_non_evictable, Some(14_960_038_920 - evictable));
    assert_eq!(ram.free, Some(5_194_235_904));
    assert_eq!(ram.other, 33_532_497_920 - 14_960_038_920 - 5_194_235_904);
    // Non-evictable (4.1 GB) is above c_min (1.0 GB): reclaimable is the evictable part.
    assert_eq!(ram.arc_reclaimable, evictable);
    assert_eq!(ram.really_available, Some(4 * G + evictable));
}

#[test]
fn c_falling_throttle_no_grow_and_arc_max_are_events() {
    let a = sample(&base(8 * G, 9 * G, 16 * G, 0, 0), 10_000_000_000, Some(0));
    let b = sample(
        &base(6 * G, 7 * G, 8 * G, 3, 1),
        11_000_000_000,
        Some(8 * G),
    );
    let r = Rates::between(a.arc(), b.arc(), 1.0);
    let ev = events(&a, &b, &r, 1.0);
    assert!(ev.contains(&EventKind::CFell {
        from: 8 * G,
        to: 6 * G,
        given_back: 2 * G,
        at_min: false
    }));
    assert!(ev.contains(&EventKind::NoGrow(true)));
    assert!(ev.contains(&EventKind::MemoryThrottle(3)));
    assert!(ev.contains(&EventKind::ArcMaxChanged {
        c_max: (16 * G, 8 * G),
        param: Some((0, 8 * G)),
        in_force: Some(true)
    }));
    assert!(!ev.iter().any(|e| matches!(e, EventKind::Missed { .. })));
    // A rejected value (below 64 MiB): c_max stays, the event says so.
    let c = sample(
        &base(6 * G, 7 * G, 8 * G, 3, 1),
        12_000_000_000,
        Some(1 << 20),
    );
    let r = Rates::between(b.arc(), c.arc(), 1.0);
    let ev = events(&b, &c, &r, 1.0);
    let m = ev
        .iter()
        .find(|e| matches!(e, EventKind::ArcMaxChanged { .. }))
        .unwrap();
    assert_eq!(m.level(), Level::Warn);
    assert!(message(m).contains("NOT in force"), "{}", message(m));
    assert_eq!(ev.len(), 1, "{ev:?}");
}

#[test]
fn c_at_c_min_and_missed_intervals_and_resets() {
    let a = sample(&base(8 * G, 9 * G, 16 * G, 0, 0), 10_000_000_000, None);
    let mut rows = base(G, 5 * G, 16 * G, 0, 0);
    rows[0] = ("hits", 5);
    // 5 s between snaptimes at a 1 s interval: 4 intervals missed.
    let b = sample(&rows, 15_000_000_000, None);
    let mut live = Live::new(a, 1.0, 100).unwrap();
    live.push(b, 5.0, 1);
    let kinds: Vec<&EventKind> = live.events.iter().map(|e| &e.kind).collect();
    assert!(
        kinds.contains(&&EventKind::Reset(vec!["hits".into()])),
        "{kinds:?}"
    );
    assert!(kinds.contains(&&EventKind::Missed {
        intervals: 4,
        seconds: 5.0
    }));
    assert!(kinds.contains(&&EventKind::CFell {
        from: 8 * G,
        to: G,
        given_back: 4 * G,
        at_min: true
    }));
    assert_eq!((live.missed, live.resets, live.samples), (4, 1, 2));
    // 4 gaps, then the interval itself (hits reset: no hits rate).
    let h = live.history.get(Metric::Hits);
    assert_eq!(h.len(), 5);
    assert!(h.iter().all(Option::is_none));
    // misses 10 → 10 over 5 s: 0/s.
    assert_eq!(live.history.get(Metric::Misses).back(), Some(&Some(0.0)));
}

#[test]
fn history_and_events_are_bounded() {
    let mut h = History::new(usize::MAX);
    assert_eq!(h.capacity(), MAX_HISTORY);
    h.gaps(u64::MAX);
    assert_eq!(h.get(Metric::Reads).len(), MAX_HISTORY);
    let a = sample(&base(8 * G, 9 * G, 16 * G, 0, 0), 10_000_000_000, None);
    let mut live = Live::new(a, 1.0, 10).unwrap();
    for i in 0..(MAX_EVENTS as u64 + 20) {
        live.read_failed(format!("e{i}"), i);
    }
    assert_eq!(live.events.len(), MAX_EVENTS);
    assert_eq!(live.history.get(Metric::Reads).len(), 10);
}

#[test]
fn a_pause_is_not_a_missed_interval_but_its_changes_are_events() {
    let a = sample(&base(8 * G, 9 * G, 16 * G, 0, 0), 10_000_000_000, None);
    let b = sample(&base(4 * G, 9 * G, 16 * G, 0, 0), 70_000_000_000, None);
    let mut live = Live::new(a, 1.0, 100).unwrap();
    live.resume(b, 60.0, 7);
    let kinds: Vec<&EventKind> = live.events.iter().map(|e| &e.kind).collect();
    assert_eq!(kinds.len(), 2, "{kinds:?}");
    assert_eq!(kinds[0], &EventKind::Paused(60.0));
    assert!(matches!(kinds[1], EventKind::CFell { given_back: 0, .. }));
    assert_eq!(live.missed, 0);
    // The screen shows the sample taken at resume.
    assert_eq!(live.status.c_bytes, 4 * G);
}

#[test]
fn demand_prefetch_and_ghost_rates() {
    let rows = |d: u64, p: u64, g: u64| {
        vec![
            ("hits", 0u64),
            ("misses", 0),
            ("demand_data_hits", 9 * d),
            ("demand_data_misses", d),
            ("prefetch_data_hits", p),
            ("prefetch_data_misses", p),
            ("mru_ghost_hits", g),
            ("mfu_ghost_hits", 2 * g),
        ]
    };
    let a = parse_arcstats(&kstat(&rows(0, 0, 0), 1_000_000_000), "a").unwrap();
    let b = parse_arcstats(&kstat(&rows(10, 50, 4), 3_000_000_000), "b").unwrap();
    let r = Rates::between(&a, &b, 9.0);
    assert_eq!(r.demand_reads, Some(50.0));
    assert_eq!(r.demand_hit_pct, Some(90.0));
    assert_eq!(r.prefetch_reads, Some(50.0));
    assert_eq!(r.prefetch_hit_pct, Some(50.0));
    assert_eq!(r.ghost_hits, Some(6.0));
    assert_eq!((r.mru_ghost_hits, r.mfu_ghost_hits), (Some(2.0), Some(4.0)));
    assert_eq!(hit_level(Some(90.0)), Level::Good);
    assert_eq!(hit_level(Some(89.9)), Level::Warn);
    assert_eq!(hit_level(Some(69.9)), Level::Bad);
    assert_eq!(ghost_level(Some(6.0), Some(100.0)), Level::Bad);
    assert_eq!(ghost_level(Some(0.5), Some(100.0)), Level::Good);
}
