//! `arclab capture` end to end without a kernel: a fake kernel runs the ZFS
//! model over a workload and logs every demand read into a fake procfs
//! `reads` ring, in the exact layout of `module/zfs/spa_stats.c` (OpenZFS
//! 2.3.9: header `spa_read_history_show_header`, lines
//! `spa_read_history_show`), honouring the module parameters the capture
//! sets in a fake sysfs: the ring holds the last `zfs_read_history` reads
//! and hits are logged only with `zfs_read_history_hits=1`.
//!
//! What is pinned comes from the fake kernel itself, not from arclab's
//! output: how many reads it logged and how many of them it served from its
//! ARC.

mod common;

use arclab_arc::{Request, block_key};
use arclab_sim::scenario::Scenario;
use arclab_sim::whatif::Run;
use arclab_sim::whatif::plan::{Cap, PolicyName, single};
use arclab_zfs::capture::reads::{ReadRow, header_line};
use common::{arclab, json};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const RAM: u64 = 4 << 30;
const CAP: u64 = 256 << 20;
const OBJSET: u64 = 0x36;
/// `ARC_FLAG_CACHED` (include/sys/arc.h).
const CACHED: u32 = 1 << 3;

struct Host {
    _dir: tempfile::TempDir,
    procfs: PathBuf,
    sysfs: PathBuf,
    ram: u64,
    cap: u64,
}

impl Host {
    fn reads(&self) -> PathBuf {
        self.procfs.join("spl/kstat/zfs/tank/reads")
    }
    /// A parameter's value. A real sysfs write is atomic; on this fake one
    /// the capture truncates then writes, so an empty read is a write in
    /// progress: read again (bounded).
    fn param(&self, name: &str) -> String {
        let p = self.sysfs.join("module/zfs/parameters").join(name);
        for _ in 0..1000 {
            let v = std::fs::read_to_string(&p).unwrap().trim().to_string();
            if !v.is_empty() {
                return v;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        panic!("{} stayed empty", p.display());
    }
}

fn put(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A host with one pool `tank` (objset 0x36 = `tank/data`), 4 GiB of RAM,
/// zfs_arc_max 256 MiB, OpenZFS 2.3.9, read history off.
fn host() -> Host {
    host_of(RAM, CAP, 128 << 20)
}

/// [`host`] with other RAM and limits.
fn host_of(ram: u64, cap: u64, c_min: u64) -> Host {
    let dir = tempfile::tempdir().unwrap();
    let procfs = dir.path().join("proc");
    let sysfs = dir.path().join("sys");
    // A real 2.2+ arcstats with this host's limits written over its own.
    let real = std::fs::read_to_string(arclab_testdata::path(
        "arcstats/linux-openzfs22plus-telegraf.arcstats",
    ))
    .unwrap();
    let mut text = String::new();
    for line in real.lines() {
        let name = line.split_whitespace().next().unwrap_or("");
        let v = match name {
            "c" | "c_max" => Some(cap),
            "c_min" => Some(c_min),
            "memory_all_bytes" => Some(ram),
            _ => None,
        };
        match v {
            Some(v) => text.push_str(&format!("{name:<31} 4    {v}\n")),
            None => text.push_str(&format!("{line}\n")),
        }
    }
    put(&procfs.join("spl/kstat/zfs/arcstats"), &text);
    put(
        &procfs.join("meminfo"),
        &arclab_testdata::meminfo(ram / 1024, ram / 1024 / 2),
    );
    put(
        &procfs.join("spl/kstat/zfs/tank/objset-0x36"),
        "35 1 0x01 7 2160 5214515218 5216054541\nname                            type data\ndataset_name                    7    tank/data\nwrites                          4    0\n",
    );
    put(&procfs.join("spl/kstat/zfs/tank/reads"), &header_line());
    let params = sysfs.join("module/zfs/parameters");
    for (n, v) in [
        ("zfs_read_history", "0"),
        ("zfs_read_history_hits", "0"),
        ("zfs_prefetch_disable", "0"),
        ("zfs_arc_max", &cap.to_string()),
        ("zfs_arc_min", "0"),
    ] {
        put(&params.join(n), &format!("{v}\n"));
    }
    put(&sysfs.join("module/zfs/version"), "2.3.9-1\n");
    Host {
        _dir: dir,
        procfs,
        sysfs,
        ram,
        cap,
    }
}

/// The fake kernel's workload: (object, blkid) pairs — sequential runs
/// through eight 500-block files mixed with skewed random reads.
fn workload(n: usize) -> Vec<(u64, u64)> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut rnd = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let r = rnd();
        let obj = 1000 + r % 8;
        if r % 10 < 3 {
            let start = (r >> 8) % 400;
            for b in start..start + 64 {
                out.push((obj, b));
            }
        } else {
            // Skewed: small block ids far more often.
            let b = ((r >> 12) % 500) * ((r >> 40) % 500) / 500;
            out.push((obj, b));
        }
    }
    out.truncate(n);
    out
}

/// What the fake kernel did.
#[derive(Debug, Default)]
struct Logged {
    /// Lines appended to the ring (UIDs handed out).
    lines: u64,
    /// Demand reads it served from its ARC.
    hits: u64,
}

/// Run the model the way `whatif` runs a capture of this host (its RAM, its
/// zfs_arc_max, 2.3.9, prefetch on) over `work`, `chunk` reads every `pause`,
/// logging each into the ring once the capture has switched the history on.
fn fake_kernel(host: &Host, work: &[(u64, u64)], chunk: usize, pause: Duration) -> Logged {
    let deadline = Instant::now() + Duration::from_secs(20);
    // The capture sets the ring size, then the hits switch: wait for both,
    // or a first chunk read between the two would log no hits.
    while host.param("zfs_read_history") == "0" || host.param("zfs_read_history_hits") != "1" {
        assert!(
            Instant::now() < deadline,
            "the capture never enabled zfs_read_history and zfs_read_history_hits"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    // The host as `whatif` models a capture of it: 4 GiB, OpenZFS 2.3.9,
    // prefetch on, zfs_arc_max 256 MiB, the ARC's own reads (no dbuf layer
    // in front); no series points.
    let mut sc = Scenario::for_trace(host.ram);
    sc.zfs_version = "2.3.9".into();
    let mut spec = single(
        &sc,
        PolicyName::ZfsArc,
        "host",
        format!("{}", host.cap).parse::<Cap>().unwrap(),
    )
    .unwrap()
    .with_arc_reads();
    spec.series_step_ns = 0;
    let mut zfs = Run::new(&spec);
    let mut files: Vec<u64> = Vec::new();
    let mut ring: std::collections::VecDeque<String> = Default::default();
    let mut logged = Logged::default();
    let base_ns: u64 = 7_000_000_000_000;
    for (c, part) in work.chunks(chunk).enumerate() {
        let size: usize = host.param("zfs_read_history").parse().unwrap();
        let hits_on = host.param("zfs_read_history_hits") == "1";
        for (i, &(object, blkid)) in part.iter().enumerate() {
            let n = (c * chunk + i) as u64;
            let t = n * 20_000; // 50,000 reads/s
            let file = match files.iter().position(|&f| f == object) {
                Some(p) => p,
                None => {
                    files.push(object);
                    files.len() - 1
                }
            } as u32;
            let hit = zfs
                .step(&Request::read(t, block_key(file, 0, blkid), 128 << 10))
                .expect("not sampled");
            logged.hits += u64::from(hit);
            if hit && !hits_on || size == 0 {
                continue;
            }
            logged.lines += 1;
            let row = ReadRow {
                uid: logged.lines,
                start_ns: base_ns + t,
                objset: OBJSET,
                object,
                level: 0,
                blkid: blkid as i64,
                aflags: 0x2 | if hit { CACHED } else { 0 },
                origin: String::new(),
                pid: 4242,
                process: "postgres".into(),
            };
            ring.push_back(row.to_string());
            while ring.len() > size {
                ring.pop_front();
            }
        }
        // Readers see whole snapshots, as from the kernel's seq_file.
        let mut text = header_line();
        for l in &ring {
            text.push_str(l);
        }
        let tmp = host.reads().with_extension("tmp");
        std::fs::write(&tmp, text).unwrap();
        std::fs::rename(&tmp, host.reads()).unwrap();
        std::thread::sleep(pause);
    }
    logged
}

fn spawn_capture(host: &Host, out: &Path, extra: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_arclab"))
        .arg("capture")
        .arg("--procfs")
        .arg(&host.procfs)
        .arg("--sysfs")
        .arg(&host.sysfs)
        .arg("-o")
        .arg(out)
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Stop a capture as Ctrl-C would once the fake kernel is done: the capture
/// polls once more after the signal, so it has seen every read logged
/// before (a `--for` limit would race a slow machine).
fn stop(child: Child) -> (serde_json::Value, String) {
    let k = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(k.success());
    finish(child)
}

fn finish(child: Child) -> (serde_json::Value, String) {
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "capture failed: {err}");
    (serde_json::from_slice(&out.stdout).unwrap(), err)
}

#[test]
fn a_capture_replayed_through_the_model_reproduces_the_kernels_hits_exactly() {
    let h = host();
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("capture.arct");
    let child = spawn_capture(&h, &out, &["--for", "5m", "--poll", "20ms", "--json"]);
    let work = workload(30_000);
    let logged = fake_kernel(&h, &work, 1000, Duration::from_millis(20));
    let (rep, _) = stop(child);
    // Every read the fake kernel logged was captured, none lost.
    assert_eq!(rep["lost"], 0, "{rep}");
    assert_eq!(rep["records"], logged.lines);
    assert_eq!(logged.lines, 30_000);
    assert_eq!(rep["tally"]["demand_cached"], logged.hits);
    // The parameters are back as they were.
    assert_eq!(h.param("zfs_read_history"), "0");
    assert_eq!(h.param("zfs_read_history_hits"), "0");

    // The self-check: the capture replayed at the host's cap agrees with
    // the fake kernel on every single read.
    let path = out.display().to_string();
    let w = json(&["whatif", "--trace", &path, "--caps", "128M", "--json"]);
    let sc = &w["self_check"];
    assert_eq!(sc["whole"]["reads"], 30_000, "{sc}");
    assert_eq!(sc["whole"]["kernel_hits"], logged.hits);
    assert_eq!(sc["whole"]["model_hits"], logged.hits);
    assert_eq!(sc["whole"]["model_only"], 0);
    assert_eq!(sc["whole"]["kernel_only"], 0);
    assert!(logged.hits > 3_000 && logged.hits < 27_000, "{logged:?}");
    // The text says it in words.
    let text = common::ok(&["whatif", "--trace", &path, "--caps", "128M"])
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let pct = format!("{:.2} %", logged.hits as f64 / 300.0);
    assert!(
        text.contains(&format!("the model says {pct}, your kernel measured {pct}")),
        "{text}"
    );

    // `sim` replays the same reads with per-file keys: same hits at the same cap.
    let s = json(&[
        "sim",
        "--trace",
        &path,
        "--policy",
        "zfs-arc",
        "--ram",
        "4G",
        "-s",
        "256M",
        "--zfs-version",
        "2.3",
        "--json",
    ]);
    let row = &s["results"][0];
    assert_eq!(row["n_req"], 30_000, "{s}");
    assert_eq!(row["n_miss"], 30_000 - logged.hits, "{s}");
}

#[test]
fn a_ring_polled_too_slowly_loses_reads_and_says_how_many() {
    let h = host();
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("slow.arct");
    let child = spawn_capture(
        &h,
        &out,
        &["--for", "5m", "--poll", "1s", "--ring", "300", "--json"],
    );
    let work = workload(20_000);
    let logged = fake_kernel(&h, &work, 1000, Duration::from_millis(20));
    let (rep, _) = stop(child);
    let (records, lost) = (
        rep["records"].as_u64().unwrap(),
        rep["lost"].as_u64().unwrap(),
    );
    assert!(lost > 0, "{rep}");
    // Every UID the kernel handed out is either captured or counted lost.
    assert_eq!(records + lost, logged.lines, "{rep}");
    // It polled faster once it saw the ring wrap.
    assert!(
        rep["tally"]["min_poll_ms"].as_f64().unwrap() < 1000.0,
        "{rep}"
    );
    assert_eq!(h.param("zfs_read_history"), "0");
    // The text names the loss.
    let info = common::ok(&["trace", "info", &out.display().to_string()]);
    assert!(info.contains(&format!("{lost}")), "{info}");
}

#[test]
fn sigterm_and_sigint_stop_the_capture_restore_the_parameters_and_keep_the_trace() {
    for sig in ["TERM", "INT"] {
        let h = host();
        let d = tempfile::tempdir().unwrap();
        let out = d.path().join("sig.arct");
        let child = spawn_capture(&h, &out, &["--poll", "20ms", "--json"]);
        let pid = child.id().to_string();
        let work = workload(10_000);
        let logged = fake_kernel(&h, &work, 1000, Duration::from_millis(10));
        std::thread::sleep(Duration::from_millis(300));
        let k = Command::new("kill")
            .args([&format!("-{sig}"), &pid])
            .status()
            .unwrap();
        assert!(k.success());
        let (rep, _) = finish(child);
        assert_eq!(rep["stopped_by"], "signal");
        assert_eq!(rep["records"], logged.lines);
        assert_eq!(h.param("zfs_read_history"), "0", "SIG{sig}");
        assert_eq!(h.param("zfs_read_history_hits"), "0", "SIG{sig}");
        let info = json(&["trace", "info", &out.display().to_string(), "--json"]);
        assert_eq!(info["n_req"], logged.lines, "SIG{sig}: {info}");
    }
}

#[test]
fn a_bad_reads_file_fails_naming_it_and_still_restores_the_parameters() {
    let h = host();
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("bad.arct");
    let child = spawn_capture(&h, &out, &["--for", "5s", "--poll", "20ms"]);
    let deadline = Instant::now() + Duration::from_secs(20);
    while h.param("zfs_read_history") == "0" {
        assert!(Instant::now() < deadline);
        std::thread::sleep(Duration::from_millis(2));
    }
    put(&h.reads(), "txg      birth            state\n");
    let res = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&res.stderr);
    assert_eq!(res.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!(
            "{}: line 1: not a read-history header",
            h.reads().display()
        )),
        "{err}"
    );
    assert_eq!(h.param("zfs_read_history"), "0");
    assert_eq!(h.param("zfs_read_history_hits"), "0");
}

#[test]
fn an_existing_output_is_never_replaced_and_a_host_without_pools_is_an_error() {
    let h = host();
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("keep.arct");
    std::fs::write(&out, "precious").unwrap();
    let p = |x: &Path| x.display().to_string();
    let r = arclab(&[
        "capture",
        "--procfs",
        &p(&h.procfs),
        "--sysfs",
        &p(&h.sysfs),
        "--for",
        "1s",
        "-o",
        &p(&out),
    ]);
    assert_eq!(r.status.code(), Some(1));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "precious");
    std::fs::remove_file(h.reads()).unwrap();
    let out2 = d.path().join("none.arct");
    let r = arclab(&[
        "capture",
        "--procfs",
        &p(&h.procfs),
        "--sysfs",
        &p(&h.sysfs),
        "--for",
        "1s",
        "-o",
        &p(&out2),
    ]);
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(1), "{err}");
    assert!(err.contains("no pool has a `reads` read history"), "{err}");
    assert!(
        !out2.exists(),
        "a failed capture with no records leaves no file"
    );
    assert_eq!(h.param("zfs_read_history"), "0");
}

#[test]
fn the_walkthrough_in_docs_capture_md_runs() {
    // A 16 GiB host capped at 1 GiB, so the doc's `--caps 8G,default` applies.
    let h = host_of(16 << 30, 1 << 30, 512 << 20);
    let d = tempfile::tempdir().unwrap();
    let doc = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/capture.md"),
    )
    .unwrap();
    let block = doc
        .split("<!-- walkthrough:")
        .nth(1)
        .and_then(|b| b.split("```sh\n").nth(1))
        .and_then(|b| b.split("```").next())
        .expect("docs/capture.md has the walkthrough block");
    let lines: Vec<&str> = block.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 3, "{block}");
    let (procfs, sysfs) = (
        h.procfs.display().to_string(),
        h.sysfs.display().to_string(),
    );
    let mut last = String::new();
    for line in lines {
        let mut words: Vec<String> = line.split_whitespace().map(String::from).collect();
        assert_eq!(words[0], "arclab");
        let sub = words[1].clone();
        // The doc's ten minutes become three seconds; the fake host's roots are added.
        if let Some(i) = words.iter().position(|w| w == "--for") {
            words[i + 1] = "3s".into();
        }
        if sub == "capture" || sub == "scenario" {
            words.extend([
                "--procfs".into(),
                procfs.clone(),
                "--sysfs".into(),
                sysfs.clone(),
            ]);
        }
        if sub == "capture" {
            words.extend(["--poll".into(), "20ms".into()]);
        }
        let child = Command::new(env!("CARGO_BIN_EXE_arclab"))
            .args(&words[1..])
            .current_dir(d.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        if sub == "capture" {
            fake_kernel(&h, &workload(20_000), 1000, Duration::from_millis(20));
        }
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{line}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        last = String::from_utf8_lossy(&out.stdout).to_string();
    }
    let text = last.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        text.contains("self-check at your host's c_max (1.00 GiB)"),
        "{text}"
    );
    assert!(text.contains("8G"), "{text}");
    assert_eq!(h.param("zfs_read_history"), "0");
}

#[test]
fn a_sampled_capture_keeps_whole_blocks_and_whatif_scales_it_back() {
    let h = host();
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("half.arct");
    let child = spawn_capture(
        &h,
        &out,
        &[
            "--for",
            "5m",
            "--poll",
            "20ms",
            "--sample-rate",
            "0.5",
            "--json",
        ],
    );
    let work = workload(30_000);
    let logged = fake_kernel(&h, &work, 1000, Duration::from_millis(20));
    let (rep, _) = stop(child);
    assert_eq!(logged.lines, 30_000);
    // Exactly the reads of the kept blocks: every read of a block or none.
    let kept = work
        .iter()
        .filter(|&&(o, b)| arclab_zfs::capture::sampled_in(0.5, OBJSET, o, b))
        .count() as u64;
    assert_eq!(rep["records"], kept, "{rep}");
    assert!((12_000..18_000).contains(&kept), "{kept}");
    // Checked from the file, not from the sampler: every block the workload
    // read is in the capture with all its reads or with none of them.
    let mut in_work: std::collections::HashMap<(u64, u64), u64> = Default::default();
    for &(o, b) in &work {
        *in_work.entry((o, b)).or_default() += 1;
    }
    let mut in_file: std::collections::HashMap<(u64, u64), u64> = Default::default();
    let f = std::fs::File::open(&out).unwrap();
    let reader =
        arclab_trace::capture::CaptureReader::new(std::io::BufReader::new(f), "half.arct").unwrap();
    for r in reader {
        let r = r.unwrap();
        *in_file.entry((r.object, r.blkid)).or_default() += 1;
    }
    assert!(!in_file.is_empty());
    for (block, n) in &in_file {
        assert_eq!(
            in_work.get(block),
            Some(n),
            "block {block:?} split by sampling"
        );
    }
    assert_eq!(in_file.values().sum::<u64>(), kept);
    assert_eq!(rep["tally"]["sampled_out"], 30_000 - kept);
    let path = out.display().to_string();
    let w = json(&["whatif", "--trace", &path, "--caps", "1G", "--json"]);
    assert!(
        w["sampling"]
            .as_str()
            .unwrap()
            .contains("the capture was sampled when it was taken"),
        "{w}"
    );
    // Requests scaled back to the whole host's.
    let n = w["rows"][0]["n_req"].as_u64().unwrap();
    assert_eq!(n, (kept as f64 / 0.5).round() as u64, "{w}");
    assert_eq!(w["self_check"]["sampled"], 0.5);
    assert_eq!(w["self_check"]["whole"]["reads"], kept);
    // A cap whose miniature would fall under 64 MiB is refused with the arithmetic.
    let err = common::fails(&["whatif", "--trace", &path, "--caps", "100M"], 1);
    assert!(err.contains("below ZFS's 64 MiB minimum"), "{err}");
    // Sampling twice is refused.
    let err = common::fails(&["whatif", "--trace", &path, "--sample-rate", "0.1"], 2);
    assert!(err.contains("sampled at 0.5 when it was taken"), "{err}");
}

#[test]
fn the_ring_grows_with_the_read_rate_and_is_restored() {
    let h = host();
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("fast.arct");
    // Already at the fastest poll: a ring found more than half new doubles.
    let child = spawn_capture(&h, &out, &["--for", "5m", "--poll", "5ms", "--json"]);
    let work = workload(240_000);
    let logged = fake_kernel(&h, &work, 60_000, Duration::from_millis(300));
    let (rep, _) = stop(child);
    assert!(rep["tally"]["ring"].as_u64().unwrap() >= 200_000, "{rep}");
    let (records, lost) = (
        rep["records"].as_u64().unwrap(),
        rep["lost"].as_u64().unwrap(),
    );
    assert_eq!(records + lost, logged.lines, "{rep}");
    assert_eq!(h.param("zfs_read_history"), "0");
    assert_eq!(
        rep["parameters_restored"][0],
        format!(
            "zfs_read_history=0 (was {} during the capture)",
            rep["tally"]["ring"]
        )
    );
}
