//! The reads the prefetcher sent to the pool, and the runs of consecutive
//! blocks they form ([`PrefetchReads`], what `whatif` and `sim` report as
//! prefetch disk load).

use std::collections::BTreeMap;

/// How many runs of consecutive prefetch reads [`PrefetchReads`] follows at
/// once (one per stream being read; the one extended longest ago is closed
/// when another starts).
pub(super) const OPEN_RUNS: usize = 16;

/// A run of prefetch reads of consecutive blocks still being extended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct OpenRun {
    file: u32,
    level: u8,
    /// The block that would extend the run.
    next: u64,
    block_bytes: u32,
    /// Blocks in the run (since the last [`PrefetchReads::restart`]).
    blocks: u64,
    /// When it was last extended (a count of notes).
    touched: u64,
}

/// The reads the prefetcher sent to the pool: every prefetch read that
/// missed the ARC (see [the model's docs](super)), and the runs of consecutive blocks
/// of one file and level they form, in the order they were issued.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PrefetchReads {
    /// Prefetch reads that missed the ARC: one disk read each.
    pub reads: u64,
    /// Their bytes.
    pub bytes: u64,
    /// Closed runs: `(block bytes, blocks)` → how many.
    closed: BTreeMap<(u32, u64), u64>,
    pub(super) open: Vec<OpenRun>,
    notes: u64,
}

impl PrefetchReads {
    /// One prefetch read that missed: block `blkid` of `file` at `level`.
    pub(super) fn note(&mut self, file: u32, level: u8, blkid: u64, block_bytes: u32) {
        self.reads += 1;
        self.bytes += u64::from(block_bytes);
        self.notes += 1;
        let now = self.notes;
        if let Some(r) = self.open.iter_mut().find(|r| {
            r.file == file && r.level == level && r.next == blkid && r.block_bytes == block_bytes
        }) {
            r.next = blkid.wrapping_add(1);
            r.blocks += 1;
            r.touched = now;
            return;
        }
        let run = OpenRun {
            file,
            level,
            next: blkid.wrapping_add(1),
            block_bytes,
            blocks: 1,
            touched: now,
        };
        if self.open.len() < OPEN_RUNS {
            self.open.push(run);
        } else if let Some(oldest) = self.open.iter_mut().min_by_key(|r| r.touched) {
            let old = std::mem::replace(oldest, run);
            if old.blocks > 0 {
                *self
                    .closed
                    .entry((old.block_bytes, old.blocks))
                    .or_default() += 1;
            }
        }
    }

    /// Every run so far, the open ones included: `(block bytes, blocks,
    /// how many runs of that shape)`, in block size and length order.
    pub fn runs(&self) -> Vec<(u32, u64, u64)> {
        let mut all = self.closed.clone();
        for r in self.open.iter().filter(|r| r.blocks > 0) {
            *all.entry((r.block_bytes, r.blocks)).or_default() += 1;
        }
        all.into_iter().map(|((b, n), c)| (b, n, c)).collect()
    }

    /// Count from zero again (the end of a warm-up). A run in progress goes
    /// on, counting only the blocks read from now on.
    pub fn restart(&mut self) {
        self.reads = 0;
        self.bytes = 0;
        self.closed.clear();
        for r in &mut self.open {
            r.blocks = 0;
        }
    }
}
