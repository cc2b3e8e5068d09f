//! Arbitrary bytes fed to each reader never panic.

use std::io::Cursor;

use arclab_trace::{Format, OpenOptions, from_reader};
use proptest::prelude::*;

fn drain(bytes: Vec<u8>, f: Format, o: &OpenOptions) {
    if let Ok(mut r) = from_reader(Cursor::new(bytes), f, o, "fuzz") {
        let mut b = Vec::new();
        let mut total = 0usize;
        // Capped: a .lis line may legitimately expand to 2^64 requests.
        while total < 1 << 20 {
            b.clear();
            match r.read_batch(&mut b, 4096) {
                Ok(0) | Err(_) => break,
                Ok(n) => total += n,
            }
        }
    }
}

fn opts() -> impl Strategy<Value = OpenOptions> {
    (
        proptest::option::of(1usize..6),
        1usize..6,
        proptest::option::of(1usize..6),
        proptest::option::of(1usize..6),
        proptest::option::of(any::<bool>()),
        prop_oneof![Just(b','), Just(b'\t'), Just(b' '), any::<u8>()],
        any::<bool>(),
    )
        .prop_map(|(t, i, s, op, h, d, num)| {
            let mut o = OpenOptions::default();
            o.csv.time_col = t;
            o.csv.id_col = i;
            o.csv.size_col = s;
            o.csv.op_col = op;
            o.csv.has_header = h;
            o.csv.delimiter = d;
            o.csv.id_is_num = num;
            o
        })
}

/// Bytes biased towards valid-looking prefixes of each format.
fn bytes() -> impl Strategy<Value = Vec<u8>> {
    let lcs_head = {
        let mut h = vec![0u8; 8192];
        h[..8].copy_from_slice(&0x1234_5678_9abc_def0u64.to_le_bytes());
        h[8184..].copy_from_slice(&0x1234_5678_9abc_def0u64.to_le_bytes());
        h
    };
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..600),
        proptest::collection::vec(
            prop_oneof![
                Just(b'1'),
                Just(b' '),
                Just(b','),
                Just(b'\n'),
                Just(b'x'),
                any::<u8>()
            ],
            0..600
        ),
        (0u64..12, proptest::collection::vec(any::<u8>(), 0..400)).prop_map(move |(v, tail)| {
            let mut h = lcs_head.clone();
            h[8..16].copy_from_slice(&v.to_le_bytes());
            h.extend(tail);
            h
        }),
        (proptest::collection::vec(any::<u8>(), 0..300)).prop_map(|mut b| {
            // zstd / gzip magic followed by garbage
            let magic: &[u8] = if b.first().copied().unwrap_or(0) % 2 == 0 {
                &[0x28, 0xb5, 0x2f, 0xfd]
            } else {
                &[0x1f, 0x8b]
            };
            b.splice(0..0, magic.iter().copied());
            b
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn readers_never_panic(b in bytes(), o in opts()) {
        for f in Format::ALL {
            drain(b.clone(), f, &o);
        }
    }
}
