//! HTML: the one escaping function, and a table as a `<table>` element
//! (header in `<thead>`, right-aligned cells with `class="num"`).

use crate::Table;

/// Escape text for HTML element content and quoted attribute values:
/// `&`, `<`, `>`, `"` and `'`.
///
/// ```
/// assert_eq!(arclab_report::html::escape("<a href='x'>&\""), "&lt;a href=&#39;x&#39;&gt;&amp;&quot;");
/// ```
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// `t` as a `<table>` element (with `id` when given), ending in `\n`.
pub fn table(t: &Table, id: Option<&str>) -> String {
    table_with_row_class(t, id, |_| None)
}

/// [`table`], with `class` on the `<tr>` of each body row `i` for which
/// `row_class(i)` names one (to highlight rows).
pub fn table_with_row_class<'a>(
    t: &Table,
    id: Option<&str>,
    row_class: impl Fn(usize) -> Option<&'a str>,
) -> String {
    let mut s = match id {
        Some(id) => format!("<table id=\"{}\">\n<thead><tr>", escape(id)),
        None => String::from("<table>\n<thead><tr>"),
    };
    for h in t.headers() {
        s.push_str(&format!("<th>{}</th>", escape(&h)));
    }
    s.push_str("</tr></thead>\n<tbody>\n");
    for (i, row) in t.rows.iter().enumerate() {
        match row_class(i) {
            Some(c) => s.push_str(&format!("<tr class=\"{}\">", escape(c))),
            None => s.push_str("<tr>"),
        }
        for (i, c) in row.iter().enumerate() {
            let class = if t.right_aligned(i, c) {
                " class=\"num\""
            } else {
                ""
            };
            s.push_str(&format!("<td{class}>{}</td>", escape(&c.text())));
        }
        s.push_str("</tr>\n");
    }
    s.push_str("</tbody>\n</table>\n");
    s
}
