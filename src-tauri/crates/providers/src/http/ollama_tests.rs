//! Ollama's `/api/chat`: the request body and the NDJSON decoder, without
//! any network (the contract test `tests/ollama_chat.rs` serves streams
//! over loopback HTTP).

use super::super::body::BodySettings;
use super::super::ndjson::{LINE, UNTERMINATED};
use super::super::ollama_chat::{calls_in, request_body};
use super::*;
use crate::ModelRequest;
use bearagent_kernel::{HistoryItem, Message, Role, ToolCall, ToolResult};
use serde_json::json;

fn decode(first_minted: usize, lines: &[&str]) -> (Vec<StreamItem>, Result<Flow, ProviderError>) {
    let mut decoder = Decoder::new("ollama", Some("sk-secret-1234"), first_minted);
    let mut out = Vec::new();
    for line in lines {
        let flow = decoder.event(LINE, line, &mut out);
        if !matches!(flow, Ok(Flow::Continue)) {
            return (out, flow);
        }
    }
    let end = decoder.end(&mut out).map(|()| Flow::Done);
    (out, end)
}

const DONE: &str = r#"{"model":"m","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","prompt_eval_count":26,"eval_count":5}"#;

#[test]
fn text_then_done_completes_with_usage() {
    let (out, flow) = decode(
        0,
        &[
            r#"{"model":"m","message":{"role":"assistant","content":"Hel"},"done":false}"#,
            r#"{"model":"m","message":{"role":"assistant","content":"lo"},"done":false}"#,
            DONE,
        ],
    );
    assert_eq!(flow.unwrap(), Flow::Done);
    assert_eq!(
        out,
        vec![
            StreamItem::TextDelta("Hel".into()),
            StreamItem::TextDelta("lo".into()),
            StreamItem::Completed {
                usage: TokenUsage::new(26, 5),
                stop_reason: StopReason::EndTurn
            }
        ]
    );
}

#[test]
fn tool_calls_get_minted_ids_after_the_history_and_stop_as_tool_use() {
    let calls = r#"{"message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"read_file","arguments":{"path":"a.md"}}},{"function":{"index":1,"name":"list_dir","arguments":{}}}]},"done":false}"#;
    let (out, flow) = decode(3, &[calls, DONE]);
    assert_eq!(flow.unwrap(), Flow::Done);
    let ids: Vec<(&str, &str)> = out
        .iter()
        .filter_map(|i| match i {
            StreamItem::ToolCall(c) => Some((c.call_id.as_str(), c.tool_name.as_str())),
            _ => None,
        })
        .collect();
    assert_eq!(ids, [("call_3", "read_file"), ("call_4", "list_dir")]);
    assert!(matches!(
        out.last(),
        Some(StreamItem::Completed {
            stop_reason: StopReason::ToolUse,
            ..
        })
    ));
    // An id the server gives is kept.
    let given = r#"{"message":{"tool_calls":[{"id":"call_x1","function":{"name":"t","arguments":"{\"a\":1}"}}]},"done":false}"#;
    let (out, _) = decode(0, &[given, DONE]);
    assert!(
        matches!(&out[0], StreamItem::ToolCall(c) if c.call_id.as_str() == "call_x1" && c.arguments["a"] == 1)
    );
}

#[test]
fn length_stop_drops_a_cut_call_and_reports_max_tokens() {
    let bad = r#"{"message":{"tool_calls":[{"function":{"name":"t","arguments":"{\"a\":"}}]},"done":false}"#;
    let end = r#"{"done":true,"done_reason":"length","prompt_eval_count":9,"eval_count":100}"#;
    let (out, flow) = decode(0, &[bad, end]);
    assert_eq!(flow.unwrap(), Flow::Done);
    assert_eq!(
        out,
        vec![StreamItem::Completed {
            usage: TokenUsage::new(9, 100),
            stop_reason: StopReason::MaxTokens
        }]
    );
    let (_, flow) = decode(0, &[bad, DONE]);
    assert!(matches!(flow, Err(ProviderError::InvalidOutput { .. })));
}

#[test]
fn errors_truncation_and_garbage_are_typed() {
    let (out, flow) = decode(
        0,
        &[
            r#"{"message":{"content":"partial"},"done":false}"#,
            r#"{"error":"llama runner process has terminated: sk-secret-1234"}"#,
        ],
    );
    assert_eq!(out, vec![StreamItem::TextDelta("partial".into())]);
    match flow {
        Err(ProviderError::Provider {
            message, status, ..
        }) => {
            assert!(message.contains("llama runner process"), "{message}");
            assert!(!message.contains("sk-secret-1234"), "{message}");
            assert_eq!(status, None);
        }
        other => panic!("{other:?}"),
    }
    let (_, flow) = decode(0, &[r#"{"message":{"content":"a"},"done":false}"#]);
    assert!(matches!(flow, Err(ProviderError::TruncatedStream { .. })));
    let (_, flow) = decode(0, &["not json"]);
    assert!(matches!(flow, Err(ProviderError::Provider { .. })));
    let mut decoder = Decoder::new("ollama", None, 0);
    let cut = decoder.event(UNTERMINATED, r#"{"message":{"cont"#, &mut Vec::new());
    assert!(matches!(cut, Err(ProviderError::TruncatedStream { .. })));
}

fn request() -> ModelRequest {
    let call = ToolCall::new("call_0", "read_file", json!({"path": "a.md"})).unwrap();
    ModelRequest {
        system: "rules".into(),
        history: vec![
            HistoryItem::Message(Message::new(Role::User, "read a")),
            HistoryItem::Message(Message::new(Role::Assistant, "Reading.")),
            HistoryItem::ToolCall(call),
            HistoryItem::ToolResult(ToolResult::new("call_0", "text of a", false).unwrap()),
        ]
        .into(),
        tools: vec![crate::ToolSchema {
            name: "read_file".into(),
            description: "Read a file".into(),
            parameters: json!({"type": "object"}),
        }]
        .into(),
        max_output_tokens: Some(300),
        images: Default::default(),
    }
}

#[test]
fn the_body_carries_num_ctx_tools_and_object_arguments() {
    let settings = BodySettings {
        model: "qwen2.5-coder:1.5b".into(),
        max_output_tokens: 4096,
        context_window: 12_288,
    };
    let body = request_body(&settings, &request());
    assert_eq!(body["stream"], true);
    assert_eq!(
        body["options"],
        json!({"num_ctx": 12288, "num_predict": 300})
    );
    assert_eq!(
        body["tools"][0],
        json!({"type": "function", "function": {"name": "read_file", "description": "Read a file", "parameters": {"type": "object"}}})
    );
    assert_eq!(
        body["messages"],
        json!([
            {"role": "system", "content": "rules"},
            {"role": "user", "content": "read a"},
            {"role": "assistant", "content": "Reading.", "tool_calls": [
                {"id": "call_0", "function": {"name": "read_file", "arguments": {"path": "a.md"}}}
            ]},
            {"role": "tool", "content": "text of a", "tool_name": "read_file", "tool_call_id": "call_0"}
        ])
    );
    assert_eq!(calls_in(&request()), 1);
}
