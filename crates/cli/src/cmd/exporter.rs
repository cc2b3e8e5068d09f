//! `arclab exporter`: the ARC as Prometheus metrics, with the answers built
//! in. The metrics are [`arclab_zfs::exposition`]'s; this is the HTTP side.

use anyhow::{Result, anyhow};
use arclab_zfs::exposition::{self, CONTENT_TYPE_OPENMETRICS, CONTENT_TYPE_TEXT};
use arclab_zfs::host::{self, Kstats, Meminfo, ModuleParams};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Serve the ARC's statistics to Prometheus on /metrics: every arcstats field
/// (as `arclab_zfs_arc_<field>`, counters with `_total`), plus the answers —
/// default c_max for the inferred release, non-evictable bytes by contributor,
/// overshoot, reclaimable and effective available memory, the zfs_arc_max in
/// force and whether ZFS accepted it, and the release as an info metric.
/// Each scrape reads the kstats once (files capped at 1 MiB); when they cannot
/// be read the scrape answers 503 with `arclab_up 0` and the reason, and the
/// exporter keeps serving. Stops cleanly on SIGINT / SIGTERM.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:\n  \
    arclab exporter                    (serves http://127.0.0.1:9615/metrics until interrupted)\n  \
    arclab exporter --listen 0.0.0.0:9615 --procfs /host/proc --sysfs /host/sys\n  \
    arclab exporter --once --arcstats saved-arcstats.txt   (one scrape to stdout)\n  \
    arclab exporter --once --openmetrics --arcstats saved-arcstats.txt\n\n\
    Prometheus: scrape_configs: [{job_name: arclab, static_configs: [{targets: ['host:9615']}]}]\n\
    Grafana: import dashboards/arclab-arc.json (docs/live.md).")]
pub(crate) struct ExporterArgs {
    /// Address to listen on (port 0: any free port, printed on stderr).
    #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:9615")]
    listen: SocketAddr,
    /// procfs root: reads DIR/spl/kstat/zfs/{arcstats,zfetchstats,dbufstats} and DIR/meminfo [default: /proc].
    #[arg(long, value_name = "DIR", conflicts_with = "arcstats")]
    procfs: Option<PathBuf>,
    /// A saved Linux arcstats file, re-read on every scrape (instead of procfs).
    #[arg(long, value_name = "FILE")]
    arcstats: Option<PathBuf>,
    /// sysfs root: reads DIR/module/zfs/{version,parameters/zfs_arc_max} [default: /sys;
    /// none with --arcstats].
    #[arg(long, value_name = "DIR")]
    sysfs: Option<PathBuf>,
    /// Print one scrape to stdout and exit (no server).
    #[arg(long)]
    once: bool,
    /// With --once: OpenMetrics 1.0 instead of the text format 0.0.4.
    #[arg(long, requires = "once")]
    openmetrics: bool,
}

/// What one scrape read: the kstats, meminfo and parameters when readable,
/// and notes on the optional ones that were not.
struct Read {
    kstats: Kstats,
    meminfo: Option<Meminfo>,
    params: Option<ModuleParams>,
    notes: Vec<String>,
}

/// Where one scrape reads.
struct Source {
    procfs: Option<PathBuf>,
    arcstats: Option<PathBuf>,
    sysfs: Option<PathBuf>,
}

impl Source {
    fn new(args: &ExporterArgs) -> Self {
        let procfs = match (&args.procfs, &args.arcstats) {
            (Some(p), _) => Some(p.clone()),
            (None, None) => Some(PathBuf::from("/proc")),
            (None, Some(_)) => None,
        };
        let sysfs = match (&args.sysfs, &args.arcstats) {
            (Some(s), _) => Some(s.clone()),
            (None, None) => Some(PathBuf::from("/sys")),
            (None, Some(_)) => None,
        };
        Source {
            procfs,
            arcstats: args.arcstats.clone(),
            sysfs,
        }
    }

    /// One read of everything (bounded: the host readers cap every file).
    /// Only the kstats are required; meminfo and parameters are optional
    /// and their errors are returned as notes.
    fn read(&self) -> Result<Read> {
        let mut notes = Vec::new();
        let k = match (&self.arcstats, &self.procfs) {
            (Some(f), _) => host::read_kstat_file(f)?,
            (None, Some(p)) => host::read_procfs(p)?,
            (None, None) => return Err(anyhow!("nothing to read")),
        };
        let mem = match self.procfs.as_deref().map(host::procfs_meminfo) {
            Some(Ok(m)) => m,
            Some(Err(e)) => {
                notes.push(e.to_string());
                None
            }
            None => None,
        };
        let params = match self.sysfs.as_deref().map(host::read_sysfs) {
            Some(Ok(p)) if p.version.is_some() || p.arc_max.is_some() => Some(p),
            Some(Ok(_)) | None => None,
            Some(Err(e)) => {
                notes.push(e.to_string());
                None
            }
        };
        Ok(Read {
            kstats: k,
            meminfo: mem,
            params,
            notes,
        })
    }

    /// The body of one scrape: `(HTTP status, body, notes)`. Never panics
    /// out: a panic in reading or formatting becomes a 500.
    fn scrape(&self, om: bool) -> (u16, String, Vec<String>) {
        let run = || {
            let t0 = Instant::now();
            match self.read() {
                Ok(r) => {
                    let secs = t0.elapsed().as_secs_f64();
                    let body = exposition::exposition_timed(
                        &r.kstats,
                        r.meminfo.as_ref(),
                        r.params.as_ref(),
                        om,
                        Some(secs),
                    );
                    (200, body, r.notes)
                }
                Err(e) => {
                    let msg = format!("{e:#}");
                    (503, exposition::exposition_down(&msg, om), vec![msg])
                }
            }
        };
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)).unwrap_or_else(|_| {
            let msg = "internal error while reading the ARC (a bug: please report it)".to_string();
            (500, exposition::exposition_down(&msg, om), vec![msg])
        })
    }
}

/// Replies being written at once (slow clients); more are dropped.
const MAX_WRITERS: usize = 8;

const INDEX: &str = "<!DOCTYPE html>\n<html><head><title>arclab exporter</title></head><body>\n\
<h1>arclab exporter</h1>\n<p>The ZFS ARC as Prometheus metrics, with the answers built in: \
<a href=\"/metrics\">/metrics</a>.</p>\n<p>Metric list and Grafana dashboard: docs/live.md in arclab.</p>\n\
</body></html>\n";

fn header(name: &str, value: &str) -> tiny_http::Header {
    // Both are ASCII constants of this file: from_bytes cannot fail on them.
    tiny_http::Header::from_bytes(name.as_bytes(), value.as_bytes()).expect("ASCII header")
}

pub(crate) fn run(args: ExporterArgs) -> Result<()> {
    let src = Source::new(&args);
    if args.once {
        let (code, body, notes) = src.scrape(args.openmetrics);
        for n in &notes {
            crate::output::note(&format!("arclab exporter: {n}"));
        }
        if code != 200 {
            return Err(anyhow!("{}", notes.join("; ")));
        }
        return crate::output::print(&body);
    }
    let server = tiny_http::Server::http(args.listen)
        .map_err(|e| anyhow!("{}: cannot listen: {e}", args.listen))?;
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(sig, Arc::clone(&stop))?;
    }
    let addr = server
        .server_addr()
        .to_ip()
        .map_or_else(|| args.listen.to_string(), |a| a.to_string());
    crate::output::note(&format!(
        "arclab exporter: serving http://{addr}/metrics (reading {})",
        match (&src.arcstats, &src.procfs) {
            (Some(f), _) => f.display().to_string(),
            (None, Some(p)) => p.display().to_string(),
            (None, None) => String::new(),
        }
    ));
    let mut last_ok = true;
    let writers = Arc::new(AtomicUsize::new(0));
    while !stop.load(Ordering::Relaxed) {
        let req = match server.recv_timeout(Duration::from_millis(200)) {
            Ok(Some(r)) => r,
            Ok(None) => continue,
            Err(e) => {
                crate::output::note(&format!("arclab exporter: accept: {e}"));
                std::thread::sleep(Duration::from_millis(200));
                continue;
            }
        };
        let path = req.url().split('?').next().unwrap_or("").to_string();
        let method = req.method().clone();
        let get = matches!(method, tiny_http::Method::Get | tiny_http::Method::Head);
        let resp = match (get, path.as_str()) {
            (false, _) => tiny_http::Response::from_string("only GET and HEAD\n")
                .with_status_code(405)
                .with_header(header("Allow", "GET, HEAD")),
            (true, "/metrics") => {
                let om = req
                    .headers()
                    .iter()
                    .filter(|h| h.field.equiv("Accept"))
                    .any(|h| exposition::wants_openmetrics(h.value.as_str()));
                let (code, body, notes) = src.scrape(om);
                let ok = code == 200;
                // Log changes of state, not every failed scrape.
                if ok != last_ok {
                    crate::output::note(&format!(
                        "arclab exporter: {}",
                        if ok {
                            "reading the ARC again".to_string()
                        } else {
                            notes.join("; ")
                        }
                    ));
                    last_ok = ok;
                }
                tiny_http::Response::from_string(body)
                    .with_status_code(code)
                    .with_header(header(
                        "Content-Type",
                        if om {
                            CONTENT_TYPE_OPENMETRICS
                        } else {
                            CONTENT_TYPE_TEXT
                        },
                    ))
            }
            (true, "/") => tiny_http::Response::from_string(INDEX)
                .with_header(header("Content-Type", "text/html; charset=utf-8")),
            (true, _) => {
                tiny_http::Response::from_string("not found: try /metrics\n").with_status_code(404)
            }
        };
        // The reply is written by its own thread, so a client that does not
        // read cannot stall the next scrape; at most MAX_WRITERS at a time,
        // beyond that the request is dropped (tiny_http answers it with a 500).
        if writers.load(Ordering::Acquire) >= MAX_WRITERS {
            continue;
        }
        writers.fetch_add(1, Ordering::AcqRel);
        let w = Arc::clone(&writers);
        std::thread::spawn(move || {
            // A client that hung up is its problem, not the exporter's.
            let _ = req.respond(resp);
            w.fetch_sub(1, Ordering::AcqRel);
        });
    }
    crate::output::note("arclab exporter: stopped");
    Ok(())
}
