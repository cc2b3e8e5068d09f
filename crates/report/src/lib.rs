//! `arclab-report`: how arclab presents results, in one place.
//!
//! * [`Table`]: one table model (columns with a name, an optional unit and
//!   an alignment; rows of typed [`Cell`]s) and one exporter per
//!   [`Format`]: aligned text, JSON, CSV, Markdown and HTML, in the modules
//!   of the same names. Every command that prints a table builds a `Table`
//!   and picks the exporter, as hyperfine's `export` module does with its
//!   results.
//! * [`html::escape`]: the one HTML escaping function.
//! * [`plot`]: the one plot setup for `plotters`: DejaVu Sans embedded in
//!   the binary (no font file read at run time), SVG to a string, PNG
//!   encoded in memory and written through [`arclab_io::write_atomic`].
//!
//! ```
//! use arclab_report::{Align, Column, Format, Table};
//! let mut t = Table::with_columns(vec![
//!     Column::new("policy").align(Align::Left),
//!     Column::new("miss ratio").key("miss_ratio"),
//! ]);
//! t.push(vec!["lru".into(), arclab_report::Cell::number(0.5, "0.500")]);
//! assert_eq!(t.render(Format::Text), "policy  miss ratio\nlru          0.500\n");
//! assert_eq!(t.render(Format::Csv), "policy,miss ratio\nlru,0.500\n");
//! assert_eq!(t.render(Format::Json), "[\n  {\n    \"policy\": \"lru\",\n    \"miss_ratio\": 0.5\n  }\n]\n");
//! ```

pub mod csv;
pub mod html;
pub mod json;
pub mod markdown;
pub mod plot;
mod table;
pub mod text;

pub use table::{Align, Cell, Column, Table};

/// An output format of a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// Aligned plain text, for a terminal.
    #[default]
    Text,
    /// An array of objects, one per row, keyed by column.
    Json,
    /// RFC 4180 CSV with a header row.
    Csv,
    /// A GitHub-flavoured Markdown table.
    Markdown,
    /// An HTML `<table>` element.
    Html,
}

impl Table {
    /// Render with the exporter for `format`.
    pub fn render(&self, format: Format) -> String {
        match format {
            Format::Text => text::render(self),
            Format::Json => json::render(self),
            Format::Csv => csv::render(self),
            Format::Markdown => markdown::render(self),
            Format::Html => html::table(self, None),
        }
    }

    /// [`text::render`].
    pub fn to_text(&self) -> String {
        text::render(self)
    }

    /// [`csv::render`].
    pub fn to_csv(&self) -> String {
        csv::render(self)
    }

    /// [`markdown::render`].
    pub fn to_markdown(&self) -> String {
        markdown::render(self)
    }

    /// [`json::render`].
    pub fn to_json(&self) -> String {
        json::render(self)
    }

    /// [`html::table`] without an id.
    pub fn to_html(&self) -> String {
        html::table(self, None)
    }
}

#[cfg(test)]
mod tests;
