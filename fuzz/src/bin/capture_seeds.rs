//! Write the `capture` target's seeds (small captures made by the writer)
//! into the directory given as the first argument.

fn main() -> std::io::Result<()> {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "corpus/capture".into());
    std::fs::create_dir_all(&dir)?;
    for (name, bytes) in arclab_trace_fuzz::capture_seeds() {
        std::fs::write(std::path::Path::new(&dir).join(&name), &bytes)?;
        println!("{dir}/{name}: {} bytes", bytes.len());
    }
    Ok(())
}
