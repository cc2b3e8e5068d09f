//! The verdict: one plain-language paragraph built from the numbers, saying
//! what a cap buys (a lower peak, memory handed back sooner when the
//! containers need it) and what it costs (demand misses, disk time).
//!
//! "Misses" in its sentences are demand misses (the table's `dmiss/s`,
//! arcstat's `dmis`); the disk time is that of every disk read, demand
//! misses and prefetch reads that missed the ARC (`disk rd/s`), and a
//! sentence says so when the prefetcher's reads add to the demand misses.
//!
//! The cap it talks about is the smallest one that keeps the disk busy at
//! most [`BUSY_OK`] of the time, not saturated, with a hit ratio within
//! [`HIT_SLACK`] of the default; when none does, the largest cap.

use super::plan::Cap;
use super::report::{Report, Row, reference};
use super::words::{busy_percent, gib_seconds, multiplier, percent, rate, seconds};
use arclab_arc::units::format_bytes;

/// Disk busy ratio still called acceptable when choosing the cap to describe.
pub const BUSY_OK: f64 = 0.10;
/// How far below the default's hit ratio the described cap may fall.
pub const HIT_SLACK: f64 = 0.05;

/// "an SSD", "an HDD", "an NVMe drive", "the disk".
fn device_phrase(name: &str) -> &'static str {
    match name {
        "ssd" => "an SSD",
        "hdd" => "a hard disk",
        "nvme" => "an NVMe drive",
        n if n.contains('x') || n.contains(":qd") => "the pool",
        _ => "the disk",
    }
}

/// `8 GiB` for `8G`; the c_max for `default`.
fn cap_words(r: &Row) -> String {
    if r.cap == "default" {
        format!("the default {}", format_bytes(r.c_max_bytes))
    } else {
        format_bytes(r.c_max_bytes)
    }
}

/// Whether the prefetcher's reads add to the row's disk reads as printed
/// (`rate` of the two differs).
fn prefetch_reads_show(r: &Row) -> bool {
    rate(r.disk_reads_per_sec) != rate(r.misses_per_sec)
}

/// "which keeps an SSD busy 7.1 % of the time"; when prefetch reads add to
/// the demand misses, "which with the prefetcher's reads, 310 disk reads/s
/// in all, keeps an SSD busy 7.9 % of the time".
fn busy_words(r: &Row, device: &str) -> String {
    let with = if prefetch_reads_show(r) {
        format!(
            " with the prefetcher's reads, {} disk reads/s in all,",
            rate(r.disk_reads_per_sec)
        )
    } else {
        String::new()
    };
    if r.disk_saturated {
        format!(
            "which{with} is more than {device} can serve ({} of its time)",
            busy_percent(r.disk_demand_ratio)
        )
    } else {
        format!(
            "which{with} keeps {device} busy {} of the time",
            busy_percent(r.disk_busy_ratio)
        )
    }
}

/// Pick the cap the verdict describes among `caps` (the reference excluded).
pub fn featured<'a>(caps: &[&'a Row], base: &Row) -> Option<&'a Row> {
    let mut sorted: Vec<&Row> = caps.to_vec();
    sorted.sort_by_key(|r| r.c_max_bytes);
    sorted
        .iter()
        .find(|r| {
            !r.disk_saturated
                && r.disk_busy_ratio <= BUSY_OK
                && r.hit_ratio >= base.hit_ratio - HIT_SLACK
        })
        .or(sorted.last())
        .copied()
}

/// Whether the row's cap is the cap `asked` (`default` only matches
/// `default`; sizes and fractions of `ram` match by bytes, so `8G`,
/// `8192M` and `8g` are one cap).
fn is_cap(row: &Row, asked: &Cap, ram: u64) -> bool {
    match (row.cap.parse::<Cap>(), asked) {
        (Ok(Cap::Default), Cap::Default) => true,
        (Ok(c @ Cap::Size(_)), Cap::Size(_)) => c.bytes(ram) == asked.bytes(ram),
        _ => false,
    }
}

/// Choose the row the verdict discusses and write the verdict: the cap
/// `asked` (`--verdict-for`) in the first group, else the one [`featured`]
/// picks. Sets `report.verdict_cap` (the row's `cap`, for highlighting) and
/// `report.verdict`. An `asked` cap that no row ran is an error naming the
/// caps that did.
pub fn decide(report: &mut Report, asked: Option<&Cap>) -> Result<(), String> {
    report.verdict_cap = None;
    if let Some(asked) = asked {
        let group = report.rows.first().map(Row::group);
        let found = report
            .rows
            .iter()
            .find(|r| Some(r.group()) == group && is_cap(r, asked, report.ram_bytes));
        match found {
            Some(r) => report.verdict_cap = Some(r.cap.clone()),
            None => {
                let ran: Vec<&str> = report
                    .rows
                    .iter()
                    .filter(|r| Some(r.group()) == group)
                    .map(|r| r.cap.as_str())
                    .collect();
                return Err(format!(
                    "--verdict-for: no run had that cap (the caps run: {})",
                    ran.join(", ")
                ));
            }
        }
    }
    report.verdict_cap = discussed(report).map(|r| r.cap.clone());
    report.verdict = verdict(report);
    Ok(())
}

/// The row the verdict discusses: `report.verdict_cap` in the first group
/// when set, else [`featured`]'s choice, else the reference itself.
pub fn discussed(report: &Report) -> Option<&Row> {
    let rows = &report.rows;
    let first = rows.first()?;
    let base = reference(rows, first)?;
    let group = first.group();
    if let Some(cap) = &report.verdict_cap {
        return rows.iter().find(|r| r.group() == group && &r.cap == cap);
    }
    let caps: Vec<&Row> = rows
        .iter()
        .filter(|r| r.group() == group && !std::ptr::eq(*r, base))
        .collect();
    featured(&caps, base).or(Some(base))
}

/// The verdict paragraph for `report`, about the row [`discussed`] names.
pub fn verdict(report: &Report) -> String {
    let rows = &report.rows;
    let Some(first) = rows.first() else {
        return "Nothing was run.".into();
    };
    let device = device_phrase(&report.device.name);
    let Some(base) = reference(rows, first) else {
        return String::new();
    };
    let group = first.group();
    let caps: Vec<&Row> = rows
        .iter()
        .filter(|r| r.group() == group && !std::ptr::eq(*r, base))
        .collect();
    let f = discussed(report).filter(|f| !std::ptr::eq(*f, base));
    let Some(f) = f else {
        return format!(
            "With zfs_arc_max at {}, the ARC averages {} and peaks at {}; the hit ratio is {} and {} demand misses/s reach the disk, {}.",
            cap_words(base),
            format_bytes(base.mean_size_bytes as u64),
            format_bytes(base.peak_size_bytes),
            percent(base.hit_ratio),
            rate(base.misses_per_sec),
            busy_words(base, device)
        );
    };
    let mut s = Vec::new();

    // What the cap buys.
    if f.peak_size_bytes < base.peak_size_bytes {
        s.push(format!(
            "Capping zfs_arc_max at {} lowers the ARC's peak from {} to {} (its mean from {} to {}).",
            cap_words(f),
            format_bytes(base.peak_size_bytes),
            format_bytes(f.peak_size_bytes),
            format_bytes(base.mean_size_bytes as u64),
            format_bytes(f.mean_size_bytes as u64),
        ));
    } else {
        s.push(format!(
            "A cap of {} changes little: without it the ARC peaked at {} anyway.",
            cap_words(f),
            format_bytes(base.peak_size_bytes)
        ));
    }
    if f.above_cap_fraction > 0.0 {
        s.push(format!(
            "Yet it stays more than 1 % above its cap {} of the time, at up to {} ({} over): memory it holds and cannot evict (the scenario's [pinned] and [[held]]: the dnodes, dbufs, bonus buffers and dnode blocks of the inodes the kernel keeps) is more than the cap leaves room for, and what it can evict is evicted instead.",
            percent(f.above_cap_fraction),
            format_bytes(f.peak_size_bytes),
            percent(f.peak_size_bytes as f64 / f.c_max_bytes.max(1) as f64 - 1.0),
        ));
    }
    if f.giveback_events > 0 || base.giveback_events > 0 {
        let trend = if f.pressure_deficit_byte_seconds < base.pressure_deficit_byte_seconds * 0.95 {
            "falls"
        } else if f.pressure_deficit_byte_seconds > base.pressure_deficit_byte_seconds * 1.05 {
            "rises"
        } else {
            "stays"
        };
        let short = if f.pressure_deficit_byte_seconds <= 0.0
            && base.pressure_deficit_byte_seconds <= 0.0
        {
            "and the host is never short of memory either way".to_string()
        } else {
            format!(
                "and the memory the host is short of {trend} {} {} (from {})",
                if trend == "stays" { "at" } else { "to" },
                gib_seconds(f.pressure_deficit_byte_seconds),
                gib_seconds(base.pressure_deficit_byte_seconds),
            )
        };
        s.push(format!(
            "When the other processes' memory demand bursts, it gives back up to {} within {} (uncapped: {} in {}), {short}.",
            format_bytes(f.giveback_bytes),
            seconds(f.giveback_seconds),
            format_bytes(base.giveback_bytes),
            seconds(base.giveback_seconds),
        ));
    } else {
        s.push("No burst of memory demand made the ARC give memory back.".into());
    }

    // What it costs.
    let m = f.miss_multiplier.unwrap_or(f64::INFINITY);
    // "stays" only when the two print the same; otherwise say which way.
    let (hit, fell) = if percent(f.hit_ratio) == percent(base.hit_ratio) {
        (format!("stays at {}", percent(f.hit_ratio)), false)
    } else if f.hit_ratio < base.hit_ratio {
        let s = format!(
            "falls from {} to {}",
            percent(base.hit_ratio),
            percent(f.hit_ratio)
        );
        (s, true)
    } else {
        let s = format!(
            "rises from {} to {}",
            percent(base.hit_ratio),
            percent(f.hit_ratio)
        );
        (s, false)
    };
    if m < 1.1 {
        s.push(format!(
            "It costs almost nothing: the hit ratio {hit} and demand misses stay near {}/s, {}.",
            rate(f.misses_per_sec),
            busy_words(f, device)
        ));
    } else {
        let rise = if m.is_finite() {
            format!("rise {} to", multiplier(Some(m)))
        } else {
            "rise from none to".to_string()
        };
        // Misses rising is the same news as the hit ratio falling: "and";
        // against a hit ratio that holds, it is a contrast: "but".
        let join = if fell { "and" } else { "but" };
        s.push(format!(
            "The price: the hit ratio {hit} {join} demand misses {rise} {}/s, {} (uncapped: {}).",
            rate(f.misses_per_sec),
            busy_words(f, device),
            busy_percent(base.disk_busy_ratio)
        ));
    }

    // The extremes: the smallest cap, and caps that cost nothing.
    let smallest = caps.iter().min_by_key(|r| r.c_max_bytes);
    if let Some(small) = smallest.filter(|r| !std::ptr::eq(**r, f)) {
        s.push(format!(
            "At {}, demand misses rise {} to {}/s, {}.",
            format_bytes(small.c_max_bytes),
            multiplier(small.miss_multiplier),
            rate(small.misses_per_sec),
            busy_words(small, device)
        ));
    }
    let free: Vec<&&Row> = caps
        .iter()
        .filter(|r| {
            r.c_max_bytes >= base.peak_size_bytes && r.miss_multiplier.is_some_and(|m| m < 1.1)
        })
        .collect();
    if let Some(lowest_free) = free.iter().min_by_key(|r| r.c_max_bytes) {
        s.push(format!(
            "A cap of {} or more costs nothing here, and buys nothing either: the ARC never grew past {}.",
            format_bytes(lowest_free.c_max_bytes),
            format_bytes(base.peak_size_bytes)
        ));
    }

    // Other policies, versions or prefetch settings at the same cap.
    for r in rows
        .iter()
        .filter(|r| r.group() != group && r.cap == f.cap)
        .take(3)
    {
        // Two multipliers, each saying what it is relative to: this row
        // against the discussed row (same cap, the first group's setting),
        // and against its own group's reference (what the table's column holds).
        let across = if f.misses_per_sec > 0.0 {
            multiplier(Some(r.misses_per_sec / f.misses_per_sec))
        } else if r.misses_per_sec == 0.0 {
            multiplier(Some(1.0))
        } else {
            "more than none,".to_string()
        };
        let own = match reference(rows, r) {
            Some(b) if b.cap == "default" => "its own default cap",
            _ => "its own largest cap",
        };
        // Prefetch on against off: fewer demand misses, but its own reads
        // load the disk too; say both when either row has them.
        let disk = if prefetch_reads_show(r) || prefetch_reads_show(f) {
            format!(
                " ({} disk reads/s against {}/s)",
                rate(r.disk_reads_per_sec),
                rate(f.disk_reads_per_sec)
            )
        } else {
            String::new()
        };
        s.push(format!(
            "With {} at the same cap: hit ratio {}, {} demand misses/s{disk}, {} the misses with {} ({}/s) and {} those of {own}.",
            r.group_label(),
            percent(r.hit_ratio),
            rate(r.misses_per_sec),
            across,
            f.group_label(),
            rate(f.misses_per_sec),
            multiplier(r.miss_multiplier)
        ));
    }
    if m >= 2.0 {
        s.push("It is a trade, not a free fix.".into());
    }
    s.join(" ")
}

#[cfg(test)]
mod tests {
    use super::super::report::{example as fixture, fill_multipliers};
    use super::*;

    #[test]
    fn tells_the_blogs_story() {
        let r = fixture();
        let v = &r.verdict;
        // 8G is the smallest cap keeping the SSD under 10 % busy.
        assert!(
            v.starts_with(
                "Capping zfs_arc_max at 8.00 GiB lowers the ARC's peak from 15.00 GiB to 9.00 GiB"
            ),
            "{v}"
        );
        assert!(v.contains("misses rise 14× to 290/s"), "{v}");
        assert!(v.contains("keeps an SSD busy"), "{v}");
        assert!(v.contains("At 4.00 GiB, demand misses rise 95×"), "{v}");
        // The fixture has no prefetch reads: no sentence about them.
        assert!(!v.contains("prefetcher's reads"), "{v}");
        assert!(
            v.contains("A cap of 16.00 GiB or more costs nothing here"),
            "{v}"
        );
        assert!(v.contains("gives back up to"), "{v}");
        assert!(
            v.contains("the memory the host is short of falls to"),
            "{v}"
        );
        let mut calm = fixture();
        for row in &mut calm.rows {
            row.pressure_deficit_byte_seconds = 0.0;
        }
        let v = verdict(&calm);
        assert!(v.contains("never short of memory"), "{v}");
        assert!(v.ends_with("It is a trade, not a free fix."), "{v}");
    }

    /// A capped ARC above its cap says so, with the share of time and how
    /// far; the uncapped fixture says nothing of it.
    #[test]
    fn an_arc_above_its_cap_is_explained() {
        assert!(!fixture().verdict.contains("above its cap"));
        let mut r = fixture();
        let row = r.rows.iter_mut().find(|x| x.cap == "8G").unwrap();
        row.above_cap_fraction = 0.102;
        row.peak_size_bytes = 11 << 30;
        decide(&mut r, None).unwrap();
        let v = &r.verdict;
        assert!(
            v.contains("stays more than 1 % above its cap 10.20 % of the time, at up to 11.00 GiB (37.50 % over)"),
            "{v}"
        );
    }

    #[test]
    fn saturated_disk_is_said_and_largest_cap_described() {
        let mut r = fixture();
        r.device = "hdd".parse().unwrap();
        for row in &mut r.rows {
            let b = r.device.busy(row.disk_ios_per_sec, row.disk_bytes_per_sec);
            row.disk_busy_ratio = b.ratio;
            row.disk_demand_ratio = b.demand_ratio;
            row.disk_saturated = b.saturated;
        }
        decide(&mut r, None).unwrap();
        let v = &r.verdict;
        // No cap below 16G keeps a hard disk under 10 %: 16G (≥ the peak) is described.
        assert!(v.starts_with("A cap of 16.00 GiB changes little"), "{v}");
        assert!(v.contains("more than a hard disk can serve"), "{v}");
    }

    #[test]
    fn the_cap_asked_for_is_discussed() {
        let mut r = fixture();
        assert_eq!(r.verdict_cap.as_deref(), Some("8G"));
        // 4096M is the 4G row: matched by bytes, not by spelling.
        decide(&mut r, Some(&"4096M".parse().unwrap())).unwrap();
        assert_eq!(r.verdict_cap.as_deref(), Some("4G"));
        assert!(
            r.verdict
                .starts_with("Capping zfs_arc_max at 4.00 GiB lowers the ARC's peak"),
            "{}",
            r.verdict
        );
        // The fixture's hit ratio falls 20/s → 1900/s of 22,000/s: "falls", then "and".
        assert!(
            r.verdict
                .contains("the hit ratio falls from 99.91 % to 91.36 % and demand misses rise 95×"),
            "{}",
            r.verdict
        );
        decide(&mut r, Some(&"default".parse().unwrap())).unwrap();
        assert!(r.verdict.starts_with("With zfs_arc_max at the default"));
        let e = decide(&mut r, Some(&"6G".parse().unwrap())).unwrap_err();
        assert!(e.contains("default, 16G, 12G, 8G, 4G"), "{e}");
    }

    #[test]
    fn one_run_and_no_runs() {
        let mut r = fixture();
        r.rows.truncate(1);
        let v = verdict(&r);
        assert!(v.starts_with("With zfs_arc_max at the default"), "{v}");
        r.rows.clear();
        assert_eq!(verdict(&r), "Nothing was run.");
    }

    /// A prefetch-off copy of every row with twice the misses; prefetch off,
    /// every disk read is a demand miss.
    fn add_prefetch_off_rows(rows: &mut Vec<Row>) {
        let mut off = rows.clone();
        for row in &mut off {
            row.prefetch = false;
            row.misses_per_sec *= 2.0;
            row.disk_reads_per_sec = row.misses_per_sec;
        }
        rows.extend(off);
    }

    #[test]
    fn other_groups_get_a_sentence() {
        let mut r = fixture();
        add_prefetch_off_rows(&mut r.rows);
        fill_multipliers(&mut r.rows);
        let v = verdict(&r);
        assert!(
            v.contains("With zfs-arc 2.3.0, prefetch off at the same cap"),
            "{v}"
        );
        // Issue 13: each multiplier says what it is relative to. Prefetch off
        // doubles every row's misses (set above), so against prefetch on at
        // the same cap it is 2.0×, and against its own default the 8G row's
        // 14× (290/s over 20/s, the fixture's numbers) is unchanged.
        assert!(
            v.contains(
                "misses/s, 2.0× the misses with zfs-arc 2.3.0, prefetch on (290/s) and 14× those of its own default cap."
            ),
            "{v}"
        );
        assert!(!v.contains("its default)"), "{v}");
    }

    #[test]
    fn prefetch_reads_are_said_with_the_disk_time() {
        // The fixture's rows with prefetch reads added: 290 demand misses/s
        // at 8G and 100 prefetch reads/s more on every row. The verdict's
        // misses stay the demand misses; its disk time names the disk reads.
        let mut r = fixture();
        for row in &mut r.rows {
            row.disk_reads_per_sec = row.misses_per_sec + 100.0;
        }
        let v = verdict(&r);
        assert!(
            v.contains(
                "demand misses rise 14× to 290/s, which with the prefetcher's reads, 390 disk reads/s in all, keeps an SSD busy"
            ),
            "{v}"
        );
        // Prefetch off at the same cap: its own disk reads against ours.
        add_prefetch_off_rows(&mut r.rows);
        fill_multipliers(&mut r.rows);
        let v = verdict(&r);
        assert!(
            v.contains("prefetch off at the same cap: hit ratio 98.68 %, 580 demand misses/s (580 disk reads/s against 390/s), 2.0× the misses"),
            "{v}"
        );
    }
}
