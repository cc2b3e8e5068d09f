//! Idle time costs nothing (issue #10 item 2): the clock jumps idle stretches
//! and gives exactly the counters of stepping through every timed event.
//!
//! The reference is the engine itself with `set_idle_jump(false)`, which
//! steps every 100 ms reclaim, 1 s reap and 5 s txg event from t = 0 (the
//! behaviour before the jump existed). Every arcstats field and every model
//! extra must be equal, for every release family, on a workload that goes
//! through memory pressure, pinned memory, a permanent deficit, writes,
//! prefetches and idle gaps.

use arclab_arc::model::{ArcCache, ArcConfig, ArcStats, Behaviour, MAX_TIME_NS};
use arclab_arc::{Kind, Op, Request, block_key};

const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;
const SEC: u64 = 1_000_000_000;
const RAM: u64 = 2 * GIB;
const N: usize = 40_000;

/// What happens before request `i`: a memory event.
#[derive(Clone, Copy)]
enum Host {
    Demand(u64),
    Pinned(u64, u64, u64),
}

fn host_event(i: usize) -> Option<Host> {
    match i {
        12_000 => Some(Host::Demand(RAM * 3 / 4)),
        20_000 => Some(Host::Pinned(120 * MIB, 40 * MIB, 8 * MIB)),
        26_000 => Some(Host::Demand(0)),
        // A deficit the ARC can never cover: reclaim and reap act every
        // period until the end, through the idle gaps and the outlier.
        32_000 => Some(Host::Demand(RAM + GIB)),
        _ => None,
    }
}

/// A deterministic mixed workload: ~3 GiB of 128 KiB blocks (above every
/// cap on a 2 GiB host), reads with a hot set, prefetches, indirect blocks,
/// writes and frees; 20–80 µs apart with idle gaps of 12.3 s and 37 s.
fn workload() -> Vec<Request> {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut t = 3 * SEC / 10 + 1234;
    let mut v = Vec::with_capacity(N);
    for i in 0..N {
        let r = next();
        t += 20_000 + r % 60_000;
        if i % 7_000 == 6_999 {
            t += 12 * SEC + 300_000_000;
        }
        if i % 11_000 == 10_999 {
            t += 37 * SEC;
        }
        let hot = r % 10 < 6;
        let blk = if hot {
            (r >> 8) % 2_000
        } else {
            (r >> 8) % 24_000
        };
        let mut q = Request::read(t, block_key(1 + (blk % 4) as u32, 0, blk), 128 << 10);
        match (r >> 40) % 20 {
            0 | 1 => q.op = Op::Write,
            2 => q.op = Op::Delete,
            3 | 4 => q.prefetch = true,
            5 => {
                q.key = block_key(9, 1, blk / 128);
                q.kind = Kind::Metadata;
                q.size = 16 << 10;
            }
            _ => {}
        }
        v.push(q);
    }
    v
}

fn run(preset: &str, freebsd: bool, reqs: &[Request], jump: bool) -> (ArcStats, ArcCache) {
    let mut cfg = ArcConfig::new(RAM).with_behaviour(Behaviour::preset(preset).unwrap());
    if freebsd {
        cfg = cfg.with_os(arclab_arc::Os::FreeBSD);
    }
    let mut a = ArcCache::new(cfg);
    a.set_idle_jump(jump);
    for (i, q) in reqs.iter().enumerate() {
        match host_event(i) {
            Some(Host::Demand(d)) => a.set_other_demand(d),
            Some(Host::Pinned(x, y, z)) => a.set_pinned(x, y, z),
            None => {}
        }
        a.access(q);
    }
    // Let the last reads complete and the last txg sync.
    let end = reqs.last().unwrap().time_ns.saturating_add(10 * SEC);
    a.advance_to(end);
    a.check_invariants().unwrap();
    (a.stats(), a)
}

fn shifted(reqs: &[Request], by: u64) -> Vec<Request> {
    reqs.iter()
        .map(|q| Request {
            time_ns: q.time_ns + by,
            ..*q
        })
        .collect()
}

fn with_outlier(reqs: &[Request], gap: u64) -> Vec<Request> {
    let mut v = reqs.to_vec();
    let last = v.last().unwrap().time_ns;
    // A re-read of a hot block long after the rest.
    v.push(Request::read(last + gap, block_key(1, 0, 4), 128 << 10));
    v
}

const PRESETS: [(&str, bool); 8] = [
    ("0.7.13", false),
    ("0.8.6", false),
    ("2.0.7", false),
    ("2.1.4", false),
    ("2.1.16", false),
    ("2.2", false),
    ("2.3", false),
    ("2.3", true),
];

#[test]
fn jumping_equals_stepping_on_every_release() {
    let w = workload();
    for (p, bsd) in PRESETS {
        let (step, a) = run(p, bsd, &w, false);
        let (jump, b) = run(p, bsd, &w, true);
        assert_eq!(
            step, jump,
            "{p} freebsd={bsd}: jumped idle gaps changed the counters"
        );
        assert_eq!(a.idle_jumps(), 0);
        assert!(b.idle_jumps() > 0, "{p}: the idle gaps were not jumped");
        assert!(b.periodic_runs() < a.periodic_runs());
        // The permanent deficit is seen by the counters (the jump extrapolated them).
        assert!(jump.model.pressure_deficit_byte_seconds > 0.0);
        assert!(jump.model.reap_steps > 0, "{p}");
    }
}

#[test]
fn a_far_outlier_equals_stepping_and_costs_o1() {
    let w = workload();
    // 6 hours after the last request, under a permanent deficit: stepping
    // does 216,000 reclaim events, the jump a few dozen.
    let gap = 6 * 3600 * SEC;
    let o = with_outlier(&w, gap);
    for (p, bsd) in PRESETS {
        let (step, a) = run(p, bsd, &o, false);
        let (jump, b) = run(p, bsd, &o, true);
        assert_eq!(step, jump, "{p} freebsd={bsd}: outlier");
        assert!(a.periodic_runs() > gap / (100 * 1_000_000));
        let (_, plain) = run(p, bsd, &w, true);
        assert!(
            b.periodic_runs() <= plain.periodic_runs() + 300,
            "{p}: the 6 h gap cost {} periodic runs over {}",
            b.periodic_runs(),
            plain.periodic_runs()
        );
    }
}

#[test]
fn unix_time_shift_gives_the_same_counters_with_bounded_work() {
    let w = workload();
    // 1.7e9 s (Unix time of 2023) is a whole number of 5 s txg periods,
    // so every timed event keeps its phase relative to the requests.
    let shift = 1_700_000_000 * SEC;
    let s = shifted(&w, shift);
    for (p, bsd) in PRESETS {
        let (base, a) = run(p, bsd, &w, false);
        let (mut moved, b) = run(p, bsd, &s, true);
        assert_eq!(moved.model.time_ns, base.model.time_ns + shift);
        moved.model.time_ns = base.model.time_ns;
        assert_eq!(base, moved, "{p} freebsd={bsd}: shift by 1.7e9 s");
        // Stepping would take 1.7e10 reclaim events; the jump takes one
        // verification period (50 events) and at most one more.
        assert!(
            b.periodic_runs() <= a.periodic_runs() + 150,
            "{p}: {} periodic runs shifted vs {} stepped",
            b.periodic_runs(),
            a.periodic_runs()
        );
    }
}

#[test]
fn times_beyond_the_model_horizon_are_clamped_in_o1() {
    let w = workload();
    let mut o = with_outlier(&w, 0);
    o.last_mut().unwrap().time_ns = u64::MAX;
    let (s, a) = run("2.3", false, &o, true);
    assert_eq!(s.model.time_ns, MAX_TIME_NS);
    let (_, plain) = run("2.3", false, &w, true);
    assert!(a.periodic_runs() <= plain.periodic_runs() + 300);
    // ~146 years of a 1 s reap step under a deficit that never ends:
    // one step per second, extrapolated (not stepped).
    assert!(s.model.reap_steps > MAX_TIME_NS / SEC / 2);
}
