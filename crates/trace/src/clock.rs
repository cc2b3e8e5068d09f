//! The clock a trace is replayed on: one adapter per trace format, shared by
//! every command that replays a trace through the ZFS model (`sim`, `whatif`).
//!
//! * **Whole-second clocks** (oracleGeneral, lcs, csv): the ARC's promotion
//!   window is about 62 ms, so replaying every request of one second at the
//!   same instant would make every re-reference inside that second look "too
//!   soon" to promote. [`TickSpreader`] spreads the requests that share a
//!   timestamp evenly across the tick that follows it: the i-th of n
//!   requests stamped `t` gets `t + i·tick/n`. It looks ahead only as far as
//!   the next timestamp, holding at most [`MAX_TICK_REQUESTS`] requests; a
//!   longer run of equal timestamps is spread over its first chunk's tick
//!   and continues in the next (documented in `docs/model.md`).
//! * **Microsecond clocks** (vscsi): spread the same way over their
//!   microsecond tick, which leaves distinct timestamps as they are.
//! * **No clock** (plain text ids, the ARC paper's `.lis`): a synthetic one
//!   from a request rate, [`Synthetic`]; the rate is checked by
//!   [`check_rate`].
//!
//! [`Clocked`] applies the format's clock to a [`TraceReader`] and makes time
//! relative to the first request, so a trace stamped with Unix times starts
//! at 0 like one stamped from 0.
//!
//! ```
//! use arclab_arc::Request;
//! use arclab_trace::clock::{Clock, Clocked};
//! use arclab_trace::{Format, OpenOptions, write_oracle_general};
//!
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("t.oracleGeneral.bin");
//! // Two requests in second 1_700_000_000, one in the next second.
//! let s = 1_000_000_000u64;
//! let reqs = [(1_700_000_000, 1), (1_700_000_000, 2), (1_700_000_001, 3)]
//!     .map(|(t, k)| Request::read(t * s, k, 4096));
//! write_oracle_general(&path, reqs)?;
//! let reader = arclab_trace::open(&path, &OpenOptions::default())?;
//! let clock = Clock::for_format(reader.format(), 10_000.0)?;
//! assert_eq!(clock, Clock::Spread { tick_ns: s });
//! let mut c = Clocked::new(reader, clock);
//! let mut out = Vec::new();
//! while c.next_batch(&mut out, 1024)? > 0 {}
//! let t: Vec<u64> = out.iter().map(|r| r.time_ns).collect();
//! assert_eq!(t, [0, s / 2, s]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::{Format, TraceError, TraceReader};
use arclab_arc::Request;
use std::collections::VecDeque;
use std::fmt;

/// The most requests held back while looking for the end of a tick.
pub const MAX_TICK_REQUESTS: usize = 1 << 20;

/// Spreads requests with equal timestamps evenly across a tick.
#[derive(Debug)]
pub struct TickSpreader {
    tick_ns: u64,
    /// The raw time of the current tick's requests.
    tick_t: u64,
    /// With a sample: requests of the current tick (kept or not).
    n: u64,
    /// Without a sample: every request read and not yet handed out, from
    /// `head`; those before `spread_end` are spread, the rest are the
    /// current tick's. With one: the current tick's kept requests.
    pending: Vec<Request>,
    /// Without a sample: the first request of `pending` not handed out.
    head: usize,
    /// Without a sample: the end of the spread requests in `pending`.
    spread_end: usize,
    /// With a sample: each pending request's index in its tick.
    index: Vec<u32>,
    ready: VecDeque<Request>,
    /// The source's last batch (kept: a batch is up to 64 Ki requests).
    input: Vec<Request>,
    /// The raw time of the first request read.
    first_t: Option<u64>,
    sample: Option<Sample>,
    done: bool,
}

/// Which requests a sampled stream keeps ([`Clocked::sample`]), and what it
/// counts of the whole stream.
struct Sample {
    keep: Box<dyn Fn(u64) -> bool + Send>,
    /// Count the requests from this time on (relative to the first).
    from_ns: u64,
    /// Requests of the whole stream at or after `from_ns`.
    counted: u64,
    /// The latest time of any request of the whole stream (relative).
    last_ns: u64,
}

impl fmt::Debug for Sample {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sample")
            .field("from_ns", &self.from_ns)
            .field("counted", &self.counted)
            .field("last_ns", &self.last_ns)
            .finish_non_exhaustive()
    }
}

impl Sample {
    /// Count one request at relative time `t`.
    #[inline]
    fn count(&mut self, t: u64) {
        self.counted += u64::from(t >= self.from_ns);
        self.last_ns = self.last_ns.max(t);
    }
}

impl TickSpreader {
    /// A spreader for a clock that counts in units of `tick_ns`.
    pub fn new(tick_ns: u64) -> Self {
        TickSpreader {
            tick_ns: tick_ns.max(1),
            tick_t: 0,
            n: 0,
            pending: Vec::new(),
            head: 0,
            spread_end: 0,
            index: Vec::new(),
            ready: VecDeque::new(),
            input: Vec::new(),
            first_t: None,
            sample: None,
            done: false,
        }
    }

    /// Without a sample: spread the current tick, `pending[spread_end..end]`,
    /// in place (the i-th of n gets ⌊i·tick/n⌋, stepped without a division
    /// each).
    fn spread_to(&mut self, end: usize) {
        let n = (end - self.spread_end) as u64;
        if let Some(step) = self.tick_ns.checked_div(n) {
            let rem = self.tick_ns % n;
            let (mut q, mut r) = (0u64, 0u64);
            for req in &mut self.pending[self.spread_end..end] {
                req.time_ns += q;
                q += step;
                r += rem;
                if r >= n {
                    q += 1;
                    r -= n;
                }
            }
        }
        self.spread_end = end;
    }

    /// With a sample: spread the current tick's kept requests into `ready`
    /// and count the whole tick.
    fn flush(&mut self) {
        let n = std::mem::take(&mut self.n);
        if n == 0 {
            return;
        }
        // The i-th of n gets ⌊i·tick/n⌋.
        let tick = self.tick_ns;
        let Some(s) = &mut self.sample else {
            return;
        };
        let at = |i: u64| (u128::from(i) * u128::from(tick) / u128::from(n)) as u64;
        // What the whole tick counts, as if every request had been spread.
        let base = self.first_t.unwrap_or(0);
        let rel = |i: u64| self.tick_t.saturating_add(at(i)).saturating_sub(base);
        let (first, last) = (rel(0), rel(n - 1));
        s.last_ns = s.last_ns.max(last);
        if first >= s.from_ns {
            s.counted += n;
        } else if last >= s.from_ns {
            // The tick straddles the start of the count: at most once in
            // a trace in order.
            s.counted += (0..n).filter(|&i| rel(i) >= s.from_ns).count() as u64;
        }
        self.ready.extend(
            self.pending
                .drain(..)
                .zip(self.index.drain(..))
                .map(|(mut req, i)| {
                    req.time_ns += at(u64::from(i));
                    req
                }),
        );
    }

    /// Pull from `source` (same contract as the replay engine's batch
    /// source: append up to `max`, return the count, 0 at the end) and
    /// append up to `max` spread requests to `buf`.
    pub fn next_batch<E>(
        &mut self,
        buf: &mut Vec<Request>,
        max: usize,
        source: impl FnMut(&mut Vec<Request>, usize) -> Result<usize, E>,
    ) -> Result<usize, E> {
        if self.sample.is_some() {
            self.next_batch_sampled(buf, max, source)
        } else {
            self.next_batch_all(buf, max, source)
        }
    }

    /// Every request: read into `pending` behind those not yet handed out,
    /// each tick spread in place once the next begins, then copied out
    /// once.
    fn next_batch_all<E>(
        &mut self,
        buf: &mut Vec<Request>,
        max: usize,
        mut source: impl FnMut(&mut Vec<Request>, usize) -> Result<usize, E>,
    ) -> Result<usize, E> {
        while self.spread_end - self.head < max && !self.done {
            if self.head > 0 && self.head * 2 >= self.pending.len() {
                // Keep `pending` to the current tick and one batch.
                self.pending.drain(..self.head);
                self.spread_end -= self.head;
                self.head = 0;
            }
            let old = self.pending.len();
            if source(&mut self.pending, max.max(1))? == 0 {
                self.done = true;
                self.spread_to(self.pending.len());
                break;
            }
            if let Some(r) = self.pending.get(old) {
                self.first_t.get_or_insert(r.time_ns);
            }
            for i in old..self.pending.len() {
                let t = self.pending[i].time_ns;
                let n = i - self.spread_end;
                if n == 0 || t != self.tick_t || n >= MAX_TICK_REQUESTS {
                    self.spread_to(i);
                    self.tick_t = t;
                }
            }
        }
        let n = max.min(self.spread_end - self.head);
        buf.extend_from_slice(&self.pending[self.head..self.head + n]);
        self.head += n;
        Ok(n)
    }

    /// A sample: the kept requests of each tick, timed as in the whole
    /// stream, through `ready`.
    fn next_batch_sampled<E>(
        &mut self,
        buf: &mut Vec<Request>,
        max: usize,
        mut source: impl FnMut(&mut Vec<Request>, usize) -> Result<usize, E>,
    ) -> Result<usize, E> {
        let mut input = std::mem::take(&mut self.input);
        while self.ready.len() < max && !self.done {
            input.clear();
            if source(&mut input, max.max(1)).map(|n| n == 0)? {
                self.done = true;
                self.flush();
                break;
            }
            if let Some(r) = input.first() {
                self.first_t.get_or_insert(r.time_ns);
            }
            for r in input.drain(..) {
                if self.n == 0 || r.time_ns != self.tick_t || self.n >= MAX_TICK_REQUESTS as u64 {
                    self.flush();
                    self.tick_t = r.time_ns;
                }
                if let Some(s) = &self.sample
                    && (s.keep)(r.key)
                {
                    self.pending.push(r);
                    self.index.push(self.n as u32);
                }
                self.n += 1;
            }
        }
        self.input = input;
        let n = max.min(self.ready.len());
        buf.extend(self.ready.drain(..n));
        Ok(n)
    }
}

/// A synthetic clock: request i happens at `i / rate` seconds.
#[derive(Debug, Clone, Copy)]
pub struct Synthetic {
    per_request_ns: f64,
    next: u64,
}

impl Synthetic {
    /// A clock issuing `rate` requests per second (clamped into
    /// [`MIN_RATE`, `MAX_RATE`]; [`check_rate`] says when it would be).
    pub fn new(rate: f64) -> Self {
        let rate = if rate.is_nan() {
            MIN_RATE
        } else {
            rate.clamp(MIN_RATE, MAX_RATE)
        };
        Synthetic {
            per_request_ns: 1e9 / rate,
            next: 0,
        }
    }

    /// Stamp the requests in `batch` in order.
    pub fn stamp(&mut self, batch: &mut [Request]) {
        for r in batch {
            // At MIN_RATE this reaches u64::MAX only after 1.8e10 requests;
            // the cast saturates rather than wraps beyond that.
            r.time_ns = (self.next as f64 * self.per_request_ns) as u64;
            self.next += 1;
        }
    }
}

/// The slowest synthetic clock: one request a second.
pub const MIN_RATE: f64 = 1.0;
/// The fastest synthetic clock: one request a nanosecond (the model's unit;
/// faster would stamp several requests with the same instant).
pub const MAX_RATE: f64 = 1e9;

/// Why a request rate cannot drive a synthetic clock.
#[derive(Clone, Debug, PartialEq)]
pub struct RateError(pub f64);

impl fmt::Display for RateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "--rate {} is not a request rate the synthetic clock can use: give a number \
             of requests per second from {MIN_RATE} to {MAX_RATE:e}",
            self.0
        )
    }
}

impl std::error::Error for RateError {}

/// `rate` as a synthetic clock's requests per second: finite and within
/// [`MIN_RATE`]..=[`MAX_RATE`], so the clock can neither overflow nor stall.
pub fn check_rate(rate: f64) -> Result<f64, RateError> {
    if rate.is_finite() && (MIN_RATE..=MAX_RATE).contains(&rate) {
        Ok(rate)
    } else {
        Err(RateError(rate))
    }
}

/// How a trace format's requests are timed for the model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Clock {
    /// The trace's own clock, counting in `tick_ns` units: requests sharing
    /// a timestamp are spread evenly over the tick.
    Spread {
        /// The clock's resolution.
        tick_ns: u64,
    },
    /// No clock in the trace: request i happens at i / `rate` seconds.
    Synthetic {
        /// Requests per second.
        rate: f64,
    },
}

impl Clock {
    /// The clock for `format`: whole seconds (oracleGeneral, lcs, csv),
    /// microseconds (vscsi), nanoseconds kept as they are (arct), or `rate`
    /// requests per second for the formats without a clock (txt, lis).
    /// `rate` is checked with [`check_rate`].
    pub fn for_format(format: Format, rate: f64) -> Result<Clock, RateError> {
        let rate = check_rate(rate)?;
        Ok(match format {
            Format::Txt | Format::Lis => Clock::Synthetic { rate },
            Format::Vscsi => Clock::Spread { tick_ns: 1_000 },
            // Nanosecond stamps: a one-nanosecond tick moves no request.
            Format::Arct => Clock::Spread { tick_ns: 1 },
            Format::OracleGeneral | Format::Lcs | Format::Csv => Clock::Spread {
                tick_ns: 1_000_000_000,
            },
        })
    }

    /// One line for a report header.
    pub fn describe(&self) -> String {
        match self {
            Clock::Synthetic { rate } => {
                format!("synthetic, {rate} requests/s (the trace has no clock)")
            }
            Clock::Spread { tick_ns: 1 } => "trace clock in nanoseconds, times kept".to_string(),
            Clock::Spread { tick_ns } => format!(
                "trace clock; requests sharing a timestamp spread evenly over its {}",
                if *tick_ns == 1_000 {
                    "microsecond"
                } else {
                    "second"
                }
            ),
        }
    }
}

/// A trace read through its [`Clock`], time relative to its first request.
#[derive(Debug)]
pub struct Clocked {
    reader: TraceReader,
    spread: Option<TickSpreader>,
    synthetic: Option<Synthetic>,
    first_ns: Option<u64>,
    /// The sample of a clock without a spreader (with one, it holds it).
    sample: Option<Sample>,
}

impl Clocked {
    /// Read `reader` on `clock`.
    pub fn new(reader: TraceReader, clock: Clock) -> Self {
        let (spread, synthetic) = match clock {
            Clock::Spread { tick_ns } => (Some(TickSpreader::new(tick_ns)), None),
            Clock::Synthetic { rate } => (None, Some(Synthetic::new(rate))),
        };
        Clocked {
            reader,
            spread,
            synthetic,
            first_ns: None,
            sample: None,
        }
    }

    /// From now on, hand out only the requests whose key `keep` keeps (a
    /// spatial sample), timed exactly as when every request is read: the
    /// clock still spreads each tick over all of its requests. The whole
    /// stream is still counted, [`sampled_counts`](Self::sampled_counts).
    /// Dropping requests here, before they are spread and copied, is what
    /// makes a sampled replay of a large trace cheap. Call it before the
    /// first batch.
    pub fn sample(&mut self, keep: Box<dyn Fn(u64) -> bool + Send>, count_from_ns: u64) {
        let s = Sample {
            keep,
            from_ns: count_from_ns,
            counted: 0,
            last_ns: 0,
        };
        match &mut self.spread {
            Some(sp) => sp.sample = Some(s),
            None => self.sample = Some(s),
        }
    }

    /// With [`sample`](Self::sample): the requests of the whole stream read
    /// so far at or after its `count_from_ns`, and the latest time of any
    /// (relative to the first request).
    pub fn sampled_counts(&self) -> Option<(u64, u64)> {
        let s = match &self.spread {
            Some(sp) => sp.sample.as_ref(),
            None => self.sample.as_ref(),
        }?;
        Some((s.counted, s.last_ns))
    }

    /// The reader underneath (format, progress).
    pub fn reader(&self) -> &TraceReader {
        &self.reader
    }

    /// Append up to `max` timed requests to `buf`; 0 at the end of the trace.
    /// Times are nanoseconds since the first request (a request stamped
    /// before the first one is taken as happening at 0).
    pub fn next_batch(&mut self, buf: &mut Vec<Request>, max: usize) -> Result<usize, TraceError> {
        let start = buf.len();
        let reader = &mut self.reader;
        loop {
            let n = match (&mut self.spread, &mut self.synthetic) {
                (Some(sp), _) => {
                    let n = sp.next_batch(buf, max, |b, m| reader.read_batch(b, m))?;
                    if sp.sample.is_some() {
                        // Sampled: the first request read sets the origin,
                        // whether it was kept or not.
                        self.first_ns = sp.first_t;
                    }
                    n
                }
                (None, Some(syn)) => {
                    let n = reader.read_batch(buf, max)?;
                    syn.stamp(&mut buf[start..]);
                    n
                }
                (None, None) => reader.read_batch(buf, max)?,
            };
            if let Some(first) = buf.get(start) {
                let base = *self.first_ns.get_or_insert(first.time_ns);
                for r in &mut buf[start..] {
                    r.time_ns = r.time_ns.saturating_sub(base);
                }
            }
            let Some(s) = &mut self.sample else {
                return Ok(n);
            };
            // A sample of a clock without a spreader: count, then drop.
            if n == 0 {
                return Ok(0);
            }
            let mut kept = start;
            for i in start..buf.len() {
                let r = buf[i];
                s.count(r.time_ns);
                if (s.keep)(r.key) {
                    buf[kept] = r;
                    kept += 1;
                }
            }
            buf.truncate(kept);
            // An empty batch would end the replay: read on.
            if kept > start {
                return Ok(kept - start);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(reqs: Vec<Request>) -> impl FnMut(&mut Vec<Request>, usize) -> Result<usize, ()> {
        let mut pos = 0;
        move |buf, max| {
            let end = (pos + max.min(3)).min(reqs.len());
            buf.extend_from_slice(&reqs[pos..end]);
            let n = end - pos;
            pos = end;
            Ok(n)
        }
    }

    #[test]
    fn equal_seconds_are_spread_across_the_second() {
        let s = 1_000_000_000;
        let reqs: Vec<Request> = [0, 0, 0, 0, 1, 3, 3]
            .iter()
            .enumerate()
            .map(|(i, &t)| Request::read(t * s, i as u64, 1))
            .collect();
        let mut sp = TickSpreader::new(s);
        let mut src = source(reqs);
        let mut out = Vec::new();
        while sp.next_batch(&mut out, 2, &mut src).unwrap() > 0 {}
        let times: Vec<u64> = out.iter().map(|r| r.time_ns).collect();
        // Four requests in second 0: 0, 1/4, 2/4, 3/4 s; one in second 1;
        // two in second 3: 3 s and 3.5 s.
        assert_eq!(times, [0, s / 4, s / 2, 3 * s / 4, s, 3 * s, 3 * s + s / 2]);
        let keys: Vec<u64> = out.iter().map(|r| r.key).collect();
        assert_eq!(keys, [0, 1, 2, 3, 4, 5, 6], "order is kept");
    }

    /// The unsampled spreader's output (times made relative to the first
    /// request, as [`Clocked`] does) and the sampled one's.
    fn spread_both(
        reqs: &[Request],
        tick: u64,
        keep: fn(u64) -> bool,
        from_ns: u64,
    ) -> (Vec<Request>, Vec<Request>, (u64, u64)) {
        let run = |sample: Option<Sample>| {
            let mut sp = TickSpreader::new(tick);
            sp.sample = sample;
            let mut src = source(reqs.to_vec());
            let mut out = Vec::new();
            while sp.next_batch(&mut out, 5, &mut src).unwrap() > 0 {}
            let base = reqs.first().map_or(0, |r| r.time_ns);
            for r in &mut out {
                r.time_ns = r.time_ns.saturating_sub(base);
            }
            let s = sp.sample.map(|s| (s.counted, s.last_ns));
            (out, s)
        };
        let (all, _) = run(None);
        let sample = Sample {
            keep: Box::new(keep),
            from_ns,
            counted: 0,
            last_ns: 0,
        };
        let (kept, counts) = run(Some(sample));
        (all, kept, counts.unwrap())
    }

    #[test]
    fn a_sample_is_timed_as_in_the_whole_stream_and_counts_it() {
        let s = 1_000_000_000u64;
        // Ticks of 1 to 7 requests, a step back in time (5 s, then 2 s:
        // stamped before the first, so at 0) and a long tick.
        let secs = [5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 2, 2, 7, 9, 9, 9]
            .into_iter()
            .chain(std::iter::repeat_n(12, 40));
        let reqs: Vec<Request> = secs
            .enumerate()
            .map(|(i, t)| Request::read(t * s, i as u64 * 7919 % 61, 1))
            .collect();
        let keep: fn(u64) -> bool = |k| k % 3 == 1;
        for from in [0, s / 2, 1_500_000_000, 4 * s, 7 * s + 1, 99 * s] {
            let (all, kept, (counted, last)) = spread_both(&reqs, s, keep, from);
            let want: Vec<Request> = all.iter().copied().filter(|r| keep(r.key)).collect();
            assert_eq!(kept, want, "from {from}");
            assert!(!kept.is_empty() && kept.len() < all.len());
            let n = all.iter().filter(|r| r.time_ns >= from).count() as u64;
            assert_eq!(counted, n, "from {from}");
            assert_eq!(last, all.iter().map(|r| r.time_ns).max().unwrap());
        }
        // A tick longer than MAX_TICK_REQUESTS continues in the next chunk.
        let long = vec![Request::read(3 * s, 4, 1); MAX_TICK_REQUESTS + 3];
        let long: Vec<Request> = long
            .into_iter()
            .enumerate()
            .map(|(i, r)| Request { key: i as u64, ..r })
            .collect();
        let (all, kept, (counted, _)) = spread_both(&long, s, |k| k % 1000 == 0, s / 3);
        let want: Vec<Request> = all.iter().copied().filter(|r| r.key % 1000 == 0).collect();
        assert_eq!(kept, want);
        assert_eq!(
            counted,
            all.iter().filter(|r| r.time_ns >= s / 3).count() as u64
        );
        let tail: Vec<u64> = all[MAX_TICK_REQUESTS..].iter().map(|r| r.time_ns).collect();
        assert_eq!(
            tail,
            [0, s / 3, 2 * s / 3],
            "the second chunk spreads over the tick again"
        );
    }

    /// The whole stream's spreader against its rule written out: each run of
    /// equal stamps gets `t + ⌊i·tick/n⌋`, in order, whatever the batch
    /// sizes of the source and of the caller.
    #[test]
    fn the_whole_stream_is_spread_by_the_rule_at_any_batch_size() {
        let s = 1_000_000_000u64;
        // Ticks of 1 to 64 requests; the clock steps 1 to 4 s forward, and
        // back once.
        let (mut x, mut t) = (12_345u64, 10u64);
        let mut reqs = Vec::new();
        for tick in 0..200 {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            for _ in 0..1 + (x >> 58) {
                reqs.push(Request::read(t * s, reqs.len() as u64, 1));
            }
            t = if tick == 100 { 3 } else { t + 1 + (x >> 62) };
        }
        let mut want = Vec::new();
        for run in reqs.chunk_by(|a, b| a.time_ns == b.time_ns) {
            let n = run.len() as u64;
            want.extend(run.iter().zip(0..).map(|(r, i)| Request {
                time_ns: r.time_ns + i * s / n,
                ..*r
            }));
        }
        for (chunk, max) in [(1, 1), (3, 2), (7, 5), (1000, 64), (1, 1000)] {
            let mut sp = TickSpreader::new(s);
            let mut pos = 0;
            let mut src = |b: &mut Vec<Request>, m: usize| -> Result<usize, ()> {
                let end = (pos + m.min(chunk)).min(reqs.len());
                b.extend_from_slice(&reqs[pos..end]);
                let n = end - pos;
                pos = end;
                Ok(n)
            };
            let mut out = Vec::new();
            loop {
                let before = out.len();
                let n = sp.next_batch(&mut out, max, &mut src).unwrap();
                assert!(n <= max && out.len() - before == n);
                if n == 0 {
                    break;
                }
            }
            assert_eq!(out, want, "source chunks {chunk}, batches {max}");
        }
    }

    #[test]
    fn rates_outside_the_bounds_are_refused() {
        for bad in [0.0, -1.0, 1e-300, 0.5, 2e9, f64::NAN, f64::INFINITY] {
            let e = check_rate(bad).unwrap_err().to_string();
            assert!(e.contains("--rate"), "{e}");
        }
        assert_eq!(check_rate(10_000.0), Ok(10_000.0));
        assert!(Clock::for_format(Format::Lis, 1e-300).is_err());
        assert_eq!(
            Clock::for_format(Format::Lis, 5.0),
            Ok(Clock::Synthetic { rate: 5.0 })
        );
        assert_eq!(
            Clock::for_format(Format::Vscsi, 5.0),
            Ok(Clock::Spread { tick_ns: 1_000 })
        );
    }

    #[test]
    fn synthetic_clock_counts_requests() {
        let mut c = Synthetic::new(4.0);
        let mut b = vec![Request::read(99, 1, 1); 5];
        c.stamp(&mut b);
        let t: Vec<u64> = b.iter().map(|r| r.time_ns).collect();
        assert_eq!(t, [0, 250_000_000, 500_000_000, 750_000_000, 1_000_000_000]);
    }
}
