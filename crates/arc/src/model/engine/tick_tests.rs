//! `set_tick` against the kernel's division.

use super::super::ArcConfig;
use super::ArcCache;

/// The kernel's tick of a time: `ns · HZ / 10⁹`, as a wrapping u32.
fn kernel_tick(ns: u64, hz: u32) -> u32 {
    (u128::from(ns) * u128::from(hz) / 1_000_000_000) as u32
}

#[test]
fn set_tick_agrees_with_the_division_forward_back_and_across_ticks() {
    // 1000 divides 10⁹ (ticks of equal length, the span path); 300 does
    // not (a division every time).
    for hz in [1000, 250, 300] {
        let mut cfg = ArcConfig::new(8 << 30);
        cfg.tunables.hz = hz;
        let mut a = ArcCache::new(cfg);
        let ms = 1_000_000u64;
        let times = [
            0,
            1,
            ms - 1,
            ms,
            ms + 1,
            3 * ms / 2,
            4 * ms - 1,
            4 * ms,
            3_333_333,
            3_333_334,
            2 * ms,
            0,
            7_000_000_123,
            7_000_000_122,
            u64::MAX / 2,
            u64::MAX - 1,
            u64::MAX,
            5,
        ];
        for &t in &times {
            a.set_tick(t);
            assert_eq!(a.tick, kernel_tick(t, hz), "hz {hz}, t {t} ns");
        }
    }
}
