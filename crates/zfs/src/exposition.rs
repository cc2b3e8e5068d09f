//! The ARC as Prometheus metrics, with the answers built in: what
//! `arclab exporter` serves on `/metrics`.
//!
//! **Mapping.** Every arcstats field `F` that node_exporter exports as
//! `node_zfs_arc_F` is exported as `arclab_zfs_arc_F` with the same value and
//! meaning; counters (catalogue [`Kind::Counter`](crate::catalog::Kind)) carry
//! the `_total` suffix the exposition formats ask for
//! (`node_zfs_arc_hits` → `arclab_zfs_arc_hits_total`), gauges and high-water
//! marks do not, except that a gauge named like a histogram part
//! (`l2_log_blk_count`) gets `_value` (see [`arc_metric_name`]). Fields the
//! catalogue does not know are exported untyped.
//!
//! **Derived gauges** (the explanation of [`crate::status::explain`]):
//!
//! | metric | meaning |
//! |---|---|
//! | `arclab_zfs_arc_default_c_max_bytes` | `c_max` this release sets by default for this RAM |
//! | `arclab_zfs_arc_c_max_changed` | 1 when `c_max` differs from that default |
//! | `arclab_zfs_arc_evictable_bytes` | anon/MRU/MFU/uncached `*_evictable_*` |
//! | `arclab_zfs_arc_non_evictable_bytes{contributor}` | what eviction cannot free, per contributor |
//! | `arclab_zfs_arc_overshoot_bytes` | `size − c` when positive, else 0 |
//! | `arclab_zfs_arc_reclaimable_bytes` | see [`reclaimable_bytes`] |
//! | `arclab_zfs_arc_effective_available_bytes` | `MemAvailable` + reclaimable |
//! | `arclab_zfs_arc_max_param_bytes` | the `zfs_arc_max` module parameter (0 = automatic) |
//! | `arclab_zfs_arc_max_accepted` | 1 when ZFS applied it (see [`arc_max_accepted`]) |
//! | `arclab_zfs_version_info{version,behaviour,os,module_version}` | the inferred release range |
//! | `arclab_up` | 1 when the kstats were read |
//!
//! Text format 0.0.4, or OpenMetrics 1.0 (`# EOF`, counter families without
//! `_total`, samples with it, `info` type).
//!
//! ```
//! use arclab_zfs::{arcstats, host::Kstats, exposition::exposition};
//! let text = "1 1 0x01 5 0 1 2\nname type data\nhits 4 10\nsize 4 300\nc 4 200\nc_min 4 100\nc_max 4 400\n";
//! let arc = arcstats::parse_arcstats(text, "a").unwrap();
//! let k = Kstats { name: "a".into(), arc, zfetch: None, dbuf: None };
//! let out = exposition(&k, None, None, false);
//! assert!(out.contains("# TYPE arclab_zfs_arc_hits_total counter\narclab_zfs_arc_hits_total 10\n"));
//! assert!(out.contains("arclab_zfs_arc_overshoot_bytes 100\n"));
//! ```

use std::fmt::Write;

use crate::catalog::{self, Kind};
use crate::host::{Kstats, Meminfo, ModuleParams};
use crate::status::{self, Status};

/// Prefix of every metric.
pub const PREFIX: &str = "arclab_";

/// `Content-Type` of the text format 0.0.4.
pub const CONTENT_TYPE_TEXT: &str = "text/plain; version=0.0.4; charset=utf-8";
/// `Content-Type` of OpenMetrics 1.0.
pub const CONTENT_TYPE_OPENMETRICS: &str =
    "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// Whether an `Accept` header asks for OpenMetrics (Prometheus sends
/// `application/openmetrics-text;version=1.0.0,…;q=0.5` first by default).
///
/// ```
/// use arclab_zfs::exposition::wants_openmetrics;
/// assert!(wants_openmetrics("application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5"));
/// assert!(!wants_openmetrics("text/plain"));
/// assert!(!wants_openmetrics("application/openmetrics-text;q=0"));
/// ```
pub fn wants_openmetrics(accept: &str) -> bool {
    accept.split(',').any(|part| {
        let mut it = part.split(';').map(str::trim);
        it.next()
            .is_some_and(|m| m.eq_ignore_ascii_case("application/openmetrics-text"))
            && !it.any(|p| {
                p.strip_prefix("q=")
                    .and_then(|q| q.parse::<f64>().ok())
                    .is_some_and(|q| q <= 0.0)
            })
    })
}

/// What the ARC could give back to applications:
/// `size − max(c_min, non-evictable)`, at least 0. The ARC never shrinks
/// below `c_min` and cannot free held buffers; when `size` = evictable +
/// non-evictable (the §6.5 identity) this is `min(evictable, size − c_min)`.
/// When the layout does not say what is evictable (no `*_evictable_*`
/// fields), `size − c_min`, the rule htop, btop and netdata use. (The same
/// rule as `arclab top`'s RAM bar.)
pub fn reclaimable_bytes(s: &Status) -> u64 {
    crate::live::reclaimable(s.size_bytes, s.c_min_bytes, s.non_evictable_bytes)
}

/// Memory really available to applications: `MemAvailable` (which does not
/// count the ARC, openzfs/zfs#10255) plus [`reclaimable_bytes`].
pub fn effective_available_bytes(s: &Status, meminfo: Option<&Meminfo>) -> Option<u64> {
    meminfo
        .and_then(|m| m.available_bytes)
        .map(|a| a.saturating_add(reclaimable_bytes(s)))
}

/// Whether ZFS applied the `zfs_arc_max` module parameter: `Some(true)` when
/// it is 0 (automatic) or equals `c_max`, `Some(false)` when it is set and
/// `c_max` differs (ZFS ignores a value below 64 MiB or `c_min`, or not below
/// RAM), `None` when the parameter is unknown.
pub fn arc_max_accepted(param: Option<u64>, c_max: u64) -> Option<bool> {
    param.map(|p| p == 0 || p == c_max)
}

/// Escape a label value (`\`, `"`, newline), the same in both formats.
fn label(v: &str) -> String {
    v.replace('\\', r"\\")
        .replace('"', "\\\"")
        .replace('\n', r"\n")
}

/// Escape a HELP text (`\`, newline; OpenMetrics also `"`).
fn help_text(v: &str, om: bool) -> String {
    let s = v.replace('\\', r"\\").replace('\n', r"\n");
    if om { s.replace('"', "\\\"") } else { s }
}

struct Out {
    text: String,
    om: bool,
}

impl Out {
    /// `# HELP` and `# TYPE` of a family. `kind`: counter, gauge, untyped, info.
    fn family(&mut self, name: &str, kind: &str, help: &str) {
        let (fam, ty) = match (self.om, kind) {
            (true, "counter") => (name.strip_suffix("_total").unwrap_or(name), "counter"),
            (true, "info") => (name.strip_suffix("_info").unwrap_or(name), "info"),
            (true, "untyped") => (name, "unknown"),
            (false, "info") => (name, "gauge"),
            (_, k) => (name, k),
        };
        let _ = writeln!(self.text, "# HELP {fam} {}", help_text(help, self.om));
        let _ = writeln!(self.text, "# TYPE {fam} {ty}");
    }

    fn sample(&mut self, name: &str, labels: &[(&str, &str)], value: impl std::fmt::Display) {
        self.text.push_str(name);
        if !labels.is_empty() {
            self.text.push('{');
            for (i, (k, v)) in labels.iter().enumerate() {
                if i > 0 {
                    self.text.push(',');
                }
                let _ = write!(self.text, "{k}=\"{}\"", label(v));
            }
            self.text.push('}');
        }
        let _ = writeln!(self.text, " {value}");
    }

    fn gauge(&mut self, name: &str, help: &str, value: impl std::fmt::Display) {
        self.family(name, "gauge", help);
        self.sample(name, &[], value);
    }
}

/// The metric name of arcstats field `field`: `arclab_zfs_arc_<field>`, with
/// `_total` for counters.
///
/// ```
/// use arclab_zfs::exposition::arc_metric_name;
/// assert_eq!(arc_metric_name("hits"), "arclab_zfs_arc_hits_total");
/// assert_eq!(arc_metric_name("size"), "arclab_zfs_arc_size");
/// assert_eq!(arc_metric_name("l2_log_blk_count"), "arclab_zfs_arc_l2_log_blk_count_value");
/// ```
pub fn arc_metric_name(field: &str) -> String {
    match catalog::field(field).map(|f| f.kind) {
        Some(Kind::Counter) => format!("{PREFIX}zfs_arc_{field}_total"),
        // `_count`, `_sum` and `_bucket` belong to histograms and summaries:
        // a gauge so named (`l2_log_blk_count`) gets `_value`.
        _ if ["_count", "_sum", "_bucket"]
            .iter()
            .any(|s| field.ends_with(s)) =>
        {
            format!("{PREFIX}zfs_arc_{field}_value")
        }
        _ => format!("{PREFIX}zfs_arc_{field}"),
    }
}

/// The arcstats field behind an exporter metric name: the inverse of
/// [`arc_metric_name`]. `None` for derived metrics and unknown fields.
///
/// ```
/// use arclab_zfs::exposition::arc_field_of;
/// assert_eq!(arc_field_of("arclab_zfs_arc_hits_total"), Some("hits"));
/// assert_eq!(arc_field_of("arclab_zfs_arc_size"), Some("size"));
/// assert_eq!(arc_field_of("arclab_zfs_arc_l2_log_blk_count_value"), Some("l2_log_blk_count"));
/// assert_eq!(arc_field_of("arclab_zfs_arc_hits"), None);
/// assert_eq!(arc_field_of("arclab_zfs_arc_reclaimable_bytes"), None);
/// ```
pub fn arc_field_of(metric: &str) -> Option<&'static str> {
    let rest = metric.strip_prefix(PREFIX)?.strip_prefix("zfs_arc_")?;
    [
        rest.strip_suffix("_total"),
        rest.strip_suffix("_value"),
        Some(rest),
    ]
    .into_iter()
    .flatten()
    .filter_map(catalog::field)
    .map(|f| f.name)
    .find(|f| arc_metric_name(f) == metric)
}

/// Whether `name` is a valid metric name piece (`[a-zA-Z0-9_]`): a field
/// name that is not is skipped rather than breaking the exposition.
fn valid(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// The exposition of one sample of the host: every arcstats field, the
/// derived gauges, the version info and `arclab_up 1`. `meminfo` gives
/// `MemAvailable` (and RAM when arcstats has no `memory_all_bytes`),
/// `params` the `zfs_arc_max` parameter. `openmetrics` selects OpenMetrics
/// 1.0 over the text format 0.0.4. `scrape_seconds`, when given, is exported
/// as `arclab_scrape_duration_seconds`.
pub fn exposition(
    kstats: &Kstats,
    meminfo: Option<&Meminfo>,
    params: Option<&ModuleParams>,
    openmetrics: bool,
) -> String {
    exposition_timed(kstats, meminfo, params, openmetrics, None)
}

/// [`exposition`] with the time the read took.
pub fn exposition_timed(
    kstats: &Kstats,
    meminfo: Option<&Meminfo>,
    params: Option<&ModuleParams>,
    openmetrics: bool,
    scrape_seconds: Option<f64>,
) -> String {
    let mut o = Out {
        text: String::with_capacity(32 << 10),
        om: openmetrics,
    };
    o.gauge(
        "arclab_up",
        "1 when arclab read the ARC kstats for this scrape, 0 when it could not",
        1,
    );
    if let Some(t) = scrape_seconds {
        o.gauge(
            "arclab_scrape_duration_seconds",
            "time arclab took to read the kstats, meminfo and parameters for this scrape",
            t,
        );
    }
    let snap = &kstats.arc;
    let mut seen = std::collections::HashSet::new();
    for f in &snap.fields {
        if !valid(&f.name) || !seen.insert(f.name.as_str()) {
            continue;
        }
        let info = catalog::field(&f.name);
        let (kind, help) = match info {
            Some(i) => (
                match i.kind {
                    Kind::Counter => "counter",
                    Kind::Gauge => "gauge",
                    Kind::HighWater => "gauge",
                },
                format!(
                    "arcstats {}: {}{}",
                    f.name,
                    i.description,
                    if i.kind == Kind::HighWater {
                        " (high-water mark since module load)"
                    } else {
                        ""
                    }
                ),
            ),
            None => (
                "untyped",
                format!("arcstats {} (not in arclab's catalogue)", f.name),
            ),
        };
        let name = arc_metric_name(&f.name);
        o.family(&name, kind, &help);
        o.sample(&name, &[], f.value);
    }

    // RAM for the defaults: memory_all_bytes, else MemTotal.
    let ram = (!snap.has("memory_all_bytes"))
        .then(|| meminfo.map(|m| m.total_bytes))
        .flatten();
    match status::explain(
        snap,
        kstats.zfetch.as_ref(),
        kstats.dbuf.as_ref(),
        ram,
        &kstats.name,
    ) {
        Ok(s) => derived(&mut o, &s, meminfo, params),
        Err(e) => {
            // Raw fields are out already; say why the answers are missing
            // (OpenMetrics allows no free comments: the gauge's HELP says it).
            o.gauge(
                "arclab_derived_up",
                &format!("0: no derived metrics: {e}"),
                0,
            );
        }
    }
    if o.om {
        o.text.push_str("# EOF\n");
    }
    o.text
}

fn derived(o: &mut Out, s: &Status, meminfo: Option<&Meminfo>, params: Option<&ModuleParams>) {
    if let Some(d) = s.default_c_max_bytes {
        o.gauge(
            "arclab_zfs_arc_default_c_max_bytes",
            "c_max this ZFS release sets by default for this RAM (zfs_arc_max = 0)",
            d,
        );
    }
    if let Some(ch) = s.c_max_changed {
        o.gauge(
            "arclab_zfs_arc_c_max_changed",
            "1 when c_max differs from the release's default (zfs_arc_max set)",
            u8::from(ch),
        );
    }
    if let Some(e) = s.evictable_bytes {
        o.gauge(
            "arclab_zfs_arc_evictable_bytes",
            "ARC bytes on eviction lists (anon/mru/mfu/uncached *_evictable_*)",
            e,
        );
    }
    if !s.contributors.is_empty() {
        let name = "arclab_zfs_arc_non_evictable_bytes";
        o.family(
            name,
            "gauge",
            "ARC bytes eviction cannot free, by contributor (sum them for the total; why size can stay above c)",
        );
        for c in &s.contributors {
            o.sample(name, &[("contributor", c.name)], c.bytes);
        }
    }
    o.gauge(
        "arclab_zfs_arc_overshoot_bytes",
        "size - c when size is above its target c, else 0",
        s.overshoot_bytes,
    );
    o.gauge(
        "arclab_zfs_arc_reclaimable_bytes",
        "ARC bytes eviction could give back: size - max(c_min, non-evictable), at least 0 (size - c_min when non-evictable is unknown)",
        reclaimable_bytes(s),
    );
    if let Some(a) = effective_available_bytes(s, meminfo) {
        o.gauge(
            "arclab_zfs_arc_effective_available_bytes",
            "memory really available to applications: MemAvailable + the ARC's reclaimable bytes",
            a,
        );
    }
    let param = params.and_then(|p| p.arc_max);
    if let Some(p) = param {
        o.gauge(
            "arclab_zfs_arc_max_param_bytes",
            "the zfs_arc_max module parameter (0 = automatic, the default)",
            p,
        );
    }
    if let Some(a) = arc_max_accepted(param, s.c_max_bytes) {
        o.gauge(
            "arclab_zfs_arc_max_accepted",
            "1 when ZFS applied zfs_arc_max (0 = automatic, or equal to c_max); 0 when it is set but c_max differs",
            u8::from(a),
        );
    }
    let name = "arclab_zfs_version_info";
    o.family(
        name,
        "info",
        "the ZFS release range arclab infers from the arcstats fields, its limits behaviour, and the module's version file",
    );
    let version = s.version.to_string();
    let behaviour = s.version.behaviour.to_string();
    let os = s.os.to_string();
    let module = params.and_then(|p| p.version.clone()).unwrap_or_default();
    o.sample(
        name,
        &[
            ("version", &version),
            ("behaviour", &behaviour),
            ("os", &os),
            ("module_version", &module),
        ],
        1,
    );
}

/// The body served when the host cannot be read: `arclab_up 0` with the
/// reason as its HELP (the server answers 503 with it).
///
/// ```
/// let b = arclab_zfs::exposition::exposition_down("/proc/spl/kstat/zfs: gone", false);
/// assert!(b.contains("\narclab_up 0\n"));
/// assert!(b.contains("# HELP arclab_up 0: cannot read the ARC: /proc/spl/kstat/zfs: gone\n"));
/// ```
pub fn exposition_down(message: &str, openmetrics: bool) -> String {
    let mut o = Out {
        text: String::new(),
        om: openmetrics,
    };
    o.gauge(
        "arclab_up",
        &format!("0: cannot read the ARC: {message}"),
        0,
    );
    if openmetrics {
        o.text.push_str("# EOF\n");
    }
    o.text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::{self, parse_meminfo};
    use std::collections::HashMap;

    const FIXTURE: &str = "arcstats/linux-openzfs22plus-telegraf.arcstats";

    fn fixture() -> (Kstats, HashMap<String, u64>) {
        let p = arclab_testdata::path(FIXTURE);
        let naive = arclab_testdata::naive_arcstats(&std::fs::read_to_string(&p).unwrap());
        (host::read_kstat_file(&p).unwrap(), naive)
    }

    /// `name value` samples without labels.
    fn samples(text: &str) -> HashMap<String, String> {
        text.lines()
            .filter(|l| !l.starts_with('#') && !l.contains('{'))
            .filter_map(|l| l.split_once(' '))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn every_fixture_field_with_its_value() {
        let (k, naive) = fixture();
        let out = exposition(&k, None, None, false);
        let got = samples(&out);
        // Every unsigned row of the file, by a parser that is not arclab's.
        assert!(naive.len() > 100, "{}", naive.len());
        for (field, v) in &naive {
            assert_eq!(
                got.get(&arc_metric_name(field)),
                Some(&v.to_string()),
                "{field}"
            );
        }
        // memory_available_bytes is int64 (type 3): `memory_available_bytes 3 3970557824`.
        assert_eq!(got["arclab_zfs_arc_memory_available_bytes"], "3970557824");
        // Straight from the file's lines.
        assert_eq!(got["arclab_zfs_arc_size"], "14960038920");
        assert_eq!(got["arclab_zfs_arc_c"], "15590628496");
        assert_eq!(got["arclab_zfs_arc_hits_total"], "33266704081");
        assert!(out.contains("# TYPE arclab_zfs_arc_hits_total counter\n"));
        assert!(out.contains("# TYPE arclab_zfs_arc_size gauge\n"));
        // arc_meta_max / hash_elements_max are high-water marks: gauges.
        assert!(out.contains("# TYPE arclab_zfs_arc_hash_elements_max gauge\n"));
        assert!(!out.contains("# EOF"));
    }

    #[test]
    fn derived_gauges_by_hand_from_the_fixture() {
        let (k, n) = fixture();
        // MemAvailable 2 GiB (given here; the fixture has no meminfo).
        let m = parse_meminfo("MemTotal: 32746580 kB\nMemAvailable: 2097152 kB\n", "m").unwrap();
        let p = ModuleParams {
            arc_max: Some(0),
            version: Some("2.3.1-1".into()),
            ..ModuleParams::default()
        };
        let out = exposition(&k, Some(&m), Some(&p), false);
        let got = samples(&out);
        let evictable: u64 = [
            "anon_evictable_data",
            "anon_evictable_metadata",
            "mru_evictable_data",
            "mru_evictable_metadata",
            "mfu_evictable_data",
            "mfu_evictable_metadata",
            "uncached_evictable_data",
            "uncached_evictable_metadata",
        ]
        .iter()
        .map(|f| n[*f])
        .sum();
        // 0 + 0 + 2661687808 + 324192768 + 7483030528 + 393818112 + 0 + 0.
        assert_eq!(evictable, 10_862_729_216);
        assert_eq!(got["arclab_zfs_arc_evictable_bytes"], evictable.to_string());
        // reclaimable = min(evictable, size − c_min) = min(10862729216, 14960038920 − 1047890560).
        let reclaimable = evictable.min(n["size"] - n["c_min"]);
        assert_eq!(reclaimable, 10_862_729_216);
        assert_eq!(
            got["arclab_zfs_arc_reclaimable_bytes"],
            reclaimable.to_string()
        );
        assert_eq!(
            got["arclab_zfs_arc_effective_available_bytes"],
            (2_097_152 * 1024 + reclaimable).to_string()
        );
        // size 14960038920 < c 15590628496: no overshoot.
        assert_eq!(got["arclab_zfs_arc_overshoot_bytes"], "0");
        // The default for memory_all_bytes 33532497920 on 2.3: max(5/8·allmem, allmem − 1 GiB)
        // = 33532497920 − 1073741824 = 32458756096, which is the fixture's c_max.
        assert_eq!(got["arclab_zfs_arc_default_c_max_bytes"], "32458756096");
        assert_eq!(
            got["arclab_zfs_arc_default_c_max_bytes"],
            n["c_max"].to_string()
        );
        assert_eq!(got["arclab_zfs_arc_c_max_changed"], "0");
        assert_eq!(got["arclab_zfs_arc_max_param_bytes"], "0");
        assert_eq!(got["arclab_zfs_arc_max_accepted"], "1");
        // Contributors: the structural ones are fixture rows as they are.
        for (c, f) in [
            ("dnode", "dnode_size"),
            ("dbuf", "dbuf_size"),
            ("bonus", "bonus_size"),
            ("headers", "hdr_size"),
        ] {
            assert!(
                out.contains(&format!(
                    "arclab_zfs_arc_non_evictable_bytes{{contributor=\"{c}\"}} {}\n",
                    n[f]
                )),
                "{c}"
            );
        }
        // mfu_referenced = mfu_size − mfu_evictable_* = 9425546240 − 7483030528 − 393818112.
        assert!(out.contains(
            "arclab_zfs_arc_non_evictable_bytes{contributor=\"mfu_referenced\"} 1548697600\n"
        ));
        assert!(out.contains("arclab_zfs_version_info{version=\"2.3.0"));
        assert!(out.contains("module_version=\"2.3.1-1\"} 1\n"));
    }

    #[test]
    fn arc_max_rejected_and_overshoot() {
        // A param ZFS refused (c_max stays at the default) is reported as not accepted.
        assert_eq!(arc_max_accepted(Some(32 << 20), 8 << 30), Some(false));
        assert_eq!(arc_max_accepted(Some(8 << 30), 8 << 30), Some(true));
        assert_eq!(arc_max_accepted(Some(0), 8 << 30), Some(true));
        assert_eq!(arc_max_accepted(None, 8 << 30), None);
        // An old layout: mru_size without mru_evictable_*.
        let text = "1 1 0x01 5 0 1 2\nname type data\nsize 4 500\nc 4 200\nc_min 4 100\nc_max 4 400\nmru_size 4 300\n";
        let arc = crate::arcstats::parse_arcstats(text, "a").unwrap();
        let k = Kstats {
            name: "a".into(),
            arc,
            zfetch: None,
            dbuf: None,
        };
        let got = samples(&exposition(&k, None, None, false));
        assert_eq!(got["arclab_zfs_arc_overshoot_bytes"], "300");
        // No *_evictable_*: size − c_min.
        assert_eq!(got["arclab_zfs_arc_reclaimable_bytes"], "400");
        assert!(!got.contains_key("arclab_zfs_arc_effective_available_bytes"));
    }

    #[test]
    fn openmetrics_families_and_eof() {
        let (k, _) = fixture();
        let out = exposition(&k, None, None, true);
        assert!(out.ends_with("# EOF\n"));
        assert!(out.contains(
            "# TYPE arclab_zfs_arc_hits counter\narclab_zfs_arc_hits_total 33266704081\n"
        ));
        assert!(out.contains("# TYPE arclab_zfs_version info\narclab_zfs_version_info{"));
        // OpenMetrics allows no comment lines but HELP / TYPE / UNIT / EOF.
        for l in out.lines().filter(|l| l.starts_with('#')) {
            assert!(
                l.starts_with("# HELP ") || l.starts_with("# TYPE ") || l == "# EOF",
                "{l}"
            );
        }
    }

    #[test]
    fn missing_field_keeps_the_raw_metrics() {
        let text = "1 1 0x01 1 0 1 2\nname type data\nhits 4 7\n";
        let arc = crate::arcstats::parse_arcstats(text, "a").unwrap();
        let k = Kstats {
            name: "a".into(),
            arc,
            zfetch: None,
            dbuf: None,
        };
        let out = exposition(&k, None, None, true);
        assert!(out.contains("arclab_zfs_arc_hits_total 7\n"));
        assert!(out.contains("arclab_derived_up 0\n"));
        assert!(out.contains("lacks `size`"));
    }

    #[test]
    fn escapes() {
        assert_eq!(label("a\"b\\c\nd"), r#"a\"b\\c\nd"#);
        assert_eq!(help_text("a\"b\n", false), "a\"b\\n");
        assert_eq!(help_text("a\"b\n", true), "a\\\"b\\n");
    }
}
