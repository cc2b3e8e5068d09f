//! One prefetch stream (`zstream_t`) and its reorder bookkeeping
//! (`zs_ranges`, spec §10.3 item 3).

/// `ZFETCH_RANGES`: slots for future accesses remembered per stream.
pub const ZFETCH_RANGES: usize = 9;

/// A remembered future access, in blocks relative to `zs_blkid`;
/// `start == 0` marks an empty slot.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Range {
    /// First block (relative), ≥ 1 when used.
    pub start: u16,
    /// One past the last block (relative).
    pub end: u16,
}

/// The state of one stream (`zstream_t`), readable through
/// [`crate::zfetch::Zfetch::streams`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stream {
    /// `zs_blkid`: next block the stream expects.
    pub blkid: u64,
    /// `zs_atime`: whole seconds (2.2.4+, wrapping like the kernel's
    /// `uint_t`) or nanoseconds (earlier generations).
    pub atime: i64,
    /// `zs_ranges`: future accesses relative to `blkid`.
    pub ranges: [Range; ZFETCH_RANGES],
    /// `zs_pf_dist`: data distance in bytes (2.1.6+).
    pub pf_dist: u64,
    /// `zs_ipf_dist`: L1 distance in bytes (2.1.6+).
    pub ipf_dist: u64,
    /// `zs_pf_start` (`zs_pf_blkid1` before 2.1.6): first data block not yet
    /// handed to `run`.
    pub pf_start: u64,
    /// `zs_pf_end` (`zs_pf_blkid`): end of the scheduled data window.
    pub pf_end: u64,
    /// `zs_ipf_start` (`zs_ipf_blkid1`): start of the unissued L1 window, in
    /// data blocks.
    pub ipf_start: u64,
    /// `zs_ipf_end` (`zs_ipf_blkid`): end of the scheduled L1 window, in data
    /// blocks.
    pub ipf_end: u64,
    /// `zs_missed`: the stream has seen a demand miss (sticky).
    pub missed: bool,
    /// `zs_more`: a data prefetch completed late; grow the distance by 1/8.
    pub more: bool,
    /// References besides the list's: prepared-not-run calls plus prefetch
    /// I/Os in flight (`zs_refs − 1`).
    pub refs: u32,
    /// `zs_callers`: prepared calls not yet run.
    pub callers: u32,
}

impl Stream {
    /// Reset for a new stream expecting `blkid` (`dmu_zfetch_stream_create`).
    pub(crate) fn reset(&mut self, blkid: u64, atime: i64) {
        let (refs, callers) = (self.refs, self.callers);
        *self = Stream {
            blkid,
            atime,
            pf_start: blkid,
            pf_end: blkid,
            ipf_start: blkid,
            ipf_end: blkid,
            refs,
            callers,
            ..Stream::default()
        };
    }

    /// `dmu_zfetch_hit`: advance over `nblks` blocks from `blkid`, swallowing
    /// remembered ranges that the advance reaches. Returns the advance.
    pub(crate) fn hit(&mut self, mut nblks: u64) -> u64 {
        if self.ranges[0].start != 0 {
            let mut i = 0;
            while i < ZFETCH_RANGES {
                let r = self.ranges[i];
                if r.start == 0 || u64::from(r.start) > nblks {
                    break;
                }
                if u64::from(r.end) >= nblks {
                    nblks = u64::from(r.end);
                    i += 1;
                    break;
                }
                i += 1;
            }
            // Shift the ranges beyond the new position down and rebase them.
            let mut j = 0;
            while i < ZFETCH_RANGES && self.ranges[i].start != 0 {
                let r = self.ranges[i];
                // The relative positions stay below 2^16 (window ≤ 65535).
                self.ranges[j] = Range {
                    start: (u64::from(r.start) - nblks) as u16,
                    end: (u64::from(r.end) - nblks) as u16,
                };
                i += 1;
                j += 1;
            }
            if j < ZFETCH_RANGES {
                self.ranges[j] = Range::default();
            }
        }
        self.blkid += nblks;
        nblks
    }

    /// `dmu_zfetch_future`: remember an access wholly ahead of the stream
    /// and, if the filled prefix has few enough holes, advance over it.
    /// Returns the advance (0 = only remembered, or dropped).
    pub(crate) fn future(&mut self, blkid: u64, nblks: u64, hole_shift: u32) -> u64 {
        debug_assert!(blkid > self.blkid);
        let rel = blkid - self.blkid;
        let (start, end) = (rel as u16, (rel + nblks) as u16);
        let rend = rel + nblks;
        let mut first = ZFETCH_RANGES;
        let mut last = 0;
        let mut i = 0;
        while i < ZFETCH_RANGES {
            let r = self.ranges[i];
            if r.start == 0 || u64::from(r.start) > rend {
                break;
            }
            if u64::from(r.end) >= rel {
                first = first.min(i);
                last = last.max(i);
            }
            i += 1;
        }
        if first <= last {
            // Grow the first intersecting range over all of them.
            let merged_end = self.ranges[last].end.max(end);
            let f = &mut self.ranges[first];
            f.start = f.start.min(start);
            f.end = merged_end;
            if first < last {
                let gone = last - first;
                for k in first + 1..ZFETCH_RANGES - gone {
                    self.ranges[k] = self.ranges[k + gone];
                }
                self.ranges[ZFETCH_RANGES - gone] = Range::default();
            }
        } else if i < ZFETCH_RANGES {
            self.ranges.copy_within(i..ZFETCH_RANGES - 1, i + 1);
            self.ranges[i] = Range { start, end };
        } else {
            return 0; // all slots full: the range is dropped
        }
        if hole_shift >= 16 {
            return 0;
        }
        let (mut hole, mut prev_end, mut reach) = (0u64, 0u64, 0u64);
        for r in self.ranges.iter().take_while(|r| r.start != 0) {
            hole += u64::from(r.start) - prev_end;
            prev_end = u64::from(r.end);
            if hole <= prev_end >> hole_shift {
                reach = prev_end;
            }
        }
        if reach > 0 { self.hit(reach) } else { 0 }
    }
}
