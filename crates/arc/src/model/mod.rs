//! The OpenZFS ARC engine, version-aware (spec `shared/design/zfs-arc.md`
//! §1–§9; `docs/model.md` lists what is modelled, simplified and left out).
//!
//! [`ArcCache`] replays [`crate::Request`]s on a logical clock taken from
//! `Request::time_ns`: byte-sized data and metadata buffers in the states
//! anon, MRU, MFU, their ghosts and uncached; `arc_access` transitions with
//! the 62 ms promotion window and the prefetch flag rules; adaptation of
//! `meta/pd/pm` (2.2+) or `arc_p` (≤2.1) from ghost hits; growth of `c`,
//! the reap thread, the Linux shrinker / FreeBSD lowmem handler, overflow
//! levels and the evict thread; reads in flight, dirty buffers and txg
//! syncs; memory the ARC cannot evict. [`Behaviour`] holds every version
//! boundary the engine uses.
//!
//! ```
//! use arclab_arc::model::{ArcCache, ArcConfig, Behaviour, Outcome, render_arcstats};
//! use arclab_arc::{Request, block_key};
//!
//! let cfg = ArcConfig::new(16 << 30).with_behaviour(Behaviour::preset("2.3").unwrap());
//! let mut arc = ArcCache::new(cfg);
//! let k = block_key(7, 0, 42);
//! assert!(matches!(arc.access(&Request::read(0, k, 131072)), Outcome::Miss { ghost: None }));
//! // 1 ms later the 100 µs read has completed: a hit.
//! assert_eq!(arc.access(&Request::read(1_000_000, k, 131072)), Outcome::Hit);
//! let s = arc.stats();
//! assert_eq!((s.hits, s.misses, s.mru_hits), (1, 1, 1));
//! arc.check_invariants().unwrap();
//! assert!(render_arcstats(&s, arc.behaviour()).contains("\nmfu_hits "));
//! ```

mod access;
mod behaviour;
mod check;
mod config;
mod engine;
mod evict;
mod holds;
mod host;
mod kstat;
mod multilist;
mod stats;

pub use access::{GhostKind, Outcome, ReadFlags};
pub use behaviour::{AdjConsts, Behaviour, Overflow, Reduce, SizeSum, Split};
pub use config::{ArcConfig, HostConfig, Miniature, Tunables};
pub use engine::{ArcCache, State};
pub use evict::{adapt_p_value, arc_evict_adj, highbit64};
pub use host::MAX_TIME_NS;
pub use kstat::{field_names, render_arcstats};
pub use stats::{ArcStats, ModelStats};
