//! Shared driver of the fuzz targets: feed bytes to one reader and drain it.

use std::io::Cursor;

use arclab_trace::{Format, OpenOptions, from_reader};

/// Most requests drained per input (a `.lis` line may expand to 2^64 requests).
pub const MAX_REQUESTS: usize = 1 << 16;

/// Read `data` as `format` with `opts` through both interfaces; errors are fine, panics are not.
pub fn drain(data: &[u8], format: Format, opts: &OpenOptions) {
    if let Ok(mut r) = from_reader(Cursor::new(data.to_vec()), format, opts, "fuzz-input") {
        let mut buf = Vec::new();
        let mut total = 0;
        while total < MAX_REQUESTS {
            buf.clear();
            match r.read_batch(&mut buf, 1000) {
                Ok(0) => break,
                Ok(n) => total += n,
                Err(e) => {
                    // Display must work and name the input.
                    assert!(e.to_string().starts_with("fuzz-input: "));
                    break;
                }
            }
        }
        let _ = r.progress();
    }
    // The iterator path too (capped).
    if let Ok(r) = from_reader(Cursor::new(data.to_vec()), format, opts, "fuzz-input") {
        for item in r.take(MAX_REQUESTS) {
            if item.is_err() {
                break;
            }
        }
    }
}

/// CSV options chosen by the first input byte; returns them and the rest of the input.
pub fn csv_opts(data: &[u8]) -> (OpenOptions, &[u8]) {
    let Some((&sel, rest)) = data.split_first() else {
        return (OpenOptions::default(), data);
    };
    let mut o = OpenOptions::default();
    o.csv.id_col = 1 + (sel & 3) as usize;
    o.csv.time_col = (sel & 4 != 0).then_some(2);
    o.csv.size_col = (sel & 8 != 0).then_some(3);
    o.csv.op_col = (sel & 16 != 0).then_some(4);
    o.csv.has_header = match sel >> 5 & 3 {
        0 => None,
        1 => Some(true),
        _ => Some(false),
    };
    o.csv.id_is_num = sel & 128 == 0;
    (o, rest)
}
