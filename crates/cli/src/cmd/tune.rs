//! `arclab tune check` and `arclab tune cap`.

use crate::output;
use anyhow::{Result, bail};
use arclab_arc::limits::{Os, Verdict};
use arclab_arc::units::format_bytes;
use arclab_zfs::arcstats::ArcSnapshot;
use arclab_zfs::host;
use arclab_zfs::tune::apply::{self, CapPlan};
use arclab_zfs::tune::check::{self, CheckOptions, CheckReport, Severity};
use arclab_zfs::tune::{Target, files, target};
use serde_json::json;
use std::path::{Path, PathBuf};

/// Check tunables files, or plan (and apply) a cap on zfs_arc_max.
#[derive(clap::Subcommand, Debug)]
pub(crate) enum TuneCommand {
    /// Check modprobe.d, loader.conf, sysctl.conf files or a
    /// /sys/module/zfs/parameters directory: is every ZFS tunable valid, used,
    /// and what does it change next to its default for this RAM and release?
    #[command(after_help = "Examples:\n  \
        arclab tune check --ram 32G /etc/modprobe.d/zfs.conf\n  \
        arclab tune check /sys/module/zfs/parameters\n  \
        arclab tune check --os freebsd --zfs-version legacy /boot/loader.conf /etc/sysctl.conf\n\n\
        Exit code 1 when the kernel would ignore or reject a setting (with --strict also on warnings).")]
    Check(CheckArgs),
    /// Print the persistent and runtime settings that cap the ARC at SIZE, and
    /// when the running ARC will shrink; with --apply, write them.
    #[command(after_help = "Examples:\n  \
        arclab tune cap 8G                       (dry run: prints what it would write)\n  \
        sudo arclab tune cap 8G --apply          (writes /etc/modprobe.d/zfs.conf and /sys/module/zfs/parameters/zfs_arc_max)\n  \
        arclab tune cap 6G --os freebsd --ram 16G\n\n\
        --apply writes only those two files under --root, the persistent one atomically after a backup\n\
        (FILE.arclab-backup); it refuses when not root and the files are not writable, and never runs a shell.")]
    Cap(CapArgs),
}

/// `tune check` arguments.
#[derive(clap::Args, Debug)]
pub(crate) struct CheckArgs {
    /// RAM. Binary units, like ZFS: 32G, 32GB and 32GiB all mean 32 GiB = 34359738368 bytes; a plain number is bytes.
    #[arg(long, value_name = "BYTES", value_parser = crate::args::ram)]
    ram: Option<u64>,
    /// linux or freebsd (default: from the file kinds).
    #[arg(long)]
    os: Option<Os>,
    /// ZFS release (2.2.7, 2.3, 0.8, …) or `legacy` for pre-OpenZFS FreeBSD.
    #[arg(long = "zfs-version", value_name = "V", value_parser = parse_target)]
    zfs_version: Option<Target>,
    /// Fail (exit 1) on warnings too, e.g. unknown tunables.
    #[arg(long)]
    strict: bool,
    /// Print JSON.
    #[arg(long)]
    json: bool,
    /// Files or a /sys/module/zfs/parameters directory.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
}

/// `tune cap` arguments.
#[derive(clap::Args, Debug)]
pub(crate) struct CapArgs {
    /// The cap. Binary units, like ZFS: 8G, 8GB and 8GiB all mean 8 GiB = 8589934592 bytes; a plain number is bytes.
    #[arg(value_name = "SIZE", value_parser = crate::args::size)]
    size: u64,
    /// RAM (default: memory_all_bytes from ROOT/proc, or MemTotal of ROOT/proc/meminfo).
    /// Binary units, like ZFS: 32G, 32GB and 32GiB all mean 32 GiB = 34359738368 bytes; a plain number is bytes.
    #[arg(long, value_name = "BYTES", value_parser = crate::args::ram)]
    ram: Option<u64>,
    /// linux or freebsd [default: linux].
    #[arg(long)]
    os: Option<Os>,
    /// ZFS release (default: ROOT/sys/module/zfs/version, else inferred from arcstats).
    #[arg(long = "zfs-version", value_name = "V", value_parser = parse_target)]
    zfs_version: Option<Target>,
    /// Root directory the files live under.
    #[arg(long, value_name = "DIR", default_value = "/")]
    root: PathBuf,
    /// Write the files (default: dry run).
    #[arg(long)]
    apply: bool,
}

fn parse_target(s: &str) -> Result<Target, String> {
    target::parse_target(s).map(|(t, _)| t)
}

pub(crate) fn run(cmd: TuneCommand) -> Result<()> {
    match cmd {
        TuneCommand::Check(a) => check(a),
        TuneCommand::Cap(a) => cap(a),
    }
}

fn check(a: CheckArgs) -> Result<()> {
    let mut files = Vec::new();
    for f in &a.files {
        files.push(files::read_path(f)?);
    }
    let opts = CheckOptions {
        ram_bytes: a.ram,
        os: a.os,
        target: a.zfs_version,
    };
    let r = check::check(&files, &opts);
    let text = if a.json {
        json_report(&r)
    } else {
        human_report(&r)
    };
    output::print(&text)?;
    let (errors, warnings) = (r.count(Severity::Error), r.count(Severity::Warning));
    if errors > 0 || (a.strict && warnings > 0) {
        let worst = if errors > 0 {
            Severity::Error
        } else {
            Severity::Warning
        };
        let list: Vec<String> = r
            .findings
            .iter()
            .filter(|f| f.severity == worst)
            .map(|f| {
                format!(
                    "{}: line {}: {} = {}: {}",
                    f.file, f.line, f.name, f.value, f.explanation
                )
            })
            .collect();
        bail!(
            "{errors} error(s), {warnings} warning(s){}:\n  {}",
            if errors > 0 { "" } else { " (--strict)" },
            list.join("\n  ")
        );
    }
    Ok(())
}

fn human_report(r: &CheckReport) -> String {
    let mut o = format!(
        "Checking as {}{}\n",
        r.target_label(),
        r.ram_bytes
            .map_or(String::new(), |b| format!(", RAM {}", format_bytes(b)))
    );
    for a in &r.assumptions {
        o.push_str(&format!("  · {a}\n"));
    }
    o.push('\n');
    for f in &r.findings {
        o.push_str(&format!(
            "  {}:{}  {} = {}  [{}{}]\n",
            f.file,
            f.line,
            f.name,
            f.value,
            f.status,
            if f.severity >= Severity::Warning {
                format!(", {}", f.severity.label())
            } else {
                String::new()
            }
        ));
        if !f.explanation.is_empty() {
            o.push_str(&format!("      {}\n", f.explanation));
        }
        if let Some(d) = &f.default {
            o.push_str(&format!("      default: {d}\n"));
        }
    }
    o.push_str(&format!(
        "\n{} setting(s): {} ok, {} note(s), {} warning(s), {} error(s)\n",
        r.findings.len(),
        r.count(Severity::Ok),
        r.count(Severity::Note),
        r.count(Severity::Warning),
        r.count(Severity::Error)
    ));
    o
}

fn json_report(r: &CheckReport) -> String {
    let v = json!({
        "os": r.os.to_string(),
        "target": r.target_label(),
        "ram_bytes": r.ram_bytes,
        "assumptions": r.assumptions,
        "errors": r.count(Severity::Error),
        "warnings": r.count(Severity::Warning),
        "findings": r.findings.iter().map(|f| json!({
            "file": f.file, "line": f.line, "name": f.name, "value": f.value,
            "tunable": f.tunable, "status": f.status, "severity": f.severity.label(),
            "default": f.default, "explanation": f.explanation,
        })).collect::<Vec<_>>(),
    });
    serde_json::to_string_pretty(&v).unwrap_or_default() + "\n"
}

fn cap(a: CapArgs) -> Result<()> {
    let mut notes = Vec::new();
    let (procfs, sysfs) = (a.root.join("proc"), a.root.join("sys"));
    let snap = host::read_procfs(&procfs).ok().map(|k| k.arc);
    let target = match a.zfs_version {
        Some(t) => t,
        None => {
            let vfile = sysfs.join("module/zfs/version");
            let params = host::read_sysfs(&sysfs).ok();
            let shown = vfile.display().to_string();
            let version = params
                .as_ref()
                .and_then(|p| p.version.as_deref())
                .map(|v| (shown.as_str(), v));
            let (t, how) = target::detect(version, snap.as_ref());
            notes.push(how);
            t
        }
    };
    let os = match (a.os, target) {
        (_, Target::FreeBsdLegacy) => Os::FreeBSD,
        (Some(os), _) => os,
        (None, _) => snap.as_ref().map_or(Os::Linux, |s| arclab_zfs::infer(s).os),
    };
    let ram = match a.ram {
        Some(r) => Some((r, "--ram".to_string())),
        None => snap
            .as_ref()
            .and_then(|s| s.get_u64("memory_all_bytes"))
            .map(|r| {
                let p = procfs.join("spl/kstat/zfs/arcstats");
                (r, format!("memory_all_bytes of {}", p.display()))
            })
            .or_else(|| {
                host::procfs_meminfo(&procfs).ok().flatten().map(|m| {
                    (
                        m.total_bytes,
                        format!("MemTotal of {}", procfs.join("meminfo").display()),
                    )
                })
            }),
    };
    match &ram {
        Some((r, from)) => notes.push(format!(
            "RAM {} ({r} bytes) from {from}{}",
            format_bytes(*r),
            if a.ram.is_none() { " (this machine; give --ram for another host)" } else { "" }
        )),
        None => notes.push("RAM unknown (no --ram, no arcstats, no /proc/meminfo): the value is not checked against RAM and c_min".into()),
    }
    let ram = ram.map(|(r, _)| r);
    let draft = apply::plan_cap(a.size, os, target, ram);
    let plan = apply::plan_cap_with(
        a.size,
        os,
        target,
        ram,
        apply::cap_in_force(&draft, &a.root),
    );
    print_plan(&plan, &a.root, snap.as_ref(), &notes)?;
    if let Some(Verdict::Ignored { reason }) = &plan.verdict {
        bail!("the kernel would ignore this cap: {reason}");
    }
    if !a.apply {
        return output::print("\nDry run: nothing written (add --apply to write these files).\n");
    }
    let done = apply::apply_cap(&plan, &a.root, &apply::Host)?;
    if done.unchanged {
        return output::print(&format!(
            "\nNothing to do: {} and the runtime parameter already cap the ARC at {} ({} bytes); nothing written.\n",
            done.persistent.display(),
            format_bytes(plan.bytes),
            plan.bytes
        ));
    }
    // In the order written: the runtime parameter first.
    let mut o = "\n".to_string();
    if let Some(r) = &done.runtime {
        o.push_str(&format!("Wrote {} to {}\n", a.size, r.display()));
    }
    if !done.notes.iter().any(|n| n.contains("not rewritten")) {
        o.push_str(&format!("Wrote {}\n", done.persistent.display()));
    }
    if let Some(b) = &done.backup {
        o.push_str(&format!("Backup of the previous file: {}\n", b.display()));
    }
    for n in &done.notes {
        o.push_str(&format!("Note: {n}\n"));
    }
    output::print(&o)
}

fn print_plan(
    p: &CapPlan,
    root: &Path,
    snap: Option<&ArcSnapshot>,
    notes: &[String],
) -> Result<()> {
    let shown = |rel: &Path| root.join(rel).display().to_string();
    let mut o = format!(
        "Cap the ARC at {} ({} bytes)\n",
        format_bytes(p.bytes),
        p.bytes
    );
    for n in notes {
        o.push_str(&format!("  · {n}\n"));
    }
    if let Some(Verdict::Ignored { reason }) = &p.verdict {
        o.push_str(&format!(
            "\n  ! the kernel would IGNORE this value: {reason}\n"
        ));
    }
    o.push_str(&format!(
        "\nPersistent ({}):\n  {}\n",
        shown(&p.persistent_path),
        p.persistent_line
    ));
    match (&p.runtime_path, &p.runtime_command) {
        (Some(rt), _) => o.push_str(&format!(
            "Runtime (takes effect now):\n  write {} to {}\n",
            p.bytes,
            shown(rt)
        )),
        (None, Some(cmd)) => o.push_str(&format!("Runtime (takes effect now):\n  {cmd}\n")),
        (None, None) => o.push_str("Runtime: not possible on this release (boot-time tunable)\n"),
    }
    o.push_str(&format!("When the running ARC shrinks: {}\n", p.shrink));
    if let Some(s) = snap
        && let (Some(size), Some(c)) = (s.get_u64("size"), s.get_u64("c"))
    {
        o.push_str(&format!(
            "Now: size {}, c {}{}\n",
            format_bytes(size),
            format_bytes(c),
            if size > p.bytes {
                format!(" — the ARC must give back {}", format_bytes(size - p.bytes))
            } else {
                " — already below the cap".into()
            }
        ));
    }
    for n in &p.notes {
        o.push_str(&format!("  · {n}\n"));
    }
    output::print(&o)
}
