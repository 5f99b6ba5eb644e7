//! Ollama's own chat API against a real loopback HTTP server: the streams
//! of `tests/fixtures/ollama` served as `application/x-ndjson`, errors in
//! the stream and in the status, a connection that closes before the done
//! line, and what the request carries — `options.num_ctx`, the tools, and
//! the history with tool calls and results.
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use bearagent_kernel::{HistoryItem, Message, Role, StopReason, ToolCall, ToolResult};
use bearagent_providers::{ModelRequest, Protocol, ProviderError, ToolSchema};
use serde_json::json;
use support::server::{Act, Reply, TestServer};
use support::{check, collect, config, provider, recordings, simple_request, Recording};

fn stream(rec: &Recording) -> Reply {
    ndjson(vec![Act::Bytes(rec.sse.clone())])
}

fn ndjson(body: Vec<Act>) -> Reply {
    let mut reply = Reply::sse(body);
    reply.headers = vec![("content-type".into(), "application/x-ndjson".into())];
    reply
}

fn fixture(name: &str) -> Recording {
    let name = format!("ollama/{name}");
    recordings().into_iter().find(|r| r.name == name).unwrap()
}

async fn replay(name: &str) -> (support::Collected, TestServer) {
    let rec = fixture(name);
    let server = TestServer::start(vec![stream(&rec)]).await;
    let p = provider(config(Protocol::OllamaChat, &server.base_url(), None));
    let got = collect(p.as_ref(), simple_request()).await;
    check(&rec.expected, &got, name);
    (got, server)
}

#[tokio::test]
async fn a_text_reply_streams_and_completes_with_ollamas_counts() {
    let (got, server) = replay("ol_text").await;
    assert_eq!(got.completed.unwrap().0.input, 2311);
    let requests = server.requests();
    assert_eq!(
        (requests[0].method.as_str(), requests[0].path.as_str()),
        ("POST", "/api/chat")
    );
}

#[tokio::test]
async fn tool_calls_with_object_arguments_one_or_two_in_a_reply() {
    let (got, _) = replay("ol_tool_single").await;
    assert_eq!(got.completed.unwrap().1, StopReason::ToolUse);
    let (got, _) = replay("ol_tool_two").await;
    let ids: Vec<&str> = got.tool_calls.iter().map(|c| c.call_id.as_str()).collect();
    assert_eq!(ids, ["call_0", "call_1"]);
}

#[tokio::test]
async fn an_error_line_mid_stream_fails_the_call_without_retrying() {
    let (got, server) = replay("ol_error_mid_stream").await;
    match got.error {
        Some(ProviderError::Provider {
            message,
            retryable: false,
            ..
        }) => assert!(message.contains("unexpected EOF"), "{message}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn a_stream_closed_before_done_is_truncated() {
    replay("ol_truncated").await;
    // The connection reset mid-line, rather than closed between lines.
    let rec = fixture("ol_text");
    let half = rec.sse[..rec.sse.len() / 2].to_vec();
    let server = TestServer::start(vec![ndjson(vec![Act::Bytes(half), Act::Reset])]).await;
    let p = provider(config(Protocol::OllamaChat, &server.base_url(), None));
    let got = collect(p.as_ref(), simple_request()).await;
    assert!(
        matches!(got.error, Some(ProviderError::TruncatedStream { .. })),
        "{:?}",
        got.error
    );
    assert!(got.completed.is_none());
}

#[tokio::test]
async fn a_non_2xx_body_is_a_typed_error_and_a_5xx_is_retried() {
    let missing = r#"{"error":"model \"qwen9\" not found, try pulling it first"}"#;
    let server = TestServer::start(vec![Reply::json(404, missing)]).await;
    let p = provider(config(Protocol::OllamaChat, &server.base_url(), None));
    let got = collect(p.as_ref(), simple_request()).await;
    match got.error {
        Some(ProviderError::Provider {
            status: Some(404),
            retryable: false,
            message,
            ..
        }) => assert!(message.contains("try pulling it first"), "{message}"),
        other => panic!("{other:?}"),
    }
    let rec = fixture("ol_text");
    let busy = r#"{"error":"server busy, please try again. maximum pending requests exceeded"}"#;
    let server = TestServer::start(vec![Reply::json(503, busy), stream(&rec)]).await;
    let p = provider(config(Protocol::OllamaChat, &server.base_url(), None));
    let got = collect(p.as_ref(), simple_request()).await;
    check(&rec.expected, &got, "after a 503");
    assert_eq!(got.retries.len(), 1);
}

fn multi_turn() -> ModelRequest {
    let read = |id: &str, path: &str| {
        HistoryItem::ToolCall(ToolCall::new(id, "read_file", json!({"path": path})).unwrap())
    };
    let result =
        |id: &str, text: &str| HistoryItem::ToolResult(ToolResult::new(id, text, false).unwrap());
    ModelRequest {
        system: "rules".into(),
        history: vec![
            HistoryItem::Message(Message::new(Role::User, "compare a and b")),
            read("call_0", "a.md"),
            result("call_0", "contents of a"),
            read("call_1", "b.md"),
            result("call_1", "contents of b"),
        ]
        .into(),
        tools: vec![ToolSchema {
            name: "read_file".into(),
            description: "Read a file".into(),
            parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
        }]
        .into(),
        max_output_tokens: Some(512),
        images: Default::default(),
    }
}

#[tokio::test]
async fn the_request_carries_num_ctx_tools_and_the_history() {
    let rec = fixture("ol_tool_single");
    let server = TestServer::start(vec![stream(&rec)]).await;
    let mut cfg = config(
        Protocol::OllamaChat,
        &format!("{}/v1", server.base_url()),
        None,
    );
    cfg.context_window = Some(12_288);
    let p = provider(cfg);
    assert_eq!(
        p.info().context_window,
        12_288,
        "the run plans for what is sent"
    );
    let got = collect(p.as_ref(), multi_turn()).await;
    // Two calls in the history: the minted id does not repeat theirs.
    assert_eq!(got.tool_calls[0].call_id.as_str(), "call_2");
    let r = server.requests().remove(0);
    assert_eq!(
        r.path, "/api/chat",
        "a /v1 base still reaches the native API"
    );
    assert_eq!(
        r.body["options"],
        json!({"num_ctx": 12288, "num_predict": 512})
    );
    assert_eq!(r.body["tools"][0]["function"]["name"], "read_file");
    assert_eq!(r.body["tools"][0]["type"], "function");
    let msgs = r.body["messages"].as_array().unwrap();
    let roles: Vec<&str> = msgs.iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(
        roles,
        ["system", "user", "assistant", "tool", "assistant", "tool"]
    );
    assert_eq!(
        msgs[2]["tool_calls"],
        json!([{"id": "call_0", "function": {"name": "read_file", "arguments": {"path": "a.md"}}}])
    );
    assert_eq!(msgs[5]["tool_call_id"], "call_1");
}
