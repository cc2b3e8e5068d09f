//! The presentation half of `arclab whatif`: one result struct ([`Report`])
//! and one exporter per output format, all fed by it.
//!
//! - [`table`]: the human table (text, Markdown) and the machine ones (CSV,
//!   JSON);
//! - [`verdict`]: the one-paragraph plain-language verdict;
//! - [`plot`]: PNG and SVG charts (`plotters`, DejaVu Sans embedded, so no
//!   system font is needed);
//! - [`html`]: one self-contained HTML page (inline SVG, inline CSS, no
//!   external URL);
//! - [`device`]: the disk model behind `disk_busy_ratio`.
//!
//! Every file is written through [`write_atomic`], i.e. `arclab-io`'s one
//! atomic writer: a randomly named temporary file beside the target, then a
//! rename, so an existing output is never left partial and no planted
//! symlink is followed.

pub(crate) mod device;
pub(crate) mod html;
pub(crate) mod plot;
pub(crate) mod table;
pub(crate) mod verdict;

use anyhow::Result;
use device::Device;
use serde::Serialize;
use std::path::Path;

/// Everything `arclab whatif` found: the header facts, one [`Row`] per run,
/// the time series behind the plots, and the verdict.
#[derive(Serialize, Debug, Clone)]
pub(crate) struct Report {
    /// The workload's name (or the trace's path).
    pub(crate) workload: String,
    /// One line about the workload.
    pub(crate) workload_description: String,
    /// The scenario's name.
    pub(crate) scenario: String,
    /// The host's RAM.
    pub(crate) ram_bytes: u64,
    /// The scenario's OpenZFS version (rows carry their own).
    pub(crate) zfs_version: String,
    /// `linux` or `freebsd`.
    pub(crate) os: String,
    /// The disk model.
    pub(crate) device: Device,
    /// The workload generator's seed.
    pub(crate) seed: u64,
    /// Simulated time.
    pub(crate) duration_s: f64,
    /// How the runs were sampled, when they were (said in every output).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) sampling: Option<String>,
    /// One per run, grouped by policy, version and prefetch, caps in order.
    pub(crate) rows: Vec<Row>,
    /// The verdict paragraph.
    pub(crate) verdict: String,
    /// Time series per run (plots and the HTML report only).
    #[serde(skip)]
    pub(crate) series: Vec<RunSeries>,
}

/// One run: a policy at a cap, with a version and prefetch setting.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub(crate) struct Row {
    /// `default` or the cap as given (`8G`).
    pub(crate) cap: String,
    /// `zfs-arc`, `lru`, …
    pub(crate) policy: String,
    /// Whether the prefetcher ran.
    pub(crate) prefetch: bool,
    /// OpenZFS release modelled.
    pub(crate) zfs_version: String,
    /// The ARC's `c_max` (the capacity, for baselines).
    pub(crate) c_max_bytes: u64,
    /// Requests replayed (after sampling).
    pub(crate) n_req: u64,
    /// Of which misses.
    pub(crate) n_miss: u64,
    /// Hits ÷ requests.
    pub(crate) hit_ratio: f64,
    /// Misses per simulated second (scaled back when sampled).
    pub(crate) misses_per_sec: f64,
    /// Bytes read from disk per second.
    pub(crate) miss_bytes_per_sec: f64,
    /// Misses per second ÷ the `default` row's of the same group; `null`
    /// when that row had no misses or there is no reference.
    pub(crate) miss_multiplier: Option<f64>,
    /// Mean ARC size over time.
    pub(crate) mean_size_bytes: f64,
    /// Largest ARC size.
    pub(crate) peak_size_bytes: u64,
    /// Seconds of disk time per second (capped at 1).
    pub(crate) disk_busy_ratio: f64,
    /// Whether the misses need more than the whole device.
    pub(crate) disk_saturated: bool,
    /// ∫ (memory the host wanted but could not have) dt, in byte·seconds.
    pub(crate) pressure_deficit_byte_seconds: f64,
    /// Pressure bursts in which the ARC gave memory back.
    pub(crate) giveback_events: usize,
    /// The most the ARC gave back in one burst.
    pub(crate) giveback_bytes: u64,
    /// How long that took.
    pub(crate) giveback_seconds: f64,
    /// All memory given back over the run.
    pub(crate) giveback_total_bytes: u64,
    /// The spatial sampling rate, when sampled.
    pub(crate) sample_rate: Option<f64>,
}

/// The time series of one run (one per [`Row`], same order).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct RunSeries {
    /// Legend text, e.g. `8G`.
    pub(crate) label: String,
    /// Points in time order.
    pub(crate) points: Vec<SeriesPoint>,
}

/// One sample of a run's series.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct SeriesPoint {
    /// Simulated seconds since the start.
    pub(crate) t_s: f64,
    /// ARC size.
    pub(crate) size_bytes: u64,
    /// The ARC's target `c`.
    pub(crate) c_bytes: u64,
    /// What the rest of the host (containers) asked for.
    pub(crate) other_demand_bytes: u64,
    /// What the host was short of at that moment.
    pub(crate) deficit_bytes: u64,
}

impl Row {
    /// The key rows share when one is compared with another: everything but the cap.
    pub(crate) fn group(&self) -> (String, String, bool) {
        (self.policy.clone(), self.zfs_version.clone(), self.prefetch)
    }

    /// `zfs-arc 2.3.0, prefetch on`: the group, in words.
    pub(crate) fn group_label(&self) -> String {
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
pub(crate) fn fill_multipliers(rows: &mut [Row]) {
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
pub(crate) fn reference<'a>(rows: &'a [Row], row: &Row) -> Option<&'a Row> {
    let g = row.group();
    let g = &g;
    let same = || rows.iter().filter(move |r| r.group() == *g);
    same()
        .find(|r| r.cap == "default")
        .or_else(|| same().max_by_key(|r| r.c_max_bytes))
}

/// Write `bytes` to `path` atomically ([`arclab_io::write_atomic`]).
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    Ok(arclab_io::write_atomic(path, bytes)?)
}

#[cfg(test)]
pub(crate) mod fixture {
    //! A report built by hand, shaped like the blog's numbers.

    use super::*;

    const GIB: u64 = 1 << 30;

    /// One row with the blog-ish numbers for `cap`.
    pub(crate) fn row(cap: &str, c_max: u64, peak: u64, misses: f64) -> Row {
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
            mean_size_bytes: peak as f64 * 0.7,
            peak_size_bytes: peak,
            disk_busy_ratio: busy.ratio,
            disk_saturated: busy.saturated,
            pressure_deficit_byte_seconds: (peak / 4) as f64 * 30.0,
            giveback_events: 3,
            giveback_bytes: peak / 3,
            giveback_seconds: peak as f64 / GIB as f64 * 2.0,
            giveback_total_bytes: peak,
            sample_rate: None,
        }
    }

    /// The homelab sweep: default, 16G, 12G, 8G, 4G.
    pub(crate) fn report() -> Report {
        let ram = 33_543_694_582;
        let mut rows = vec![
            row("default", ram - GIB, 15 * GIB, 20.0),
            row("16G", 16 * GIB, 15 * GIB, 20.5),
            row("12G", 12 * GIB, 12 * GIB + GIB / 3, 60.0),
            row("8G", 8 * GIB, 9 * GIB, 290.0),
            row("4G", 4 * GIB, 5 * GIB, 1900.0),
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
            sampling: None,
            rows,
            verdict: String::new(),
            series,
        };
        report.verdict = verdict::verdict(&report);
        report
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multipliers_compare_with_default_of_the_same_group() {
        let mut rows = vec![
            fixture::row("default", 30 << 30, 15 << 30, 20.0),
            fixture::row("8G", 8 << 30, 9 << 30, 290.0),
            fixture::row("8G", 8 << 30, 9 << 30, 100.0),
        ];
        rows[2].prefetch = false; // its own group, no default: compared with itself
        fill_multipliers(&mut rows);
        assert_eq!(rows[0].miss_multiplier, Some(1.0));
        assert_eq!(rows[1].miss_multiplier, Some(14.5));
        assert_eq!(rows[2].miss_multiplier, Some(1.0));
        let mut zero = vec![
            fixture::row("default", 30 << 30, 15 << 30, 0.0),
            fixture::row("8G", 8 << 30, 9 << 30, 3.0),
        ];
        fill_multipliers(&mut zero);
        assert_eq!(zero[0].miss_multiplier, Some(1.0));
        assert_eq!(zero[1].miss_multiplier, None);
    }

    #[test]
    fn atomic_write_replaces_whole_file_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("out.txt");
        std::fs::write(&p, "old").unwrap();
        write_atomic(&p, b"new contents").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "new contents");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1);
        // A directory that does not exist: an error naming the file, nothing left behind.
        let bad = dir.path().join("missing/out.txt");
        let e = write_atomic(&bad, b"x").unwrap_err();
        assert!(format!("{e:#}").contains("missing/out.txt"));
    }
}
