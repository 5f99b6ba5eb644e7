//! A tiny HTTP/1.1 server on loopback for the adapter tests: it records
//! every request and answers from a script of replies, byte chunk by byte
//! chunk, with pauses, stalls and dropped connections.

use serde_json::Value;
use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// One step of a response body.
#[derive(Debug, Clone)]
pub enum Act {
    /// Sent as one HTTP chunk, flushed.
    Bytes(Vec<u8>),
    Pause(Duration),
    /// Drop the connection with a TCP reset, mid-body.
    Reset,
    /// Send nothing more and wait until the client hangs up.
    Stall,
}

#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<Act>,
    /// Wait this long before sending the status line.
    pub head_delay: Duration,
}

impl Reply {
    pub fn sse(body: Vec<Act>) -> Self {
        Self {
            status: 200,
            headers: vec![("content-type".into(), "text/event-stream".into())],
            body,
            head_delay: Duration::ZERO,
        }
    }

    /// The whole body in one chunk.
    pub fn sse_bytes(body: impl Into<Vec<u8>>) -> Self {
        Self::sse(vec![Act::Bytes(body.into())])
    }

    /// The body in pieces of `sizes` bytes, cycling through `sizes`.
    pub fn sse_pieces(body: &[u8], sizes: &[usize]) -> Self {
        let mut acts = Vec::new();
        let mut at = 0;
        for size in sizes.iter().cycle() {
            if at >= body.len() {
                break;
            }
            let end = (at + size.max(&1)).min(body.len());
            acts.push(Act::Bytes(body[at..end].to_vec()));
            at = end;
        }
        Self::sse(acts)
    }

    pub fn json(status: u16, body: &str) -> Self {
        Self {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            body: vec![Act::Bytes(body.as_bytes().to_vec())],
            head_delay: Duration::ZERO,
        }
    }

    /// Resets the connection right after reading the request.
    pub fn reset_before_head() -> Self {
        Self {
            status: 0,
            headers: vec![],
            body: vec![Act::Reset],
            head_delay: Duration::ZERO,
        }
    }

    pub fn delayed(mut self, by: Duration) -> Self {
        self.head_delay = by;
        self
    }

    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }
}

#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    /// Lower-cased names.
    pub headers: HashMap<String, String>,
    pub body: Value,
}

pub struct TestServer {
    pub addr: SocketAddr,
    requests: Arc<Mutex<Vec<Recorded>>>,
    hangups: Arc<AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl TestServer {
    pub async fn start(replies: Vec<Reply>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let hangups = Arc::new(AtomicUsize::new(0));
        let queue = Arc::new(Mutex::new(VecDeque::from(replies)));
        let (req, hang) = (requests.clone(), hangups.clone());
        let task = tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                let (req, hang, queue) = (req.clone(), hang.clone(), queue.clone());
                tokio::spawn(async move {
                    let _ = serve(socket, req, hang, queue).await;
                });
            }
        });
        Self {
            addr,
            requests,
            hangups,
            task,
        }
    }

    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().unwrap().clone()
    }

    /// Connections the client closed while the server was stalling.
    pub fn hangups(&self) -> usize {
        self.hangups.load(Ordering::SeqCst)
    }
}

/// One HTTP/1.1 request as read off a socket: the body as sent
/// (`content-length` long), headers with lower-case names.
pub struct RawRequest {
    pub method: String,
    pub path: String,
    pub headers: HashMap<String, String>,
    pub body: Vec<u8>,
}

/// Reads one request from `socket`; None when the peer closed before
/// sending a whole head.
pub async fn read_request(socket: &mut TcpStream) -> std::io::Result<Option<RawRequest>> {
    let mut buf = Vec::new();
    let head_end = loop {
        let mut chunk = [0u8; 4096];
        let n = socket.read(&mut chunk).await?;
        if n == 0 {
            return Ok(None);
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(at) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut start = lines.next().unwrap_or("").split(' ');
    let method = start.next().unwrap_or("").to_owned();
    let path = start.next().unwrap_or("").to_owned();
    let headers: HashMap<String, String> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let length: usize = headers
        .get("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let mut body = buf[head_end..].to_vec();
    while body.len() < length {
        let mut chunk = [0u8; 4096];
        let n = socket.read(&mut chunk).await?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Ok(Some(RawRequest {
        method,
        path,
        headers,
        body,
    }))
}

async fn serve(
    mut socket: TcpStream,
    requests: Arc<Mutex<Vec<Recorded>>>,
    hangups: Arc<AtomicUsize>,
    queue: Arc<Mutex<VecDeque<Reply>>>,
) -> std::io::Result<()> {
    socket.set_nodelay(true)?;
    let Some(request) = read_request(&mut socket).await? else {
        return Ok(());
    };
    let RawRequest {
        method,
        path,
        headers,
        body,
    } = request;
    requests.lock().unwrap().push(Recorded {
        method,
        path,
        headers,
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
    });
    let reply = queue.lock().unwrap().pop_front();
    let reply = reply.unwrap_or_else(|| Reply::json(500, r#"{"error":"no scripted reply left"}"#));
    tokio::time::sleep(reply.head_delay).await;
    if reply.status == 0 {
        socket.set_zero_linger()?;
        return Ok(());
    }
    let mut head = format!("HTTP/1.1 {} Scripted\r\n", reply.status);
    for (k, v) in &reply.headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("transfer-encoding: chunked\r\nconnection: close\r\n\r\n");
    socket.write_all(head.as_bytes()).await?;
    socket.flush().await?;
    for act in reply.body {
        match act {
            Act::Bytes(bytes) if bytes.is_empty() => {}
            Act::Bytes(bytes) => {
                let mut frame = format!("{:x}\r\n", bytes.len()).into_bytes();
                frame.extend_from_slice(&bytes);
                frame.extend_from_slice(b"\r\n");
                socket.write_all(&frame).await?;
                socket.flush().await?;
            }
            Act::Pause(d) => tokio::time::sleep(d).await,
            Act::Reset => {
                socket.set_zero_linger()?;
                return Ok(());
            }
            Act::Stall => {
                let mut sink = [0u8; 64];
                let waited = tokio::time::timeout(Duration::from_secs(30), async {
                    loop {
                        match socket.read(&mut sink).await {
                            Ok(0) | Err(_) => break,
                            Ok(_) => {}
                        }
                    }
                })
                .await;
                if waited.is_ok() {
                    hangups.fetch_add(1, Ordering::SeqCst);
                }
                return Ok(());
            }
        }
    }
    socket.write_all(b"0\r\n\r\n").await?;
    socket.flush().await?;
    socket.shutdown().await
}
