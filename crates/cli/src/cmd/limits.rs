//! `arclab limits`: the ARC limits a host gets, with the formula and version
//! each came from, and whether a given `zfs_arc_max` / `zfs_arc_min` would be
//! accepted.

use super::UsageError;
use crate::output;
use anyhow::Result;
use arclab_arc::limits::{LimitsInput, Os, Verdict, limits_with};
use arclab_arc::units::format_bytes;
use arclab_zfs::source::limit_source;
use arclab_zfs::tune::{Target, parse_target};

/// Show the ARC limits for a host: c_min, c_max, arc_sys_free and the dnode
/// limit, each with its formula and the releases it applies to.
///
/// Sizes are binary, as ZFS reads them: `31.24GiB`, `8G` = `8GB` = 8 GiB, `512M`.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:\n  \
    arclab limits --ram 31.24GiB\n  \
    arclab limits --ram 32G --zfs-version 2.2.7 --arc-max 8G --json\n  \
    arclab limits --ram 8G --os freebsd --arc-max 6144M")]
pub(crate) struct LimitsArgs {
    /// Physical memory of the host (what the kernel reports as total RAM).
    /// Binary units, like ZFS: 32G, 32GB and 32GiB all mean 32 GiB = 34359738368 bytes; a plain number is bytes.
    #[arg(long, value_parser = crate::args::ram)]
    ram: u64,
    /// Operating system.
    #[arg(long, default_value = "linux")]
    os: Os,
    /// ZFS version: a behaviour set (0.7, 2.1, 2.2, 2.3, latest) or a full
    /// release (2.2.7, 2.3.4); `legacy` (pre-OpenZFS FreeBSD) is read but has
    /// no RAM formula here (see `tune check`).
    #[arg(long, default_value = "latest")]
    zfs_version: String,
    /// A zfs_arc_max to check (as set at module load). Binary units, like ZFS: 32G, 32GB and 32GiB all mean 32 GiB = 34359738368 bytes; a plain number is bytes.
    #[arg(long, value_parser = crate::args::size)]
    arc_max: Option<u64>,
    /// A zfs_arc_min to check. Binary units, like ZFS: 32G, 32GB and 32GiB all mean 32 GiB = 34359738368 bytes; a plain number is bytes.
    #[arg(long, value_parser = crate::args::size)]
    arc_min: Option<u64>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

pub(crate) fn run(args: LimitsArgs) -> Result<()> {
    let (target, note) =
        parse_target(&args.zfs_version).map_err(|e| UsageError(format!("--zfs-version: {e}")))?;
    let version = match target {
        Target::OpenZfs(v) => v,
        Target::FreeBsdLegacy => {
            return Err(UsageError(format!(
                "--zfs-version {}: pre-OpenZFS FreeBSD sizes the ARC from vm.kmem_size, not from RAM, so `limits` has no formula for it; \
                 check a loader.conf that sets vm.kmem_size with `arclab tune check --zfs-version legacy FILE`",
                args.zfs_version
            ))
            .into());
        }
    };
    // --ram is checked by its parser (`args::ram`, the one rule).
    let l = limits_with(LimitsInput {
        ram_bytes: args.ram,
        os: args.os,
        version,
        arc_max: args.arc_max,
        arc_min: args.arc_min,
        linux_before_5_7: false,
    });
    let mut notes = l.notes.clone();
    if let Some(n) = note {
        notes.insert(0, n);
    }
    if args.json {
        let mut v = serde_json::to_value(&l)?;
        if let Some(o) = v.as_object_mut() {
            o.insert("ram_bytes".into(), args.ram.into());
            o.insert("zfs_version".into(), version.to_string().into());
            o.insert("releases".into(), version.releases().into());
            o.insert("notes".into(), notes.into());
            for name in ["c_min", "c_max", "sys_free", "dnode_limit", "meta_limit"] {
                if let Some(d) = o.get_mut(name).and_then(|d| d.as_object_mut()) {
                    d.remove("spec");
                    let limit = match name {
                        "sys_free" => "arc_sys_free",
                        "dnode_limit" => "arc_dnode_limit",
                        "meta_limit" => "arc_meta_limit",
                        n => n,
                    };
                    d.insert("source".into(), limit_source(limit, l.os, l.version).into());
                }
            }
        }
        let mut s = serde_json::to_string_pretty(&v)?;
        s.push('\n');
        output::print(&s)?;
        let ignored: Vec<String> = [
            ("zfs_arc_max", args.arc_max, &l.arc_max),
            ("zfs_arc_min", args.arc_min, &l.arc_min),
        ]
        .into_iter()
        .filter_map(|(name, given, verdict)| match (given, verdict) {
            (Some(v), Some(Verdict::Ignored { reason })) => Some(format!("{name}={v}: {reason}")),
            _ => None,
        })
        .collect();
        return ignored_error(&ignored);
    }
    let width = columns();
    let mut s = String::new();
    push_wrapped(
        &mut s,
        &format!(
            "{} with {} of RAM (allmem {}), ZFS behaviour set {} ({})",
            l.os,
            format_bytes(args.ram),
            format_bytes(l.allmem_bytes),
            version,
            version.releases()
        ),
        "",
        width,
    );
    let mut rows = vec![
        ("c_min", Some(l.c_min_bytes), &l.c_min),
        ("c_max", Some(l.c_max_bytes), &l.c_max),
        ("arc_sys_free", Some(l.sys_free_bytes), &l.sys_free),
        ("arc_dnode_limit", l.dnode_limit_bytes, &l.dnode_limit),
    ];
    if let Some(d) = &l.meta_limit {
        rows.push(("arc_meta_limit", l.meta_limit_bytes, d));
    }
    for (name, bytes, d) in rows {
        s.push_str(&match bytes {
            Some(b) => format!("\n{name}: {} ({b} bytes)\n", format_bytes(b)),
            None => format!("\n{name}: none\n"),
        });
        push_wrapped(&mut s, &d.formula, "  formula: ", width);
        push_wrapped(&mut s, &d.applies_to, "  applies to: ", width);
        if let Some(src) = limit_source(name, l.os, l.version) {
            push_wrapped(&mut s, src, "  source: ", width);
        }
    }
    let mut ignored = Vec::new();
    for (name, given, verdict) in [
        ("zfs_arc_max", args.arc_max, &l.arc_max),
        ("zfs_arc_min", args.arc_min, &l.arc_min),
    ] {
        if let (Some(v), Some(verdict)) = (given, verdict) {
            let line = match verdict {
                Verdict::Accepted => format!("{name}={v} ({}): accepted", format_bytes(v)),
                Verdict::Ignored { reason } => {
                    ignored.push(format!("{name}={v}: {reason}"));
                    format!("{name}={v} ({}): IGNORED — {reason}", format_bytes(v))
                }
            };
            s.push('\n');
            push_wrapped(&mut s, &line, "", width);
        }
    }
    if !notes.is_empty() {
        s.push('\n');
    }
    for n in &notes {
        push_wrapped(&mut s, n, "note: ", width);
    }
    output::print(&s)?;
    ignored_error(&ignored)
}

/// Exit 1 (like `tune cap` and `tune check`) when the kernel would ignore a
/// given setting.
fn ignored_error(ignored: &[String]) -> Result<()> {
    if ignored.is_empty() {
        return Ok(());
    }
    anyhow::bail!(
        "the kernel would ignore {}:\n  {}",
        if ignored.len() == 1 {
            "this setting"
        } else {
            "these settings"
        },
        ignored.join("\n  ")
    )
}

/// Append `text` after `lead`, wrapped to `width` columns, continuation lines
/// indented under the text.
fn push_wrapped(s: &mut String, text: &str, lead: &str, width: usize) {
    let indent = lead.chars().count().min(width / 2);
    let body = crate::report::table::wrap(text, width.saturating_sub(indent).max(20));
    for (i, line) in body.lines().enumerate() {
        if i == 0 {
            s.push_str(lead);
        } else {
            s.push_str(&" ".repeat(indent));
        }
        s.push_str(line);
        s.push('\n');
    }
}

/// The width to wrap to: `COLUMNS` when set to a number, else 100.
fn columns() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|&c| c >= 20)
        .unwrap_or(100)
}
