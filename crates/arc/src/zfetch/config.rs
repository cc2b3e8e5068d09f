//! Tunables and the release → prefetcher-generation mapping.

use crate::limits::Release;

/// One MiB, the unit most zfetch tunables are written in.
const MIB: u32 = 1 << 20;

/// The algorithm generation of `dmu_zfetch.c` (spec §10.5).
///
/// Later generations keep everything of the earlier ones unless stated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Generation {
    /// ZoL 0.7.0 – OpenZFS 2.0.x: exact sequential streams, one call per
    /// access (data prefetch issued on every hit, no `zs_missed` gate), a
    /// stream is dropped when idle for more than `zfetch_min_sec_reap` (2 s,
    /// nanosecond clock), no recycling, no end-of-file rule, `blkid == 0`
    /// always skipped. 0.6.5 and older (strided/backward streams) map here.
    Sequential07,
    /// OpenZFS 2.1.0 – 2.1.5: as [`Generation::Sequential07`] but split into
    /// prepare/run, data prefetch only after a demand miss, end-of-file stream
    /// removal, `maxblkid < 2` fast path, `io_issued` kstat.
    Sequential21,
    /// OpenZFS 2.1.6 – 2.2.3: the adaptive distance ramp (`pf_dist`,
    /// `ipf_dist`, `zs_more`), 1 s / 2 s reaping with recycling, still exact
    /// (or +1) matches only, nanosecond `zs_atime`.
    Ramp,
    /// OpenZFS 2.2.4 – 2.2.x: the reorder window (`future`/`stride`/`past`),
    /// `zs_ranges`, whole-second `zs_atime`, end-of-file handling on the hit
    /// path.
    Reorder,
    /// OpenZFS 2.3.0 and later: 128 MiB `zfetch_max_idistance` and the
    /// prescient L1 prefetch for the current access.
    Prescient,
}

impl Generation {
    /// Whether the reorder window and `zs_ranges` exist (2.2.4+).
    pub fn has_reorder(self) -> bool {
        self >= Generation::Reorder
    }

    /// Whether the prescient L1 step of `dmu_zfetch_prepare` exists (2.3.0+).
    pub fn has_prescient(self) -> bool {
        self == Generation::Prescient
    }

    /// Whether this is one of the pre-ramp generations (0.7 – 2.1.5).
    pub fn is_sequential(self) -> bool {
        self <= Generation::Sequential21
    }

    /// Whether `zs_atime` is kept in whole seconds (2.2.4+) rather than ns.
    pub fn whole_seconds(self) -> bool {
        self >= Generation::Reorder
    }
}

/// The dataset `prefetch` property (2.2+; a plain flag here).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PrefetchProperty {
    /// `all` (default): data and metadata prefetch.
    #[default]
    All,
    /// `metadata`: every call behaves as `fetch_data = false`.
    Metadata,
    /// `none`: no predictive prefetch at all.
    None,
}

/// Prefetcher tunables (`zfs.4` names) plus the generation switches.
///
/// [`ZfetchConfig::default`] is HEAD on a 64-bit build.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ZfetchConfig {
    /// Algorithm generation.
    pub generation: Generation,
    /// `zfs_prefetch_disable` (also suppresses the prescient L1 step).
    pub disable: bool,
    /// Dataset `prefetch` property.
    pub property: PrefetchProperty,
    /// `zfetch_max_streams`: streams per file (8).
    pub max_streams: u32,
    /// `zfetch_min_sec_reap`: seconds before an idle stream may be recycled
    /// (1; 2 before 2.1.6).
    pub min_sec_reap: u32,
    /// `zfetch_max_sec_reap`: seconds before an idle stream is deleted (2;
    /// unused before 2.1.6).
    pub max_sec_reap: u32,
    /// `zfetch_min_distance`: the data distance doubles up to this (4 MiB).
    pub min_distance: u32,
    /// `zfetch_max_distance`: cap on the data distance (64 MiB; 8 MiB before
    /// 2.1.6).
    pub max_distance: u32,
    /// `zfetch_max_idistance`: cap on the L1 distance (128 MiB; 64 MiB
    /// before 2.3.0).
    pub max_idistance: u32,
    /// `zfetch_max_reorder`: reorder window in bytes (16 MiB; 2.2.4+).
    pub max_reorder: u32,
    /// `zfetch_hole_shift`: log2 of the hole fraction a stream may skip (2).
    pub hole_shift: u32,
    /// `dn_indblkshift` of the files (17 = 128 KiB indirect blocks);
    /// `epbs = indblkshift − 7`.
    pub indblkshift: u32,
    /// `arc_c_max` in bytes, for the `io_active` doubling brake.
    pub c_max: u64,
    /// The `io_active < c_max >> (4 + dbs)` doubling brake (2.1.10+).
    pub io_active_brake: bool,
    /// `zfetch_array_rd_sz`: calls for more bytes than this skip the
    /// prefetcher (1 MiB through 2.1.x; `None` from 2.2.0).
    pub array_rd_sz: Option<u64>,
    /// Whether the caller holds the dnode lock (`have_lock`). True for the
    /// read/write path (`dmu_buf_hold_array_by_dnode`) from 2.1 on; when
    /// false, 2.1+ skip accesses to block 0 (the small-file fast path).
    pub have_lock: bool,
    /// Post-2.4 master (`ce837a28eb`): the `blkid == 0` and `maxblkid == 1`
    /// fast paths only apply when the file has no streams, and the L1
    /// distance starts at one block even for zero-length advances.
    pub head_tweaks: bool,
}

impl Default for ZfetchConfig {
    fn default() -> Self {
        ZfetchConfig {
            generation: Generation::Prescient,
            disable: false,
            property: PrefetchProperty::All,
            max_streams: 8,
            min_sec_reap: 1,
            max_sec_reap: 2,
            min_distance: 4 * MIB,
            max_distance: 64 * MIB,
            max_idistance: 128 * MIB,
            max_reorder: 16 * MIB,
            hole_shift: 2,
            indblkshift: 17,
            c_max: 1 << 33,
            io_active_brake: true,
            array_rd_sz: None,
            have_lock: true,
            head_tweaks: true,
        }
    }
}

impl ZfetchConfig {
    /// `epbs`: log2 of block pointers per indirect block (`indblkshift − 7`).
    pub fn epbs(&self) -> u32 {
        self.indblkshift - 7
    }

    /// The defaults of the given generation (64-bit build, no tweaks).
    pub fn for_generation(generation: Generation) -> Self {
        let base = ZfetchConfig {
            generation,
            head_tweaks: false,
            ..ZfetchConfig::default()
        };
        match generation {
            Generation::Sequential07 | Generation::Sequential21 => ZfetchConfig {
                min_sec_reap: 2,
                max_distance: 8 * MIB,
                max_idistance: 64 * MIB,
                io_active_brake: false,
                array_rd_sz: Some(1 << 20),
                have_lock: generation != Generation::Sequential07,
                ..base
            },
            Generation::Ramp | Generation::Reorder => ZfetchConfig {
                max_idistance: 64 * MIB,
                ..base
            },
            Generation::Prescient => base,
        }
    }

    /// The configuration of a release (`2.2.7`, `2.3`, `0.7`).
    pub fn for_release(release: Release) -> Self {
        Self::for_release_with_note(release).0
    }

    /// Like [`ZfetchConfig::for_release`], plus a note when the mapping is
    /// approximate. A series without a patch (`2.2`) means its latest patch.
    pub fn for_release_with_note(r: Release) -> (Self, Option<String>) {
        use Generation::*;
        let p = r.patch; // ANY_PATCH (u16::MAX) sorts as the latest patch
        let series = if p == Release::ANY_PATCH {
            Some(format!(
                "{r}: prefetcher of the latest {}.{} patch release",
                r.major, r.minor
            ))
        } else {
            None
        };
        let (g, note) = match (r.major, r.minor) {
            (0, 0..=6) => (
                Sequential07,
                Some(format!(
                    "{r}: the pre-0.7 strided/backward prefetcher is not modelled; using 0.7"
                )),
            ),
            (0, _) | (1, _) | (2, 0) => (Sequential07, None),
            (2, 1) if p <= 5 => (Sequential21, None),
            (2, 1) | (2, 2) if p <= 3 || r.minor == 1 => (Ramp, series),
            (2, 2) => (Reorder, series),
            (2, 3) | (2, 4) if p < 99 || p == Release::ANY_PATCH => (Prescient, series),
            _ => (
                Prescient,
                Some(format!(
                    "{r}: newer than 2.4.x, assuming master (be7657e3f2)"
                )),
            ),
        };
        let mut c = Self::for_generation(g);
        if (r.major, r.minor) == (2, 1) {
            c.array_rd_sz = Some(1 << 20);
            c.io_active_brake = p >= 10;
        }
        let any = p == Release::ANY_PATCH;
        c.head_tweaks =
            (r.major, r.minor) > (2, 4) || ((r.major, r.minor) == (2, 4) && p >= 99 && !any);
        (c, note)
    }
}
