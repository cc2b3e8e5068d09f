//! Measure `read_batch` throughput: `cargo run --release -p arclab-trace
//! --example throughput -- FILE [REPEATS [BATCH]]`.

use std::time::Instant;

use arclab_trace::{OpenOptions, open};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .ok_or("usage: throughput FILE [REPEATS [BATCH]]")?;
    let repeats: usize = args.next().map(|s| s.parse()).transpose()?.unwrap_or(20);
    let batch: usize = args.next().map(|s| s.parse()).transpose()?.unwrap_or(4096);
    let mut buf = Vec::with_capacity(batch);
    let mut rates = Vec::new();
    for _ in 0..repeats {
        let start = Instant::now();
        let mut reader = open(&path, &OpenOptions::default())?;
        let mut n = 0u64;
        let mut checksum = 0u64;
        loop {
            buf.clear();
            let k = reader.read_batch(&mut buf, batch)?;
            if k == 0 {
                break;
            }
            n += k as u64;
            checksum = buf.iter().fold(checksum, |c, r| c.wrapping_add(r.key));
        }
        let secs = start.elapsed().as_secs_f64();
        rates.push(n as f64 / secs);
        std::hint::black_box(checksum);
    }
    rates.sort_by(|a, b| a.total_cmp(b));
    let median = rates[rates.len() / 2];
    println!(
        "{path}: median {:.1} M req/s ({:.2} ns/req), best {:.1} M req/s over {repeats} runs",
        median / 1e6,
        1e9 / median,
        rates[rates.len() - 1] / 1e6
    );
    Ok(())
}
