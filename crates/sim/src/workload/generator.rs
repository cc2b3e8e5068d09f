//! [`Generator`]: the request stream of a workload, one time-ordered stream
//! per component merged by time.

use super::rng::{Rng, Zipf, scatter, scatter_multiplier, splitmix64};
use super::spec::{BonnieK, Shape, component_rates};
use super::thin::{Kept, kept_ranks};
use crate::sample::SpatialSampler;
use arclab_arc::{Kind, Op, Request, block_key};
use std::collections::VecDeque;

/// Files per component (the low 17 bits of the 23-bit dnode id).
const FILES_PER_COMPONENT: u64 = 1 << super::COMPONENT_FILES_SHIFT;
/// Blocks per file for Zipf objects: 1024 × 128 KiB = 128 MiB files.
const BLOCKS_PER_FILE: u64 = 1024;
/// Compressed size of an indirect block or a dnode block read (metadata).
const META_BYTES: u32 = 16 << 10;
/// Requests per second of a prefill (every object read once, in order).
pub(crate) const PREFILL_RATE: f64 = 200_000.0;
/// Data blocks one indirect (L1) block points to (128 KiB / 128 B).
const PTRS_PER_INDIRECT: u64 = 1024;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PhaseOp {
    Write,
    Rewrite,
    Read,
    Seek,
}

#[derive(Clone, Debug)]
struct Phase {
    op: PhaseOp,
    count: u64,
    gap_ns: f64,
}

#[derive(Debug)]
enum Src {
    Zipf {
        z: Zipf,
        n: u64,
        m: u64,
        bpf: u64,
        size: u32,
        meta: f64,
        write: f64,
        prefill: u64,
    },
    Scan {
        blocks: u64,
        size: u32,
        i: u64,
        pass: u64,
        start_ns: f64,
        period_ns: Option<f64>,
        new_file: bool,
    },
    Loop {
        blocks: u64,
        size: u32,
        i: u64,
    },
    Backup {
        files: u64,
        file_bytes: u64,
        size: u32,
        file: u64,
        blk: u64,
        len: u64,
    },
    Bonnie {
        phases: Vec<Phase>,
        p: usize,
        i: u64,
        blocks: u64,
        size: u32,
    },
    /// The kept requests of a Zipf component's data (`meta: false`) or
    /// indirect-block (`meta: true`) reads under spatial sampling
    /// (`super::thin`); the data stream also replays the kept part of the
    /// prefill.
    ZipfThin {
        kept: Kept,
        bpf: u64,
        size: u32,
        meta: bool,
        write: f64,
        /// The kept positions still to prefill, in order (reversed: popped).
        prefill: Vec<u64>,
        /// When the prefill ends and the Poisson stream starts.
        fill_end_ns: f64,
    },
}

#[derive(Debug)]
struct Stream {
    t: f64,
    gap_ns: f64,
    poisson: bool,
    rng: Rng,
    base: u32,
    src: Src,
}

/// The request a Zipf component makes at `t` for position `idx` of its
/// files (`base`, `bpf` blocks per file): a read of its indirect block
/// (`meta`), else a read or a `write` of the data block.
fn zipf_req(
    t: f64,
    (base, bpf, idx): (u32, u64, u64),
    meta: bool,
    size: u32,
    write: bool,
) -> Request {
    let key = zipf_key(base, bpf, idx, meta);
    match (meta, write) {
        (true, _) => req(t, key, META_BYTES, Op::Read, Kind::Metadata),
        (false, true) => req(t, key, size, Op::Write, Kind::Data),
        (false, false) => req(t, key, size, Op::Read, Kind::Data),
    }
}

/// The key of position `idx` of a Zipf component: its data block, or
/// (`meta`) the indirect block pointing to it.
fn zipf_key(base: u32, bpf: u64, idx: u64, meta: bool) -> u64 {
    let file = base + ((idx / bpf) % FILES_PER_COMPONENT) as u32;
    let blk = idx % bpf;
    if meta {
        block_key(file, 1, blk / PTRS_PER_INDIRECT)
    } else {
        block_key(file, 0, blk)
    }
}

fn req(t: f64, key: u64, size: u32, op: Op, kind: Kind) -> Request {
    Request {
        time_ns: t as u64,
        key,
        size,
        op,
        kind,
        prefetch: false,
    }
}

/// The phases of bonnie++ (name, op, blocks, ns between requests).
fn bonnie_phases(k: &BonnieK) -> Vec<(&'static str, Phase)> {
    let s = k.size as f64;
    let blocks = k.file_bytes / k.size;
    let pc = k.perchr_bytes.div_ceil(k.size).min(blocks);
    let mib = (1u64 << 20) as f64;
    let ns = |bytes_per_s: f64| s / bytes_per_s * 1e9;
    let ph = |op, count, gap_ns| Phase { op, count, gap_ns };
    vec![
        ("putc", ph(PhaseOp::Write, pc, ns(k.putc_kib_s * 1024.0))),
        ("write", ph(PhaseOp::Write, blocks, ns(k.write_mib_s * mib))),
        (
            "rewrite",
            ph(PhaseOp::Rewrite, blocks, ns(k.rewrite_mib_s * mib)),
        ),
        ("getc", ph(PhaseOp::Read, pc, ns(k.getc_kib_s * 1024.0))),
        ("read", ph(PhaseOp::Read, blocks, ns(k.read_mib_s * mib))),
        ("seeks", ph(PhaseOp::Seek, k.seeks, 1e9 / k.seeks_per_sec)),
    ]
}

/// Start and end (ns) of each bonnie++ phase.
pub(crate) fn bonnie_windows(k: &BonnieK) -> Vec<(&'static str, u64, u64)> {
    let mut t = 0.0;
    bonnie_phases(k)
        .into_iter()
        .map(|(name, p)| {
            let start = t;
            t += p.count as f64 * p.gap_ns;
            (name, start as u64, t as u64)
        })
        .collect()
}

/// A Zipf or OLTP component as the generator draws it: `n` positions with
/// popularity Zipf(`alpha`), `bpf` blocks per file.
struct ZipfLike {
    n: u64,
    alpha: f64,
    bpf: u64,
    size: u32,
    meta: f64,
    write: f64,
    prefill: bool,
}

/// A Zipf or OLTP component's layout as the sampler needs it to order its
/// blocks by popularity: positions `n`, the scatter's multiplier (rank r
/// sits at position `r · m mod n`), blocks per file.
pub(crate) fn rank_layout(shape: &Shape) -> Option<(u64, u64, u64)> {
    ZipfLike::of(shape).map(|k| (k.n, scatter_multiplier(k.n), k.bpf))
}

impl ZipfLike {
    fn of(shape: &Shape) -> Option<ZipfLike> {
        match shape {
            Shape::Zipf(k) => Some(ZipfLike {
                n: k.objects,
                alpha: k.alpha,
                bpf: BLOCKS_PER_FILE.max(k.objects.div_ceil(FILES_PER_COMPONENT)),
                size: k.size as u32,
                meta: k.metadata_fraction,
                write: k.write_fraction,
                prefill: k.prefill,
            }),
            Shape::Oltp(k) => {
                let n = k.bytes / k.size;
                Some(ZipfLike {
                    n,
                    alpha: k.alpha,
                    bpf: n.max(1),
                    size: k.size as u32,
                    meta: k.metadata_fraction,
                    write: k.write_fraction,
                    prefill: k.prefill,
                })
            }
            _ => None,
        }
    }
}

/// When the prefill reads position `i` (every object once, in order, at
/// [`PREFILL_RATE`]).
fn prefill_ns(i: u64) -> f64 {
    i as f64 * (1e9 / PREFILL_RATE)
}

/// The next time of a thinned stream: its next kept prefill read, else the
/// first of its Poisson stream (mean gap `gap_ns`) after the prefill ends.
fn next_thin_ns(prefill: &[u64], fill_end_ns: f64, gap_ns: f64, rng: &mut Rng) -> f64 {
    match prefill.last() {
        Some(&i) => prefill_ns(i),
        None if gap_ns.is_finite() => fill_end_ns + rng.exp(gap_ns),
        None => f64::INFINITY,
    }
}

impl Stream {
    fn new(shape: &Shape, rate: f64, base: u32, seed: u64) -> Stream {
        let gap_ns = 1e9 / rate.max(1e-9);
        let mut poisson = false;
        let mut t = 0.0;
        let src = match shape {
            Shape::Zipf(_) | Shape::Oltp(_) => {
                poisson = true;
                let Some(k) = ZipfLike::of(shape) else {
                    unreachable!("a Zipf or OLTP shape")
                };
                Src::Zipf {
                    z: Zipf::new(k.n, k.alpha),
                    n: k.n,
                    m: scatter_multiplier(k.n),
                    bpf: k.bpf,
                    size: k.size,
                    meta: k.meta,
                    write: k.write,
                    prefill: if k.prefill { 0 } else { k.n },
                }
            }
            Shape::Scan(k) => {
                t = k.start_secs * 1e9;
                Src::Scan {
                    blocks: k.bytes / k.size,
                    size: k.size as u32,
                    i: 0,
                    pass: 0,
                    start_ns: t,
                    period_ns: k.period_secs.map(|p| p * 1e9),
                    new_file: k.new_file_each_pass,
                }
            }
            Shape::Loop(k) => Src::Loop {
                blocks: k.bytes / k.size,
                size: k.size as u32,
                i: 0,
            },
            Shape::Backup(k) => Src::Backup {
                files: k.files,
                file_bytes: k.file_bytes,
                size: k.size as u32,
                file: 0,
                blk: 0,
                len: 0,
            },
            Shape::Bonnie(k) => Src::Bonnie {
                phases: bonnie_phases(k).into_iter().map(|(_, p)| p).collect(),
                p: 0,
                i: 0,
                blocks: k.file_bytes / k.size,
                size: k.size as u32,
            },
            Shape::Mixture(_) => unreachable!("mixtures are flattened into streams"),
        };
        Stream {
            t,
            gap_ns,
            poisson,
            rng: Rng::new(seed),
            base,
            src,
        }
    }

    /// Emits kept requests only (a `ZipfThin`): counted by expectation.
    fn thinned(&self) -> bool {
        matches!(self.src, Src::ZipfThin { .. })
    }

    /// The kept requests of Zipf (or OLTP) component `shape` at `rate`
    /// under `sampler`, as two streams (data, indirect blocks), and the
    /// expected number of requests of the whole component at or after
    /// `from_ns` and before `end_ns`. `None` for other kinds, or a
    /// component too large to enumerate.
    fn thinned_pair(
        shape: &Shape,
        rate: f64,
        base: u32,
        seed: u64,
        samplers: &[SpatialSampler],
        (from_ns, end_ns): (f64, f64),
    ) -> Option<(Vec<Stream>, f64)> {
        let ZipfLike {
            n,
            alpha,
            bpf,
            size,
            meta,
            write,
            prefill,
        } = ZipfLike::of(shape)?;
        let m = scatter_multiplier(n);
        let mut at = 0u64;
        let share = samplers.iter().map(SpatialSampler::rate).sum::<f64>();
        let (data, md) = kept_ranks(
            n,
            alpha,
            (|k| samplers.iter().any(|s| s.keep(k)), share),
            |r| {
                // scatter(r, m, n), one addition at a time.
                let i = at;
                at = (at + m) % n;
                debug_assert_eq!(i, scatter(r, m, n));
                i
            },
            |i| zipf_key(base, bpf, i, false),
            |i| zipf_key(base, bpf, i, true),
        )?;
        let fill_gap = 1e9 / PREFILL_RATE;
        let fill_end_ns = if prefill { prefill_ns(n) } else { 0.0 };
        let mut fill: Vec<u64> = if prefill {
            data.idx.clone()
        } else {
            Vec::new()
        };
        fill.sort_unstable_by(|a, b| b.cmp(a));
        // The whole component's requests in [from, end): the prefill's one
        // by one, the Poisson stream's λ·t.
        let mut expected = 0.0;
        if prefill {
            let first = (from_ns / fill_gap).ceil().max(0.0);
            let last = (end_ns / fill_gap).ceil().min(n as f64);
            expected += (last - first).max(0.0);
        }
        expected += rate * ((end_ns - from_ns.max(fill_end_ns)).max(0.0) / 1e9);
        let mut seq = seed;
        let mut streams = Vec::with_capacity(2);
        for (kept, is_meta, part) in [(data, false, 1.0 - meta), (md, true, meta)] {
            let r = rate * part * kept.share;
            let gap_ns = if r > 0.0 { 1e9 / r } else { f64::INFINITY };
            let mut rng = Rng::new(splitmix64(&mut seq));
            let prefill = if is_meta {
                Vec::new()
            } else {
                std::mem::take(&mut fill)
            };
            let t = next_thin_ns(&prefill, fill_end_ns, gap_ns, &mut rng);
            streams.push(Stream {
                t,
                gap_ns,
                poisson: true,
                rng,
                base,
                src: Src::ZipfThin {
                    kept,
                    bpf,
                    size,
                    meta: is_meta,
                    write,
                    prefill,
                    fill_end_ns,
                },
            });
        }
        Some((streams, expected))
    }

    /// Emit the request(s) due at `self.t` and move to the next time.
    fn step(&mut self, out: &mut VecDeque<Request>) {
        let t = self.t;
        let base = self.base;
        let mut gap = self.gap_ns;
        match &mut self.src {
            Src::Zipf {
                z,
                n,
                m,
                bpf,
                size,
                meta,
                write,
                prefill,
            } => {
                if *prefill < *n {
                    // Prefill: every object once, file by file, at PREFILL_RATE.
                    let key = zipf_key(base, *bpf, *prefill, false);
                    out.push_back(req(t, key, *size, Op::Read, Kind::Data));
                    *prefill += 1;
                    self.t = t + 1e9 / PREFILL_RATE;
                    return;
                }
                let idx = scatter(z.sample(&mut self.rng) - 1, *m, *n);
                let u = self.rng.f64();
                let write = u >= *meta && u < *meta + *write * (1.0 - *meta);
                out.push_back(zipf_req(t, (base, *bpf, idx), u < *meta, *size, write));
            }
            Src::ZipfThin {
                kept,
                bpf,
                size,
                meta,
                write,
                prefill,
                fill_end_ns,
            } => {
                if let Some(idx) = prefill.pop() {
                    let key = zipf_key(base, *bpf, idx, false);
                    out.push_back(req(t, key, *size, Op::Read, Kind::Data));
                    self.t = next_thin_ns(prefill, *fill_end_ns, gap, &mut self.rng);
                    return;
                }
                if let Some(idx) = kept.draw(&mut self.rng) {
                    let write = !*meta && self.rng.f64() < *write;
                    out.push_back(zipf_req(t, (base, *bpf, idx), *meta, *size, write));
                }
            }
            Src::Scan {
                blocks,
                size,
                i,
                pass,
                start_ns,
                period_ns,
                new_file,
            } => {
                let file = base
                    + if *new_file {
                        (*pass % FILES_PER_COMPONENT) as u32
                    } else {
                        0
                    };
                sequential(out, t, file, *i, *size, Op::Read);
                *i += 1;
                if *i == *blocks {
                    *i = 0;
                    *pass += 1;
                    match period_ns {
                        Some(p) => gap = gap.max(*start_ns + *pass as f64 * *p - t),
                        None => gap = f64::INFINITY,
                    }
                }
            }
            Src::Loop { blocks, size, i } => {
                out.push_back(req(t, block_key(base, 0, *i), *size, Op::Read, Kind::Data));
                *i = (*i + 1) % *blocks;
            }
            Src::Backup {
                files,
                file_bytes,
                size,
                file,
                blk,
                len,
            } => {
                if *blk == 0 {
                    // Open the file: read its dnode's block from the meta-dnode
                    // (32 dnodes of 512 B per 16 KiB block).
                    let mut h = *file ^ 0xB4C0;
                    let frac = (splitmix64(&mut h) >> 11) as f64 / (1u64 << 53) as f64;
                    *len = ((*file_bytes as f64 * (0.5 + frac)) as u64 / u64::from(*size)).max(1);
                    let mdn = base + (FILES_PER_COMPONENT - 1) as u32;
                    let key = block_key(mdn, 0, *file / 32);
                    out.push_back(req(t, key, META_BYTES, Op::Read, Kind::Metadata));
                }
                let f = base + (*file % (FILES_PER_COMPONENT - 1)) as u32;
                sequential(out, t, f, *blk, *size, Op::Read);
                *blk += 1;
                if *blk == *len {
                    *blk = 0;
                    *file = (*file + 1) % *files;
                }
            }
            Src::Bonnie {
                phases,
                p,
                i,
                blocks,
                size,
            } => {
                let ph = &phases[*p];
                gap = ph.gap_ns;
                let (blk, op) = match ph.op {
                    PhaseOp::Write => (*i, Op::Write),
                    PhaseOp::Read | PhaseOp::Rewrite => (*i, Op::Read),
                    PhaseOp::Seek => (self.rng.below(*blocks), Op::Read),
                };
                let key = block_key(base, 0, blk);
                out.push_back(req(t, key, *size, op, Kind::Data));
                // Rewrite writes back every block it read; the seek test
                // dirties one block in ten.
                if ph.op == PhaseOp::Rewrite || (ph.op == PhaseOp::Seek && self.rng.below(10) == 0)
                {
                    out.push_back(req(t, key, *size, Op::Write, Kind::Data));
                }
                *i += 1;
                while *p < phases.len() && *i >= phases[*p].count {
                    *i = 0;
                    *p += 1;
                }
                if *p == phases.len() {
                    gap = f64::INFINITY;
                }
            }
        }
        self.t = if self.poisson {
            t + self.rng.exp(gap)
        } else {
            t + gap
        };
    }
}

/// A sequential read or write of block `i` of `file`, preceded by a read of
/// its indirect block whenever a new one is reached.
fn sequential(out: &mut VecDeque<Request>, t: f64, file: u32, i: u64, size: u32, op: Op) {
    if i.is_multiple_of(PTRS_PER_INDIRECT) {
        let key = block_key(file, 1, i / PTRS_PER_INDIRECT);
        out.push_back(req(t, key, META_BYTES, Op::Read, Kind::Metadata));
    }
    out.push_back(req(t, block_key(file, 0, i), size, op, Kind::Data));
}

/// The request stream of a [`super::WorkloadSpec`] (see
/// [`super::WorkloadSpec::generator`]).
#[derive(Debug)]
pub struct Generator {
    streams: Vec<Stream>,
    pending: VecDeque<Request>,
    end_ns: f64,
    sample: Option<Sample>,
}

/// A generator that emits a spatial sample only (see
/// [`super::WorkloadSpec::sampled_generator`]).
#[derive(Debug)]
struct Sample {
    /// A request is kept when any of them keeps it.
    samplers: Vec<SpatialSampler>,
    from_ns: u64,
    /// Requests of the whole workload at or after `from_ns`, counted one by
    /// one (the streams generated whole and sampled here).
    counted: u64,
    /// … and expected (the thinned Zipf streams: λ·t).
    expected: f64,
}

impl Generator {
    pub(crate) fn new(
        shape: &Shape,
        duration_ns: u64,
        seed: u64,
        sample: Option<(Vec<SpatialSampler>, u64)>,
    ) -> Generator {
        let mut streams = Vec::new();
        let end_ns = duration_ns as f64;
        let mut expected = 0.0;
        let stream_seed = |i: u64| {
            let mut s = seed ^ i.wrapping_mul(0xD1B5_4A32_D192_ED03);
            splitmix64(&mut s)
        };
        let mut add = |c: &Shape, rate: f64, base: u32, seed: u64| {
            if let Some((samplers, from)) = &sample
                && let Some((s, n)) =
                    Stream::thinned_pair(c, rate, base, seed, samplers, (*from as f64, end_ns))
            {
                streams.extend(s);
                expected += n;
            } else {
                streams.push(Stream::new(c, rate, base, seed));
            }
        };
        match shape {
            Shape::Mixture(m) => {
                let rates = component_rates(m);
                for (i, (c, rate)) in m.components.iter().zip(rates).enumerate() {
                    let base = ((i as u64 + 1) * FILES_PER_COMPONENT) as u32;
                    add(c, rate, base, stream_seed(i as u64 + 1));
                }
            }
            s => add(s, s.common().rate.unwrap_or(1.0), 0, stream_seed(0)),
        }
        Generator {
            streams,
            pending: VecDeque::with_capacity(4),
            end_ns,
            sample: sample.map(|(samplers, from_ns)| Sample {
                samplers,
                from_ns,
                counted: 0,
                expected,
            }),
        }
    }

    /// How many requests the whole workload (not only the sample) has at or
    /// after the time given to [`super::WorkloadSpec::sampled_generator`]:
    /// exact for the streams generated whole, the expectation for the
    /// thinned ones. Complete once [`Self::next_batch`] has returned 0;
    /// `None` for a generator that does not sample.
    pub fn full_requests(&self) -> Option<u64> {
        self.sample
            .as_ref()
            .map(|s| s.counted + s.expected.round() as u64)
    }

    /// The simulated time the generator has reached (ns): how far through
    /// the workload it is, for a progress bar.
    pub fn now_ns(&self) -> u64 {
        let t = self
            .streams
            .iter()
            .map(|s| s.t)
            .fold(f64::INFINITY, f64::min);
        t.min(self.end_ns) as u64
    }

    /// Append up to `max` requests to `buf` in time order and return how
    /// many were appended: 0 once the workload's duration is over.
    pub fn next_batch(&mut self, buf: &mut Vec<Request>, max: usize) -> usize {
        let mut n = 0;
        while n < max {
            if let Some(r) = self.pending.pop_front() {
                buf.push(r);
                n += 1;
                continue;
            }
            let mut best: Option<(usize, f64)> = None;
            for (i, s) in self.streams.iter().enumerate() {
                if best.is_none_or(|(_, t)| s.t < t) {
                    best = Some((i, s.t));
                }
            }
            match best {
                Some((i, t)) if t < self.end_ns => {
                    let before = self.pending.len();
                    let s = &mut self.streams[i];
                    s.step(&mut self.pending);
                    // A stream generated whole: count its requests, keep the sample's.
                    if let Some(sm) = &mut self.sample
                        && !s.thinned()
                    {
                        let mut j = before;
                        while let Some(r) = self.pending.get(j) {
                            sm.counted += u64::from(r.time_ns >= sm.from_ns);
                            if sm.samplers.iter().any(|s| s.keep(r.key)) {
                                j += 1;
                            } else {
                                self.pending.remove(j);
                            }
                        }
                    }
                }
                _ => break,
            }
        }
        n
    }
}
