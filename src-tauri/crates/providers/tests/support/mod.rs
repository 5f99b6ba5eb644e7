//! Shared helpers of the adapter contract tests.
#![allow(dead_code)]

pub mod server;

use bearagent_kernel::{StopReason, TokenUsage, ToolCall};
use bearagent_providers::{
    http_provider, ApiKey, HttpProviderConfig, ModelProvider, ModelRequest, Protocol,
    ProviderError, RetryNotice, RetryPolicy, StreamItem, Timeouts,
};
use futures::StreamExt;
use serde_json::Value;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

pub const KEY: &str = "sk-test-SECRET-0123456789";

/// The recordings kept in the repository (`tests/fixtures/provider-recordings`),
/// or `$BEARAGENT_RECORDINGS` to replay another set.
pub fn recordings_dir() -> PathBuf {
    match std::env::var_os("BEARAGENT_RECORDINGS") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../../tests/fixtures/provider-recordings"),
    }
}

#[derive(Debug, Clone)]
pub struct Recording {
    pub name: String,
    pub protocol: Protocol,
    pub sse: Vec<u8>,
    pub expected: Value,
}

impl Recording {
    pub fn crlf(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.sse.len() * 2);
        for &b in &self.sse {
            if b == b'\n' {
                out.push(b'\r');
            }
            out.push(b);
        }
        out
    }
}

/// Ollama's streams, written from its API docs (`tests/fixtures/ollama`).
pub fn ollama_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ollama")
}

/// The recordings, and the Ollama streams after them.
pub fn recordings() -> Vec<Recording> {
    let root = recordings_dir();
    let folders = [
        (root.join("chat"), "sse"),
        (root.join("responses"), "sse"),
        (root.join("messages"), "sse"),
        (ollama_dir(), "ndjson"),
    ];
    let mut all = Vec::new();
    for (folder, body_ext) in folders {
        let mut entries: Vec<_> = std::fs::read_dir(folder)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        entries.sort();
        for json_path in entries {
            let meta: Value =
                serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
            let protocol = match meta["protocol"].as_str().unwrap() {
                "openai_chat" => Protocol::OpenAiChat,
                "openai_responses" => Protocol::OpenAiResponses,
                "anthropic_messages" => Protocol::Anthropic,
                "ollama_chat" => Protocol::OllamaChat,
                other => panic!("unknown protocol {other} in {}", json_path.display()),
            };
            let sse = std::fs::read(json_path.with_extension(body_ext)).unwrap();
            all.push(Recording {
                name: meta["name"].as_str().unwrap().to_owned(),
                protocol,
                sse,
                expected: meta["expected"].clone(),
            });
        }
    }
    assert!(
        all.len() >= 15,
        "expected the full recording set, found {}",
        all.len()
    );
    all
}

/// What a stream yielded, folded.
#[derive(Debug, Default)]
pub struct Collected {
    pub text: String,
    pub tool_calls: Vec<ToolCall>,
    pub completed: Option<(TokenUsage, StopReason)>,
    pub completions: usize,
    pub error: Option<ProviderError>,
    pub retries: Vec<RetryNotice>,
    /// Something came after the completion or the error.
    pub trailing: bool,
}

pub fn fold(items: Vec<Result<StreamItem, ProviderError>>) -> Collected {
    let mut c = Collected::default();
    for item in items {
        if c.completed.is_some() || c.error.is_some() {
            c.trailing = true;
        }
        match item {
            Ok(StreamItem::TextDelta(t)) => c.text.push_str(&t),
            Ok(StreamItem::ToolCall(call)) => c.tool_calls.push(call),
            Ok(StreamItem::AnswerText(text)) => c.text = text,
            Ok(StreamItem::Completed { usage, stop_reason }) => {
                c.completions += 1;
                c.completed = Some((usage, stop_reason));
            }
            Ok(StreamItem::Retrying(notice)) => {
                c.text.clear();
                c.tool_calls.clear();
                c.retries.push(notice);
            }
            Err(e) => c.error = Some(e),
        }
    }
    c
}

pub async fn collect(provider: &dyn ModelProvider, request: ModelRequest) -> Collected {
    fold(provider.stream(request).collect().await)
}

fn stop_name(stop: StopReason) -> &'static str {
    match stop {
        StopReason::EndTurn => "end_turn",
        StopReason::ToolUse => "tool_use",
        StopReason::MaxTokens => "max_tokens",
        StopReason::Other => "other",
    }
}

/// Compares a folded stream with a recording's `expected`.
pub fn check(expected: &Value, got: &Collected, label: &str) {
    assert!(!got.trailing, "{label}: items after the terminal item");
    match expected["outcome"].as_str().unwrap() {
        "ok" => {
            assert!(
                got.error.is_none(),
                "{label}: unexpected error {:?}",
                got.error
            );
            assert_eq!(got.completions, 1, "{label}: exactly one completion");
            let (usage, stop) = got.completed.unwrap();
            assert_eq!(
                got.text,
                expected["text"].as_str().unwrap(),
                "{label}: text"
            );
            let want = expected["usage"].clone();
            assert_eq!(
                (usage.input, usage.output),
                (
                    want["input_tokens"].as_u64().unwrap(),
                    want["output_tokens"].as_u64().unwrap()
                ),
                "{label}: usage"
            );
            assert_eq!(
                stop_name(stop),
                expected["stop_reason"].as_str().unwrap(),
                "{label}"
            );
            let calls = expected["tool_calls"].as_array().unwrap();
            assert_eq!(
                got.tool_calls.len(),
                calls.len(),
                "{label}: tool calls {:?}",
                got.tool_calls
            );
            for (call, want) in got.tool_calls.iter().zip(calls) {
                assert_eq!(
                    call.call_id.as_str(),
                    want["id"].as_str().unwrap(),
                    "{label}"
                );
                assert_eq!(
                    call.tool_name.as_str(),
                    want["name"].as_str().unwrap(),
                    "{label}"
                );
                assert_eq!(
                    Value::Object(call.arguments.clone()),
                    want["arguments"],
                    "{label}"
                );
            }
            for cut in expected["incomplete_tool_calls"]
                .as_array()
                .into_iter()
                .flatten()
            {
                let id = cut["id"].as_str().unwrap();
                assert!(
                    got.tool_calls.iter().all(|c| c.call_id.as_str() != id),
                    "{label}: the cut-off call {id} was yielded"
                );
            }
        }
        "error" => {
            assert!(
                got.completed.is_none(),
                "{label}: completed despite an error"
            );
            let error = got
                .error
                .clone()
                .unwrap_or_else(|| panic!("{label}: no error"));
            let class = expected["error_class"].as_str().unwrap();
            let transient = expected["error_detail"]["retryable"]
                .as_bool()
                .unwrap_or(false);
            match (class, &error) {
                (
                    "provider-overloaded",
                    ProviderError::Provider {
                        retryable: true, ..
                    },
                ) => {}
                ("provider-error", ProviderError::Provider { retryable, .. })
                    if *retryable == transient => {}
                ("truncated-stream", ProviderError::TruncatedStream { .. }) => {}
                _ => panic!("{label}: expected {class}, got {error:?}"),
            }
            if let Some(partial) = expected["partial_text"].as_str() {
                assert_eq!(got.text, partial, "{label}: partial text");
            }
            for never in expected["tool_calls_must_not_execute"]
                .as_array()
                .into_iter()
                .flatten()
            {
                let id = never["id"].as_str().unwrap_or_default();
                assert!(
                    got.tool_calls.iter().all(|c| c.call_id.as_str() != id),
                    "{label}"
                );
            }
        }
        other => panic!("{label}: unknown outcome {other}"),
    }
}

pub fn config(protocol: Protocol, base_url: &str, key: Option<&str>) -> HttpProviderConfig {
    let mut config = HttpProviderConfig::new(
        format!("test-{}", protocol.as_str()),
        protocol,
        base_url,
        "test-model",
    );
    config.api_key = key.map(ApiKey::new);
    config.timeouts = Timeouts {
        connect: Duration::from_secs(2),
        idle: Duration::from_secs(5),
    };
    config.retry = RetryPolicy {
        max_retries: 2,
        base_delay: Duration::from_millis(10),
        max_delay: Duration::from_secs(2),
    };
    config
}

pub fn provider(config: HttpProviderConfig) -> Arc<dyn ModelProvider> {
    http_provider(config).unwrap()
}

pub fn simple_request() -> ModelRequest {
    ModelRequest {
        system: "be brief".into(),
        history: vec![bearagent_kernel::HistoryItem::Message(
            bearagent_kernel::Message::new(bearagent_kernel::Role::User, "hello"),
        )]
        .into(),
        tools: Default::default(),
        max_output_tokens: None,
        images: Default::default(),
    }
}

/// The byte offsets to split a body at: every offset of a small body; for
/// a large one every offset in the first and last 2 KiB and around every
/// multi-byte character, and a stride in between.
pub fn split_points(body: &[u8]) -> Vec<usize> {
    const SMALL: usize = 16 * 1024;
    if body.len() <= SMALL {
        return (0..=body.len()).collect();
    }
    let mut points: Vec<usize> = (0..=2048).chain(body.len() - 2048..=body.len()).collect();
    points.extend((2048..body.len() - 2048).step_by(61));
    points.extend(around(body, |b, _| b >= 0x80));
    points.sort_unstable();
    points.dedup();
    points
}

/// For a CRLF body (the LF body was split everywhere already): every
/// offset next to a CR or LF and inside multi-byte characters, plus a
/// stride of 7 (large bodies: of 251).
pub fn crlf_split_points(body: &[u8]) -> Vec<usize> {
    let stride = if body.len() <= 16 * 1024 { 7 } else { 251 };
    let mut points: Vec<usize> = (0..=body.len()).step_by(stride).collect();
    points.extend(around(body, |b, _| b >= 0x80 || b == b'\r'));
    points.push(body.len());
    points.sort_unstable();
    points.dedup();
    points
}

fn around(body: &[u8], pick: impl Fn(u8, usize) -> bool) -> Vec<usize> {
    let mut points = Vec::new();
    for (i, &b) in body.iter().enumerate() {
        if pick(b, i) {
            points.extend(i.saturating_sub(1)..=(i + 2).min(body.len()));
        }
    }
    points
}
