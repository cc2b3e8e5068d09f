//! Deterministic bounded Zipf request streams (shared by tests and benches).

#![allow(dead_code, unreachable_pub)]

use arclab_arc::Request;

/// splitmix64: a tiny, good, deterministic PRNG.
pub struct SplitMix(pub u64);

impl SplitMix {
    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// `n_req` requests drawn from Zipf(`alpha`) over `n_obj` objects (rank r has
/// weight 1/r^alpha), each of `size` bytes. Ranks are scrambled into keys by
/// an odd multiplier so hot keys are not adjacent integers.
pub fn zipf_requests(n_req: usize, n_obj: usize, alpha: f64, size: u32, seed: u64) -> Vec<Request> {
    let mut cdf = Vec::with_capacity(n_obj);
    let mut acc = 0.0f64;
    for r in 1..=n_obj {
        acc += 1.0 / (r as f64).powf(alpha);
        cdf.push(acc);
    }
    let total = acc;
    let mut rng = SplitMix(seed);
    (0..n_req)
        .map(|t| {
            let u = rng.next_f64() * total;
            let rank = cdf.partition_point(|&c| c <= u).min(n_obj - 1) as u64;
            let key = rank.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x5bd1_e995;
            Request::read(t as u64, key, size)
        })
        .collect()
}
