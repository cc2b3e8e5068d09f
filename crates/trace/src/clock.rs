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
    pending: Vec<Request>,
    ready: VecDeque<Request>,
    /// The source's last batch (kept: a batch is up to 64 Ki requests).
    input: Vec<Request>,
    done: bool,
}

impl TickSpreader {
    /// A spreader for a clock that counts in units of `tick_ns`.
    pub fn new(tick_ns: u64) -> Self {
        TickSpreader {
            tick_ns: tick_ns.max(1),
            pending: Vec::new(),
            ready: VecDeque::new(),
            input: Vec::new(),
            done: false,
        }
    }

    fn flush(&mut self) {
        let n = self.pending.len() as u64;
        if n == 0 {
            return;
        }
        // The i-th of n gets ⌊i·tick/n⌋, stepped without a division each.
        let (step, rem) = (self.tick_ns / n, self.tick_ns % n);
        let (mut q, mut r) = (0u64, 0u64);
        self.ready.extend(self.pending.drain(..).map(|mut req| {
            req.time_ns += q;
            q += step;
            r += rem;
            if r >= n {
                q += 1;
                r -= n;
            }
            req
        }));
    }

    /// Pull from `source` (same contract as the replay engine's batch
    /// source: append up to `max`, return the count, 0 at the end) and
    /// append up to `max` spread requests to `buf`.
    pub fn next_batch<E>(
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
            for r in input.drain(..) {
                let same = self.pending.first().is_some_and(|p| p.time_ns == r.time_ns);
                if !same || self.pending.len() >= MAX_TICK_REQUESTS {
                    self.flush();
                }
                self.pending.push(r);
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
        }
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
        let n = match (&mut self.spread, &mut self.synthetic) {
            (Some(sp), _) => sp.next_batch(buf, max, |b, m| reader.read_batch(b, m))?,
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
        Ok(n)
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
