//! Parsing `arcstats`, `zfetchstats` and `dbufstats` as Linux and FreeBSD
//! print them (spec `zfs-arc.md` §11.1).
//!
//! * Linux `/proc/spl/kstat/zfs/<kstat>`: a header line
//!   `kid type flags ndata size crtime snaptime`, a column line
//!   `name type data`, then one `name type value` row per entry. Rows are
//!   split on whitespace, never on columns: a 32-character name is followed by
//!   a single space. Type 3 (int64) may be negative.
//! * FreeBSD `sysctl kstat.zfs.misc.<kstat>`: `kstat.zfs.misc.<kstat>.NAME: VALUE`
//!   per line, in any order (`sysctl -e`'s `NAME=VALUE` is accepted too).
//!   Lines of other kstats (and `vfs.zfs.*` tunables) are skipped, so a whole `sysctl kstat.zfs.misc`
//!   dump can be given.
//!
//! Nothing here panics on any input; every failure is a [`ParseError`] that
//! names the file and line.

use std::fmt;
use std::path::Path;

use crate::ReadError;
use crate::catalog;

/// Which kstat a text holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum KstatKind {
    /// `arcstats`.
    ArcStats,
    /// `zfetchstats` (predictive prefetcher).
    ZfetchStats,
    /// `dbufstats` (dbuf cache).
    DbufStats,
}

impl KstatKind {
    /// The kstat name (`arcstats`, `zfetchstats`, `dbufstats`).
    pub fn name(self) -> &'static str {
        match self {
            KstatKind::ArcStats => "arcstats",
            KstatKind::ZfetchStats => "zfetchstats",
            KstatKind::DbufStats => "dbufstats",
        }
    }

    /// Whether `name` is a field this kstat is known to have in some release.
    pub fn knows(self, name: &str) -> bool {
        match self {
            KstatKind::ArcStats => catalog::field(name).is_some(),
            KstatKind::ZfetchStats => ZFETCH_NAMES.contains(&name),
            KstatKind::DbufStats => DBUF_NAMES.contains(&name) || name.starts_with("cache_level_"),
        }
    }
}

/// `zfetchstats` names from ZoL 0.6 to OpenZFS 2.4.
const ZFETCH_NAMES: &[&str] = &[
    "hits",
    "misses",
    "max_streams",
    "io_issued",
    "io_active",
    "future",
    "stride",
    "past",
    "colinear_hits",
    "colinear_misses",
    "stride_hits",
    "stride_misses",
    "reclaim_successes",
    "reclaim_failures",
    "streams_resets",
    "streams_noresets",
    "bogus_streams",
];

/// `dbufstats` names (0.7+; `cache_level_N*` rows are matched by prefix).
const DBUF_NAMES: &[&str] = &[
    "cache_count",
    "cache_size_bytes",
    "cache_size_bytes_max",
    "cache_target_bytes",
    "cache_lowater_bytes",
    "cache_hiwater_bytes",
    "cache_total_evicts",
    "hash_hits",
    "hash_misses",
    "hash_collisions",
    "hash_elements",
    "hash_elements_max",
    "hash_chains",
    "hash_chain_max",
    "hash_insert_race",
    "hash_table_count",
    "hash_mutex_count",
    "metadata_cache_count",
    "metadata_cache_size_bytes",
    "metadata_cache_size_bytes_max",
    "metadata_cache_overflow",
];

/// Where a snapshot came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Source {
    /// Linux procfs kstat text.
    LinuxProc,
    /// FreeBSD `sysctl` output.
    FreeBsdSysctl,
}

/// One value with its kstat type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Value {
    /// Signed (kstat types 1, 3, 5; FreeBSD values that are negative).
    Signed(i64),
    /// Unsigned (kstat types 2, 4, 6; FreeBSD values that are not negative).
    Unsigned(u64),
}

impl Value {
    /// The value widened to `i128` (never loses information).
    pub fn as_i128(self) -> i128 {
        match self {
            Value::Signed(v) => i128::from(v),
            Value::Unsigned(v) => i128::from(v),
        }
    }

    /// The value as `u64`, if it is not negative.
    pub fn as_u64(self) -> Option<u64> {
        match self {
            Value::Signed(v) => u64::try_from(v).ok(),
            Value::Unsigned(v) => Some(v),
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Signed(v) => write!(f, "{v}"),
            Value::Unsigned(v) => write!(f, "{v}"),
        }
    }
}

/// One row.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Field {
    /// Field name.
    pub name: String,
    /// Its value.
    pub value: Value,
    /// The kstat type code (Linux only).
    pub kstat_type: Option<u8>,
    /// 1-based line number in the input.
    pub line: usize,
}

/// The Linux kstat header line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct KstatHeader {
    /// kstat id.
    pub kid: u64,
    /// Number of entries the kernel announced.
    pub ndata: u64,
    /// Data size in bytes.
    pub data_size: u64,
    /// Creation time (ns, monotonic).
    pub crtime_ns: u64,
    /// Time of this read (ns, monotonic).
    pub snaptime_ns: u64,
}

/// A parsed kstat (`arcstats`, `zfetchstats` or `dbufstats`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ArcSnapshot {
    /// Which kstat this is.
    pub kind: KstatKind,
    /// Rows in input order.
    pub fields: Vec<Field>,
    /// `snaptime` of the Linux header: monotonic ns of this read (for rates).
    pub snaptime_ns: Option<u64>,
    /// The Linux header, if any.
    pub header: Option<KstatHeader>,
    /// Input format.
    pub source: Source,
    /// Oddities that did not stop parsing (more rows than announced, duplicates).
    pub warnings: Vec<String>,
}

impl ArcSnapshot {
    /// The value of `name`.
    pub fn get(&self, name: &str) -> Option<Value> {
        self.fields.iter().find(|f| f.name == name).map(|f| f.value)
    }

    /// The value of `name` as `u64` (absent or negative: `None`).
    pub fn get_u64(&self, name: &str) -> Option<u64> {
        self.get(name).and_then(Value::as_u64)
    }

    /// Whether `name` is present.
    pub fn has(&self, name: &str) -> bool {
        self.fields.iter().any(|f| f.name == name)
    }

    /// Field names in input order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.fields.iter().map(|f| f.name.as_str())
    }

    /// Names this kstat's catalogue does not know.
    pub fn unknown_names(&self) -> Vec<&str> {
        self.names().filter(|n| !self.kind.knows(n)).collect()
    }
}

/// What went wrong, without the location.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseErrorKind {
    /// A value is not an integer.
    #[error("value `{value}` of `{name}` is not a number")]
    NotANumber {
        /// Field name.
        name: String,
        /// The text found.
        value: String,
    },
    /// A value does not fit its kstat type.
    #[error("value `{value}` of `{name}` does not fit kstat type {kstat_type}")]
    OutOfRange {
        /// Field name.
        name: String,
        /// The text found.
        value: String,
        /// The declared type.
        kstat_type: u8,
    },
    /// A row without a value (or without a type).
    #[error("row `{name}` has no value (truncated file?)")]
    MissingValue {
        /// Field name.
        name: String,
    },
    /// The file ended before the announced number of rows.
    #[error("truncated: header announces {expected} rows but only {found} are present")]
    Truncated {
        /// Rows the header announced.
        expected: u64,
        /// Rows present.
        found: u64,
    },
    /// A row has an unsupported kstat type (0 CHAR, 7 STRING, …).
    #[error("row `{name}` has kstat type `{kstat_type}`, not a numeric type (1–6)")]
    UnsupportedType {
        /// Field name.
        name: String,
        /// The type text.
        kstat_type: String,
    },
    /// A row has more than `name type value`.
    #[error("row `{name}` has trailing text `{extra}`")]
    TrailingText {
        /// Field name.
        name: String,
        /// The extra text.
        extra: String,
    },
    /// Not a kstat at all, or no known field.
    #[error("unknown layout: {0}")]
    UnknownLayout(String),
    /// Nothing but whitespace.
    #[error("empty input")]
    Empty,
    /// A field named twice (the kernel names each once; which one would win
    /// differs between readers, so neither is guessed).
    #[error("field `{name}` appears twice: lines {first_line} and {line}")]
    Duplicate {
        /// Field name.
        name: String,
        /// The line of its first appearance.
        first_line: usize,
        /// The line of the second.
        line: usize,
    },
    /// A negative value for a field the kernel declares unsigned.
    #[error("value `{value}` of `{name}` is negative, but `{name}` is an unsigned counter or size")]
    Negative {
        /// Field name.
        name: String,
        /// The text found.
        value: String,
    },
}

/// Refuse a field named twice, with both lines (the error is at the second).
fn reject_duplicates(
    fields: &[Field],
    err: &dyn Fn(usize, ParseErrorKind) -> ParseError,
) -> Result<(), ParseError> {
    let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for f in fields {
        if let Some(&first_line) = seen.get(f.name.as_str()) {
            return Err(err(
                f.line,
                ParseErrorKind::Duplicate {
                    name: f.name.clone(),
                    first_line,
                    line: f.line,
                },
            ));
        }
        seen.insert(&f.name, f.line);
    }
    Ok(())
}

/// A parse failure with its location; displays as
/// ``FILE: line 7: value `abc` of `hits` is not a number``.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{file}: line {line}: {kind}")]
pub struct ParseError {
    /// File name as given by the caller.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// What went wrong.
    pub kind: ParseErrorKind,
}

/// Read and parse a kstat file.
pub fn read_kstat(path: &Path, kind: KstatKind) -> Result<ArcSnapshot, ReadError<ParseError>> {
    let name = path.display().to_string();
    let text =
        crate::read_text(path, crate::MAX_KSTAT_BYTES, "a kstat file").map_err(|source| {
            ReadError::Io {
                path: name.clone(),
                source,
            }
        })?;
    Ok(parse_kstat(&text, &name, kind)?)
}

/// Parse `arcstats` text (Linux or FreeBSD, detected). `file` is only used in errors.
pub fn parse_arcstats(text: &str, file: &str) -> Result<ArcSnapshot, ParseError> {
    parse_kstat(text, file, KstatKind::ArcStats)
}

/// Parse `zfetchstats` text.
pub fn parse_zfetchstats(text: &str, file: &str) -> Result<ArcSnapshot, ParseError> {
    parse_kstat(text, file, KstatKind::ZfetchStats)
}

/// Parse `dbufstats` text.
pub fn parse_dbufstats(text: &str, file: &str) -> Result<ArcSnapshot, ParseError> {
    parse_kstat(text, file, KstatKind::DbufStats)
}

/// Parse any of the three kstats; the format is detected from the first
/// non-blank line (`kstat.` starts FreeBSD sysctl output).
pub fn parse_kstat(text: &str, file: &str, kind: KstatKind) -> Result<ArcSnapshot, ParseError> {
    let err = |line: usize, kind: ParseErrorKind| ParseError {
        file: file.to_string(),
        line,
        kind,
    };
    let first = text.lines().enumerate().find(|(_, l)| !l.trim().is_empty());
    let Some((first_idx, first_line)) = first else {
        return Err(err(1, ParseErrorKind::Empty));
    };
    let mut snap = if first_line.trim_start().starts_with("kstat.") {
        parse_sysctl(text, kind, &err)?
    } else {
        parse_linux(text, first_idx, &err)?
    };
    snap.kind = kind;
    if !snap.fields.iter().any(|f| kind.knows(&f.name)) {
        return Err(err(
            first_idx + 1,
            ParseErrorKind::UnknownLayout(format!(
                "no known {} field among {} rows",
                kind.name(),
                snap.fields.len()
            )),
        ));
    }
    reject_duplicates(&snap.fields, &err)?;
    Ok(snap)
}

/// Parse Prometheus node_exporter text (`/metrics`, or a saved copy of it)
/// into an arcstats snapshot: the `node_zfs_arc_<field>` samples its Linux
/// ZFS collector reads from `/proc/spl/kstat/zfs/arcstats`. The field is the
/// name after `kstat.zfs.misc.arcstats.` in the sample's `# HELP` line, else
/// the metric name without `node_zfs_arc_`. Other metrics are skipped.
/// Values are printed as floats (`1.91744e+06`): integers are read exactly,
/// floats rounded to the nearest integer (exact below 2^53; beyond that,
/// e.g. a negative `memory_available_bytes`, within float precision).
///
/// ```
/// use arclab_zfs::arcstats::{parse_node_exporter, Value};
/// let t = "# HELP node_zfs_arc_c kstat.zfs.misc.arcstats.c\n# TYPE node_zfs_arc_c untyped\nnode_zfs_arc_c 4.183988224e+09\nnode_load1 0.5\n";
/// let s = parse_node_exporter(t, "m.txt").unwrap();
/// assert_eq!(s.get("c"), Some(Value::Unsigned(4_183_988_224)));
/// assert_eq!(s.fields.len(), 1);
/// ```
pub fn parse_node_exporter(text: &str, file: &str) -> Result<ArcSnapshot, ParseError> {
    let err = |line: usize, kind: ParseErrorKind| ParseError {
        file: file.to_string(),
        line,
        kind,
    };
    if text.trim().is_empty() {
        return Err(err(1, ParseErrorKind::Empty));
    }
    let mut help: std::collections::HashMap<&str, &str> = std::collections::HashMap::new();
    let mut fields = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("# HELP ") {
            let mut w = rest.splitn(2, ' ');
            if let (Some(metric), Some(h)) = (w.next(), w.next())
                && let Some(f) = h.trim().strip_prefix("kstat.zfs.misc.arcstats.")
            {
                help.insert(metric, f);
            }
            continue;
        }
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (metric, rest) = match line.find(['{', ' ', '\t']) {
            Some(p) => line.split_at(p),
            None => (line, ""),
        };
        let Some(stripped) = metric.strip_prefix("node_zfs_arc_") else {
            continue;
        };
        let rest = match rest.strip_prefix('{') {
            Some(r) => match r.find('}') {
                Some(p) => &r[p + 1..],
                None => {
                    return Err(err(
                        i + 1,
                        ParseErrorKind::UnknownLayout(format!("`{metric}`: unclosed label set")),
                    ));
                }
            },
            None => rest,
        };
        let name = help.get(metric).copied().unwrap_or(stripped).to_string();
        let Some(raw) = rest.split_whitespace().next() else {
            return Err(err(i + 1, ParseErrorKind::MissingValue { name }));
        };
        let value = match parse_int(&name, raw, None) {
            Ok(v) => v,
            Err(_) => {
                let nan = || ParseErrorKind::NotANumber {
                    name: name.clone(),
                    value: raw.to_string(),
                };
                let f: f64 = raw.parse().map_err(|_| err(i + 1, nan()))?;
                let r = f.round();
                // `as` saturates; reject what does not fit instead.
                if !(-9_223_372_036_854_775_808.0..18_446_744_073_709_551_616.0).contains(&r) {
                    return Err(err(
                        i + 1,
                        ParseErrorKind::OutOfRange {
                            name,
                            value: raw.to_string(),
                            kstat_type: if r < 0.0 { 3 } else { 4 },
                        },
                    ));
                }
                if r < 0.0 {
                    Value::Signed(r as i64)
                } else {
                    Value::Unsigned(r as u64)
                }
            }
        };
        fields.push(Field {
            name,
            value,
            kstat_type: None,
            line: i + 1,
        });
    }
    if !fields.iter().any(|f| KstatKind::ArcStats.knows(&f.name)) {
        return Err(err(
            1,
            ParseErrorKind::UnknownLayout(
                "no node_zfs_arc_* arcstats metric (is this node_exporter output from a Linux ZFS host?)"
                    .into(),
            ),
        ));
    }
    reject_duplicates(&fields, &err)?;
    let warnings = Vec::new();
    Ok(ArcSnapshot {
        kind: KstatKind::ArcStats,
        fields,
        snaptime_ns: None,
        header: None,
        source: Source::LinuxProc,
        warnings,
    })
}

fn parse_int(name: &str, text: &str, ty: Option<u8>) -> Result<Value, ParseErrorKind> {
    let nan = || ParseErrorKind::NotANumber {
        name: name.to_string(),
        value: text.to_string(),
    };
    let body = text.strip_prefix('-').unwrap_or(text);
    if body.is_empty() || !body.bytes().all(|b| b.is_ascii_digit()) {
        return Err(nan());
    }
    let range = |t: u8| ParseErrorKind::OutOfRange {
        name: name.to_string(),
        value: text.to_string(),
        kstat_type: t,
    };
    match ty {
        Some(t @ (1 | 3 | 5)) => {
            let v: i64 = text.parse().map_err(|_| range(t))?;
            if t == 1 && i32::try_from(v).is_err() {
                return Err(range(t));
            }
            Ok(Value::Signed(v))
        }
        Some(t) => {
            let v: u64 = text.parse().map_err(|_| range(t))?;
            if t == 2 && u32::try_from(v).is_err() {
                return Err(range(t));
            }
            Ok(Value::Unsigned(v))
        }
        None if text.starts_with('-') => text.parse().map(Value::Signed).map_err(|_| range(3)),
        None => text.parse().map(Value::Unsigned).map_err(|_| range(4)),
    }
}

fn parse_linux(
    text: &str,
    first_idx: usize,
    err: &dyn Fn(usize, ParseErrorKind) -> ParseError,
) -> Result<ArcSnapshot, ParseError> {
    let layout =
        |line: usize, what: &str| err(line, ParseErrorKind::UnknownLayout(what.to_string()));
    let mut lines = text.lines().enumerate().skip(first_idx);
    let (_, hdr) = lines.next().unwrap_or((0, ""));
    let h: Vec<&str> = hdr.split_whitespace().collect();
    let num = |s: &str| s.parse::<u64>().ok();
    let header = match h.as_slice() {
        [kid, ty, flags, ndata, size, crtime, snaptime]
            if flags.starts_with("0x") && *ty == "1" =>
        {
            match (num(kid), num(ndata), num(size), num(crtime), num(snaptime)) {
                (Some(kid), Some(ndata), Some(data_size), Some(crtime_ns), Some(snaptime_ns)) => {
                    KstatHeader {
                        kid,
                        ndata,
                        data_size,
                        crtime_ns,
                        snaptime_ns,
                    }
                }
                _ => return Err(layout(first_idx + 1, "header numbers are not integers")),
            }
        }
        _ => {
            return Err(layout(
                first_idx + 1,
                "expected a named-kstat header `kid 1 0xNN ndata size crtime snaptime`",
            ));
        }
    };
    match lines.next() {
        Some((_, l)) if l.split_whitespace().eq(["name", "type", "data"]) => {}
        Some((i, _)) => return Err(layout(i + 1, "expected the column line `name type data`")),
        None => {
            return Err(err(
                first_idx + 2,
                ParseErrorKind::Truncated {
                    expected: header.ndata,
                    found: 0,
                },
            ));
        }
    }
    let mut fields = Vec::new();
    let mut last_line = first_idx + 2;
    for (i, line) in lines {
        let lineno = i + 1;
        last_line = lineno;
        let mut parts = line.split_whitespace();
        let Some(name) = parts.next() else { continue };
        let (Some(ty), Some(value)) = (parts.next(), parts.next()) else {
            return Err(err(
                lineno,
                ParseErrorKind::MissingValue { name: name.into() },
            ));
        };
        let rest: Vec<&str> = parts.collect();
        if !rest.is_empty() {
            return Err(err(
                lineno,
                ParseErrorKind::TrailingText {
                    name: name.into(),
                    extra: rest.join(" "),
                },
            ));
        }
        let kstat_type = match ty.parse::<u8>() {
            Ok(t @ 1..=6) => t,
            _ => {
                return Err(err(
                    lineno,
                    ParseErrorKind::UnsupportedType {
                        name: name.into(),
                        kstat_type: ty.into(),
                    },
                ));
            }
        };
        let value = parse_int(name, value, Some(kstat_type)).map_err(|k| err(lineno, k))?;
        fields.push(Field {
            name: name.to_string(),
            value,
            kstat_type: Some(kstat_type),
            line: lineno,
        });
    }
    let found = fields.len() as u64;
    let mut warnings = Vec::new();
    if found < header.ndata {
        return Err(err(
            last_line + 1,
            ParseErrorKind::Truncated {
                expected: header.ndata,
                found,
            },
        ));
    } else if found > header.ndata {
        warnings.push(format!(
            "header announces {} rows but {found} are present",
            header.ndata
        ));
    }
    Ok(ArcSnapshot {
        kind: KstatKind::ArcStats,
        fields,
        snaptime_ns: Some(header.snaptime_ns),
        header: Some(header),
        source: Source::LinuxProc,
        warnings,
    })
}

fn parse_sysctl(
    text: &str,
    kind: KstatKind,
    err: &dyn Fn(usize, ParseErrorKind) -> ParseError,
) -> Result<ArcSnapshot, ParseError> {
    let prefix = format!("kstat.zfs.misc.{}.", kind.name());
    let mut fields = Vec::new();
    let mut skipped = 0usize;
    for (i, line) in text.lines().enumerate() {
        let lineno = i + 1;
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        // `sysctl vfs.zfs kstat.zfs.misc.arcstats` interleaves the tunables
        // (read by `host::params::params_from_sysctl`): skipped here.
        if line.starts_with("vfs.zfs.") {
            skipped += 1;
            continue;
        }
        if !line.starts_with("kstat.") {
            return Err(err(
                lineno,
                ParseErrorKind::UnknownLayout(
                    "expected `kstat.zfs.misc.<kstat>.NAME: VALUE` sysctl output".into(),
                ),
            ));
        }
        let Some(rest) = line.strip_prefix(prefix.as_str()) else {
            skipped += 1;
            continue;
        };
        let (name, value) = match rest.split_once(':').or_else(|| rest.split_once('=')) {
            Some((n, v)) if !v.trim().is_empty() => (n.trim(), v.trim()),
            Some((n, _)) => (n.trim(), ""),
            None => (rest.trim(), ""),
        };
        if value.is_empty() {
            return Err(err(
                lineno,
                ParseErrorKind::MissingValue { name: name.into() },
            ));
        }
        let text = value;
        let value = parse_int(name, value, None).map_err(|k| err(lineno, k))?;
        // sysctl output carries no types: a negative value of a field the
        // kernel declares unsigned is an error here, not a field that later
        // reads as missing.
        if matches!(value, Value::Signed(v) if v < 0)
            && kind.knows(name)
            && !crate::catalog::is_signed(name)
        {
            return Err(err(
                lineno,
                ParseErrorKind::Negative {
                    name: name.into(),
                    value: text.into(),
                },
            ));
        }
        fields.push(Field {
            name: name.to_string(),
            value,
            kstat_type: None,
            line: lineno,
        });
    }
    let mut warnings = Vec::new();
    if skipped > 0 {
        warnings.push(format!("skipped {skipped} lines of other kstats"));
    }
    Ok(ArcSnapshot {
        kind,
        fields,
        snaptime_ns: None,
        header: None,
        source: Source::FreeBsdSysctl,
        warnings,
    })
}
