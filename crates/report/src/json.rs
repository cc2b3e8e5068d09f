//! JSON: an array with one object per row, keyed by the columns' JSON keys;
//! numbers as numbers (a non-finite one as `null`), empty cells as `null`.

use crate::{Cell, Table};
use serde_json::Value;

/// A cell as a JSON value.
pub fn value(c: &Cell) -> Value {
    match c {
        Cell::Text(s) => Value::String(s.clone()),
        Cell::Number { value, .. } => {
            serde_json::Number::from_f64(*value).map_or(Value::Null, Value::Number)
        }
        Cell::Int(i) => i64::try_from(*i)
            .map(Value::from)
            .or_else(|_| u64::try_from(*i).map(Value::from))
            .unwrap_or_else(|_| Value::String(i.to_string())),
        Cell::Bool(b) => Value::Bool(*b),
        Cell::Empty => Value::Null,
    }
}

/// Render `t` as pretty JSON (two-space indent, keys in column order) with
/// a trailing newline.
pub fn render(t: &Table) -> String {
    let enc = |v: &Value| serde_json::to_string(v).unwrap_or_else(|_| "null".into());
    if t.rows.is_empty() {
        return "[]\n".into();
    }
    let mut s = String::from("[\n");
    for (r, row) in t.rows.iter().enumerate() {
        s.push_str("  {\n");
        for (i, (col, c)) in t.columns.iter().zip(row).enumerate() {
            s.push_str(&format!(
                "    {}: {}{}\n",
                enc(&Value::String(col.json_key().to_string())),
                enc(&value(c)),
                if i + 1 < row.len().min(t.columns.len()) {
                    ","
                } else {
                    ""
                }
            ));
        }
        s.push_str(if r + 1 < t.rows.len() {
            "  },\n"
        } else {
            "  }\n"
        });
    }
    s.push_str("]\n");
    s
}
