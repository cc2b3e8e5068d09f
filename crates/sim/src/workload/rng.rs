//! A small seeded PRNG (xoshiro256** seeded through splitmix64) and an O(1)
//! Zipf sampler (rejection-inversion, Hörmann & Derflinger 1996).

/// splitmix64: one step of the seed sequence.
pub(crate) fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// xoshiro256**: fast, small, and good enough for workload generation.
#[derive(Clone, Debug)]
pub(crate) struct Rng {
    s: [u64; 4],
}

impl Rng {
    /// A generator whose whole state is derived from `seed`.
    pub(crate) fn new(seed: u64) -> Rng {
        let mut sm = seed;
        Rng {
            s: [
                splitmix64(&mut sm),
                splitmix64(&mut sm),
                splitmix64(&mut sm),
                splitmix64(&mut sm),
            ],
        }
    }

    #[inline]
    pub(crate) fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1).
    #[inline]
    pub(crate) fn f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in [0, n) (n > 0), by multiply-shift.
    #[inline]
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// Exponential with mean `mean` (Poisson inter-arrival times).
    #[inline]
    pub(crate) fn exp(&mut self, mean: f64) -> f64 {
        -(1.0 - self.f64()).ln() * mean
    }
}

/// Zipf(α) over ranks 1..=n: P(k) ∝ k^-α. Rejection-inversion: O(1) time
/// and memory per sample whatever `n` (about 1.1 uniform draws per sample).
#[derive(Clone, Debug)]
pub(crate) struct Zipf {
    n: f64,
    alpha: f64,
    h_x1: f64,
    h_n: f64,
    s: f64,
}

fn helper1(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.ln_1p() / x
    } else {
        1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x))
    }
}

fn helper2(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.exp_m1() / x
    } else {
        1.0 + x * 0.5 * (1.0 + x / 3.0 * (1.0 + 0.25 * x))
    }
}

impl Zipf {
    /// Zipf over `n` ≥ 1 ranks with exponent `alpha` ≥ 0.
    pub(crate) fn new(n: u64, alpha: f64) -> Zipf {
        let mut z = Zipf {
            n: n.max(1) as f64,
            alpha,
            h_x1: 0.0,
            h_n: 0.0,
            s: 0.0,
        };
        z.h_x1 = z.h_integral(1.5) - 1.0;
        z.h_n = z.h_integral(z.n + 0.5);
        z.s = 2.0 - z.h_integral_inv(z.h_integral(2.5) - z.h(2.0));
        z
    }

    fn h(&self, x: f64) -> f64 {
        (-self.alpha * x.ln()).exp()
    }

    fn h_integral(&self, x: f64) -> f64 {
        let lx = x.ln();
        helper2((1.0 - self.alpha) * lx) * lx
    }

    fn h_integral_inv(&self, x: f64) -> f64 {
        let t = (x * (1.0 - self.alpha)).max(-1.0);
        (helper1(t) * x).exp()
    }

    /// A rank in 1..=n.
    #[inline]
    pub(crate) fn sample(&self, rng: &mut Rng) -> u64 {
        loop {
            let u = self.h_n + rng.f64() * (self.h_x1 - self.h_n);
            let x = self.h_integral_inv(u);
            let k = (x + 0.5).floor().clamp(1.0, self.n);
            if k - x <= self.s || u >= self.h_integral(k + 0.5) - self.h(k) {
                return k as u64;
            }
        }
    }
}

/// A multiplier coprime with `n`, so `rank · m mod n` permutes 0..n: hot ranks
/// land on scattered blocks instead of one file's first blocks.
pub(crate) fn scatter_multiplier(n: u64) -> u64 {
    fn gcd(mut a: u64, mut b: u64) -> u64 {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    }
    if n <= 2 {
        return 1;
    }
    let mut m = 0x9E37_79B9_7F4A_7C15 % n;
    while m < 2 || gcd(m, n) != 1 {
        m = (m + 1) % n;
    }
    m
}

/// `rank · m mod n` without overflow.
#[inline]
pub(crate) fn scatter(rank: u64, m: u64, n: u64) -> u64 {
    (u128::from(rank) * u128::from(m) % u128::from(n)) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zipf_matches_its_distribution() {
        let z = Zipf::new(100, 1.0);
        let mut rng = Rng::new(3);
        let mut counts = [0u64; 101];
        let n = 200_000;
        for _ in 0..n {
            counts[z.sample(&mut rng) as usize] += 1;
        }
        let h: f64 = (1..=100).map(|k| 1.0 / k as f64).sum();
        for k in [1usize, 2, 10, 100] {
            let want = n as f64 / (k as f64 * h);
            let got = counts[k] as f64;
            assert!(
                (got - want).abs() < 0.08 * want + 30.0,
                "rank {k}: {got} vs {want}"
            );
        }
        let u = Zipf::new(10, 0.0);
        assert!((0..1000).all(|_| (1..=10).contains(&u.sample(&mut rng))));
    }

    #[test]
    fn scatter_is_a_permutation() {
        for n in [1u64, 2, 7, 1024, 81_920] {
            let m = scatter_multiplier(n);
            let mut seen = vec![false; n as usize];
            for r in 0..n {
                seen[scatter(r, m, n) as usize] = true;
            }
            assert!(seen.iter().all(|&b| b), "n={n}");
        }
    }
}
