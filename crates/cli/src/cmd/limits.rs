//! `arclab limits`: the ARC limits a host gets, with the formula and version
//! each came from, and whether a given `zfs_arc_max` / `zfs_arc_min` would be
//! accepted.

use super::UsageError;
use crate::output::{self, Table};
use anyhow::Result;
use arclab_arc::limits::{LimitsInput, Os, Verdict, limits_with};
use arclab_arc::units::format_bytes;
use arclab_zfs::tune::{Target, parse_target};

/// Show the ARC limits for a host: c_min, c_max, arc_sys_free and the dnode
/// limit, each with its formula and the releases it applies to.
///
/// Sizes take binary suffixes: `31.24GiB`, `8G` (= 8 GiB), `512M`.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:\n  \
    arclab limits --ram 31.24GiB\n  \
    arclab limits --ram 32G --zfs-version 2.2.7 --arc-max 8G --json\n  \
    arclab limits --ram 8G --os freebsd --arc-max 6144M")]
pub(crate) struct LimitsArgs {
    /// Physical memory of the host (what the kernel reports as total RAM).
    #[arg(long, value_parser = crate::args::size)]
    ram: u64,
    /// Operating system.
    #[arg(long, default_value = "linux")]
    os: Os,
    /// ZFS version: a behaviour set (0.7, 2.1, 2.2, 2.3, latest) or a full
    /// release (2.2.7, 2.3.4); `legacy` (pre-OpenZFS FreeBSD) is read but has
    /// no RAM formula here (see `tune check`).
    #[arg(long, default_value = "latest")]
    zfs_version: String,
    /// A zfs_arc_max to check (as set at module load).
    #[arg(long, value_parser = crate::args::size)]
    arc_max: Option<u64>,
    /// A zfs_arc_min to check.
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
    if args.ram < 64 << 20 {
        return Err(UsageError(format!(
            "--ram {} is below 64 MiB: no ZFS host is that small",
            format_bytes(args.ram)
        ))
        .into());
    }
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
        }
        let mut s = serde_json::to_string_pretty(&v)?;
        s.push('\n');
        return output::print(&s);
    }
    let mut t = Table::new(&["limit", "bytes", "size", "formula", "applies to"]);
    let row =
        |t: &mut Table, name: &str, bytes: Option<u64>, d: &arclab_arc::limits::Derivation| {
            t.push(vec![
                name.to_string(),
                bytes.map_or("-".into(), |b| b.to_string()),
                bytes.map_or("-".into(), format_bytes),
                d.formula.clone(),
                format!("{} ({})", d.applies_to, d.spec),
            ]);
        };
    row(&mut t, "c_min", Some(l.c_min_bytes), &l.c_min);
    row(&mut t, "c_max", Some(l.c_max_bytes), &l.c_max);
    row(&mut t, "arc_sys_free", Some(l.sys_free_bytes), &l.sys_free);
    row(
        &mut t,
        "arc_dnode_limit",
        l.dnode_limit_bytes,
        &l.dnode_limit,
    );
    if let Some(d) = &l.meta_limit {
        row(&mut t, "arc_meta_limit", l.meta_limit_bytes, d);
    }
    let mut s = format!(
        "{} with {} of RAM (allmem {}), ZFS behaviour set {} ({})\n\n",
        l.os,
        format_bytes(args.ram),
        format_bytes(l.allmem_bytes),
        version,
        version.releases()
    );
    s.push_str(&t.to_text());
    for (name, given, verdict) in [
        ("zfs_arc_max", args.arc_max, &l.arc_max),
        ("zfs_arc_min", args.arc_min, &l.arc_min),
    ] {
        if let (Some(v), Some(verdict)) = (given, verdict) {
            s.push_str(&match verdict {
                Verdict::Accepted => format!("\n{name}={v} ({}): accepted", format_bytes(v)),
                Verdict::Ignored { reason } => {
                    format!("\n{name}={v} ({}): IGNORED — {reason}", format_bytes(v))
                }
            });
        }
    }
    if args.arc_max.is_some() || args.arc_min.is_some() {
        s.push('\n');
    }
    for n in &notes {
        s.push_str(&format!("\nnote: {n}"));
    }
    if !notes.is_empty() {
        s.push('\n');
    }
    output::print(&s)
}
