//! A tiny loopback HTTP server for end-to-end tests: answers each POST
//! with the next canned response and records every request.
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

#[derive(Debug, Clone)]
pub struct Recorded {
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: serde_json::Value,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

pub struct Canned {
    pub status: u16,
    pub content_type: &'static str,
    pub body: String,
}

impl Canned {
    pub fn sse(body: &str) -> Self {
        Canned {
            status: 200,
            content_type: "text/event-stream",
            body: body.to_owned(),
        }
    }
}

pub struct Server {
    pub base_url: String,
    pub requests: Arc<Mutex<Vec<Recorded>>>,
}

pub fn serve(responses: Vec<Canned>) -> Server {
    let mut responses = responses.into_iter();
    serve_with(move |_| responses.next())
}

/// Like [`serve`], but `respond` picks each answer from the request's body
/// (None: stop serving).
pub fn serve_with(
    mut respond: impl FnMut(&serde_json::Value) -> Option<Canned> + Send + 'static,
) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base_url = format!("http://{}", listener.local_addr().unwrap());
    let requests: Arc<Mutex<Vec<Recorded>>> = Arc::default();
    let seen = requests.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            let path = line.split_whitespace().nth(1).unwrap_or("").to_owned();
            let mut headers = Vec::new();
            let mut length = 0usize;
            loop {
                let mut h = String::new();
                reader.read_line(&mut h).unwrap();
                let h = h.trim_end();
                if h.is_empty() {
                    break;
                }
                if let Some((k, v)) = h.split_once(':') {
                    if k.eq_ignore_ascii_case("content-length") {
                        length = v.trim().parse().unwrap_or(0);
                    }
                    headers.push((k.trim().to_owned(), v.trim().to_owned()));
                }
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            let body = serde_json::from_slice(&body).unwrap_or(serde_json::Value::Null);
            let Some(canned) = respond(&body) else { return };
            seen.lock().unwrap().push(Recorded {
                path,
                headers,
                body,
            });
            let head = format!(
                "HTTP/1.1 {} X\r\ncontent-type: {}\r\nconnection: close\r\ncontent-length: {}\r\n\r\n",
                canned.status,
                canned.content_type,
                canned.body.len()
            );
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(canned.body.as_bytes());
            let _ = stream.flush();
        }
    });
    Server { base_url, requests }
}

/// An SSE body from `(event name, data)` pairs (an empty name: data only).
pub fn sse(events: &[(&str, &str)]) -> String {
    events
        .iter()
        .map(|(name, data)| {
            if name.is_empty() {
                format!("data: {data}\n\n")
            } else {
                format!("event: {name}\ndata: {data}\n\n")
            }
        })
        .collect()
}

/// A Chat Completions stream answering `text`.
pub fn chat_text(text: &str) -> Canned {
    chat_answer(text, None)
}

/// [`chat_text`] whose last chunk reports `(prompt, completion)` tokens.
pub fn chat_answer(text: &str, usage: Option<(u64, u64)>) -> Canned {
    let content = serde_json::to_string(text).unwrap();
    let first = format!(
        r#"{{"id":"t","choices":[{{"index":0,"delta":{{"role":"assistant","content":{content}}},"finish_reason":null}}]}}"#
    );
    let usage = usage.map(|(prompt, completion)| {
        format!(
            r#"{{"id":"t","choices":[],"usage":{{"prompt_tokens":{prompt},"completion_tokens":{completion},"total_tokens":{}}}}}"#,
            prompt + completion
        )
    });
    let mut events = vec![
        ("", first.as_str()),
        (
            "",
            r#"{"id":"t","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#,
        ),
    ];
    if let Some(usage) = &usage {
        events.push(("", usage.as_str()));
    }
    events.push(("", "[DONE]"));
    Canned::sse(&sse(&events))
}
