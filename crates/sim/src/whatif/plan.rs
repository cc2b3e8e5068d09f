//! Planning a what-if: the grid of policy × version × prefetch × cap on a
//! scenario, one [`RunSpec`] per cell.
//!
//! **The `default` cap** means one thing everywhere: no `zfs_arc_max`, so
//! the modelled version's own `c_max` for the host's RAM — whatever
//! `arc_max` the scenario sets. A size cap is checked against the host's RAM
//! (the kernel ignores a cap at or above it). Baselines have no version or
//! prefetcher: they get one set of rows, the cap as their capacity, and the
//! default `c_max` for `default`.
//!
//! ```
//! use arclab_sim::scenario;
//! use arclab_sim::whatif::plan::{Caps, Plan, PolicyName};
//!
//! let mut sc = scenario::builtin("homelab").unwrap();
//! sc.arc_max = Some(4 << 30); // ignored by `default`
//! let caps: Caps = "4G..8G/4G".parse().unwrap();
//! let mut plan = Plan::new(vec![PolicyName::ZfsArc], caps.0);
//! plan.caps.insert(0, ("default".into(), "default".parse().unwrap()));
//! plan.prefetch = vec![true, false];
//! let runs = plan.runs(&sc).unwrap();
//! assert_eq!(runs.len(), 6);
//! assert_eq!(runs[0].labels.cap, "default");
//! assert_eq!(runs[0].spec.scenario.arc_max, None);
//! assert_eq!(runs[2].spec.scenario.arc_max, Some(8 << 30));
//! assert!(!runs[3].labels.prefetch);
//! ```

use super::RunSpec;
use crate::PolicyKind;
use crate::model::ZfsSpec;
use crate::replay::Target;
use crate::sample::SampleUnits;
use crate::scenario::Scenario;
use arclab_arc::limits::MIN_ARC_MAX;
use arclab_arc::model::Behaviour;
use arclab_arc::units::{SizeSpec, format_bytes, format_size_compact, parse_bytes};
use std::fmt;
use std::str::FromStr;

/// A policy name on the command line: a baseline policy or the ZFS ARC model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PolicyName {
    /// A baseline policy (lru, fifo, arc, s3fifo, sieve).
    Baseline(PolicyKind),
    /// The ZFS ARC model (`zfs-arc`).
    ZfsArc,
}

impl FromStr for PolicyName {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let norm = s.trim().to_ascii_lowercase().replace('_', "-");
        if matches!(norm.as_str(), "zfs-arc" | "zfsarc" | "zfs") {
            return Ok(PolicyName::ZfsArc);
        }
        s.parse::<PolicyKind>()
            .map(PolicyName::Baseline)
            .map_err(|e| format!("{e}, zfs-arc"))
    }
}

impl fmt::Display for PolicyName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PolicyName::Baseline(k) => k.fmt(f),
            PolicyName::ZfsArc => f.write_str("zfs-arc"),
        }
    }
}

/// A `zfs_arc_max` value: `default` (the version's own limit) or a size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Cap {
    /// No cap: the version's own `c_max` for the host's RAM.
    Default,
    /// Bytes, or a fraction of something the caller names (RAM for
    /// whatif's caps, the working set for `sim`'s sizes).
    Size(SizeSpec),
}

impl Cap {
    /// The bytes this cap stands for on a host with `ram` bytes (fractions
    /// are of RAM); `None` for `default`.
    pub fn bytes(&self, ram: u64) -> Option<u64> {
        match self {
            Cap::Default => None,
            Cap::Size(SizeSpec::Absolute(b)) => Some(*b),
            Cap::Size(SizeSpec::Fraction(f)) => Some((ram as f64 * f) as u64),
        }
    }
}

impl FromStr for Cap {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.trim().eq_ignore_ascii_case("default") {
            return Ok(Cap::Default);
        }
        s.parse()
            .map(Cap::Size)
            .map_err(|e: arclab_arc::units::SizeError| e.to_string())
    }
}

/// The most caps a what-if compares (a range, or the whole `--caps` list):
/// one table row and one full model run each.
pub const MAX_CAPS: usize = 64;

/// The most runs a what-if plans (policies × versions × prefetch settings ×
/// caps): the replay driver's bound.
pub use crate::replay::MAX_RUNS;

/// One `--caps` item: a cap, or a range `LOW..HIGH/STEP` of at most [`MAX_CAPS`],
/// each with its label (`default`, the text as given, or `4G`, `8G`, … for
/// a range).
#[derive(Clone, Debug, PartialEq)]
pub struct Caps(pub Vec<(String, Cap)>);

impl FromStr for Caps {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        let Some((lo, rest)) = s.split_once("..") else {
            let cap: Cap = s.parse()?;
            let label = if matches!(cap, Cap::Default) {
                "default".to_string()
            } else {
                s.to_string()
            };
            return Ok(Caps(vec![(label, cap)]));
        };
        let (hi, step) = rest
            .split_once('/')
            .ok_or_else(|| format!("range `{s}` needs a step: LOW..HIGH/STEP, e.g. 4G..16G/4G"))?;
        let bytes = |t: &str| parse_bytes(t).map_err(|e| e.to_string());
        let (lo, hi, step) = (bytes(lo)?, bytes(hi)?, bytes(step)?);
        if step == 0 || lo == 0 || lo > hi {
            return Err(format!("range `{s}`: need 0 < LOW ≤ HIGH and STEP > 0"));
        }
        if (hi - lo) / step >= MAX_CAPS as u64 {
            return Err(format!("range `{s}` gives more than {MAX_CAPS} caps"));
        }
        let short = |b: u64| {
            let c = format_size_compact(b);
            c.strip_suffix("iB").map_or(c.clone(), str::to_string)
        };
        Ok(Caps(
            (0..=(hi - lo) / step)
                .map(|i| lo + i * step)
                .map(|b| (short(b), Cap::Size(SizeSpec::Absolute(b))))
                .collect(),
        ))
    }
}

/// The axes of a what-if.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Policies, in row order.
    pub policies: Vec<PolicyName>,
    /// Caps with their labels, in row order.
    pub caps: Vec<(String, Cap)>,
    /// OpenZFS versions to model (empty: the scenario's).
    pub versions: Vec<String>,
    /// Prefetch settings (empty: the scenario's).
    pub prefetch: Vec<bool>,
    /// The stream's keys are block keys (generated workloads); a trace's
    /// keys are not.
    pub block_keys: bool,
    /// The stream's reads are the DMU's, to go through the dbuf cache
    /// ([`ZfsSpec::dmu_reads`]): true for generated workloads, false for
    /// captures (block keys, the ARC's own reads).
    pub dmu_reads: bool,
    /// Spatial sampling rate for every run.
    pub sample_rate: Option<f64>,
    /// The stream is already a spatial sample at `sample_rate` (a capture
    /// taken with `--sample-rate`): runs scale the host but keep every
    /// request.
    pub presampled: bool,
    /// Simulated time between two series points.
    pub series_step_ns: u64,
    /// The pool's compression ratio for data ([`ZfsSpec::compress_ratio`]).
    pub compress_ratio: f64,
}

/// How a run's row is labelled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Labels {
    /// `default` or the cap as given.
    pub cap: String,
    /// `zfs-arc`, `lru`, …
    pub policy: String,
    /// Whether the prefetcher runs (false for baselines).
    pub prefetch: bool,
    /// The release modelled (empty for baselines).
    pub zfs_version: String,
}

/// One run to do, and how to label its row.
#[derive(Clone, Debug)]
pub struct PlannedRun {
    /// The run.
    pub spec: RunSpec,
    /// Its row's labels.
    pub labels: Labels,
}

/// Why a plan cannot be run.
#[derive(Clone, Debug, PartialEq)]
pub enum PlanError {
    /// No cap or no policy.
    Empty,
    /// More caps than [`MAX_CAPS`] or more runs than [`MAX_RUNS`].
    TooMany {
        /// `caps` or `runs`.
        what: &'static str,
        /// How many were asked for.
        asked: usize,
        /// The limit.
        limit: usize,
    },
    /// A version name no preset knows.
    Version(String),
    /// A cap at or above the host's RAM.
    CapNotBelowRam {
        /// The cap's label.
        label: String,
        /// Its bytes.
        cap: u64,
        /// The host's RAM.
        ram: u64,
    },
    /// The scenario refuses the cap (below 64 MiB, not above `arc_min`, …).
    Cap {
        /// The cap's label.
        label: String,
        /// The scenario's error.
        message: String,
    },
}

impl PlanError {
    /// Whether the command line asked for something impossible (a usage
    /// error) rather than the host refusing a cap.
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            PlanError::Empty | PlanError::Version(_) | PlanError::TooMany { .. }
        )
    }
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlanError::Empty => f.write_str("give at least one --caps and one --policy"),
            PlanError::Version(e) => write!(f, "--zfs-version: {e}"),
            PlanError::TooMany { what, asked, limit } => write!(
                f,
                "{asked} {what} asked for; at most {limit} (each is a full model run over \
                 the whole request stream)"
            ),
            PlanError::CapNotBelowRam { label, cap, ram } => write!(
                f,
                "cap {label} ({}) is not below the host's RAM ({}): the kernel would ignore it",
                format_bytes(*cap),
                format_bytes(*ram)
            ),
            PlanError::Cap { label, message } => write!(f, "cap {label}: {message}"),
        }
    }
}

impl std::error::Error for PlanError {}

impl Plan {
    /// `policies` × `caps` on the scenario's version and prefetch setting,
    /// every request simulated, a series point a second.
    pub fn new(policies: Vec<PolicyName>, caps: Vec<(String, Cap)>) -> Plan {
        Plan {
            policies,
            caps,
            versions: Vec::new(),
            prefetch: Vec::new(),
            block_keys: true,
            dmu_reads: true,
            sample_rate: None,
            presampled: false,
            series_step_ns: 1_000_000_000,
            compress_ratio: 1.0,
        }
    }

    /// One run per policy × version × prefetch × cap on `scenario` (its RAM
    /// is the host's; see the module docs for `default`).
    pub fn runs(&self, scenario: &Scenario) -> Result<Vec<PlannedRun>, PlanError> {
        if self.caps.is_empty() || self.policies.is_empty() {
            return Err(PlanError::Empty);
        }
        if self.caps.len() > MAX_CAPS {
            return Err(PlanError::TooMany {
                what: "caps",
                asked: self.caps.len(),
                limit: MAX_CAPS,
            });
        }
        let ram = scenario.ram_bytes;
        for (label, cap) in &self.caps {
            if let Some(b) = cap.bytes(ram).filter(|&b| b >= ram) {
                return Err(PlanError::CapNotBelowRam {
                    label: label.clone(),
                    cap: b,
                    ram,
                });
            }
        }
        let versions: Vec<Option<String>> = if self.versions.is_empty() {
            vec![None]
        } else {
            for v in &self.versions {
                Behaviour::preset(v).map_err(|e| PlanError::Version(e.to_string()))?;
            }
            self.versions.iter().cloned().map(Some).collect()
        };
        let prefetches: Vec<bool> = if self.prefetch.is_empty() {
            vec![scenario.prefetch]
        } else {
            self.prefetch.clone()
        };
        let zfs_rows = versions.len() * prefetches.len();
        let runs = self
            .policies
            .iter()
            .map(|p| match p {
                PolicyName::ZfsArc => zfs_rows,
                PolicyName::Baseline(_) => 1,
            })
            .fold(0usize, usize::saturating_add)
            .saturating_mul(self.caps.len());
        if runs > MAX_RUNS {
            return Err(PlanError::TooMany {
                what: "runs (policies × versions × prefetch settings × caps)",
                asked: runs,
                limit: MAX_RUNS,
            });
        }
        let mut out = Vec::new();
        for &policy in &self.policies {
            for version in &versions {
                // Baselines have no version or prefetcher: one set of rows each.
                let (pfs, zfs) = match policy {
                    PolicyName::ZfsArc => (prefetches.as_slice(), true),
                    PolicyName::Baseline(_) => (&prefetches[..1], false),
                };
                if !zfs && version != &versions[0] {
                    continue;
                }
                for &prefetch in pfs {
                    for (label, cap) in &self.caps {
                        out.push(self.one(scenario, policy, version, prefetch, label, cap)?);
                    }
                }
            }
        }
        Ok(out)
    }

    fn one(
        &self,
        scenario: &Scenario,
        policy: PolicyName,
        version: &Option<String>,
        prefetch: bool,
        label: &str,
        cap: &Cap,
    ) -> Result<PlannedRun, PlanError> {
        let zfs = policy == PolicyName::ZfsArc;
        let arc_max = cap.bytes(scenario.ram_bytes);
        if let (true, Some(r), Some(b)) = (self.presampled, self.sample_rate, arc_max)
            && r < 1.0
            && (b as f64 * r) < MIN_ARC_MAX as f64
        {
            return Err(PlanError::Cap {
                label: label.to_string(),
                message: format!(
                    "on a trace sampled at {r} the cap is a miniature of {}, below ZFS's 64 MiB minimum; ask for caps of at least {} or capture with a higher --sample-rate",
                    format_bytes((b as f64 * r) as u64),
                    format_bytes((MIN_ARC_MAX as f64 / r).ceil() as u64)
                ),
            });
        }
        let mut sc = scenario.clone();
        sc.prefetch = prefetch;
        if let Some(v) = version {
            sc.zfs_version = v.clone();
        }
        // `default` is the version's own c_max, whatever the scenario set.
        sc.arc_max = arc_max;
        let config = sc.arc_config(arc_max).map_err(|e| PlanError::Cap {
            label: label.to_string(),
            message: e.to_string(),
        })?;
        let release = config.behaviour.release.to_string();
        let target = match policy {
            PolicyName::ZfsArc => Target::Zfs(Box::new(ZfsSpec {
                compress_ratio: self.compress_ratio,
                dmu_reads: self.block_keys && self.dmu_reads,
                ..ZfsSpec::new(config, prefetch, self.block_keys)
            })),
            // A baseline's capacity: the cap, else the default c_max.
            PolicyName::Baseline(kind) => Target::Policy(kind),
        };
        Ok(PlannedRun {
            spec: RunSpec {
                label: format!("{policy} {label}"),
                target,
                scenario: sc,
                sample_rate: self.sample_rate,
                presampled: self.presampled,
                series_step_ns: self.series_step_ns,
                sample_units: SampleUnits::BLOCKS,
                sample_salt: 0,
            },
            labels: Labels {
                cap: label.to_string(),
                policy: policy.to_string(),
                prefetch: zfs && prefetch,
                zfs_version: if zfs { release } else { String::new() },
            },
        })
    }
}

/// The one run of `policy` at `cap` on `scenario` (a one-cell [`Plan`]).
pub fn single(
    scenario: &Scenario,
    policy: PolicyName,
    label: &str,
    cap: Cap,
) -> Result<RunSpec, PlanError> {
    let plan = Plan::new(vec![policy], vec![(label.to_string(), cap)]);
    Ok(plan.runs(scenario)?.remove(0).spec)
}

/// `Cap::Size` of `bytes`, or `Cap::Default` for `None`.
pub fn cap_of(bytes: Option<u64>) -> Cap {
    bytes.map_or(Cap::Default, |b| Cap::Size(SizeSpec::Absolute(b)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario;

    const GIB: u64 = 1 << 30;

    #[test]
    fn cap_ranges() {
        let c: Caps = "4G..16G/4G".parse().unwrap();
        let labels: Vec<&str> = c.0.iter().map(|(l, _)| l.as_str()).collect();
        assert_eq!(labels, ["4G", "8G", "12G", "16G"]);
        assert!("16G..4G/4G".parse::<Caps>().is_err());
        assert!("4G..16G".parse::<Caps>().is_err());
        assert!("1K..1G/1K".parse::<Caps>().is_err(), "more than 64 caps");
        assert!(matches!(
            "default".parse::<Caps>().unwrap().0[0].1,
            Cap::Default
        ));
        assert_eq!(
            Cap::Size(SizeSpec::Fraction(0.25)).bytes(32 * GIB),
            Some(8 * GIB)
        );
    }

    #[test]
    fn default_is_the_versions_own_limit_whatever_the_scenario_says() {
        // bonnie sets arc_max = 6 GiB; `default` must not use it.
        let sc = scenario::builtin("bonnie").unwrap();
        assert_eq!(sc.arc_max, Some(6 * GIB));
        let plan = Plan::new(
            vec![PolicyName::ZfsArc],
            vec![("default".into(), Cap::Default)],
        );
        let run = &plan.runs(&sc).unwrap()[0];
        let Target::Zfs(z) = &run.spec.target else {
            panic!("zfs")
        };
        assert_eq!(z.config.arc_max, None);
        assert_eq!(run.spec.scenario.arc_max, None);
    }

    #[test]
    fn errors_name_the_cap() {
        let sc = scenario::builtin("homelab").unwrap();
        let plan = Plan::new(
            vec![PolicyName::ZfsArc],
            vec![("40G".into(), "40G".parse().unwrap())],
        );
        let e = plan.runs(&sc).unwrap_err();
        assert!(!e.is_usage());
        assert!(
            e.to_string()
                .starts_with("cap 40G (40.00 GiB) is not below"),
            "{e}"
        );
        let mut p = plan.clone();
        p.caps = vec![("1M".into(), "1M".parse().unwrap())];
        let e = p.runs(&sc).unwrap_err().to_string();
        assert!(e.starts_with("cap 1M: ") && e.contains("64 MiB"), "{e}");
        p.versions = vec!["abc".into()];
        assert!(p.runs(&sc).unwrap_err().is_usage());
        assert!(matches!(
            Plan::new(vec![], vec![]).runs(&sc),
            Err(PlanError::Empty)
        ));
    }
}
