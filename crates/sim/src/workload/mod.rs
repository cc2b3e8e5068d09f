//! Synthetic workloads for `arclab whatif`: seeded, reproducible request
//! streams described in TOML.
//!
//! A workload is one `kind` — `zipf`, `scan`, `loop`, `oltp`, `backup`,
//! `bonnie` — or a `mixture` of weighted components that run side by side.
//! Keys are [`arclab_arc::block_key`]`(file, level, blkid)`: every component
//! gets its own range of 2^17 file ids, data blocks are level 0 and the
//! metadata reads (indirect blocks, dnode blocks) are marked
//! [`arclab_arc::Kind::Metadata`]. [`BUILTINS`] lists the named workloads;
//! `docs/whatif.md` documents every field.
//!
//! ```
//! use arclab_sim::workload::{self, WorkloadSpec};
//!
//! let spec = WorkloadSpec::from_toml_str(
//!     "name = \"hot\"\nkind = \"zipf\"\nalpha = 1.0\nobjects = 1000\nrate = 1000\nduration_secs = 2\n",
//!     "inline",
//! )
//! .unwrap();
//! assert_eq!(spec.describe().split(':').next(), Some("hot"));
//! let mut g = spec.generator(7);
//! let mut buf = Vec::new();
//! while g.next_batch(&mut buf, 512) > 0 {}
//! assert!(buf.windows(2).all(|w| w[0].time_ns <= w[1].time_ns));
//! assert!((1800..2200).contains(&buf.len()));
//! // Unknown kinds name the line and the known kinds.
//! let e = WorkloadSpec::from_toml_str("name = \"x\"\nkind = \"zipff\"\n", "w.toml").unwrap_err();
//! assert!(e.to_string().starts_with("w.toml: line 2: unknown workload kind `zipff` (known: zipf,"));
//! assert!(workload::builtin("homelab").is_some());
//! ```

mod builtins;
mod generator;
pub(crate) mod rng;
mod spec;
mod thin;

use crate::error;
/// The error of a rejected workload description (the same type as a
/// scenario's: [`DescriptionError`]).
pub use crate::error::DescriptionError as WorkloadError;
use crate::error::DescriptionError;
use crate::sample::{SampleUnits, SpatialSampler};
pub use generator::Generator;
pub(crate) use spec::bytes as spec_bytes;

/// The first line holding `key = …`.
pub(crate) fn find_key_line(text: &str, key: &str) -> Option<usize> {
    error::find_line(text, 1, |l| error::key_of(l) == Some(key))
}

use serde::{Deserialize, Serialize};
use spec::{Shape, validate};

/// The names [`builtin`] knows.
pub const BUILTINS: &[&str] = &[
    "homelab", "zipf", "scan", "loop", "mixture", "oltp", "backup", "bonnie",
];

/// The most requests a workload may produce: ten billion. Every request
/// passes through every run of a what-if, so a description that would
/// produce more (`rate = 1e300`) is refused before it runs, not run until
/// killed.
pub const MAX_REQUESTS: u64 = 10_000_000_000;

/// Each component of a workload owns the file ids `c << 17 ..` (`c` = 0 for a
/// single kind, `i + 1` for a mixture's component `i`): 2^17 files each.
pub(crate) const COMPONENT_FILES_SHIFT: u32 = 17;

/// Sampling units of a sequential component are kept this many at least
/// per pass ([`WorkloadSpec::sample_units`]).
pub const MIN_SAMPLED_UNITS: u64 = 10;

pub use crate::sample::MAX_UNIT_SHIFT;

/// The most components a mixture may have: each gets its own range of
/// 2^17 file ids, and a block key has room for 2^23 (the first range is the
/// single-kind workload's).
pub const MAX_COMPONENTS: usize = 63;

/// The longest simulated duration: 100 years, the same bound as every
/// duration on the command line.
pub use arclab_arc::units::MAX_DURATION_SECS;

/// The workload kinds a description may use.
pub const KINDS: &[&str] = &[
    "zipf", "scan", "loop", "mixture", "oltp", "backup", "bonnie",
];

/// A built-in workload by name (see [`BUILTINS`]).
pub fn builtin(name: &str) -> Option<WorkloadSpec> {
    let text = builtins::toml_of(name)?;
    // The built-in texts are tested to parse.
    WorkloadSpec::from_toml_str(text, &format!("builtin:{name}")).ok()
}

/// The TOML text of a built-in workload (what `examples/<name>.toml` holds).
pub fn builtin_toml(name: &str) -> Option<&'static str> {
    builtins::toml_of(name)
}

/// A workload: one kind, or a mixture of weighted components (TOML, tagged
/// by `kind`).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(transparent)]
pub struct WorkloadSpec {
    shape: Shape,
}

/// One phase of a phased workload (bonnie++): its name and time window.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PhaseSpan {
    /// `putc`, `write`, `rewrite`, `getc`, `read` or `seeks`.
    pub name: &'static str,
    /// Start (ns).
    pub start_ns: u64,
    /// End (ns, exclusive).
    pub end_ns: u64,
}

fn group(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn secs(s: f64) -> String {
    if s >= 120.0 && (s / 60.0).fract() == 0.0 {
        format!("{} min", s / 60.0)
    } else {
        format!("{s} s")
    }
}

fn size(b: u64) -> String {
    arclab_arc::units::format_bytes(b)
}

impl WorkloadSpec {
    /// Parse and check a TOML description; `origin` names it in errors.
    pub fn from_toml_str(text: &str, origin: &str) -> Result<WorkloadSpec, DescriptionError> {
        let spec: WorkloadSpec = toml::from_str(text)
            .map_err(|e| DescriptionError::from_toml(text, origin, &e, &KINDS.join(", ")))?;
        spec.check().map_err(|i| {
            let line = error::line_of_key(text, "components", i.component, i.key);
            let at = i.component.map(|c| format!("component {}: ", c + 1));
            DescriptionError::new(
                origin,
                line,
                format!("{}{}", at.unwrap_or_default(), i.message),
            )
        })?;
        Ok(spec)
    }

    /// The TOML form ([`WorkloadSpec::from_toml_str`] reads it back).
    pub fn to_toml_string(&self) -> String {
        toml::to_string(self).unwrap_or_default()
    }

    fn check(&self) -> Result<(), spec::Invalid> {
        validate(&self.shape, None, true)?;
        let d = self.shape.common().duration_secs;
        if d.is_none() && !matches!(self.shape, Shape::Bonnie(_)) {
            return Err(spec::Invalid {
                component: None,
                key: "duration_secs",
                message: "`duration_secs` is missing (simulated seconds to run)".into(),
            });
        }
        if let Shape::Bonnie(k) = &self.shape {
            let secs = Shape::bonnie_secs(k);
            if d.is_none() && (secs.is_nan() || secs > MAX_DURATION_SECS) {
                return Err(spec::Invalid {
                    component: None,
                    key: "seeks",
                    message: format!(
                        "bonnie's phases would take {secs:.3e} simulated seconds at these speeds; \
                         at most {MAX_DURATION_SECS} (100 years): lower `file_bytes` or `seeks`, \
                         raise the speeds, or set `duration_secs`"
                    ),
                });
            }
        }
        let n = self.expected_requests();
        if n > MAX_REQUESTS {
            return Err(spec::Invalid {
                component: None,
                key: "rate",
                message: format!(
                    "the workload would produce {} requests; at most {} \
                     (every request passes through every run): lower `rate` or `duration_secs`",
                    if n == u64::MAX {
                        "more than 18 billion billion".to_string()
                    } else {
                        format!("about {}", group(n))
                    },
                    group(MAX_REQUESTS)
                ),
            });
        }
        if n == 0 {
            return Err(spec::Invalid {
                component: None,
                key: "rate",
                message: "empty workload: it produces no requests".into(),
            });
        }
        Ok(())
    }

    /// The workload's name (its kind when it has none).
    pub fn name(&self) -> &str {
        self.shape
            .common()
            .name
            .as_deref()
            .unwrap_or(self.shape.kind())
    }

    /// The `kind` of the top-level table.
    pub fn kind(&self) -> &'static str {
        self.shape.kind()
    }

    /// Simulated duration (bonnie: its phases at the device model's speeds,
    /// unless `duration_secs` cuts it short).
    pub fn duration_ns(&self) -> u64 {
        let d = self.shape.common().duration_secs;
        let s = match &self.shape {
            Shape::Bonnie(k) => d.unwrap_or(f64::MAX).min(Shape::bonnie_secs(k)),
            _ => d.unwrap_or(0.0),
        };
        (s * 1e9) as u64
    }

    /// Blocks of the components read at random (Zipf, OLTP), which a
    /// spatial sample keeps block by block: what its error follows
    /// ([`crate::sample::auto_rate`]).
    pub fn random_blocks(&self) -> u64 {
        fn leaf(s: &Shape) -> u64 {
            match s {
                Shape::Zipf(k) => k.objects,
                Shape::Oltp(k) => k.bytes / k.size.max(1),
                Shape::Mixture(m) => m.components.iter().map(leaf).fold(0, u64::saturating_add),
                _ => 0,
            }
        }
        leaf(&self.shape)
    }

    /// About how many requests the generator produces.
    pub fn expected_requests(&self) -> u64 {
        let dur = self.duration_ns() as f64 / 1e9;
        match &self.shape {
            Shape::Mixture(m) => m
                .components
                .iter()
                .zip(spec::component_rates(m))
                .map(|(c, r)| leaf_requests(c, r, dur))
                .fold(0, u64::saturating_add),
            s => leaf_requests(s, s.common().rate.unwrap_or(0.0), dur),
        }
    }

    /// Requests per second on average.
    pub fn mean_rate(&self) -> f64 {
        let d = self.duration_ns() as f64 / 1e9;
        if d > 0.0 {
            self.expected_requests() as f64 / d
        } else {
            0.0
        }
    }

    /// The phases and their time windows (bonnie only; empty otherwise).
    pub fn phases(&self) -> Vec<PhaseSpan> {
        match &self.shape {
            Shape::Bonnie(k) => generator::bonnie_windows(k)
                .into_iter()
                .map(|(name, start_ns, end_ns)| PhaseSpan {
                    name,
                    start_ns,
                    end_ns,
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    /// One line: name, rate, footprint, shape, duration.
    pub fn describe(&self) -> String {
        let dur = secs(self.duration_ns() as f64 / 1e9);
        let head = format!(
            "{}: {} req/s",
            self.name(),
            group(self.mean_rate().round() as u64)
        );
        let what = match &self.shape {
            Shape::Mixture(m) => {
                let parts: Vec<String> = m.components.iter().map(leaf_brief).collect();
                let total: u64 = m.components.iter().map(footprint).sum();
                format!("over ~{}: {}", size(total), parts.join(" + "))
            }
            s => leaf_brief(s),
        };
        format!("{head}, {what}, {dur}")
    }

    /// A generator for this workload: the same `seed` gives the same stream.
    pub fn generator(&self, seed: u64) -> Generator {
        Generator::new(&self.shape, self.duration_ns(), seed, None)
    }

    /// The sampling units for a sample of this workload at `rate` when the
    /// prefetcher runs: each sequential component (scan, loop, backup,
    /// bonnie) in runs of 2^g consecutive blocks, so that the sample keeps
    /// runs the prefetcher can follow, with g as large as leaves at least
    /// [`MIN_SAMPLED_UNITS`] units of one pass in the sample and at most
    /// [`MAX_UNIT_SHIFT`]; the random components (zipf, oltp) block by
    /// block, by popularity rank (see [`SampleUnits`]). Longer runs lose
    /// fewer reads at each run's start (the prefetcher has not caught up
    /// yet); fewer runs make the sample lumpier (`docs/whatif.md`,
    /// "Sampling"). Without the prefetcher, [`SampleUnits::without_runs`].
    pub fn sample_units(&self, rate: f64) -> SampleUnits {
        let shift = |s: &Shape| -> Option<u8> {
            let blocks = match s {
                Shape::Scan(k) => k.bytes / k.size.max(1),
                Shape::Loop(k) => k.bytes / k.size.max(1),
                Shape::Backup(k) => k.files.saturating_mul(k.file_bytes / k.size.max(1)),
                Shape::Bonnie(k) => k.file_bytes / k.size.max(1),
                _ => return None,
            };
            let units = blocks as f64 * rate / MIN_SAMPLED_UNITS as f64;
            Some(if units >= 2.0 {
                (units.log2().floor() as u8).min(MAX_UNIT_SHIFT)
            } else {
                0
            })
        };
        let unit = |u: SampleUnits, i: usize, c: &Shape| match (shift(c), generator::rank_layout(c))
        {
            (Some(g), _) => u.with(i, g),
            (None, Some((n, m, bpf))) => u.with_ranks(i, n, m, bpf),
            (None, None) => u,
        };
        match &self.shape {
            Shape::Mixture(m) => m
                .components
                .iter()
                .enumerate()
                .fold(SampleUnits::BLOCKS, |u, (i, c)| unit(u, i + 1, c)),
            s => unit(SampleUnits::BLOCKS, 0, s),
        }
    }

    /// A generator of the spatial sample `samplers` keep (a request is kept
    /// when any of them keeps it), and only of it:
    /// the Zipf and OLTP components draw their kept requests directly
    /// (`thin.rs`: the thinned Poisson streams, cost proportional to the
    /// sample), the others are generated whole and sampled request by
    /// request. Its requests have the distribution of
    /// [`Self::generator`]'s filtered by `sampler`, not the same draws.
    /// [`Generator::full_requests`] then tells how many requests the whole
    /// workload has at or after `count_from_ns` (a warm-up's end).
    pub fn sampled_generator(
        &self,
        seed: u64,
        samplers: &[SpatialSampler],
        count_from_ns: u64,
    ) -> Generator {
        Generator::new(
            &self.shape,
            self.duration_ns(),
            seed,
            Some((samplers.to_vec(), count_from_ns)),
        )
    }
}

/// Distinct bytes a component touches (periodic scans of new files: one pass).
fn footprint(s: &Shape) -> u64 {
    match s {
        // Saturating: `objects = 2^64 - 1` is a valid (absurd) description.
        Shape::Zipf(k) => k.objects.saturating_mul(k.size),
        Shape::Scan(k) => k.bytes,
        Shape::Loop(k) => k.bytes,
        Shape::Oltp(k) => k.bytes,
        Shape::Backup(k) => k.files.saturating_mul(k.file_bytes),
        Shape::Bonnie(k) => k.file_bytes,
        Shape::Mixture(m) => m
            .components
            .iter()
            .map(footprint)
            .fold(0, u64::saturating_add),
    }
}

fn leaf_brief(s: &Shape) -> String {
    let b = size(s.block());
    match s {
        Shape::Zipf(k) => format!("Zipf {} over {} of {b} blocks", k.alpha, size(footprint(s))),
        Shape::Scan(k) => match k.period_secs {
            Some(p) => format!("{} scan every {}", size(k.bytes), secs(p)),
            None => format!("one {} scan", size(k.bytes)),
        },
        Shape::Loop(k) => format!("loop over {}", size(k.bytes)),
        Shape::Oltp(k) => format!(
            "OLTP {} DB, {b} pages, Zipf {}, {:.0} % writes",
            size(k.bytes),
            k.alpha,
            k.write_fraction * 100.0
        ),
        Shape::Backup(k) => format!(
            "backup of {} files × ~{}",
            group(k.files),
            size(k.file_bytes)
        ),
        Shape::Bonnie(k) => format!("bonnie++ on a {} file, {b} records", size(k.file_bytes)),
        Shape::Mixture(_) => "mixture".into(),
    }
}

fn leaf_requests(s: &Shape, rate: f64, dur: f64) -> u64 {
    match s {
        Shape::Scan(k) => {
            let blocks = (k.bytes / k.size) as f64;
            let pass = blocks / rate;
            let active = (dur - k.start_secs).max(0.0);
            let n = match k.period_secs {
                Some(p) => {
                    let period = p.max(pass);
                    let full = (active / period).floor();
                    full * blocks + ((active - full * period) * rate).min(blocks)
                }
                None => (active * rate).min(blocks),
            };
            n as u64
        }
        Shape::Bonnie(k) => {
            let blocks = k.file_bytes / k.size;
            let pc = k.perchr_bytes.div_ceil(k.size).min(blocks);
            // putc + write + rewrite (read and write) + getc + read + seeks (+10 % writes)
            let all = (2 * pc + 4 * blocks)
                .saturating_add(k.seeks)
                .saturating_add(k.seeks / 10);
            let full = Shape::bonnie_secs(k);
            (all as f64 * (dur / full).min(1.0)) as u64
        }
        Shape::Zipf(k) => prefilled(k.prefill, k.objects, rate, dur),
        Shape::Oltp(k) => prefilled(k.prefill, k.bytes / k.size, rate, dur),
        _ => (rate * dur) as u64,
    }
}

/// Requests of a Zipf stream that first reads its `n` objects once.
fn prefilled(prefill: bool, n: u64, rate: f64, dur: f64) -> u64 {
    if !prefill {
        return (rate * dur) as u64;
    }
    let fill = n as f64 / generator::PREFILL_RATE;
    if dur <= fill {
        (dur * generator::PREFILL_RATE) as u64
    } else {
        n + ((dur - fill) * rate) as u64
    }
}
