//! Series, data sets, and deciding whether a metric is a counter or a gauge.
//!
//! node_exporter sends its Linux ZFS metrics **untyped**, so the kind comes
//! from, in order: a `--counter`/`--gauge` override, the arcstats field
//! catalogue ([`arclab_zfs::catalog`]) for `node_zfs_arc_*` /
//! `node_zfs_arcstats_*` names, the server's metadata API, and the `_total`
//! suffix (Prometheus naming conventions); anything else is a gauge.
//!
//! ```
//! use arclab_metrics::series::{classify, arc_field, Kind, KindSource};
//! use std::collections::BTreeMap;
//! assert_eq!(arc_field("node_zfs_arcstats_hits_total"), Some("hits"));
//! assert_eq!(arc_field("node_zfs_arcstats_size_bytes"), Some("size"));
//! let k = classify("node_zfs_arc_hits", &BTreeMap::new(), &BTreeMap::new());
//! assert_eq!(k, (Kind::Counter, KindSource::Catalogue));
//! let k = classify("node_disk_discarded_sectors_total", &BTreeMap::new(), &BTreeMap::new());
//! assert_eq!(k, (Kind::Counter, KindSource::Suffix));
//! ```

use arclab_zfs::catalog;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Label set of a series, `__name__` included.
pub type Labels = BTreeMap<String, String>;

/// One series: its labels and `(unix seconds, value)` samples sorted by time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Series {
    /// Labels, `__name__` included.
    pub labels: Labels,
    /// Samples sorted by time; values may be NaN.
    pub points: Vec<(f64, f64)>,
}

impl Series {
    /// The metric name (`__name__`), or `{}` for an expression without one.
    pub fn name(&self) -> &str {
        self.labels.get("__name__").map_or("{}", String::as_str)
    }

    /// The `instance` label, else `host`, else `-`.
    pub fn instance(&self) -> &str {
        self.labels
            .get("instance")
            .or_else(|| self.labels.get("host"))
            .map_or("-", String::as_str)
    }

    /// Labels other than `__name__`, `instance` and `job`, as `k=v,…`.
    pub fn extra_labels(&self) -> String {
        self.labels
            .iter()
            .filter(|(k, _)| !matches!(k.as_str(), "__name__" | "instance" | "job"))
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(",")
    }
}

/// Counter, gauge, or high-water mark.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Cumulative count: compared as a per-second rate.
    Counter,
    /// Instantaneous value: compared by mean and percentiles.
    Gauge,
    /// Largest value so far: summarized like a gauge, never rated.
    HighWater,
}

/// Where a [`Kind`] came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KindSource {
    /// `--counter` / `--gauge`.
    Override,
    /// The arcstats field catalogue.
    Catalogue,
    /// The server's `/api/v1/metadata`.
    Metadata,
    /// The `_total` suffix.
    Suffix,
    /// Nothing said otherwise.
    Default,
}

/// The arcstats field behind a node_exporter name: `node_zfs_arc_<field>`
/// (Linux) or `node_zfs_arcstats_<field>[_total|_bytes]` (FreeBSD, where
/// `data_bytes` is `data_size` and `mru_bytes` is `mru_size`), or an
/// `arclab exporter` name (`arclab_zfs_arc_<field>`, counters with `_total`:
/// [`arclab_zfs::exposition::arc_field_of`]).
pub fn arc_field(name: &str) -> Option<&str> {
    if name.starts_with("arclab_zfs_arc_") {
        return arclab_zfs::exposition::arc_field_of(name);
    }
    if let Some(f) = name.strip_prefix("node_zfs_arc_") {
        return catalog::field(f).map(|i| i.name);
    }
    let f = name.strip_prefix("node_zfs_arcstats_")?;
    if catalog::field(f).is_some() {
        return catalog::field(f).map(|i| i.name);
    }
    if let Some(c) = f.strip_suffix("_total") {
        return catalog::field(c).map(|i| i.name);
    }
    let g = f.strip_suffix("_bytes")?;
    catalog::field(g)
        .or_else(|| catalog::field(&format!("{g}_size")))
        .map(|i| i.name)
}

/// Decide the kind of metric `name`: overrides, catalogue, metadata
/// (`counter`, `gauge`, … as the server's metadata API spells them), `_total`.
pub fn classify(
    name: &str,
    overrides: &BTreeMap<String, Kind>,
    metadata: &BTreeMap<String, String>,
) -> (Kind, KindSource) {
    if let Some(k) = overrides.get(name) {
        return (*k, KindSource::Override);
    }
    if let Some(f) = arc_field(name).and_then(catalog::field) {
        let k = match f.kind {
            catalog::Kind::Counter => Kind::Counter,
            catalog::Kind::Gauge => Kind::Gauge,
            catalog::Kind::HighWater => Kind::HighWater,
        };
        return (k, KindSource::Catalogue);
    }
    match metadata.get(name).map(String::as_str) {
        Some("counter") => return (Kind::Counter, KindSource::Metadata),
        Some("gauge") => return (Kind::Gauge, KindSource::Metadata),
        _ => {}
    }
    if name.ends_with("_total") {
        return (Kind::Counter, KindSource::Suffix);
    }
    (Kind::Gauge, KindSource::Default)
}

/// A recorded change (`zfs_arc_max=8G` at a time), from a recording database.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChangeMarker {
    /// When, unix seconds.
    pub time: f64,
    /// What changed, free text.
    pub what: String,
}

/// Everything a comparison reads: series from one source, the server's
/// metadata types if known, and recorded changes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Dataset {
    /// All series.
    pub series: Vec<Series>,
    /// Metric name → type from `/api/v1/metadata` (may be empty).
    pub metadata: BTreeMap<String, String>,
    /// Recorded changes.
    pub changes: Vec<ChangeMarker>,
}

impl Dataset {
    /// First and last sample time over all series, if any.
    pub fn time_range(&self) -> Option<(f64, f64)> {
        let mut r: Option<(f64, f64)> = None;
        for s in &self.series {
            if let (Some(a), Some(b)) = (s.points.first(), s.points.last()) {
                r = Some(r.map_or((a.0, b.0), |(x, y)| (x.min(a.0), y.max(b.0))));
            }
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arc_names() {
        assert_eq!(arc_field("node_zfs_arc_size"), Some("size"));
        assert_eq!(arc_field("node_zfs_arc_c_max"), Some("c_max"));
        assert_eq!(arc_field("node_zfs_arcstats_misses_total"), Some("misses"));
        assert_eq!(arc_field("node_zfs_arcstats_c_max_bytes"), Some("c_max"));
        assert_eq!(arc_field("node_zfs_arcstats_mru_bytes"), Some("mru_size"));
        assert_eq!(
            arc_field("node_zfs_arcstats_mfu_ghost_size"),
            Some("mfu_ghost_size")
        );
        assert_eq!(arc_field("node_zfs_arc_nonsense"), None);
        assert_eq!(arc_field("arclab_zfs_arc_hits_total"), Some("hits"));
        assert_eq!(arc_field("arclab_zfs_arc_c_max"), Some("c_max"));
        assert_eq!(arc_field("arclab_zfs_arc_overshoot_bytes"), None);
        assert_eq!(arc_field("node_cpu_seconds_total"), None);
    }

    #[test]
    fn classification_order() {
        let none: BTreeMap<String, Kind> = BTreeMap::new();
        let nometa: BTreeMap<String, String> = BTreeMap::new();
        let mut meta = BTreeMap::new();
        meta.insert(
            "node_pressure_io_stalled_seconds".to_string(),
            "counter".to_string(),
        );
        meta.insert("node_zfs_arc_size".to_string(), "counter".to_string());
        assert_eq!(classify("node_zfs_arc_size", &none, &meta).0, Kind::Gauge);
        assert_eq!(
            classify("node_pressure_io_stalled_seconds", &none, &meta),
            (Kind::Counter, KindSource::Metadata)
        );
        assert_eq!(
            classify("node_zfs_arc_hash_elements_max", &none, &nometa).0,
            Kind::HighWater
        );
        assert_eq!(
            classify("node_cpu_scaling_frequency_hertz", &none, &nometa).1,
            KindSource::Default
        );
        let mut o = BTreeMap::new();
        o.insert("node_zfs_arc_size".to_string(), Kind::Counter);
        assert_eq!(
            classify("node_zfs_arc_size", &o, &nometa),
            (Kind::Counter, KindSource::Override)
        );
    }
}
