//! RFC 4180 CSV: a header row of column names, then the rows; a field with
//! a comma, a quote or a line break is quoted, quotes doubled.

use crate::Table;

/// One field, quoted when it must be.
pub fn field(c: &str) -> String {
    if c.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", c.replace('"', "\"\""))
    } else {
        c.to_string()
    }
}

/// Render `t` as CSV, every line ending in `\n`.
pub fn render(t: &Table) -> String {
    let mut s = String::new();
    let mut line = |cells: Vec<String>| {
        s.push_str(&cells.join(","));
        s.push('\n');
    };
    line(t.headers().iter().map(|h| field(h)).collect());
    for row in &t.rows {
        line(row.iter().map(|c| field(&c.text())).collect());
    }
    s
}
