//! The verdicts behind [`super`]: `zfs_arc_max` / `zfs_arc_min`
//! against the limits of [`arclab_arc::limits`](mod@arclab_arc::limits) (§3.3), the pre-OpenZFS
//! FreeBSD rules around `vm.kmem_size` (§13), and the plain-language effect of
//! the other tunables.

use arclab_arc::limits::{self, MIN_ARC_MAX, Os, Verdict};
use arclab_arc::units::{format_bytes, parse_bytes};

use super::{Finding, Severity, Target};
use crate::tune::catalog as tunecat;
use crate::tune::target::shrink_when;

const GIB: u64 = 1 << 30;
const MIB16: u64 = 16 << 20;

/// What the judges need to know about the host.
pub(crate) struct Ctx {
    pub(crate) os: Os,
    pub(crate) target: Target,
    pub(crate) ram: Option<u64>,
    pub(crate) kmem: Option<u64>,
}

fn pct(a: u64, b: u64) -> String {
    if b == 0 {
        "n/a".into()
    } else {
        format!("{:.1} %", a as f64 * 100.0 / b as f64)
    }
}

pub(crate) fn judge_arc(
    ctx: &Ctx,
    arc: &[(usize, &'static str, u64)],
    findings: &mut [Finding],
    notes: &mut Vec<String>,
) {
    let live = |name: &str| {
        arc.iter()
            .rfind(|(i, n, _)| *n == name && findings[*i].status == "accepted")
            .copied()
    };
    let (max, min) = (live("zfs_arc_max"), live("zfs_arc_min"));
    if ctx.target == Target::FreeBsdLegacy {
        return judge_legacy(ctx, max, min, findings, notes);
    }
    let Target::OpenZfs(v) = ctx.target else {
        return;
    };
    let Some(ram) = ctx.ram else {
        // Without RAM only the fixed floors and the ordering can be checked.
        if let Some((i, _, m)) = max {
            let fd = &mut findings[i];
            if m != 0 && m < MIN_ARC_MAX {
                (fd.status, fd.severity) = ("ignored", Severity::Error);
                fd.explanation = format!(
                    "{} is below 64 MiB (MIN_ARC_MAX): the kernel ignores it and keeps the default",
                    format_bytes(m)
                );
            } else if fd.severity == Severity::Ok {
                fd.explanation = format!(
                    "c_max = {} if below all memory and above c_min (pass --ram to check); default max(RAM·5/8, RAM − 1 GiB) on 2.3.0+ Linux and FreeBSD, RAM/2 on Linux ≤ 2.2",
                    format_bytes(m)
                );
            }
        }
        if let Some((i, _, m)) = min {
            let fd = &mut findings[i];
            if let Some((_, _, mx)) = max.filter(|&(_, _, mx)| mx != 0 && m > mx) {
                (fd.status, fd.severity) = ("ignored", Severity::Error);
                fd.explanation = format!(
                    "zfs_arc_min {} is above zfs_arc_max {}: the kernel ignores zfs_arc_min",
                    format_bytes(m),
                    format_bytes(mx)
                );
            } else if m != 0 && m < 32 << 20 {
                (fd.status, fd.severity) = ("ignored", Severity::Error);
                fd.explanation = format!("{} is below 32 MiB: ignored", format_bytes(m));
            } else if fd.severity == Severity::Ok {
                fd.explanation =
                    format!("c_min = {} (default max(RAM/32, 32 MiB))", format_bytes(m));
            }
        }
        return;
    };
    let dflt = limits::limits(ram, ctx.os, v, None, None);
    let l = limits::limits(ram, ctx.os, v, max.map(|m| m.2), min.map(|m| m.2));
    if let Some((i, _, m)) = max {
        let ok = format!(
            "c_max = {} = {} of RAM (default {}); c_min {}; dnode limit {}. Lowered at runtime, c drops at once but the ARC shrinks only {}",
            format_bytes(m),
            pct(m, l.allmem_bytes),
            format_bytes(dflt.c_max_bytes),
            format_bytes(l.c_min_bytes),
            l.dnode_limit_bytes.map_or("none".into(), format_bytes),
            shrink_when(v, ctx.os)
        );
        let (value, formula, stays) = (
            dflt.c_max_bytes,
            &dflt.c_max.formula,
            ("c_max", l.c_max_bytes),
        );
        judge_limit(
            &mut findings[i],
            m,
            (value, formula),
            l.arc_max.as_ref(),
            stays,
            ok,
        );
    }
    if let Some((i, _, m)) = min {
        let ok = format!(
            "c_min = {} = {} of RAM (default {}): memory pressure never shrinks the target below it",
            format_bytes(m),
            pct(m, l.allmem_bytes),
            format_bytes(dflt.c_min_bytes)
        );
        let (value, formula, stays) = (
            dflt.c_min_bytes,
            &dflt.c_min.formula,
            ("c_min", l.c_min_bytes),
        );
        judge_limit(
            &mut findings[i],
            m,
            (value, formula),
            l.arc_min.as_ref(),
            stays,
            ok,
        );
    }
}

/// One `zfs_arc_max` / `zfs_arc_min` line against the limits: its default
/// (value and formula), `ignored` (an error, a note for 0 = automatic) with
/// what the limit stays at, or `ok_explanation` when nothing else was found.
fn judge_limit(
    fd: &mut Finding,
    set: u64,
    (default, formula): (u64, &str),
    verdict: Option<&Verdict>,
    (name, stays): (&str, u64),
    ok_explanation: String,
) {
    fd.default = Some(format!("{} ({formula})", format_bytes(default)));
    match verdict {
        Some(Verdict::Ignored { reason }) => {
            fd.status = "ignored";
            fd.severity = if set == 0 {
                Severity::Note
            } else {
                Severity::Error
            };
            fd.explanation = format!("{reason}; {name} stays {}", format_bytes(stays));
        }
        _ if fd.severity == Severity::Ok => fd.explanation = ok_explanation,
        _ => {}
    }
}

fn judge_legacy(
    ctx: &Ctx,
    max: Option<(usize, &str, u64)>,
    min: Option<(usize, &str, u64)>,
    findings: &mut [Finding],
    notes: &mut Vec<String>,
) {
    let Some(kmem) = ctx.kmem else {
        notes.push("vm.kmem_size not set: it is autotuned at boot (FreeBSD sys/kern/kern_malloc.c: kmeminit()), so arc_max cannot be checked against it".into());
        return;
    };
    // v28-era arc_init (§13).
    let dflt_max = (kmem / 8 * 5).max(if kmem >= GIB {
        kmem - GIB
    } else {
        (kmem / 32).max(MIB16)
    });
    let mut c_max = dflt_max;
    if let Some((i, _, m)) = max {
        let fd = &mut findings[i];
        fd.default = Some(format!(
            "{} (max(5/8·kmem, kmem − 1 GiB) of vm.kmem_size {})",
            format_bytes(dflt_max),
            format_bytes(kmem)
        ));
        if m <= MIB16 || m >= kmem {
            (fd.status, fd.severity) = ("ignored", Severity::Error);
            fd.explanation = format!(
                "honoured only if > 16 MiB and < vm.kmem_size ({}): ignored, c_max stays {}",
                format_bytes(kmem),
                format_bytes(dflt_max)
            );
        } else {
            c_max = m;
            let head = kmem - m;
            let (sev, risk) = if head < kmem / 8 || head < 512 << 20 {
                (
                    Severity::Error,
                    "too close: a busy ARC overshooting its soft target plus the rest of the kernel can exhaust kmem_map (\"kmem_map too small\" panic)",
                )
            } else if head < kmem / 4 {
                (
                    Severity::Warning,
                    "tight: the ARC's target is soft and the rest of the kernel also allocates from kmem_map; keep arc_max ≤ 3/4 of kmem_size",
                )
            } else {
                (
                    Severity::Ok,
                    "enough headroom against the \"kmem_map too small\" panic",
                )
            };
            if fd.severity <= sev {
                fd.severity = sev;
                fd.explanation = format!(
                    "c_max = {} (< vm.kmem_size {}: honoured at boot); leaves {} ({}) of kmem_map for the rest of the kernel: {risk}. arc_meta_limit = c_max/4 = {}",
                    format_bytes(m),
                    format_bytes(kmem),
                    format_bytes(head),
                    pct(head, kmem),
                    format_bytes(m / 4)
                );
            }
            if let Some(r) = ctx.ram.filter(|&r| m >= r) {
                fd.severity = fd.severity.max(Severity::Warning);
                fd.explanation
                    .push_str(&format!("; it is not below RAM ({})", format_bytes(r)));
            }
        }
    }
    let dflt_min = (kmem / 32).max(MIB16);
    match min {
        Some((i, _, m)) => {
            let fd = &mut findings[i];
            fd.default = Some(format!(
                "{} (max(kmem/32, c_max/8))",
                format_bytes(dflt_min.max(c_max / 8))
            ));
            if m <= MIB16 || m > c_max {
                (fd.status, fd.severity) = ("ignored", Severity::Error);
                fd.explanation = format!(
                    "honoured only if > 16 MiB and ≤ c_max ({}): ignored",
                    format_bytes(c_max)
                );
            } else if fd.severity == Severity::Ok {
                fd.explanation = format!("c_min = {}", format_bytes(m));
            }
        }
        None => notes.push(format!(
            "c_min will be max(kmem/32, arc_meta_limit/2) = {} (c_max {}, arc_meta_limit {})",
            format_bytes(dflt_min.max(c_max / 8)),
            format_bytes(c_max),
            format_bytes(c_max / 4)
        )),
    }
    if let Some(fd) = findings.iter_mut().find(|f| f.name == "vm.kmem_size") {
        fd.explanation = format!(
            "kmem_map = {}: pre-OpenZFS FreeBSD sizes the ARC from it (default c_max {} = max(5/8·kmem, kmem − 1 GiB), c_min {}); vfs.zfs.arc_max must stay below it",
            format_bytes(kmem),
            format_bytes(dflt_max),
            format_bytes(dflt_min)
        );
    }
}

pub(crate) fn explain_other(ctx: &Ctx, fd: &mut Finding) {
    if !fd.explanation.is_empty() || fd.status != "accepted" {
        return;
    }
    let Some((t, _)) = fd.tunable.and_then(tunecat::lookup) else {
        return;
    };
    let legacy = ctx.target == Target::FreeBsdLegacy;
    let on = fd.value.trim() == "1";
    fd.explanation = match t.linux {
        "zfs_prefetch_disable" if legacy => {
            let dflt = match ctx.ram {
                Some(r) if r < 4 * GIB => format!(
                    "with {} of RAM the default would be 1 (disabled: < 4 GiB)",
                    format_bytes(r)
                ),
                Some(r) => format!(
                    "with {} of RAM the default would be 0 (enabled) on amd64",
                    format_bytes(r)
                ),
                None => {
                    "the default is 1 (disabled) on i386 or with less than 4 GiB of RAM, else 0"
                        .into()
                }
            };
            fd.default = Some("0, or 1 on i386 / < 4 GiB RAM".into());
            format!(
                "{} file-level prefetch (zfetch: read-ahead of sequential file reads); {dflt}; setting it explicitly overrides that",
                if on { "disables" } else { "enables" }
            )
        }
        "zfs_prefetch_disable" => format!(
            "{} predictive prefetch{}",
            if on { "disables" } else { "keeps (default)" },
            if on {
                ", including the prescient L1 step; send/scrub prescient prefetch stays; sequential reads lose read-ahead"
            } else {
                ""
            }
        ),
        "zfs_txg_timeout" if legacy => {
            fd.default =
                Some("30 s (ZFS v13/v15, FreeBSD 7.x–8.2) or 5 s (v28, FreeBSD 8.3+/9.x)".into());
            format!(
                "a transaction group is written at least every {} s",
                fd.value
            )
        }
        "zfs_txg_timeout" => format!(
            "a transaction group is written at least every {} s",
            fd.value
        ),
        "zfs_write_limit_override" => {
            let n = parse_bytes(&fd.value).unwrap_or(0);
            if n == 0 {
                "0: automatic per-txg write limit (throughput-based, from 32 MiB up to RAM/8)"
                    .into()
            } else {
                format!(
                    "fixed per-txg write limit of {} instead of the automatic one (throughput-based, 32 MiB … RAM/8); writers are delayed near it",
                    format_bytes(n)
                )
            }
        }
        _ => format!(
            "{} = {} (default {}): {}",
            t.linux, fd.value, t.default, t.effect
        ),
    };
}
