#![no_main]

use arclab_trace::{Format, OpenOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    arclab_trace_fuzz::drain(data, Format::Lcs, &OpenOptions::default());
});
