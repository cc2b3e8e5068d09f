//! Spatial sampling for miniature simulation (Waldspurger et al., ATC'17;
//! `shared/design/cache-sim-anchors.md` §4).
//!
//! A [`SpatialSampler`] keeps a request iff the hash of its key falls below
//! `R · 2^64`, so every request of a kept block is kept and the sample is a
//! fraction R of the *blocks*, not of the requests. Running a cache of size
//! `R · C` on the sample approximates a cache of size `C` on the full trace.
//! The miss ratio is estimated as `misses_sampled / (R · N)` with N the
//! number of requests in the full trace ([`scaled_miss_ratio`]): dividing by
//! the sample's own request count instead is biased by the few hot blocks a
//! small sample happens to contain (the anchors measured 0.073 vs 0.0073
//! mean absolute error at R = 0.01). A generated workload's random
//! components are kept by popularity rank instead of by hash
//! ([`SampleUnits`]), so that a sample holds its share of the hottest
//! blocks, neither more nor fewer.
//!
//! ```
//! use arclab_sim::sample::{SpatialSampler, scaled_miss_ratio};
//!
//! let s = SpatialSampler::new(0.01, 0);
//! let kept = (0..1_000_000u64).filter(|&k| s.keep(k)).count();
//! assert!((9_000..11_000).contains(&kept));
//! // 90 misses among the sampled requests of a 1 M request trace at R = 1 %.
//! assert!((scaled_miss_ratio(90, 0.01, 1_000_000) - 0.009).abs() < 1e-12);
//! assert!(SpatialSampler::new(1.0, 0).keep(u64::MAX));
//! ```

use arclab_arc::slab::hash_key;
use arclab_arc::{key_blkid, key_file, key_level};

use crate::workload::COMPONENT_FILES_SHIFT;

/// The longest sampling unit: 2^4 = 16 blocks (2 MiB of 128 KiB records).
/// A stream in a miniature reads ahead to its unit's end, and that data is
/// not scaled by R: a 16 MiB unit is a quarter of a 64 MiB miniature ARC,
/// where the whole replay's stream holds at most `zfetch_max_distance`
/// (64 MiB) of a 1 GiB one. Measured (`bench/workloads/backup-heavy.toml`,
/// eight caps 1–16 GiB, R = 0.01, mean of four salts' MAE, homelab
/// scenario / a bare 32 GiB host): 2^7 0.0164 / 0.0103, 2^6 0.0198 /
/// 0.0143, 2^5 0.0125 / 0.0037, **2^4 0.0055 / 0.0027**, 2^3 0.0046 /
/// 0.0035, 2^2 0.0040 / 0.0030; `mixture`, `loop`, `scan` and the homelab
/// unchanged (their units are shorter anyway). It also bounds the reads a
/// sampled run tells the prefetcher about at each unit's start.
pub const MAX_UNIT_SHIFT: u8 = 4;

/// How many consecutive data blocks a sampling unit holds, per workload
/// component: 2^`shift[c]` blocks of each file of component `c` are kept or
/// dropped together. A sample of single blocks has no sequential run left,
/// so the prefetcher in the miniature never finds a stream; a sample of
/// runs keeps the sequential components' streams whole inside each unit
/// (see `docs/whatif.md`, "Sampling"). All zero: block by block.
///
/// A random component (Zipf, OLTP) whose blocks' popularity ranks are known
/// is sampled **by rank** instead of by hash: its blocks in popularity order
/// are kept by a Weyl sequence (`rank · α + salt mod 1 < R`, α = √2 − 1), so
/// every stretch of m consecutive ranks keeps m·R of them, within one or
/// two, where a hash keeps a binomial number (sd √(m·R)). Each block is
/// still kept with probability R over salts; what changes is that a sample
/// can no longer hold too many or too few of the hottest blocks, the
/// miniature's main error on a heavy head (`docs/whatif.md`, "Sampling").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SampleUnits {
    shift: [u8; 64],
    ranks: [RankOrder; 64],
}

/// How a random component's data blocks map back to their popularity
/// ranks: position `i = file · bpf + blkid` (the file counted within the
/// component) holds rank `i · inv mod n`, the inverse of the generator's
/// scatter (`rank · m mod n`). `n == 0`: the component is not ranked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct RankOrder {
    n: u64,
    inv: u64,
    bpf: u64,
}

/// The largest component sampled by rank: its position times the scatter's
/// inverse fits in 64 bits.
const MAX_RANKED: u64 = 1 << 32;

/// The Weyl step that orders ranks: (√2 − 1) · 2^64. Not the golden ratio,
/// which the generator's scatter multiplier already derives from.
const RANK_STEP: u64 = 0x6a09_e667_f3bc_c908;

impl Default for SampleUnits {
    fn default() -> Self {
        SampleUnits::BLOCKS
    }
}

impl SampleUnits {
    /// Block by block everywhere.
    pub const BLOCKS: SampleUnits = SampleUnits {
        shift: [0; 64],
        ranks: [RankOrder {
            n: 0,
            inv: 0,
            bpf: 0,
        }; 64],
    };

    /// Units of 2^`shift` blocks for component `component` (0..64; others
    /// are ignored), shifts above [`MAX_UNIT_SHIFT`] clamped.
    pub fn with(mut self, component: usize, shift: u8) -> SampleUnits {
        if let Some(s) = self.shift.get_mut(component) {
            *s = shift.min(MAX_UNIT_SHIFT);
        }
        self
    }

    /// Component `component` sampled by rank: its `n` ≤ 2^32 blocks, `bpf`
    /// per file, hold rank r at position `r · m mod n` (`m` coprime with
    /// `n`, the generator's scatter). Unchanged when `n` is 0 or too large,
    /// `m` not invertible, or `component` ≥ 64.
    pub(crate) fn with_ranks(mut self, component: usize, n: u64, m: u64, bpf: u64) -> SampleUnits {
        if let (Some(o), Some(inv)) = (self.ranks.get_mut(component), mod_inverse(m, n))
            && n <= MAX_RANKED
            && bpf > 0
        {
            *o = RankOrder { n, inv, bpf };
        }
        self
    }

    /// The same units with every component block by block (the prefetcher
    /// off): runs dropped, rank orders kept.
    pub fn without_runs(mut self) -> SampleUnits {
        self.shift = [0; 64];
        self
    }

    /// Whether any component samples by runs.
    pub fn grouped(&self) -> bool {
        self.shift.iter().any(|&s| s > 0)
    }

    /// Whether any component samples by rank.
    pub fn ranked(&self) -> bool {
        self.ranks.iter().any(|o| o.n > 0)
    }

    /// The point of `key` on its component's Weyl sequence (`rank ·
    /// RANK_STEP mod 2^64`) when it is a data block of a ranked component.
    #[inline]
    fn rank_point(&self, key: u64) -> Option<u64> {
        if key_level(key) != 0 {
            return None;
        }
        let file = key_file(key);
        let o = self.ranks.get((file >> COMPONENT_FILES_SHIFT) as usize)?;
        let blk = key_blkid(key);
        if o.n == 0 || blk >= o.bpf {
            return None;
        }
        let i = u64::from(file & ((1 << COMPONENT_FILES_SHIFT) - 1)) * o.bpf + blk;
        // i < n ≤ 2^32 and inv < n: the product fits.
        (i < o.n).then(|| (i * o.inv % o.n).wrapping_mul(RANK_STEP))
    }

    /// log2 of the blocks in `key`'s unit (0: a single block).
    #[inline]
    pub fn shift_of(&self, key: u64) -> u32 {
        if key_level(key) != 0 {
            return 0;
        }
        u32::from(self.shift[(key_file(key) >> COMPONENT_FILES_SHIFT) as usize & 63])
    }

    /// When `key` is the first block of a unit of more than one block: the
    /// unit's size in blocks (a sampled run tells the prefetcher about that
    /// many reads before it, `ZfsArc::shadow_reads`).
    #[inline]
    pub fn unit_start(&self, key: u64) -> Option<u64> {
        let g = self.shift_of(key);
        (g > 0 && key_blkid(key).trailing_zeros() >= g).then_some(1 << g)
    }

    /// The key standing for `key`'s unit: a data block's key with the low
    /// bits of its block id cleared; indirect blocks and keys of components
    /// sampled block by block are their own unit.
    #[inline]
    pub fn unit(&self, key: u64) -> u64 {
        let g = self.shift_of(key);
        key >> g << g
    }
}

/// Above this many requests `arclab whatif` samples by default (R = 0.01
/// when not told otherwise): 50 M requests take 5–10 s per run in the ZFS
/// model; the miniature runs ~30× faster with a miss-ratio error below 0.005
/// (`tests/sampling.rs`).
pub const AUTO_SAMPLE_ABOVE: u64 = 50_000_000;

/// The sampling rate `arclab whatif` uses when it samples on its own.
pub const DEFAULT_RATE: f64 = 0.01;

/// The fewest blocks of a workload's randomly read components (Zipf, OLTP:
/// sampled block by block) that a sample made on its own keeps. The error
/// of a sample follows how many of them it holds, not how many requests:
/// measured with `bench/sampling_error.py` (eight caps, prefetch on), the
/// homelab's ~2,200 at R = 0.01 gave a hit-ratio MAE of 0.0043; the Zipf
/// half of `bench/workloads/backup-heavy.toml` (32,768 blocks) gave 0.0144
/// with 328 of them (R = 0.01), 0.0075 with 1,638 (0.05) and 0.0040 with
/// 3,277 (0.1).
pub const MIN_SAMPLED_BLOCKS: u64 = 2048;

/// Above this rate a sample saves too little to pay for its error: the
/// workload is replayed whole.
pub const MAX_AUTO_RATE: f64 = 0.5;

/// The rate `arclab whatif` samples a generated workload at on its own:
/// none up to [`AUTO_SAMPLE_ABOVE`] requests; above, [`DEFAULT_RATE`],
/// raised so that the sample keeps [`MIN_SAMPLED_BLOCKS`] of the
/// `random_blocks` its random components read
/// ([`crate::workload::WorkloadSpec::random_blocks`]), and none again when
/// that would take more than [`MAX_AUTO_RATE`].
///
/// ```
/// use arclab_sim::sample::auto_rate;
/// assert_eq!(auto_rate(10_000_000, 1 << 20), None);
/// assert_eq!(auto_rate(1_900_000_000, 1 << 20), Some(0.01));
/// assert_eq!(auto_rate(1_900_000_000, 32_768), Some(0.0625));
/// assert_eq!(auto_rate(1_900_000_000, 0), Some(0.01));
/// assert_eq!(auto_rate(1_900_000_000, 3_000), None);
/// ```
pub fn auto_rate(requests: u64, random_blocks: u64) -> Option<f64> {
    if requests <= AUTO_SAMPLE_ABOVE {
        return None;
    }
    let r = if random_blocks == 0 {
        DEFAULT_RATE
    } else {
        DEFAULT_RATE.max(MIN_SAMPLED_BLOCKS as f64 / random_blocks as f64)
    };
    (r <= MAX_AUTO_RATE).then_some(r)
}

/// Keeps the keys whose hash falls below `rate · 2^64`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpatialSampler {
    rate: f64,
    /// The salt spread over 64 bits ([`salt_mix`]); it picks the sample.
    mixed_salt: u64,
    threshold: u64,
    all: bool,
    units: Option<SampleUnits>,
}

impl SpatialSampler {
    /// A sampler keeping about `rate` (clamped to (0, 1]) of the keys;
    /// `salt` picks which ones.
    pub fn new(rate: f64, salt: u64) -> Self {
        let rate = if rate.is_finite() && rate > 0.0 {
            rate.min(1.0)
        } else {
            f64::MIN_POSITIVE
        };
        let all = rate >= 1.0;
        let threshold = if all {
            u64::MAX
        } else {
            (rate * 18_446_744_073_709_551_616.0) as u64
        };
        SpatialSampler {
            rate,
            mixed_salt: salt_mix(salt),
            threshold,
            all,
            units: None,
        }
    }

    /// The same sampler keeping whole units of blocks (`units`) instead of
    /// single blocks, and random components' blocks by rank, where `units`
    /// says so.
    pub fn with_units(mut self, units: SampleUnits) -> Self {
        self.units = (units.grouped() || units.ranked()).then_some(units);
        self
    }

    /// The units it keeps, when it keeps runs of blocks.
    pub fn units(&self) -> Option<&SampleUnits> {
        self.units.as_ref()
    }

    /// The sampling rate R.
    pub fn rate(&self) -> f64 {
        self.rate
    }

    /// Whether requests for `key` belong to the sample.
    #[inline]
    pub fn keep(&self, key: u64) -> bool {
        if self.all {
            return true;
        }
        let key = match &self.units {
            Some(u) => {
                if let Some(p) = u.rank_point(key) {
                    return p.wrapping_add(self.mixed_salt) < self.threshold;
                }
                u.unit(key)
            }
            None => key,
        };
        hash_mixed(key, self.mixed_salt) < self.threshold
    }
}

/// The hash that decides a key's membership: the key mixed, then xored with
/// the salt mixed, then mixed again. One mix of `key ^ salt` is not enough:
/// the keys of a workload are a lattice (`file << 41 | blkid`, a few files of
/// a few blocks each) and a single fmix64 maps a lattice to a low-discrepancy
/// set, so the count below the threshold is nearly the same for every salt
/// and off by a fixed amount (measured on `zipf`, 81,694 keys, R = 0.003:
/// 265 kept for every salt, sd 0.9, where independent draws keep 245 ± 15.7),
/// which left the sample with too many cold blocks and every miniature low
/// (LRU at 4 GiB: 0.787 against 0.817 for the whole trace; see
/// `docs/whatif.md`, "Sampling").
#[inline(always)]
fn hash_mixed(key: u64, mixed_salt: u64) -> u64 {
    hash_key(hash_key(key) ^ mixed_salt)
}

/// A salt spread over all 64 bits (splitmix64's finalizer of `salt + γ`), so
/// neighbouring salts pick unrelated samples.
#[inline]
const fn salt_mix(salt: u64) -> u64 {
    let mut z = salt.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// `m⁻¹ mod n` (`None` when `m` and `n` share a factor or `n` is 0; 0 for
/// `n` = 1).
fn mod_inverse(m: u64, n: u64) -> Option<u64> {
    if n == 0 {
        return None;
    }
    let (mut r0, mut r1) = (i128::from(n), i128::from(m % n));
    let (mut t0, mut t1) = (0i128, 1i128);
    while r1 != 0 {
        let q = r0 / r1;
        (r0, r1) = (r1, r0 - q * r1);
        (t0, t1) = (t1, t0 - q * t1);
    }
    (r0 == 1 || n == 1).then(|| t0.rem_euclid(i128::from(n)) as u64)
}

/// The full trace's miss ratio estimated from a sample: `misses_sampled /
/// (R · n_total)`, clamped to [0, 1] (0 for an empty trace).
pub fn scaled_miss_ratio(misses_sampled: u64, rate: f64, n_total: u64) -> f64 {
    if n_total == 0 || rate <= 0.0 {
        return 0.0;
    }
    (misses_sampled as f64 / (rate * n_total as f64)).clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arclab_arc::block_key;

    #[test]
    fn units_keep_runs_of_a_sequential_components_blocks_together() {
        // Component 2 (files 2·2^17 ..) in runs of 2^4 blocks; component 1
        // block by block.
        let u = SampleUnits::BLOCKS.with(2, 4);
        assert!(u.grouped() && !SampleUnits::BLOCKS.grouped());
        // Units never exceed 2^MAX_UNIT_SHIFT blocks (the prefetcher is told
        // that many reads at a unit's start).
        let big = SampleUnits::BLOCKS.with(0, 40);
        assert_eq!(big.shift_of(block_key(3, 0, 0)), u32::from(MAX_UNIT_SHIFT));
        let f2 = 2 << 17;
        assert_eq!(u.shift_of(block_key(f2 + 5, 0, 37)), 4);
        assert_eq!(u.unit(block_key(f2 + 5, 0, 37)), block_key(f2 + 5, 0, 32));
        assert_eq!(u.shift_of(block_key(f2, 1, 37)), 0, "indirect blocks");
        assert_eq!(u.unit_start(block_key(f2 + 5, 0, 32)), Some(16));
        assert_eq!(u.unit_start(block_key(f2 + 5, 0, 37)), None);
        assert_eq!(
            u.unit_start(block_key(1 << 17, 0, 32)),
            None,
            "block by block"
        );
        assert_eq!(u.unit(block_key(1 << 17, 0, 37)), block_key(1 << 17, 0, 37));
        let s = SpatialSampler::new(0.1, 0).with_units(u);
        let kept: Vec<u64> = (0..16_000)
            .filter(|&b| s.keep(block_key(f2, 0, b)))
            .collect();
        // Whole units of 16: about 100 of 1,000.
        assert!((50..150).contains(&(kept.len() / 16)), "{}", kept.len());
        for w in kept.chunks(16) {
            assert_eq!(w[0] % 16, 0);
            assert_eq!(w[15], w[0] + 15);
        }
        // A lower rate with the same units keeps a subset.
        let low = SpatialSampler::new(0.02, 0).with_units(u);
        assert!((0..16_000).all(|b| !low.keep(block_key(f2, 0, b)) || s.keep(block_key(f2, 0, b))));
    }

    /// The inverse the rank order relies on: `m · m⁻¹ ≡ 1 (mod n)`.
    #[test]
    fn mod_inverse_inverts() {
        for (m, n) in [
            (3, 7),
            (crate::workload::rng::scatter_multiplier(81_920), 81_920),
            (5, 1 << 32),
            (1, 1),
        ] {
            let inv = mod_inverse(m, n).unwrap();
            assert_eq!(
                u128::from(m) * u128::from(inv) % u128::from(n),
                1 % u128::from(n)
            );
        }
        assert_eq!(mod_inverse(6, 9), None);
        assert_eq!(mod_inverse(3, 0), None);
    }

    /// A ranked component (the built-in `zipf`: 81,920 blocks, 1,024 per
    /// file, hot ranks scattered by the generator's multiplier) keeps one
    /// block in every stretch of 100 consecutive ranks at R = 0.01, give or
    /// take one, and j ± 4 of the first 100·j ranks, for every salt (a Weyl
    /// sequence's discrepancy grows like log j; 3 at most over 64 salts,
    /// computed apart): a hash keeps a Poisson(1) number per stretch, 3 or
    /// more in 8 % of them, and strays by √j. Over salts each rank is still
    /// kept with probability R.
    #[test]
    fn a_ranked_component_keeps_every_stretch_of_ranks_evenly() {
        use crate::workload::rng::{scatter, scatter_multiplier};
        let (n, bpf) = (81_920u64, 1024u64);
        let m = scatter_multiplier(n);
        let units = SampleUnits::BLOCKS.with_ranks(1, n, m, bpf);
        assert!(units.ranked() && !units.grouped());
        let base = 1u32 << COMPONENT_FILES_SHIFT;
        let key = |r: u64| {
            let i = scatter(r, m, n);
            block_key(base + (i / bpf) as u32, 0, i % bpf)
        };
        for salt in 0..16 {
            let s = SpatialSampler::new(0.01, salt).with_units(units);
            let mut total = 0u64;
            for w in 0..n / 100 {
                let kept = (w * 100..(w + 1) * 100).filter(|&r| s.keep(key(r))).count() as u64;
                assert!(kept <= 2, "salt {salt}: {kept} kept of ranks {}..", w * 100);
                total += kept;
                assert!(
                    total.abs_diff(w + 1) <= 4,
                    "salt {salt}: {total} kept of {} ranks",
                    (w + 1) * 100
                );
            }
            // A lower rate keeps a subset; indirect blocks and other
            // components are hashed as before.
            let low = SpatialSampler::new(0.002, salt).with_units(units);
            assert!((0..n).all(|r| !low.keep(key(r)) || s.keep(key(r))));
            let hashed = SpatialSampler::new(0.01, salt);
            for k in [
                block_key(base, 1, 3),
                block_key(2 * base, 0, 7),
                block_key(base, 0, bpf),
            ] {
                assert_eq!(s.keep(k), hashed.keep(k));
            }
        }
        // Rank 0, the hottest, over 2,000 salts: Binomial(2000, 0.01),
        // mean 20, sd 4.4.
        let hot = (0..2000)
            .filter(|&salt| {
                SpatialSampler::new(0.01, salt)
                    .with_units(units)
                    .keep(key(0))
            })
            .count();
        assert!(
            (7..=33).contains(&hot),
            "rank 0 kept by {hot} of 2,000 salts"
        );
        // A hash, for contrast, keeps stretches unevenly.
        let s = SpatialSampler::new(0.01, 0);
        let lumpy = (0..n / 100)
            .filter(|w| (w * 100..(w + 1) * 100).filter(|&r| s.keep(key(r))).count() > 2)
            .count();
        assert!(lumpy > 20, "{lumpy} stretches with 3 or more");
    }

    /// Each key must be kept independently with probability R, whatever the
    /// keys' structure: over salts, the number kept out of n keys is then
    /// Binomial(n, R) (mean nR, standard deviation √(nR(1−R)), textbook
    /// numbers, not this code's). The keys here are the built-in `zipf`
    /// workload's: blocks 0..1024 of files 0..80 (`block_key(file, 0,
    /// blkid)`), on which one fmix64 of `key ^ salt` kept 265 of 81,694 keys
    /// for every salt at R = 0.003 (sd 0.9 where the binomial's is 15.6).
    #[test]
    fn lattice_keys_are_kept_independently_for_every_salt() {
        let keys: Vec<u64> = (0..80u32)
            .flat_map(|f| (0..1024u64).map(move |b| block_key(f, 0, b)))
            .collect();
        let (n, r) = (keys.len() as f64, 0.003);
        let counts: Vec<f64> = (0..64)
            .map(|salt| {
                let s = SpatialSampler::new(r, salt);
                keys.iter().filter(|&&k| s.keep(k)).count() as f64
            })
            .collect();
        let mean = counts.iter().sum::<f64>() / counts.len() as f64;
        let sd = (counts.iter().map(|c| (c - mean).powi(2)).sum::<f64>()
            / (counts.len() - 1) as f64)
            .sqrt();
        let (want_mean, want_sd) = (n * r, (n * r * (1.0 - r)).sqrt());
        // The mean of 64 draws is within 4 standard errors of nR; the
        // sample's sd within a factor 1.6 of the binomial's (for 64 draws its
        // own relative error is ~9 %).
        assert!(
            (mean - want_mean).abs() < 4.0 * want_sd / 8.0,
            "mean kept {mean:.1}, binomial {want_mean:.1}"
        );
        assert!(
            sd > want_sd / 1.6 && sd < want_sd * 1.6,
            "sd of kept {sd:.1}, binomial {want_sd:.1}"
        );
        // Salts pick unrelated samples: two neighbouring salts share about R
        // of their keys, not most of them.
        let (a, b) = (SpatialSampler::new(0.1, 4), SpatialSampler::new(0.1, 5));
        let both = keys.iter().filter(|&&k| a.keep(k) && b.keep(k)).count() as f64;
        assert!(both < 3.0 * n * 0.1 * 0.1, "{both} keys in both samples");
    }
}
