//! Numbers in words, as the verdict (and the tables) print them.

/// `950`, `3.1 k`, `1.2 M`, `4.0 G` (one decimal above 1000).
pub fn si(v: f64) -> String {
    let (d, u) = if v >= 1e9 {
        (1e9, " G")
    } else if v >= 1e6 {
        (1e6, " M")
    } else if v >= 1e3 {
        (1e3, " k")
    } else {
        (1.0, " ")
    };
    format!("{:.1}{u}", v / d).trim_end().to_string()
}

/// A per-second rate: `4.2`, `290`, `3.1 k`.
pub fn rate(v: f64) -> String {
    if v < 10.0 {
        format!("{v:.1}")
    } else if v < 1000.0 {
        format!("{v:.0}")
    } else {
        si(v)
    }
}

/// `98.67 %` (two decimals: hit ratios live near 100 %).
pub fn percent(ratio: f64) -> String {
    format!("{:.2} %", ratio * 100.0)
}

/// `14×`, `1.0×`, `–` when there is nothing to compare with.
pub fn multiplier(m: Option<f64>) -> String {
    match m {
        Some(m) if m >= 10.0 => format!("{m:.0}×"),
        Some(m) => format!("{m:.1}×"),
        None => "–".to_string(),
    }
}

/// `12.3 s`, `850 ms`.
pub fn seconds(s: f64) -> String {
    if s == 0.0 {
        "0 s".to_string()
    } else if s < 1.0 {
        format!("{:.0} ms", s * 1000.0)
    } else {
        format!("{s:.1} s")
    }
}

/// Byte·seconds in GiB·s (`0 GiB·s` when none: the unit is always said).
pub fn gib_seconds(bs: f64) -> String {
    if bs <= 0.0 {
        "0 GiB·s".to_string()
    } else {
        format!("{:.1} GiB·s", bs / (1u64 << 30) as f64)
    }
}

/// A disk busy ratio as the table and the verdict both print it: `12.1 %`,
/// `<0.1 %` (above zero but below 0.1 %), `0.0 %`.
pub fn busy_percent(ratio: f64) -> String {
    if ratio > 0.0 && ratio < 0.001 {
        "<0.1 %".to_string()
    } else {
        format!("{:.1} %", ratio * 100.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words() {
        assert_eq!(si(25_300_000.0), "25.3 M");
        assert_eq!(si(12.0), "12.0");
        assert_eq!(rate(4.21), "4.2");
        assert_eq!(rate(290.4), "290");
        assert_eq!(rate(3_140.0), "3.1 k");
        assert_eq!(percent(0.98674), "98.67 %");
        assert_eq!(multiplier(Some(14.5)), "14×");
        assert_eq!(multiplier(Some(1.04)), "1.0×");
        assert_eq!(multiplier(None), "–");
        assert_eq!(seconds(0.85), "850 ms");
        assert_eq!(seconds(0.0), "0 s");
        assert_eq!(gib_seconds(3.0 * (1u64 << 30) as f64), "3.0 GiB·s");
        // docs/whatif.md promises GiB·s in the deficit column, zero included.
        assert_eq!(gib_seconds(0.0), "0 GiB·s");
        assert_eq!(busy_percent(0.121), "12.1 %");
        assert_eq!(busy_percent(0.0004), "<0.1 %");
        assert_eq!(busy_percent(0.0), "0.0 %");
    }
}
