//! Issue 53's two figures for a small local model:
//! - detection of a running local server (a loopback server answering as
//!   llama.cpp's llama-server does) against the 300 ms goal, and of
//!   nothing at all (every default port closed);
//! - the first request's size for a default run, in the full and the
//!   compact context profile, as the run records it (`ModelCallRequested`'s
//!   bytes and estimated tokens).
//!
//! Run: `cargo bench -p bearagent-runtime --bench local_model`
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod support;

use bearagent_kernel::{EventPayload, EventSeq};
use bearagent_providers::local::{detect, DetectOptions, ServerKind};
use bearagent_providers::ScriptedProvider;
use bearagent_runtime::{Application, RunProfile, StartRun, SystemClock};
use bearagent_tools::ApprovalMode;
use serde_json::json;
use std::sync::Arc;
use std::time::Instant;
use support::{median, ms};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

const ROUNDS: usize = 30;
const GOAL_MS: f64 = 300.0;

/// A loopback server answering `/props` and `/v1/models` as llama-server
/// does, 404 to anything else; its port.
async fn llama_like() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        loop {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            tokio::spawn(async move {
                let mut buf = vec![0u8; 8192];
                let n = socket.read(&mut buf).await.unwrap_or(0);
                let head = String::from_utf8_lossy(&buf[..n]);
                let path = head.split_whitespace().nth(1).unwrap_or("");
                let (status, body) = match path {
                    "/props" => (
                        "200 OK",
                        json!({
                            "default_generation_settings": {"n_ctx": 8192},
                            "model_path": "/models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
                            "chat_template_caps": {"supports_tools": true},
                        }),
                    ),
                    "/v1/models" => (
                        "200 OK",
                        json!({"object": "list", "data": [
                            {"id": "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf", "meta": {"n_ctx_train": 32768}}
                        ]}),
                    ),
                    _ => ("404 Not Found", json!({"error": "not found"})),
                };
                let body = body.to_string();
                let reply = format!(
                    "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = socket.write_all(reply.as_bytes()).await;
            });
        }
    });
    port
}

fn detection(rt: &tokio::runtime::Runtime) {
    let port = rt.block_on(llama_like());
    let mut options = DetectOptions::with_extra(&[port], &[]);
    let mut found = Vec::new();
    for _ in 0..ROUNDS {
        let started = Instant::now();
        let detection = rt.block_on(detect(&options));
        found.push(started.elapsed());
        let server = detection
            .servers
            .iter()
            .find(|s| s.kind == ServerKind::LlamaCpp);
        assert_eq!(server.unwrap().models[0].context_window, Some(8192));
    }
    // Nothing listening: ports of this machine no server uses.
    options.ports = vec![9, 1, 7];
    let mut nothing = Vec::new();
    for _ in 0..ROUNDS {
        let started = Instant::now();
        let detection = rt.block_on(detect(&options));
        nothing.push(started.elapsed());
        assert!(detection.servers.is_empty());
    }
    let found = ms(median(found));
    println!(
        "detect, a llama.cpp server running: median {found:.1} ms ({:.3}× the {GOAL_MS} ms goal)",
        found / GOAL_MS
    );
    println!(
        "detect, nothing running:            median {:.1} ms",
        ms(median(nothing))
    );
    assert!(found < GOAL_MS, "detection took {found:.1} ms");
}

/// The first request of a default run against a model of `window` tokens:
/// (bytes, estimated tokens, context version).
fn first_request(rt: &tokio::runtime::Runtime, window: u64) -> (u64, u64, String) {
    let home = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();
    let app = Application::open(home.path(), Arc::new(SystemClock)).unwrap();
    let provider = ScriptedProvider::from_json(&json!([{"final_answer": "done"}]).to_string())
        .unwrap()
        .with_context_window(window);
    let run = {
        let _inside = rt.enter();
        app.start_run(StartRun {
            workspace: ws.path().display().to_string(),
            goal: "Read question.txt and write the answer to answer.txt.".into(),
            profile: RunProfile {
                approval_mode: ApprovalMode::AllowAll,
                ..RunProfile::default()
            },
            provider: Arc::new(provider),
            images: Vec::new(),
        })
        .unwrap()
    };
    rt.block_on(app.wait_run(run)).unwrap();
    let events = app.list_events(run, EventSeq(0), 100).unwrap();
    events
        .iter()
        .find_map(|e| match &e.payload {
            EventPayload::ModelCallRequested {
                context_bytes,
                estimated_tokens,
                context_version,
                ..
            } => Some((
                *context_bytes,
                estimated_tokens.unwrap_or(0),
                context_version.clone(),
            )),
            _ => None,
        })
        .unwrap()
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    detection(&rt);
    let (full_bytes, full_tokens, full_version) = first_request(&rt, 200_000);
    let (small_bytes, small_tokens, small_version) = first_request(&rt, 8_192);
    println!(
        "first request, 200 k window ({full_version}): {full_bytes} bytes, ~{full_tokens} tokens"
    );
    println!(
        "first request, 8 k window ({small_version}): {small_bytes} bytes, ~{small_tokens} tokens ({:.2}× the full one)",
        small_bytes as f64 / full_bytes as f64
    );
    assert!(small_tokens <= 1_000, "{small_tokens} tokens");
}
