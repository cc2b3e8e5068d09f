//! `arclab export` and `arclab compare` against real Prometheus 2.42 and
//! VictoriaMetrics 1.79 on loopback (Debian packages `prometheus` and
//! `victoria-metrics`; `.ci/run` installs them).

mod measure_support;

use measure_support::tsdb::{self, N, STEP, T0};
use measure_support::{fails, json, ok};
use serde_json::Value;

fn t(offset: i64) -> String {
    (T0 + offset).to_string()
}

fn close(v: &Value, want: f64, rel: f64) -> bool {
    v.as_f64()
        .is_some_and(|x| (x - want).abs() <= rel * want.abs())
}

fn derived_for<'a>(c: &'a Value, inst: &str) -> &'a Value {
    c["instances"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["instance"] == inst)
        .unwrap()
}

/// Export from `url`, compare the file and the live server, check the numbers.
fn export_and_compare(url: &str, dir: &std::path::Path, name: &str) {
    let file = dir.join(format!("{name}.json.gz"));
    let end = t(N * STEP);
    ok(&[
        "export",
        "--url",
        url,
        "--from",
        &t(0),
        "--to",
        &end,
        "--step",
        "15s",
        "-o",
        file.to_str().unwrap(),
    ]);
    // The same export in chunks of 100 points gives the same series.
    let chunked = dir.join(format!("{name}-chunked.json.gz"));
    ok(&[
        "export",
        "--url",
        url,
        "--from",
        &t(0),
        "--to",
        &end,
        "--step",
        "15s",
        "--max-points",
        "100",
        "-o",
        chunked.to_str().unwrap(),
    ]);
    let a = arclab_metrics::export::read_dataset(&file).unwrap();
    let b = arclab_metrics::export::read_dataset(&chunked).unwrap();
    assert_eq!(
        a.series.len(),
        6,
        "{name}: {:?}",
        a.series.iter().map(|s| &s.labels).collect::<Vec<_>>()
    );
    for (x, y) in a.series.iter().zip(&b.series) {
        assert_eq!(x.labels, y.labels);
        assert_eq!(x.points.len(), y.points.len(), "{name} {:?}", x.labels);
    }
    let before = format!("{}..{}", t(0), t(7200));
    let after = format!("{}..{}", t(7200), t(14_400));
    let c = json(&[
        "compare",
        file.to_str().unwrap(),
        "--before",
        &before,
        "--after",
        &after,
        "--json",
    ]);
    let nas = derived_for(&c, "nas:9100");
    assert!(
        close(&nas["hits_per_sec"]["before"], 1000.0, 1e-9),
        "{name}: {}",
        nas["hits_per_sec"]
    );
    assert!(
        close(&nas["misses_per_sec"]["before"], 10.0, 1e-9),
        "{name}: {}",
        nas["misses_per_sec"]
    );
    // After: 40/s; the reset loses one 15 s step, the end may add a flat step.
    assert!(
        close(&nas["misses_per_sec"]["after"], 40.0, 0.01),
        "{name}: {}",
        nas["misses_per_sec"]
    );
    assert!(close(&nas["hit_ratio"]["before"], 1000.0 / 1010.0, 1e-9));
    assert!(close(&nas["hit_ratio"]["after"], 1000.0 / 1040.0, 1e-3));
    assert!(close(&nas["miss_multiplier"], 4.0, 0.01));
    assert_eq!(
        nas["resets"],
        serde_json::json!([0, 2]),
        "hits and misses both reset"
    );
    let b = derived_for(&c, "b:9100");
    assert!(
        close(&b["hits_per_sec"]["before"], 500.0, 1e-9),
        "{name}: {}",
        b
    );
    assert_eq!(c["derived"]["instance"], "fleet");
    assert!(close(&c["derived"]["hits_per_sec"]["before"], 1500.0, 1e-9));
    let w = c["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        w.contains("node_zfs_arc_hits (b:9100): starts 1h into the before window"),
        "{name}: {w}"
    );
    assert!(
        w.contains("node_zfs_arc_size (nas:9100): a gap of"),
        "{name}: {w}"
    );
    // Prometheus returns the NaN sample as "NaN"; VictoriaMetrics drops it.
    if name == "prom" {
        assert!(
            w.contains("NaN/Inf sample(s) in the after window were ignored"),
            "{name}: {w}"
        );
    }
    assert!(
        w.contains("node_zfs_arc_hits (nas:9100): 1 counter reset(s) in the after window"),
        "{name}: {w}"
    );
    let size = c["series"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "node_zfs_arc_size" && r["instance"] == "nas:9100")
        .unwrap();
    assert!(
        close(&size["before"]["mean"], 8e9, 1e-12) && close(&size["after"]["max"], 6e9, 1e-12),
        "{size}"
    );
    // Live: the same comparison straight from the server.
    let live = json(&[
        "compare", url, "--before", &before, "--after", &after, "--step", "15s", "--json",
    ]);
    for k in ["hits_per_sec", "misses_per_sec", "hit_ratio"] {
        for w in ["before", "after"] {
            assert_eq!(
                live["derived"][k][w], c["derived"][k][w],
                "{name} live {k} {w}"
            );
        }
    }
}

fn server_errors(url: &str, dir: &std::path::Path, what: &str) {
    let out = dir.join("err.json.gz");
    std::fs::write(&out, "keep me").unwrap();
    let e = fails(
        &[
            "export",
            "--url",
            url,
            "--from",
            &t(0),
            "--to",
            &t(600),
            "--metrics",
            "rate(",
            "-o",
            out.to_str().unwrap(),
        ],
        1,
    );
    assert!(e.contains(what), "{e}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "keep me");
    let e = fails(
        &[
            "export",
            "--url",
            url,
            "--from",
            &t(0),
            "--to",
            &t(600),
            "--metrics",
            "no_such_metric",
            "-o",
            out.to_str().unwrap(),
        ],
        1,
    );
    assert!(e.contains("no series matched"), "{e}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "keep me");
}

#[test]
fn prometheus_export_compare_and_errors() {
    let samples = tsdb::samples();
    let prom = tsdb::prometheus(&samples);
    let dir = tempfile::tempdir().unwrap();
    export_and_compare(&prom.url, dir.path(), "prom");
    server_errors(&prom.url, dir.path(), "HTTP 400 (bad_data)");
}

#[test]
fn victoria_metrics_export_compare_and_errors() {
    let samples = tsdb::samples();
    let vm = tsdb::victoria_metrics(&samples);
    let dir = tempfile::tempdir().unwrap();
    export_and_compare(&vm.url, dir.path(), "vm");
    server_errors(&vm.url, dir.path(), "HTTP 422");
}

#[test]
fn a_server_that_is_down_is_a_clear_error() {
    let port = tsdb::free_port();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.json.gz");
    let url = format!("http://127.0.0.1:{port}");
    let e = fails(
        &[
            "export",
            "--url",
            &url,
            "--from",
            &t(0),
            "--to",
            &t(600),
            "--retries",
            "1",
            "-o",
            out.to_str().unwrap(),
        ],
        1,
    );
    assert!(
        e.contains("cannot reach") && e.contains("after 2 attempt(s)"),
        "{e}"
    );
    assert!(!out.exists());
    let e = fails(
        &[
            "compare",
            &url,
            "--before",
            &format!("{}..{}", t(0), t(60)),
            "--after",
            &format!("{}..{}", t(60), t(120)),
            "--retries",
            "0",
        ],
        1,
    );
    assert!(e.contains("cannot reach"), "{e}");
}

#[test]
fn credentials_are_never_printed() {
    let port = tsdb::free_port();
    let url = format!("http://127.0.0.1:{port}");
    let out = measure_support::arclab(&[
        "export",
        "--url",
        &url,
        "--from",
        &t(0),
        "--to",
        &t(60),
        "--retries",
        "0",
        "--bearer-token-env",
        "ARCLAB_TEST_NO_SUCH_VAR",
        "-o",
        "/nonexistent/x.json.gz",
    ]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_arclab"))
        .args([
            "export",
            "--url",
            &url,
            "--from",
            &t(0),
            "--to",
            &t(60),
            "--retries",
            "0",
            "--basic-auth-env",
            "ARCLAB_T",
            "-o",
            "/tmp/none.json.gz",
        ])
        .env("ARCLAB_T", "alice:s3cr3t-pw")
        .output()
        .unwrap();
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        !all.contains("s3cr3t") && !all.contains("YWxpY2U6czNjcjN0LXB3"),
        "{all}"
    );
}

#[test]
fn a_password_in_the_url_is_never_printed() {
    // Issue 14 item 4: `http://user:pw@host` in --url or as compare's source.
    let port = tsdb::free_port();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.json.gz");
    let url = format!("http://alice:s3cr3t-pw@127.0.0.1:{port}");
    let o = out.to_str().unwrap();
    let (from, to) = (t(0), t(600));
    let before = format!("{}..{}", t(0), t(60));
    let after = format!("{}..{}", t(60), t(120));
    for (args, want) in [
        (
            vec![
                "export",
                "--url",
                &url,
                "--from",
                &from,
                "--to",
                &to,
                "--retries",
                "0",
                "-o",
                o,
            ],
            "cannot reach http://127.0.0.1:",
        ),
        (
            vec![
                "compare",
                &url,
                "--before",
                &before,
                "--after",
                &after,
                "--retries",
                "0",
            ],
            "cannot reach http://127.0.0.1:",
        ),
    ] {
        let e = fails(&args, 1);
        assert!(e.contains(want), "{e}");
        assert!(!e.contains("s3cr3t") && !e.contains("alice"), "{e}");
    }
    let e = fails(
        &[
            "export",
            "--url",
            "ftp://alice:s3cr3t-pw@127.0.0.1/",
            "--from",
            &from,
            "-o",
            o,
        ],
        2,
    );
    assert!(
        e.contains("ftp://127.0.0.1/") && !e.contains("s3cr3t"),
        "{e}"
    );
    assert!(!out.exists());
}

#[test]
fn absurd_ranges_are_refused_before_any_request() {
    // Issue 14 item 6. No server listens: a refusal must come before any request.
    let port = tsdb::free_port();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.json.gz");
    let url = format!("http://127.0.0.1:{port}");
    let o = out.to_str().unwrap();
    // 1,000,000 s at 5 m = 3,334 points; one point per request = 3,334 requests (allowed,
    // so it fails on the dead server); from 0 to 1,000,000,000 = 3,333,334 (refused).
    let e = fails(
        &[
            "export",
            "--url",
            &url,
            "--from",
            "0",
            "--to",
            "1000000000",
            "--max-points",
            "1",
            "-o",
            o,
        ],
        2,
    );
    assert!(
        e.contains("3333334 points") && e.contains("3333334 requests") && e.contains("10000"),
        "{e}"
    );
    // 1 ms over one day: 86,400,001 points / 11,000 = 7,855 requests; over two days 15,710.
    let e = fails(
        &[
            "export", "--url", &url, "--from", "0", "--to", "172800", "--step", "1ms", "-o", o,
        ],
        2,
    );
    assert!(e.contains("15710 requests"), "{e}");
    let e = fails(
        &[
            "export",
            "--url",
            &url,
            "--from",
            "0",
            "--to",
            "86400",
            "--step",
            "1ms",
            "--retries",
            "0",
            "-o",
            o,
        ],
        1,
    );
    assert!(e.contains("cannot reach"), "{e}");
    assert!(!out.exists());
}
