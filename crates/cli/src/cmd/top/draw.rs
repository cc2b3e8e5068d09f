//! Drawing the full-screen `arclab top` from an [`arclab_zfs::live::Live`]
//! state (nothing is decided here: values, rules, levels and events come
//! from the library).

use arclab_arc::units::format_bytes;
use arclab_zfs::live::{self, Level, Live, Metric, StateSplit};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Sparkline, Wrap};

use crate::output::si;

/// Which panel is shown (keys 1/2/3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Panel {
    /// RAM, ARC, rates and events together.
    Overview,
    /// The ARC in detail: states, contributors, why above c.
    Arc,
    /// Rates with tall sparklines, and the event log.
    Rates,
}

/// What the keys changed.
#[derive(Clone, Debug)]
pub(super) struct View {
    pub(super) panel: Panel,
    pub(super) help: bool,
    pub(super) paused: bool,
    /// `HH:MM:SS` of the newest sample.
    pub(super) clock: String,
}

/// The segments of the RAM bar: symbol, label, colour.
const SEGMENTS: [(char, &str, Color); 4] = [
    ('█', "applications+kernel", Color::Magenta),
    ('▓', "ARC non-evictable", Color::Red),
    ('▒', "ARC evictable", Color::Green),
    ('░', "free", Color::DarkGray),
];

fn colour(l: Level) -> Style {
    match l {
        Level::Good => Style::default().fg(Color::Green),
        Level::Warn => Style::default().fg(Color::Yellow),
        Level::Bad => Style::default().fg(Color::Red).add_modifier(Modifier::BOLD),
        Level::None => Style::default(),
    }
}

fn b(v: u64) -> String {
    format_bytes(v)
}

fn opt_b(v: Option<u64>) -> String {
    v.map_or("?".into(), format_bytes)
}

fn bold(s: impl Into<String>) -> Span<'static> {
    Span::styled(s.into(), Style::default().add_modifier(Modifier::BOLD))
}

/// Draw the whole screen.
pub(super) fn draw(f: &mut Frame, live: &Live, view: &View) {
    let area = f.area();
    let [head, body, foot] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(0),
        Constraint::Length(1),
    ])
    .areas(area);
    header(f, head, live, view);
    footer(f, foot, live, view);
    match view.panel {
        Panel::Overview => {
            let [ram_a, mid, ev] = Layout::vertical([
                Constraint::Length(6),
                Constraint::Length(14),
                Constraint::Min(3),
            ])
            .areas(body);
            ram(f, ram_a, live);
            let [arc_a, rates_a] =
                Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
                    .areas(mid);
            arc(f, arc_a, live);
            rates(f, rates_a, live, 1);
            events(f, ev, live);
        }
        Panel::Arc => {
            let [left, right] =
                Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
                    .areas(body);
            let [arc_a, states_a] =
                Layout::vertical([Constraint::Length(14), Constraint::Min(4)]).areas(left);
            arc(f, arc_a, live);
            states(f, states_a, live);
            why(f, right, live);
        }
        Panel::Rates => {
            let [rates_a, ev] =
                Layout::vertical([Constraint::Percentage(65), Constraint::Min(3)]).areas(body);
            rates(f, rates_a, live, 2);
            events(f, ev, live);
        }
    }
    if view.help {
        help(f, area);
    }
}

fn header(f: &mut Frame, area: Rect, live: &Live, view: &View) {
    let r = &live.rates.row;
    let mut spans = Vec::new();
    if view.paused {
        spans.push(Span::styled(
            " PAUSED (p resumes) ",
            Style::default()
                .fg(Color::Black)
                .bg(Color::Yellow)
                .add_modifier(Modifier::BOLD),
        ));
    }
    spans.extend([
        bold(" arclab top "),
        Span::raw(format!(
            "{} UTC · ZFS {} · every {} · ",
            view.clock,
            release(live),
            secs(live.interval())
        )),
        Span::raw(if r.time_source == "since load" {
            "rates: average since module load".to_string()
        } else {
            format!("last interval {:.2} s ({})", r.seconds, r.time_source)
        }),
    ]);
    f.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// The module's version when sysfs says it, else the release range inferred
/// from the arcstats layout (without the limits-behaviour note).
fn release(live: &Live) -> String {
    if let Some(v) = live.module_version() {
        return format!("{v} (module)");
    }
    let v = live.status.version.to_string();
    match v.find(" (limits") {
        Some(i) => v[..i].to_string(),
        None => v,
    }
}

fn secs(s: f64) -> String {
    if s >= 1.0 && s.fract() == 0.0 {
        format!("{s:.0} s")
    } else {
        format!("{:.0} ms", s * 1000.0)
    }
}

fn footer(f: &mut Frame, area: Rect, live: &Live, view: &View) {
    let mut spans = vec![Span::raw(format!(
        " q quit · p {} · h help · 1 overview · 2 ARC · 3 rates+events │ samples {} · missed intervals {} · resets {} ",
        if view.paused { "resume" } else { "pause" },
        live.samples,
        live.missed,
        live.resets
    ))];
    if let Some(e) = &live.error {
        spans.push(Span::styled(
            format!("│ read failed: {e}"),
            colour(Level::Bad),
        ));
    }
    f.render_widget(
        Paragraph::new(Line::from(spans)).style(Style::default().add_modifier(Modifier::REVERSED)),
        area,
    );
}

fn ram(f: &mut Frame, area: Rect, live: &Live) {
    let block = Block::default().borders(Borders::ALL).title(" RAM ");
    let inner = block.inner(area);
    f.render_widget(block, area);
    let Some(r) = &live.ram else {
        f.render_widget(
            Paragraph::new("RAM size unknown: this release exports no memory_all_bytes and no meminfo was read (--procfs DIR reads DIR/meminfo)"),
            inner,
        );
        return;
    };
    let (ne, ev) = match (r.arc_non_evictable, r.arc_evictable) {
        (Some(n), Some(e)) => (n, e),
        // Split unknown: the whole ARC as non-evictable in the bar, said in the legend.
        _ => (r.arc_size, 0),
    };
    let parts = [r.other, ne, ev, r.free.unwrap_or(0)];
    let w = inner.width as u64;
    let mut cells = [0u64; 4];
    let mut used = 0;
    for (i, p) in parts.iter().enumerate() {
        cells[i] = (u128::from(*p) * u128::from(w))
            .checked_div(u128::from(r.total))
            .map_or(0, |c| c.min(u128::from(w)) as u64);
        used += cells[i];
    }
    // Rounding leftovers go to the largest part.
    if let Some(i) = (0..4).max_by_key(|&i| parts[i]) {
        cells[i] += w.saturating_sub(used);
    }
    let bar: Vec<Span> = SEGMENTS
        .iter()
        .zip(cells)
        .map(|((ch, _, c), n)| {
            Span::styled(ch.to_string().repeat(n as usize), Style::default().fg(*c))
        })
        .collect();
    let mut legend: Vec<Span> = Vec::new();
    for ((ch, label, c), v) in
        SEGMENTS
            .iter()
            .zip([Some(r.other), r.arc_non_evictable, r.arc_evictable, r.free])
    {
        legend.push(Span::styled(format!("{ch} "), Style::default().fg(*c)));
        legend.push(Span::raw(format!("{label} {}   ", opt_b(v))));
    }
    let total = Line::from(format!(
        "RAM {} ({}) · ARC size {} · reclaimable = size − max(c_min, non-evictable){}",
        b(r.total),
        r.total_source,
        b(r.arc_size),
        if r.arc_evictable.is_none() {
            " (evictable split not exported: shown as non-evictable)"
        } else {
            ""
        }
    ));
    let avail = match (r.really_available, r.mem_available) {
        (Some(t), Some(a)) => Line::from(vec![
            bold(format!("really available {}", b(t))),
            Span::raw(format!(
                " = MemAvailable {} + ARC reclaimable {}  (h: the rule)",
                b(a),
                b(r.arc_reclaimable)
            )),
        ]),
        _ => Line::from(format!(
            "really available: MemAvailable unknown (no meminfo read); ARC reclaimable {}",
            b(r.arc_reclaimable)
        )),
    };
    f.render_widget(
        Paragraph::new(vec![Line::from(bar), Line::from(legend), total, avail]),
        inner,
    );
}

fn arc(f: &mut Frame, area: Rect, live: &Live) {
    let s = &live.status;
    let block = Block::default().borders(Borders::ALL).title(" ARC ");
    let pct_of = |a: u64, c: u64| {
        if c == 0 {
            String::new()
        } else {
            format!("{:.1} % of c", a as f64 * 100.0 / c as f64)
        }
    };
    let mut lines = vec![
        Line::from(format!(
            "size  {:>11}  {}",
            b(s.size_bytes),
            pct_of(s.size_bytes, s.c_bytes)
        )),
        Line::from(format!("c     {:>11}  target", b(s.c_bytes))),
        Line::from(format!(
            "c_min {:>11}{}",
            b(s.c_min_bytes),
            s.default_c_min_bytes
                .map_or(String::new(), |d| format!("  default {}", b(d)))
        )),
    ];
    let dflt = match (s.default_c_max_bytes, s.c_max_changed) {
        (Some(_), Some(false)) => format!("  = default ({} rules)", s.version.behaviour),
        (Some(d), _) => format!("  default {} (zfs_arc_max set)", b(d)),
        (None, _) => "  default unknown (no RAM size)".into(),
    };
    lines.push(Line::from(format!("c_max {:>11}{dflt}", b(s.c_max_bytes))));
    if let Some(p) = live.arc_max_not_in_force() {
        lines.push(Line::styled(
            format!("zfs_arc_max {} is NOT in force", b(p)),
            colour(Level::Warn),
        ));
    }
    let over = if s.overshoot_bytes > 0 {
        Line::styled(
            format!("overshoot {} above c (2: why)", b(s.overshoot_bytes)),
            colour(Level::Warn),
        )
    } else {
        Line::from("overshoot 0 B (size ≤ c)")
    };
    lines.push(over);
    let split = live::state_split(live.snapshot());
    for st in split
        .iter()
        .filter(|t| t.state == "mru" || t.state == "mfu")
    {
        lines.push(Line::from(format!(
            "{:<4} {:>11}  data {}  meta {}",
            st.state.to_uppercase(),
            b(st.size),
            opt_b(st.data),
            opt_b(st.metadata)
        )));
    }
    if let Some(n) = s.non_evictable_bytes {
        let top: Vec<String> = s
            .contributors
            .iter()
            .take(3)
            .map(|c| format!("{} {}", c.name, b(c.bytes)))
            .collect();
        lines.push(Line::from(format!(
            "non-evictable {}: {}",
            b(n),
            top.join(", ")
        )));
    }
    for w in s
        .warnings
        .iter()
        .filter(|w| w.starts_with("c is at c_min") || w.starts_with("arc_no_grow"))
    {
        lines.push(Line::styled(w.clone(), colour(Level::Bad)));
    }
    f.render_widget(
        Paragraph::new(lines).block(block).wrap(Wrap { trim: true }),
        area,
    );
}

fn states(f: &mut Frame, area: Rect, live: &Live) {
    let block = Block::default()
        .borders(Borders::ALL)
        .title(" states (data / metadata) ");
    let rows: Vec<Line> = live::state_split(live.snapshot())
        .iter()
        .map(|t: &StateSplit| {
            Line::from(format!(
                "{:<10}{:>11} data {:>11} meta {:>11}",
                t.state,
                b(t.size),
                opt_b(t.data),
                opt_b(t.metadata)
            ))
        })
        .collect();
    f.render_widget(Paragraph::new(rows).block(block), area);
}

fn why(f: &mut Frame, area: Rect, live: &Live) {
    let s = &live.status;
    let block = Block::default()
        .borders(Borders::ALL)
        .title(" why size > c · non-evictable contributors ");
    let mut lines: Vec<Line> = if s.why_over.is_empty() {
        vec![Line::from(format!(
            "size {} ≤ c {}: no overshoot",
            b(s.size_bytes),
            b(s.c_bytes)
        ))]
    } else {
        s.why_over
            .iter()
            .map(|w| Line::styled(format!("• {w}"), colour(Level::Warn)))
            .collect()
    };
    lines.push(Line::from(""));
    lines.push(bold("non-evictable (largest first)").into());
    for c in &s.contributors {
        lines.push(Line::from(vec![
            Span::raw(format!("{:<16} {:>11}  ", c.name, b(c.bytes))),
            Span::styled(c.why, Style::default().fg(Color::Gray)),
        ]));
    }
    lines.push(Line::from(""));
    lines.push(Line::from(format!(
        "release {}; default c_max {}",
        s.version,
        opt_b(s.default_c_max_bytes)
    )));
    if let Some(fm) = &s.default_c_max_formula {
        lines.push(Line::from(format!("  = {fm}")));
    }
    for w in &s.warnings {
        lines.push(Line::styled(format!("! {w}"), colour(Level::Warn)));
    }
    f.render_widget(
        Paragraph::new(lines).block(block).wrap(Wrap { trim: true }),
        area,
    );
}

/// One row of the rates panel: label, value text, its level, the metric for the sparkline.
fn rate_rows(live: &Live) -> Vec<(&'static str, String, Level, Metric)> {
    let r = &live.rates;
    let row = &r.row;
    let reset = |names: &[&str]| row.reset_in(names);
    let v = |x: Option<f64>, names: &[&str]| match x {
        Some(x) => si(x),
        None if reset(names) => "reset".into(),
        None => "-".into(),
    };
    let pct = |p: Option<f64>| p.map_or(String::new(), |p| format!(" ({p:.1} % hit)"));
    let reads = ["hits", "iohits", "misses"];
    vec![
        ("reads/s", v(row.reads, &reads), Level::None, Metric::Reads),
        (
            "hits/s",
            format!("{}{}", v(row.hits, &["hits"]), pct(row.hit_pct)),
            live::hit_level(row.hit_pct),
            Metric::Hits,
        ),
        (
            "iohits/s",
            v(row.iohits, &["iohits"]),
            Level::None,
            Metric::IoHits,
        ),
        (
            "misses/s",
            v(row.misses, &["misses"]),
            Level::None,
            Metric::Misses,
        ),
        (
            "demand/s",
            format!("{}{}", v(r.demand_reads, &[]), pct(r.demand_hit_pct)),
            live::hit_level(r.demand_hit_pct),
            Metric::DemandReads,
        ),
        (
            "dmiss/s",
            v(
                row.demand_misses,
                &["demand_data_misses", "demand_metadata_misses"],
            ),
            Level::None,
            Metric::DemandMisses,
        ),
        (
            "prefetch/s",
            format!("{}{}", v(r.prefetch_reads, &[]), pct(r.prefetch_hit_pct)),
            Level::None,
            Metric::PrefetchReads,
        ),
        (
            "pmiss/s",
            v(
                row.prefetch_misses,
                &["prefetch_data_misses", "prefetch_metadata_misses"],
            ),
            Level::None,
            Metric::PrefetchMisses,
        ),
        (
            "ghost/s",
            format!(
                "{} (mru {} mfu {})",
                v(r.ghost_hits, &["mru_ghost_hits", "mfu_ghost_hits"]),
                v(r.mru_ghost_hits, &["mru_ghost_hits"]),
                v(r.mfu_ghost_hits, &["mfu_ghost_hits"])
            ),
            live::ghost_level(r.ghost_hits, row.reads),
            Metric::GhostHits,
        ),
        (
            "hit %",
            row.hit_pct.map_or("-".into(), |p| format!("{p:.2}")),
            live::hit_level(row.hit_pct),
            Metric::HitPct,
        ),
        // The newest sample (also the one taken on resume, which has no rates).
        ("size", b(live.status.size_bytes), Level::None, Metric::Size),
        ("c", b(live.status.c_bytes), Level::None, Metric::C),
    ]
}

fn rates(f: &mut Frame, area: Rect, live: &Live, height: u16) {
    let block = Block::default().borders(Borders::ALL).title(format!(
        " rates · last {} samples ",
        live.history.capacity()
    ));
    let inner = block.inner(area);
    f.render_widget(block, area);
    let rows = rate_rows(live);
    let n = (inner.height / height.max(1)) as usize;
    let areas = Layout::vertical(vec![Constraint::Length(height); n.min(rows.len())]).split(inner);
    for ((label, text, level, metric), a) in rows.into_iter().zip(areas.iter()) {
        let [l, s] = Layout::horizontal([Constraint::Length(36), Constraint::Min(0)]).areas(*a);
        f.render_widget(
            Paragraph::new(Line::from(vec![
                Span::raw(format!("{label:<10} ")),
                Span::styled(text, colour(level)),
            ])),
            l,
        );
        let hist = live.history.get(metric);
        let w = s.width as usize;
        let data: Vec<Option<u64>> = hist
            .iter()
            .skip(hist.len().saturating_sub(w))
            .map(|v| v.map(|x| (x.max(0.0) * 100.0).round() as u64))
            .collect();
        let mut spark = Sparkline::default();
        if matches!(metric, Metric::Size | Metric::C) {
            // Against c_max, so a falling c shows as a falling line.
            spark = spark.max(live.status.c_max_bytes.saturating_mul(100));
        }
        f.render_widget(
            spark
                .data(data)
                .style(colour(level).fg(match level {
                    Level::None => Color::Cyan,
                    _ => colour(level).fg.unwrap_or(Color::Cyan),
                }))
                .absent_value_symbol("·"),
            s,
        );
    }
}

fn events(f: &mut Frame, area: Rect, live: &Live) {
    let block = Block::default().borders(Borders::ALL).title(format!(
        " events ({} seen, newest first) ",
        live.events.len()
    ));
    let n = area.height.saturating_sub(2) as usize;
    let mut lines: Vec<Line> = live
        .events
        .iter()
        .rev()
        .take(n)
        .map(|e| {
            Line::from(vec![
                Span::raw(format!("{} ", super::hms(e.unix_secs))),
                Span::styled(e.message.clone(), colour(e.kind.level())),
            ])
        })
        .collect();
    if lines.is_empty() {
        lines.push(Line::from(
            "none yet: c falling, arc_no_grow, memory throttle, zfs_arc_max changes, resets and missed intervals appear here",
        ));
    }
    f.render_widget(Paragraph::new(lines).block(block), area);
}

/// The help text (also in docs/live.md).
pub(super) fn help_lines() -> Vec<String> {
    vec![
        "Keys: q (or Ctrl-C) quit · p pause/resume sampling · h or ? this help (Esc closes) · 1 overview · 2 ARC detail · 3 rates and events".into(),
        String::new(),
        "RAM bar: █ applications+kernel (RAM − ARC − free) · ▓ ARC non-evictable · ▒ ARC evictable · ░ free (memory_free_bytes)".into(),
        format!("Really available: {}", live::RECLAIMABLE_RULE),
        String::new(),
        format!("Colours: {}", live::THRESHOLDS),
        "Rates are per second over the last interval (kstat snaptime when it advanced, else the wall clock); the first screen shows averages since the module loaded. \"reset\" = a counter went down (module reload, reboot): no rate for that interval.".into(),
        "Sparklines: one column per sample; · = no value (a reset, a missed interval, a pause).".into(),
        String::new(),
        "Events: c fell (reap/shrinker/memory pressure; with the bytes size gave back, and whether c hit c_min) · arc_no_grow set/cleared · memory throttle (memory_throttle_count rose) · arc_max changed at runtime (zfs_arc_max and c_max, and whether it is in force) · RESET · missed intervals (the sampler was late) · read failures · pauses.".into(),
        "ARC panel: overshoot = size − c; why size > c and the non-evictable contributors come from `arclab status` (key 2).".into(),
    ]
}

fn help(f: &mut Frame, area: Rect) {
    let w = area.width.saturating_sub(8).min(100);
    let h = area.height.saturating_sub(4).min(24);
    let r = Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    };
    f.render_widget(Clear, r);
    let lines: Vec<Line> = help_lines().into_iter().map(Line::from).collect();
    f.render_widget(
        Paragraph::new(lines).wrap(Wrap { trim: true }).block(
            Block::default()
                .borders(Borders::ALL)
                .title(" help (h closes) "),
        ),
        r,
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use arclab_zfs::host::Meminfo;
    use arclab_zfs::live::Sample;
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    /// The screen as text lines.
    fn text(t: &Terminal<TestBackend>) -> Vec<String> {
        let buf = t.backend().buffer();
        (0..buf.area.height)
            .map(|y| {
                (0..buf.area.width)
                    .map(|x| buf[(x, y)].symbol().to_string())
                    .collect::<String>()
            })
            .collect()
    }

    fn fixture() -> Live {
        let p = arclab_testdata::path("arcstats/linux-openzfs22plus-telegraf.arcstats");
        let mut s = Sample::read_file(&p).unwrap();
        s.meminfo = Some(Meminfo {
            total_bytes: 33_532_497_920,
            available_bytes: Some(4 << 30),
        });
        Live::new(s, 1.0, 600).unwrap()
    }

    fn render(live: &Live, view: &View, w: u16, h: u16) -> Vec<String> {
        let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
        t.draw(|f| draw(f, live, view)).unwrap();
        text(&t)
    }

    fn view(panel: Panel) -> View {
        View {
            panel,
            help: false,
            paused: false,
            clock: "12:00:00".into(),
        }
    }

    /// The overview on data/arcstats/linux-openzfs22plus-telegraf.arcstats.
    /// Numbers from the file: size 14960038920 B = 13.93 GiB, c 15590628496 B
    /// = 14.52 GiB, c_max 32458756096 B = 30.23 GiB (the 2.3 default for
    /// memory_all_bytes 33532497920: allmem − 1 GiB), mru_data 2740104192 B =
    /// 2.55 GiB; evictable = mru_evictable_* + mfu_evictable_* =
    /// 10862729216 B = 10.12 GiB; MemAvailable 4 GiB (given) + 10.12 GiB =
    /// 14.12 GiB; since load: hits 33266704081 / (snaptime − crtime =
    /// 1351143854159630 − 2746799574 ns = 1351141.11 s) = 24621.4/s, hit % =
    /// 33266704081 / (33266704081 + 1992434 + 30882817) = 99.90.
    #[test]
    fn overview_on_the_fixture() {
        let live = fixture();
        let s = render(&live, &view(Panel::Overview), 120, 40);
        let all = s.join("\n");
        for want in [
            "size    13.93 GiB",
            "c       14.52 GiB",
            "c_max   30.23 GiB",
            "MRU     3.38 GiB  data 2.55 GiB",
            "ARC evictable 10.12 GiB",
            "really available 14.12 GiB = MemAvailable 4.00 GiB + ARC reclaimable 10.12 GiB",
            "overshoot 0 B",
            "99.90",
            "hits/s     24.6 k (99.9 % hit)",
            "average since module load",
        ] {
            assert!(all.contains(want), "missing {want:?} in\n{all}");
        }
        // The bar spans the RAM block's inner width with the four symbols in order.
        let bar = s.iter().find(|l| l.contains('▓')).unwrap();
        let inner: String = bar.chars().skip(1).take(118).collect();
        assert_eq!(inner.chars().count(), 118);
        assert!(inner.chars().all(|c| "█▓▒░".contains(c)), "{inner}");
        let first = |c| inner.chars().position(|x| x == c).unwrap();
        assert!(first('█') < first('▓') && first('▓') < first('▒') && first('▒') < first('░'));
        // ▒ (evictable) cells ≈ 10862729216 / 33532497920 × 118 = 38.2.
        let ev = inner.chars().filter(|c| *c == '▒').count();
        assert!((37..=40).contains(&ev), "{ev}");
    }

    #[test]
    fn arc_panel_help_and_small_terminals() {
        let live = fixture();
        let all = render(&live, &view(Panel::Arc), 120, 40).join("\n");
        // Contributors from status on the fixture: dnode_size 1104341896 B = 1.03 GiB.
        assert!(all.contains("dnode") && all.contains("1.03 GiB"), "{all}");
        assert!(all.contains("mfu_ghost"), "{all}");
        let mut v = view(Panel::Overview);
        v.help = true;
        let all = render(&live, &v, 120, 40).join("\n");
        assert!(all.contains("size − max(c_min, non-evictable)"), "{all}");
        assert!(all.contains("help (h closes)"), "{all}");
        // Tiny and odd sizes draw without panicking.
        for (w, h) in [(1, 1), (10, 5), (40, 12), (200, 60)] {
            for p in [Panel::Overview, Panel::Arc, Panel::Rates] {
                let mut v = view(p);
                v.help = true;
                render(&live, &v, w, h);
            }
        }
    }
}
