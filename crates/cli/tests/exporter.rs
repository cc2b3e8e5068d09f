//! `arclab exporter` against a real Prometheus (Debian `prometheus`) on
//! loopback: a fake procfs holding the OpenZFS 2.2+ arcstats fixture is
//! scraped every second, the series are queried back through
//! `/api/v1/query` and must equal the fixture's rows; every PromQL
//! expression of dashboards/arclab-arc.json must return data; `arclab
//! compare` must work on what Prometheus recorded; a vanished procfs gives
//! 503 and `arclab_up 0` without stopping the exporter; SIGTERM stops it.

mod measure_support;

use measure_support::tsdb::{http, prometheus_scraping, query};
use measure_support::{json, ok};
use std::collections::HashMap;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const FIXTURE: &str = "arcstats/linux-openzfs22plus-telegraf.arcstats";
/// MemAvailable of the fake meminfo, kB.
const MEM_AVAILABLE_KB: u64 = 8_000_000;

/// A running exporter; killed and reaped on drop.
struct Exporter {
    child: Child,
    addr: String,
}

impl Drop for Exporter {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_exporter(procfs: &Path, sysfs: &Path) -> Exporter {
    let mut child = Command::new(env!("CARGO_BIN_EXE_arclab"))
        .args(["exporter", "--listen", "127.0.0.1:0", "--procfs"])
        .arg(procfs)
        .arg("--sysfs")
        .arg(sysfs)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start arclab exporter");
    let mut err = std::io::BufReader::new(child.stderr.take().expect("stderr"));
    let mut line = String::new();
    err.read_line(&mut line).expect("read stderr");
    // Keep draining stderr so the exporter never blocks on a full pipe.
    std::thread::spawn(move || std::io::copy(&mut err, &mut std::io::sink()));
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|r| r.split('/').next())
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_string();
    Exporter { child, addr }
}

/// The fixture, with every counter in `bump` raised by `k·step`.
fn arcstats_text(fixture: &str, k: u64) -> String {
    const BUMP: &[(&str, u64)] = &[
        ("hits", 900),
        ("iohits", 20),
        ("misses", 80),
        ("demand_data_hits", 500),
        ("demand_data_misses", 40),
        ("demand_metadata_hits", 300),
        ("demand_metadata_misses", 20),
        ("prefetch_data_misses", 15),
        ("prefetch_metadata_misses", 5),
    ];
    fixture
        .lines()
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            match BUMP.iter().find(|(n, _)| w.len() == 3 && w[0] == *n) {
                Some((n, inc)) => {
                    let v: u64 = w[2].parse().unwrap();
                    format!("{n:<32}{}    {}\n", w[1], v + k * inc)
                }
                None => format!("{l}\n"),
            }
        })
        .collect()
}

/// Replace `path` atomically (the exporter never reads a half-written file).
fn write_atomic(path: &Path, text: &str) {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

fn fake_host(dir: &Path) -> (PathBuf, PathBuf, String) {
    let fixture = std::fs::read_to_string(arclab_testdata::path(FIXTURE)).unwrap();
    let proc_ = dir.join("proc");
    let kstat = proc_.join("spl/kstat/zfs");
    std::fs::create_dir_all(&kstat).unwrap();
    std::fs::write(kstat.join("arcstats"), &fixture).unwrap();
    std::fs::write(
        proc_.join("meminfo"),
        arclab_testdata::meminfo(32_746_580, MEM_AVAILABLE_KB),
    )
    .unwrap();
    let sys = dir.join("sys");
    let params = sys.join("module/zfs/parameters");
    std::fs::create_dir_all(&params).unwrap();
    std::fs::write(sys.join("module/zfs/version"), "2.3.1-1\n").unwrap();
    std::fs::write(params.join("zfs_arc_max"), "0\n").unwrap();
    (proc_, sys, fixture)
}

fn wait_for(what: &str, mut f: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !f() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(250));
    }
}

/// The single value of an instant query on the exporter's job.
fn value(url: &str, promql: &str) -> String {
    let r = query(url, promql);
    assert_eq!(r.len(), 1, "{promql}: {r:?}");
    r[0].1.clone()
}

fn now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
}

#[test]
fn prometheus_scrapes_the_fixture_values_and_the_dashboard_has_data() {
    let dir = tempfile::tempdir().unwrap();
    let (procfs, sysfs, fixture) = fake_host(dir.path());
    let n = arclab_testdata::naive_arcstats(&fixture);
    let exporter = start_exporter(&procfs, &sysfs);
    let prom = prometheus_scraping("arclab", &[&exporter.addr]);
    let url = prom.url.as_str();

    // The exporter's own answers, before Prometheus: text 0.0.4 by default,
    // and promtool's linter finds nothing in it.
    let (st, body) = http("GET", &format!("http://{}/metrics", exporter.addr), b"").unwrap();
    assert_eq!(st, 200, "{body}");
    let mut lint = Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("promtool (Debian package prometheus)");
    use std::io::Write;
    lint.stdin
        .take()
        .unwrap()
        .write_all(body.as_bytes())
        .unwrap();
    let lint = lint.wait_with_output().unwrap();
    assert!(
        lint.status.success(),
        "promtool check metrics: {}{}",
        String::from_utf8_lossy(&lint.stdout),
        String::from_utf8_lossy(&lint.stderr)
    );

    wait_for("the first scrape", || {
        !query(url, "arclab_zfs_arc_size{job=\"arclab\"}").is_empty()
    });
    let t_start = now();
    assert_eq!(value(url, "up{job=\"arclab\"}"), "1");
    // Gauges and a counter equal the fixture's rows (read by the naive reader).
    assert_eq!(value(url, "arclab_zfs_arc_size"), n["size"].to_string());
    assert_eq!(value(url, "arclab_zfs_arc_size"), "14960038920");
    assert_eq!(value(url, "arclab_zfs_arc_c"), n["c"].to_string());
    assert_eq!(value(url, "arclab_zfs_arc_c_max"), n["c_max"].to_string());
    assert_eq!(
        value(url, "arclab_zfs_arc_hits_total"),
        n["hits"].to_string()
    );
    // reclaimable = min(Σ *_evictable_*, size − c_min), by hand from the rows.
    let evictable: u64 = ["anon", "mru", "mfu", "uncached"]
        .iter()
        .flat_map(|s| ["data", "metadata"].map(|k| n[&format!("{s}_evictable_{k}")]))
        .sum();
    let reclaimable = evictable.min(n["size"] - n["c_min"]);
    assert_eq!(
        value(url, "arclab_zfs_arc_reclaimable_bytes"),
        reclaimable.to_string()
    );
    // effective available = MemAvailable (kB · 1024) + reclaimable.
    assert_eq!(
        value(url, "arclab_zfs_arc_effective_available_bytes"),
        (MEM_AVAILABLE_KB * 1024 + reclaimable).to_string()
    );
    // dnode_size is a contributor as it is.
    assert_eq!(
        value(
            url,
            "arclab_zfs_arc_non_evictable_bytes{contributor=\"dnode\"}"
        ),
        n["dnode_size"].to_string()
    );
    // zfs_arc_max = 0 (automatic) is accepted; the module version is a label.
    assert_eq!(value(url, "arclab_zfs_arc_max_accepted"), "1");
    let info = query(url, "arclab_zfs_version_info");
    assert_eq!(info.len(), 1, "{info:?}");
    assert_eq!(info[0].0["module_version"], "2.3.1-1");
    assert!(
        info[0].0["version"].as_str().unwrap().starts_with("2.3.0"),
        "{info:?}"
    );

    // Traffic: the counters grow between scrapes (after 8 s without).
    std::thread::sleep(
        Duration::from_secs(8).saturating_sub(Duration::from_secs_f64(now() - t_start)),
    );
    let arc = procfs.join("spl/kstat/zfs/arcstats");
    let t_traffic = now();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let bumper = {
        let (arc, fixture, stop) = (arc.clone(), fixture.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut k = 0;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                k += 1;
                write_atomic(&arc, &arcstats_text(&fixture, k));
                std::thread::sleep(Duration::from_millis(250));
            }
        })
    };
    wait_for("a rising hits counter", || {
        query(url, "rate(arclab_zfs_arc_hits_total[5s]) > 0").len() == 1
    });
    std::thread::sleep(Duration::from_secs(8));

    // Every dashboard expression returns data.
    let dash: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../dashboards/arclab-arc.json"),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(dash["__inputs"][0]["name"], "DS_PROMETHEUS");
    let mut checked = 0;
    for panel in dash["panels"].as_array().unwrap() {
        assert_eq!(
            panel["datasource"]["uid"], "${DS_PROMETHEUS}",
            "{}",
            panel["title"]
        );
        for t in panel["targets"].as_array().unwrap() {
            let expr = t["expr"].as_str().unwrap();
            let q = expr
                .replace("$__rate_interval", "5s")
                .replace("$__interval", "1s")
                .replace("$__range", "1m")
                .replace("$instance", ".*");
            assert!(!q.contains('$'), "unsubstituted variable in {expr}");
            let r = query(url, &q);
            assert!(!r.is_empty(), "panel {:?}: no data for {q}", panel["title"]);
            assert!(
                r.iter()
                    .any(|(_, v)| v.parse::<f64>().is_ok_and(f64::is_finite)),
                "panel {:?}: {q} gives only {r:?}",
                panel["title"]
            );
            checked += 1;
        }
    }
    assert!(checked >= 15, "{checked} expressions");
    // The hit ratio panel's first expression, by hand: each 250 ms step adds
    // 900 hits, 20 iohits, 80 misses: 900 / (900 + 20 + 80) = 0.9.
    let hr_expr = dash["panels"][0]["targets"][0]["expr"]
        .as_str()
        .unwrap()
        .replace("$__rate_interval", "5s")
        .replace("$instance", ".*");
    let hr: f64 = value(url, &hr_expr).parse().unwrap();
    assert!((hr - 0.9).abs() < 1e-9, "hit ratio {hr}");

    // arclab compare on what Prometheus recorded: before = the static
    // fixture (no traffic), after = the traffic.
    let t_end = now();
    let before = format!("{:.0}..{:.0}", t_start.floor(), t_traffic.floor());
    let after = format!("{:.0}..{:.0}", t_traffic.ceil(), t_end.floor());
    let out = json(&[
        "compare",
        url,
        "--match",
        "job=\"arclab\"",
        "--before",
        &before,
        "--after",
        &after,
        "--step",
        "1s",
        "--batches",
        "4",
        "--json",
    ]);
    let rows = out["series"].as_array().unwrap();
    let size = rows
        .iter()
        .find(|r| r["name"] == "arclab_zfs_arc_size")
        .unwrap_or_else(|| panic!("no size row: {out}"));
    assert_eq!(
        size["before"]["mean"],
        serde_json::json!(n["size"] as f64),
        "{size}"
    );
    let text = ok(&[
        "compare",
        url,
        "--match",
        "job=\"arclab\"",
        "--before",
        &before,
        "--after",
        &after,
        "--step",
        "1s",
    ]);
    // The ARC summary (hit ratio, misses/s) is derived from the arclab_ names.
    assert!(
        text.contains("hit ratio") && text.contains("misses/s"),
        "{text}"
    );

    // A vanished procfs: 503 with arclab_up 0 and the path; the exporter
    // keeps serving, and Prometheus sees the target down.
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    bumper.join().unwrap();
    std::fs::remove_file(&arc).unwrap();
    let (st, body) = http("GET", &format!("http://{}/metrics", exporter.addr), b"").unwrap();
    assert_eq!(st, 503, "{body}");
    assert!(body.contains("\narclab_up 0\n"), "{body}");
    assert!(body.contains("arcstats"), "{body}");
    wait_for("up == 0", || {
        query(url, "up{job=\"arclab\"} == 0").len() == 1
    });
    std::fs::write(&arc, &fixture).unwrap();
    let (st, body) = http("GET", &format!("http://{}/metrics", exporter.addr), b"").unwrap();
    assert_eq!(st, 200, "{body}");
    let (st, _) = http("GET", &format!("http://{}/", exporter.addr), b"").unwrap();
    assert_eq!(st, 200);
    let (st, _) = http("GET", &format!("http://{}/nope", exporter.addr), b"").unwrap();
    assert_eq!(st, 404);
    drop(prom);
    stop_with_sigterm(exporter);
}

/// SIGTERM: the exporter says so and exits 0.
fn stop_with_sigterm(mut e: Exporter) {
    let st = Command::new("kill")
        .args(["-TERM", &e.child.id().to_string()])
        .status()
        .unwrap();
    assert!(st.success());
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(st) = e.child.try_wait().unwrap() {
            assert!(st.success(), "exit status {st}");
            break;
        }
        assert!(Instant::now() < deadline, "exporter ignored SIGTERM");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn openmetrics_when_asked_and_text_otherwise() {
    let dir = tempfile::tempdir().unwrap();
    let (procfs, sysfs, _) = fake_host(dir.path());
    let e = start_exporter(&procfs, &sysfs);
    use std::io::{Read, Write};
    let get = |accept: &str| {
        let mut s = std::net::TcpStream::connect(&e.addr).unwrap();
        write!(
            s,
            "GET /metrics HTTP/1.0\r\nHost: x\r\nAccept: {accept}\r\n\r\n"
        )
        .unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        out
    };
    let om = get("application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5");
    assert!(
        om.to_ascii_lowercase()
            .contains("content-type: application/openmetrics-text; version=1.0.0"),
        "{om}"
    );
    assert!(om.ends_with("# EOF\n"), "{}", &om[om.len() - 200..]);
    assert!(om.contains("# TYPE arclab_zfs_arc_hits counter\n"));
    let text = get("text/plain");
    assert!(
        text.to_ascii_lowercase()
            .contains("content-type: text/plain; version=0.0.4"),
        "{text}"
    );
    assert!(!text.contains("# EOF"));
    assert!(text.contains("# TYPE arclab_zfs_arc_hits_total counter\n"));
    // Not GET: 405, and the exporter still serves.
    let mut s = std::net::TcpStream::connect(&e.addr).unwrap();
    write!(s, "POST /metrics HTTP/1.0\r\nContent-Length: 0\r\n\r\n").unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    assert!(
        out.starts_with("HTTP/1.0 405") || out.starts_with("HTTP/1.1 405"),
        "{out}"
    );
    assert!(get("text/plain").contains("arclab_up 1\n"));
}

#[test]
fn once_prints_one_scrape_and_a_missing_procfs_fails_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let (procfs, sysfs, fixture) = fake_host(dir.path());
    let n = arclab_testdata::naive_arcstats(&fixture);
    let p = procfs.to_str().unwrap();
    let s = sysfs.to_str().unwrap();
    let out = ok(&["exporter", "--once", "--procfs", p, "--sysfs", s]);
    let samples: HashMap<&str, &str> = out
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.rsplit_once(' '))
        .collect();
    assert_eq!(samples["arclab_zfs_arc_size"], n["size"].to_string());
    assert_eq!(samples["arclab_zfs_arc_max_param_bytes"], "0");
    let err = measure_support::fails(
        &[
            "exporter",
            "--once",
            "--procfs",
            dir.path().join("nowhere").to_str().unwrap(),
        ],
        1,
    );
    assert!(err.contains("nowhere"), "{err}");
    // An arcstats over the 1 MiB cap is refused, not read.
    let arc = procfs.join("spl/kstat/zfs/arcstats");
    let big = format!("{fixture}{}", "x".repeat(2 << 20));
    std::fs::write(&arc, big).unwrap();
    let err = measure_support::fails(&["exporter", "--once", "--procfs", p], 1);
    assert!(
        err.contains("arcstats") && err.contains("larger than"),
        "{err}"
    );
}
