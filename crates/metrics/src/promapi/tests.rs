use super::*;
use std::cell::RefCell;

/// One recorded request: URL, form, Authorization header.
type Seen = (String, Vec<(String, String)>, Option<String>);

/// A transport answering from a script of responses and recording requests.
struct Mock {
    answers: RefCell<Vec<Result<HttpResponse, TransportError>>>,
    seen: RefCell<Vec<Seen>>,
}

impl Mock {
    fn new(answers: Vec<Result<HttpResponse, TransportError>>) -> Self {
        Mock {
            answers: RefCell::new(answers),
            seen: RefCell::new(Vec::new()),
        }
    }
}

impl Transport for &Mock {
    fn post_form(
        &self,
        url: &str,
        form: &[(&str, String)],
        authorization: Option<&str>,
    ) -> Result<HttpResponse, TransportError> {
        self.seen.borrow_mut().push((
            url.to_string(),
            form.iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
            authorization.map(str::to_string),
        ));
        let mut a = self.answers.borrow_mut();
        if a.is_empty() {
            Err(TransportError::Failed("no more answers".into()))
        } else {
            a.remove(0)
        }
    }
}

fn ok(body: &str) -> Result<HttpResponse, TransportError> {
    Ok(HttpResponse {
        status: 200,
        location: None,
        body: body.into(),
    })
}

const ONE: &str = r#"{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"m","instance":"a"},"values":[[10,"1"],[20,"2"]]}]}}"#;

#[test]
fn retries_5xx_then_succeeds() {
    let m = Mock::new(vec![
        Ok(HttpResponse {
            status: 503,
            location: None,
            body: "busy".into(),
        }),
        Err(TransportError::Failed("timed out".into())),
        ok(ONE),
    ]);
    let slept = std::rc::Rc::new(RefCell::new(Vec::new()));
    let s2 = slept.clone();
    let c = Client::new("http://x/", &m, None).with_sleep(move |d| s2.borrow_mut().push(d));
    let (series, _) = c.query_range("m", 10.0, 20.0, 10.0).unwrap();
    assert_eq!(series.len(), 1);
    assert_eq!(
        *slept.borrow(),
        vec![Duration::from_millis(500), Duration::from_millis(1000)]
    );
    assert_eq!(m.seen.borrow()[0].0, "http://x/api/v1/query_range");
}

#[test]
fn gives_up_after_retries() {
    let m = Mock::new(vec![]);
    let mut c = Client::new("http://x", &m, None).with_sleep(|_| {});
    c.retries = 2;
    let e = c.query_range("m", 0.0, 1.0, 1.0).unwrap_err();
    assert!(
        matches!(e, ApiError::Unreachable { attempts: 3, .. }),
        "{e}"
    );
}

#[test]
fn unreachable_never_shows_the_password() {
    // A transport error that quotes the URL, as ureq's do for DNS failures.
    let url = "http://alice:s3cret@nowhere.invalid:9090/api/v1/query_range";
    let m = Mock::new(vec![Err(TransportError::Failed(format!(
        "dns failed for {url} (alice:s3cret)"
    )))]);
    let mut c =
        Client::new("http://alice:s3cret@nowhere.invalid:9090", &m, None).with_sleep(|_| {});
    c.retries = 0;
    let e = c.query_range("m", 0.0, 1.0, 1.0).unwrap_err().to_string();
    assert!(!e.contains("s3cret") && !e.contains("alice"), "{e}");
    assert!(
        e.contains("http://nowhere.invalid:9090/api/v1/query_range"),
        "{e}"
    );
}

#[test]
fn client_errors_carry_the_server_message_and_are_not_retried() {
    let body = r#"{"status":"error","errorType":"bad_data","error":"1:23: parse error: unclosed left parenthesis"}"#;
    let m = Mock::new(vec![
        Ok(HttpResponse {
            status: 400,
            location: None,
            body: body.into(),
        }),
        ok(ONE),
    ]);
    let c = Client::new("http://x", &m, None).with_sleep(|_| {});
    let e = c
        .query_range("rate(", 0.0, 1.0, 1.0)
        .unwrap_err()
        .to_string();
    assert!(e.contains("HTTP 400 (bad_data): 1:23: parse error"), "{e}");
    assert_eq!(m.seen.borrow().len(), 1);
    // VictoriaMetrics' 422 and a non-JSON body.
    let m = Mock::new(vec![Ok(HttpResponse {
        status: 422,
        location: None,
        body: "<html>nope</html>".into(),
    })]);
    let c = Client::new("http://x", &m, None);
    assert!(
        c.query_range("x", 0.0, 1.0, 1.0)
            .unwrap_err()
            .to_string()
            .contains("nope")
    );
}

#[test]
fn chunks_are_merged_and_cover_the_grid() {
    assert_eq!(
        chunk_windows(0.0, 100.0, 10.0, 4).unwrap(),
        vec![(0.0, 30.0), (40.0, 70.0), (80.0, 100.0)]
    );
    assert_eq!(chunk_windows(0.0, 5.0, 10.0, 4).unwrap(), vec![(0.0, 0.0)]);
    // Issue 14 item 6: `--from 0 --max-points 1` at 5 m up to 2026 is
    // 1.76e9 / 300 + 1 = 5.9 million requests: refused, nothing allocated.
    let e = chunk_windows(0.0, 1.764e9, 300.0, 1)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("5880001 points") && e.contains("more than 10000"),
        "{e}"
    );
    // A 1 ms step over a day: 86,400,001 points / 11,000 = 7,855 requests (allowed);
    // over 2 days 15,710 (refused).
    assert_eq!(
        chunk_windows(0.0, 86_400.0, 0.001, 11_000).unwrap().len(),
        7_855
    );
    assert!(chunk_windows(0.0, 172_800.0, 0.001, 11_000).is_err());
    assert!(chunk_windows(0.0, 1.0, 0.0, 1).is_err());
    let b2 = r#"{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"m","instance":"a"},"values":[[30,"3"]]},{"metric":{"__name__":"m","instance":"b"},"values":[[30,"9"]]}]},"warnings":["w"]}"#;
    let m = Mock::new(vec![ok(ONE), ok(b2)]);
    let mut c = Client::new("http://x", &m, Some(Auth::Bearer("s3cret".into())));
    c.max_points = 2;
    let mut calls = Vec::new();
    let (s, w) = c
        .query_range_chunked("m", 10.0, 30.0, 10.0, &mut |d, t| calls.push((d, t)))
        .unwrap();
    assert_eq!(s.len(), 2);
    assert_eq!(s[0].points, vec![(10.0, 1.0), (20.0, 2.0), (30.0, 3.0)]);
    assert_eq!(w, vec!["w".to_string()]);
    assert_eq!(calls, vec![(1, 2), (2, 2)]);
    let seen = m.seen.borrow();
    assert_eq!(seen[1].1[1], ("start".to_string(), "30".to_string()));
    assert_eq!(seen[0].2.as_deref(), Some("Bearer s3cret"));
    assert!(!format!("{c:?}").contains("s3cret"));
}

#[test]
fn bad_shapes() {
    for body in [
        "",
        "[]",
        r#"{"status":"success"}"#,
        r#"{"status":"success","data":{"resultType":"vector","result":[]}}"#,
        r#"{"status":"success","data":{"resultType":"matrix","result":[{"values":[[1,"x"]]}]}}"#,
    ] {
        assert!(parse_matrix(body).is_err(), "{body}");
    }
    let (s, _) =
        parse_matrix(r#"{"status":"success","data":{"resultType":"matrix","result":[]}}"#).unwrap();
    assert!(s.is_empty());
    let (s, _) = parse_matrix(r#"{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1.250,"+Inf"]],"histograms":[]}]}}"#).unwrap();
    assert_eq!(s[0].points[0], (1.25, f64::INFINITY));
}

#[test]
fn auth_and_urls() {
    assert_eq!(base64(b"user:pass"), "dXNlcjpwYXNz");
    assert_eq!(base64(b"ab"), "YWI=");
    assert_eq!(base64(b""), "");
    assert_eq!(
        Auth::Basic("user".into(), "pass".into()).header(),
        "Basic dXNlcjpwYXNz"
    );
    assert_eq!(
        redact_url("https://u:p@host:9090/prom"),
        "https://host:9090/prom"
    );
    assert_eq!(redact_url("http://host/a@b"), "http://host/a@b");
    assert_eq!(fmt_secs(1700000000.0), "1700000000");
    assert_eq!(fmt_secs(1.25), "1.250");
}

#[test]
fn metadata_types() {
    let body = r#"{"status":"success","data":{"node_cpu_seconds_total":[{"type":"counter","help":"","unit":""}],"x":[]}}"#;
    let m = Mock::new(vec![ok(body), ok(r#"{"status":"success","data":{}}"#)]);
    let c = Client::new("http://x", &m, None);
    let md = c.metadata().unwrap();
    assert_eq!(
        md.get("node_cpu_seconds_total").map(String::as_str),
        Some("counter")
    );
    assert!(c.metadata().unwrap().is_empty());
}

#[test]
fn scanner_agrees_with_serde() {
    for raw in [
        "[]",
        " [ ] ",
        r#"[[1700000000,"1"],[1700000015.250,"NaN"],[1700000030, "+Inf"]]"#,
        "[ [ 1 , \"2.5e3\" ] ,\n [2,\"-Inf\"] ]",
        r#"[[0,"0"],[999999999999999,"1234567890123456789"],[1.5,"007"]]"#,
    ] {
        let a = scan_values(raw).unwrap();
        let b = parse_values(raw).unwrap();
        assert_eq!(format!("{a:?}"), format!("{b:?}"), "{raw}");
    }
    // Escapes, bad numbers and trailing junk fall back to serde (or fail there).
    assert!(scan_values(r#"[[1,"\u0031"]]"#).is_none());
    assert_eq!(parse_values(r#"[[1,"\u0031"]]"#).unwrap(), vec![(1.0, 1.0)]);
    for bad in [
        r#"[[1,"x"]]"#,
        r#"[[1,"2"]"#,
        r#"[[1,"2"]] x"#,
        r#"[["1","2"]]"#,
        "[[1,2]]",
    ] {
        assert!(scan_values(bad).is_none(), "{bad}");
        assert!(parse_values(bad).is_err(), "{bad}");
    }
}

mod prop {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The fast scanner reads every spelling a server or a hand edit may
        /// use exactly as serde (timestamps) and the standard parser (values) do.
        #[test]
        fn scanner_agrees_with_serde_on_any_numbers(
            pts in proptest::collection::vec(
                (
                    prop_oneof![
                        (0u64..=u64::MAX).prop_map(|t| t.to_string()),
                        (0u64..10_000_000_000).prop_map(|t| format!("{t}.{}", t % 1000)),
                        // Milliseconds in exponent form. serde_json (without
                        // `float_roundtrip`) rounds some long mantissas off by an
                        // ulp, so timestamps stay in the short spellings servers use.
                        (0u64..10_000_000_000_000).prop_map(|t| format!("{t}e-3")),
                    ],
                    prop_oneof![
                        (0u64..=u64::MAX).prop_map(|v| v.to_string()),
                        proptest::num::f64::ANY.prop_map(|v| v.to_string()),
                        proptest::num::f64::NORMAL.prop_map(|v| format!("{v:E}")),
                        proptest::sample::select(vec!["NaN", "+Inf", "-Inf", "007", "1e400", "-0"])
                            .prop_map(String::from),
                    ],
                    proptest::sample::select(vec!["", " ", "\n "]),
                ),
                0..20,
            )
        ) {
            let body: Vec<String> =
                pts.iter().map(|(t, v, w)| format!("[{w}{t}{w},{w}\"{v}\"]")).collect();
            let raw = format!("[{}]", body.join(","));
            let serde = parse_values(&raw);
            match scan_values(&raw) {
                Some(a) => prop_assert_eq!(format!("{a:?}"), format!("{:?}", serde.unwrap())),
                None => prop_assert!(serde.is_err() || raw.contains('\\'), "{}", raw),
            }
        }
    }
}

// Issue 14 item 10, against a real socket (ureq underneath).
mod http {
    use super::*;
    use arclab_testdata::http::{response, serve};
    use std::io::Write;

    fn gzip_of_zeros(n: usize) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        let block = vec![0u8; 1 << 20];
        let mut left = n;
        while left > 0 {
            let k = left.min(block.len());
            e.write_all(&block[..k]).unwrap();
            left -= k;
        }
        e.finish().unwrap()
    }

    #[test]
    fn a_gzip_bomb_is_too_large_and_not_retried() {
        // 8 MiB of zeros gzip to ~8 KiB; the transport reads at most 1 MiB.
        let bomb = gzip_of_zeros(8 << 20);
        assert!(bomb.len() < 64 << 10, "{}", bomb.len());
        let answer = response(200, &[("Content-Encoding", "gzip")], &bomb);
        let server = serve(vec![answer.clone(), answer.clone(), answer]);
        let mut t = UreqTransport::new(Duration::from_secs(10));
        t.max_body = 1 << 20;
        let mut c = Client::new(&server.url, t, None).with_sleep(|_| {});
        c.retries = 2;
        let e = c.query_range("up", 0.0, 60.0, 15.0).unwrap_err();
        assert!(
            matches!(e, ApiError::TooLarge { limit, .. } if limit == 1 << 20),
            "{e}"
        );
        let msg = e.to_string();
        assert!(
            msg.contains("larger than 1 MiB after decompression") && msg.contains("not retried"),
            "{msg}"
        );
        assert!(!msg.contains("cannot reach"), "{msg}");
        assert_eq!(server.requests().len(), 1, "retried a too-large answer");
    }

    fn matrix_answer() -> Vec<u8> {
        response(200, &[("Content-Type", "application/json")], ONE.as_bytes())
    }

    #[test]
    fn same_host_redirects_keep_the_post_and_the_query() {
        for status in [301, 302, 303, 307, 308] {
            let server = serve(vec![
                response(status, &[("Location", "/prom/api/v1/query_range")], b""),
                matrix_answer(),
            ]);
            let c = Client::new(
                &server.url,
                UreqTransport::new(Duration::from_secs(10)),
                None,
            );
            let (series, _) = c.query_range("up", 0.0, 60.0, 15.0).unwrap();
            assert_eq!(series[0].points, vec![(10.0, 1.0), (20.0, 2.0)]);
            let seen = server.requests();
            assert_eq!(seen.len(), 2, "{status}");
            assert_eq!(seen[1].method, "POST", "{status}: the POST became a GET");
            assert_eq!(seen[1].path, "/prom/api/v1/query_range");
            assert_eq!(
                seen[1].body, seen[0].body,
                "{status}: the query was dropped"
            );
            assert!(String::from_utf8_lossy(&seen[1].body).contains("query=up"));
            let notes = c.redirects();
            assert_eq!(notes.len(), 1, "{notes:?}");
            assert!(
                notes[0].starts_with(&format!(
                    "HTTP {status} from {}/api/v1/query_range to {}/prom/api/v1/query_range",
                    server.url, server.url
                )),
                "{notes:?}"
            );
        }
    }

    #[test]
    fn redirects_to_another_host_are_refused_and_named() {
        let other = serve(vec![matrix_answer()]);
        let target = format!("{}/api/v1/query_range", other.url);
        let server = serve(vec![response(302, &[("Location", &target)], b"")]);
        let mut c = Client::new(
            &server.url,
            UreqTransport::new(Duration::from_secs(10)),
            None,
        )
        .with_sleep(|_| {});
        c.retries = 3;
        let e = c.query_range("up", 0.0, 60.0, 15.0).unwrap_err();
        let msg = e.to_string();
        assert!(matches!(e, ApiError::Redirect { status: 302, .. }), "{msg}");
        assert!(
            msg.contains(&format!("to {target}, another host")) && msg.contains("not followed"),
            "{msg}"
        );
        assert_eq!(server.requests().len(), 1);
        assert!(other.requests().is_empty());
    }

    #[test]
    fn redirect_loops_and_missing_locations_end() {
        let hop = || response(307, &[("Location", "/again")], b"");
        let server = serve((0..=MAX_REDIRECTS).map(|_| hop()).collect());
        let c = Client::new(
            &server.url,
            UreqTransport::new(Duration::from_secs(10)),
            None,
        );
        let msg = c
            .query_range("up", 0.0, 60.0, 15.0)
            .unwrap_err()
            .to_string();
        assert!(msg.contains("more than 5 times"), "{msg}");
        assert_eq!(server.requests().len(), MAX_REDIRECTS as usize + 1);
        let server = serve(vec![response(308, &[], b"")]);
        let c = Client::new(
            &server.url,
            UreqTransport::new(Duration::from_secs(10)),
            None,
        );
        let msg = c
            .query_range("up", 0.0, 60.0, 15.0)
            .unwrap_err()
            .to_string();
        assert!(msg.contains("HTTP 308 without a Location header"), "{msg}");
    }

    #[test]
    fn locations_resolve_like_rfc_3986() {
        let base = "http://a:9090/p/api/v1/query_range?x=1";
        assert_eq!(
            resolve_location(base, "/q").as_deref(),
            Some("http://a:9090/q")
        );
        assert_eq!(
            resolve_location(base, "query").as_deref(),
            Some("http://a:9090/p/api/v1/query")
        );
        assert_eq!(
            resolve_location(base, "//b/x").as_deref(),
            Some("http://b/x")
        );
        assert_eq!(resolve_location(base, "ftp://a/x"), None);
        assert_eq!(origin("HTTP://A:80/x"), origin("http://a/y"));
        assert_ne!(origin("http://a:9090/"), origin("http://a:9091/"));
        assert_ne!(origin("http://a/"), origin("https://a/"));
        assert_eq!(origin("http://u:p@a/"), origin("http://a/"));
    }
}
