//! The scenario's curves over time (the other processes' demand, the held
//! files): piecewise linear between time-ordered points, flat before the
//! first and after the last, and the [`Piece`] a replay keeps while its
//! clock stays inside.

use arclab_arc::units::round_bytes;

/// A piecewise-linear curve through `points` (time-ordered `(seconds,
/// value)`) at `t_ns`: flat before the first point and after the last; 0
/// without points.
pub(super) fn piecewise<P>(points: &[P], t_ns: u64, at: impl Fn(&P) -> (f64, u64)) -> u64 {
    let (_, _, from, to) = segment(points, t_ns, at);
    interpolate(from, to, t_ns)
}

/// The piece of [`piecewise`]'s curve in force at `t_ns`.
pub(super) fn piece<P>(points: &[P], t_ns: u64, at: impl Fn(&P) -> (f64, u64)) -> Piece {
    let (lo, hi, from, to) = segment(points, t_ns, at);
    Piece {
        lo_ns: first_ns_at(lo),
        hi_ns: first_ns_at(hi),
        from,
        to,
    }
}

/// The segment of the curve at `t_ns`: from `lo` to `hi` seconds, starting
/// at `from` and, if sloped, ending at `to`.
type Segment = (f64, f64, (f64, u64), Option<(f64, u64)>);

fn segment<P>(points: &[P], t_ns: u64, at: impl Fn(&P) -> (f64, u64)) -> Segment {
    let t = t_ns as f64 / 1e9;
    let Some(first) = points.first() else {
        return (f64::NEG_INFINITY, f64::INFINITY, (0.0, 0), None);
    };
    let i = points.partition_point(|p| at(p).0 <= t);
    if i == 0 {
        return (f64::NEG_INFINITY, at(first).0, (0.0, at(first).1), None);
    }
    let last = at(&points[i - 1]);
    if i == points.len() {
        return (last.0, f64::INFINITY, (0.0, last.1), None);
    }
    let next = at(&points[i]);
    // Between two points of the same value the curve is flat.
    let to = (next.1 != last.1).then_some(next);
    (last.0, next.0, last, to)
}

/// The value at `t_ns` of the line from `from` to `to` (`None`: flat).
#[inline]
fn interpolate(from: (f64, u64), to: Option<(f64, u64)>, t_ns: u64) -> u64 {
    let Some((tb, b)) = to else {
        return from.1;
    };
    let (ta, a) = from;
    let f = (t_ns as f64 / 1e9 - ta) / (tb - ta);
    round_bytes(a as f64 + (b as f64 - a as f64) * f)
}

/// One piece of a piecewise-linear curve ([`super::Scenario::demand_piece`]): a
/// replay keeps it while its clock stays inside, instead of searching the
/// curve's points at every request.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Piece {
    /// The first nanosecond in the piece: the least `t_ns` whose seconds
    /// (`t_ns as f64 / 1e9`) reach the piece's start.
    lo_ns: u64,
    /// The first nanosecond past the piece (`u64::MAX`: none).
    hi_ns: u64,
    from: (f64, u64),
    /// The far end of a sloped piece; `None`: flat at `from`'s value.
    to: Option<(f64, u64)>,
}

/// The least `t_ns` whose seconds, as the curve reads them (`t_ns as f64 /
/// 1e9`), are at least `secs`; `u64::MAX` when none is. Exact: the seconds
/// never decrease with `t_ns`, so a binary search finds the boundary.
fn first_ns_at(secs: f64) -> u64 {
    let reached = |t: u64| t as f64 / 1e9 >= secs;
    if !reached(u64::MAX) {
        return u64::MAX;
    }
    let (mut lo, mut hi) = (0u64, u64::MAX);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if reached(mid) { hi = mid } else { lo = mid + 1 }
    }
    lo
}

impl Piece {
    /// Whether the piece is the curve's at `t_ns`.
    #[inline]
    pub fn covers(&self, t_ns: u64) -> bool {
        self.lo_ns <= t_ns && t_ns < self.hi_ns
    }

    /// The nanoseconds over which the curve keeps one value: the whole
    /// piece if it is flat (also between two points of the same value),
    /// none if it is sloped.
    #[inline]
    pub fn constant_span(&self) -> std::ops::Range<u64> {
        let end = if self.to.is_none() {
            self.hi_ns
        } else {
            self.lo_ns
        };
        self.lo_ns..end
    }

    /// The curve's value at `t_ns` (within the piece).
    #[inline]
    pub fn value(&self, t_ns: u64) -> u64 {
        interpolate(self.from, self.to, t_ns)
    }
}
