//! Printing: one table model rendered as aligned text, Markdown or CSV, and
//! stdout handling that treats a closed pipe as success.

use std::io::{self, Write};

/// Write to stdout; a closed pipe surfaces as an `io::Error` of kind `BrokenPipe`.
pub(crate) fn print(s: &str) -> anyhow::Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(s.as_bytes())?;
    out.flush()?;
    Ok(())
}

/// Whether an error is only the reader of our output going away.
pub(crate) fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<io::Error>()
            .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
    })
}

/// A table: a header row and rows of already formatted cells.
#[derive(Debug, Default, Clone)]
pub(crate) struct Table {
    pub(crate) headers: Vec<String>,
    pub(crate) rows: Vec<Vec<String>>,
}

impl Table {
    pub(crate) fn new(headers: &[&str]) -> Self {
        Table {
            headers: headers.iter().map(|h| h.to_string()).collect(),
            rows: Vec::new(),
        }
    }

    pub(crate) fn push(&mut self, row: Vec<String>) {
        debug_assert_eq!(row.len(), self.headers.len());
        self.rows.push(row);
    }

    fn widths(&self) -> Vec<usize> {
        let mut w: Vec<usize> = self.headers.iter().map(|h| h.chars().count()).collect();
        for row in &self.rows {
            for (i, c) in row.iter().enumerate() {
                w[i] = w[i].max(c.chars().count());
            }
        }
        w
    }

    /// Right-align cells that look numeric, left-align the rest.
    fn numeric(cell: &str) -> bool {
        cell.chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit() || c == '-' || c == '+' || c == '.')
    }

    /// Aligned plain text, two spaces between columns.
    pub(crate) fn to_text(&self) -> String {
        let w = self.widths();
        let mut s = String::new();
        let line = |s: &mut String, cells: &[String], header: bool| {
            let mut parts = Vec::with_capacity(cells.len());
            for (i, c) in cells.iter().enumerate() {
                let pad = w[i] - c.chars().count();
                if !header && Self::numeric(c) {
                    parts.push(format!("{}{c}", " ".repeat(pad)));
                } else {
                    parts.push(format!("{c}{}", " ".repeat(pad)));
                }
            }
            s.push_str(parts.join("  ").trim_end());
            s.push('\n');
        };
        line(&mut s, &self.headers, true);
        for row in &self.rows {
            line(&mut s, row, false);
        }
        s
    }

    /// A GitHub-flavoured Markdown table.
    pub(crate) fn to_markdown(&self) -> String {
        let esc = |c: &String| c.replace('|', "\\|");
        let mut s = format!(
            "| {} |\n|{}|\n",
            self.headers.iter().map(esc).collect::<Vec<_>>().join(" | "),
            self.headers
                .iter()
                .map(|_| "---")
                .collect::<Vec<_>>()
                .join("|")
        );
        for row in &self.rows {
            s.push_str(&format!(
                "| {} |\n",
                row.iter().map(esc).collect::<Vec<_>>().join(" | ")
            ));
        }
        s
    }

    /// RFC 4180 CSV with a header row.
    pub(crate) fn to_csv(&self) -> String {
        let field = |c: &String| {
            if c.contains([',', '"', '\n', '\r']) {
                format!("\"{}\"", c.replace('"', "\"\""))
            } else {
                c.clone()
            }
        };
        let mut s = String::new();
        for row in std::iter::once(&self.headers).chain(&self.rows) {
            s.push_str(&row.iter().map(field).collect::<Vec<_>>().join(","));
            s.push('\n');
        }
        s
    }
}

/// A rate with an SI suffix, e.g. `25.3 M`.
pub(crate) fn si(v: f64) -> String {
    let (d, u) = if v >= 1e9 {
        (1e9, " G")
    } else if v >= 1e6 {
        (1e6, " M")
    } else if v >= 1e3 {
        (1e3, " k")
    } else {
        (1.0, " ")
    };
    format!("{:.1}{u}", v / d).trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t() -> Table {
        let mut t = Table::new(&["policy", "miss_ratio"]);
        t.push(vec!["lru".into(), "0.5".into()]);
        t.push(vec!["a,\"b\"".into(), "12.25".into()]);
        t
    }

    #[test]
    fn text_aligns_numbers_right() {
        assert_eq!(
            t().to_text(),
            "policy  miss_ratio\nlru            0.5\na,\"b\"        12.25\n"
        );
    }

    #[test]
    fn csv_quotes() {
        assert_eq!(
            t().to_csv(),
            "policy,miss_ratio\nlru,0.5\n\"a,\"\"b\"\"\",12.25\n"
        );
    }

    #[test]
    fn markdown_has_separator() {
        assert!(
            t().to_markdown()
                .starts_with("| policy | miss_ratio |\n|---|---|\n")
        );
    }

    #[test]
    fn si_units() {
        assert_eq!(si(25_300_000.0), "25.3 M");
        assert_eq!(si(12.0), "12.0");
    }
}
