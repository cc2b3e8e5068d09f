//! The full-screen loop: terminal set-up and restore on every exit path
//! (return, error, panic, SIGTERM/SIGINT/SIGHUP; Ctrl-C arrives as a key in
//! raw mode), sampling every --interval, keys, resizes.

use super::TopArgs;
use super::draw::{self, Panel, View};
use anyhow::Result;
use arclab_zfs::live::Live;
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};
use ratatui::crossterm::{cursor, execute, terminal};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// History points kept per metric: about 10 minutes at the interval, at
/// least 60 and at most [`arclab_zfs::live::MAX_HISTORY`].
fn history_points(interval: Duration) -> usize {
    let secs = interval.as_secs_f64().max(1e-3);
    ((600.0 / secs) as usize).clamp(60, arclab_zfs::live::MAX_HISTORY)
}

/// Put the terminal back: leave the alternate screen, show the cursor, cooked mode.
fn restore() {
    let _ = terminal::disable_raw_mode();
    let _ = execute!(
        std::io::stdout(),
        terminal::LeaveAlternateScreen,
        cursor::Show
    );
}

/// Restores the terminal when dropped (normal return and errors); the panic
/// hook covers panics, also under `panic = "abort"` where nothing is dropped.
struct Guard;

impl Guard {
    fn enter() -> Result<Guard> {
        let prev = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore();
            prev(info);
        }));
        terminal::enable_raw_mode()?;
        let g = Guard;
        execute!(
            std::io::stdout(),
            terminal::EnterAlternateScreen,
            cursor::Hide
        )?;
        Ok(g)
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        restore();
    }
}

pub(super) fn run(args: &TopArgs) -> Result<()> {
    let interval = args.interval;
    let first = args.sample()?;
    let mut live = Live::new(first, interval.as_secs_f64(), history_points(interval))?;
    let stop = Arc::new(AtomicBool::new(false));
    let mut signals = signal_hook::iterator::Signals::new([
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGHUP,
    ])?;
    let flag = Arc::clone(&stop);
    std::thread::spawn(move || {
        if signals.forever().next().is_some() {
            flag.store(true, Ordering::Relaxed);
            // The loop sees the flag within a tick. When it cannot — a hung-up
            // terminal (its tmux or ssh session gone) reads as an endless EOF
            // inside crossterm's event wait — end the process here rather than
            // spin on a dead tty.
            std::thread::sleep(Duration::from_millis(500));
            restore();
            std::process::exit(0);
        }
    });
    let _guard = Guard::enter()?;
    let mut term = Terminal::new(CrosstermBackend::new(std::io::stdout()))?;
    term.clear()?;
    let mut view = View {
        panel: Panel::Overview,
        help: false,
        paused: false,
        clock: super::clock(),
    };
    let mut last = Instant::now();
    let mut next = last + interval;
    let mut paused_at: Option<Instant> = None;
    term.draw(|f| draw::draw(f, &live, &view))?;
    // Debug builds only: lets tests/top_tty.rs check that a panic restores the terminal.
    if cfg!(debug_assertions) && std::env::var_os("ARCLAB_TOP_TEST_PANIC").is_some() {
        panic!("ARCLAB_TOP_TEST_PANIC: a panic after the first screen");
    }
    let tick = Duration::from_millis(100);
    while !stop.load(Ordering::Relaxed) && args.count.is_none_or(|n| live.samples < n) {
        let now = Instant::now();
        let wait = if paused_at.is_some() {
            tick
        } else {
            next.saturating_duration_since(now).min(tick)
        };
        let mut dirty = false;
        if event::poll(wait)? {
            match event::read()? {
                Event::Key(k) if k.kind != KeyEventKind::Release => match k.code {
                    KeyCode::Char('q') => break,
                    KeyCode::Char('c') if k.modifiers.contains(KeyModifiers::CONTROL) => break,
                    KeyCode::Esc if !view.help => break,
                    KeyCode::Esc => view.help = false,
                    KeyCode::Char('h' | '?') => view.help = !view.help,
                    KeyCode::Char('1') => (view.panel, view.help) = (Panel::Overview, false),
                    KeyCode::Char('2') => (view.panel, view.help) = (Panel::Arc, false),
                    KeyCode::Char('3') => (view.panel, view.help) = (Panel::Rates, false),
                    KeyCode::Char('p' | ' ') => match paused_at.take() {
                        None => paused_at = Some(Instant::now()),
                        Some(t) => {
                            let now = Instant::now();
                            match args.sample() {
                                Ok(s) => live.resume(
                                    s,
                                    now.duration_since(t).as_secs_f64(),
                                    super::unix_now(),
                                ),
                                Err(e) => live.read_failed(e.to_string(), super::unix_now()),
                            }
                            (last, next) = (now, now + interval);
                        }
                    },
                    _ => {}
                },
                // Draw re-reads the size (Terminal::autoresize), so a resize is a redraw.
                _ => {}
            }
            view.paused = paused_at.is_some();
            dirty = true;
        }
        let now = Instant::now();
        if paused_at.is_none() && now >= next {
            match args.sample() {
                Ok(s) => live.push(s, now.duration_since(last).as_secs_f64(), super::unix_now()),
                Err(e) => live.read_failed(e.to_string(), super::unix_now()),
            }
            view.clock = super::clock();
            last = now;
            next += interval;
            if next <= now {
                // Late (a slow read, a stopped process): no burst to catch up.
                next = now + interval;
            }
            dirty = true;
        }
        if dirty {
            term.draw(|f| draw::draw(f, &live, &view))?;
        }
    }
    Ok(())
}
