#![no_main]

use arclab_trace::Format;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (opts, rest) = arclab_trace_fuzz::csv_opts(data);
    arclab_trace_fuzz::drain(rest, Format::Csv, &opts);
});
