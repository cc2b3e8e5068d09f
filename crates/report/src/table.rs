//! The table model: columns and rows of typed cells.

use std::borrow::Cow;

/// How a column's cells line up in text (and which HTML cells are numeric).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Align {
    /// Cells that look like numbers (start with a digit, `-`, `+` or `.`,
    /// or are a [`Cell::Number`] / [`Cell::Int`]) right, the rest left.
    #[default]
    Auto,
    /// Always left.
    Left,
    /// Always right.
    Right,
}

/// A column: its name, the unit of its values, how it aligns, and the key
/// it has in JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    /// The header text.
    pub name: String,
    /// The unit of the values (`bytes`, `/s`), shown in the header as
    /// `name (unit)` when set.
    pub unit: Option<String>,
    /// Alignment.
    pub align: Align,
    /// The JSON key (default: the name).
    pub key: Option<String>,
}

impl Column {
    /// A column named `name`, [`Align::Auto`], no unit.
    pub fn new(name: impl Into<String>) -> Self {
        Column {
            name: name.into(),
            unit: None,
            align: Align::Auto,
            key: None,
        }
    }

    /// With alignment `a`.
    pub fn align(mut self, a: Align) -> Self {
        self.align = a;
        self
    }

    /// With unit `u`.
    pub fn unit(mut self, u: impl Into<String>) -> Self {
        self.unit = Some(u.into());
        self
    }

    /// With JSON key `k`.
    pub fn key(mut self, k: impl Into<String>) -> Self {
        self.key = Some(k.into());
        self
    }

    /// The header text: the name, and the unit in parentheses.
    pub fn header(&self) -> Cow<'_, str> {
        match &self.unit {
            Some(u) => Cow::Owned(format!("{} ({u})", self.name)),
            None => Cow::Borrowed(&self.name),
        }
    }

    /// The JSON key.
    pub fn json_key(&self) -> &str {
        self.key.as_deref().unwrap_or(&self.name)
    }
}

/// One cell: what it shows, and what it is.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// Text.
    Text(String),
    /// A number shown as `text` (already formatted: `98.67 %`, `12.3 GiB`);
    /// JSON gets `value`.
    Number {
        /// The value.
        value: f64,
        /// What text, CSV, Markdown and HTML show.
        text: String,
    },
    /// An integer.
    Int(i128),
    /// A boolean (`true`/`false`).
    Bool(bool),
    /// Nothing: shown empty, `null` in JSON.
    Empty,
}

impl Cell {
    /// A number with its display text.
    pub fn number(value: f64, text: impl Into<String>) -> Self {
        Cell::Number {
            value,
            text: text.into(),
        }
    }

    /// What text-like exporters show.
    pub fn text(&self) -> Cow<'_, str> {
        match self {
            Cell::Text(s) | Cell::Number { text: s, .. } => Cow::Borrowed(s),
            Cell::Int(i) => Cow::Owned(i.to_string()),
            Cell::Bool(b) => Cow::Borrowed(if *b { "true" } else { "false" }),
            Cell::Empty => Cow::Borrowed(""),
        }
    }

    /// Whether an [`Align::Auto`] column puts this cell on the right.
    pub fn looks_numeric(&self) -> bool {
        match self {
            Cell::Int(_) => true,
            Cell::Bool(_) | Cell::Empty => false,
            Cell::Text(s) | Cell::Number { text: s, .. } => s
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_digit() || matches!(c, '-' | '+' | '.')),
        }
    }
}

impl From<String> for Cell {
    fn from(s: String) -> Self {
        Cell::Text(s)
    }
}

impl From<&str> for Cell {
    fn from(s: &str) -> Self {
        Cell::Text(s.to_string())
    }
}

impl From<&String> for Cell {
    fn from(s: &String) -> Self {
        Cell::Text(s.clone())
    }
}

impl From<u64> for Cell {
    fn from(v: u64) -> Self {
        Cell::Int(i128::from(v))
    }
}

impl From<i64> for Cell {
    fn from(v: i64) -> Self {
        Cell::Int(i128::from(v))
    }
}

impl From<usize> for Cell {
    fn from(v: usize) -> Self {
        Cell::Int(v as i128)
    }
}

impl From<bool> for Cell {
    fn from(v: bool) -> Self {
        Cell::Bool(v)
    }
}

/// Columns and rows.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Table {
    /// The columns, in order.
    pub columns: Vec<Column>,
    /// The rows; each has one cell per column.
    pub rows: Vec<Vec<Cell>>,
}

impl Table {
    /// A table with [`Align::Auto`] columns named `headers`.
    pub fn new(headers: &[&str]) -> Self {
        Self::with_columns(headers.iter().map(|h| Column::new(*h)).collect())
    }

    /// A table with these columns.
    pub fn with_columns(columns: Vec<Column>) -> Self {
        Table {
            columns,
            rows: Vec::new(),
        }
    }

    /// Set column `i`'s alignment (builder style).
    pub fn align(mut self, i: usize, a: Align) -> Self {
        if let Some(c) = self.columns.get_mut(i) {
            c.align = a;
        }
        self
    }

    /// Append a row. A short row is padded with [`Cell::Empty`]; extra cells
    /// are dropped (debug builds assert the count).
    pub fn push<C: Into<Cell>>(&mut self, row: Vec<C>) {
        debug_assert_eq!(row.len(), self.columns.len());
        let mut cells: Vec<Cell> = row.into_iter().map(Into::into).collect();
        cells.resize(self.columns.len(), Cell::Empty);
        self.rows.push(cells);
    }

    /// The header texts.
    pub fn headers(&self) -> Vec<Cow<'_, str>> {
        self.columns.iter().map(Column::header).collect()
    }

    /// Whether cell `cell` of column `col` goes on the right.
    pub fn right_aligned(&self, col: usize, cell: &Cell) -> bool {
        match self.columns.get(col).map_or(Align::Auto, |c| c.align) {
            Align::Left => false,
            Align::Right => true,
            Align::Auto => cell.looks_numeric(),
        }
    }
}
