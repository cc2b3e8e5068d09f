//! The disk behind the ARC: how much of its time the misses keep it busy.
//!
//! A miss is one read that goes to the pool. The model charges each one a
//! fixed access latency plus its bytes at the device's sequential bandwidth:
//!
//! `disk_busy_ratio = misses/s × latency + miss bytes/s ÷ bandwidth`
//!
//! (the same as `misses/s × (latency + mean miss size ÷ bandwidth)`), a
//! fraction of one second of device time per second. Above 1 the device
//! cannot keep up: the ratio is capped at 1 and the row is flagged
//! saturated. It is a single-queue, no-overlap model: real devices overlap
//! requests (NVMe especially), so it is an upper bound on busy time for a
//! given miss stream, good for comparing caps, not for capacity planning.
//!
//! Presets (typical published figures for 4–128 KiB random reads):
//!
//! | name | latency | bandwidth |
//! |---|---|---|
//! | `ssd` (SATA) | 100 µs | 500 MB/s |
//! | `hdd` (7200 rpm) | 8 ms | 150 MB/s |
//! | `nvme` | 20 µs | 3 GB/s |
//!
//! A custom device is `LAT,BW`: `0.1ms,500MB/s`, `8ms,150MB/s`,
//! `20us,3GB/s`. Latency takes `ns`, `us` (or `µs`), `ms`, `s`; bandwidth
//! takes `B`, `KB`, `MB`, `GB` (decimal, as device data sheets are written)
//! or `KiB`, `MiB`, `GiB` (binary), each optionally followed by `/s`.

use serde::Serialize;
use std::fmt;
use std::str::FromStr;

/// A device model: per-read latency and sequential bandwidth.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Device {
    /// `ssd`, `hdd`, `nvme`, or the `LAT,BW` text as given.
    pub name: String,
    /// Seconds per read, before the transfer.
    pub latency_s: f64,
    /// Bytes per second.
    pub bandwidth_bytes_per_s: f64,
}

/// How busy a device is kept by a miss stream.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Busy {
    /// Seconds of device time per second, capped at 1.
    pub ratio: f64,
    /// The uncapped demand: above 1 the device cannot keep up.
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

    /// A device named `name` with the given latency and bandwidth.
    pub fn new(name: &str, latency_s: f64, bandwidth_bytes_per_s: f64) -> Self {
        Device {
            name: name.to_string(),
            latency_s,
            bandwidth_bytes_per_s,
        }
    }

    /// Device time per second for `misses_per_sec` reads of
    /// `miss_bytes_per_sec` bytes in total.
    pub fn busy(&self, misses_per_sec: f64, miss_bytes_per_sec: f64) -> Busy {
        let demand = misses_per_sec.max(0.0) * self.latency_s
            + miss_bytes_per_sec.max(0.0) / self.bandwidth_bytes_per_s;
        let demand = if demand.is_finite() { demand } else { 0.0 };
        Busy {
            ratio: demand.min(1.0),
            demand_ratio: demand,
            saturated: demand > 1.0,
        }
    }

    /// `ssd (100 µs + 500 MB/s)`.
    pub fn describe(&self) -> String {
        format!(
            "{} ({} + {})",
            self.name,
            format_latency(self.latency_s),
            format_bandwidth(self.bandwidth_bytes_per_s)
        )
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
        match t.to_ascii_lowercase().as_str() {
            "ssd" | "sata" => return Ok(Device::ssd()),
            "hdd" | "disk" => return Ok(Device::hdd()),
            "nvme" => return Ok(Device::nvme()),
            _ => {}
        }
        let Some((lat, bw)) = t.split_once(',') else {
            return Err(format!(
                "unknown device `{t}`: use ssd, hdd, nvme or LATENCY,BANDWIDTH such as 0.1ms,500MB/s"
            ));
        };
        let latency_s = parse_latency(lat.trim())?;
        let bandwidth = parse_bandwidth(bw.trim())?;
        Ok(Device::new(t, latency_s, bandwidth))
    }
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
}
