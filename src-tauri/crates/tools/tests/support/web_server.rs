//! A small HTTP/1.1 server on loopback for the web_fetch tests and bench:
//! fixed routes, one request per connection (`Connection: close`), every
//! accepted connection and request counted so a test can prove that a
//! refused fetch never arrived.

#![allow(dead_code, reason = "the bench uses a few of the routes")]
#![allow(
    clippy::unwrap_used,
    reason = "test support: a failed bind is a failed test"
)]

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

pub const BIG_BYTES: usize = 20 * 1024 * 1024;

pub const PAGE_HTML: &str = "<!doctype html><html><head><title>Bear</title>\
<style>body{color:red}</style><script>steal()</script></head><body>\
<h1>Bear notes</h1><p>Read the <a href=\"/guide\">guide</a> and \
<a href=\"https://example.org/ref\">the reference</a>.</p>\
<ul><li>one</li><li>two</li></ul></body></html>";

/// A request as the server saw it.
#[derive(Debug, Clone)]
pub struct Seen {
    pub path: String,
    pub headers: Vec<(String, String)>,
}

impl Seen {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

pub struct Server {
    pub addr: SocketAddr,
    connections: Arc<AtomicUsize>,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Server {
    pub async fn start() -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let connections = Arc::new(AtomicUsize::new(0));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let (c, s) = (connections.clone(), seen.clone());
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                c.fetch_add(1, Ordering::SeqCst);
                tokio::spawn(serve(stream, addr, s.clone()));
            }
        });
        Server {
            addr,
            connections,
            seen,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    pub fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }

    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    pub fn hits(&self, path: &str) -> usize {
        self.seen().iter().filter(|s| s.path == path).count()
    }
}

async fn serve(mut stream: TcpStream, addr: SocketAddr, seen: Arc<Mutex<Vec<Seen>>>) {
    let Some(request) = read_head(&mut stream).await else {
        return;
    };
    seen.lock().unwrap().push(request.clone());
    let _ = respond(&mut stream, addr, &request).await;
    let _ = stream.shutdown().await;
}

async fn read_head(stream: &mut TcpStream) -> Option<Seen> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let text = String::from_utf8_lossy(&buf);
    let mut lines = text.split("\r\n");
    let path = lines.next()?.split(' ').nth(1)?.to_owned();
    let headers = lines
        .take_while(|l| !l.is_empty())
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned()))
        .collect();
    Some(Seen { path, headers })
}

async fn respond(stream: &mut TcpStream, addr: SocketAddr, req: &Seen) -> std::io::Result<()> {
    let path = req.path.split('?').next().unwrap_or_default();
    let (status, headers, body): (u16, Vec<(&str, String)>, Vec<u8>) = match path {
        "/page" | "/guide" | "/bench" => (200, html(), PAGE_HTML.into()),
        "/text" => (
            200,
            ct("text/plain; charset=utf-8"),
            b"plain text, kept as is\n".to_vec(),
        ),
        "/json" => (
            200,
            ct("application/json"),
            br#"{"a": [1, 2], "b": "<x>"}"#.to_vec(),
        ),
        "/image" => (200, ct("image/png"), vec![0x89, b'P', b'N', b'G', 0, 0]),
        "/same" => redirect(&format!("http://{addr}/hop")),
        "/hop" => redirect("/page"),
        "/cross" => redirect("http://other.test/elsewhere"),
        "/loop" => redirect("/loop"),
        "/missing" => (404, html(), b"<h1>Not here</h1>".to_vec()),
        "/cached" => (
            200,
            with(ct("text/plain"), "cache-control", "max-age=60"),
            b"v".to_vec(),
        ),
        "/plain" => (200, ct("text/plain"), b"default freshness".to_vec()),
        "/nostore" => (
            200,
            with(ct("text/plain"), "cache-control", "no-store"),
            b"n".to_vec(),
        ),
        "/etag" => return etag(stream, req).await,
        "/slow" => {
            tokio::time::sleep(Duration::from_secs(5)).await;
            (200, ct("text/plain"), b"late".to_vec())
        }
        "/big" => return big(stream, true).await,
        "/big-unsized" => return big(stream, false).await,
        p if p.starts_with("/to-port/") => redirect(&format!("http://127.0.0.1:{}/", &p[9..])),
        _ => (404, ct("text/plain"), b"no route".to_vec()),
    };
    write_reply(stream, status, &headers, &body, true).await
}

fn ct(value: &str) -> Vec<(&'static str, String)> {
    vec![("content-type", value.to_owned())]
}

fn html() -> Vec<(&'static str, String)> {
    ct("text/html; charset=utf-8")
}

fn with(
    mut headers: Vec<(&'static str, String)>,
    name: &'static str,
    value: &str,
) -> Vec<(&'static str, String)> {
    headers.push((name, value.to_owned()));
    headers
}

fn redirect(to: &str) -> (u16, Vec<(&'static str, String)>, Vec<u8>) {
    (302, vec![("location", to.to_owned())], Vec::new())
}

/// `ETag: "v1"`, fresh for 60 s; a matching If-None-Match gets a 304.
async fn etag(stream: &mut TcpStream, req: &Seen) -> std::io::Result<()> {
    let headers = vec![
        ("content-type", "text/plain".to_owned()),
        ("etag", "\"v1\"".to_owned()),
        ("cache-control", "max-age=60".to_owned()),
    ];
    if req.header("if-none-match") == Some("\"v1\"") {
        return write_reply(stream, 304, &headers, b"", false).await;
    }
    write_reply(stream, 200, &headers, b"etag body", true).await
}

async fn big(stream: &mut TcpStream, sized: bool) -> std::io::Result<()> {
    let mut head =
        "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\nconnection: close\r\n".to_owned();
    if sized {
        head.push_str(&format!("content-length: {BIG_BYTES}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).await?;
    let block = vec![b'a'; 64 * 1024];
    for _ in 0..BIG_BYTES / block.len() {
        stream.write_all(&block).await?; // fails once the client stops reading
    }
    Ok(())
}

async fn write_reply(
    stream: &mut TcpStream,
    status: u16,
    headers: &[(&str, String)],
    body: &[u8],
    with_length: bool,
) -> std::io::Result<()> {
    let mut head = format!("HTTP/1.1 {status} X\r\nconnection: close\r\n");
    for (n, v) in headers {
        head.push_str(&format!("{n}: {v}\r\n"));
    }
    if with_length {
        head.push_str(&format!("content-length: {}\r\n", body.len()));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).await?;
    stream.write_all(body).await?;
    stream.flush().await
}
