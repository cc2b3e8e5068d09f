//! Render `arclab whatif --report` in headless Chromium: the page loads, its
//! table and SVG plots are in the DOM, and the screenshot is not blank.
//!
//! Needs the Debian package `chromium` (CI's `.ci/run` installs it); set
//! `CHROMIUM` to use another binary.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const WIDTH: u32 = 1280;
const HEIGHT: u32 = 2000;

fn chromium() -> PathBuf {
    if let Some(p) = std::env::var_os("CHROMIUM") {
        return PathBuf::from(p);
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for name in ["chromium", "chromium-browser"] {
        for dir in std::env::split_paths(&path) {
            let p = dir.join(name);
            if p.is_file() {
                return p;
            }
        }
    }
    panic!(
        "chromium not found on PATH: install the Debian package `chromium` \
         (apt-get install -y chromium), or set CHROMIUM to a Chromium binary"
    );
}

/// Run headless Chromium with `extra` flags on `url`, killing it after a minute.
fn run_chromium(profile: &Path, extra: &[String], url: &str) -> Output {
    let mut child = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start chromium");
    let deadline = Instant::now() + Duration::from_secs(90);
    // Read the pipes on threads so a large DOM cannot block the child.
    let mut so = child.stdout.take().unwrap();
    let mut se = child.stderr.take().unwrap();
    let out_t = std::thread::spawn(move || {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut so, &mut v).ok();
        v
    });
    let err_t = std::thread::spawn(move || {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut se, &mut v).ok();
        v
    });
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait for chromium") {
            break s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish within 90 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    Output {
        status,
        stdout: out_t.join().unwrap(),
        stderr: err_t.join().unwrap(),
    }
}

#[test]
fn report_renders_in_headless_chromium() {
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("report.html");
    let out = common::arclab(&[
        "whatif",
        "--sample-rate",
        "0.01",
        "--caps",
        "default,12G,8G,4G",
        "--report",
        html.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let url = format!("file://{}", html.display());

    // The DOM after load: the table and both plots are there.
    let profile = tempfile::tempdir().unwrap();
    let dom = run_chromium(profile.path(), &["--dump-dom".to_string()], &url);
    assert!(
        dom.status.success(),
        "{}",
        String::from_utf8_lossy(&dom.stderr)
    );
    let dom = String::from_utf8_lossy(&dom.stdout);
    assert!(dom.contains("id=\"whatif-table\""), "no table in the DOM");
    assert_eq!(dom.matches("<tbody>").count(), 1);
    assert_eq!(
        dom.matches("<tr>").count() + dom.matches("<tr class=").count(),
        5,
        "header and four caps"
    );
    assert_eq!(
        dom.matches("class=\"verdict-row\"").count(),
        1,
        "the row the verdict discusses is marked"
    );
    assert_eq!(dom.matches("<svg").count(), 2, "two inline SVG plots");
    assert!(dom.contains("Misses per second against the cap"));
    assert!(dom.contains("id=\"verdict\""));

    // The screenshot: right size, not blank.
    let shot = dir.path().join("report.png");
    let profile = tempfile::tempdir().unwrap();
    let out = run_chromium(
        profile.path(),
        &[
            format!("--screenshot={}", shot.display()),
            format!("--window-size={WIDTH},{HEIGHT}"),
            "--hide-scrollbars".to_string(),
        ],
        &url,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let decoder = png::Decoder::new(std::fs::File::open(&shot).expect("screenshot written"));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("a frame");
    assert_eq!((info.width, info.height), (WIDTH, HEIGHT));
    let channels = info.color_type.samples();
    assert!(channels >= 3, "{:?}", info.color_type);
    let pixels: Vec<&[u8]> = buf[..info.buffer_size()].chunks(channels).collect();
    let non_white = pixels
        .iter()
        .filter(|p| p[..3].iter().any(|&c| c < 200))
        .count();
    let ratio = non_white as f64 / pixels.len() as f64;
    assert!(
        ratio > 0.01,
        "the page looks blank: {ratio:.4} of pixels are not white"
    );
    let colours: std::collections::HashSet<[u8; 3]> =
        pixels.iter().map(|p| [p[0], p[1], p[2]]).collect();
    assert!(
        colours.len() > 50,
        "only {} colours: no plots rendered?",
        colours.len()
    );
    if let Some(keep) = std::env::var_os("ARCLAB_KEEP_SCREENSHOT") {
        std::fs::copy(&shot, keep).unwrap();
    }
}
