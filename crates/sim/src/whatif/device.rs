//! The pool behind the ARC: how much of its time the disk reads keep it
//! busy.
//!
//! **What reads the pool.** Every read that misses the ARC: the demand
//! misses (`misses/s`, arcstat's `dmis`) and the prefetch reads that missed
//! (`prefetch_data_misses + prefetch_metadata_misses`); together they are
//! `disk reads/s`. A prefetch read that hits the ARC, and a demand read of a
//! block a prefetch is still reading (an `iohit`), read nothing (arc.c,
//! `arc_read`). Each disk read is one I/O unless merged (below); each I/O
//! costs a disk its access latency, and every byte costs its transfer at the
//! disk's sequential bandwidth. A pool of `disks` disks that each keep
//! `queue_depth` reads queued serves them in parallel:
//!
//! `disk_busy_ratio = (I/Os/s × latency ÷ gain(queue_depth) + disk bytes/s ÷ bandwidth) ÷ disks`
//!
//! a fraction of the pool's device time per second. Above 1 the pool cannot
//! keep up: the row is flagged saturated and the uncapped ratio
//! (`disk_demand_ratio`, "137 % (saturated)", the load the reads put on the
//! pool, not a count of demand reads) still tells caps apart.
//!
//! **Merging.** ZFS merges queued reads of adjacent blocks into one I/O of
//! up to `zfs_vdev_aggregation_limit` bytes: 1 MiB on rotating media,
//! `zfs_vdev_aggregation_limit_non_rotating` = 128 KiB on flash
//! (vdev_queue.c, 2.2 and 2.3 defaults; [`AGGREGATION_LIMIT`],
//! [`AGGREGATION_LIMIT_NON_ROTATING`]). The model applies it to the
//! prefetcher's reads only, by a stated rule: the prefetch reads that missed
//! form runs of consecutive blocks of one file and level (a stream's reads,
//! in the order issued; [`crate::model::PrefetchReads`]), and a run of `n`
//! blocks of `b` bytes costs `⌈n ÷ max(1, ⌊limit ÷ b⌋)⌉` I/Os
//! ([`merged_ios`]): 128 KiB blocks go 8 to an I/O on a rotating disk and
//! one to an I/O on flash (two 128 KiB reads span 256 KiB, over the
//! limit). It assumes consecutive blocks of a file lie next to each other
//! on disk (written in order) and that a stream's reads wait in the queue
//! together, as they do when the pool is what the stream waits for; a
//! cached block inside a run splits it (ZFS bridges gaps of up to
//! `zfs_vdev_read_gap_limit` = 32 KiB, which smaller blocks could cross).
//! Demand misses are never merged: a reader waits for each before issuing
//! the next, so they do not queue together, and random ones are not
//! adjacent.
//!
//! What else the model assumes:
//!
//! * **Disks** — every disk that can serve a read: all sides of a mirror,
//!   the data disks of a raidz vdev (a raidz read of one block touches one
//!   data disk when the block is smaller than a stripe, the common case for
//!   random reads), summed over vdevs. Reads spread evenly over them.
//! * **Queue depth** — reads a disk has outstanding (ZFS keeps up to
//!   `zfs_vdev_async_read_max_active`/`sync_read_max_active`, 3–10, per
//!   vdev). A rotating disk reorders them and shortens its seeks: the
//!   access latency divides by `gain = queue_depth^(1/3)` (the usual
//!   elevator rule of thumb: ~3× the IOPS at 32 queued). Flash overlaps
//!   them inside the device: `gain = min(queue_depth, 32)`. Transfer time
//!   never overlaps.
//! * **No queueing delay**: utilisation only, not latency under load.
//!
//! One disk with one read queued (`ssd`, `hdd`, `nvme` as they are) is the
//! simple model: `I/Os/s × latency + disk bytes/s ÷ bandwidth` of one
//! device, an upper bound on busy time, good for comparing caps.
//!
//! Presets (typical published figures for 4–128 KiB random reads):
//!
//! | name | latency | bandwidth | media |
//! |---|---|---|---|
//! | `ssd` (SATA) | 100 µs | 500 MB/s | flash |
//! | `hdd` (7200 rpm) | 8 ms | 150 MB/s | rotating |
//! | `nvme` | 20 µs | 3 GB/s | flash |
//!
//! A custom device is `LAT,BW`: `0.1ms,500MB/s`, `8ms,150MB/s`,
//! `20us,3GB/s` (rotating when its latency is 1 ms or more). Latency takes `ns`, `us` (or `µs`), `ms`, `s`;
//! bandwidth takes `B`, `KB`, `MB`, `GB` (decimal, as device data sheets are
//! written) or `KiB`, `MiB`, `GiB` (binary), each optionally followed by `/s`.
//!
//! A pool is `[N x]DEVICE[:qdQ]`: `6xhdd:qd8` (six disks, eight reads
//! queued each), `2xnvme`, `hdd:qd32`, `4x0.1ms,500MB/s:qd4`. N is 1..=1024,
//! Q is 1..=1024.

use serde::Serialize;
use std::fmt;
use std::str::FromStr;

/// A pool model: per-read latency and sequential bandwidth of one disk,
/// how many disks serve reads and how many reads each keeps queued.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Device {
    /// `ssd`, `hdd`, `nvme`, or the text as given.
    pub name: String,
    /// Seconds per read, before the transfer.
    pub latency_s: f64,
    /// Bytes per second.
    pub bandwidth_bytes_per_s: f64,
    /// Disks that serve reads in parallel (1: the simple model).
    pub disks: u32,
    /// Reads each disk keeps queued (1: no overlap).
    pub queue_depth: u32,
    /// Rotating media (queued reads shorten seeks) rather than flash
    /// (queued reads overlap).
    pub rotational: bool,
}

/// The most disks or queued reads a pool description may give.
pub const MAX_POOL: u32 = 1024;

/// `zfs_vdev_aggregation_limit`: the largest I/O ZFS merges adjacent reads
/// into on rotating media (1 MiB, vdev_queue.c in 2.2 and 2.3).
pub const AGGREGATION_LIMIT: u64 = 1 << 20;

/// `zfs_vdev_aggregation_limit_non_rotating`: the same on flash
/// (`SPA_OLD_MAXBLOCKSIZE`, 128 KiB).
pub const AGGREGATION_LIMIT_NON_ROTATING: u64 = 128 << 10;

/// Runs of prefetch reads of one shape: `per_sec` runs a second of
/// `blocks` consecutive blocks of `block_bytes` each.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ReadRun {
    /// Bytes per block.
    pub block_bytes: u32,
    /// Consecutive blocks in each run.
    pub blocks: u64,
    /// Such runs per second.
    pub per_sec: f64,
}

/// I/Os a run of `blocks` consecutive reads of `block_bytes` each costs when
/// ZFS merges adjacent reads up to `limit` bytes: `⌈blocks ÷ max(1, ⌊limit ÷
/// block_bytes⌋)⌉` (a read larger than the limit is never merged).
///
/// ```
/// use arclab_sim::whatif::device::{merged_ios, AGGREGATION_LIMIT};
/// // 20 reads of 128 KiB under 1 MiB: 8 + 8 + 4.
/// assert_eq!(merged_ios(20, 128 << 10, AGGREGATION_LIMIT), 3);
/// ```
pub fn merged_ios(blocks: u64, block_bytes: u32, limit: u64) -> u64 {
    let per_io = (limit / u64::from(block_bytes.max(1))).max(1);
    blocks.div_ceil(per_io)
}

/// How busy a device is kept by a miss stream.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Busy {
    /// Seconds of device time per second, capped at 1.
    pub ratio: f64,
    /// The uncapped demand: above 1 the pool cannot keep up.
    pub demand_ratio: f64,
    /// Whether the demand is above 1.
    pub saturated: bool,
}

impl Device {
    /// A SATA SSD: 100 µs and 500 MB/s.
    pub fn ssd() -> Self {
        Device::new("ssd", 100e-6, 500e6)
    }

    /// A 7200 rpm disk: 8 ms and 150 MB/s.
    pub fn hdd() -> Self {
        Device::new("hdd", 8e-3, 150e6)
    }

    /// An NVMe SSD: 20 µs and 3 GB/s.
    pub fn nvme() -> Self {
        Device::new("nvme", 20e-6, 3e9)
    }

    /// One disk named `name` with the given latency and bandwidth, one read
    /// queued; rotating when the latency is 1 ms or more.
    pub fn new(name: &str, latency_s: f64, bandwidth_bytes_per_s: f64) -> Self {
        Device {
            name: name.to_string(),
            latency_s,
            bandwidth_bytes_per_s,
            disks: 1,
            queue_depth: 1,
            rotational: latency_s >= 1e-3,
        }
    }

    /// How many times shorter a read's access latency gets with
    /// `queue_depth` reads queued (see the module docs).
    pub fn queue_gain(&self) -> f64 {
        let q = f64::from(self.queue_depth.max(1));
        if self.rotational {
            q.cbrt()
        } else {
            q.min(32.0)
        }
    }

    /// The largest I/O this device's reads are merged into:
    /// [`AGGREGATION_LIMIT`] when rotating, else
    /// [`AGGREGATION_LIMIT_NON_ROTATING`].
    pub fn aggregation_limit(&self) -> u64 {
        if self.rotational {
            AGGREGATION_LIMIT
        } else {
            AGGREGATION_LIMIT_NON_ROTATING
        }
    }

    /// I/Os per second the pool serves for `demand_misses_per_sec` demand
    /// misses (one I/O each) and the prefetch reads in `prefetch_runs`
    /// (merged, [`merged_ios`]).
    pub fn ios_per_sec(&self, demand_misses_per_sec: f64, prefetch_runs: &[ReadRun]) -> f64 {
        let limit = self.aggregation_limit();
        demand_misses_per_sec.max(0.0)
            + prefetch_runs
                .iter()
                .map(|r| r.per_sec.max(0.0) * merged_ios(r.blocks, r.block_bytes, limit) as f64)
                .sum::<f64>()
    }

    /// Pool time per second for `ios_per_sec` I/Os carrying
    /// `bytes_per_sec` bytes in total.
    pub fn busy(&self, ios_per_sec: f64, bytes_per_sec: f64) -> Busy {
        let demand = (ios_per_sec.max(0.0) * self.latency_s / self.queue_gain()
            + bytes_per_sec.max(0.0) / self.bandwidth_bytes_per_s)
            / f64::from(self.disks.max(1));
        let demand = if demand.is_finite() { demand } else { 0.0 };
        Busy {
            ratio: demand.min(1.0),
            demand_ratio: demand,
            saturated: demand > 1.0,
        }
    }

    /// The busy-time formula this device uses, in words: the simple model's
    /// `I/Os/s × latency + disk bytes/s ÷ bandwidth`, or a pool's
    /// `(I/Os/s × latency ÷ 2 + disk bytes/s ÷ bandwidth) ÷ 6 disks`.
    pub fn formula(&self) -> String {
        let gain = self.queue_gain();
        let access = if gain == 1.0 {
            "I/Os/s × latency".to_string()
        } else {
            format!("I/Os/s × latency ÷ {}", trim_float(gain))
        };
        if self.disks <= 1 && gain == 1.0 {
            format!("{access} + disk bytes/s ÷ bandwidth")
        } else {
            format!(
                "({access} + disk bytes/s ÷ bandwidth) ÷ {} disk{}",
                self.disks,
                if self.disks == 1 { "" } else { "s" }
            )
        }
    }

    /// What an I/O is, in words: `I/Os: one per demand miss; prefetch reads
    /// of consecutive blocks merged up to 1 MiB (zfs_vdev_aggregation_limit)`.
    pub fn io_rule(&self) -> String {
        let limit = self.aggregation_limit();
        let (size, tunable) = if self.rotational {
            (limit >> 20, "MiB (zfs_vdev_aggregation_limit)")
        } else {
            (limit >> 10, "KiB (zfs_vdev_aggregation_limit_non_rotating)")
        };
        format!(
            "I/Os: one per demand miss; prefetch reads of consecutive blocks merged up to {size} {tunable}"
        )
    }

    /// `ssd (100 µs + 500 MB/s)`; a pool adds its disks and queue depth:
    /// `6xhdd:qd8 (6 disks × (8 ms + 150 MB/s), 8 queued each)`.
    pub fn describe(&self) -> String {
        let one = format!(
            "{} + {}",
            format_latency(self.latency_s),
            format_bandwidth(self.bandwidth_bytes_per_s)
        );
        match (self.disks, self.queue_depth) {
            (1, 1) => format!("{} ({one})", self.name),
            (1, q) => format!("{} ({one}, {q} queued)", self.name),
            (d, 1) => format!("{} ({d} disks × ({one}))", self.name),
            (d, q) => format!("{} ({d} disks × ({one}), {q} queued each)", self.name),
        }
    }
}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe())
    }
}

impl FromStr for Device {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        // `[N x]DEVICE[:qdQ]`
        let (rest, queue_depth) = match t.rsplit_once(":qd") {
            Some((r, q)) => (r, pool_number(q, "queue depth", t)?),
            None => (t, 1),
        };
        let (disks, dev) = match rest.split_once(['x', 'X']) {
            Some((n, d)) if !n.is_empty() && n.trim().bytes().all(|b| b.is_ascii_digit()) => {
                (pool_number(n, "disk count", t)?, d.trim())
            }
            _ => (1, rest.trim()),
        };
        let mut device = one_device(dev)?;
        device.disks = disks;
        device.queue_depth = queue_depth;
        if disks > 1 || queue_depth > 1 {
            device.name = t.to_string();
        }
        Ok(device)
    }
}

fn pool_number(s: &str, what: &str, whole: &str) -> Result<u32, String> {
    s.trim()
        .parse::<u32>()
        .ok()
        .filter(|n| (1..=MAX_POOL).contains(n))
        .ok_or_else(|| {
            format!(
                "`{whole}`: the {what} must be 1..={MAX_POOL}, not `{}`",
                s.trim()
            )
        })
}

fn one_device(t: &str) -> Result<Device, String> {
    match t.to_ascii_lowercase().as_str() {
        "ssd" | "sata" => return Ok(Device::ssd()),
        "hdd" | "disk" => return Ok(Device::hdd()),
        "nvme" => return Ok(Device::nvme()),
        _ => {}
    }
    let Some((lat, bw)) = t.split_once(',') else {
        return Err(format!(
            "unknown device `{t}`: use ssd, hdd, nvme or LATENCY,BANDWIDTH such as 0.1ms,500MB/s, optionally as a pool NxDEVICE:qdQ such as 6xhdd:qd8"
        ));
    };
    let latency_s = parse_latency(lat.trim())?;
    let bandwidth = parse_bandwidth(bw.trim())?;
    Ok(Device::new(t, latency_s, bandwidth))
}

fn split_number(s: &str) -> Option<(f64, &str)> {
    let end = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let v: f64 = s[..end].parse().ok()?;
    Some((v, s[end..].trim()))
}

/// `0.1ms`, `100us`, `100µs`, `20000ns`, `0.008s`.
fn parse_latency(s: &str) -> Result<f64, String> {
    let err = || format!("invalid device latency `{s}`: use e.g. 100us, 0.1ms, 8ms");
    let (v, unit) = split_number(s).ok_or_else(err)?;
    let mult = match unit {
        "ns" => 1e-9,
        "us" | "µs" | "μs" => 1e-6,
        "ms" => 1e-3,
        "s" => 1.0,
        _ => return Err(err()),
    };
    let secs = v * mult;
    if secs.is_finite() && secs >= 0.0 {
        Ok(secs)
    } else {
        Err(err())
    }
}

/// `500MB/s`, `3GB/s`, `150MiB/s`, `500M`.
fn parse_bandwidth(s: &str) -> Result<f64, String> {
    let err = || format!("invalid device bandwidth `{s}`: use e.g. 500MB/s, 3GB/s, 150MiB/s");
    let (v, unit) = split_number(s).ok_or_else(err)?;
    let unit = unit.strip_suffix("/s").unwrap_or(unit).trim();
    let mult = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kb" => 1e3,
        "m" | "mb" => 1e6,
        "g" | "gb" => 1e9,
        "kib" => 1024.0,
        "mib" => 1024.0 * 1024.0,
        "gib" => 1024.0 * 1024.0 * 1024.0,
        _ => return Err(err()),
    };
    let bw = v * mult;
    if bw.is_finite() && bw > 0.0 {
        Ok(bw)
    } else {
        Err(format!("{}: must be above zero", err()))
    }
}

fn trim_float(v: f64) -> String {
    let s = format!("{v:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// `100 µs`, `8 ms`.
pub fn format_latency(secs: f64) -> String {
    if secs >= 1.0 {
        format!("{} s", trim_float(secs))
    } else if secs >= 1e-3 {
        format!("{} ms", trim_float(secs * 1e3))
    } else if secs >= 1e-6 {
        format!("{} µs", trim_float(secs * 1e6))
    } else {
        format!("{} ns", trim_float(secs * 1e9))
    }
}

/// `500 MB/s`, `3 GB/s` (decimal, like data sheets).
pub fn format_bandwidth(bps: f64) -> String {
    if bps >= 1e9 {
        format!("{} GB/s", trim_float(bps / 1e9))
    } else if bps >= 1e6 {
        format!("{} MB/s", trim_float(bps / 1e6))
    } else if bps >= 1e3 {
        format!("{} kB/s", trim_float(bps / 1e3))
    } else {
        format!("{} B/s", trim_float(bps))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_have_documented_numbers() {
        let ssd: Device = "ssd".parse().unwrap();
        assert_eq!((ssd.latency_s, ssd.bandwidth_bytes_per_s), (100e-6, 500e6));
        let hdd: Device = "HDD".parse().unwrap();
        assert_eq!((hdd.latency_s, hdd.bandwidth_bytes_per_s), (8e-3, 150e6));
        let nvme: Device = "nvme".parse().unwrap();
        assert_eq!((nvme.latency_s, nvme.bandwidth_bytes_per_s), (20e-6, 3e9));
        assert_eq!(ssd.describe(), "ssd (100 µs + 500 MB/s)");
        assert_eq!(nvme.describe(), "nvme (20 µs + 3 GB/s)");
    }

    #[test]
    fn custom_devices_parse() {
        let d: Device = "0.1ms,500MB/s".parse().unwrap();
        assert!((d.latency_s - 100e-6).abs() < 1e-12);
        assert_eq!(d.bandwidth_bytes_per_s, 500e6);
        let d: Device = "100µs, 150MiB/s".parse().unwrap();
        assert!((d.latency_s - 100e-6).abs() < 1e-12);
        assert_eq!(d.bandwidth_bytes_per_s, 150.0 * 1024.0 * 1024.0);
        let d: Device = "8ms,3G".parse().unwrap();
        assert_eq!(d.bandwidth_bytes_per_s, 3e9);
        for bad in [
            "floppy",
            "0.1,500MB/s",
            "1ms,0MB/s",
            "1ms,fast",
            "ms,1GB/s",
            "",
        ] {
            assert!(bad.parse::<Device>().is_err(), "{bad} should not parse");
        }
    }

    #[test]
    fn busy_is_latency_plus_transfer() {
        let ssd = Device::ssd();
        // 290 misses/s of 128 KiB: 290 × 100 µs + 290 × 131072 B ÷ 500 MB/s.
        let b = ssd.busy(290.0, 290.0 * 131_072.0);
        let expect = 290.0 * 100e-6 + 290.0 * 131_072.0 / 500e6;
        assert!((b.ratio - expect).abs() < 1e-12);
        assert!(!b.saturated);
        assert_eq!(ssd.busy(0.0, 0.0).ratio, 0.0);
    }

    #[test]
    fn busy_caps_at_one_and_flags() {
        let b = Device::hdd().busy(1_000.0, 1_000.0 * 4096.0);
        assert_eq!(b.ratio, 1.0);
        assert!(b.saturated);
        assert!(b.demand_ratio > 8.0);
        // NaN and negative inputs do not leak into the ratio.
        assert_eq!(Device::ssd().busy(f64::NAN, -1.0).ratio, 0.0);
    }

    #[test]
    fn a_pool_divides_the_load_and_a_queue_shortens_the_access() {
        // The homelab's 171 misses/s of 128 KiB on one 7200 rpm disk need
        // 171 × 8 ms + 171 × 131072 B ÷ 150 MB/s = 1.517 s per second.
        let (m, b) = (171.0, 171.0 * 131_072.0);
        let one = Device::hdd().busy(m, b);
        assert!((one.demand_ratio - (171.0 * 8e-3 + b / 150e6)).abs() < 1e-9);
        assert!(one.saturated);
        // Six disks with eight reads queued: seeks shorten by 8^(1/3) = 2.
        let pool: Device = "6xhdd:qd8".parse().unwrap();
        assert_eq!(
            (pool.disks, pool.queue_depth, pool.rotational),
            (6, 8, true)
        );
        let p = pool.busy(m, b);
        let expect = (171.0 * 8e-3 / 2.0 + b / 150e6) / 6.0;
        assert!((p.demand_ratio - expect).abs() < 1e-9, "{p:?}");
        assert!(!p.saturated);
        assert_eq!(
            pool.describe(),
            "6xhdd:qd8 (6 disks × (8 ms + 150 MB/s), 8 queued each)"
        );
        assert_eq!(
            pool.formula(),
            "(I/Os/s × latency ÷ 2 + disk bytes/s ÷ bandwidth) ÷ 6 disks"
        );
        assert_eq!(
            Device::hdd().formula(),
            "I/Os/s × latency + disk bytes/s ÷ bandwidth"
        );
        // Flash overlaps queued reads up to 32.
        let f: Device = "ssd:qd64".parse().unwrap();
        assert!(!f.rotational);
        assert_eq!(f.queue_gain(), 32.0);
        // The simple model is one disk, one read queued.
        assert_eq!("hdd".parse::<Device>().unwrap(), Device::hdd());
        let c: Device = "4x0.1ms,500MB/s:qd4".parse().unwrap();
        assert_eq!((c.disks, c.queue_depth, c.rotational), (4, 4, false));
        for bad in ["0xhdd", "2000xhdd", "hdd:qd0", "hdd:qdx", "3xfloppy"] {
            assert!(bad.parse::<Device>().is_err(), "{bad} should not parse");
        }
    }

    #[test]
    fn the_aggregation_limits_are_openzfs_defaults() {
        // vdev_queue.c (2.2.x and 2.3.x): zfs_vdev_aggregation_limit = 1 << 20,
        // zfs_vdev_aggregation_limit_non_rotating = SPA_OLD_MAXBLOCKSIZE
        // = 1 << SPA_OLD_MAXBLOCKSHIFT (17) = 128 KiB.
        assert_eq!(AGGREGATION_LIMIT, 1_048_576);
        assert_eq!(AGGREGATION_LIMIT_NON_ROTATING, 131_072);
        assert_eq!(Device::hdd().aggregation_limit(), 1 << 20);
        assert_eq!(Device::ssd().aggregation_limit(), 128 << 10);
        assert_eq!(Device::nvme().aggregation_limit(), 128 << 10);
        assert!(
            Device::hdd()
                .io_rule()
                .contains("1 MiB (zfs_vdev_aggregation_limit)")
        );
        assert!(
            Device::ssd()
                .io_rule()
                .contains("128 KiB (zfs_vdev_aggregation_limit_non_rotating)")
        );
    }

    #[test]
    fn adjacent_reads_merge_up_to_the_limit() {
        // vdev_queue_aggregate grows an I/O while the span from its first
        // byte to the next read's last stays within the limit: 1 MiB holds
        // 1 MiB ÷ 128 KiB = 8 reads of 128 KiB, so N contiguous 128 KiB
        // reads cost ⌈N/8⌉ I/Os.
        let lim = AGGREGATION_LIMIT;
        for (n, ios) in [
            (1, 1),
            (7, 1),
            (8, 1),
            (9, 2),
            (16, 2),
            (17, 3),
            (1000, 125),
        ] {
            assert_eq!(merged_ios(n, 128 << 10, lim), ios, "{n} reads");
        }
        // On flash the limit is 128 KiB: two 128 KiB reads span 256 KiB,
        // over it, so none merge; 16 KiB pages go 131072 ÷ 16384 = 8 to one.
        assert_eq!(
            merged_ios(20, 128 << 10, AGGREGATION_LIMIT_NON_ROTATING),
            20
        );
        assert_eq!(merged_ios(20, 16 << 10, AGGREGATION_LIMIT_NON_ROTATING), 3);
        // A block larger than the limit is never merged (and never split).
        assert_eq!(merged_ios(5, 4 << 20, lim), 5);
        assert_eq!(merged_ios(0, 128 << 10, lim), 0);
    }

    #[test]
    fn demand_misses_are_one_io_each_and_prefetch_runs_merge() {
        // 100 demand misses/s plus, every second, 2 prefetch runs of 20
        // blocks of 128 KiB: on a rotating disk ⌈20/8⌉ = 3 I/Os per run, on
        // flash 20.
        let runs = [ReadRun {
            block_bytes: 128 << 10,
            blocks: 20,
            per_sec: 2.0,
        }];
        assert_eq!(Device::hdd().ios_per_sec(100.0, &runs), 100.0 + 2.0 * 3.0);
        assert_eq!(Device::ssd().ios_per_sec(100.0, &runs), 100.0 + 2.0 * 20.0);
        assert_eq!(Device::hdd().ios_per_sec(100.0, &[]), 100.0);
        // busy prices the I/Os and every byte: 106 × 8 ms + (100 + 40) ×
        // 131072 B ÷ 150 MB/s.
        let bytes = 140.0 * 131_072.0;
        let b = Device::hdd().busy(Device::hdd().ios_per_sec(100.0, &runs), bytes);
        assert!((b.demand_ratio - (106.0 * 8e-3 + bytes / 150e6)).abs() < 1e-12);
    }
}
