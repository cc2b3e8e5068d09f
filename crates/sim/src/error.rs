//! [`DescriptionError`]: a workload or scenario description was rejected;
//! one line naming the file, the line and what is wrong.

use std::fmt;

/// Why a workload or scenario description (TOML) was rejected.
///
/// Displays as one line: `FILE: line 7: unknown workload kind `zipff` (known: …)`
/// (the line is left out when it is not known).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DescriptionError {
    origin: String,
    line: Option<usize>,
    message: String,
}

impl DescriptionError {
    /// An error about `origin` (a file name, `builtin:homelab`, …).
    pub fn new(origin: &str, line: Option<usize>, message: impl Into<String>) -> Self {
        DescriptionError {
            origin: origin.to_string(),
            line,
            message: message.into(),
        }
    }

    /// Where the description came from.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// The 1-based line the error points at, when known.
    pub fn line(&self) -> Option<usize> {
        self.line
    }

    /// What is wrong, without origin and line.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The error from TOML text: the line from toml's span, refined for the
    /// errors serde reports on a whole table (unknown field or kind).
    pub(crate) fn from_toml(text: &str, origin: &str, e: &toml::de::Error, kinds: &str) -> Self {
        let msg = e.message().trim().to_string();
        let span_line = e.span().map(|s| line_at(text, s.start));
        let after = span_line.unwrap_or(1);
        if let Some(v) = backticked(&msg, "unknown variant `") {
            let line = find_line(text, after, |l| {
                key_of(l) == Some("kind") && l.contains(&format!("\"{v}\""))
            })
            .or(span_line);
            return DescriptionError::new(
                origin,
                line,
                format!("unknown workload kind `{v}` (known: {kinds})"),
            );
        }
        if let Some(f) = backticked(&msg, "unknown field `") {
            let line = find_line(text, after, |l| key_of(l) == Some(f)).or(span_line);
            return DescriptionError::new(origin, line, msg);
        }
        if msg.contains("missing field `kind`") {
            return DescriptionError::new(
                origin,
                span_line,
                format!("no workload `kind` given (known: {kinds})"),
            );
        }
        DescriptionError::new(origin, span_line, msg)
    }
}

impl fmt::Display for DescriptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}: line {l}: {}", self.origin, self.message),
            None => write!(f, "{}: {}", self.origin, self.message),
        }
    }
}

impl std::error::Error for DescriptionError {}

/// The 1-based line of byte offset `at`.
pub(crate) fn line_at(text: &str, at: usize) -> usize {
    text.as_bytes()[..at.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// The text between `prefix` and the next backtick.
fn backticked<'a>(msg: &'a str, prefix: &str) -> Option<&'a str> {
    let rest = &msg[msg.find(prefix)? + prefix.len()..];
    Some(&rest[..rest.find('`')?])
}

/// The key of a `key = value` line.
pub(crate) fn key_of(line: &str) -> Option<&str> {
    let (k, _) = line.split_once('=')?;
    let k = k.trim().trim_matches('"');
    (!k.is_empty() && !k.starts_with('#') && !k.starts_with('[')).then_some(k)
}

/// The first line at or after `from` (1-based) satisfying `pred`.
pub(crate) fn find_line(text: &str, from: usize, pred: impl Fn(&str) -> bool) -> Option<usize> {
    text.lines()
        .enumerate()
        .skip(from.saturating_sub(1))
        .find(|(_, l)| pred(l))
        .map(|(i, _)| i + 1)
}

/// The line of `key` in the `component`-th `[[table]]` table (or at top
/// level, before the first `[[table]]`, when `component` is `None`).
pub(crate) fn line_of_key(
    text: &str,
    table: &str,
    component: Option<usize>,
    key: &str,
) -> Option<usize> {
    let mut start = 1;
    let mut end = usize::MAX;
    let header = format!("[[{table}]]");
    let headers: Vec<usize> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.trim() == header)
        .map(|(i, _)| i + 1)
        .collect();
    match component {
        Some(c) => {
            start = *headers.get(c)?;
            end = headers.get(c + 1).copied().unwrap_or(usize::MAX);
        }
        None => {
            if let Some(&h) = headers.first() {
                end = h;
            }
        }
    }
    find_line(text, start, |l| key_of(l) == Some(key)).filter(|&l| l < end)
}
