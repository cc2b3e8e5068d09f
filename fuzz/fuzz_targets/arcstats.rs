#![no_main]

//! Linux kstat text for all three kstats, then the status and rate models on
//! whatever parses.
use arclab_zfs::arcstats::{KstatKind, parse_kstat};
use arclab_zfs::{rates, status};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for kind in [
        KstatKind::ArcStats,
        KstatKind::ZfetchStats,
        KstatKind::DbufStats,
    ] {
        if let Ok(s) = parse_kstat(&text, "fuzz", kind)
            && kind == KstatKind::ArcStats
        {
            let _ = status::explain(&s, None, None, None, "fuzz");
            let _ = status::explain(&s, None, None, Some(1 << 30), "fuzz");
            let _ = rates::first_row(&s);
            let _ = rates::row(&s, &s, 1.0);
        }
    }
});
