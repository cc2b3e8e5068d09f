//! The prefetcher's per-file state: each file's streams (`zfetch_t`), found
//! by file id, and what is known of the file.

use smallvec::SmallVec;

use super::super::stream::Stream;
use super::super::{FileInfo, StreamRef};

type FileMap = crate::slab::KeyMap<u32, u32>;

/// The files' states, found by file id. Most traces read one file at a time,
/// and one demand read looks its file up several times (prepare, stream
/// creation, run, each completed prefetch), so the last file found is
/// remembered and the table is probed only when the file changes.
#[derive(Clone, Debug, Default)]
pub(super) struct Files {
    pub(super) states: Vec<FileState>,
    index: FileMap,
    /// The last file found and its entry (`NO_FILE`: none).
    last: (u32, u32),
}

const NO_FILE: u32 = u32::MAX;

impl Files {
    pub(super) fn new() -> Self {
        Files {
            last: (0, NO_FILE),
            ..Files::default()
        }
    }

    #[inline]
    pub(super) fn get(&self, file: u32) -> Option<&FileState> {
        if self.last.1 != NO_FILE && self.last.0 == file {
            return Some(&self.states[self.last.1 as usize]);
        }
        self.index.get(&file).map(|&i| &self.states[i as usize])
    }

    #[inline]
    pub(super) fn get_mut(&mut self, file: u32) -> Option<&mut FileState> {
        if self.last.1 == NO_FILE || self.last.0 != file {
            let &i = self.index.get(&file)?;
            self.last = (file, i);
        }
        Some(&mut self.states[self.last.1 as usize])
    }

    /// The state of `file`, created empty if it has none.
    #[inline]
    pub(super) fn entry(&mut self, file: u32) -> &mut FileState {
        if self.get_mut(file).is_none() {
            self.states.push(FileState::default());
            let i = (self.states.len() - 1) as u32;
            self.index.insert(file, i);
            self.last = (file, i);
        }
        &mut self.states[self.last.1 as usize]
    }

    /// Heap bytes of the files' stream states and their index.
    pub(super) fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        self.states.capacity() * size_of::<FileState>()
            + self
                .states
                .iter()
                .map(|s| {
                    s.slots.capacity() * size_of::<Slot>()
                        + (s.list.capacity() * usize::from(s.list.spilled()) + s.free.capacity())
                            * size_of::<u16>()
                })
                .sum::<usize>()
            + self.index.capacity() * (size_of::<(u32, u32)>() + 1)
    }

    /// Forget the streams of `file`: a later [`Files::entry`] finds it
    /// with none. What is known of the file itself (its [`FileInfo`])
    /// stays.
    pub(super) fn forget_streams(&mut self, file: u32) {
        if let Some(fs) = self.get_mut(file) {
            *fs = FileState {
                info: fs.info,
                ..FileState::default()
            };
        }
    }
}

/// A stream slot: slots are reused, `epoch` tells stale handles apart.
#[derive(Clone, Debug, Default)]
pub(super) struct Slot {
    pub(super) stream: Stream,
    pub(super) epoch: u32,
    pub(super) used: bool,
    in_list: bool,
}

/// Slots whose position [`FileState::near`] mirrors (`zfetch_max_streams`'
/// default: a file rarely has more).
const NEAR: usize = 8;

/// One `zfetch_t`: the streams of one file.
#[derive(Clone, Debug, Default)]
pub(super) struct FileState {
    pub(super) slots: Vec<Slot>,
    /// For each of the first [`NEAR`] slots, `stream.blkid + 1` while the
    /// slot is in the list, 0 otherwise: what `prepare`'s first test reads
    /// (is a stream within reach?), beside the list's length in this
    /// struct, so that a random read's test costs no load of the slots.
    /// Kept by [`FileState::moved`] wherever a slot's position or list
    /// membership changes.
    pub(super) near: [u64; NEAR],
    /// Slots in the stream list, head first (inline up to [`NEAR`]).
    pub(super) list: SmallVec<[u16; NEAR]>,
    pub(super) free: Vec<u16>,
    pub(super) maxblkid: u64,
    /// 2.2.4+ (whole-second `atime`): `(second, reap)`: before that second
    /// no stream of this file has been idle longer than `reap` seconds
    /// (`min(min_sec_reap, max_sec_reap)` when it was set), so
    /// `create_stream` can skip both of its searches. A lower bound,
    /// set after each full search and lowered when a stream's `atime` is set
    /// (an `atime` only moves forward unless the clock does not). Random
    /// reads, which fail to create a stream most of the time, need it.
    pub(super) idle_from: Option<(u32, u32)>,
    /// What is known of the file, fixed at its first read
    /// ([`Zfetch::file_info`]); kept when its streams are forgotten.
    pub(super) info: Option<FileInfo>,
}

impl FileState {
    /// Slot `s`'s stream moved, joined or left the list: mirror it in `near`.
    #[inline]
    pub(super) fn moved(&mut self, s: usize) {
        if s < NEAR {
            let slot = &self.slots[s];
            self.near[s] = if slot.in_list {
                slot.stream.blkid.wrapping_add(1)
            } else {
                0
            };
        }
    }

    /// Whether a stream in the list is within `reach` blocks of `blkid`.
    #[inline]
    pub(super) fn any_near(&self, blkid: u64, reach: u64) -> bool {
        debug_assert!(
            (0..self.slots.len().min(NEAR)).all(|s| {
                let slot = &self.slots[s];
                self.near[s]
                    == if slot.in_list {
                        slot.stream.blkid.wrapping_add(1)
                    } else {
                        0
                    }
            }),
            "near out of step with the slots"
        );
        if self.slots.len() <= NEAR {
            // The window `[lo, hi]` of positions within `reach`; `near`
            // holds a position plus 1, so no listed position is u64::MAX,
            // and `p − (lo + 1) ≤ hi − lo` is one unsigned compare per slot
            // that a free slot's 0 never passes.
            let lo = blkid.saturating_sub(reach);
            let hi = blkid.saturating_add(reach).min(u64::MAX - 1);
            let Some(span) = hi.checked_sub(lo) else {
                return false;
            };
            let from = lo + 1;
            self.near
                .iter()
                .fold(false, |any, &p| any | (p.wrapping_sub(from) <= span))
        } else {
            self.slots.iter().fold(false, |any, slot| {
                any | (slot.in_list & (blkid.abs_diff(slot.stream.blkid) <= reach))
            })
        }
    }

    /// The position (`blkid`) of the stream in slot `s`, a slot in the list.
    #[inline(always)]
    pub(super) fn position(&self, s: usize) -> u64 {
        if s < NEAR {
            self.near[s].wrapping_sub(1)
        } else {
            self.slots[s].stream.blkid
        }
    }

    /// Start slot `s`'s stream afresh, expecting `blkid`.
    pub(super) fn reset_stream(&mut self, s: usize, blkid: u64, atime: i64) {
        self.slots[s].stream.reset(blkid, atime);
        self.moved(s);
    }

    /// Whether no stream can be idle past `reap` seconds at `now` (see
    /// `idle_from`).
    pub(super) fn none_idle(&self, now: u32, reap: u32) -> bool {
        self.idle_from
            .is_some_and(|(from, r)| r == reap && (now.wrapping_sub(from) as i32) < 0)
    }

    /// Set `idle_from` from the streams' whole-second `atime`s at `now`.
    pub(super) fn set_idle_from(&mut self, now: u32, reap: u32) {
        let oldest = self
            .list
            .iter()
            .map(|&s| now.wrapping_sub(self.slots[s as usize].stream.atime as u32) as i32)
            .max()
            .unwrap_or(0) as u32;
        self.idle_from = Some((
            now.wrapping_sub(oldest).wrapping_add(reap).wrapping_add(1),
            reap,
        ));
    }

    /// A stream's `atime` was set to `now`: keep `idle_from` a lower bound
    /// (it moves only if the clock went back).
    pub(super) fn touched(&mut self, now: u32, reap: u32) {
        if let Some((from, r)) = self.idle_from {
            let at = now.wrapping_add(reap).wrapping_add(1);
            let from = if (at.wrapping_sub(from) as i32) < 0 {
                at
            } else {
                from
            };
            self.idle_from = (r == reap).then_some((from, reap));
        }
    }

    /// Take a stream off the list; its slot is freed once no reference
    /// (prepared call or in-flight prefetch) remains.
    pub(super) fn remove(&mut self, pos: usize) {
        let s = self.list.remove(pos) as usize;
        self.slots[s].in_list = false;
        self.moved(s);
        self.release_if_idle(s);
    }

    pub(super) fn release_if_idle(&mut self, s: usize) {
        let slot = &mut self.slots[s];
        if slot.used && !slot.in_list && slot.stream.refs == 0 {
            slot.used = false;
            slot.epoch = slot.epoch.wrapping_add(1);
            self.free.push(s as u16);
        }
    }

    pub(super) fn alloc(&mut self) -> usize {
        let s = match self.free.pop() {
            Some(s) => s as usize,
            None => {
                self.slots.push(Slot::default());
                self.slots.len() - 1
            }
        };
        let slot = &mut self.slots[s];
        slot.used = true;
        slot.in_list = true;
        slot.stream = Stream::default();
        self.moved(s);
        s
    }

    pub(super) fn slot_of(&mut self, r: StreamRef) -> Option<usize> {
        let s = r.slot as usize;
        let slot = self.slots.get(s)?;
        (slot.used && slot.epoch == r.epoch).then_some(s)
    }
}
