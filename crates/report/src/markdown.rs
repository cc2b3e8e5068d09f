//! A GitHub-flavoured Markdown table; `|` inside a cell is escaped.

use crate::Table;

fn line(cells: impl Iterator<Item = String>) -> String {
    let cells: Vec<String> = cells.map(|c| c.replace('|', "\\|")).collect();
    format!("| {} |\n", cells.join(" | "))
}

/// Render `t` as a Markdown table.
pub fn render(t: &Table) -> String {
    let mut s = line(t.headers().into_iter().map(|h| h.into_owned()));
    s.push_str(&format!("|{}|\n", vec!["---"; t.columns.len()].join("|")));
    for row in &t.rows {
        s.push_str(&line(row.iter().map(|c| c.text().into_owned())));
    }
    s
}
