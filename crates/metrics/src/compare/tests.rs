use super::*;
use crate::series::Labels;
use crate::synth;

const GIB: f64 = 1_073_741_824.0;

fn blog_opts() -> Options {
    Options::new(
        Window::parse(synth::BEFORE, 0.0).unwrap(),
        Window::parse(synth::AFTER, 0.0).unwrap(),
    )
}

fn row<'a>(c: &'a Comparison, name: &str) -> &'a SeriesRow {
    c.series.iter().find(|r| r.name == name).unwrap()
}

#[test]
fn the_blog_numbers_come_back() {
    let c = compare(&synth::blog("nas:9100"), &blog_opts()).unwrap();
    let d = &c.derived;
    assert_eq!(
        format!("{:.2}", 100.0 * d.hit_ratio.after.unwrap()),
        "98.67"
    );
    assert!((d.hits_per_sec.before.unwrap() - 22_000.0).abs() < 0.01);
    assert!((d.hits_per_sec.after.unwrap() - 22_000.0).abs() < 0.01);
    assert!((d.misses_per_sec.before.unwrap() - 20.0).abs() < 0.01);
    assert!((d.misses_per_sec.after.unwrap() - 297.0).abs() < 0.01);
    assert!((d.miss_multiplier.unwrap() - 14.85).abs() < 0.01);
    assert!(d.misses_per_sec.significant && d.hit_ratio.significant);
    assert!(!d.hits_per_sec.significant, "{:?}", d.hits_per_sec);
    let size = row(&c, "node_zfs_arc_size");
    let (b, a) = (size.before.gauge.unwrap(), size.after.gauge.unwrap());
    assert!((b.p50 / GIB - 8.4).abs() < 0.05, "{}", b.p50 / GIB);
    assert!((b.max / GIB - 15.0).abs() < 0.01 && (a.max / GIB - 11.0).abs() < 0.01);
    assert!(((b.max - a.max) / GIB - 4.0).abs() < 0.02);
    assert!(
        !size.significant,
        "typical size did not move: {:?}",
        size.change
    );
    let dm = d.demand_misses_per_sec.unwrap();
    assert!((dm.after.unwrap() - 250.0).abs() < 0.01);
    // The reboot on the change day is outside both windows.
    assert_eq!(d.resets, (0, 0));
    // The change marker lies between the windows: no confounding warning.
    assert!(
        !c.warnings.iter().any(|w| w.contains("confounded")),
        "{:?}",
        c.warnings
    );
    assert!(c.method.starts_with("batch means"));
}

#[test]
fn window_errors() {
    let d = synth::blog("a");
    let mut o = blog_opts();
    std::mem::swap(&mut o.before, &mut o.after);
    assert!(matches!(
        compare(&d, &o),
        Err(CompareError::WindowOrder { .. })
    ));
    let far = Options::new(
        Window::new(0.0, 100.0).unwrap(),
        Window::new(200.0, 300.0).unwrap(),
    );
    let e = compare(&d, &far).unwrap_err();
    assert!(
        e.to_string()
            .contains("the data covers 2025-09-11T00:00:00Z"),
        "{e}"
    );
    assert_eq!(
        compare(&Dataset::default(), &far).unwrap_err(),
        CompareError::Empty
    );
}

#[test]
fn confounders_and_design_warnings() {
    let mut d = synth::blog("a");
    d.changes.push(ChangeMarker {
        time: synth::T0 + 3.0 * synth::DAY,
        what: "scheduler=none".into(),
    });
    let mut o = blog_opts();
    o.change = d.changes.first().cloned();
    o.after = Window::new(o.after.start, o.after.end - 2.0 * synth::DAY).unwrap();
    let c = compare(&d, &o).unwrap();
    let all = c.warnings.join("\n");
    assert!(
        all.contains("confounded: another change, `scheduler=none`"),
        "{all}"
    );
    assert!(all.contains("differ in length"), "{all}");
    assert!(!all.contains("hours of the day"), "{all}");
    let day = synth::DAY;
    o.before = Window::new(synth::T0, synth::T0 + day / 2.0).unwrap();
    o.after = Window::new(synth::T0 + 11.5 * day, synth::T0 + 12.0 * day).unwrap();
    let all = compare(&d, &o).unwrap().warnings.join("\n");
    assert!(all.contains("hours of the day differently (100%"), "{all}");
}

fn series(name: &str, inst: &str, pts: Vec<(f64, f64)>) -> Series {
    let mut labels = Labels::new();
    labels.insert("__name__".into(), name.into());
    labels.insert("instance".into(), inst.into());
    Series {
        labels,
        points: pts,
    }
}

fn ramp(rate: f64, from: f64, to: f64) -> Vec<(f64, f64)> {
    (0..)
        .map(|i| from + f64::from(i) * 60.0)
        .take_while(|t| *t <= to)
        .map(|t| (t, (t - from) * rate))
        .collect()
}

#[test]
fn fleet_rows_mid_window_starts_and_gaps() {
    let mut late = ramp(10.0, 1800.0, 7200.0);
    late.retain(|p| !(4000.0..5000.0).contains(&p.0));
    let d = Dataset {
        series: vec![
            series("node_zfs_arc_hits", "a", ramp(100.0, 0.0, 7200.0)),
            series("node_zfs_arc_misses", "a", ramp(1.0, 0.0, 7200.0)),
            series("node_zfs_arc_hits", "b", late),
            series("node_zfs_arc_misses", "b", ramp(1.0, 0.0, 7200.0)),
        ],
        ..Dataset::default()
    };
    let o = Options::new(
        Window::new(0.0, 3600.0).unwrap(),
        Window::new(3600.0, 7200.0).unwrap(),
    );
    let c = compare(&d, &o).unwrap();
    assert_eq!(c.instances.len(), 2);
    assert_eq!(c.derived.instance, "fleet");
    assert!((c.derived.hits_per_sec.after.unwrap() - 110.0).abs() < 1e-9);
    assert!((c.derived.misses_per_sec.before.unwrap() - 2.0).abs() < 1e-9);
    let fleet: Vec<_> = c.series.iter().filter(|r| r.instance == "fleet").collect();
    assert_eq!(fleet.len(), 2);
    let all = c.warnings.join("\n");
    assert!(
        all.contains("node_zfs_arc_hits (b): starts 30m into the before window"),
        "{all}"
    );
    assert!(all.contains("a gap of 18m"), "{all}");
    // Constant rates: no spread, and the equal ones are not significant.
    assert!(!c.derived.misses_per_sec.significant);
}

#[test]
fn overrides_and_unknown_kinds() {
    let d = Dataset {
        series: vec![series(
            "node_pressure_io_stalled_seconds",
            "a",
            ramp(0.05, 0.0, 7200.0),
        )],
        ..Dataset::default()
    };
    let mut o = Options::new(
        Window::new(0.0, 3600.0).unwrap(),
        Window::new(3600.0, 7200.0).unwrap(),
    );
    let gauge = compare(&d, &o).unwrap();
    assert_eq!(gauge.series[0].kind, Kind::Gauge);
    o.overrides
        .insert("node_pressure_io_stalled_seconds".into(), Kind::Counter);
    let c = compare(&d, &o).unwrap();
    assert_eq!(
        (c.series[0].kind, c.series[0].kind_source),
        (Kind::Counter, KindSource::Override)
    );
    assert!((c.series[0].before.rate.unwrap() - 0.05).abs() < 1e-12);
    assert!(c.derived.hit_ratio.before.is_none());
}
