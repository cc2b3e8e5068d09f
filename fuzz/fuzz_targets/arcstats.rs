#![no_main]

//! Linux kstat text for all three kstats, then the status and rate models on
//! whatever parses; the same bytes as a /proc/meminfo.
use arclab_zfs::arcstats::{KstatKind, parse_kstat};
use arclab_zfs::{rates, status};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = arclab_zfs::host::parse_meminfo(&text, "fuzz");
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
