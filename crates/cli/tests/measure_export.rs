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

/// A `query_range` answer with one `node_zfs_arc_hits` series at T0 and T0+15.
fn one_series_answer() -> Vec<u8> {
    let body = format!(
        r#"{{"status":"success","data":{{"resultType":"matrix","result":[{{"metric":{{"__name__":"node_zfs_arc_hits","instance":"nas:9100"}},"values":[[{T0},"1"],[{},"2"]]}}]}}}}"#,
        T0 + 15
    );
    arclab_testdata::http::response(
        200,
        &[("Content-Type", "application/json")],
        body.as_bytes(),
    )
}

#[test]
fn a_gzip_bomb_from_the_server_is_named_and_not_retried() {
    // Issue 14 item 10: 300 MiB of zeros gzip to ~300 KiB; arclab reads at
    // most 256 MiB (arclab_metrics::promapi::MAX_BODY_BYTES) of an answer.
    use std::io::Write;
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let block = vec![0u8; 1 << 20];
    for _ in 0..300 {
        e.write_all(&block).unwrap();
    }
    let bomb = e.finish().unwrap();
    let answer = arclab_testdata::http::response(200, &[("Content-Encoding", "gzip")], &bomb);
    let server = arclab_testdata::http::serve(vec![answer.clone(), answer.clone(), answer]);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.json.gz");
    let e = fails(
        &[
            "export",
            "--url",
            &server.url,
            "--from",
            &t(0),
            "--to",
            &t(600),
            "--retries",
            "2",
            "-o",
            out.to_str().unwrap(),
        ],
        1,
    );
    assert!(
        e.contains("larger than 256 MiB after decompression") && e.contains("not retried"),
        "{e}"
    );
    assert!(!e.contains("cannot reach"), "{e}");
    assert_eq!(server.requests().len(), 1, "a too-large answer was retried");
    assert!(!out.exists());
}

#[test]
fn redirects_are_followed_on_the_same_host_only_and_said() {
    // Issue 14 item 10: a 301/302 used to turn the POST into a GET without
    // the query; 307/308 failed as "redirect failed".
    use arclab_testdata::http::{response, serve};
    let dir = tempfile::tempdir().unwrap();
    for status in [301u16, 302, 307, 308] {
        let server = serve(vec![
            response(status, &[("Location", "/prom/api/v1/query_range")], b""),
            one_series_answer(),
        ]);
        let out = dir.path().join(format!("r{status}.json.gz"));
        let o = measure_support::arclab(&[
            "export",
            "--url",
            &server.url,
            "--from",
            &t(0),
            "--to",
            &t(600),
            "--retries",
            "0",
            "-o",
            out.to_str().unwrap(),
        ]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{status}: {err}");
        assert!(
            err.contains(&format!(
                "note: the server redirected: HTTP {status} from {0}/api/v1/query_range to {0}/prom/api/v1/query_range (same host",
                server.url
            )),
            "{err}"
        );
        let seen = server.requests();
        assert_eq!(seen[1].method, "POST");
        assert_eq!(seen[1].body, seen[0].body);
        let d = arclab_metrics::export::read_dataset(&out).unwrap();
        assert_eq!(
            d.series[0].points,
            vec![(T0 as f64, 1.0), ((T0 + 15) as f64, 2.0)]
        );
    }
    let other = serve(vec![one_series_answer()]);
    let server = serve(vec![response(
        301,
        &[("Location", &format!("{}/api/v1/query_range", other.url))],
        b"",
    )]);
    let out = dir.path().join("other.json.gz");
    let e = fails(
        &[
            "export",
            "--url",
            &server.url,
            "--from",
            &t(0),
            "--to",
            &t(600),
            "--retries",
            "3",
            "-o",
            out.to_str().unwrap(),
        ],
        1,
    );
    assert!(
        e.contains(&format!(
            "HTTP 301 to {}/api/v1/query_range, another host",
            other.url
        )) && e.contains("not followed"),
        "{e}"
    );
    assert_eq!(server.requests().len(), 1);
    assert!(other.requests().is_empty());
    assert!(!out.exists());
}

#[test]
fn export_keeps_the_mode_of_a_replaced_file_and_says_what_it_wrote() {
    // Issue 13: export turned an existing 0644 output into 0600.
    use arclab_testdata::http::serve;
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.json.gz");
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    for existing in [None, Some(0o644), Some(0o640)] {
        if let Some(m) = existing {
            std::fs::set_permissions(&out, std::fs::Permissions::from_mode(m)).unwrap();
        }
        let server = serve(vec![one_series_answer()]);
        let o = measure_support::arclab(&[
            "export",
            "--url",
            &server.url,
            "--from",
            &t(0),
            "--to",
            &t(600),
            "--retries",
            "0",
            "-o",
            out.to_str().unwrap(),
        ]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{err}");
        assert!(
            err.contains(&format!(
                "arclab: wrote 1 series, 2 samples to {}",
                out.display()
            )),
            "{err}"
        );
        assert_eq!(mode(&out), existing.unwrap_or(0o644), "{existing:?}");
    }
}

#[test]
fn help_never_repeats_a_default() {
    // Issue 13: `export --help` printed "[default: now] [default: now]".
    let top = ok(&["--help"]);
    let commands: Vec<&str> = top
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(
        commands.contains(&"export") && commands.contains(&"compare"),
        "{top}"
    );
    for c in commands {
        let help = ok(&[c, "--help"]);
        for line in help.lines() {
            assert!(
                line.matches("[default:").count() <= 1,
                "arclab {c} --help: {line}"
            );
        }
        // Wrapped help: a default's text can also sit on the next line.
        assert!(!help.contains("[default: now] [default: now]"), "{c}");
    }
}
