//! A scripted HTTP/1.1 server on 127.0.0.1 for tests of HTTP clients: each
//! connection gets the next canned response (then `Connection: close`), and
//! every request is recorded. std only; the server thread ends after the last
//! response, or after 60 s without a connection.
//!
//! ```
//! use arclab_testdata::http::{response, serve};
//! let server = serve(vec![response(200, &[], b"hi")]);
//! let addr = server.url.strip_prefix("http://").unwrap().to_string();
//! let mut s = std::net::TcpStream::connect(addr).unwrap();
//! use std::io::{Read, Write};
//! s.write_all(b"POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\na=1").unwrap();
//! let mut out = String::new();
//! s.read_to_string(&mut out).unwrap();
//! assert!(out.starts_with("HTTP/1.1 200") && out.ends_with("hi"));
//! let seen = server.requests();
//! assert_eq!((seen[0].method.as_str(), seen[0].path.as_str()), ("POST", "/x"));
//! assert_eq!(seen[0].body, b"a=1");
//! ```

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One request as the server read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// `GET`, `POST`, …
    pub method: String,
    /// The request target, e.g. `/api/v1/query_range`.
    pub path: String,
    /// Header lines as (name lower-cased, value).
    pub headers: Vec<(String, String)>,
    /// The body (by `Content-Length`).
    pub body: Vec<u8>,
}

/// A running scripted server.
#[derive(Debug)]
pub struct Server {
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    seen: Arc<Mutex<Vec<Request>>>,
}

impl Server {
    /// The requests received so far, in order.
    pub fn requests(&self) -> Vec<Request> {
        self.seen.lock().map(|v| v.clone()).unwrap_or_default()
    }
}

/// A raw HTTP/1.1 response: status line, `headers`, `Content-Length`,
/// `Connection: close`, then `body`.
pub fn response(status: u16, headers: &[(&str, &str)], body: &[u8]) -> Vec<u8> {
    let mut out = format!("HTTP/1.1 {status} Status\r\n").into_bytes();
    for (k, v) in headers {
        out.extend_from_slice(format!("{k}: {v}\r\n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "Content-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        )
        .as_bytes(),
    );
    out.extend_from_slice(body);
    out
}

/// Start a server answering connection *i* with `script[i]`.
///
/// # Panics
///
/// When no port on 127.0.0.1 can be bound.
pub fn serve(script: Vec<Vec<u8>>) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
    let url = format!("http://{}", listener.local_addr().expect("local addr"));
    listener.set_nonblocking(true).expect("nonblocking");
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    std::thread::spawn(move || {
        let mut idle_since = Instant::now();
        let mut script = script.into_iter();
        let mut next = script.next();
        while let Some(answer) = next.take() {
            match listener.accept() {
                Ok((stream, _)) => {
                    idle_since = Instant::now();
                    handle(stream, &answer, &log);
                    next = script.next();
                }
                Err(_) if idle_since.elapsed() < Duration::from_secs(60) => {
                    next = Some(answer);
                    std::thread::sleep(Duration::from_millis(5));
                }
                Err(_) => return,
            }
        }
    });
    Server { url, seen }
}

/// Read one request from `stream`, log it (before answering, so a client
/// that has its answer also finds its request logged), write `answer`, close.
fn handle(mut stream: TcpStream, answer: &[u8], log: &Mutex<Vec<Request>>) -> Option<()> {
    stream.set_nonblocking(false).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .ok()?;
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let n = stream.read(&mut chunk).ok()?;
        if n == 0 || buf.len() > 1 << 20 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut first = lines.next()?.split(' ');
    let method = first.next()?.to_string();
    let path = first.next()?.to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let len: usize = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0)
        .min(64 << 20);
    let mut body = buf[head_end..].to_vec();
    while body.len() < len {
        let n = stream.read(&mut chunk).ok()?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    if let Ok(mut v) = log.lock() {
        v.push(Request {
            method,
            path,
            headers,
            body,
        });
    }
    let _ = stream.write_all(answer);
    let _ = stream.flush();
    let _ = stream.shutdown(std::net::Shutdown::Write);
    // Drain what the client still sends so closing does not reset the
    // connection before it read the answer.
    let _ = stream.set_read_timeout(Some(Duration::from_millis(200)));
    while matches!(stream.read(&mut chunk), Ok(n) if n > 0) {}
    Some(())
}
