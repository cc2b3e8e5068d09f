//! A fast hasher for the `u64` keys of the per-object maps (hashbrown is built
//! without its default hasher in this workspace).

use std::hash::{BuildHasherDefault, Hasher};

/// Mixes a `u64` key with a multiply / xor-shift finaliser.
#[derive(Default, Clone, Copy)]
pub(crate) struct KeyHasher(u64);

impl Hasher for KeyHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }

    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(self.0.rotate_left(8) ^ b as u64);
        }
    }

    #[inline]
    fn write_u64(&mut self, x: u64) {
        let mut h = (x ^ self.0).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        h ^= h >> 32;
        self.0 = h.wrapping_mul(0xd6e8_feb8_6659_fd93) ^ (h >> 29);
    }
}

/// A hashbrown map keyed by object id.
pub(crate) type KeyMap<V> = hashbrown::HashMap<u64, V, BuildHasherDefault<KeyHasher>>;
