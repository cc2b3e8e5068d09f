//! Logical time for traces whose clock is coarser than the model needs.
//!
//! oracleGeneral and lcs record whole seconds, while the ARC's promotion
//! window is about 62 ms: replaying every request of one second at the same
//! instant would make every re-reference inside that second look "too soon"
//! to promote. [`TickSpreader`] spreads the requests that share a timestamp
//! evenly across the tick that follows it: the i-th of n requests stamped
//! `t` gets `t + i·tick/n`. It looks ahead only as far as the next
//! timestamp, holding at most [`MAX_TICK_REQUESTS`] requests; a longer run of
//! equal timestamps is spread over its first chunk's tick and continues in
//! the next (documented in `docs/model.md`).
//!
//! Traces with no clock at all (plain text ids, the ARC paper's `.lis`) get
//! a synthetic one from a request rate instead: [`Synthetic`].

use arclab_arc::Request;
use std::collections::VecDeque;

/// The most requests held back while looking for the end of a tick.
pub const MAX_TICK_REQUESTS: usize = 1 << 20;

/// Spreads requests with equal timestamps evenly across a tick.
#[derive(Debug)]
pub struct TickSpreader {
    tick_ns: u64,
    pending: Vec<Request>,
    ready: VecDeque<Request>,
    done: bool,
}

impl TickSpreader {
    /// A spreader for a clock that counts in units of `tick_ns`.
    pub fn new(tick_ns: u64) -> Self {
        TickSpreader {
            tick_ns: tick_ns.max(1),
            pending: Vec::new(),
            ready: VecDeque::new(),
            done: false,
        }
    }

    fn flush(&mut self) {
        let n = self.pending.len() as u64;
        for (i, mut r) in self.pending.drain(..).enumerate() {
            r.time_ns += i as u64 * self.tick_ns / n;
            self.ready.push_back(r);
        }
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
        let mut input = Vec::with_capacity(max.min(1 << 16));
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
    /// A clock issuing `rate` requests per second.
    pub fn new(rate: f64) -> Self {
        Synthetic {
            per_request_ns: 1e9 / rate.max(1e-9),
            next: 0,
        }
    }

    /// Stamp the requests in `batch` in order.
    pub fn stamp(&mut self, batch: &mut [Request]) {
        for r in batch {
            r.time_ns = (self.next as f64 * self.per_request_ns) as u64;
            self.next += 1;
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

    #[test]
    fn synthetic_clock_counts_requests() {
        let mut c = Synthetic::new(4.0);
        let mut b = vec![Request::read(99, 1, 1); 5];
        c.stamp(&mut b);
        let t: Vec<u64> = b.iter().map(|r| r.time_ns).collect();
        assert_eq!(t, [0, 250_000_000, 500_000_000, 750_000_000, 1_000_000_000]);
    }
}
