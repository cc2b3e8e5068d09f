//! `arclab-metrics`: time series for arclab — export files from
//! Prometheus-compatible servers, a local recording store, and honest
//! before/after comparisons.
//!
//! A tour, in the order the data flows:
//!
//! * [`promapi`]: a blocking `query_range` client (chunked under the server's
//!   points limit, retries with backoff, the server's own error messages);
//!   the network is injected through [`promapi::Transport`].
//! * [`export`]: the versioned, gzipped JSON export file, written atomically.
//! * [`store`]: the SQLite recording (WAL) of arcstats samples and change markers.
//! * [`series`]: series, data sets, counter-or-gauge classification (the
//!   arcstats field catalogue first, since node_exporter's Linux metrics are untyped).
//! * [`stats`]: small pure statistics, each with its reference.
//! * [`compare`]: the before/after comparison with batch-means uncertainty,
//!   derived ARC values and warnings; [`report`] renders it as text,
//!   Markdown, CSV, HTML and plots.
//! * [`time`], [`query`], [`synth`]: times and windows, selectors, generated data.
//!
//! The blog post's numbers, from data generated to match it:
//!
//! ```
//! use arclab_metrics::{compare, synth, time::Window};
//! let data = synth::blog("nas:9100");
//! let opts = compare::Options::new(
//!     Window::parse(synth::BEFORE, 0.0).unwrap(),
//!     Window::parse(synth::AFTER, 0.0).unwrap(),
//! );
//! let c = compare::compare(&data, &opts).unwrap();
//! let d = &c.derived;
//! assert_eq!(format!("{:.2}%", 100.0 * d.hit_ratio.after.unwrap()), "98.67%");
//! assert_eq!(format!("{:.0}", d.misses_per_sec.after.unwrap()), "297");
//! assert_eq!(format!("{:.2}", d.miss_multiplier.unwrap()), "14.85");
//! ```

pub mod compare;
pub mod export;
pub mod promapi;
pub mod query;
pub mod report;
pub mod series;
pub mod stats;
pub mod store;
pub mod synth;
pub mod time;
