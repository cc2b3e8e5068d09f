//! The Prometheus client's handling of whatever a server answers, through an
//! injected transport: the input is a script of responses (status, optional
//! `Location`, transport failures, "too large" answers, bodies) consumed by
//! `query_range_chunked` and `metadata`. Errors are fine; panics, unbounded
//! loops and unbounded memory are not.
#![no_main]

use arclab_metrics::promapi::{Client, HttpResponse, Transport, TransportError};
use libfuzzer_sys::fuzz_target;
use std::cell::{Cell, RefCell};

/// Responses decoded from the input, in order; then "connection refused".
struct Script {
    answers: RefCell<Vec<Result<HttpResponse, TransportError>>>,
    calls: Cell<usize>,
}

impl Transport for &Script {
    fn post_form(
        &self,
        url: &str,
        form: &[(&str, String)],
        _authorization: Option<&str>,
    ) -> Result<HttpResponse, TransportError> {
        self.calls.set(self.calls.get() + 1);
        assert!(url.starts_with("http://fuzz:9090/"), "{url}");
        assert!(form.len() <= 4);
        let mut a = self.answers.borrow_mut();
        if a.is_empty() {
            Err(TransportError::Failed("connection refused".into()))
        } else {
            a.remove(0)
        }
    }
}

/// Decode `[kind, status_hi, status_lo, len_hi, len_lo, body…]` records.
fn script(mut data: &[u8]) -> Vec<Result<HttpResponse, TransportError>> {
    let mut out = Vec::new();
    while data.len() >= 5 && out.len() < 64 {
        let (kind, status) = (data[0], u16::from_be_bytes([data[1], data[2]]));
        let len = usize::from(u16::from_be_bytes([data[3], data[4]])).min(data.len() - 5);
        let body = String::from_utf8_lossy(&data[5..5 + len]).into_owned();
        data = &data[5 + len..];
        out.push(match kind % 5 {
            0 => Err(TransportError::Failed(body)),
            1 => Err(TransportError::TooLarge { limit: 1 << 20 }),
            // A redirect-ish answer whose Location is the body.
            2 => Ok(HttpResponse {
                status: 300 + status % 10,
                location: Some(body),
                body: String::new(),
            }),
            _ => Ok(HttpResponse {
                status: 100 + status % 500,
                location: None,
                body,
            }),
        });
    }
    out
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let s = Script {
        answers: RefCell::new(script(rest)),
        calls: Cell::new(0),
    };
    let mut c = Client::new("http://fuzz:9090", &s, None).with_sleep(|_| {});
    c.retries = u32::from(sel & 3);
    c.max_points = 1 + usize::from(sel >> 2);
    // Up to 64 points split into chunks of 1 to 64 points.
    let _ = c.query_range_chunked("up", 0.0, 63.0 * 15.0, 15.0, &mut |_, _| {});
    let _ = c.metadata();
    for r in c.redirects() {
        assert!(r.starts_with("HTTP 30"), "{r}");
    }
    // Every request is bounded: retries and redirects per call, calls per chunk.
    assert!(s.calls.get() <= 65 * 4 * 6, "{}", s.calls.get());
});
