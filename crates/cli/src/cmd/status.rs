//! `arclab status`: what the ARC does with your RAM, from live kernel
//! statistics (or saved copies of them).

use super::UsageError;
use crate::output;
use anyhow::Result;
use arclab_arc::units::format_bytes;
use arclab_zfs::arcstats;
use arclab_zfs::host;
use arclab_zfs::status::{self, Status};
use arclab_zfs::tune::catalog::name_on;
use std::path::{Path, PathBuf};

/// What the ARC does with your RAM: size against its target and limits, the
/// default limit for this RAM and release, what cannot be evicted, why size is
/// above its target, hit ratios and warnings.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:\n  \
    arclab status                      (reads /proc/spl/kstat/zfs/arcstats)\n  \
    arclab status --procfs /host/proc --json\n  \
    arclab status --arcstats saved-arcstats.txt --ram 31.24GiB\n  \
    arclab status --sysctl freebsd-sysctl.txt\n  \
    arclab status --metrics node_exporter-metrics.txt   (curl -s http://host:9100/metrics > FILE)")]
pub(crate) struct StatusArgs {
    /// procfs root: reads DIR/spl/kstat/zfs/{arcstats,zfetchstats,dbufstats} [default: /proc].
    #[arg(long, value_name = "DIR", conflicts_with_all = ["arcstats", "sysctl", "metrics"])]
    procfs: Option<PathBuf>,
    /// A saved Linux arcstats file.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["sysctl", "metrics"])]
    arcstats: Option<PathBuf>,
    /// A saved FreeBSD `sysctl kstat.zfs.misc` (or `…arcstats`) output.
    #[arg(long, value_name = "FILE", conflicts_with = "metrics")]
    sysctl: Option<PathBuf>,
    /// A saved Prometheus node_exporter metrics text (its `node_zfs_arc_*`
    /// samples, from a Linux host).
    #[arg(long, value_name = "FILE")]
    metrics: Option<PathBuf>,
    /// RAM (default: memory_all_bytes). Binary units, like ZFS: 32G, 32GB and 32GiB all mean 32 GiB = 34359738368 bytes; a plain number is bytes.
    #[arg(long, value_name = "BYTES", value_parser = crate::args::ram)]
    ram: Option<u64>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

pub(crate) fn run(args: StatusArgs) -> Result<()> {
    let k = match (
        &args.procfs,
        args.arcstats.as_ref().or(args.sysctl.as_ref()),
    ) {
        _ if args.metrics.is_some() => {
            host::read_metrics_file(args.metrics.as_deref().unwrap_or(Path::new("")))?
        }
        (_, Some(f)) => host::read_kstat_file(f)?,
        (Some(d), None) => host::read_procfs(d)?,
        (None, None) => host::read_procfs(Path::new("/proc"))?,
    };
    if args.sysctl.is_some() && k.arc.source != arcstats::Source::FreeBsdSysctl {
        return Err(UsageError(format!("{}: --sysctl expects FreeBSD sysctl output; this is a Linux kstat file (use --arcstats)", k.name)).into());
    }
    let s = status::explain(
        &k.arc,
        k.zfetch.as_ref(),
        k.dbuf.as_ref(),
        args.ram,
        &k.name,
    )?;
    if args.json {
        let text = serde_json::to_string_pretty(&s)?;
        return output::print(&(text + "\n"));
    }
    output::print(&human(&s, &k.name))
}

fn pct(a: u64, b: u64) -> String {
    if b == 0 {
        "n/a".into()
    } else {
        format!("{:.1} %", a as f64 * 100.0 / b as f64)
    }
}

fn ratio_pct(r: Option<f64>) -> String {
    r.map_or("n/a".into(), |r| format!("{:.2} %", r * 100.0))
}

fn human(s: &Status, name: &str) -> String {
    let mut o = format!("ARC status — {name}\nRelease: {}\n\n", s.version);
    let ram = s.ram.map(|r| r.0);
    let of_ram = |b: u64| ram.map_or(String::new(), |r| format!("{} of RAM", pct(b, r)));
    o.push_str("Memory\n");
    match s.ram {
        Some((r, src)) => o.push_str(&format!(
            "  {:<10} {:>12}  ({src})\n",
            "RAM",
            format_bytes(r)
        )),
        None => o.push_str(&format!(
            "  {:<10} {:>12}  (pass --ram)\n",
            "RAM", "unknown"
        )),
    }
    let join = |parts: Vec<String>| {
        parts
            .into_iter()
            .filter(|p| !p.is_empty())
            .collect::<Vec<_>>()
            .join("; ")
    };
    o.push_str(&format!(
        "  {:<10} {:>12}  {}\n",
        "size",
        format_bytes(s.size_bytes),
        join(vec![
            of_ram(s.size_bytes),
            format!("{} of c", pct(s.size_bytes, s.c_bytes))
        ])
    ));
    o.push_str(&format!(
        "  {:<10} {:>12}  current target\n",
        "c",
        format_bytes(s.c_bytes)
    ));
    o.push_str(
        format!(
            "  {:<10} {:>12}  {}\n",
            "c_min",
            format_bytes(s.c_min_bytes),
            join(vec![
                of_ram(s.c_min_bytes),
                s.default_c_min_bytes
                    .map_or(String::new(), |d| format!("default {}", format_bytes(d)))
            ])
        )
        .trim_end(),
    );
    o.push('\n');
    o.push_str(
        format!(
            "  {:<10} {:>12}  {}",
            "c_max",
            format_bytes(s.c_max_bytes),
            of_ram(s.c_max_bytes)
        )
        .trim_end(),
    );
    o.push('\n');
    let arc_max = name_on("zfs_arc_max", s.os);
    match (
        s.default_c_max_bytes,
        &s.default_c_max_formula,
        s.c_max_changed,
    ) {
        (Some(d), Some(f), Some(changed)) => o.push_str(&format!(
            "  {:<10} {:>12}  {f}\n  {}\n",
            "default",
            format_bytes(d),
            if changed {
                format!(
                    "→ c_max was changed from the default ({arc_max} set: {} instead of {})",
                    format_bytes(s.c_max_bytes),
                    format_bytes(d)
                )
            } else {
                format!("→ c_max is the default: {arc_max} is not set")
            }
        )),
        _ => o.push_str("  default c_max: unknown without RAM\n"),
    }
    if let Some(a) = s.available_bytes {
        o.push_str(&format!(
            "  {:<10} {:>12}  memory_available_bytes{}{}\n",
            "available",
            if a < -(1i64 << 50) {
                format!("{a} B (implausible)")
            } else if a < 0 {
                format!("-{}", format_bytes(a.unsigned_abs()))
            } else {
                format_bytes(a.unsigned_abs())
            },
            s.free_bytes
                .map_or(String::new(), |f| format!("; free {}", format_bytes(f))),
            s.sys_free_bytes.map_or(String::new(), |f| format!(
                "; arc_sys_free {}",
                format_bytes(f)
            ))
        ));
    }
    if let Some((d, l)) = s.dnode {
        o.push_str(&format!(
            "  {:<10} {:>12}  {} of arc_dnode_limit {}\n",
            "dnodes",
            format_bytes(d),
            pct(d, l),
            format_bytes(l)
        ));
    }
    if let Some((u, lim)) = s.meta {
        o.push_str(&format!(
            "  {:<10} {:>12}  arc_meta_used{}\n",
            "metadata",
            format_bytes(u),
            lim.map_or(String::new(), |l| format!(
                "; {} of arc_meta_limit {}",
                pct(u, l),
                format_bytes(l)
            ))
        ));
    }
    o.push_str("\nStates (ghosts are lists of evicted blocks: no RAM)\n");
    for (n, b) in &s.states {
        let share = if n.ends_with("ghost") {
            String::new()
        } else {
            pct(*b, s.size_bytes) + " of size"
        };
        o.push_str(format!("  {:<10} {:>12}  {share}", n, format_bytes(*b)).trim_end());
        o.push('\n');
    }
    o.push_str("\nWhat the size is made of\n");
    for (n, b) in &s.parts {
        o.push_str(&format!(
            "  {:<26} {:>12}  {}\n",
            n,
            format_bytes(*b),
            pct(*b, s.size_bytes)
        ));
    }
    if let Some(u) = s.unaccounted_bytes.filter(|&u| u != 0) {
        o.push_str(&format!(
            "  {:<26} {:>12}  (size minus the parts)\n",
            "unaccounted", u
        ));
    }
    o.push_str("\nEvictable and held memory\n");
    match (s.evictable_bytes, s.non_evictable_bytes) {
        (Some(e), Some(n)) => o.push_str(&format!(
            "  evictable      {:>12}  {}\n  non-evictable  {:>12}  {} (eviction cannot free it)\n",
            format_bytes(e),
            pct(e, s.size_bytes),
            format_bytes(n),
            pct(n, s.size_bytes)
        )),
        _ => o.push_str("  cannot be computed for this layout (no *_evictable_* fields)\n"),
    }
    for c in &s.contributors {
        o.push_str(&format!(
            "    {:<20} {:>12}  {}\n",
            c.name,
            format_bytes(c.bytes),
            c.why
        ));
    }
    o.push_str("\nWhy size > c\n");
    if s.why_over.is_empty() {
        o.push_str(&format!(
            "  size is not above c ({} below): nothing to explain\n",
            format_bytes(s.c_bytes - s.size_bytes.min(s.c_bytes))
        ));
    }
    for l in &s.why_over {
        o.push_str(&format!("  {l}\n"));
    }
    let h = &s.hits;
    o.push_str(&format!(
        "\nHit ratios since load\n  all        {:>8}  of {} accesses\n  demand     {:>8}  (data {}, metadata {}) of {}\n  prefetch   {:>8}  of {}\n",
        ratio_pct(h.total), output::si(h.accesses as f64), ratio_pct(h.demand), ratio_pct(h.demand_data),
        ratio_pct(h.demand_metadata), output::si(h.demand_accesses as f64), ratio_pct(h.prefetch), output::si(h.prefetch_accesses as f64)
    ));
    for e in &s.extra {
        o.push_str(&format!("  {e}\n"));
    }
    if !s.cannot_compute.is_empty() {
        o.push_str("\nCannot be computed from this file\n");
        for c in &s.cannot_compute {
            o.push_str(&format!("  - {c}\n"));
        }
    }
    if !s.warnings.is_empty() {
        o.push_str("\nWarnings\n");
        for w in &s.warnings {
            o.push_str(&format!("  ! {w}\n"));
        }
    }
    o
}
