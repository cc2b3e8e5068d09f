//! Where `compare` spends its time on an export file:
//! `cargo run --release -p arclab-metrics --example timing FILE B0 B1 A0 A1`

use std::time::Instant;

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let t = Instant::now();
    let bytes = std::fs::read(&a[1]).unwrap();
    let mut text = String::new();
    std::io::Read::read_to_string(
        &mut flate2::read::MultiGzDecoder::new(&bytes[..]),
        &mut text,
    )
    .unwrap();
    let gz = t.elapsed();
    let t = Instant::now();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    drop(v);
    eprintln!("inflate {gz:?}  parse-to-Value {:?}", t.elapsed());
    let t = Instant::now();
    let d = arclab_metrics::export::read_dataset(std::path::Path::new(&a[1])).unwrap();
    let load = t.elapsed();
    let w = |i: usize| {
        arclab_metrics::time::Window::new(a[i].parse().unwrap(), a[i + 1].parse().unwrap()).unwrap()
    };
    let t = Instant::now();
    let c =
        arclab_metrics::compare::compare(&d, &arclab_metrics::compare::Options::new(w(2), w(4)))
            .unwrap();
    let cmp = t.elapsed();
    let t = Instant::now();
    let j = serde_json::to_string_pretty(&c).unwrap();
    let out = t.elapsed();
    eprintln!(
        "load {load:?}  compare {cmp:?}  json {out:?} ({} bytes)",
        j.len()
    );
}
