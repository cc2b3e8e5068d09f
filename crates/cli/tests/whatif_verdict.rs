//! The whatif verdict says what the rows say: every number in its sentences
//! is parsed back out of the text and compared with the JSON rows of the same
//! run, its words agree with the direction of the numbers ("falls" when the
//! hit ratio fell, "and" rather than "but" between a falling hit ratio and
//! rising misses), the disk busy figure is rounded as in the table, and
//! `--verdict-for` makes it discuss the cap asked for, marked in the table.

mod common;

use common::{fails, json, ok};
use serde_json::Value;

const GIB: f64 = (1u64 << 30) as f64;

fn f(row: &Value, key: &str) -> f64 {
    row[key]
        .as_f64()
        .unwrap_or_else(|| panic!("{key} is not a number in {row}"))
}

/// The leading number of `s` (`12.02` in `12.02 GiB to …`) and the rest.
fn number(s: &str) -> (f64, &str) {
    let end = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let v = s[..end]
        .parse()
        .unwrap_or_else(|_| panic!("no number at the start of {s:?}"));
    (v, &s[end..])
}

/// A size as the verdict prints it (`12.02 GiB`, `520.78 MiB`) in bytes,
/// with the half-unit of its last decimal (the rounding it may carry).
fn size(s: &str) -> (f64, f64, &str) {
    let (v, rest) = number(s);
    let rest = rest.trim_start();
    for (unit, mult) in [
        ("TiB", GIB * 1024.0),
        ("GiB", GIB),
        ("MiB", GIB / 1024.0),
        ("KiB", 1024.0),
        ("B", 1.0),
    ] {
        if let Some(r) = rest.strip_prefix(unit) {
            return (v * mult, 0.005 * mult + 1.0, r);
        }
    }
    panic!("no size unit in {s:?}")
}

/// A rate as the verdict prints it (`236`, `4.2`, `3.1 k`).
fn rate(s: &str) -> (f64, f64) {
    let (v, rest) = number(s);
    if rest.trim_start().starts_with('k') {
        (v * 1e3, 50.0)
    } else {
        (v, 0.5)
    }
}

/// The text after `marker` in `s`, which must contain it.
fn after<'a>(s: &'a str, marker: &str) -> &'a str {
    let i = s
        .find(marker)
        .unwrap_or_else(|| panic!("{marker:?} not in the verdict: {s}"));
    &s[i + marker.len()..]
}

fn close(what: &str, said: f64, tol: f64, row: f64) {
    assert!(
        (said - row).abs() <= tol,
        "{what}: the verdict says {said}, the row has {row}"
    );
}

/// The row whose c_max the verdict names (`at 12.00 GiB`).
fn row_of(rows: &[Value], bytes: f64, tol: f64) -> &Value {
    rows.iter()
        .find(|r| (f(r, "c_max_bytes") - bytes).abs() <= tol)
        .unwrap_or_else(|| panic!("no row has a c_max of {bytes} bytes"))
}

/// `… busy 7.1 % of the time`: the percentage after "busy ".
fn busy(s: &str) -> (f64, String) {
    let (v, _) = number(after(s, "busy "));
    let text = after(s, "busy ").split(" of the time").next().unwrap();
    (v, text.to_string())
}

/// The human table's line for `cap` (`default` shows its c_max: `default (30.24 GiB)`).
fn table_line<'a>(text: &'a str, cap: &str) -> &'a str {
    text.lines()
        .find(|l| {
            l.split("  ").map(str::trim).any(|c| {
                let c = c.strip_prefix("* ").unwrap_or(c);
                c == cap || c.starts_with(&format!("{cap} ("))
            })
        })
        .unwrap_or_else(|| panic!("no table line for {cap} in\n{text}"))
}

#[test]
fn default_verdict_states_the_rows_numbers() {
    let (v, text) = std::thread::scope(|s| {
        let j = s.spawn(|| json(&["whatif", "--json"]));
        let t = s.spawn(|| ok(&["whatif"]));
        (j.join().unwrap(), t.join().unwrap())
    });
    let rows = v["rows"].as_array().unwrap();
    let verdict = v["verdict"].as_str().unwrap();
    eprintln!("{verdict}");
    let base = &rows[0];
    assert_eq!(base["cap"], "default");

    // "Capping zfs_arc_max at C lowers the ARC's peak from A to B (its mean from M0 to M1)."
    let (cap, tol, _) = size(after(verdict, "Capping zfs_arc_max at "));
    let row = row_of(rows, cap, tol);
    assert_eq!(
        v["verdict_cap"], row["cap"],
        "the cap discussed is the one JSON names"
    );
    let s = after(verdict, "lowers the ARC's peak from ");
    let (a, tol, s) = size(s);
    close("peak uncapped", a, tol, f(base, "peak_size_bytes"));
    let (b, tol, s) = size(after(s, " to "));
    close("peak capped", b, tol, f(row, "peak_size_bytes"));
    let (m0, tol, s) = size(after(s, "its mean from "));
    close("mean uncapped", m0, tol, f(base, "mean_size_bytes"));
    let (m1, tol, _) = size(after(s, " to "));
    close("mean capped", m1, tol, f(row, "mean_size_bytes"));

    // "it gives back up to G within S s (uncapped: G0 in S0 s)"
    let s = after(verdict, "gives back up to ");
    let (g, tol, s) = size(s);
    close("given back", g, tol, f(row, "giveback_bytes"));
    let (sec, s) = number(after(s, "within "));
    close("within", sec, 0.05, f(row, "giveback_seconds"));
    let (g0, tol, s) = size(after(s, "(uncapped: "));
    close("given back uncapped", g0, tol, f(base, "giveback_bytes"));
    let (sec0, _) = number(after(s, " in "));
    close("within uncapped", sec0, 0.05, f(base, "giveback_seconds"));
    let deficits = [
        f(base, "pressure_deficit_byte_seconds"),
        f(row, "pressure_deficit_byte_seconds"),
    ];
    assert_eq!(
        verdict.contains("never short of memory"),
        deficits == [0.0, 0.0],
        "{deficits:?}"
    );

    // "the hit ratio falls from P % to Q % and misses rise M× to R/s"
    let (h0, h1) = (f(base, "hit_ratio") * 100.0, f(row, "hit_ratio") * 100.0);
    let s = after(verdict, "the hit ratio ");
    let s = if let Some(rest) = s.strip_prefix("stays at ") {
        let (p, _) = number(rest);
        close("hit ratio (stays)", p, 0.005, h1);
        close("hit ratio (stays), uncapped", p, 0.005, h0);
        rest
    } else {
        let fell = s.starts_with("falls from ");
        assert!(fell || s.starts_with("rises from "), "{s}");
        assert_eq!(fell, h1 < h0, "the word says which way: {h0} → {h1}");
        let (p, rest) = number(after(s, "from "));
        close("hit ratio uncapped", p, 0.005, h0);
        let (q, rest) = number(after(rest, "to "));
        close("hit ratio capped", q, 0.005, h1);
        // Misses rising is the same news as a falling hit ratio: not "but".
        if fell {
            assert!(rest.starts_with(" % and demand misses"), "{rest}");
        }
        rest
    };
    if let Some(rest) = s.split_once("misses rise ").map(|x| x.1) {
        let (m, rest) = number(rest);
        let mult = f(row, "miss_multiplier");
        close("× default", m, if mult >= 10.0 { 0.5 } else { 0.05 }, mult);
        let (r, tol) = rate(after(rest, "× to "));
        close("misses/s", r, tol, f(row, "misses_per_sec"));
    }
    // "which with the prefetcher's reads, D disk reads/s in all, keeps …":
    // said exactly when the disk reads print differently from the misses.
    let disk = f(row, "disk_reads_per_sec");
    let sentence = s.split(". ").next().unwrap();
    match sentence.split_once("with the prefetcher's reads, ") {
        Some((_, rest)) => {
            let (d, tol) = rate(rest);
            close("disk reads/s", d, tol, disk);
            assert!(disk > f(row, "misses_per_sec"), "{row}");
        }
        None => assert!(
            (disk - f(row, "misses_per_sec")).abs() < 0.5,
            "prefetch reads not said: {sentence}"
        ),
    }
    // "busy X % of the time (uncapped: U %)": the table's rounding.
    let (x, said) = busy(s);
    close("disk busy", x, 0.05, f(row, "disk_busy_ratio") * 100.0);
    let line = table_line(&text, row["cap"].as_str().unwrap());
    assert!(
        line.contains(&format!("  {said}")),
        "the table says the same {said}: {line}"
    );
    assert!(
        line.trim_start().starts_with("* "),
        "the verdict's row is marked: {line}"
    );
    let (u, _) = number(after(s, "(uncapped: "));
    close(
        "disk busy uncapped",
        u,
        0.05,
        f(base, "disk_busy_ratio") * 100.0,
    );

    // "At 4.00 GiB, misses rise 5.5× to 936/s, which keeps … busy 29.0 %"
    if let Some(s) = verdict.split_once(". At ").map(|x| x.1) {
        let (c, tol, s) = size(s);
        let small = row_of(rows, c, tol);
        let smallest = rows
            .iter()
            .map(|r| f(r, "c_max_bytes"))
            .fold(f64::MAX, f64::min);
        assert_eq!(f(small, "c_max_bytes"), smallest, "the smallest cap");
        let (m, s) = number(after(s, "misses rise "));
        let mult = f(small, "miss_multiplier");
        let tol = if mult >= 10.0 { 0.5 } else { 0.05 };
        close("× default (smallest)", m, tol, mult);
        let (r, tol) = rate(after(s, "× to "));
        close("misses/s (smallest)", r, tol, f(small, "misses_per_sec"));
        let (x, said) = busy(s);
        close(
            "disk busy (smallest)",
            x,
            0.05,
            f(small, "disk_busy_ratio") * 100.0,
        );
        let line = table_line(&text, small["cap"].as_str().unwrap());
        assert!(line.contains(&format!("  {said}")), "{said}: {line}");
    }

    // "A cap of X or more costs nothing here … the ARC never grew past P."
    if let Some(s) = verdict.split_once("A cap of ").map(|x| x.1) {
        let (c, tol, s) = size(s);
        let free = row_of(rows, c, tol);
        assert!(f(free, "miss_multiplier") < 1.1);
        assert!(f(free, "c_max_bytes") >= f(base, "peak_size_bytes"));
        let (p, tol, _) = size(after(s, "never grew past "));
        close("peak uncapped", p, tol, f(base, "peak_size_bytes"));
    }

    // The deficit column says its unit, zero included (docs/whatif.md: GiB·s).
    for r in rows {
        let line = table_line(&text, r["cap"].as_str().unwrap());
        assert!(line.trim_end().ends_with("GiB·s"), "{line}");
    }
}

#[test]
fn verdict_for_discusses_the_cap_asked_and_marks_it() {
    let fast = ["--sample-rate", "0.01", "--caps", "default,16G,8G,4G"];
    let v = json(&[&["whatif", "--json", "--verdict-for", "8192M"][..], &fast].concat());
    assert_eq!(v["verdict_cap"], "8G", "8192M is the 8G row");
    let verdict = v["verdict"].as_str().unwrap();
    assert!(
        verdict.starts_with("Capping zfs_arc_max at 8.00 GiB")
            || verdict.starts_with("A cap of 8.00 GiB"),
        "{verdict}"
    );
    let text = ok(&[&["whatif", "--verdict-for", "16G"][..], &fast].concat());
    assert!(
        table_line(&text, "16G").trim_start().starts_with("* 16G"),
        "{text}"
    );
    assert_eq!(text.matches("* ").count(), 1, "one row is marked:\n{text}");
    // The default row: the paragraph about the uncapped ARC.
    let v = json(&[&["whatif", "--json", "--verdict-for", "default"][..], &fast].concat());
    assert_eq!(v["verdict_cap"], "default");
    assert!(
        v["verdict"]
            .as_str()
            .unwrap()
            .starts_with("With zfs_arc_max at the default"),
        "{}",
        v["verdict"]
    );
    // A cap that was not run is a usage error naming the caps that were.
    let err = fails(&[&["whatif", "--verdict-for", "6G"][..], &fast].concat(), 2);
    assert!(err.contains("default, 16G, 8G, 4G"), "{err}");
    fails(&["whatif", "--verdict-for", "6X"], 2);
}
