//! The TOML shapes of each workload kind, sizes with binary suffixes, and
//! validation.

use serde::{Deserialize, Serialize};

/// Sizes as integers or strings with binary suffixes (`"128KiB"`, `"31.24GiB"`).
pub(crate) mod bytes {
    use serde::de::{self, Visitor};
    use serde::{Deserializer, Serializer};
    use std::fmt;

    struct V;

    impl Visitor<'_> for V {
        type Value = u64;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a size in bytes: an integer or a string such as \"128KiB\"")
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<u64, E> {
            Ok(v)
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<u64, E> {
            u64::try_from(v).map_err(|_| E::custom(format!("size {v} is negative")))
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<u64, E> {
            if v >= 0.0 && v.fract() == 0.0 && v < 1.8e19 {
                Ok(v as u64)
            } else {
                Err(E::custom(format!(
                    "size {v} is not a whole number of bytes"
                )))
            }
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<u64, E> {
            arclab_arc::units::parse_bytes(v).map_err(E::custom)
        }
    }

    pub(crate) fn serialize<S: Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(*v)
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        d.deserialize_any(V)
    }

    /// The same for `Option<u64>` (use with `default` and `skip_serializing_if`).
    pub(crate) mod opt {
        use serde::{Deserialize, Deserializer, Serializer};

        #[derive(Deserialize)]
        struct B(#[serde(with = "super")] u64);

        pub(crate) fn serialize<S: Serializer>(v: &Option<u64>, s: S) -> Result<S::Ok, S::Error> {
            match v {
                Some(b) => s.serialize_some(b),
                None => s.serialize_none(),
            }
        }

        pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
            d: D,
        ) -> Result<Option<u64>, D::Error> {
            Ok(Some(B::deserialize(d)?.0))
        }
    }
}

const fn record() -> u64 {
    128 << 10
}
const fn db_page() -> u64 {
    16 << 10
}
const fn yes() -> bool {
    true
}
const fn oltp_alpha() -> f64 {
    0.8
}
const fn oltp_writes() -> f64 {
    0.25
}
const fn oltp_meta() -> f64 {
    0.02
}
const fn bonnie_file() -> u64 {
    16 << 30
}
const fn bonnie_perchr() -> u64 {
    16 << 20
}
const fn bonnie_write() -> f64 {
    124.0
}
const fn bonnie_rewrite() -> f64 {
    61.2
}
const fn bonnie_read() -> f64 {
    173.4
}
const fn bonnie_putc() -> f64 {
    92.0
}
const fn bonnie_getc() -> f64 {
    244.0
}
const fn bonnie_seeks() -> u64 {
    8000
}
const fn bonnie_seek_rate() -> f64 {
    207.0
}

/// Declares a workload kind's table: the fields every kind shares, then its own.
macro_rules! kind {
    ($(#[$m:meta])* $name:ident { $($(#[$fm:meta])* $f:ident : $t:ty),* $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
        #[serde(deny_unknown_fields)]
        pub(crate) struct $name {
            /// The workload's name (top level).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub(crate) name: Option<String>,
            /// A one-line description (top level).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub(crate) description: Option<String>,
            /// Simulated seconds (top level).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub(crate) duration_secs: Option<f64>,
            /// Requests per second (for scans: while a pass runs).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub(crate) rate: Option<f64>,
            /// Share of the mixture's rate (components only).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub(crate) weight: Option<f64>,
            $($(#[$fm])* pub(crate) $f: $t,)*
        }
    };
}

kind!(
    /// Zipf-popular blocks spread over 128 MiB files.
    ZipfK {
        alpha: f64,
        objects: u64,
        #[serde(with = "bytes", default = "record")]
        size: u64,
        #[serde(default)]
        metadata_fraction: f64,
        #[serde(default)]
        write_fraction: f64,
        #[serde(default)]
        prefill: bool,
    }
);
kind!(
    /// Sequential passes over a file.
    ScanK {
        #[serde(with = "bytes")]
        bytes: u64,
        #[serde(with = "bytes", default = "record")]
        size: u64,
        #[serde(default)]
        start_secs: f64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        period_secs: Option<f64>,
        #[serde(default = "yes")]
        new_file_each_pass: bool,
    }
);
kind!(
    /// A range read over and over.
    LoopK {
        #[serde(with = "bytes")]
        bytes: u64,
        #[serde(with = "bytes", default = "record")]
        size: u64,
    }
);
kind!(
    /// Skewed random page reads and writes in a database file.
    OltpK {
        #[serde(with = "bytes")]
        bytes: u64,
        #[serde(with = "bytes", default = "db_page")]
        size: u64,
        #[serde(default = "oltp_alpha")]
        alpha: f64,
        #[serde(default = "oltp_writes")]
        write_fraction: f64,
        #[serde(default = "oltp_meta")]
        metadata_fraction: f64,
        #[serde(default)]
        prefill: bool,
    }
);
kind!(
    /// Many files read one after another, each from start to end.
    BackupK {
        files: u64,
        #[serde(with = "bytes")]
        file_bytes: u64,
        #[serde(with = "bytes", default = "record")]
        size: u64,
    }
);
kind!(
    /// bonnie++'s phases on one file, timed by a device model.
    BonnieK {
        #[serde(with = "bytes", default = "bonnie_file")]
        file_bytes: u64,
        #[serde(with = "bytes", default = "record")]
        size: u64,
        #[serde(with = "bytes", default = "bonnie_perchr")]
        perchr_bytes: u64,
        #[serde(default = "bonnie_write")]
        write_mib_s: f64,
        #[serde(default = "bonnie_rewrite")]
        rewrite_mib_s: f64,
        #[serde(default = "bonnie_read")]
        read_mib_s: f64,
        #[serde(default = "bonnie_putc")]
        putc_kib_s: f64,
        #[serde(default = "bonnie_getc")]
        getc_kib_s: f64,
        #[serde(default = "bonnie_seeks")]
        seeks: u64,
        #[serde(default = "bonnie_seek_rate")]
        seeks_per_sec: f64,
    }
);
kind!(
    /// Weighted components running side by side.
    MixtureK {
        components: Vec<Shape>,
    }
);

/// A workload description, tagged by `kind`.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub(crate) enum Shape {
    /// See [`ZipfK`].
    Zipf(ZipfK),
    /// See [`ScanK`].
    Scan(ScanK),
    /// See [`LoopK`].
    Loop(LoopK),
    /// See [`MixtureK`].
    Mixture(MixtureK),
    /// See [`OltpK`].
    Oltp(OltpK),
    /// See [`BackupK`].
    Backup(BackupK),
    /// See [`BonnieK`].
    Bonnie(BonnieK),
}

/// The fields every kind shares.
pub(crate) struct Common<'a> {
    pub(crate) name: &'a Option<String>,
    pub(crate) duration_secs: Option<f64>,
    pub(crate) rate: Option<f64>,
    pub(crate) weight: Option<f64>,
}

impl Shape {
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Shape::Zipf(_) => "zipf",
            Shape::Scan(_) => "scan",
            Shape::Loop(_) => "loop",
            Shape::Mixture(_) => "mixture",
            Shape::Oltp(_) => "oltp",
            Shape::Backup(_) => "backup",
            Shape::Bonnie(_) => "bonnie",
        }
    }

    pub(crate) fn common(&self) -> Common<'_> {
        macro_rules! c {
            ($k:expr) => {
                Common {
                    name: &$k.name,
                    duration_secs: $k.duration_secs,
                    rate: $k.rate,
                    weight: $k.weight,
                }
            };
        }
        match self {
            Shape::Zipf(k) => c!(k),
            Shape::Scan(k) => c!(k),
            Shape::Loop(k) => c!(k),
            Shape::Mixture(k) => c!(k),
            Shape::Oltp(k) => c!(k),
            Shape::Backup(k) => c!(k),
            Shape::Bonnie(k) => c!(k),
        }
    }

    /// The block size requests use.
    pub(crate) fn block(&self) -> u64 {
        match self {
            Shape::Zipf(k) => k.size,
            Shape::Scan(k) => k.size,
            Shape::Loop(k) => k.size,
            Shape::Oltp(k) => k.size,
            Shape::Backup(k) => k.size,
            Shape::Bonnie(k) => k.size,
            Shape::Mixture(_) => 0,
        }
    }

    /// Simulated seconds bonnie's phases take at the device model's speeds.
    pub(crate) fn bonnie_secs(k: &BonnieK) -> f64 {
        let mib = (1u64 << 20) as f64;
        let kib = 1024.0;
        let f = k.file_bytes as f64;
        let pc = k.perchr_bytes as f64;
        pc / (k.putc_kib_s * kib)
            + f / (k.write_mib_s * mib)
            + f / (k.rewrite_mib_s * mib)
            + pc / (k.getc_kib_s * kib)
            + f / (k.read_mib_s * mib)
            + k.seeks as f64 / k.seeks_per_sec
    }
}

/// The rate of each mixture component: its own `rate`, or its `weight`'s
/// share (among the components without a rate) of the mixture's `rate`.
pub(crate) fn component_rates(m: &MixtureK) -> Vec<f64> {
    let weighted: f64 = m
        .components
        .iter()
        .filter(|c| c.common().rate.is_none())
        .map(|c| c.common().weight.unwrap_or(1.0))
        .sum();
    m.components
        .iter()
        .map(|c| {
            let com = c.common();
            com.rate
                .unwrap_or_else(|| m.rate.unwrap_or(0.0) * com.weight.unwrap_or(1.0) / weighted)
        })
        .collect()
}

/// A validation failure: the message and the key it is about (for the line).
pub(crate) struct Invalid {
    pub(crate) component: Option<usize>,
    pub(crate) key: &'static str,
    pub(crate) message: String,
}

fn bad(component: Option<usize>, key: &'static str, message: String) -> Invalid {
    Invalid {
        component,
        key,
        message,
    }
}

fn positive(c: Option<usize>, key: &'static str, v: f64) -> Result<(), Invalid> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(bad(
            c,
            key,
            format!("`{key}` must be a positive number, got {v}"),
        ))
    }
}

fn fraction(c: Option<usize>, key: &'static str, v: f64) -> Result<(), Invalid> {
    if (0.0..=1.0).contains(&v) {
        Ok(())
    } else {
        Err(bad(
            c,
            key,
            format!("`{key}` must be within 0..=1, got {v}"),
        ))
    }
}

fn block_ok(c: Option<usize>, size: u64) -> Result<(), Invalid> {
    if (512..=16 << 20).contains(&size) {
        Ok(())
    } else {
        Err(bad(
            c,
            "size",
            format!("block `size` must be 512 B – 16 MiB, got {size}"),
        ))
    }
}

fn at_least_block(
    c: Option<usize>,
    key: &'static str,
    bytes: u64,
    size: u64,
) -> Result<(), Invalid> {
    if bytes >= size {
        Ok(())
    } else {
        Err(bad(
            c,
            key,
            format!("`{key}` ({bytes} B) is smaller than one block ({size} B)"),
        ))
    }
}

/// Check a shape; `c` is its index in the mixture (None at top level).
pub(crate) fn validate(s: &Shape, c: Option<usize>, needs_rate: bool) -> Result<(), Invalid> {
    let com = s.common();
    if let Some(r) = com.rate {
        positive(c, "rate", r)?;
    } else if needs_rate && !matches!(s, Shape::Bonnie(_) | Shape::Mixture(_)) {
        return Err(bad(
            c,
            "rate",
            format!("{} needs a `rate` (requests per second)", s.kind()),
        ));
    }
    if let Some(w) = com.weight {
        positive(c, "weight", w)?;
    }
    if let Some(d) = com.duration_secs {
        positive(c, "duration_secs", d)?;
        if d > super::MAX_DURATION_SECS {
            return Err(bad(
                c,
                "duration_secs",
                format!(
                    "`duration_secs` {d} is longer than 100 years ({} s)",
                    super::MAX_DURATION_SECS
                ),
            ));
        }
    }
    match s {
        Shape::Zipf(k) => {
            if !(k.alpha.is_finite() && k.alpha >= 0.0) {
                return Err(bad(
                    c,
                    "alpha",
                    format!("`alpha` must be ≥ 0, got {}", k.alpha),
                ));
            }
            if k.objects == 0 {
                return Err(bad(c, "objects", "`objects` must be at least 1".into()));
            }
            block_ok(c, k.size)?;
            fraction(c, "metadata_fraction", k.metadata_fraction)?;
            fraction(c, "write_fraction", k.write_fraction)?;
            if k.prefill && k.metadata_fraction >= 1.0 {
                return Err(bad(
                    c,
                    "prefill",
                    "`prefill` reads the component's data blocks once; with \
                     `metadata_fraction` = 1 it reads none of them afterwards, so there \
                     is nothing to prefill"
                        .into(),
                ));
            }
        }
        Shape::Scan(k) => {
            block_ok(c, k.size)?;
            at_least_block(c, "bytes", k.bytes, k.size)?;
            if k.start_secs < 0.0 || !k.start_secs.is_finite() {
                return Err(bad(c, "start_secs", "`start_secs` must be ≥ 0".into()));
            }
            if let Some(p) = k.period_secs {
                positive(c, "period_secs", p)?;
            }
        }
        Shape::Loop(k) => {
            block_ok(c, k.size)?;
            at_least_block(c, "bytes", k.bytes, k.size)?;
        }
        Shape::Oltp(k) => {
            block_ok(c, k.size)?;
            at_least_block(c, "bytes", k.bytes, k.size)?;
            if !(k.alpha.is_finite() && k.alpha >= 0.0) {
                return Err(bad(
                    c,
                    "alpha",
                    format!("`alpha` must be ≥ 0, got {}", k.alpha),
                ));
            }
            fraction(c, "write_fraction", k.write_fraction)?;
            fraction(c, "metadata_fraction", k.metadata_fraction)?;
        }
        Shape::Backup(k) => {
            block_ok(c, k.size)?;
            at_least_block(c, "file_bytes", k.file_bytes, k.size)?;
            if k.files == 0 {
                return Err(bad(c, "files", "`files` must be at least 1".into()));
            }
        }
        Shape::Bonnie(k) => {
            block_ok(c, k.size)?;
            at_least_block(c, "file_bytes", k.file_bytes, k.size)?;
            for (key, v) in [
                ("write_mib_s", k.write_mib_s),
                ("rewrite_mib_s", k.rewrite_mib_s),
                ("read_mib_s", k.read_mib_s),
                ("putc_kib_s", k.putc_kib_s),
                ("getc_kib_s", k.getc_kib_s),
                ("seeks_per_sec", k.seeks_per_sec),
            ] {
                positive(c, key, v)?;
            }
        }
        Shape::Mixture(m) => {
            if c.is_some() {
                return Err(bad(
                    c,
                    "kind",
                    "a mixture cannot contain another mixture".into(),
                ));
            }
            if m.components.len() > super::MAX_COMPONENTS {
                return Err(bad(
                    Some(super::MAX_COMPONENTS),
                    "kind",
                    format!(
                        "the mixture has {} components; at most {} (each gets its own range \
                         of 2^17 file ids, and a block key has room for 2^23)",
                        m.components.len(),
                        super::MAX_COMPONENTS
                    ),
                ));
            }
            let weights: f64 = m.components.iter().filter_map(|x| x.common().weight).sum();
            if !weights.is_finite() {
                return Err(bad(
                    None,
                    "weight",
                    "the components' `weight`s add up to more than a float can hold".into(),
                ));
            }
            if m.components.is_empty() {
                return Err(bad(
                    None,
                    "components",
                    "empty workload: the mixture has no `[[components]]`".into(),
                ));
            }
            let all_rated = m.components.iter().all(|x| x.common().rate.is_some());
            if com.rate.is_none() && !all_rated {
                return Err(bad(
                    None,
                    "rate",
                    "a mixture needs a `rate` unless every component has its own".into(),
                ));
            }
            for (i, x) in m.components.iter().enumerate() {
                validate(x, Some(i), false)?;
            }
        }
    }
    Ok(())
}
