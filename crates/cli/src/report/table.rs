//! The table exporters: aligned text and Markdown in human units, CSV and
//! JSON in raw numbers (bytes, ratios in 0..=1, per-second rates).

use super::{Report, Row};
use crate::output::Table;
use arclab_arc::units::format_bytes;
pub(crate) use arclab_sim::whatif::words::{
    busy_percent, gib_seconds, multiplier, percent, rate, seconds,
};

/// Whether the rows differ in policy, version or prefetch (then the human
/// table shows those columns; otherwise the header says them once).
struct Varying {
    policy: bool,
    version: bool,
    prefetch: bool,
}

fn varying(rows: &[Row]) -> Varying {
    let differs = |f: &dyn Fn(&Row) -> String| {
        rows.first()
            .is_some_and(|first| rows.iter().any(|r| f(r) != f(first)))
    };
    Varying {
        policy: differs(&|r| r.policy.clone()),
        version: differs(&|r| r.zfs_version.clone()),
        prefetch: differs(&|r| r.prefetch.to_string()),
    }
}

/// Whether each policy / version / prefetch group has a `default` row.
fn every_group_has_default(rows: &[Row]) -> bool {
    rows.iter().all(|r| {
        rows.iter()
            .any(|d| d.group() == r.group() && d.cap == "default")
    })
}

/// Disk busy time: `3.1 %`, or what the misses would need when it is more
/// than the pool has: `137 % (saturated)`.
pub(crate) fn busy(row: &Row) -> String {
    if row.disk_saturated {
        format!("{} (saturated)", busy_percent(row.disk_demand_ratio))
    } else {
        busy_percent(row.disk_busy_ratio)
    }
}

/// `default (30.24 GiB)` or `8G`.
pub(crate) fn cap_label(row: &Row) -> String {
    if row.cap == "default" {
        format!("default ({})", format_bytes(row.c_max_bytes))
    } else {
        row.cap.clone()
    }
}

/// Whether `row` is the one the verdict discusses (its cap, in the first
/// group: other policies, versions or prefetch settings at that cap are not).
pub(crate) fn is_verdict_row(report: &Report, row: &Row) -> bool {
    report.verdict_cap.as_ref() == Some(&row.cap)
        && report.rows.first().map(Row::group) == Some(row.group())
}

/// What the `*` before a cap means.
pub(crate) const MARK_NOTE: &str = "*: the row the verdict discusses";

/// What the read columns count, as the text and Markdown tables say it.
pub(crate) const READS_NOTE: &str = "dmiss/s: demand misses, demand reads that went to the disk (arcstat's dmis; × compares these);\ndisk rd/s: every read sent to the pool, demand misses + prefetch reads that missed the ARC; disk busy prices these";

/// The human table: one row per run; the verdict's row has `* ` before its cap.
pub(crate) fn human(report: &Report) -> Table {
    let v = varying(&report.rows);
    let mut headers = Vec::new();
    if v.policy {
        headers.push("policy");
    }
    if v.version {
        headers.push("zfs");
    }
    if v.prefetch {
        headers.push("prefetch");
    }
    headers.extend([
        "cap",
        "mean size",
        "peak size",
        "hit ratio",
        "dmiss/s",
        if every_group_has_default(&report.rows) {
            "× default"
        } else {
            "× largest cap"
        },
        "disk rd/s",
        "disk busy",
        "gave back",
        "within",
        "deficit",
    ]);
    let cap_col = headers.iter().position(|h| *h == "cap").unwrap_or(0);
    // Right-aligned as a whole, so `* 12G` lines up with `16G`.
    let mut t = Table::new(&headers).align(cap_col, arclab_report::Align::Right);
    for r in &report.rows {
        let mut cells = Vec::new();
        if v.policy {
            cells.push(r.policy.clone());
        }
        let zfs = r.policy == "zfs-arc";
        if v.version {
            cells.push(if zfs {
                r.zfs_version.clone()
            } else {
                "–".into()
            });
        }
        if v.prefetch {
            cells.push(match (zfs, r.prefetch) {
                (false, _) => "–".to_string(),
                (true, true) => "on".to_string(),
                (true, false) => "off".to_string(),
            });
        }
        let cap = if is_verdict_row(report, r) {
            format!("* {}", cap_label(r))
        } else {
            cap_label(r)
        };
        cells.extend([
            cap,
            format_bytes(r.mean_size_bytes.max(0.0) as u64),
            format_bytes(r.peak_size_bytes),
            percent(r.hit_ratio),
            rate(r.misses_per_sec),
            multiplier(r.miss_multiplier),
            rate(r.disk_reads_per_sec),
            busy(r),
            format_bytes(r.giveback_bytes),
            seconds(r.giveback_seconds),
            gib_seconds(r.pressure_deficit_byte_seconds),
        ]);
        t.push(cells);
    }
    t
}

/// The header lines of the text output.
pub(crate) fn header_lines(report: &Report) -> Vec<String> {
    let v = varying(&report.rows);
    let mut lines = vec![format!(
        "workload {} — {}",
        report.workload, report.workload_description
    )];
    let mut host = format!(
        "scenario {}: {} of RAM, {}, {:.0} s simulated, seed {}",
        report.scenario,
        format_bytes(report.ram_bytes),
        report.os,
        report.duration_s,
        report.seed
    );
    if let Some(first) = report.rows.first() {
        if !v.policy {
            host.push_str(&format!(", policy {}", first.policy));
        }
        if !v.version && first.policy == "zfs-arc" {
            host.push_str(&format!(", OpenZFS {}", first.zfs_version));
        }
        if !v.prefetch && first.policy == "zfs-arc" {
            host.push_str(if first.prefetch {
                ", prefetch on"
            } else {
                ", prefetch off"
            });
        }
    }
    lines.push(host);
    lines.push(format!(
        "disk model {}: busy = {}; {}",
        report.device.describe(),
        report.device.formula(),
        report.device.io_rule()
    ));
    if let Some(s) = &report.sampling {
        lines.push(s.clone());
    }
    lines
}

/// What the `×` column is relative to, when the rows fall in several
/// policy / version / prefetch groups (each is against its own group).
pub(crate) fn multiplier_note(report: &Report) -> String {
    let v = varying(&report.rows);
    if !(v.policy || v.version || v.prefetch) {
        return String::new();
    }
    let (head, base) = if every_group_has_default(&report.rows) {
        ("default", "default cap")
    } else {
        ("largest cap", "largest cap")
    };
    let mut same = Vec::new();
    if v.policy {
        same.push("policy");
    }
    if v.version {
        same.push("zfs version");
    }
    if v.prefetch {
        same.push("prefetch setting");
    }
    format!(
        ";\n× {head}: dmiss/s against the {base} with the same {}, not across them",
        same.join(" and ")
    )
}

/// Aligned text: header, table, a blank line, the verdict.
pub(crate) fn to_text(report: &Report) -> String {
    let mut s = header_lines(report).join("\n");
    s.push_str("\n\n");
    s.push_str(&human(report).to_text());
    s.push('\n');
    s.push_str(MARK_NOTE);
    s.push_str(&multiplier_note(report));
    s.push_str(";\n");
    s.push_str(READS_NOTE);
    s.push_str(";\ngave back: the most the ARC returned in one burst of memory demand, and how long that took;\ndeficit: memory the host wanted but could not have yet, integrated over time.\n\n");
    s.push_str(&wrap(&report.verdict, 78));
    s.push('\n');
    if let Some(sc) = &report.self_check {
        s.push('\n');
        s.push_str(&wrap(&sc.sentence(), 78));
        s.push('\n');
    }
    s
}

/// A Markdown table followed by the verdict paragraph.
pub(crate) fn to_markdown(report: &Report) -> String {
    let mut s = human(report).to_markdown();
    s.push('\n');
    s.push_str(MARK_NOTE);
    s.push_str(&multiplier_note(report));
    s.push_str(";\n");
    s.push_str(READS_NOTE);
    s.push_str(".\n\n");
    s.push_str(&report.verdict);
    s.push('\n');
    if let Some(sc) = &report.self_check {
        s.push('\n');
        s.push_str(&sc.sentence());
        s.push('\n');
    }
    s
}

/// The CSV columns: the JSON row keys, raw numbers.
pub(crate) fn machine(report: &Report) -> Table {
    let mut t = Table::new(&[
        "cap",
        "policy",
        "prefetch",
        "zfs_version",
        "c_max_bytes",
        "n_req",
        "n_miss",
        "hit_ratio",
        "misses_per_sec",
        "miss_bytes_per_sec",
        "miss_multiplier",
        "disk_reads_per_sec",
        "disk_bytes_per_sec",
        "disk_ios_per_sec",
        "mean_size_bytes",
        "median_size_bytes",
        "peak_size_bytes",
        "min_c_bytes",
        "above_cap_fraction",
        "disk_busy_ratio",
        "disk_demand_ratio",
        "disk_saturated",
        "pressure_deficit_byte_seconds",
        "giveback_events",
        "giveback_bytes",
        "giveback_seconds",
        "giveback_total_bytes",
        "sample_rate",
        "sample_seeds",
        "hit_ratio_min",
        "hit_ratio_max",
        "misses_per_sec_min",
        "misses_per_sec_max",
    ]);
    let opt = |v: Option<f64>| v.map(|x| format!("{x:.6}")).unwrap_or_default();
    for r in &report.rows {
        t.push(vec![
            r.cap.clone(),
            r.policy.clone(),
            r.prefetch.to_string(),
            r.zfs_version.clone(),
            r.c_max_bytes.to_string(),
            r.n_req.to_string(),
            r.n_miss.to_string(),
            format!("{:.6}", r.hit_ratio),
            format!("{:.3}", r.misses_per_sec),
            format!("{:.0}", r.miss_bytes_per_sec),
            opt(r.miss_multiplier),
            format!("{:.3}", r.disk_reads_per_sec),
            format!("{:.0}", r.disk_bytes_per_sec),
            format!("{:.3}", r.disk_ios_per_sec),
            format!("{:.0}", r.mean_size_bytes),
            r.median_size_bytes.to_string(),
            r.peak_size_bytes.to_string(),
            r.min_c_bytes.to_string(),
            format!("{:.6}", r.above_cap_fraction),
            format!("{:.6}", r.disk_busy_ratio),
            format!("{:.6}", r.disk_demand_ratio),
            r.disk_saturated.to_string(),
            format!("{:.0}", r.pressure_deficit_byte_seconds),
            r.giveback_events.to_string(),
            r.giveback_bytes.to_string(),
            format!("{:.3}", r.giveback_seconds),
            r.giveback_total_bytes.to_string(),
            opt(r.sample_rate),
            r.sample_seeds.to_string(),
            opt(r.hit_ratio_min),
            opt(r.hit_ratio_max),
            opt(r.misses_per_sec_min),
            opt(r.misses_per_sec_max),
        ]);
    }
    t
}

/// Pretty JSON with a trailing newline.
pub(crate) fn to_json(report: &Report) -> anyhow::Result<String> {
    let mut s = serde_json::to_string_pretty(report)?;
    s.push('\n');
    Ok(s)
}

/// Greedy word wrap at `width` columns.
pub(crate) fn wrap(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line = 0;
    for word in text.split_whitespace() {
        let n = word.chars().count();
        if line > 0 && line + 1 + n > width {
            out.push('\n');
            line = 0;
        } else if line > 0 {
            out.push(' ');
            line += 1;
        }
        out.push_str(word);
        line += n;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::fixture;
    use super::*;

    #[test]
    fn human_table_has_one_row_per_cap_default_first() {
        let r = fixture::report();
        let t = human(&r);
        assert_eq!(t.rows.len(), 5);
        assert!(t.rows[0][0].text().starts_with("default ("));
        assert_eq!(t.columns[0].name, "cap", "constant columns are left out");
        let text = to_text(&r);
        assert!(text.contains("workload homelab"));
        assert!(text.contains("ssd (100 µs + 500 MB/s)"));
        assert!(text.contains("14×") || text.contains("15×"), "{text}");
    }

    #[test]
    fn csv_has_every_json_key_and_raw_numbers() {
        let r = fixture::report();
        let csv = machine(&r).to_csv();
        let mut lines = csv.lines();
        let header: Vec<&str> = lines.next().unwrap().split(',').collect();
        let json: serde_json::Value = serde_json::from_str(&to_json(&r).unwrap()).unwrap();
        let row = json["rows"][0].as_object().unwrap();
        for key in &header {
            assert!(row.contains_key(*key), "json row lacks {key}");
        }
        assert_eq!(lines.count(), 5);
        assert!(csv.contains("\n8G,zfs-arc,true,2.3.0,8589934592,"));
    }

    #[test]
    fn json_has_the_documented_shape() {
        let v: serde_json::Value =
            serde_json::from_str(&to_json(&fixture::report()).unwrap()).unwrap();
        for k in [
            "workload",
            "ram_bytes",
            "zfs_version",
            "rows",
            "verdict",
            "device",
        ] {
            assert!(v.get(k).is_some(), "{k}");
        }
        assert_eq!(v["rows"][0]["cap"], "default");
        assert!(v.get("series").is_none());
    }

    #[test]
    fn formats() {
        assert_eq!(percent(0.98671), "98.67 %");
        assert_eq!(multiplier(Some(14.49)), "14×");
        assert_eq!(multiplier(Some(1.04)), "1.0×");
        assert_eq!(multiplier(None), "–");
        assert_eq!(seconds(0.25), "250 ms");
        assert_eq!(seconds(12.34), "12.3 s");
        assert_eq!(wrap("aa bb cc", 5), "aa bb\ncc");
        assert_eq!(rate(4.25), "4.2");
        assert_eq!(rate(290.4), "290");
        assert_eq!(rate(3140.0), "3.1 k");
    }
}
