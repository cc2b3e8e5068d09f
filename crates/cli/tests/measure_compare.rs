//! `arclab compare` on files: the blog's numbers, output formats, plots and
//! reports, and bad input (clear errors, exit 1 or 2, outputs left intact).

mod measure_support;

use measure_support::{blog_export, fails, json, ok, write_export};

const BEFORE: &str = "2025-09-11..2025-09-21";
const AFTER: &str = "2025-09-22..2025-10-02";

#[test]
fn the_blog_numbers_come_back_in_text_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let f = blog_export(dir.path());
    let f = f.to_str().unwrap();
    let text = ok(&["compare", f, "--before", BEFORE, "--after", AFTER]);
    let line = |start: &str| {
        text.lines()
            .find(|l| l.starts_with(start))
            .unwrap_or_else(|| panic!("{start}: {text}"))
            .to_string()
    };
    let hr = line("hit ratio");
    assert!(hr.contains("99.91%") && hr.contains("98.67%"), "{hr}");
    assert!(line("hits/s").contains("~ (p="), "{text}");
    let m = line("misses/s");
    assert!(
        m.contains("20.00") && m.contains("297.00") && m.contains("+1385.00%"),
        "{m}"
    );
    assert!(line("miss multiplier").contains("14.85×"));
    let peak = line("ARC size, peak");
    assert!(
        peak.contains("15.00 GiB") && peak.contains("11.00 GiB") && peak.contains("-4.00 GiB"),
        "{peak}"
    );
    assert!(line("ARC size, median").contains("8.40 GiB"));
    assert!(
        text.contains("uncertainty: batch means: 10 equal batches per window (1d each"),
        "{text}"
    );
    assert!(
        text.contains("change  zfs_arc_max=8G at 2025-09-21T14:00:00Z"),
        "{text}"
    );
    let j = json(&["compare", f, "--before", BEFORE, "--after", AFTER, "--json"]);
    let d = &j["derived"];
    assert_eq!(
        format!("{:.4}", d["hit_ratio"]["after"].as_f64().unwrap()),
        "0.9867"
    );
    assert_eq!(
        format!("{:.2}", d["misses_per_sec"]["before"].as_f64().unwrap()),
        "20.00"
    );
    assert_eq!(
        format!("{:.2}", d["misses_per_sec"]["after"].as_f64().unwrap()),
        "297.00"
    );
    assert_eq!(
        format!("{:.0}", d["hits_per_sec"]["after"].as_f64().unwrap()),
        "22000"
    );
    assert_eq!(
        format!("{:.2}", d["miss_multiplier"].as_f64().unwrap()),
        "14.85"
    );
    assert!(j["series"].as_array().unwrap().len() >= 13);
    assert!(j["method"].as_str().unwrap().starts_with("batch means"));
}

#[test]
fn around_a_recorded_change_and_other_formats() {
    let dir = tempfile::tempdir().unwrap();
    let f = blog_export(dir.path());
    let f = f.to_str().unwrap();
    let j = json(&[
        "compare",
        f,
        "--around",
        "zfs_arc_max=8G",
        "--days",
        "9",
        "--skip",
        "1d",
        "--json",
    ]);
    assert_eq!(j["change"]["what"], "zfs_arc_max=8G");
    assert!((j["derived"]["miss_multiplier"].as_f64().unwrap() - 14.85).abs() < 0.2);
    let csv = ok(&[
        "compare",
        f,
        "--before",
        BEFORE,
        "--after",
        AFTER,
        "--csv",
        "--metrics",
        "arc",
    ]);
    assert!(
        csv.starts_with("section,metric,instance,labels,kind,stat,before,after,ratio,ci95,p\n")
    );
    assert!(csv.contains("derived,hit_ratio,nas:9100,"));
    let md = ok(&[
        "compare",
        f,
        "--before",
        BEFORE,
        "--after",
        AFTER,
        "--markdown",
        "--metrics",
        "node_zfs_arc_hits,node_zfs_arc_misses",
    ]);
    assert!(md.contains("| hit ratio | 99.91% | 98.67% |"), "{md}");
    assert!(!md.contains("node_zfs_arc_size"));
    // A gauge forced to be a counter, and a metric that is not the ARC's.
    let j = json(&[
        "compare",
        f,
        "--before",
        BEFORE,
        "--after",
        AFTER,
        "--json",
        "--metrics",
        "node_zfs_arc_c_max",
        "--counter",
        "node_zfs_arc_c_max",
    ]);
    assert_eq!(j["series"][0]["kind"], "counter");
    assert_eq!(j["series"][0]["kind_source"], "override");
}

#[test]
fn plots_and_reports() {
    let dir = tempfile::tempdir().unwrap();
    let f = blog_export(dir.path());
    let (png, svg, html) = (
        dir.path().join("p.png"),
        dir.path().join("p.svg"),
        dir.path().join("r.html"),
    );
    for p in [&png, &svg] {
        ok(&[
            "compare",
            f.to_str().unwrap(),
            "--before",
            BEFORE,
            "--after",
            AFTER,
            "--plot",
            p.to_str().unwrap(),
            "--report",
            html.to_str().unwrap(),
        ]);
    }
    assert!(std::fs::read(&png).unwrap().starts_with(b"\x89PNG"));
    let s = std::fs::read_to_string(&svg).unwrap();
    assert!(
        s.contains("<svg") && s.contains("node_zfs_arc_size"),
        "plot text missing (font?)"
    );
    let h = std::fs::read_to_string(&html).unwrap();
    assert!(h.starts_with("<!DOCTYPE html>") && h.contains("<svg") && h.contains("98.67%"));
    assert!(!h.contains("<script") && !h.contains("<link") && !h.contains(" src="));
    fails(
        &[
            "compare",
            f.to_str().unwrap(),
            "--before",
            BEFORE,
            "--after",
            AFTER,
            "--plot",
            dir.path().join("p.gif").to_str().unwrap(),
        ],
        1,
    );
}

#[test]
fn bad_input_is_a_clear_error_and_outputs_survive() {
    let dir = tempfile::tempdir().unwrap();
    let f = blog_export(dir.path());
    let fs = f.to_str().unwrap();
    let w = ["--before", BEFORE, "--after", AFTER];
    let run = |src: &str, extra: &[&str], code: i32| {
        let mut a = vec!["compare", src];
        a.extend_from_slice(&w);
        a.extend_from_slice(extra);
        fails(&a, code)
    };
    // Truncated gzip.
    let bytes = std::fs::read(&f).unwrap();
    let trunc = dir.path().join("trunc.json.gz");
    std::fs::write(&trunc, &bytes[..bytes.len() / 3]).unwrap();
    assert!(run(trunc.to_str().unwrap(), &[], 1).contains("truncated or damaged"));
    // JSON of the wrong shape (a raw API answer), and not JSON at all.
    let wrong = dir.path().join("wrong.json");
    std::fs::write(
        &wrong,
        r#"{"status":"success","data":{"resultType":"matrix","result":[]}}"#,
    )
    .unwrap();
    assert!(run(wrong.to_str().unwrap(), &[], 1).contains("not an arclab export file"));
    std::fs::write(&wrong, "hello").unwrap();
    assert!(run(wrong.to_str().unwrap(), &[], 1).contains("not an arclab export file"));
    // A newer format.
    let newer = dir.path().join("newer.json");
    std::fs::write(
        &newer,
        r#"{"format":"arclab-export","version":99,"request":{},"results":[]}"#,
    )
    .unwrap();
    assert!(run(newer.to_str().unwrap(), &[], 1).contains("newer than this arclab reads"));
    // Unknown metric.
    assert!(
        run(fs, &["--metrics", "node_zfs_arc_nope"], 1)
            .contains("unknown metric `node_zfs_arc_nope`")
    );
    // Windows that do not overlap the data.
    let e = fails(
        &[
            "compare",
            fs,
            "--before",
            "2020-01-01..2020-01-02",
            "--after",
            "2020-01-03..2020-01-04",
        ],
        1,
    );
    assert!(
        e.contains("no samples inside the windows") && e.contains("2025-09-11T00:00:00Z"),
        "{e}"
    );
    // --before after --after, bad windows, missing windows: usage (2).
    assert!(
        fails(&["compare", fs, "--before", AFTER, "--after", BEFORE], 2)
            .contains("must end before")
    );
    fails(
        &[
            "compare",
            fs,
            "--before",
            "2025-09-21..2025-09-11",
            "--after",
            AFTER,
        ],
        2,
    );
    fails(
        &[
            "compare",
            fs,
            "--before",
            "yesterday..today",
            "--after",
            AFTER,
        ],
        2,
    );
    fails(&["compare", fs], 2);
    fails(&["compare", fs, "--around", "no-such-change"], 2);
    // A failing run leaves existing outputs alone.
    let report = dir.path().join("keep.html");
    std::fs::write(&report, "old report").unwrap();
    run(
        fs,
        &["--metrics", "nope", "--report", report.to_str().unwrap()],
        1,
    );
    run(
        trunc.to_str().unwrap(),
        &["--report", report.to_str().unwrap()],
        1,
    );
    assert_eq!(std::fs::read_to_string(&report).unwrap(), "old report");
    // An empty export.
    let empty = dir.path().join("empty.json.gz");
    write_export(&Default::default(), &empty);
    assert!(run(empty.to_str().unwrap(), &[], 1).contains("holds no series"));
}

#[test]
fn outputs_are_never_written_through_a_symlink() {
    // Issue 14, item 3: a link planted where --plot or --report writes must
    // not get its target overwritten.
    let dir = tempfile::tempdir().unwrap();
    let f = blog_export(dir.path());
    let victim = dir.path().join("victim");
    std::fs::write(&victim, "precious").unwrap();
    for (flag, name) in [
        ("--plot", "p.png"),
        ("--plot", "p.svg"),
        ("--report", "r.html"),
    ] {
        let link = dir.path().join(name);
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        let e = fails(
            &[
                "compare",
                f.to_str().unwrap(),
                "--before",
                BEFORE,
                "--after",
                AFTER,
                flag,
                link.to_str().unwrap(),
            ],
            1,
        );
        assert!(e.contains(name) && e.contains("symbolic link"), "{e}");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    }
    // Nothing else was created beside them (no temporary file left).
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 5);
}

#[test]
fn absurd_durations_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let f = blog_export(dir.path());
    let fs = f.to_str().unwrap();
    let around = ["compare", fs, "--around", "zfs_arc_max=8G"];
    for (extra, want) in [
        (["--skip", "1e20"], "at most 100 years"),
        (["--skip", "nan"], "invalid duration"),
        (["--days", "1e20"], "at most 100 years"),
        (["--days", "inf"], "must be above 0"),
        // Issue 14 item 8: these used to allocate 8 GB or panic.
        (
            ["--batches", "1000000000"],
            "--batches: must be 2 to 1000 per window",
        ),
        (["--batches", "1e9"], "invalid value '1e9'"),
        (["--batches", "1"], "--batches: must be 2 to 1000"),
        (["--timeout", "1e20"], "at most 100 years"),
    ] {
        let mut a = around.to_vec();
        a.extend_from_slice(&extra);
        let e = fails(&a, 2);
        assert!(e.contains(want), "{extra:?}: {e}");
    }
    // --skip 0 is still "no warm-up".
    let mut a = around.to_vec();
    a.extend_from_slice(&["--skip", "0", "--days", "5"]);
    ok(&a);
    // The largest --batches is taken.
    let mut a = around.to_vec();
    a.extend_from_slice(&["--batches", "1000"]);
    ok(&a);
}

#[test]
fn an_export_that_inflates_past_the_limit_is_refused() {
    // Issue 14 item 9: a small .json.gz that inflates to more than
    // arclab_metrics::export::MAX_TEXT_BYTES (512 MiB) used to abort compare.
    // Here 640 MiB: the head of an export file, then spaces (valid JSON
    // whitespace), gzip to well under 1 MiB.
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let bomb = dir.path().join("bomb.json.gz");
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    e.write_all(br#"{"format":"arclab-export","version":1,"results":["#)
        .unwrap();
    let block = vec![b' '; 1 << 20];
    for _ in 0..640 {
        e.write_all(&block).unwrap();
    }
    e.write_all(b"]}").unwrap();
    let gz = e.finish().unwrap();
    assert!(gz.len() < 1 << 20, "{}", gz.len());
    std::fs::write(&bomb, &gz).unwrap();
    let err = fails(
        &[
            "compare",
            bomb.to_str().unwrap(),
            "--before",
            BEFORE,
            "--after",
            AFTER,
        ],
        1,
    );
    assert!(
        err.contains("bomb.json.gz: inflates to more than 512 MiB of text"),
        "{err}"
    );
}

/// The blog's data plus series outside the ARC preset (`arc-all` extras and
/// a node_exporter gauge), as an export file.
fn blog_with_extras(dir: &std::path::Path) -> std::path::PathBuf {
    use arclab_metrics::series::Series;
    let mut d = arclab_metrics::synth::blog("nas:9100");
    let template = d.series[0].clone();
    for name in [
        "node_zfs_arc_l2_hits",
        "node_zfs_arc_dnode_size",
        "node_load1",
    ] {
        let mut labels = template.labels.clone();
        labels.insert("__name__".into(), name.into());
        d.series.push(Series {
            labels,
            points: template.points.iter().map(|p| (p.0, 1.0)).collect(),
        });
    }
    let p = dir.join("extras.json.gz");
    write_export(&d, &p);
    p
}

#[test]
fn a_file_compares_the_arc_summary_unless_asked_for_more() {
    // Issue 13: `compare FILE` listed every field (466 lines on a real export).
    let dir = tempfile::tempdir().unwrap();
    let f = blog_with_extras(dir.path());
    let f = f.to_str().unwrap();
    let names = |args: &[&str]| -> Vec<String> {
        let mut a = vec!["compare", f, "--before", BEFORE, "--after", AFTER, "--json"];
        a.extend_from_slice(args);
        let j = json(&a);
        j["series"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["name"].as_str().unwrap().to_string())
            .collect()
    };
    let default = names(&[]);
    assert!(
        default.iter().any(|n| n == "node_zfs_arc_hits"),
        "{default:?}"
    );
    assert!(
        !default
            .iter()
            .any(|n| n == "node_load1" || n == "node_zfs_arc_l2_hits"),
        "{default:?}"
    );
    let all = names(&["--metrics", "all"]);
    assert_eq!(all.len(), default.len() + 3, "{all:?}");
    assert!(all.iter().any(|n| n == "node_load1"));
    let o = measure_support::arclab(&["compare", f, "--before", BEFORE, "--after", AFTER]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains(&format!(
            "comparing the ARC summary ({} of {} series); --metrics all compares every series",
            default.len(),
            all.len()
        )),
        "{err}"
    );
}

#[test]
fn near_empty_windows_are_an_error_not_a_tilde() {
    // Issue 13: windows holding a sample or two printed "~ ()" and exited 0.
    // The blog data has one sample per 300 s from 2025-09-11; a 10-minute
    // after window at its very end holds at most one counter step.
    let dir = tempfile::tempdir().unwrap();
    let f = blog_export(dir.path());
    let e = fails(
        &[
            "compare",
            f.to_str().unwrap(),
            "--before",
            BEFORE,
            "--after",
            "2025-10-01T23:50:00Z..2025-10-02T00:00:00Z",
        ],
        1,
    );
    assert!(e.contains("too few samples in the after window"), "{e}");
    assert!(
        e.contains("each window needs samples in at least 2 batches"),
        "{e}"
    );
    assert!(!e.contains("~ ()"), "{e}");
}

#[test]
fn written_files_are_named_and_keep_their_mode() {
    // Issue 13: say "wrote FILE" for every file; a new report is 0644, a
    // replaced one keeps its mode (export used to turn 0644 into 0600).
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let f = blog_export(dir.path());
    let (png, html) = (dir.path().join("p.png"), dir.path().join("r.html"));
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    let run = || {
        let o = measure_support::arclab(&[
            "compare",
            f.to_str().unwrap(),
            "--before",
            BEFORE,
            "--after",
            AFTER,
            "--plot",
            png.to_str().unwrap(),
            "--report",
            html.to_str().unwrap(),
        ]);
        let err = String::from_utf8_lossy(&o.stderr).to_string();
        assert!(o.status.success(), "{err}");
        err
    };
    let err = run();
    for p in [&png, &html] {
        assert!(
            err.contains(&format!("arclab: wrote {}", p.display())),
            "{err}"
        );
        assert_eq!(mode(p), 0o644, "{}", p.display());
    }
    std::fs::set_permissions(&html, std::fs::Permissions::from_mode(0o640)).unwrap();
    std::fs::set_permissions(&png, std::fs::Permissions::from_mode(0o600)).unwrap();
    run();
    assert_eq!(mode(&html), 0o640);
    assert_eq!(mode(&png), 0o600);
}

#[test]
fn the_plot_axis_reads_dates() {
    // Issue 13: the x axis was "days since the start"; it now carries dates
    // of the windows (2025-09-11 .. 2025-10-02, synth::BEFORE / AFTER).
    let dir = tempfile::tempdir().unwrap();
    let f = blog_export(dir.path());
    let svg = dir.path().join("p.svg");
    ok(&[
        "compare",
        f.to_str().unwrap(),
        "--before",
        BEFORE,
        "--after",
        AFTER,
        "--plot",
        svg.to_str().unwrap(),
    ]);
    let s = std::fs::read_to_string(&svg).unwrap();
    assert!(!s.contains("days since"), "old axis title");
    assert!(s.contains("date (UTC)"));
    // Tick labels are the text of <text> elements: "2025-09-11", "2025-09-16", …
    let ticks: Vec<&str> = s
        .split("<text")
        .filter_map(|t| t.split_once('>').map(|x| x.1.trim_start()))
        .filter(|t| t.starts_with("2025-"))
        .collect();
    assert!(
        ticks.iter().any(|t| t.starts_with("2025-09-11")),
        "{ticks:?}"
    );
    assert!(
        ticks.iter().any(|t| t.starts_with("2025-09-2")),
        "{ticks:?}"
    );
    // y ticks as plain numbers (arclab_report::plot::tick): "0", not "0.0".
    let texts: Vec<&str> = s
        .split("<text")
        .filter_map(|t| Some(t.split_once('>')?.1.split('<').next()?.trim()))
        .collect();
    assert!(texts.contains(&"0") && !texts.contains(&"0.0"), "{texts:?}");
}
