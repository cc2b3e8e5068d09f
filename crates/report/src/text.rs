//! Aligned plain text: a header row, then the rows; two spaces between
//! columns, headers on the left, cells aligned by their column's
//! [`Align`](crate::Align), trailing spaces trimmed.

use crate::Table;

/// Render `t` as aligned text, one line per row, each ending in `\n`.
pub fn render(t: &Table) -> String {
    let headers = t.headers();
    let mut width: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for row in &t.rows {
        for (w, c) in width.iter_mut().zip(row) {
            *w = (*w).max(c.text().chars().count());
        }
    }
    let mut s = String::new();
    let mut line = |cells: Vec<(String, bool)>| {
        let parts: Vec<String> = cells
            .into_iter()
            .zip(&width)
            .map(|((c, right), w)| {
                let pad = " ".repeat(w - c.chars().count());
                if right {
                    format!("{pad}{c}")
                } else {
                    format!("{c}{pad}")
                }
            })
            .collect();
        s.push_str(parts.join("  ").trim_end());
        s.push('\n');
    };
    line(headers.iter().map(|h| (h.to_string(), false)).collect());
    for row in &t.rows {
        line(
            row.iter()
                .enumerate()
                .map(|(i, c)| (c.text().into_owned(), t.right_aligned(i, c)))
                .collect(),
        );
    }
    s
}
