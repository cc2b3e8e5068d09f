//! Print the comparison of the blog post's generated data, and write its
//! plots (`blog.png`, `blog.svg`) when an output directory is given.
//! `cargo run -p arclab-metrics --example blog [OUT_DIR] [--json]`

use arclab_metrics::{compare, report, synth, time::Window};

fn main() {
    let out = std::env::args().skip(1).find(|a| !a.starts_with("--"));
    let mut opts = compare::Options::new(
        Window::parse(synth::BEFORE, 0.0).unwrap(),
        Window::parse(synth::AFTER, 0.0).unwrap(),
    );
    let data = synth::blog("nas:9100");
    opts.change = data.changes.first().cloned();
    let c = compare::compare(&data, &opts).unwrap();
    if std::env::args().any(|a| a == "--json") {
        println!("{}", serde_json::to_string_pretty(&c.derived).unwrap());
        return;
    }
    print!("{}", report::text(&c));
    let Some(out) = out else {
        eprintln!("(give an output directory to also write blog.png and blog.svg)");
        return;
    };
    let dir = std::path::Path::new(&out);
    report::plot::render(&c, &dir.join("blog.png")).unwrap();
    report::plot::render(&c, &dir.join("blog.svg")).unwrap();
}
