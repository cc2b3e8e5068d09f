//! A table of formatted cells, printed as aligned text, Markdown or CSV.

/// Header and rows of already formatted cells.
#[derive(Debug, Clone, Default)]
pub struct Table {
    /// Column names.
    pub headers: Vec<String>,
    /// Rows.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// An empty table.
    pub fn new(headers: &[&str]) -> Self {
        Table {
            headers: headers.iter().map(|h| h.to_string()).collect(),
            rows: Vec::new(),
        }
    }

    /// Append a row (as many cells as headers).
    pub fn push(&mut self, row: Vec<String>) {
        debug_assert_eq!(row.len(), self.headers.len());
        self.rows.push(row);
    }

    fn numeric(cell: &str) -> bool {
        cell.chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit() || c == '-' || c == '+' || c == '.')
    }

    /// Aligned text: numbers right-aligned, two spaces between columns.
    pub fn to_text(&self) -> String {
        let mut w: Vec<usize> = self.headers.iter().map(|h| h.chars().count()).collect();
        for r in &self.rows {
            for (i, c) in r.iter().enumerate() {
                w[i] = w[i].max(c.chars().count());
            }
        }
        let mut s = String::new();
        for (k, row) in std::iter::once(&self.headers).chain(&self.rows).enumerate() {
            let cells: Vec<String> = row
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let pad = " ".repeat(w[i] - c.chars().count());
                    if k > 0 && i > 0 && Self::numeric(c) {
                        format!("{pad}{c}")
                    } else {
                        format!("{c}{pad}")
                    }
                })
                .collect();
            s.push_str(cells.join("  ").trim_end());
            s.push('\n');
        }
        s
    }

    /// GitHub-flavoured Markdown.
    pub fn to_markdown(&self) -> String {
        let esc = |c: &String| c.replace('|', "\\|");
        let line = |r: &Vec<String>| {
            format!(
                "| {} |\n",
                r.iter().map(esc).collect::<Vec<_>>().join(" | ")
            )
        };
        let mut s = line(&self.headers);
        s.push_str(&format!(
            "|{}|\n",
            vec!["---"; self.headers.len()].join("|")
        ));
        self.rows.iter().for_each(|r| s.push_str(&line(r)));
        s
    }

    /// RFC 4180 CSV with a header row.
    pub fn to_csv(&self) -> String {
        let field = |c: &String| {
            if c.contains([',', '"', '\n', '\r']) {
                format!("\"{}\"", c.replace('"', "\"\""))
            } else {
                c.clone()
            }
        };
        std::iter::once(&self.headers)
            .chain(&self.rows)
            .map(|r| r.iter().map(field).collect::<Vec<_>>().join(",") + "\n")
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        let mut t = Table::new(&["a", "b"]);
        t.push(vec!["x|y".into(), "1,5".into()]);
        assert_eq!(t.to_text(), "a    b\nx|y  1,5\n");
        assert_eq!(t.to_csv(), "a,b\nx|y,\"1,5\"\n");
        assert_eq!(t.to_markdown(), "| a | b |\n|---|---|\n| x\\|y | 1,5 |\n");
    }
}
