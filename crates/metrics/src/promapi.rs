//! A small blocking client for the Prometheus HTTP API as Prometheus,
//! VictoriaMetrics, Thanos and Mimir serve it: `/api/v1/query_range` split into
//! chunks under the server's points-per-series limit, `/api/v1/metadata`,
//! retries with exponential backoff on timeouts, connection failures and 5xx,
//! and the server's own message on 4xx/422. An answer larger than
//! [`MAX_BODY_BYTES`] after decompression (a gzip bomb) is an error that is
//! not retried; redirects are followed only within the same origin (scheme,
//! host and port), re-sending the same POST, and recorded in
//! [`Client::redirects`].
//!
//! The network is injected through [`Transport`] ([`UreqTransport`] in
//! production, a closure-backed mock in tests); credentials live in [`Auth`],
//! whose `Debug` never shows them.
//!
//! ```
//! use arclab_metrics::promapi::parse_matrix;
//! let body = r#"{"status":"success","data":{"resultType":"matrix","result":[
//!   {"metric":{"__name__":"node_zfs_arc_hits","instance":"nas:9100"},
//!    "values":[[1700000000,"1000000"],[1700000015,"NaN"]]}]}}"#;
//! let (series, warnings) = parse_matrix(body).unwrap();
//! assert_eq!(series[0].points[0], (1_700_000_000.0, 1_000_000.0));
//! assert!(series[0].points[1].1.is_nan() && warnings.is_empty());
//! ```

use crate::series::{Labels, Series};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

/// An HTTP answer: status code, `Location` header (for redirects) and body text.
#[derive(Debug, Clone, Default)]
pub struct HttpResponse {
    /// Status code.
    pub status: u16,
    /// The `Location` header, if any (a transport does not follow redirects).
    pub location: Option<String>,
    /// Body, decompressed.
    pub body: String,
}

/// A failure below HTTP.
#[derive(Debug, Clone, thiserror::Error)]
pub enum TransportError {
    /// Refused, unreachable, timed out, cut off: worth retrying.
    #[error("{0}")]
    Failed(String),
    /// The body is larger than `limit` bytes after decompression: retrying
    /// would only fetch it again.
    #[error("the answer is larger than {limit} bytes after decompression")]
    TooLarge {
        /// The limit in bytes.
        limit: u64,
    },
}

/// The largest answer body read, after decompression: 256 MiB holds about
/// 800 series of 11,000 points (some 30 bytes each in the API's JSON).
pub const MAX_BODY_BYTES: u64 = 256 << 20;

/// Redirects followed per request at most.
pub const MAX_REDIRECTS: u32 = 5;

/// How requests reach the server (inject a mock in tests).
pub trait Transport {
    /// POST `form` as `application/x-www-form-urlencoded` to `url`, with an
    /// `Authorization` header value if given.
    fn post_form(
        &self,
        url: &str,
        form: &[(&str, String)],
        authorization: Option<&str>,
    ) -> Result<HttpResponse, TransportError>;
}

/// [`Transport`] over `ureq`: gzip accepted, bodies up to
/// [`max_body`](Self::max_body) bytes after decompression, redirects not
/// followed (the [`Client`] decides).
#[derive(Debug, Clone)]
pub struct UreqTransport {
    agent: ureq::Agent,
    /// Largest body read, in bytes after decompression ([`MAX_BODY_BYTES`]).
    pub max_body: u64,
}

impl UreqTransport {
    /// A transport whose requests give up after `timeout`.
    pub fn new(timeout: Duration) -> Self {
        let config = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            .http_status_as_error(false)
            .max_redirects(0)
            .build();
        UreqTransport {
            agent: ureq::Agent::new_with_config(config),
            max_body: MAX_BODY_BYTES,
        }
    }
}

impl Transport for UreqTransport {
    fn post_form(
        &self,
        url: &str,
        form: &[(&str, String)],
        authorization: Option<&str>,
    ) -> Result<HttpResponse, TransportError> {
        let failed = |e: ureq::Error| match e {
            ureq::Error::BodyExceedsLimit(limit) => TransportError::TooLarge { limit },
            e => TransportError::Failed(e.to_string()),
        };
        let mut req = self.agent.post(url);
        if let Some(a) = authorization {
            req = req.header("Authorization", a);
        }
        let pairs: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let mut resp = req.send_form(pairs).map_err(failed)?;
        let status = resp.status().as_u16();
        let location = resp
            .headers()
            .get("location")
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
        let body = resp
            .body_mut()
            .with_config()
            .limit(self.max_body)
            .lossy_utf8(true)
            .read_to_string()
            .map_err(failed)?;
        Ok(HttpResponse {
            status,
            location,
            body,
        })
    }
}

/// Credentials for the server. `Debug` and `Display` redact them.
#[derive(Clone, PartialEq)]
pub enum Auth {
    /// `Authorization: Bearer <token>`.
    Bearer(String),
    /// `Authorization: Basic base64(user:password)`.
    Basic(String, String),
}

impl fmt::Debug for Auth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Auth::Bearer(_) => f.write_str("Bearer(<redacted>)"),
            Auth::Basic(..) => f.write_str("Basic(<redacted>)"),
        }
    }
}

impl Auth {
    /// The `Authorization` header value.
    pub fn header(&self) -> String {
        match self {
            Auth::Bearer(t) => format!("Bearer {}", t.trim()),
            Auth::Basic(u, p) => format!("Basic {}", base64(format!("{u}:{p}").as_bytes())),
        }
    }
}

/// Standard base64 with padding (RFC 4648 §4).
pub fn base64(data: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::with_capacity(data.len().div_ceil(3) * 4);
    for c in data.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for i in 0..4 {
            if i <= c.len() {
                s.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                s.push('=');
            }
        }
    }
    s
}

/// Why a query failed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ApiError {
    /// The server could not be reached (after retries).
    #[error("cannot reach {url} after {attempts} attempt(s): {message}")]
    Unreachable {
        /// Endpoint URL (no credentials).
        url: String,
        /// Attempts made.
        attempts: u32,
        /// Last transport error.
        message: String,
    },
    /// The server answered with an error; `message` is its own.
    #[error("server answered HTTP {status}{}: {message}", error_type.as_ref().map(|t| format!(" ({t})")).unwrap_or_default())]
    Server {
        /// HTTP status.
        status: u16,
        /// `errorType`, if the body had one.
        error_type: Option<String>,
        /// `error` from the body, or the start of the body.
        message: String,
    },
    /// The answer was too large (not retried).
    #[error(
        "the answer from {url} is larger than {} MiB after decompression (a compressed \
         \"gzip bomb\", or far too much data for one request); not retried: use a shorter \
         range, a larger --step, a smaller --max-points or a narrower --match",
        limit >> 20
    )]
    TooLarge {
        /// Endpoint URL (no credentials).
        url: String,
        /// The limit in bytes.
        limit: u64,
    },
    /// A redirect that was not followed.
    #[error("{url}: the server answered HTTP {status} {why}; not followed")]
    Redirect {
        /// Endpoint URL (no credentials).
        url: String,
        /// HTTP status.
        status: u16,
        /// Where to and why it was not followed.
        why: String,
    },
    /// The body is not a Prometheus API answer of the expected shape.
    #[error("unexpected answer from the server: {0}")]
    BadResponse(String),
    /// The range, step and points per request would take more than
    /// [`MAX_CHUNKS`] requests (nothing was sent).
    #[error(
        "{points:.0} points per series ((to - from) / step + 1) at {max_points} points per request \
         is {chunks:.0} requests per query, more than {MAX_CHUNKS}: use a larger --step, a larger \
         --max-points or a shorter range"
    )]
    TooManyRequests {
        /// Evaluation points per series over the range.
        points: f64,
        /// Points per request.
        max_points: usize,
        /// Requests it would take.
        chunks: f64,
    },
}

/// The most requests one query may be split into: 10,000 requests of 11,000
/// points cover 3.5 years at a 1 s step.
pub const MAX_CHUNKS: usize = 10_000;

#[derive(Deserialize)]
struct Envelope<'a> {
    status: String,
    #[serde(default, borrow)]
    data: Option<Data<'a>>,
    #[serde(rename = "errorType", default)]
    error_type: Option<String>,
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    warnings: Vec<String>,
    #[serde(default)]
    infos: Vec<String>,
}

#[derive(Deserialize)]
struct Data<'a> {
    #[serde(rename = "resultType")]
    result_type: String,
    #[serde(borrow)]
    result: Vec<RawSeries<'a>>,
}

/// One matrix entry as the API sends it; `values` kept as raw JSON and
/// parsed by [`parse_values`].
#[derive(Deserialize)]
pub(crate) struct RawSeries<'a> {
    #[serde(default)]
    pub(crate) metric: Labels,
    #[serde(default, borrow)]
    pub(crate) values: Option<&'a serde_json::value::RawValue>,
}

impl RawSeries<'_> {
    pub(crate) fn into_series(self) -> Result<Series, String> {
        let mut points = match self.values {
            None => Vec::new(),
            Some(raw) => match scan_values(raw.get()) {
                Some(p) => p,
                None => parse_values(raw.get())?,
            },
        };
        if !points.windows(2).all(|w| w[0].0 <= w[1].0) {
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
        }
        Ok(Series {
            labels: self.metric,
            points,
        })
    }
}

/// Parse `[[t, "v"], …]` with serde (any valid JSON spelling).
pub(crate) fn parse_values(raw: &str) -> Result<Vec<(f64, f64)>, String> {
    let pairs: Vec<(f64, std::borrow::Cow<'_, str>)> =
        serde_json::from_str(raw).map_err(|e| format!("values: {e}"))?;
    pairs
        .into_iter()
        .map(|(t, v)| {
            v.parse()
                .map(|x| (t, x))
                .map_err(|_| format!("sample value `{v}` is not a number"))
        })
        .collect()
}

/// Read the run of ASCII digits at `b[*i..]` in one pass: its length and
/// value (wrapping; only used when at most 19 digits, which fit in a u64).
#[inline]
fn digits(b: &[u8], i: &mut usize) -> (usize, u64) {
    let start = *i;
    let mut acc = 0u64;
    while let Some(d) = b.get(*i).map(|c| c.wrapping_sub(b'0')).filter(|d| *d <= 9) {
        acc = acc.wrapping_mul(10).wrapping_add(u64::from(d));
        *i += 1;
    }
    (*i - start, acc)
}

/// A whole number of 1 to 19 digits as f64. The u64-to-f64 conversion
/// rounds to nearest like the decimal parser, so the result is the same.
#[inline]
fn integer(n: usize, acc: u64) -> Option<f64> {
    (1..=19).contains(&n).then_some(acc as f64)
}

/// A fast scanner for the common spelling `[[1700000000,"1.5e9"],…]`
/// (whitespace allowed, no escapes); `None` sends the text to
/// [`parse_values`], which also produces the error messages.
pub(crate) fn scan_values(raw: &str) -> Option<Vec<(f64, f64)>> {
    let b = raw.as_bytes();
    let mut i = 0;
    let ws = |i: &mut usize| {
        while *i < b.len() && b[*i].is_ascii_whitespace() {
            *i += 1;
        }
    };
    let eat = |i: &mut usize, c: u8| -> Option<()> {
        ws(i);
        (b.get(*i) == Some(&c)).then(|| *i += 1)
    };
    eat(&mut i, b'[')?;
    let mut out = Vec::with_capacity(raw.len() / 24);
    ws(&mut i);
    if b.get(i) == Some(&b']') {
        i += 1;
        ws(&mut i);
        return (i == b.len()).then_some(out);
    }
    loop {
        eat(&mut i, b'[')?;
        ws(&mut i);
        // Timestamp: digits parsed while scanning; anything else (fraction,
        // exponent, sign) goes through the general parser.
        let start = i;
        let (n, acc) = digits(b, &mut i);
        let t = match (b.get(i), integer(n, acc)) {
            (Some(b'.' | b'e' | b'E' | b'-' | b'+'), _) | (_, None) => {
                while i < b.len() && matches!(b[i], b'0'..=b'9' | b'.' | b'-' | b'+' | b'e' | b'E')
                {
                    i += 1;
                }
                raw.get(start..i)?.parse().ok()?
            }
            (_, Some(t)) => t,
        };
        eat(&mut i, b',')?;
        eat(&mut i, b'"')?;
        // Value: the same for a string of digits; NaN, ±Inf, fractions
        // and exponents are read up to the closing quote and parsed.
        let vs = i;
        let (n, acc) = digits(b, &mut i);
        let v = match (b.get(i), integer(n, acc)) {
            (Some(b'"'), Some(v)) => v,
            _ => {
                while i < b.len() && b[i] != b'"' && b[i] != b'\\' {
                    i += 1;
                }
                if b.get(i) != Some(&b'"') {
                    return None;
                }
                raw.get(vs..i)?.parse().ok()?
            }
        };
        i += 1;
        eat(&mut i, b']')?;
        out.push((t, v));
        ws(&mut i);
        match b.get(i) {
            Some(b',') => i += 1,
            Some(b']') => {
                i += 1;
                ws(&mut i);
                return (i == b.len()).then_some(out);
            }
            _ => return None,
        }
    }
}

/// Parse a successful `query_range` body into series and the server's
/// warnings and infos.
pub fn parse_matrix(body: &str) -> Result<(Vec<Series>, Vec<String>), ApiError> {
    let env: Envelope<'_> =
        serde_json::from_str(body).map_err(|e| ApiError::BadResponse(e.to_string()))?;
    if env.status != "success" {
        return Err(ApiError::Server {
            status: 200,
            error_type: env.error_type,
            message: env.error.unwrap_or_else(|| "status is not success".into()),
        });
    }
    let data = env
        .data
        .ok_or_else(|| ApiError::BadResponse("no `data`".into()))?;
    if data.result_type != "matrix" {
        return Err(ApiError::BadResponse(format!(
            "resultType is `{}`, expected `matrix`",
            data.result_type
        )));
    }
    let series = data
        .result
        .into_iter()
        .map(|r| r.into_series().map_err(ApiError::BadResponse))
        .collect::<Result<Vec<_>, _>>()?;
    let mut notes = env.warnings;
    notes.extend(env.infos);
    Ok((series, notes))
}

fn server_error(status: u16, body: &str) -> ApiError {
    #[derive(Deserialize)]
    struct E {
        #[serde(rename = "errorType", default)]
        error_type: Option<String>,
        #[serde(default)]
        error: Option<String>,
    }
    match serde_json::from_str::<E>(body) {
        Ok(E {
            error_type,
            error: Some(message),
        }) => ApiError::Server {
            status,
            error_type,
            message,
        },
        _ => ApiError::Server {
            status,
            error_type: None,
            message: body.trim().chars().take(300).collect::<String>(),
        },
    }
}

/// A client for one server.
pub struct Client<T: Transport> {
    base: String,
    transport: T,
    auth: Option<Auth>,
    /// Retries after the first attempt (timeouts, unreachable, 5xx).
    pub retries: u32,
    /// First backoff; doubles on each retry.
    pub backoff: Duration,
    /// Largest number of points per series in one request (Prometheus: 11,000;
    /// VictoriaMetrics: 30,000).
    pub max_points: usize,
    sleep: Box<dyn Fn(Duration)>,
    redirects: std::cell::RefCell<Vec<String>>,
}

impl<T: Transport> fmt::Debug for Client<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("base", &self.base)
            .field("auth", &self.auth)
            .finish()
    }
}

impl<T: Transport> Client<T> {
    /// A client for the server at `base` (e.g. `http://127.0.0.1:9090`, or a
    /// path prefix like `https://mimir/prometheus`).
    pub fn new(base: &str, transport: T, auth: Option<Auth>) -> Self {
        Client {
            base: base.trim_end_matches('/').to_string(),
            transport,
            auth,
            retries: 3,
            backoff: Duration::from_millis(500),
            max_points: 11_000,
            sleep: Box::new(std::thread::sleep),
            redirects: std::cell::RefCell::new(Vec::new()),
        }
    }

    /// The redirects followed so far, one line each (`301 from URL to URL`,
    /// credentials removed), each distinct one once.
    pub fn redirects(&self) -> Vec<String> {
        self.redirects.borrow().clone()
    }

    /// Replace the sleep used between retries (tests pass a no-op).
    pub fn with_sleep(mut self, sleep: impl Fn(Duration) + 'static) -> Self {
        self.sleep = Box::new(sleep);
        self
    }

    /// POST to `path` with retries; returns the body of a 2xx answer.
    fn call(&self, path: &str, form: &[(&str, String)]) -> Result<String, ApiError> {
        let url = format!("{}{path}", self.base);
        let auth = self.auth.as_ref().map(Auth::header);
        let mut attempt = 0;
        loop {
            attempt += 1;
            let retry_msg = match self.post_following(&url, form, auth.as_deref()) {
                Ok(r) if (200..300).contains(&r.status) => return Ok(r.body),
                Ok(r) if r.status >= 500 => server_error(r.status, &r.body).to_string(),
                Ok(r) => return Err(server_error(r.status, &r.body)),
                Err(Attempt::Failed(msg)) => msg,
                Err(Attempt::Final(e)) => return Err(e),
            };
            if attempt > self.retries {
                return Err(ApiError::Unreachable {
                    url: redact_url(&url),
                    attempts: attempt,
                    message: redact_in(&retry_msg, &url),
                });
            }
            (self.sleep)(self.backoff * 2u32.saturating_pow(attempt - 1));
        }
    }

    /// One attempt: POST `url`, following at most [`MAX_REDIRECTS`]
    /// redirects within the same origin (the same POST again: a 301 or 302
    /// does not become a GET that drops the query).
    fn post_following(
        &self,
        url: &str,
        form: &[(&str, String)],
        auth: Option<&str>,
    ) -> Result<HttpResponse, Attempt> {
        let mut at = url.to_string();
        for _ in 0..=MAX_REDIRECTS {
            let r = match self.transport.post_form(&at, form, auth) {
                Ok(r) => r,
                Err(TransportError::Failed(m)) => return Err(Attempt::Failed(m)),
                Err(TransportError::TooLarge { limit }) => {
                    return Err(Attempt::Final(ApiError::TooLarge {
                        url: redact_url(&at),
                        limit,
                    }));
                }
            };
            if !matches!(r.status, 301 | 302 | 303 | 307 | 308) {
                return Ok(r);
            }
            let redirect = |why: String| {
                Attempt::Final(ApiError::Redirect {
                    url: redact_url(&at),
                    status: r.status,
                    why,
                })
            };
            let Some(loc) = r.location.as_deref().map(str::trim) else {
                return Err(redirect("without a Location header".into()));
            };
            let Some(next) = resolve_location(&at, loc) else {
                return Err(redirect(format!(
                    "to `{}`, which is not an http(s) URL",
                    redact_url(loc)
                )));
            };
            if origin(&next) != origin(&at) {
                return Err(redirect(format!(
                    "to {}, another host (arclab follows redirects only on the same scheme, \
                     host and port); give that URL as the server if you trust it",
                    redact_url(&next)
                )));
            }
            let line = format!(
                "HTTP {} from {} to {} (same host; followed with the same POST)",
                r.status,
                redact_url(&at),
                redact_url(&next)
            );
            let mut seen = self.redirects.borrow_mut();
            if !seen.contains(&line) {
                seen.push(line);
            }
            at = next;
        }
        Err(Attempt::Final(ApiError::Redirect {
            url: redact_url(url),
            status: 0,
            why: format!("more than {MAX_REDIRECTS} times in a row"),
        }))
    }

    /// One `query_range` request.
    pub fn query_range(
        &self,
        query: &str,
        start: f64,
        end: f64,
        step: f64,
    ) -> Result<(Vec<Series>, Vec<String>), ApiError> {
        let form = [
            ("query", query.to_string()),
            ("start", fmt_secs(start)),
            ("end", fmt_secs(end)),
            ("step", fmt_secs(step)),
        ];
        parse_matrix(&self.call("/api/v1/query_range", &form)?)
    }

    /// `query_range` over `[start, end]` in chunks of at most
    /// [`max_points`](Self::max_points) evaluation points, series merged by
    /// label set. `progress(done, total)` is called after each chunk.
    pub fn query_range_chunked(
        &self,
        query: &str,
        start: f64,
        end: f64,
        step: f64,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<(Vec<Series>, Vec<String>), ApiError> {
        let chunks = chunk_windows(start, end, step, self.max_points)?;
        let mut merged: BTreeMap<Labels, Vec<(f64, f64)>> = BTreeMap::new();
        let mut notes: Vec<String> = Vec::new();
        for (i, (s, e)) in chunks.iter().enumerate() {
            let (series, w) = self.query_range(query, *s, *e, step)?;
            for x in series {
                merged.entry(x.labels).or_default().extend(x.points);
            }
            for n in w {
                if !notes.contains(&n) {
                    notes.push(n);
                }
            }
            progress(i + 1, chunks.len());
        }
        let series = merged
            .into_iter()
            .map(|(labels, mut points)| {
                points.sort_by(|a, b| a.0.total_cmp(&b.0));
                points.dedup_by(|a, b| a.0 == b.0);
                Series { labels, points }
            })
            .collect();
        Ok((series, notes))
    }

    /// Metric name → type (`counter`, `gauge`, …) from `/api/v1/metadata`.
    /// Servers without it (older VictoriaMetrics answer an empty object) give an
    /// empty map.
    pub fn metadata(&self) -> Result<BTreeMap<String, String>, ApiError> {
        #[derive(Deserialize)]
        struct M {
            #[serde(rename = "type")]
            kind: String,
        }
        #[derive(Deserialize)]
        struct Env {
            #[serde(default)]
            data: BTreeMap<String, Vec<M>>,
        }
        let body = self.call("/api/v1/metadata", &[])?;
        let env: Env =
            serde_json::from_str(&body).map_err(|e| ApiError::BadResponse(e.to_string()))?;
        Ok(env
            .data
            .into_iter()
            .filter_map(|(k, v)| v.into_iter().next().map(|m| (k, m.kind)))
            .collect())
    }
}

/// How one attempt ended short of a response.
enum Attempt {
    /// Worth retrying (the transport's message).
    Failed(String),
    /// Not worth retrying.
    Final(ApiError),
}

/// `scheme://authority` of an http(s) URL, lower-cased, user info removed;
/// `None` for anything else.
fn origin(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    if scheme != "http" && scheme != "https" {
        return None;
    }
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = host.to_ascii_lowercase();
    // An explicit default port is the same origin as none.
    let host = match (
        scheme.as_str(),
        host.strip_suffix(":80"),
        host.strip_suffix(":443"),
    ) {
        ("http", Some(h), _) | ("https", _, Some(h)) => h.to_string(),
        _ => host,
    };
    Some(format!("{scheme}://{host}"))
}

/// The absolute URL a `Location` header value points to from `base`
/// (absolute, scheme-relative, absolute-path or relative-path forms of
/// RFC 3986 §4.2); `None` when it is not http(s).
pub fn resolve_location(base: &str, location: &str) -> Option<String> {
    if location.contains("://") {
        return origin(location).map(|_| location.to_string());
    }
    let (scheme, rest) = base.split_once("://")?;
    if let Some(r) = location.strip_prefix("//") {
        return Some(format!("{scheme}://{r}"));
    }
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let root = format!("{scheme}://{}", &rest[..end]);
    if location.starts_with('/') {
        return Some(format!("{root}{location}"));
    }
    let path = &rest[end..];
    let path = &path[..path.find(['?', '#']).unwrap_or(path.len())];
    let dir = &path[..path.rfind('/').map_or(0, |i| i + 1)];
    let dir = if dir.is_empty() { "/" } else { dir };
    Some(format!("{root}{dir}{location}"))
}

/// Seconds as the API takes them: integers without a fraction, else 3 decimals.
pub fn fmt_secs(t: f64) -> String {
    if t.fract() == 0.0 && t.abs() < 1e15 {
        format!("{}", t as i64)
    } else {
        format!("{t:.3}")
    }
}

/// Split `[start, end]` into back-to-back windows of at most `max_points`
/// evaluation points on the grid `start + k·step`, so no point is asked twice.
/// More than [`MAX_CHUNKS`] windows (or a step that is not a positive
/// number) is refused before anything is allocated.
pub fn chunk_windows(
    start: f64,
    end: f64,
    step: f64,
    max_points: usize,
) -> Result<Vec<(f64, f64)>, ApiError> {
    let max_points = max_points.max(1);
    let points = ((end - start) / step).floor().max(0.0) + 1.0;
    let chunks = (points / max_points as f64).ceil();
    if !(step > 0.0 && points.is_finite() && chunks <= MAX_CHUNKS as f64) {
        return Err(ApiError::TooManyRequests {
            points,
            max_points,
            chunks,
        });
    }
    let total = points as usize;
    let mut out = Vec::with_capacity(chunks as usize);
    let mut k = 0usize;
    while k < total {
        let n = max_points.min(total - k);
        out.push((start + k as f64 * step, start + (k + n - 1) as f64 * step));
        k += n;
    }
    Ok(out)
}

/// `text` (a transport's message about `url`) with `url`'s `user:password@`
/// removed wherever it appears.
pub fn redact_in(text: &str, url: &str) -> String {
    let shown = redact_url(url);
    if shown == url {
        return text.to_string();
    }
    let userinfo = url
        .split_once("://")
        .map(|(_, rest)| {
            let host_end = rest.find('/').unwrap_or(rest.len());
            let at = rest[..host_end].rfind('@').unwrap_or(0);
            &rest[..at]
        })
        .unwrap_or("");
    let out = text.replace(url, &shown);
    if userinfo.is_empty() {
        out
    } else {
        out.replace(&format!("{userinfo}@"), "")
            .replace(userinfo, "<redacted>")
    }
}

/// Strip `user:password@` from a URL before it is stored or printed.
pub fn redact_url(url: &str) -> String {
    match url.split_once("://") {
        Some((scheme, rest)) => {
            let host_end = rest.find('/').unwrap_or(rest.len());
            match rest[..host_end].rfind('@') {
                Some(at) => format!("{scheme}://{}", &rest[at + 1..]),
                None => url.to_string(),
            }
        }
        None => url.to_string(),
    }
}

#[cfg(test)]
mod tests;
