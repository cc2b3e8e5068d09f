//! `arclab scenario --from-host`: the observed host as a `whatif` scenario.

use super::UsageError;
use crate::output;
use anyhow::Result;
use arclab_zfs::arcstats::Source;
use arclab_zfs::host::{self, scenario::HostInputs};
use std::path::{Path, PathBuf};

/// Write a scenario TOML of this host (RAM, OS, release, the caps in force,
/// pinned memory, the other processes' memory, prefetch) for
/// `arclab whatif --scenario FILE`. Each value carries a comment saying where
/// it came from.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:\n  \
    arclab scenario --from-host -o host.toml          (reads /proc and /sys)\n  \
    arclab scenario --from-host --procfs /host/proc --sysfs /host/sys -o host.toml\n  \
    arclab scenario --from-host --arcstats arcstats.txt --meminfo meminfo.txt\n  \
    arclab scenario --from-host --sysctl freebsd-sysctl.txt   (saved with: sysctl vfs.zfs kstat.zfs.misc.arcstats)\n  \
    arclab whatif --scenario host.toml")]
pub(crate) struct ScenarioArgs {
    /// Describe the host this runs on (or the one under --procfs / --arcstats / --sysctl).
    #[arg(long, required = true)]
    from_host: bool,
    /// procfs root: reads DIR/spl/kstat/zfs/arcstats and DIR/meminfo [default: /proc, with /sys].
    #[arg(long, value_name = "DIR", conflicts_with_all = ["arcstats", "sysctl"])]
    procfs: Option<PathBuf>,
    /// sysfs root: reads DIR/module/zfs/version and DIR/module/zfs/parameters/{zfs_arc_max,zfs_arc_min,zfs_prefetch_disable}.
    #[arg(long, value_name = "DIR")]
    sysfs: Option<PathBuf>,
    /// A saved Linux arcstats file.
    #[arg(long, value_name = "FILE", conflicts_with = "sysctl")]
    arcstats: Option<PathBuf>,
    /// A saved FreeBSD `sysctl vfs.zfs kstat.zfs.misc.arcstats` output (caps,
    /// prefetch and the version come from its `vfs.zfs.*` lines when present).
    #[arg(long, value_name = "FILE")]
    sysctl: Option<PathBuf>,
    /// A saved /proc/meminfo (for RAM and the other processes' memory).
    #[arg(long, value_name = "FILE", conflicts_with = "procfs")]
    meminfo: Option<PathBuf>,
    /// Write the TOML here (atomically) instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE")]
    output: Option<PathBuf>,
}

pub(crate) fn run(args: ScenarioArgs) -> Result<()> {
    let live = args.procfs.is_none() && args.arcstats.is_none() && args.sysctl.is_none();
    let procfs = match (&args.procfs, live) {
        (Some(d), _) => Some(d.clone()),
        (None, true) => Some(PathBuf::from("/proc")),
        (None, false) => None,
    };
    let sysfs = args
        .sysfs
        .clone()
        .or_else(|| live.then(|| PathBuf::from("/sys")));
    let kstats = match args.arcstats.as_ref().or(args.sysctl.as_ref()) {
        Some(f) => host::read_kstat_file(f)?,
        None => host::read_procfs(procfs.as_deref().unwrap_or(Path::new("/proc")))?,
    };
    if args.sysctl.is_some() && kstats.arc.source != Source::FreeBsdSysctl {
        return Err(UsageError(format!(
            "{}: --sysctl expects FreeBSD sysctl output; this is a Linux kstat file (use --arcstats)",
            kstats.name
        ))
        .into());
    }
    let meminfo = match (&args.meminfo, &procfs) {
        (Some(f), _) => Some(host::read_meminfo(f)?),
        (None, Some(d)) => host::procfs_meminfo(d)?,
        (None, None) => None,
    };
    let params = match (&args.sysctl, sysfs.as_deref()) {
        // FreeBSD keeps caps, prefetch and the version in `vfs.zfs.*` sysctls.
        (Some(f), None) => {
            let text = arclab_io::read_to_string_limited(f, 64 << 20)?;
            host::params::params_from_sysctl(&text, &f.display().to_string())?
        }
        (_, Some(root)) => Some(read_params(root)?),
        (None, None) => None,
    };
    let hs = host::scenario::scenario_from_host(&HostInputs {
        kstats: &kstats,
        meminfo,
        params: params.as_ref(),
    })?;
    let text = hs.to_toml();
    match &args.output {
        Some(path) => {
            arclab_io::write_atomic(path, text.as_bytes())
                .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
            eprintln!("wrote {}", path.display());
            Ok(())
        }
        None => output::print(&text),
    }
}

fn read_params(root: &Path) -> Result<host::ModuleParams> {
    if !root.join("module/zfs").is_dir() {
        anyhow::bail!(
            "{}: no module/zfs here (is the zfs module loaded? is this a sysfs root?)",
            root.display()
        );
    }
    Ok(host::read_sysfs(root)?)
}
