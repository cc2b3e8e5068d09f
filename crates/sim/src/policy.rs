//! The one trait every replacement policy implements, and the kinds that name them.

use arclab_arc::Request;
use std::fmt;
use std::str::FromStr;

/// A cache replacement policy driven one request at a time.
///
/// Capacities and sizes are in the policy's unit: bytes in byte mode, objects
/// in object mode (where the replay engine hands every request with
/// `size == 1`). A policy never sees the wall clock.
pub trait Policy {
    /// Process one request and report whether it was a hit.
    ///
    /// A miss admits the object (evicting others until it fits) unless it is
    /// larger than the whole cache, which libCacheSim does not admit either.
    fn access(&mut self, req: &Request) -> bool;

    /// A hint that `key` is about to be accessed: stage 0 starts loading its
    /// table bucket, stage 1 its node (issue stage 0 further ahead). Never
    /// changes a result; the default does nothing.
    #[inline(always)]
    fn prefetch(&self, key: u64, stage: u8) {
        let _ = (key, stage);
    }

    /// The capacity given at construction, in the policy's unit.
    fn capacity(&self) -> u64;

    /// Sum of the sizes of the resident objects.
    fn occupied(&self) -> u64;

    /// Number of resident objects.
    fn resident(&self) -> usize;

    /// Number of objects the policy tracks, resident or as history (ghosts).
    fn tracked(&self) -> usize;

    /// Bytes of heap the policy's own structures hold now (tables, nodes, lists).
    fn heap_bytes(&self) -> usize;

    /// Check every invariant of the policy's state; `Err` names the first that fails.
    ///
    /// Called after every access in property tests and fuzz targets, never on
    /// the replay hot path.
    fn check_invariants(&self) -> Result<(), String>;
}

/// The policies arclab ships, named as on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PolicyKind {
    /// Least recently used.
    Lru,
    /// First in, first out.
    Fifo,
    /// Canonical ARC (Megiddo & Modha, FAST '03).
    Arc,
    /// S3-FIFO (Yang et al., SOSP '23).
    S3Fifo,
    /// SIEVE (Zhang et al., NSDI '24).
    Sieve,
}

impl PolicyKind {
    /// Every kind, in a stable order.
    pub const ALL: [PolicyKind; 5] = [
        PolicyKind::Lru,
        PolicyKind::Fifo,
        PolicyKind::Arc,
        PolicyKind::S3Fifo,
        PolicyKind::Sieve,
    ];

    /// The command-line name (`lru`, `fifo`, `arc`, `s3fifo`, `sieve`).
    pub const fn name(self) -> &'static str {
        match self {
            PolicyKind::Lru => "lru",
            PolicyKind::Fifo => "fifo",
            PolicyKind::Arc => "arc",
            PolicyKind::S3Fifo => "s3fifo",
            PolicyKind::Sieve => "sieve",
        }
    }
}

impl fmt::Display for PolicyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown policy name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownPolicy(pub String);

impl fmt::Display for UnknownPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = PolicyKind::ALL.iter().map(|k| k.name()).collect();
        write!(
            f,
            "unknown policy `{}` (known: {})",
            self.0,
            names.join(", ")
        )
    }
}

impl std::error::Error for UnknownPolicy {}

impl FromStr for PolicyKind {
    type Err = UnknownPolicy;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let norm: String = s
            .chars()
            .filter(|c| !matches!(c, '-' | '_'))
            .flat_map(char::to_lowercase)
            .collect();
        Ok(match norm.as_str() {
            "lru" => PolicyKind::Lru,
            "fifo" => PolicyKind::Fifo,
            "arc" => PolicyKind::Arc,
            "s3fifo" => PolicyKind::S3Fifo,
            "sieve" => PolicyKind::Sieve,
            _ => return Err(UnknownPolicy(s.to_string())),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for k in PolicyKind::ALL {
            assert_eq!(k.name().parse::<PolicyKind>().unwrap(), k);
        }
        assert_eq!("S3-FIFO".parse::<PolicyKind>().unwrap(), PolicyKind::S3Fifo);
        assert!("lfu".parse::<PolicyKind>().is_err());
    }
}
