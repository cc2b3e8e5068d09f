//! Export files (gzipped or plain JSON) and raw query_range answers must
//! parse or fail cleanly, never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(d) = arclab_metrics::export::parse_dataset(data) {
        let _ = d.time_range();
    }
    if let Ok(s) = std::str::from_utf8(data) {
        let _ = arclab_metrics::promapi::parse_matrix(s);
        let _ = arclab_metrics::time::parse_time(s, 0.0);
        let _ = arclab_metrics::query::split_list(s);
    }
});
