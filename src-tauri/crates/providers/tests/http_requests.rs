//! What the adapters send: endpoint, auth headers, model, streaming flags,
//! tools, and a multi-turn history whose tool results answer the earlier
//! calls with the ids and in the order each protocol wants.
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use bearagent_kernel::{HistoryItem, Message, Role, ToolCall, ToolResult};
use bearagent_providers::{http_provider, ModelRequest, Protocol, ToolSchema};
use serde_json::{json, Value};
use support::server::{Recorded, Reply, TestServer};
use support::{collect, config, provider, recordings, simple_request, KEY};

fn ok_body(protocol: Protocol) -> Vec<u8> {
    let wanted = match protocol {
        Protocol::OpenAiChat => "chat/cc_text_usage",
        Protocol::OpenAiResponses => "responses/resp_text",
        Protocol::Anthropic => "messages/an_text_ping",
        Protocol::OllamaChat => "ollama/ol_text",
    };
    recordings()
        .into_iter()
        .find(|r| r.name == wanted)
        .unwrap()
        .sse
}

async fn sent(
    protocol: Protocol,
    base: &str,
    key: Option<&str>,
    request: ModelRequest,
) -> Recorded {
    let server = TestServer::start(vec![Reply::sse_bytes(ok_body(protocol))]).await;
    let url = format!("{}{base}", server.base_url());
    let p = provider(config(protocol, &url, key));
    let got = collect(p.as_ref(), request).await;
    assert_eq!(got.completions, 1, "{protocol}: {:?}", got.error);
    server.requests().remove(0)
}

#[tokio::test]
async fn auth_headers_and_stream_flags_per_protocol() {
    for protocol in Protocol::ALL {
        for key in [Some(KEY), None] {
            let r = sent(protocol, "", key, simple_request()).await;
            let h = &r.headers;
            assert_eq!(r.method, "POST");
            assert_eq!(
                h.get("content-type").map(String::as_str),
                Some("application/json")
            );
            assert_eq!(r.body["stream"], true, "{protocol}");
            assert_eq!(r.body["model"], "test-model");
            match protocol {
                Protocol::OpenAiChat | Protocol::OpenAiResponses | Protocol::OllamaChat => {
                    let want = key.map(|k| format!("Bearer {k}"));
                    assert_eq!(h.get("authorization"), want.as_ref(), "{protocol}");
                    assert!(!h.contains_key("x-api-key"));
                }
                Protocol::Anthropic => {
                    assert_eq!(h.get("x-api-key").map(String::as_str), key);
                    assert_eq!(h["anthropic-version"], "2023-06-01");
                    assert!(!h.contains_key("authorization"));
                }
            }
            match protocol {
                Protocol::OpenAiChat => {
                    assert_eq!(r.body["stream_options"], json!({"include_usage": true}));
                    assert_eq!(r.body["max_tokens"], 4096);
                    assert_eq!(
                        r.body["messages"][0],
                        json!({"role": "system", "content": "be brief"})
                    );
                    assert!(
                        r.body.get("parallel_tool_calls").is_none(),
                        "only with tools"
                    );
                }
                Protocol::OpenAiResponses => {
                    assert_eq!(r.body["instructions"], "be brief");
                    assert_eq!(r.body["max_output_tokens"], 4096);
                    assert_eq!(
                        r.body["input"],
                        json!([{"role": "user", "content": "hello"}])
                    );
                }
                Protocol::Anthropic => {
                    assert_eq!(r.body["system"], "be brief");
                    assert_eq!(r.body["max_tokens"], 4096);
                    assert_eq!(
                        r.body["messages"],
                        json!([{"role": "user", "content": [{"type": "text", "text": "hello"}]}])
                    );
                    assert!(r.body.get("tool_choice").is_none());
                }
                Protocol::OllamaChat => {
                    assert_eq!(r.path, "/api/chat");
                    assert_eq!(h["accept"], "application/x-ndjson");
                    // No window configured: Ollama is told the default one.
                    assert_eq!(
                        r.body["options"],
                        json!({"num_ctx": bearagent_providers::OLLAMA_DEFAULT_WINDOW, "num_predict": 4096})
                    );
                    assert_eq!(
                        r.body["messages"],
                        json!([{"role": "system", "content": "be brief"}, {"role": "user", "content": "hello"}])
                    );
                    assert!(r.body.get("tools").is_none(), "only with tools");
                }
            }
        }
    }
}

#[tokio::test]
async fn base_urls_with_v1_or_a_trailing_slash() {
    for (base, path) in [
        ("/", "/v1/messages"),
        ("/v1", "/v1/messages"),
        ("/proxy/v1/", "/proxy/v1/messages"),
    ] {
        let r = sent(Protocol::Anthropic, base, None, simple_request()).await;
        assert_eq!(r.path, path, "{base}");
    }
}

fn tool() -> ToolSchema {
    ToolSchema {
        name: "read_file".into(),
        description: "Read a file".into(),
        parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
    }
}

fn multi_turn() -> ModelRequest {
    let m = |role, text: &str| HistoryItem::Message(Message::new(role, text));
    let call = |id: &str, path: &str| {
        HistoryItem::ToolCall(ToolCall::new(id, "read_file", json!({"path": path})).unwrap())
    };
    let result = |id: &str, text: &str, is_error| {
        HistoryItem::ToolResult(ToolResult::new(id, text, is_error).unwrap())
    };
    ModelRequest {
        system: "rules".into(),
        history: vec![
            m(Role::User, "compare a and b"),
            m(Role::Assistant, "Let me read a."),
            call("call_A", "a.md"),
            result("call_A", "contents of a", false),
            call("call_B", "b.md"),
            result("call_B", "no such file", true),
            m(Role::User, "go on"),
        ]
        .into(),
        tools: vec![tool()].into(),
        max_output_tokens: Some(321),
        images: Default::default(),
    }
}

fn args(text: &Value) -> Value {
    serde_json::from_str(text.as_str().unwrap()).unwrap()
}

#[tokio::test]
async fn chat_history_with_tool_calls_and_results() {
    let body = sent(Protocol::OpenAiChat, "", None, multi_turn())
        .await
        .body;
    assert_eq!(body["max_tokens"], 321);
    assert_eq!(body["parallel_tool_calls"], true);
    assert_eq!(
        body["tools"],
        json!([{"type": "function", "function": {"name": "read_file", "description": "Read a file",
            "parameters": tool().parameters}}])
    );
    let msgs = body["messages"].as_array().unwrap();
    let roles: Vec<&str> = msgs.iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(
        roles,
        [
            "system",
            "user",
            "assistant",
            "tool",
            "assistant",
            "tool",
            "user"
        ]
    );
    assert_eq!(msgs[2]["content"], "Let me read a.");
    let first = &msgs[2]["tool_calls"][0];
    assert_eq!(
        (first["id"].as_str(), first["type"].as_str()),
        (Some("call_A"), Some("function"))
    );
    assert_eq!(first["function"]["name"], "read_file");
    assert_eq!(
        args(&first["function"]["arguments"]),
        json!({"path": "a.md"})
    );
    assert_eq!(
        msgs[3],
        json!({"role": "tool", "tool_call_id": "call_A", "content": "contents of a"})
    );
    assert_eq!(msgs[4]["content"], Value::Null);
    assert_eq!(msgs[4]["tool_calls"][0]["id"], "call_B");
    assert_eq!(msgs[5]["tool_call_id"], "call_B");
    assert_eq!(msgs[6], json!({"role": "user", "content": "go on"}));
}

#[tokio::test]
async fn responses_history_answers_by_call_id() {
    let body = sent(Protocol::OpenAiResponses, "", None, multi_turn())
        .await
        .body;
    assert_eq!(body["instructions"], "rules");
    assert_eq!(body["max_output_tokens"], 321);
    assert_eq!(body["parallel_tool_calls"], true);
    assert_eq!(
        body["tools"],
        json!([{"type": "function", "name": "read_file", "description": "Read a file",
            "parameters": tool().parameters}])
    );
    let input = body["input"].as_array().unwrap();
    assert_eq!(
        input[0],
        json!({"role": "user", "content": "compare a and b"})
    );
    assert_eq!(
        input[1],
        json!({"role": "assistant", "content": "Let me read a."})
    );
    assert_eq!(input[2]["type"], "function_call");
    assert_eq!(
        (input[2]["call_id"].as_str(), input[2]["name"].as_str()),
        (Some("call_A"), Some("read_file"))
    );
    assert_eq!(args(&input[2]["arguments"]), json!({"path": "a.md"}));
    assert_eq!(
        input[3],
        json!({"type": "function_call_output", "call_id": "call_A", "output": "contents of a"})
    );
    assert_eq!(input[4]["call_id"], "call_B");
    assert_eq!(
        input[5],
        json!({"type": "function_call_output", "call_id": "call_B", "output": "no such file"})
    );
    assert_eq!(input[6], json!({"role": "user", "content": "go on"}));
    assert_eq!(input.len(), 7);
}

#[tokio::test]
async fn anthropic_history_puts_results_first_in_the_user_turn() {
    let body = sent(Protocol::Anthropic, "", Some(KEY), multi_turn())
        .await
        .body;
    assert_eq!(body["max_tokens"], 321);
    assert_eq!(
        body["tool_choice"],
        json!({"type": "auto", "disable_parallel_tool_use": false})
    );
    assert_eq!(
        body["tools"],
        json!([{"name": "read_file", "description": "Read a file", "input_schema": tool().parameters}])
    );
    assert_eq!(
        body["messages"],
        json!([
            {"role": "user", "content": [{"type": "text", "text": "compare a and b"}]},
            {"role": "assistant", "content": [
                {"type": "text", "text": "Let me read a."},
                {"type": "tool_use", "id": "call_A", "name": "read_file", "input": {"path": "a.md"}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "call_A", "content": "contents of a", "is_error": false}]},
            {"role": "assistant", "content": [
                {"type": "tool_use", "id": "call_B", "name": "read_file", "input": {"path": "b.md"}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "call_B", "content": "no such file", "is_error": true},
                {"type": "text", "text": "go on"}]}
        ])
    );
}

/// One turn of two calls, then both results: the follow-up request each
/// protocol needs (ids as the provider gave them).
fn parallel_turn() -> ModelRequest {
    let call = |id: &str, path: &str| {
        HistoryItem::ToolCall(ToolCall::new(id, "read_file", json!({"path": path})).unwrap())
    };
    let result =
        |id: &str, text: &str| HistoryItem::ToolResult(ToolResult::new(id, text, false).unwrap());
    ModelRequest {
        system: "rules".into(),
        history: vec![
            HistoryItem::Message(Message::new(Role::User, "read both")),
            HistoryItem::Message(Message::new(Role::Assistant, "Reading both.")),
            call("call_1", "a.md"),
            call("call_2", "b.md"),
            result("call_1", "A"),
            result("call_2", "B"),
        ]
        .into(),
        tools: vec![tool()].into(),
        max_output_tokens: None,
        images: Default::default(),
    }
}

#[tokio::test]
async fn a_turn_of_several_calls_is_answered_in_each_protocols_shape() {
    // Chat: one assistant message with both calls, one tool message per id.
    let body = sent(Protocol::OpenAiChat, "", None, parallel_turn())
        .await
        .body;
    let msgs = body["messages"].as_array().unwrap();
    assert_eq!(msgs.len(), 5, "{body}");
    assert_eq!(msgs[2]["content"], "Reading both.");
    let ids: Vec<&str> = msgs[2]["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["call_1", "call_2"]);
    assert_eq!(
        (msgs[3]["role"].as_str(), msgs[3]["tool_call_id"].as_str()),
        (Some("tool"), Some("call_1"))
    );
    assert_eq!(
        (msgs[4]["role"].as_str(), msgs[4]["tool_call_id"].as_str()),
        (Some("tool"), Some("call_2"))
    );

    // Responses: two function_call items, then two function_call_output.
    let body = sent(Protocol::OpenAiResponses, "", None, parallel_turn())
        .await
        .body;
    let kinds: Vec<String> = body["input"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            format!(
                "{}:{}",
                i["type"].as_str().unwrap_or("message"),
                i["call_id"].as_str().unwrap_or("")
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "message:",
            "message:",
            "function_call:call_1",
            "function_call:call_2",
            "function_call_output:call_1",
            "function_call_output:call_2"
        ]
    );

    // Anthropic: both tool_use blocks in one assistant turn, both results in
    // one user turn.
    let body = sent(Protocol::Anthropic, "", Some(KEY), parallel_turn())
        .await
        .body;
    let turns = body["messages"].as_array().unwrap();
    assert_eq!(turns.len(), 3, "{body}");
    let blocks = |t: &Value| -> Vec<String> {
        t["content"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| {
                format!(
                    "{}:{}",
                    b["type"].as_str().unwrap(),
                    b["id"].as_str().or(b["tool_use_id"].as_str()).unwrap_or("")
                )
            })
            .collect()
    };
    assert_eq!(
        blocks(&turns[1]),
        ["text:", "tool_use:call_1", "tool_use:call_2"]
    );
    assert_eq!(
        blocks(&turns[2]),
        ["tool_result:call_1", "tool_result:call_2"]
    );
}

#[test]
fn provider_info_and_config_errors_never_show_the_key() {
    let p = http_provider(config(
        Protocol::OpenAiChat,
        "http://127.0.0.1:9",
        Some(KEY),
    ))
    .unwrap();
    let info = p.info();
    assert_eq!(
        (info.name.as_str(), info.model.as_str(), info.scripted),
        ("test-openai-chat", "test-model", false)
    );
    assert!(!format!("{info:?}").contains(KEY));
    for bad in ["not a url", "ftp://host", ""] {
        let err = http_provider(config(Protocol::Anthropic, bad, Some(KEY)))
            .err()
            .unwrap();
        assert!(!format!("{err} {err:?}").contains(KEY));
    }
    let mut blank = config(Protocol::Anthropic, "http://h", Some("bad\nkey"));
    assert!(
        http_provider(blank.clone()).is_err(),
        "a key that is no header value"
    );
    blank.api_key = None;
    blank.model = " ".into();
    assert!(http_provider(blank).is_err());
}
