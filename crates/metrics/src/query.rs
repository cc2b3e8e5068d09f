//! Which series to ask for: the `arc` preset, metric names and PromQL
//! selectors, with an extra `--match` selector merged in.
//!
//! ```
//! use arclab_metrics::query::{split_list, with_match, queries_for};
//! assert_eq!(split_list("a,b{x=\"1,2\"}"), vec!["a", "b{x=\"1,2\"}"]);
//! assert_eq!(with_match("node_zfs_arc_hits", "{instance=\"nas\"}"), "node_zfs_arc_hits{instance=\"nas\"}");
//! assert_eq!(with_match("up{job=\"n\"}", "instance=\"nas\""), "up{job=\"n\",instance=\"nas\"}");
//! assert!(queries_for("arc", "")[0].starts_with("{__name__=~\"node_zfs_arc_(size|"));
//! ```

/// Linux `node_zfs_arc_<field>` fields of the `arc` preset.
pub const ARC_FIELDS: &[&str] = &[
    "size",
    "c",
    "c_min",
    "c_max",
    "hits",
    "misses",
    "iohits",
    "demand_data_hits",
    "demand_data_misses",
    "demand_metadata_hits",
    "demand_metadata_misses",
    "prefetch_data_hits",
    "prefetch_data_misses",
    "prefetch_metadata_hits",
    "prefetch_metadata_misses",
    "mru_hits",
    "mfu_hits",
    "mru_ghost_hits",
    "mfu_ghost_hits",
    "mru_size",
    "mfu_size",
    "data_size",
    "metadata_size",
    "arc_meta_used",
    "memory_available_bytes",
    "memory_throttle_count",
];

/// FreeBSD `node_zfs_arcstats_<name>` names of the `arc` preset.
pub const ARCSTATS_NAMES: &[&str] = &[
    "hits_total",
    "misses_total",
    "demand_data_hits_total",
    "demand_data_misses_total",
    "demand_metadata_hits_total",
    "demand_metadata_misses_total",
    "mru_ghost_hits_total",
    "mfu_ghost_hits_total",
    "size_bytes",
    "c_bytes",
    "c_min_bytes",
    "c_max_bytes",
    "mru_bytes",
    "mfu_bytes",
    "data_bytes",
];

/// Split a comma-separated list at top-level commas only (not inside `{}`,
/// `()`, `[]` or quotes). Empty items are dropped.
pub fn split_list(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let (mut depth, mut quote, mut cur) = (0i32, None::<char>, String::new());
    let mut escaped = false;
    for c in s.chars() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            cur.push(c);
            continue;
        }
        match c {
            '"' | '\'' | '`' => quote = Some(c),
            '{' | '(' | '[' => depth += 1,
            '}' | ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    out.push(cur);
    out.into_iter()
        .map(|x| x.trim().to_string())
        .filter(|x| !x.is_empty())
        .collect()
}

fn is_ident(s: &str) -> bool {
    let mut ch = s.chars();
    ch.next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == ':')
        && ch.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
}

/// The metric name of a plain selector (`name` or `name{…}`), if it is one.
pub fn selector_name(sel: &str) -> Option<&str> {
    let name = sel.split('{').next()?.trim();
    let plain = is_ident(name) && (!sel.contains('{') || sel.trim_end().ends_with('}'));
    plain.then_some(name)
}

/// Merge label matchers (`{a="b"}` or `a="b"`) into a plain selector.
/// Other PromQL expressions are returned unchanged.
pub fn with_match(selector: &str, matchers: &str) -> String {
    let m = matchers
        .trim()
        .trim_start_matches('{')
        .trim_end_matches('}')
        .trim();
    if m.is_empty() {
        return selector.to_string();
    }
    let s = selector.trim();
    if is_ident(s) {
        return format!("{s}{{{m}}}");
    }
    let plain_braces = s.ends_with('}') && s.find('{').is_some_and(|i| is_ident(&s[..i]) || i == 0);
    if plain_braces {
        let inner = s[s.find('{').unwrap_or(0) + 1..s.len() - 1].trim();
        let head = &s[..s.find('{').unwrap_or(0)];
        return if inner.is_empty() {
            format!("{head}{{{m}}}")
        } else {
            format!("{head}{{{inner},{m}}}")
        };
    }
    s.to_string()
}

/// The queries for a `--metrics` value: `arc` (the preset for Linux and
/// FreeBSD names in one selector), `arc-all` (every ARC metric), or a list of
/// names and selectors; each with `matchers` merged in.
pub fn queries_for(metrics: &str, matchers: &str) -> Vec<String> {
    split_list(metrics)
        .into_iter()
        .map(|item| match item.as_str() {
            "arc" => with_match(
                &format!(
                    "{{__name__=~\"node_zfs_arc_({})|node_zfs_arcstats_({})|{}\"}}",
                    ARC_FIELDS.join("|"),
                    ARCSTATS_NAMES.join("|"),
                    ARC_FIELDS
                        .iter()
                        .map(|f| arclab_zfs::exposition::arc_metric_name(f))
                        .collect::<Vec<_>>()
                        .join("|")
                ),
                matchers,
            ),
            "arc-all" => with_match(
                "{__name__=~\"node_zfs_arc_.+|node_zfs_arcstats_.+|arclab_zfs_arc_.+\"}",
                matchers,
            ),
            _ => with_match(&item, matchers),
        })
        .collect()
}

/// Whether a series name belongs to the `arc` preset (node_exporter's
/// Linux and FreeBSD names, and `arclab exporter`'s).
pub fn in_arc_preset(name: &str) -> bool {
    arclab_zfs::exposition::arc_field_of(name).is_some_and(|f| ARC_FIELDS.contains(&f))
        || name
            .strip_prefix("node_zfs_arc_")
            .is_some_and(|f| ARC_FIELDS.contains(&f))
        || name
            .strip_prefix("node_zfs_arcstats_")
            .is_some_and(|f| ARCSTATS_NAMES.contains(&f))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists() {
        assert_eq!(split_list(""), Vec::<String>::new());
        assert_eq!(split_list(" a , ,b "), vec!["a", "b"]);
        assert_eq!(split_list("rate(x[5m]),y"), vec!["rate(x[5m])", "y"]);
        assert_eq!(
            split_list(r#"a{l="\",",m="x"},b"#),
            vec![r#"a{l="\",",m="x"}"#, "b"]
        );
    }

    #[test]
    fn matches() {
        assert_eq!(with_match("x", ""), "x");
        assert_eq!(with_match("x{}", "a=\"b\""), "x{a=\"b\"}");
        assert_eq!(
            with_match("{__name__=\"x\"}", "a=\"b\""),
            "{__name__=\"x\",a=\"b\"}"
        );
        assert_eq!(with_match("rate(x[5m])", "a=\"b\""), "rate(x[5m])");
        assert_eq!(
            selector_name("node_zfs_arc_hits{a=\"b\"}"),
            Some("node_zfs_arc_hits")
        );
        assert_eq!(selector_name("rate(x[5m])"), None);
        assert!(
            in_arc_preset("node_zfs_arc_hits") && in_arc_preset("node_zfs_arcstats_size_bytes")
        );
        assert!(!in_arc_preset("node_zfs_arc_l2_hits"));
        assert_eq!(queries_for("arc-all,up", "job=\"n\"").len(), 2);
    }
}
