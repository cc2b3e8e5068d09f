//! Release → behaviour: every version boundary of the spec that the engine
//! uses, as plain flags (spec `zfs-arc.md` §0 milestones, §3–§6, §17).

use std::fmt::Write as _;

use crate::limits::{Release, ZfsVersion};

/// How `c` is split between MRU and MFU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Split {
    /// ≤ 2.1: one byte target `arc_p` for anon+MRU (§3.6).
    ArcP,
    /// 2.2+: three 2^32 fractions `meta`, `pd`, `pm` (§3.5).
    MetaPdPm,
}

/// When an allocation wakes the evict thread or waits for it (§6.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Overflow {
    /// 0.6.5 – 2.1.0: block at `size ≥ c + max(16 MiB, c>>shift)`.
    Binary,
    /// 2.1.1 – 2.2.8: wake at half of `max(16 MiB, c>>shift)`, block at the whole.
    Shift,
    /// 2.2.9+, 2.3.0+: wake at `c + zfs_max_recordsize`, block `c/512` later.
    Lax,
}

/// How `arcstat_size` is summed, and so how far the overflow check (§6.1),
/// which reads its lower bound, lags the true size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum SizeSum {
    /// ≤ 0.7: one atomic counter; the check sees the true size.
    Exact,
    /// 0.8.x: an aggsum; a bucket that runs out flushes and borrows
    /// `10·|delta|` afresh (`aggsum_borrow_multiplier`).
    Borrow10Fresh,
    /// 2.0.x: an aggsum borrowing `10·|delta|`, topped up to it or shrunk by
    /// a quarter of the excess.
    Borrow10,
    /// 2.1+: as 2.0 with `|delta| << 4` (`aggsum_borrow_shift`; one more
    /// shift per bucket shift, from 12 CPUs).
    Borrow16,
}

impl SizeSum {
    /// What a bucket borrows for an add of `delta` bytes (before scaling).
    pub const fn borrow_for(self, delta: u64) -> u64 {
        match self {
            SizeSum::Exact => 0,
            SizeSum::Borrow10Fresh | SizeSum::Borrow10 => delta.saturating_mul(10),
            SizeSum::Borrow16 => delta.saturating_mul(16),
        }
    }
}

/// Constants of `arc_evict_adj` (§3.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum AdjConsts {
    /// 2.2.0–2.2.7, 2.3.0–2.3.2: skip below 8, cap at total/4, scale to total/8.
    Loose,
    /// 2.2.8+, 2.3.3+: skip below 32, cap at total/16, scale to total/32.
    Tight,
}

impl AdjConsts {
    /// `(skip_below, cap_divisor, scale_divisor)`.
    pub const fn numbers(self) -> (u64, u64, u64) {
        match self {
            AdjConsts::Loose => (8, 4, 8),
            AdjConsts::Tight => (32, 16, 32),
        }
    }
}

/// `arc_reduce_target_size` (or `arc_shrink`) variant (§5.2, §17).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Reduce {
    /// 0.6/0.7 `arc_shrink`: `c −= to_free` (floor `c_min`), then snap to
    /// `max(size, c_min)` if above size; `p −= p>>shift`; evicts at once.
    Shrink07,
    /// 0.8: `c −= to_free` from `c` (floor `c_min`); `p −= p>>shift`; wake if size > c.
    FromC08,
    /// 2.0–2.1: from `min(c, size)` (floor `c_min`); `p −= p>>shift`; wake if size > c.
    FromSize20,
    /// 2.2.0–2.2.8: nothing if `c ≤ c_min`; `c = max(min(c,size) − to_free, c_min)`; always wake.
    V22,
    /// 2.2.9+, 2.3+: snap `c` to `max(size, c_min)`, clamp to_free, wake if size > c.
    Head,
}

/// Everything version-dependent the engine does, derived from a full release.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Behaviour {
    /// The release this was derived from (`patch == ANY_PATCH`: the newest of the series).
    pub release: Release,
    /// The limits behaviour set ([`mod@crate::limits`]).
    pub limits: ZfsVersion,
    /// `arc_p` (≤2.1) or `meta/pd/pm` (2.2+).
    pub split: Split,
    /// Overflow rule.
    pub overflow: Overflow,
    /// How `arcstat_size` is summed (the overflow check's lag).
    pub size_sum: SizeSum,
    /// `dnode_size > arc_dnode_limit` also overflows (2.2.9+, 2.3.4+).
    pub dnode_overflow: bool,
    /// `arc_evict_adj` constants (2.2+ only).
    pub adj: AdjConsts,
    /// Reap base is `c − c_min` (2.1.6+) rather than `c` (≤ 2.1.5).
    pub reap_base_minus_cmin: bool,
    /// The reap step is skipped when `c ≤ c_min` (2.1.6–2.2.8).
    pub reap_skip_at_cmin: bool,
    /// A ≤ 2.1 ghost hit moves `arc_p` (0.6.x, 0.8.6, 2.0+). 0.7.0–0.8.5 pass
    /// the header's new (non-ghost) state to `arc_adapt` from
    /// `arc_get_data_impl`, so `arc_p` stays put and only growth runs.
    pub ghost_hit_adapts_p: bool,
    /// Default `zfs_arc_shrinker_limit` in pages (Linux): 10000 in 2.0.0–2.2.x,
    /// 0 (no cap) before 2.0 (no such tunable) and from 2.3.0.
    pub shrinker_limit_default_pages: u64,
    /// `arc_reduce_target_size` variant.
    pub reduce: Reduce,
    /// `c` starts at `c_min` (2.0+) instead of `c_max`.
    pub c_starts_at_min: bool,
    /// The reclaim thread runs `arc_adjust()` every second even when idle (0.6/0.7).
    pub idle_adjust_every_second: bool,
    /// Lowering `zfs_arc_max` does `c = min(c, c_max)` (2.0+) instead of `c = c_max`.
    pub arc_max_keeps_c: bool,
    /// Growth adds `max(bytes, 128 KiB)` (2.2+) instead of exactly `bytes` (+`p` rule).
    pub growth_min_128k: bool,
    /// MFU-metadata eviction subtracts what MRU metadata already gave (2.2.7+).
    pub mfu_meta_fix: bool,
    /// Dnode prune: proportional scaling and no `else` (2.2.9+, 2.3+).
    pub dnode_prune_rework: bool,
    /// `iohits` counters, request flags passed to `arc_access`, predictive/prescient
    /// counters, `uncached` state (2.2+).
    pub access_2_2: bool,
    /// `demand_hit_prescient_prefetch` exists (0.8+).
    pub prescient_hit_counter: bool,
    /// `hash_elements_max` equals `hash_elements` (2.3+).
    pub hash_max_is_current: bool,
    /// arcstats has `l2_ndev` (2.3.8+, 2.4.3+).
    pub l2_ndev: bool,
    /// Linux shrinker reports what `arc_reduce_target_size` returned (2.2.9+/2.3+)
    /// rather than `nr_to_scan`.
    pub shrinker_reports_reduced: bool,
    /// Note about how the release was mapped, if any.
    pub note: Option<String>,
}

fn r(a: u16, b: u16, c: u16) -> Release {
    Release::new(a, b, c)
}

/// `release` is in `[from, to]` for the series of `from` (same major.minor),
/// or at least `later` when given (a newer series that has the change from its start).
fn in_series(rel: Release, from: Release) -> bool {
    rel.major == from.major && rel.minor == from.minor && rel.patch >= from.patch
}

impl Behaviour {
    /// The behaviour of one release (`2.2.7`, `2.3`, `0.7.13`, …). A series
    /// without patch (`patch == ANY_PATCH`) means its newest release, except
    /// `2.2`, which means 2.2.8 (the last "shift-based overflow" release, as the
    /// CLI's `--zfs-version 2.2` promises).
    pub fn for_release(release: Release) -> Behaviour {
        let mut note = None;
        let mut rel = release;
        if rel.major == 2 && rel.minor == 2 && rel.patch == Release::ANY_PATCH {
            rel = r(2, 2, 8);
            note = Some("2.2 means 2.2.0–2.2.8 (shift-based overflow); modelled as 2.2.8".into());
        }
        let (limits, lnote) = ZfsVersion::for_release(rel).unwrap_or((ZfsVersion::V2_3, None));
        if note.is_none() {
            note = lnote;
        }
        let ge = |a, b, c| rel >= r(a, b, c);
        let v22 = ge(2, 2, 0);
        let overflow = if ge(2, 3, 0) || in_series(rel, r(2, 2, 9)) {
            Overflow::Lax
        } else if ge(2, 1, 1) {
            Overflow::Shift
        } else {
            Overflow::Binary
        };
        Behaviour {
            release: rel,
            limits,
            split: if v22 { Split::MetaPdPm } else { Split::ArcP },
            overflow,
            size_sum: if ge(2, 1, 0) {
                SizeSum::Borrow16
            } else if ge(2, 0, 0) {
                SizeSum::Borrow10
            } else if ge(0, 8, 0) {
                SizeSum::Borrow10Fresh
            } else {
                SizeSum::Exact
            },
            dnode_overflow: ge(2, 4, 0) || in_series(rel, r(2, 3, 4)) || in_series(rel, r(2, 2, 9)),
            adj: if ge(2, 4, 0) || in_series(rel, r(2, 3, 3)) || in_series(rel, r(2, 2, 8)) {
                AdjConsts::Tight
            } else {
                AdjConsts::Loose
            },
            reap_base_minus_cmin: ge(2, 1, 6),
            reap_skip_at_cmin: ge(2, 1, 6) && overflow != Overflow::Lax,
            ghost_hit_adapts_p: ge(2, 0, 0) || in_series(rel, r(0, 8, 6)) || !ge(0, 7, 0),
            shrinker_limit_default_pages: if ge(2, 0, 0) && !ge(2, 3, 0) {
                10_000
            } else {
                0
            },
            reduce: if overflow == Overflow::Lax {
                Reduce::Head
            } else if v22 {
                Reduce::V22
            } else if ge(2, 0, 0) {
                Reduce::FromSize20
            } else if ge(0, 8, 0) {
                Reduce::FromC08
            } else {
                Reduce::Shrink07
            },
            c_starts_at_min: ge(2, 0, 0),
            idle_adjust_every_second: !ge(0, 8, 0),
            arc_max_keeps_c: ge(2, 0, 0),
            growth_min_128k: v22,
            mfu_meta_fix: ge(2, 3, 0) || in_series(rel, r(2, 2, 7)),
            dnode_prune_rework: ge(2, 3, 0) || in_series(rel, r(2, 2, 9)),
            access_2_2: v22,
            prescient_hit_counter: ge(0, 8, 0),
            hash_max_is_current: ge(2, 3, 0),
            l2_ndev: ge(2, 4, 3) || (ge(2, 3, 8) && !ge(2, 4, 0)),
            shrinker_reports_reduced: overflow == Overflow::Lax,
            note,
        }
    }

    /// The CLI presets: `0.7`, `2.1`, `2.2` (= 2.2.8), `2.3` / `latest`
    /// (the default, HEAD behaviour), or any release string `Release` parses.
    pub fn preset(name: &str) -> Result<Behaviour, crate::limits::ParseVersionError> {
        let t = name.trim();
        if t.eq_ignore_ascii_case("latest") {
            return Ok(Behaviour::latest());
        }
        Ok(Behaviour::for_release(t.parse()?))
    }

    /// The newest behaviour (2.3.x / 2.4.x / master); the default.
    pub fn latest() -> Behaviour {
        Behaviour::for_release(Release::series_end(2, 3))
    }

    /// `ARC_MINTIME` in ticks: `hz >> 4`.
    pub const fn mintime_ticks(hz: u32) -> u32 {
        hz >> 4
    }

    /// A multi-line description of the behaviour set and the boundaries this
    /// run uses (for `arclab limits` and run headers).
    pub fn describe(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "ARC engine behaviour of OpenZFS {} (limits set {}: {})",
            self.release,
            self.limits,
            self.limits.releases()
        );
        if let Some(n) = &self.note {
            let _ = writeln!(s, "  note: {n}");
        }
        let mut line = |k: &str, v: String| {
            let _ = writeln!(s, "  {k:<22} {v}");
        };
        line(
            "target split",
            match self.split {
                Split::ArcP => "arc_p bytes (≤2.1, §3.6)".into(),
                Split::MetaPdPm => "meta/pd/pm fractions (2.2+, §3.5)".into(),
            },
        );
        line(
            "overflow",
            match self.overflow {
                Overflow::Binary => "binary: block at c+max(16 MiB,c/256) (0.6.5–2.1.0)".into(),
                Overflow::Shift => {
                    "shift-based: wake at c+max(16 MiB,c/256)/2, block at c+max(16 MiB,c/256) (2.1.1–2.2.8)"
                        .into()
                }
                Overflow::Lax => "lax: wake at c+16 MiB, block at c+16 MiB+c/512 (2.2.9+, 2.3+)".into(),
            },
        );
        line(
            "size the check reads",
            match self.size_sum {
                SizeSum::Exact => "exact counter (≤ 0.7)".into(),
                SizeSum::Borrow10Fresh => "aggsum lower bound, borrow 10×delta afresh (0.8)".into(),
                SizeSum::Borrow10 => "aggsum lower bound, borrow 10×delta (2.0)".into(),
                SizeSum::Borrow16 => "aggsum lower bound, borrow 16×delta (2.1+)".into(),
            },
        );
        line("dnode overflow", yes(self.dnode_overflow, "2.2.9+, 2.3.4+"));
        if self.split == Split::MetaPdPm {
            let (a, b, c) = self.adj.numbers();
            line(
                "arc_evict_adj",
                format!(
                    "skip total<{a}, cap at total/{b}, scale to total/{c} ({})",
                    if self.adj == AdjConsts::Tight {
                        "2.2.8+, 2.3.3+"
                    } else {
                        "2.2.0–2.2.7, 2.3.0–2.3.2"
                    }
                ),
            );
            line("MFU-meta amount fix", yes(self.mfu_meta_fix, "2.2.7+"));
            line(
                "dnode prune rework",
                yes(self.dnode_prune_rework, "2.2.9+, 2.3+"),
            );
        }
        line(
            "reap step",
            format!(
                "({} >> shrink_shift) − available{}",
                if self.reap_base_minus_cmin {
                    "c − c_min"
                } else {
                    "c"
                },
                if self.reap_skip_at_cmin {
                    ", skipped when c ≤ c_min (2.1.6–2.2.8)"
                } else {
                    ""
                }
            ),
        );
        line("reduce target", format!("{:?}", self.reduce));
        if self.split == Split::ArcP {
            line(
                "ghost hit moves arc_p",
                yes(
                    self.ghost_hit_adapts_p,
                    "0.6.x, 0.8.6, 2.0+; not 0.7.0–0.8.5",
                ),
            );
        }
        line(
            "shrinker limit",
            if self.shrinker_limit_default_pages == 0 {
                "none by default (before 2.0, 2.3+)".into()
            } else {
                format!(
                    "{} pages by default (2.0–2.2.x)",
                    self.shrinker_limit_default_pages
                )
            },
        );
        line(
            "initial c",
            if self.c_starts_at_min {
                "c_min (2.0+)".into()
            } else {
                "c_max (0.x)".into()
            },
        );
        line(
            "lowering zfs_arc_max",
            if self.arc_max_keeps_c {
                "c = min(c, c_max), no eviction wake (2.0+)".into()
            } else {
                "c = c_max".into()
            },
        );
        line(
            "idle shrink",
            yes(
                self.idle_adjust_every_second,
                "0.6/0.7: reclaim thread runs arc_adjust every second",
            ),
        );
        line(
            "growth",
            if self.growth_min_128k {
                "c += max(bytes, 128 KiB) when size+32 MiB ≥ c (2.2+)".into()
            } else {
                "c += bytes (and p) when size ≥ c−32 MiB (≤2.1)".into()
            },
        );
        line(
            "iohits/uncached",
            yes(self.access_2_2, "2.2+ arc_access with request flags"),
        );
        s
    }
}

fn yes(b: bool, when: &str) -> String {
    if b {
        format!("yes ({when})")
    } else {
        format!("no (only {when})")
    }
}

impl Default for Behaviour {
    fn default() -> Self {
        Behaviour::latest()
    }
}
