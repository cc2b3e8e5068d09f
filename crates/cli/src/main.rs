//! The `arclab` command-line tool.
fn main() {}
