//! The model against the host's own kernel: replay a capture's demand
//! reads through one run (the host's cap, release and prefetch setting) and
//! compare, read by read, the model's hits with the kernel's
//! (`ARC_FLAG_CACHED` in the read history).
//!
//! The model starts cold and the kernel's ARC was warm when the capture
//! began, so the figure that matters is the one **after the warm-up**: the
//! second half of the capture's demand reads, once the first half has
//! filled the model. Both halves are reported.
//!
//! ```
//! use arclab_sim::whatif::selfcheck::{Agreement, self_check};
//! use arclab_sim::whatif::plan::{single, Cap, PolicyName};
//! use arclab_sim::scenario::Scenario;
//! use arclab_arc::{Request, block_key};
//!
//! let sc = Scenario::for_trace(4 << 30);
//! let spec = single(&sc, PolicyName::ZfsArc, "256M", "256M".parse::<Cap>().unwrap()).unwrap();
//! // Ten blocks read twice; a "kernel" that hit on every second read.
//! let mut reads = (0..20u64).map(|i| {
//!     let req = Request::read(i * 1_000_000_000, block_key(0, 0, (i % 10) * 1000), 128 << 10);
//!     (req, i >= 10)
//! });
//! let check = self_check(&spec, || Ok::<_, std::convert::Infallible>(reads.next())).unwrap();
//! assert_eq!(check.whole.reads, 20);
//! assert_eq!(check.whole.kernel_hits, 10);
//! assert_eq!(check.whole.model_hits, 10); // the second pass hits in the model too
//! assert_eq!(check.whole.agreement(), 1.0);
//! assert_eq!(check.after_warmup.reads, 10);
//! ```

use arclab_arc::Request;
use serde::Serialize;

use super::{Run, RunSpec};

/// Model and kernel, read by read, over some demand reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Agreement {
    /// Demand reads compared.
    pub reads: u64,
    /// Reads the model served from the ARC.
    pub model_hits: u64,
    /// Reads the kernel served from the ARC.
    pub kernel_hits: u64,
    /// Reads both served from the ARC.
    pub both_hit: u64,
    /// Reads only the model served from the ARC.
    pub model_only: u64,
    /// Reads only the kernel served from the ARC.
    pub kernel_only: u64,
}

impl Agreement {
    fn add(&mut self, model: bool, kernel: bool) {
        self.reads += 1;
        self.model_hits += u64::from(model);
        self.kernel_hits += u64::from(kernel);
        self.both_hit += u64::from(model && kernel);
        self.model_only += u64::from(model && !kernel);
        self.kernel_only += u64::from(kernel && !model);
    }

    fn ratio(n: u64, d: u64) -> f64 {
        if d == 0 { 0.0 } else { n as f64 / d as f64 }
    }

    /// The model's hit ratio.
    pub fn model_ratio(&self) -> f64 {
        Self::ratio(self.model_hits, self.reads)
    }

    /// The kernel's hit ratio.
    pub fn kernel_ratio(&self) -> f64 {
        Self::ratio(self.kernel_hits, self.reads)
    }

    /// The share of reads on which model and kernel agree (both hit or both
    /// missed).
    pub fn agreement(&self) -> f64 {
        Self::ratio(self.reads - self.model_only - self.kernel_only, self.reads)
    }
}

/// The outcome of [`self_check`].
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SelfCheck {
    /// The run's label (policy and cap).
    pub label: String,
    /// Every demand read of the capture.
    pub whole: Agreement,
    /// The second half of them (the first half warms the model).
    pub after_warmup: Agreement,
    /// The sampling rate of the run, when sampled (then only the sampled
    /// reads are compared).
    pub sampled: Option<f64>,
}

/// Replay `next`'s demand reads (each with whether the kernel served it
/// from the ARC) through `spec` and compare.
pub fn self_check<E>(
    spec: &RunSpec,
    mut next: impl FnMut() -> Result<Option<(Request, bool)>, E>,
) -> Result<SelfCheck, E> {
    let mut run = Run::new(spec);
    // Two bits per compared read (model, kernel): the halves are known only
    // at the end.
    let mut outcomes: Vec<u8> = Vec::new();
    while let Some((req, kernel)) = next()? {
        if let Some(model) = run.step(&req) {
            outcomes.push(u8::from(model) | u8::from(kernel) << 1);
        }
    }
    let mut check = SelfCheck {
        label: spec.label.clone(),
        sampled: run.rate,
        ..SelfCheck::default()
    };
    let half = outcomes.len() / 2;
    for (i, &o) in outcomes.iter().enumerate() {
        let (m, k) = (o & 1 != 0, o & 2 != 0);
        check.whole.add(m, k);
        if i >= half {
            check.after_warmup.add(m, k);
        }
    }
    Ok(check)
}

/// Why a capture could not be checked.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// The capture could not be read.
    #[error(transparent)]
    Trace(#[from] arclab_trace::TraceError),
    /// The capture file could not be opened.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The run could not be planned.
    #[error(transparent)]
    Plan(#[from] super::plan::PlanError),
}

/// The self-check of the capture at `path` on `scenario`: its demand reads
/// replayed at the host's `c_max` as the capture's header records it.
/// `Ok(None)` when the header has no `c_max` or the capture logged no hits
/// (`--no-hits`: the kernel's ratio is unknown).
pub fn check_capture(
    path: &std::path::Path,
    scenario: &crate::scenario::Scenario,
) -> Result<Option<super::report::SelfCheckLine>, CheckError> {
    use super::plan::{Cap, PolicyName, single};
    let file = std::fs::File::open(path).map_err(|source| CheckError::Io {
        path: path.display().to_string(),
        source,
    })?;
    let name = path.display().to_string();
    let mut reader = arclab_trace::capture::CaptureReader::new(
        std::io::BufReader::with_capacity(1 << 20, file),
        &name,
    )?;
    let header = &reader.info().header;
    let Some(c_max) = header.arc_c_max_bytes else {
        return Ok(None);
    };
    if !header.hits_logged {
        return Ok(None);
    }
    let cap = Cap::Size(arclab_arc::units::SizeSpec::Absolute(c_max));
    let mut spec = single(scenario, PolicyName::ZfsArc, "host", cap)?.with_arc_reads();
    spec.series_step_ns = 0;
    // A sampled capture replays on the miniature host it stands for.
    if header.sample_rate > 0.0 && header.sample_rate < 1.0 {
        spec.sample_rate = Some(header.sample_rate);
        spec.presampled = true;
    }
    let check = self_check(&spec, || reader.next_demand())?;
    Ok(Some(super::report::SelfCheckLine {
        c_max_bytes: c_max,
        check,
    }))
}
