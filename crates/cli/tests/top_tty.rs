//! The full-screen `arclab top` in a real terminal: tmux runs the built
//! binary on a fake procfs/sysfs that the test rewrites between frames; the
//! captured screen must show the fixture's values and the events, the keys
//! must act, and after `q` the process exits 0 with the terminal restored
//! (cooked mode, main screen, cursor visible).
//!
//! Skipped, with a message, when tmux is not installed (`.ci/run` installs it).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// A private tmux server, killed when dropped (also when the test fails).
struct Tmux {
    socket: String,
}

impl Tmux {
    /// A private tmux server for one test (`tag` keeps the tests apart).
    fn new(tag: &str) -> Tmux {
        Tmux {
            socket: format!("arclab-top-{tag}-{}", std::process::id()),
        }
    }

    fn run(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .args(["-L", &self.socket, "-f", "/dev/null"])
            .args(args)
            .output()
            .expect("running tmux")
    }

    fn ok(&self, args: &[&str]) -> String {
        let o = self.run(args);
        assert!(
            o.status.success(),
            "tmux {args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8_lossy(&o.stdout).into_owned()
    }

    /// Start the session `top` of `w`×`h` cells running `sh -c script`.
    fn start(&self, w: u16, h: u16, script: &str) {
        let (w, h) = (w.to_string(), h.to_string());
        self.ok(&[
            "new-session",
            "-d",
            "-s",
            "top",
            "-x",
            &w,
            "-y",
            &h,
            "sh",
            "-c",
            script,
        ]);
    }

    /// The pane is back on the main screen with a visible cursor.
    fn assert_main_screen_with_cursor(&self) {
        let flags = self.ok(&[
            "display-message",
            "-p",
            "-t",
            "top",
            "#{alternate_on} #{cursor_flag}",
        ]);
        assert_eq!(flags.trim(), "0 1", "alternate screen on / cursor hidden");
    }

    fn screen(&self) -> String {
        self.ok(&["capture-pane", "-p", "-t", "top"])
    }

    fn keys(&self, k: &str) {
        self.ok(&["send-keys", "-t", "top", k]);
    }

    /// Wait (at most 15 s) until the screen satisfies `cond`; the last screen.
    fn wait(&self, what: &str, cond: impl Fn(&str) -> bool) -> String {
        let t0 = Instant::now();
        loop {
            let s = self.screen();
            if cond(&s) {
                return s;
            }
            assert!(
                t0.elapsed() < Duration::from_secs(15),
                "timed out waiting for {what}; screen:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}

/// The fake host: `proc/` and `sys/` under a temporary directory.
struct Host {
    _dir: tempfile::TempDir,
    proc_: PathBuf,
    sys: PathBuf,
    arcstats: String,
}

/// Replace the value of row `name` in kstat text (rows are `name type value`).
fn set(text: &str, name: &str, value: u64) -> String {
    let mut found = false;
    let out: Vec<String> = text
        .lines()
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            if w.len() == 3 && w[0] == name {
                found = true;
                format!("{:<31} {}    {value}", w[0], w[1])
            } else {
                l.to_string()
            }
        })
        .collect();
    assert!(found, "no row {name}");
    out.join("\n") + "\n"
}

fn atomic_write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

impl Host {
    fn new() -> Host {
        let dir = tempfile::tempdir().unwrap();
        let proc_ = dir.path().join("proc");
        let sys = dir.path().join("sys");
        let arcstats = std::fs::read_to_string(arclab_testdata::path(
            "arcstats/linux-openzfs22plus-telegraf.arcstats",
        ))
        .unwrap();
        // MemAvailable 4 GiB = 4194304 kB (given; the fixture has no meminfo).
        atomic_write(
            &proc_.join("meminfo"),
            "MemTotal:       32746580 kB\nMemFree:         5072496 kB\nMemAvailable:    4194304 kB\n",
        );
        atomic_write(&sys.join("module/zfs/parameters/zfs_arc_max"), "0\n");
        // The module's version string (made up, inside the range the
        // fixture's layout gives): the header shows it rather than the range.
        atomic_write(&sys.join("module/zfs/version"), "2.3.1-1\n");
        let h = Host {
            _dir: dir,
            proc_,
            sys,
            arcstats,
        };
        h.write();
        h
    }

    fn write(&self) {
        atomic_write(&self.proc_.join("spl/kstat/zfs/arcstats"), &self.arcstats);
    }

    fn update(&mut self, rows: &[(&str, u64)]) {
        for (n, v) in rows {
            self.arcstats = set(&self.arcstats, n, *v);
        }
        self.write();
    }

    fn snaptime(&mut self, ns: u64) {
        let mut lines: Vec<String> = self.arcstats.lines().map(String::from).collect();
        let mut head: Vec<String> = lines[0].split_whitespace().map(String::from).collect();
        head[6] = ns.to_string();
        lines[0] = head.join(" ");
        self.arcstats = lines.join("\n") + "\n";
        self.write();
    }

    fn arc_max(&self, v: u64) {
        atomic_write(
            &self.sys.join("module/zfs/parameters/zfs_arc_max"),
            &format!("{v}\n"),
        );
    }
}

fn tmux_present() -> bool {
    Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
}

const G: u64 = 1 << 30;

/// Values (from data/arcstats/linux-openzfs22plus-telegraf.arcstats): size
/// 14960038920 B = 13.93 GiB, c 15590628496 B = 14.52 GiB, c_max
/// 32458756096 B = 30.23 GiB, evictable (mru/mfu_evictable_*) 10862729216 B
/// = 10.12 GiB, so really available = 4 GiB MemAvailable + 10.12 GiB =
/// 14.12 GiB; hits 33266704081.
#[test]
fn full_screen_top_in_tmux() {
    if !tmux_present() {
        eprintln!("SKIPPED: tmux is not installed (apt-get install tmux; .ci/run installs it)");
        return;
    }
    let mut host = Host::new();
    let tmux = Tmux::new("test");
    let bin = env!("CARGO_BIN_EXE_arclab");
    // After top exits, the shell reports its status and the terminal modes,
    // then stays so the pane can be captured.
    let script = format!(
        "'{bin}' top --procfs '{}' --sysfs '{}' --interval 200ms; \
         echo \"EXIT=$?\"; stty -a | tr ' ;' '\\n\\n' | grep -x -e icanon -e -icanon -e echo -e -echo | tr '\\n' ' '; echo END; sleep 60",
        host.proc_.display(),
        host.sys.display()
    );
    tmux.start(120, 40, &script);

    let s = tmux.wait("the first screen", |s| s.contains("really available"));
    for want in [
        "ZFS 2.3.1-1 (module)",
        "size    13.93 GiB",
        "c       14.52 GiB",
        "c_max   30.23 GiB",
        "really available 14.12 GiB = MemAvailable 4.00 GiB + ARC reclaimable 10.12 GiB",
        "MRU     3.38 GiB",
    ] {
        assert!(s.contains(want), "missing {want:?}:\n{s}");
    }
    assert_eq!(s.lines().count(), 40, "{s}");

    // c falls 14.52 → 12.00 GiB and size gives back 14960038920 − 13958643712
    // = 1001395208 B = 955.00 MiB; the memory throttle counter rises by 7;
    // arc_no_grow is set; hits advance so the rates move.
    host.update(&[
        ("c", 12 * G),
        ("size", 13 * G),
        ("memory_throttle_count", 7),
        ("arc_no_grow", 1),
        ("hits", 33_266_704_081 + 50_000),
    ]);
    let s = tmux.wait("c fell, throttle and no_grow events", |s| {
        s.contains("c fell 14.52 GiB → 12.00 GiB (−2.52 GiB); size gave back 955.00 MiB")
            && s.contains("memory_throttle_count +7")
            && s.contains("arc_no_grow set")
    });
    assert!(s.contains("c       12.00 GiB"), "{s}");

    // A value ZFS ignores (1 MiB, below its 64 MiB floor): c_max stays.
    host.arc_max(1 << 20);
    tmux.wait("arc_max rejected", |s| {
        s.contains("zfs_arc_max 0 (automatic) → 1.00 MiB; c_max still 30.23 GiB: NOT in force")
            && s.contains("zfs_arc_max 1.00 MiB is NOT in force")
    });

    // A counter reset (hits went down) and a 10 s jump of snaptime at a
    // 200 ms interval: 10 / 0.2 − 1 = 49 missed intervals.
    host.update(&[("hits", 5)]);
    tmux.wait("reset", |s| s.contains("RESET: hits went down"));
    host.snaptime(1_351_143_854_159_630 + 10_000_000_000);
    tmux.wait("missed intervals", |s| {
        s.contains("missed 49 intervals (10.00 s since the last sample)")
            && s.contains("missed intervals 49")
    });

    // p pauses: the header says so, and what changes meanwhile is not drawn:
    // c falls to 10 GiB, zfs_arc_max is set to 8 GiB and ZFS takes it (c_max
    // follows; both files change during the pause, so no sample sees one
    // without the other)…
    tmux.keys("p");
    tmux.wait("paused", |s| s.contains("PAUSED"));
    host.arc_max(8 * G);
    host.update(&[("c", 10 * G), ("c_max", 8 * G)]);
    std::thread::sleep(Duration::from_millis(800));
    let s = tmux.screen();
    assert!(!s.contains("→ 10.00 GiB") && s.contains("PAUSED"), "{s}");
    // …until p resumes: the pause and the changes during it are events.
    tmux.keys("p");
    tmux.wait("resumed", |s| {
        !s.contains("PAUSED")
            && s.contains("c fell 12.00 GiB → 10.00 GiB")
            && s.contains("zfs_arc_max 1.00 MiB → 8.00 GiB; c_max 30.23 GiB → 8.00 GiB: in force")
            && s.contains("no rates for that time")
            && s.contains("c       10.00 GiB")
            && s.contains("c_max    8.00 GiB  default 30.23 GiB (zfs_arc_max set)")
    });

    // h shows the help with the rule; h again closes it.
    tmux.keys("h");
    tmux.wait("help", |s| {
        s.contains("help (h closes)") && s.contains("size − max(c_min, non-evictable)")
    });
    tmux.keys("h");
    tmux.wait("help closed", |s| !s.contains("help (h closes)"));

    // The overview of the test run, for docs/live.md when asked for.
    if let Ok(p) = std::env::var("ARCLAB_TOP_CAPTURE") {
        std::fs::write(p, tmux.screen()).unwrap();
    }

    // 2: the ARC panel with the contributors (dnode_size 1104341896 B = 1.03 GiB).
    tmux.keys("2");
    tmux.wait("ARC panel", |s| {
        s.contains("why size > c") && s.contains("dnode") && s.contains("1.03 GiB")
    });
    // 3: rates and events.
    tmux.keys("3");
    tmux.wait("rates panel", |s| {
        s.contains("ghost/s") && s.contains("events (")
    });

    // A resize redraws at the new size.
    tmux.ok(&["resize-window", "-t", "top", "-x", "80", "-y", "24"]);
    let s = tmux.wait("resize", |s| {
        s.lines().count() == 24 && s.contains("arclab top")
    });
    assert!(s.lines().all(|l| l.chars().count() <= 80), "{s}");

    // q quits with status 0 and the terminal restored.
    tmux.keys("q");
    let s = tmux.wait("exit", |s| s.contains("EXIT=") && s.contains("END"));
    assert!(s.contains("EXIT=0"), "{s}");
    assert!(
        s.contains("icanon") && !s.contains("-icanon") && !s.contains("-echo"),
        "terminal left in raw mode:\n{s}"
    );
    assert!(
        !s.contains("arclab top ·"),
        "alternate screen not left:\n{s}"
    );
    tmux.assert_main_screen_with_cursor();
}

/// A terminal that goes away (its tmux server killed: the pty hangs up and
/// the process gets SIGHUP) ends `top` within a second or two; it must not
/// keep running on the dead tty (crossterm reads its EOF in a loop: a process
/// left behind that way spun at 100 % of a core for over an hour).
#[test]
fn a_hung_up_terminal_ends_top() {
    if !tmux_present() {
        eprintln!("SKIPPED: tmux is not installed (apt-get install tmux; .ci/run installs it)");
        return;
    }
    let host = Host::new();
    let tmux = Tmux::new("hup");
    let bin = env!("CARGO_BIN_EXE_arclab");
    let script = format!(
        "echo $$ > '{}/pid'; exec '{bin}' top --procfs '{}'",
        host.proc_.display(),
        host.proc_.display()
    );
    tmux.start(100, 30, &script);
    tmux.wait("the first screen", |s| s.contains("really available"));
    let pid = std::fs::read_to_string(host.proc_.join("pid")).unwrap();
    let proc_dir = std::path::PathBuf::from(format!("/proc/{}", pid.trim()));
    assert!(proc_dir.exists());
    tmux.ok(&["kill-server"]);
    let deadline = Instant::now() + Duration::from_secs(10);
    // Gone, or a zombie waiting for tmux (already dead) to reap it.
    let alive = || {
        std::fs::read_to_string(proc_dir.join("stat"))
            .is_ok_and(|st| !st.split(") ").nth(1).unwrap_or("").starts_with('Z'))
    };
    while alive() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let still = alive();
    if still {
        let _ = Command::new("kill").args(["-9", pid.trim()]).status();
    }
    assert!(
        !still,
        "arclab top still running 10 s after its terminal hung up"
    );
}

/// SIGTERM also restores the terminal.
#[test]
fn sigterm_restores_the_terminal() {
    if !tmux_present() {
        eprintln!("SKIPPED: tmux is not installed (apt-get install tmux; .ci/run installs it)");
        return;
    }
    let host = Host::new();
    let tmux = Tmux::new("term");
    let bin = env!("CARGO_BIN_EXE_arclab");
    let script = format!(
        "'{bin}' top --procfs '{}' & echo $! > '{}/pid'; wait $!; echo \"EXIT=$?\"; \
         stty -a | tr ' ;' '\\n\\n' | grep -x -e icanon -e -icanon | tr '\\n' ' '; echo END; sleep 60",
        host.proc_.display(),
        host.proc_.display()
    );
    tmux.start(100, 30, &script);
    tmux.wait("the first screen", |s| s.contains("really available"));
    let pid = std::fs::read_to_string(host.proc_.join("pid")).unwrap();
    let st = Command::new("kill")
        .args(["-TERM", pid.trim()])
        .status()
        .unwrap();
    assert!(st.success());
    let s = tmux.wait("exit", |s| s.contains("EXIT=") && s.contains("END"));
    assert!(
        s.contains("EXIT=0") && s.contains("icanon") && !s.contains("-icanon"),
        "{s}"
    );
    tmux.assert_main_screen_with_cursor();
}

/// A panic restores the terminal (the panic hook), and its message is
/// printed on the main screen. The panic is triggered through a variable
/// that only debug builds (the ones tests run) look at.
#[test]
fn a_panic_restores_the_terminal() {
    if !cfg!(debug_assertions) {
        // The binary built beside this test has the same profile: a release
        // build has no panic hook to trigger (CI tests the debug profile).
        eprintln!("SKIPPED: ARCLAB_TOP_TEST_PANIC is read by debug builds only");
        return;
    }
    if !tmux_present() {
        eprintln!("SKIPPED: tmux is not installed (apt-get install tmux; .ci/run installs it)");
        return;
    }
    let host = Host::new();
    let tmux = Tmux::new("panic");
    let bin = env!("CARGO_BIN_EXE_arclab");
    let script = format!(
        "ARCLAB_TOP_TEST_PANIC=1 '{bin}' top --procfs '{}'; echo \"EXIT=$?\"; \
         stty -a | tr ' ;' '\\n\\n' | grep -x -e icanon -e -icanon | tr '\\n' ' '; echo END; sleep 60",
        host.proc_.display()
    );
    tmux.start(100, 30, &script);
    let s = tmux.wait("exit", |s| s.contains("EXIT=") && s.contains("END"));
    assert!(s.contains("EXIT=101") || s.contains("EXIT=134"), "{s}");
    assert!(s.contains("a panic after the first screen"), "{s}");
    assert!(s.contains("icanon") && !s.contains("-icanon"), "{s}");
    tmux.assert_main_screen_with_cursor();
}
