#![no_main]

//! FreeBSD `sysctl kstat.zfs.misc` text (the first byte picks the kstat), then
//! the status model, and rates between the two halves of the input.
use arclab_zfs::arcstats::{KstatKind, parse_kstat};
use arclab_zfs::{rates, status};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let kind = [
        KstatKind::ArcStats,
        KstatKind::ZfetchStats,
        KstatKind::DbufStats,
    ][usize::from(sel % 3)];
    let text = String::from_utf8_lossy(rest);
    let mut body = String::from("kstat.zfs.misc.arcstats.hits: 1\n");
    body.push_str(&text);
    for t in [text.as_ref(), body.as_str()] {
        if let Ok(s) = parse_kstat(t, "fuzz", kind) {
            let _ = status::explain(&s, None, None, None, "fuzz");
        }
    }
    let (a, b) = rest.split_at(rest.len() / 2);
    if let (Ok(a), Ok(b)) = (
        parse_kstat(&String::from_utf8_lossy(a), "a", KstatKind::ArcStats),
        parse_kstat(&String::from_utf8_lossy(b), "b", KstatKind::ArcStats),
    ) {
        let _ = rates::row(&a, &b, 0.5);
    }
});
