//! The rows of a what-if: one [`Row`] per [`RunResult`], priced by a
//! [`Device`], grouped by policy, version and prefetch, each compared with
//! its group's `default` cap; and the [`Report`] every exporter (text,
//! Markdown, CSV, JSON, plots, HTML) renders.

use super::device::Device;
use super::plan::Labels;
use super::{Point, RunResult};
use serde::Serialize;

const GIB: u64 = 1 << 30;

/// Everything `arclab whatif` found: the header facts, one [`Row`] per run,
/// the time series behind the plots, and the verdict.
#[derive(Serialize, Debug, Clone)]
pub struct Report {
    /// The workload's name (or the trace's path).
    pub workload: String,
    /// One line about the workload.
    pub workload_description: String,
    /// The scenario's name.
    pub scenario: String,
    /// The host's RAM.
    pub ram_bytes: u64,
    /// The scenario's OpenZFS version (rows carry their own).
    pub zfs_version: String,
    /// `linux` or `freebsd`.
    pub os: String,
    /// The disk model.
    pub device: Device,
    /// The workload generator's seed.
    pub seed: u64,
    /// Simulated time.
    pub duration_s: f64,
    /// The warm-up at the start that the counters leave out (the scenario's
    /// `warmup_secs`), seconds; plots mark it.
    pub warmup_s: f64,
    /// How the runs were sampled, when they were (said in every output).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sampling: Option<String>,
    /// One per run, grouped by policy, version and prefetch, caps in order.
    pub rows: Vec<Row>,
    /// The verdict paragraph.
    pub verdict: String,
    /// The `cap` of the row the verdict discusses (highlighted in the
    /// tables and the HTML report); `--verdict-for` chooses it.
    pub verdict_cap: Option<String>,
    /// Time series per run (plots and the HTML report only).
    #[serde(skip)]
    pub series: Vec<RunSeries>,
    /// For a capture of the host's own reads: the model against the host's
    /// kernel on the same reads ([`super::selfcheck`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub self_check: Option<SelfCheckLine>,
}

/// The self-check as reported: where it ran and how model and kernel
/// compare.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct SelfCheckLine {
    /// The cap it ran at: the host's `c_max` during the capture.
    pub c_max_bytes: u64,
    /// The comparison.
    #[serde(flatten)]
    pub check: super::selfcheck::SelfCheck,
}

impl SelfCheckLine {
    /// One sentence: "on your capture the model says 97.10 %, your kernel
    /// measured 98.90 % …".
    pub fn sentence(&self) -> String {
        let w = &self.check.whole;
        let a = &self.check.after_warmup;
        format!(
            "self-check at your host's c_max ({}) on the {} demand reads of your capture: the model says {:.2} %, your kernel measured {:.2} %; after the first half warms the model, {:.2} % vs {:.2} %, agreeing on {:.1} % of reads{}",
            arclab_arc::units::format_bytes(self.c_max_bytes),
            w.reads,
            w.model_ratio() * 100.0,
            w.kernel_ratio() * 100.0,
            a.model_ratio() * 100.0,
            a.kernel_ratio() * 100.0,
            a.agreement() * 100.0,
            match self.check.sampled {
                Some(r) => format!(" (sampled at {r})"),
                None => String::new(),
            }
        )
    }
}

/// One run: a policy at a cap, with a version and prefetch setting.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct Row {
    /// `default` or the cap as given (`8G`).
    pub cap: String,
    /// `zfs-arc`, `lru`, …
    pub policy: String,
    /// Whether the prefetcher ran.
    pub prefetch: bool,
    /// OpenZFS release modelled.
    pub zfs_version: String,
    /// The ARC's `c_max` (the capacity, for baselines).
    pub c_max_bytes: u64,
    /// Requests replayed (after sampling).
    pub n_req: u64,
    /// Of which demand misses.
    pub n_miss: u64,
    /// Hits ÷ requests.
    pub hit_ratio: f64,
    /// Demand misses per simulated second (scaled back when sampled): demand
    /// reads that went to the disk, arcstat's `dmis`; prefetch reads are not
    /// in it.
    pub misses_per_sec: f64,
    /// Their bytes per second.
    pub miss_bytes_per_sec: f64,
    /// Demand misses per second ÷ the `default` row's of the same group;
    /// `null` when that row had no misses or there is no reference.
    pub miss_multiplier: Option<f64>,
    /// Every read sent to the pool per second: the demand misses plus the
    /// prefetch reads that missed the ARC (a prefetch that hits, or a demand
    /// read of a block a prefetch is still reading, reads nothing).
    pub disk_reads_per_sec: f64,
    /// Their bytes per second.
    pub disk_bytes_per_sec: f64,
    /// The I/Os those reads cost on the row's device: one per demand miss,
    /// prefetch reads of consecutive blocks merged up to the aggregation
    /// limit ([`Device::ios_per_sec`]).
    pub disk_ios_per_sec: f64,
    /// Mean ARC size over time.
    pub mean_size_bytes: f64,
    /// Median ARC size over time.
    pub median_size_bytes: u64,
    /// Largest ARC size.
    pub peak_size_bytes: u64,
    /// Smallest target `c` over time (the shrinker lowers it under pressure).
    pub min_c_bytes: u64,
    /// The share of time the ARC's size is more than 1 % above `c_max`:
    /// memory it holds and cannot evict (`[pinned]`, `[[held]]`) beyond its
    /// cap.
    pub above_cap_fraction: f64,
    /// Seconds of disk time per second the disk reads take (capped at 1).
    pub disk_busy_ratio: f64,
    /// The same, uncapped: the load the disk reads put on the pool; above 1
    /// they need more than the pool has, and this still tells caps apart.
    pub disk_demand_ratio: f64,
    /// Whether the disk reads need more than the whole pool.
    pub disk_saturated: bool,
    /// ∫ (memory the host wanted but could not have) dt, in byte·seconds.
    pub pressure_deficit_byte_seconds: f64,
    /// Pressure bursts in which the ARC gave memory back.
    pub giveback_events: usize,
    /// The most the ARC gave back in one burst.
    pub giveback_bytes: u64,
    /// How long that took.
    pub giveback_seconds: f64,
    /// All memory given back over the run.
    pub giveback_total_bytes: u64,
    /// The spatial sampling rate, when sampled.
    pub sample_rate: Option<f64>,
    /// Independent samples averaged into the row (`--sample-seeds`; 1: one).
    pub sample_seeds: u32,
    /// The lowest and highest hit ratio among the samples, when several.
    pub hit_ratio_min: Option<f64>,
    /// See `hit_ratio_min`.
    pub hit_ratio_max: Option<f64>,
    /// The lowest and highest demand misses per second among the samples.
    pub misses_per_sec_min: Option<f64>,
    /// See `misses_per_sec_min`.
    pub misses_per_sec_max: Option<f64>,
}

/// The time series of one run (one per [`Row`], same order).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunSeries {
    /// Legend text, e.g. `8G`.
    pub label: String,
    /// Points in time order.
    pub points: Vec<SeriesPoint>,
}

/// One sample of a run's series.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SeriesPoint {
    /// Simulated seconds since the start.
    pub t_s: f64,
    /// ARC size.
    pub size_bytes: u64,
    /// The ARC's target `c`.
    pub c_bytes: u64,
    /// What the rest of the host (containers) asked for.
    pub other_demand_bytes: u64,
    /// What the host was short of at that moment.
    pub deficit_bytes: u64,
}

impl Row {
    /// The key rows share when one is compared with another: everything but the cap.
    pub fn group(&self) -> (String, String, bool) {
        (self.policy.clone(), self.zfs_version.clone(), self.prefetch)
    }

    /// `zfs-arc 2.3.0, prefetch on`: the group, in words.
    pub fn group_label(&self) -> String {
        if self.policy == "zfs-arc" {
            format!(
                "zfs-arc {}, prefetch {}",
                self.zfs_version,
                if self.prefetch { "on" } else { "off" }
            )
        } else {
            self.policy.clone()
        }
    }
}

/// Set each row's `miss_multiplier` against its group's `default` row, or
/// the group's largest cap when no row is `default`.
pub fn fill_multipliers(rows: &mut [Row]) {
    let refs: Vec<Option<f64>> = rows
        .iter()
        .map(|r| reference(rows, r).map(|x| x.misses_per_sec))
        .collect();
    for (row, base) in rows.iter_mut().zip(refs) {
        row.miss_multiplier = match base {
            Some(b) if b > 0.0 => Some(row.misses_per_sec / b),
            Some(_) if row.misses_per_sec == 0.0 => Some(1.0),
            _ => None,
        };
    }
}

/// The row `row` is compared with: its group's `default` cap, else its largest.
pub fn reference<'a>(rows: &'a [Row], row: &Row) -> Option<&'a Row> {
    let g = row.group();
    let g = &g;
    let same = || rows.iter().filter(move |r| r.group() == *g);
    same()
        .find(|r| r.cap == "default")
        .or_else(|| same().max_by_key(|r| r.c_max_bytes))
}

/// The row for one run: its labels, its counters and sizes, and the disk
/// time its disk reads (demand misses and prefetch reads) cost on `device`
/// (`miss_multiplier` is filled in by [`fill_multipliers`] once every row
/// is known).
pub fn row(r: &RunResult, labels: &Labels, device: &Device) -> Row {
    let ios = device.ios_per_sec(r.misses_per_sec, &r.prefetch_runs);
    let busy = device.busy(ios, r.disk_bytes_per_sec);
    let largest = r.giveback.iter().max_by_key(|g| g.bytes);
    Row {
        cap: labels.cap.clone(),
        policy: labels.policy.clone(),
        prefetch: labels.prefetch,
        zfs_version: labels.zfs_version.clone(),
        c_max_bytes: r.c_max_bytes,
        n_req: r.n_req,
        n_miss: r.n_miss,
        hit_ratio: r.hit_ratio,
        misses_per_sec: r.misses_per_sec,
        miss_bytes_per_sec: r.miss_bytes_per_sec,
        miss_multiplier: None,
        disk_reads_per_sec: r.disk_reads_per_sec,
        disk_bytes_per_sec: r.disk_bytes_per_sec,
        disk_ios_per_sec: ios,
        mean_size_bytes: r.mean_size_bytes,
        median_size_bytes: r.median_size_bytes,
        peak_size_bytes: r.peak_size_bytes,
        min_c_bytes: r.min_c_bytes,
        above_cap_fraction: r.above_cap_fraction,
        disk_busy_ratio: busy.ratio,
        disk_demand_ratio: busy.demand_ratio,
        disk_saturated: busy.saturated,
        pressure_deficit_byte_seconds: r.pressure_deficit_byte_seconds,
        giveback_events: r.giveback.len(),
        giveback_bytes: largest.map_or(0, |g| g.bytes),
        giveback_seconds: largest.map_or(0.0, |g| g.duration_ns as f64 / 1e9),
        giveback_total_bytes: r.giveback.iter().map(|g| g.bytes).sum(),
        sample_rate: r.sampled,
        sample_seeds: r.seeds,
        hit_ratio_min: r.hit_ratio_range.map(|x| x.0),
        hit_ratio_max: r.hit_ratio_range.map(|x| x.1),
        misses_per_sec_min: r.misses_per_sec_range.map(|x| x.0),
        misses_per_sec_max: r.misses_per_sec_range.map(|x| x.1),
    }
}

/// What the what-if simulates and what it does not, in sentences for the
/// reader of a report (the HTML report lists them; docs/whatif.md and
/// docs/model.md hold the detail): `(simulated, not simulated)`.
pub fn caveats(report: &Report) -> (Vec<String>, Vec<String>) {
    let simulated = vec![
        format!(
            "The ARC of OpenZFS {} on {} with {} of RAM, request by request: its size, its \
             target c, c_max and c_min for each cap, eviction between the MRU and MFU lists, and \
             the prefetcher where a row says prefetch on.",
            report.zfs_version,
            report.os,
            arclab_arc::units::format_bytes(report.ram_bytes)
        ),
        format!(
            "The workload `{}` ({}), replayed for {:.0} s of simulated time; the counters \
             leave out the first {:.0} s (warm-up, the cache filling up).",
            report.workload, report.workload_description, report.duration_s, report.warmup_s
        ),
        "The other processes' memory demand from the scenario, and the ARC shrinking when it \
         rises (gave back, deficit)."
            .to_string(),
    ];
    let not_simulated = vec![
        format!(
            "The pool: busy time is {} on {}, for every disk read (demand misses and prefetch \
             reads that missed the ARC); {}, an approximation (docs: whatif/device); no \
             queueing delay: meant for comparing caps, not for sizing a pool.",
            report.device.formula(),
            report.device.describe(),
            report.device.io_rule()
        ),
        "Write cost: writes become dirty buffers that join the ARC at a txg sync and count \
         as hits (they never read the disk); dirty-data limits, write latency and the ZIL are \
         not modelled."
            .to_string(),
        "L2ARC, compression (the ARC holds logical sizes), encryption, the dbuf cache and \
         lock contention."
            .to_string(),
        "Latency and throughput of the applications: the model counts misses, it does not \
         time them."
            .to_string(),
    ];
    (simulated, not_simulated)
}

/// The time series of one run, in seconds.
pub fn series(r: &RunResult, label: &str) -> RunSeries {
    RunSeries {
        label: label.to_string(),
        points: r.series.iter().map(series_point).collect(),
    }
}

fn series_point(p: &Point) -> SeriesPoint {
    SeriesPoint {
        t_s: p.t_ns as f64 / 1e9,
        size_bytes: p.size_bytes,
        c_bytes: p.c_bytes,
        other_demand_bytes: p.other_demand_bytes,
        deficit_bytes: p.deficit_bytes,
    }
}

/// One row with numbers shaped like the blog's for `cap` (tests, docs):
/// `misses` demand misses/s of 64 KiB, and no prefetch reads.
pub fn example_row(cap: &str, c_max: u64, peak: u64, misses: f64) -> Row {
    let device = Device::ssd();
    let miss_bytes = misses * 65_536.0;
    let busy = device.busy(misses, miss_bytes);
    Row {
        cap: cap.into(),
        policy: "zfs-arc".into(),
        prefetch: true,
        zfs_version: "2.3.0".into(),
        c_max_bytes: c_max,
        n_req: 22_000 * 600,
        n_miss: (misses * 600.0) as u64,
        hit_ratio: 1.0 - misses / 22_000.0,
        misses_per_sec: misses,
        miss_bytes_per_sec: miss_bytes,
        miss_multiplier: None,
        disk_reads_per_sec: misses,
        disk_bytes_per_sec: miss_bytes,
        disk_ios_per_sec: misses,
        mean_size_bytes: peak as f64 * 0.7,
        median_size_bytes: peak / 10 * 7,
        peak_size_bytes: peak,
        min_c_bytes: c_max.min(peak),
        above_cap_fraction: 0.0,
        disk_busy_ratio: busy.ratio,
        disk_demand_ratio: busy.demand_ratio,
        disk_saturated: busy.saturated,
        pressure_deficit_byte_seconds: (peak / 4) as f64 * 30.0,
        giveback_events: 3,
        giveback_bytes: peak / 3,
        giveback_seconds: peak as f64 / GIB as f64 * 2.0,
        giveback_total_bytes: peak,
        sample_rate: None,
        sample_seeds: 1,
        hit_ratio_min: None,
        hit_ratio_max: None,
        misses_per_sec_min: None,
        misses_per_sec_max: None,
    }
}

/// A hand-built report shaped like the blog's numbers: the homelab sweep
/// default, 16G, 12G, 8G, 4G (tests and docs of the exporters).
pub fn example() -> Report {
    let ram = 33_543_694_582;
    let mut rows = vec![
        example_row("default", ram - GIB, 15 * GIB, 20.0),
        example_row("16G", 16 * GIB, 15 * GIB, 20.5),
        example_row("12G", 12 * GIB, 12 * GIB + GIB / 3, 60.0),
        example_row("8G", 8 * GIB, 9 * GIB, 290.0),
        example_row("4G", 4 * GIB, 5 * GIB, 1900.0),
    ];
    fill_multipliers(&mut rows);
    let series = rows
        .iter()
        .map(|r| RunSeries {
            label: r.cap.clone(),
            points: (0..=120)
                .map(|i| {
                    let t = i as f64 * 5.0;
                    let burst = (i / 20) % 2 == 1;
                    let demand = if burst { 20 * GIB } else { 12 * GIB };
                    let c = r.c_max_bytes.min(if burst { 6 * GIB } else { 15 * GIB });
                    SeriesPoint {
                        t_s: t,
                        size_bytes: c + c / 10,
                        c_bytes: c,
                        other_demand_bytes: demand,
                        deficit_bytes: if burst { GIB / (1 + i as u64 % 3) } else { 0 },
                    }
                })
                .collect(),
        })
        .collect();
    let mut report = Report {
        workload: "homelab".into(),
        workload_description: "70 containers on one SSD, ~22,000 ARC reads/s".into(),
        scenario: "homelab".into(),
        ram_bytes: ram,
        zfs_version: "2.3".into(),
        os: "linux".into(),
        device: Device::ssd(),
        seed: 1,
        duration_s: 600.0,
        warmup_s: 60.0,
        sampling: None,
        rows,
        verdict: String::new(),
        verdict_cap: None,
        series,
        self_check: None,
    };
    super::verdict::decide(&mut report, None).expect("no cap asked for");
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multipliers_compare_with_default_of_the_same_group() {
        let mut rows = vec![
            example_row("default", 30 << 30, 15 << 30, 20.0),
            example_row("8G", 8 << 30, 9 << 30, 290.0),
            example_row("8G", 8 << 30, 9 << 30, 100.0),
        ];
        rows[2].prefetch = false; // its own group, no default: compared with itself
        fill_multipliers(&mut rows);
        assert_eq!(rows[0].miss_multiplier, Some(1.0));
        assert_eq!(rows[1].miss_multiplier, Some(14.5));
        assert_eq!(rows[2].miss_multiplier, Some(1.0));
        let mut zero = vec![
            example_row("default", 30 << 30, 15 << 30, 0.0),
            example_row("8G", 8 << 30, 9 << 30, 3.0),
        ];
        fill_multipliers(&mut zero);
        assert_eq!(zero[0].miss_multiplier, Some(1.0));
        assert_eq!(zero[1].miss_multiplier, None);
    }
}
