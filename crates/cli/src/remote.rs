//! Reaching a Prometheus-compatible server: the command-line options for
//! it ([`ServerArgs`]: credentials, retries, limits) and [`fetch`], which
//! runs the queries through `arclab_metrics::promapi` with a progress line.
//! Shared by `export` and `compare`.

use crate::cmd::UsageError;
use crate::progress::Progress;
use anyhow::{Context, Result};
use arclab_metrics::export::{ExportFile, QueryResult, Request};
use arclab_metrics::promapi::{Auth, Client, UreqTransport, chunk_windows, redact_url};
use arclab_metrics::query::queries_for;
use arclab_metrics::time::format_time;
use std::path::PathBuf;
use std::time::Duration;

/// How to reach the server: credentials, retries, limits.
#[derive(clap::Args, Debug, Clone)]
pub(crate) struct ServerArgs {
    /// Environment variable holding a bearer token.
    #[arg(long, value_name = "VAR", group = "auth")]
    bearer_token_env: Option<String>,
    /// File holding a bearer token.
    #[arg(long, value_name = "FILE", group = "auth")]
    bearer_token_file: Option<PathBuf>,
    /// Environment variable holding `user:password` for basic auth.
    #[arg(long, value_name = "VAR", group = "auth")]
    basic_auth_env: Option<String>,
    /// File holding `user:password` for basic auth.
    #[arg(long, value_name = "FILE", group = "auth")]
    basic_auth_file: Option<PathBuf>,
    /// Retries on timeouts, refused connections and 5xx (backoff 0.5 s, doubling).
    #[arg(long, default_value_t = 3)]
    retries: u32,
    /// Timeout of one request.
    #[arg(long, default_value = "60s", value_parser = crate::args::duration)]
    timeout: Duration,
    /// Most points per series in one request (Prometheus allows 11,000,
    /// VictoriaMetrics 30,000); longer ranges are split.
    #[arg(long, default_value_t = 11_000)]
    max_points: usize,
}

impl ServerArgs {
    fn auth(&self) -> Result<Option<Auth>> {
        let env = |v: &str| {
            std::env::var(v).map_err(|_| UsageError(format!("environment variable {v} is not set")))
        };
        // A token or `user:password` is short: 64 KiB refuses a wrong file.
        let file = |p: &PathBuf| {
            arclab_io::read_to_string_limited(p, 64 << 10)
                .map(|s| s.trim().to_string())
                .context("reading credentials")
        };
        let basic = |s: String| -> Result<Auth> {
            let (u, p) = s
                .split_once(':')
                .ok_or_else(|| UsageError("basic auth credentials must be user:password".into()))?;
            Ok(Auth::Basic(u.into(), p.into()))
        };
        Ok(if let Some(v) = &self.bearer_token_env {
            Some(Auth::Bearer(env(v)?))
        } else if let Some(p) = &self.bearer_token_file {
            Some(Auth::Bearer(file(p)?))
        } else if let Some(v) = &self.basic_auth_env {
            Some(basic(env(v)?)?)
        } else if let Some(p) = &self.basic_auth_file {
            Some(basic(file(p)?)?)
        } else {
            None
        })
    }

    pub(crate) fn client(&self, url: &str) -> Result<Client<UreqTransport>> {
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(UsageError(format!(
                "--url must start with http:// or https://, got `{}`",
                redact_url(url)
            ))
            .into());
        }
        let mut c = Client::new(url, UreqTransport::new(self.timeout), self.auth()?);
        c.retries = self.retries;
        c.max_points = self.max_points.max(1);
        Ok(c)
    }
}

/// Fetch `metrics` over `[from, to]` into an export file (not written).
pub(crate) fn fetch(
    url: &str,
    server: &ServerArgs,
    metrics: &str,
    matchers: &str,
    from: f64,
    to: f64,
    step: f64,
) -> Result<ExportFile> {
    let client = server.client(url)?;
    // Refuse a range that would take too many requests before sending any.
    chunk_windows(from, to, step, client.max_points).map_err(|e| UsageError(e.to_string()))?;
    let queries = queries_for(metrics, matchers);
    if queries.is_empty() {
        return Err(UsageError("--metrics is empty".into()).into());
    }
    let mut file = ExportFile::new(Request {
        url: redact_url(url),
        from,
        to,
        step,
        metrics: metrics.into(),
        r#match: matchers.into(),
        queries: queries.clone(),
    });
    file.created = format_time(arclab_metrics::time::now());
    let mut progress = Progress::count("querying");
    let mut requests = 0usize;
    for q in &queries {
        let mut chunks = 0;
        let (series, warnings) = client
            .query_range_chunked(q, from, to, step, &mut |d, _| {
                chunks = d;
                progress.set((requests + d) as u64);
            })
            .with_context(|| format!("query `{q}`"))?;
        requests += chunks;
        for w in &warnings {
            // The server's text: escaped like every message quoting input.
            crate::output::note(&format!("arclab: server warning for `{q}`: {w}"));
        }
        if series.is_empty() {
            eprintln!(
                "arclab: warning: `{q}` matched no series in {}..{}",
                format_time(from),
                format_time(to)
            );
        }
        let mut r = QueryResult::new(q, series);
        r.chunks = chunks;
        r.warnings = warnings;
        file.results.push(r);
    }
    progress.finish();
    // Types from the metadata API, for names the catalogue cannot classify.
    if let Ok(meta) = client.metadata() {
        let names: std::collections::BTreeSet<&str> = file
            .results
            .iter()
            .flat_map(|r| {
                r.data
                    .result
                    .iter()
                    .filter_map(|s| s.metric.get("__name__").map(String::as_str))
            })
            .collect();
        file.metadata = meta
            .into_iter()
            .filter(|(k, _)| names.contains(k.as_str()))
            .collect();
    }
    for r in client.redirects() {
        eprintln!("arclab: note: the server redirected: {r}");
    }
    Ok(file)
}
