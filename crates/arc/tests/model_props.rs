//! Property tests: random request streams keep every invariant of the engine
//! (`check_invariants` after every step) for every preset.

use arclab_arc::model::{ArcCache, ArcConfig, Behaviour, ReadFlags};
use arclab_arc::{Kind, Op, Request, block_key};
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Step {
    Req {
        dt_us: u64,
        file: u32,
        level: u8,
        blk: u64,
        size_sect: u32,
        op: u8,
        meta: bool,
        pf: bool,
        presc: bool,
    },
    ArcMax(u64),
    Demand(u64),
    Pinned(u64),
    Idle(u64),
    Hold(u32, u64),
    Release(u32, u64),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        20 => (0u64..100_000, 0u32..4, 0u8..3, 0u64..64, 1u32..=256, 0u8..10, any::<bool>(), any::<bool>(), any::<bool>())
            .prop_map(|(dt_us, file, level, blk, size_sect, op, meta, pf, presc)| Step::Req {
                dt_us, file, level, blk, size_sect, op, meta, pf, presc
            }),
        1 => (64u64..512).prop_map(|m| Step::ArcMax(m << 20)),
        1 => (0u64..1200).prop_map(|m| Step::Demand(m << 20)),
        1 => (0u64..64).prop_map(|m| Step::Pinned(m << 20)),
        1 => (0u64..3_000_000).prop_map(Step::Idle),
        1 => (0u32..4, 0u64..64).prop_map(|(f, b)| Step::Hold(f, b)),
        1 => (0u32..4, 0u64..64).prop_map(|(f, b)| Step::Release(f, b)),
    ]
}

fn run(preset: &str, steps: &[Step], small: bool) -> Result<(), TestCaseError> {
    let mut cfg = ArcConfig::new(1 << 30).with_behaviour(Behaviour::preset(preset).unwrap());
    if small {
        // Shrink everything so that eviction, ghosts and overflow happen.
        cfg.tunables.max_recordsize = 256 << 10;
    }
    let mut arc = ArcCache::new(cfg);
    let mut t = 0u64;
    for s in steps {
        match *s {
            Step::Req {
                dt_us,
                file,
                level,
                blk,
                size_sect,
                op,
                meta,
                pf,
                presc,
            } => {
                t += dt_us * 1000;
                let op = match op {
                    0..=6 => Op::Read,
                    7 | 8 => Op::Write,
                    _ => Op::Delete,
                };
                let r = Request {
                    time_ns: t,
                    key: block_key(file, level, blk),
                    size: size_sect * 512,
                    op,
                    kind: if meta { Kind::Metadata } else { Kind::Data },
                    prefetch: pf && op == Op::Read,
                };
                arc.access_with(
                    &r,
                    ReadFlags {
                        prescient: presc,
                        uncached: false,
                    },
                );
            }
            Step::ArcMax(m) => {
                let _ = arc.set_arc_max(m);
            }
            Step::Demand(d) => arc.set_other_demand(d),
            Step::Pinned(p) => arc.set_pinned(p / 2, p / 4, p / 4),
            Step::Idle(us) => {
                t += us * 1000;
                arc.advance_to(t);
            }
            Step::Hold(f, b) => {
                arc.hold(block_key(f, 0, b));
            }
            Step::Release(f, b) => {
                arc.release(block_key(f, 0, b));
            }
        }
        arc.check_invariants()
            .map_err(|e| TestCaseError::fail(format!("{preset}: {e} after {s:?}")))?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn invariants_hold_for_every_preset(steps in prop::collection::vec(step(), 1..400)) {
        for p in ["0.7", "2.1", "2.2", "2.2.6", "2.3.0", "2.3"] {
            run(p, &steps, true)?;
        }
    }

    #[test]
    fn invariants_hold_with_default_margins(steps in prop::collection::vec(step(), 1..300)) {
        run("2.3", &steps, false)?;
        run("2.1", &steps, false)?;
    }
}
