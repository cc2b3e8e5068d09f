//! Sizes as people write them: `8G`, `8GiB`, `512MiB`, `8589934592`, `0.1`.
//!
//! Every suffix is binary, the way ZFS tools, `modprobe.d` and FreeBSD's
//! `loader.conf` read them: `K` = `KiB` = 1024, `M` = `MiB` = 1024², `G` =
//! `GiB` = 1024³, `T` = `TiB` = 1024⁴. `KB`/`MB`/`GB`/`TB` are accepted as the
//! same binary multiples, since that is what the kernel tunables mean by them.
//!
//! Durations as people write them: `500ms`, `15s`, `5m`, `2h`, `1d`, `1w`,
//! `1.5h`, or plain seconds ([`parse_duration`]).

use std::fmt;

/// A size as given on the command line.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SizeSpec {
    /// An absolute amount: bytes in byte mode, objects in object mode.
    Absolute(u64),
    /// A fraction (0, 1] of the trace's working set.
    Fraction(f64),
}

/// Why a size could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SizeError {
    input: String,
    why: &'static str,
}

impl fmt::Display for SizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid size `{}`: {}", self.input, self.why)
    }
}

impl std::error::Error for SizeError {}

fn multiplier(suffix: &str) -> Option<u64> {
    let s = suffix.to_ascii_lowercase();
    let s = s
        .strip_suffix("ib")
        .or_else(|| s.strip_suffix('b'))
        .unwrap_or(&s);
    Some(match s {
        "" => 1,
        "k" => 1 << 10,
        "m" => 1 << 20,
        "g" => 1 << 30,
        "t" => 1 << 40,
        "p" => 1 << 50,
        _ => return None,
    })
}

/// Parse a byte count with an optional binary suffix (`8G`, `1.5GiB`, `4096`).
///
/// ```
/// use arclab_arc::units::parse_bytes;
/// assert_eq!(parse_bytes("8G").unwrap(), 8_589_934_592);
/// assert_eq!(parse_bytes("512MiB").unwrap(), 536_870_912);
/// assert_eq!(parse_bytes("31.24GiB").unwrap(), 33_543_694_582);
/// assert!(parse_bytes("8X").is_err());
/// ```
pub fn parse_bytes(input: &str) -> Result<u64, SizeError> {
    let err = |why| SizeError {
        input: input.to_string(),
        why,
    };
    let s = input.trim();
    if s.is_empty() {
        return Err(err("empty"));
    }
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '_'))
        .unwrap_or(s.len());
    let (num, suffix) = s.split_at(split);
    let num: String = num.chars().filter(|&c| c != '_').collect();
    if num.is_empty() {
        return Err(err("no number"));
    }
    let mult = multiplier(suffix.trim())
        .ok_or_else(|| err("unknown unit (use K, M, G, T, KiB, MiB, GiB, TiB; all binary)"))?;
    if num.contains('.') {
        let v: f64 = num.parse().map_err(|_| err("not a number"))?;
        let bytes = v * mult as f64;
        if !bytes.is_finite() || bytes >= u64::MAX as f64 {
            return Err(err("too large"));
        }
        Ok(bytes.round() as u64)
    } else {
        let v: u64 = num.parse().map_err(|_| err("not a number or too large"))?;
        v.checked_mul(mult).ok_or_else(|| err("too large"))
    }
}

impl std::str::FromStr for SizeSpec {
    type Err = SizeError;

    /// `0.1` (a number below or equal to 1 with a decimal point) is a fraction
    /// of the working set; anything else is an absolute size.
    ///
    /// ```
    /// use arclab_arc::units::SizeSpec;
    /// assert_eq!("0.1".parse::<SizeSpec>().unwrap(), SizeSpec::Fraction(0.1));
    /// assert_eq!("1000".parse::<SizeSpec>().unwrap(), SizeSpec::Absolute(1000));
    /// assert_eq!("1G".parse::<SizeSpec>().unwrap(), SizeSpec::Absolute(1 << 30));
    /// ```
    fn from_str(input: &str) -> Result<Self, Self::Err> {
        let s = input.trim();
        if s.contains('.') && s.chars().all(|c| c.is_ascii_digit() || c == '.') {
            let v: f64 = s.parse().map_err(|_| SizeError {
                input: input.to_string(),
                why: "not a number",
            })?;
            if v > 0.0 && v <= 1.0 {
                return Ok(SizeSpec::Fraction(v));
            }
        }
        let v = parse_bytes(s)?;
        if v == 0 {
            return Err(SizeError {
                input: input.to_string(),
                why: "a cache size must be above zero",
            });
        }
        Ok(SizeSpec::Absolute(v))
    }
}

/// Format a byte count with binary units, e.g. `1.50 GiB`, `512 B`.
///
/// ```
/// assert_eq!(arclab_arc::units::format_bytes(3 << 29), "1.50 GiB");
/// assert_eq!(arclab_arc::units::format_bytes(512), "512 B");
/// ```
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut v = bytes as f64;
    let mut i = 0;
    while v >= 1024.0 && i + 1 < UNITS.len() {
        v /= 1024.0;
        i += 1;
    }
    format!("{v:.2} {}", UNITS[i])
}

/// `x.round() as u64` (half away from zero, negatives and NaN to 0,
/// saturating at `u64::MAX`) without a call to libm's `round`, which the
/// compiler cannot inline on baseline x86-64: a replay scales a byte count
/// by the sampling rate at every request.
///
/// ```
/// use arclab_arc::units::round_bytes;
/// for x in [0.0, 0.49999999999999994, 0.5, 2.5, 1e15 + 0.5, -3.7, f64::NAN, 1e30] {
///     assert_eq!(round_bytes(x), x.round() as u64, "{x}");
/// }
/// ```
#[inline]
pub fn round_bytes(x: f64) -> u64 {
    // NaN and everything below 0 round to 0 or below: 0 after the cast.
    if x.is_nan() || x < 0.0 {
        return 0;
    }
    if x >= 18_446_744_073_709_551_616.0 {
        return u64::MAX;
    }
    // Below 2^53 both the truncation and the difference are exact; from
    // 2^53 on every double is a whole number and the difference is 0.
    let i = x as u64;
    if x - i as f64 >= 0.5 { i + 1 } else { i }
}

/// Format a size compactly the way it is typed: `128MiB`, `1GiB`, `1.5GiB`,
/// or the plain number when it is not a whole multiple of 1 KiB.
///
/// ```
/// assert_eq!(arclab_arc::units::format_size_compact(128 << 20), "128MiB");
/// assert_eq!(arclab_arc::units::format_size_compact(1000), "1000");
/// ```
pub fn format_size_compact(bytes: u64) -> String {
    for (shift, unit) in [(40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")] {
        let m = 1u64 << shift;
        if bytes >= m && bytes.is_multiple_of(m) {
            return format!("{}{unit}", bytes / m);
        }
    }
    bytes.to_string()
}

/// The longest duration [`parse_duration`] accepts: 100 years (of 365.25
/// days). Anything longer is a typo or an attack on a loop bound.
pub const MAX_DURATION_SECS: f64 = 100.0 * 365.25 * 86_400.0;

/// Why a duration could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DurationError {
    input: String,
    why: &'static str,
}

impl fmt::Display for DurationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid duration `{}`: {}", self.input, self.why)
    }
}

impl std::error::Error for DurationError {}

/// Parse a duration: `500ms`, `15s`, `5m`, `2h`, `1d`, `1w` (fractions
/// allowed: `1.5h`), or plain seconds. It must be above zero, finite and at
/// most [`MAX_DURATION_SECS`] (100 years).
///
/// ```
/// use arclab_arc::units::parse_duration;
/// use std::time::Duration;
/// assert_eq!(parse_duration("5m").unwrap(), Duration::from_secs(300));
/// assert_eq!(parse_duration("500ms").unwrap(), Duration::from_millis(500));
/// assert_eq!(parse_duration("1.5").unwrap(), Duration::from_millis(1500));
/// assert!(parse_duration("1e20").unwrap_err().to_string().contains("at most 100 years"));
/// ```
pub fn parse_duration(input: &str) -> Result<std::time::Duration, DurationError> {
    let err = |why| DurationError {
        input: input.to_string(),
        why,
    };
    let t = input.trim();
    if t.is_empty() {
        return Err(err("empty"));
    }
    const UNITS: [(&str, f64); 6] = [
        ("ms", 0.001),
        ("s", 1.0),
        ("m", 60.0),
        ("h", 3600.0),
        ("d", 86_400.0),
        ("w", 604_800.0),
    ];
    let (num, mult) = UNITS
        .iter()
        .find_map(|(u, m)| t.strip_suffix(u).map(|n| (n.trim_end(), *m)))
        .unwrap_or((t, 1.0));
    // Only digits, one point and an exponent: no `inf`, `nan` or `0x…`.
    if num.is_empty()
        || !num
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'))
        || !num.starts_with(|c: char| c.is_ascii_digit() || matches!(c, '.' | '-' | '+'))
    {
        return Err(err("use 500ms, 15s, 5m, 2h, 1d, 1w or seconds"));
    }
    let v: f64 = num
        .parse()
        .map_err(|_| err("use 500ms, 15s, 5m, 2h, 1d, 1w or seconds"))?;
    let secs = v * mult;
    if !secs.is_finite() {
        return Err(err("not a finite number"));
    }
    if secs <= 0.0 {
        return Err(err("must be above zero"));
    }
    if secs > MAX_DURATION_SECS {
        return Err(err("must be at most 100 years"));
    }
    Ok(std::time::Duration::from_secs_f64(secs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffixes_are_binary() {
        for (s, v) in [
            ("1K", 1024u64),
            ("1k", 1024),
            ("1KB", 1024),
            ("1KiB", 1024),
            ("64MiB", 64 << 20),
            ("6144M", 6144 << 20),
            ("1G", 1 << 30),
            ("2T", 2 << 40),
            ("4096", 4096),
            ("1_000", 1000),
            (" 8G ", 8 << 30),
        ] {
            assert_eq!(parse_bytes(s).unwrap(), v, "{s}");
        }
    }

    #[test]
    fn bad_sizes_are_rejected_with_the_input_named() {
        for s in [
            "",
            "G",
            "8X",
            "1.2.3G",
            "-5",
            "99999999999999999999",
            "20000000P",
        ] {
            let e = parse_bytes(s).unwrap_err();
            assert!(e.to_string().contains(&format!("`{s}`")), "{e}");
        }
        assert!("0".parse::<SizeSpec>().is_err());
    }

    #[test]
    fn fractions_only_up_to_one() {
        assert_eq!("1.0".parse::<SizeSpec>().unwrap(), SizeSpec::Fraction(1.0));
        assert_eq!("0.5".parse::<SizeSpec>().unwrap(), SizeSpec::Fraction(0.5));
        // 1.5 with no unit is 2 bytes/objects after rounding, not a fraction.
        assert_eq!("1.5".parse::<SizeSpec>().unwrap(), SizeSpec::Absolute(2));
        assert_eq!("1".parse::<SizeSpec>().unwrap(), SizeSpec::Absolute(1));
    }

    #[test]
    fn formatting() {
        assert_eq!(format_bytes(0), "0 B");
        assert_eq!(format_bytes(1 << 30), "1.00 GiB");
        assert_eq!(format_size_compact(3 << 29), "1536MiB");
        assert_eq!(format_size_compact(1 << 30), "1GiB");
    }

    #[test]
    fn durations() {
        use std::time::Duration;
        for (s, ms) in [
            ("500ms", 500u64),
            ("15s", 15_000),
            ("5m", 300_000),
            ("2h", 7_200_000),
            ("1d", 86_400_000),
            ("1w", 604_800_000),
            ("1.5h", 5_400_000),
            ("90", 90_000),
            (" 10 s ", 10_000),
            ("1e3", 1_000_000),
        ] {
            assert_eq!(parse_duration(s).unwrap(), Duration::from_millis(ms), "{s}");
        }
        // 100 years of 365.25 days is the bound; just above it is refused.
        assert!(parse_duration("5200w").is_ok());
        assert!(parse_duration("36525d").is_ok());
        for (s, why) in [
            ("", "empty"),
            ("0s", "above zero"),
            ("-5m", "above zero"),
            ("5y", "use 500ms"),
            ("inf", "use 500ms"),
            ("NaN", "use 500ms"),
            ("1e400", "not a finite number"),
            ("1e20", "at most 100 years"),
            ("36526d", "at most 100 years"),
            ("m", "use 500ms"),
            ("0x10", "use 500ms"),
        ] {
            let e = parse_duration(s).unwrap_err().to_string();
            assert!(e.contains(&format!("`{s}`")) && e.contains(why), "{s}: {e}");
        }
    }

    proptest::proptest! {
        /// `round_bytes` is `f64::round` then the saturating cast, over every
        /// bit pattern (negatives, NaN, infinities, subnormals, halves).
        #[test]
        fn round_bytes_is_round_then_cast(bits in proptest::prelude::any::<u64>(), small in 0u64..1 << 40) {
            let x = f64::from_bits(bits);
            proptest::prop_assert_eq!(round_bytes(x), x.round() as u64);
            // Halves and near-halves of byte counts, where rounding turns.
            for y in [small as f64 + 0.5, small as f64 * 0.01, (small as f64 + 0.5).next_down(), (small as f64 + 0.5).next_up()] {
                proptest::prop_assert_eq!(round_bytes(y), y.round() as u64, "{}", y);
            }
        }
    }
}
