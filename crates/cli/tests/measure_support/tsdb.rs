//! Real Prometheus (Debian `prometheus`, 2.42) and VictoriaMetrics (Debian
//! `victoria-metrics`, 1.79) on 127.0.0.1, backfilled with generated
//! node_exporter-style data; stopped by Drop (also on panic).

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// 2023-11-14T22:13:20Z, on the 15 s grid.
pub const T0: i64 = 1_700_000_000;
/// Scrape step of the generated data.
pub const STEP: i64 = 15;
/// Four hours of samples.
pub const N: i64 = 960;

/// One sample: metric, labels, value (text), unix seconds.
pub type Sample = (String, String, String, i64);

/// The generated data: two hosts, hits/misses counters and size gauges.
/// nas:9100 — hits 1000/s, misses 10/s before (first 2 h), 40/s after, a
/// counter reset at T0+3h, a NaN size at T0+2h30m, no size samples from
/// T0+1h to T0+1h20m (stale). b:9100 — starts at T0+1h, hits 500/s, misses 5/s.
pub fn samples() -> Vec<Sample> {
    let mut out = Vec::new();
    let half = N / 2;
    for (inst, start, hits, miss) in [
        ("nas:9100", 0, [1000, 1000], [10, 40]),
        ("b:9100", 240, [500, 500], [5, 5]),
    ] {
        let labels = format!("instance=\"{inst}\",job=\"node\"");
        for (name, rates) in [("node_zfs_arc_hits", hits), ("node_zfs_arc_misses", miss)] {
            let mut v: i64 = 1_000_000;
            for i in start..N {
                if inst == "nas:9100" && i == 720 {
                    v = 0;
                }
                out.push((
                    name.to_string(),
                    labels.clone(),
                    v.to_string(),
                    T0 + i * STEP,
                ));
                v += rates[usize::from(i >= half)] * STEP;
            }
        }
        for i in start..N {
            if inst == "nas:9100" && (240..320).contains(&i) {
                continue;
            }
            let val = if inst == "nas:9100" && i == 600 {
                "NaN".to_string()
            } else if i < half {
                "8000000000".into()
            } else {
                "6000000000".into()
            };
            out.push((
                "node_zfs_arc_size".into(),
                labels.clone(),
                val,
                T0 + i * STEP,
            ));
        }
    }
    out
}

/// OpenMetrics text for promtool (seconds, families grouped, `# EOF`).
pub fn openmetrics(s: &[Sample]) -> String {
    let mut out = String::new();
    let mut last = String::new();
    for (name, labels, v, t) in s {
        if *name != last {
            let kind = if name.ends_with("size") {
                "gauge"
            } else {
                "unknown"
            };
            out.push_str(&format!("# TYPE {name} {kind}\n"));
            last = name.clone();
        }
        out.push_str(&format!("{name}{{{labels}}} {v} {t}\n"));
    }
    out.push_str("# EOF\n");
    out
}

/// Prometheus text for VictoriaMetrics' import (milliseconds).
pub fn prom_text(s: &[Sample]) -> String {
    s.iter()
        .map(|(n, l, v, t)| format!("{n}{{{l}}} {v} {}\n", t * 1000))
        .collect()
}

fn need(bin: &str, package: &str) {
    let found = std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(bin).is_file()));
    assert!(
        found,
        "`{bin}` not found: these tests need real servers; install them with \
         `apt-get install -y --no-install-recommends prometheus victoria-metrics` (Debian package `{package}`)"
    );
}

/// A free port on 127.0.0.1 (bound, read, released).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("free port")
}

/// A blocking GET/POST with std only; returns (status, body).
pub fn http(method: &str, url: &str, body: &[u8]) -> std::io::Result<(u16, String)> {
    use std::io::{Read, Write};
    let rest = url.strip_prefix("http://").expect("http url");
    let (host, path) = rest
        .split_once('/')
        .map_or((rest, "/".to_string()), |(h, p)| (h, format!("/{p}")));
    let mut s = std::net::TcpStream::connect(host)?;
    s.set_read_timeout(Some(Duration::from_secs(10)))?;
    write!(
        s,
        "{method} {path} HTTP/1.0\r\nHost: {host}\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )?;
    s.write_all(body)?;
    let mut resp = String::new();
    s.read_to_string(&mut resp)?;
    let status = resp
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = resp
        .split_once("\r\n\r\n")
        .map_or(String::new(), |x| x.1.to_string());
    Ok((status, body))
}

fn wait_ready(url: &str, child: &mut Child, log: &Path) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        if matches!(http("GET", url, b""), Ok((200, _))) {
            return;
        }
        if let Ok(Some(st)) = child.try_wait() {
            panic!(
                "server exited ({st}) before it was ready: {}",
                std::fs::read_to_string(log).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!(
        "server not ready at {url} within 30 s: {}",
        std::fs::read_to_string(log).unwrap_or_default()
    );
}

/// A running server; killed and reaped on drop.
pub struct Server {
    child: Child,
    /// Base URL.
    pub url: String,
    _dir: tempfile::TempDir,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Prometheus with the samples backfilled by promtool.
pub fn prometheus(s: &[Sample]) -> Server {
    need("prometheus", "prometheus");
    need("promtool", "prometheus");
    let dir = tempfile::tempdir().expect("tempdir");
    let om = dir.path().join("arc.om");
    std::fs::write(&om, openmetrics(s)).expect("write om");
    let data: PathBuf = dir.path().join("data");
    let st = Command::new("promtool")
        .args(["tsdb", "create-blocks-from", "openmetrics"])
        .arg(&om)
        .arg(&data)
        .stdout(Stdio::null())
        .status()
        .expect("run promtool");
    assert!(st.success(), "promtool backfill failed");
    let cfg = dir.path().join("prom.yml");
    std::fs::write(
        &cfg,
        "global:\n  scrape_interval: 15s\nscrape_configs: []\n",
    )
    .expect("config");
    let port = free_port();
    let log = dir.path().join("prom.log");
    let mut child = Command::new("prometheus")
        .arg(format!("--config.file={}", cfg.display()))
        .arg(format!("--storage.tsdb.path={}", data.display()))
        .arg("--storage.tsdb.retention.time=100y")
        .arg(format!("--web.listen-address=127.0.0.1:{port}"))
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).expect("log"))
        .spawn()
        .expect("start prometheus");
    let url = format!("http://127.0.0.1:{port}");
    wait_ready(&format!("{url}/-/ready"), &mut child, &log);
    Server {
        child,
        url,
        _dir: dir,
    }
}

/// Prometheus scraping `targets` (`host:port`) as job `job` every second,
/// from an empty database.
pub fn prometheus_scraping(job: &str, targets: &[&str]) -> Server {
    need("prometheus", "prometheus");
    let dir = tempfile::tempdir().expect("tempdir");
    let cfg = dir.path().join("prom.yml");
    let list: Vec<String> = targets.iter().map(|t| format!("'{t}'")).collect();
    std::fs::write(
        &cfg,
        format!(
            "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n  - job_name: {job}\n    static_configs:\n      - targets: [{}]\n",
            list.join(", ")
        ),
    )
    .expect("config");
    let port = free_port();
    let log = dir.path().join("prom.log");
    let mut child = Command::new("prometheus")
        .arg(format!("--config.file={}", cfg.display()))
        .arg(format!(
            "--storage.tsdb.path={}",
            dir.path().join("data").display()
        ))
        .arg(format!("--web.listen-address=127.0.0.1:{port}"))
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).expect("log"))
        .spawn()
        .expect("start prometheus");
    let url = format!("http://127.0.0.1:{port}");
    wait_ready(&format!("{url}/-/ready"), &mut child, &log);
    Server {
        child,
        url,
        _dir: dir,
    }
}

/// Percent-encode a query parameter value.
pub fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// An instant query through `/api/v1/query`: the result vector's
/// `(labels, value)` pairs (values as Prometheus prints them).
pub fn query(url: &str, promql: &str) -> Vec<(serde_json::Value, String)> {
    let (st, body) = http(
        "GET",
        &format!("{url}/api/v1/query?query={}", urlencode(promql)),
        b"",
    )
    .expect("query");
    assert_eq!(st, 200, "{promql}: {body}");
    let v: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(v["status"], "success", "{promql}: {body}");
    v["data"]["result"]
        .as_array()
        .map(|r| {
            r.iter()
                .map(|s| {
                    (
                        s["metric"].clone(),
                        s["value"][1].as_str().unwrap_or("").to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// VictoriaMetrics with the samples imported and flushed.
pub fn victoria_metrics(s: &[Sample]) -> Server {
    need("victoria-metrics", "victoria-metrics");
    let dir = tempfile::tempdir().expect("tempdir");
    let port = free_port();
    let log = dir.path().join("vm.log");
    let child = Command::new("victoria-metrics")
        .arg(format!(
            "-storageDataPath={}",
            dir.path().join("vm").display()
        ))
        .arg("-retentionPeriod=100y")
        .arg("-search.disableCache")
        .arg(format!("-httpListenAddr=127.0.0.1:{port}"))
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).expect("log"))
        .spawn()
        .expect("start victoria-metrics");
    let url = format!("http://127.0.0.1:{port}");
    let server = Server {
        child,
        url: url.clone(),
        _dir: dir,
    };
    // `server` owns the child now: a panic below still stops it.
    let deadline = Instant::now() + Duration::from_secs(30);
    while !matches!(http("GET", &format!("{url}/health"), b""), Ok((200, _))) {
        assert!(
            Instant::now() < deadline,
            "victoria-metrics not ready: {}",
            std::fs::read_to_string(&log).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let (st, body) = http(
        "POST",
        &format!("{url}/api/v1/import/prometheus"),
        prom_text(s).as_bytes(),
    )
    .expect("import");
    assert!(st == 204 || st == 200, "import failed: {st} {body}");
    let (st, _) = http("GET", &format!("{url}/internal/force_flush"), b"").expect("flush");
    assert_eq!(st, 200);
    server
}
