//! One cache request, as every reader produces it and every policy consumes it.

/// What a request does to the object.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[repr(u8)]
pub enum Op {
    /// A read (a `get`). Also used when the source does not say.
    #[default]
    Read = 0,
    /// A write (a `set`).
    Write = 1,
    /// A delete; replay treats it like a read unless a policy says otherwise.
    Delete = 2,
}

/// Whether the block holds file data or metadata (indirect blocks, dnodes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[repr(u8)]
pub enum Kind {
    /// File contents.
    #[default]
    Data = 0,
    /// Metadata.
    Metadata = 1,
}

/// One request of a trace.
///
/// The layout is kept small (24 bytes) because replay moves millions of these
/// per second through the cache.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Request {
    /// Logical time of the request in nanoseconds since the start of the
    /// trace's own clock (never the wall clock).
    pub time_ns: u64,
    /// Object (block) identifier.
    pub key: u64,
    /// Size of the object in bytes (1 for traces without sizes).
    pub size: u32,
    /// Read, write or delete.
    pub op: Op,
    /// Data or metadata.
    pub kind: Kind,
    /// Whether the request was issued by a prefetcher rather than on demand.
    pub prefetch: bool,
}

impl Request {
    /// A demand read of `size` bytes of data at `time_ns`.
    #[inline]
    pub const fn read(time_ns: u64, key: u64, size: u32) -> Self {
        Request {
            time_ns,
            key,
            size,
            op: Op::Read,
            kind: Kind::Data,
            prefetch: false,
        }
    }

    /// The request's time in whole seconds (rounded down).
    #[inline]
    pub const fn time_secs(&self) -> u64 {
        self.time_ns / 1_000_000_000
    }
}

/// Bits of a [`block_key`] holding the block id.
const BLKID_BITS: u32 = 40;

/// The ARC identity of block `blkid` at `level` of object `file`:
/// `file << 41 | min(level, 1) << 40 | blkid mod 2^40`. Any level > 0 is an
/// indirect block (metadata, with the young-indirect eviction skip). Only
/// the low 23 bits of `file` fit (higher bits are shifted out).
#[inline]
pub const fn block_key(file: u32, level: u8, blkid: u64) -> u64 {
    let lvl = if level > 0 { 1 } else { 0 };
    ((file as u64) << (BLKID_BITS + 1)) | (lvl << BLKID_BITS) | (blkid & ((1 << BLKID_BITS) - 1))
}

/// The object of a [`block_key`].
#[inline]
pub const fn key_file(key: u64) -> u32 {
    (key >> (BLKID_BITS + 1)) as u32
}

/// The level flag of a [`block_key`]: 0 for data blocks, 1 for indirect blocks.
#[inline]
pub const fn key_level(key: u64) -> u8 {
    ((key >> BLKID_BITS) & 1) as u8
}

/// The block id of a [`block_key`].
#[inline]
pub const fn key_blkid(key: u64) -> u64 {
    key & ((1 << BLKID_BITS) - 1)
}

#[cfg(test)]
mod tests {
    #[test]
    fn block_key_round_trips() {
        let k = block_key(0x7f_ffff, 3, (1 << 40) + 5);
        assert_eq!((key_file(k), key_level(k), key_blkid(k)), (0x7f_ffff, 1, 5));
        assert_eq!(block_key(1, 0, 2), (1 << 41) | 2);
    }

    use super::*;

    #[test]
    fn request_stays_small() {
        assert_eq!(std::mem::size_of::<Request>(), 24);
    }

    #[test]
    fn seconds_round_down() {
        assert_eq!(Request::read(2_999_999_999, 1, 1).time_secs(), 2);
    }
}
