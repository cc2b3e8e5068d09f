//! A self-contained HTML report: the tables, the warnings and the plot
//! inlined as SVG; no script, no external style sheet, no network.
//!
//! ```
//! use arclab_metrics::{compare, report::html, synth, time::Window};
//! let c = compare::compare(&synth::blog("nas"), &compare::Options::new(
//!     Window::parse(synth::BEFORE, 0.0).unwrap(), Window::parse(synth::AFTER, 0.0).unwrap())).unwrap();
//! let page = html::page(&c).unwrap();
//! assert!(page.contains("<svg") && !page.contains("<script") && !page.contains("<link") && !page.contains(" src="));
//! ```

use super::{Table, derived_table, plot, series_table};
use crate::compare::Comparison;
use crate::time::format_time;
use arclab_report::html::escape;

fn table(t: &Table) -> String {
    arclab_report::html::table(t, None)
}

/// The whole page.
pub fn page(c: &Comparison) -> Result<String, plot::PlotError> {
    let svg = plot::svg(c)?;
    // plotters writes a bare <svg>; the xmlns line is harmless inline.
    let mut s = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n\
         <title>arclab compare</title>\n<style>\
         body{font-family:sans-serif;margin:2em;max-width:1200px}\
         table{border-collapse:collapse;margin:1em 0}\
         td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}\
         td:first-child,th:first-child{text-align:left}\
         .warn{color:#8a4b00}</style></head><body>\n<h1>Before/after comparison</h1>\n",
    );
    s.push_str(&format!(
        "<p>before <b>{}</b><br>after <b>{}</b></p>\n",
        escape(&c.before.to_string()),
        escape(&c.after.to_string())
    ));
    if let Some(ch) = &c.change {
        s.push_str(&format!(
            "<p>change: <b>{}</b> at {}</p>\n",
            escape(&ch.what),
            format_time(ch.time)
        ));
    }
    s.push_str(&format!(
        "<p>Uncertainty: {}. <code>~</code> means no significant change.<br>Hit ratio = {}.</p>\n",
        escape(&c.method),
        escape(c.hit_ratio_definition)
    ));
    if !c.warnings.is_empty() {
        s.push_str("<h2>Warnings</h2>\n<ul>\n");
        for w in &c.warnings {
            s.push_str(&format!("<li class=\"warn\">{}</li>\n", escape(w)));
        }
        s.push_str("</ul>\n");
    }
    s.push_str("<h2>Derived</h2>\n");
    for d in std::iter::once(&c.derived).chain(&c.instances) {
        s.push_str(&table(&derived_table(d, c)));
    }
    s.push_str("<h2>Plot</h2>\n<div>");
    s.push_str(&svg);
    s.push_str("</div>\n<h2>Series</h2>\n");
    s.push_str(&table(&series_table(c)));
    s.push_str("</body></html>\n");
    Ok(s)
}
