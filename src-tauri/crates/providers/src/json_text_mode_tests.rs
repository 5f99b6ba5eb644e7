//! Given a plain chat model (scripted: it only writes text), when it is
//! spoken to in JSON-text mode, then its JSON replies become actions.

use super::*;
use crate::{complete, ScriptedProvider, ToolSchema};
use bearagent_kernel::{Message, Role, ToolCall, ToolResult};
use serde_json::json;

fn chat_model(replies: &[&str]) -> Arc<ScriptedProvider> {
    let steps: Vec<_> = replies
        .iter()
        .map(|r| json!({"final_answer": r, "usage": {"input": 30, "output": 9}}))
        .collect();
    Arc::new(ScriptedProvider::from_json(&json!(steps).to_string()).unwrap())
}

fn request() -> ModelRequest {
    let call = ToolCall::new("c1", "read_file", json!({"path": "a.md"})).unwrap();
    ModelRequest {
        system: "You are BearAgent.".into(),
        history: vec![
            HistoryItem::Message(Message::new(Role::User, "summarise a.md")),
            HistoryItem::ToolCall(call.clone()),
            HistoryItem::ToolResult(ToolResult {
                call_id: call.call_id,
                content: "hello".into(),
                is_error: false,
                images: Vec::new(),
            }),
        ]
        .into(),
        tools: vec![ToolSchema {
            name: "read_file".into(),
            description: "Read a file.".into(),
            parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
        }]
        .into(),
        max_output_tokens: None,
        images: Default::default(),
    }
}

#[tokio::test]
async fn a_json_tool_call_reply_becomes_the_call_and_the_request_has_no_native_tools() {
    let model = chat_model(&[
        r#"{"type":"tool_call","call_id":"c2","tool_name":"read_file","arguments":{"path":"b.md"}}"#,
    ]);
    let provider = json_text_provider(model.clone());
    let response = complete(provider.as_ref(), request(), |_| {})
        .await
        .unwrap();
    let [call] = response.action.calls() else {
        panic!("expected a tool call, got {:?}", response.action);
    };
    let call = call.clone();
    assert_eq!(call.call_id.as_str(), "c2");
    assert_eq!(
        serde_json::Value::Object(call.arguments),
        json!({"path": "b.md"})
    );
    assert_eq!(response.text, "");
    assert_eq!(response.usage.input, 30);

    let sent = &model.calls()[0];
    assert!(sent.tools.is_empty());
    assert!(sent.system.starts_with("You are BearAgent."));
    assert!(sent.system.contains("## read_file"));
    assert!(sent.system.contains(PROTOCOL_INSTRUCTIONS));
    // The call and its result travel as plain messages, ids kept.
    let texts: Vec<String> = sent
        .history
        .iter()
        .map(|h| match h {
            HistoryItem::Message(m) => format!("{:?}:{}", m.role, m.content),
            other => panic!("not a plain message: {other:?}"),
        })
        .collect();
    assert!(texts[1].starts_with("Assistant:") && texts[1].contains(r#""type":"tool_call""#));
    assert!(texts[2].starts_with("User:") && texts[2].contains(r#""call_id":"c1""#));
}

#[tokio::test]
async fn a_final_answer_reply_is_the_answer_text_not_the_json() {
    let provider = json_text_provider(chat_model(&[
        r#"{"type":"final_answer","content":"a.md says hello"}"#,
    ]));
    let mut live = String::new();
    let response = complete(provider.as_ref(), request(), |p| {
        if let crate::Progress::TextDelta(t) = p {
            live.push_str(t);
        }
    })
    .await
    .unwrap();
    assert_eq!(
        response.action,
        Action::FinalAnswer(bearagent_kernel::FinalAnswer {
            content: "a.md says hello".into()
        })
    );
    assert_eq!(response.text, "a.md says hello");
    // The raw reply still streamed live.
    assert!(live.contains("final_answer"));
}

#[tokio::test]
async fn prose_is_invalid_output_that_tells_the_model_the_format_and_keeps_the_usage() {
    let provider = json_text_provider(chat_model(&["Sure! I will read the file now."]));
    let err = complete(provider.as_ref(), request(), |_| {})
        .await
        .unwrap_err();
    let ProviderError::InvalidOutput { message, usage } = err else {
        panic!("expected invalid output, got {err:?}");
    };
    assert!(message.contains("not valid JSON"), "{message}");
    assert!(
        message.contains("Sure! I will read the file now."),
        "{message}"
    );
    assert!(message.contains(PROTOCOL_INSTRUCTIONS));
    assert_eq!(usage.input, 30);
}

#[test]
fn tool_modes_parse_and_print() {
    assert_eq!("json-text".parse::<ToolMode>(), Ok(ToolMode::JsonText));
    assert_eq!(" native ".parse::<ToolMode>(), Ok(ToolMode::Native));
    assert!("xml".parse::<ToolMode>().is_err());
    assert_eq!(ToolMode::JsonText.to_string(), "json-text");
    assert_eq!(
        serde_json::to_value(ToolMode::JsonText).unwrap(),
        json!("json-text")
    );
}

#[test]
fn a_long_invalid_reply_is_kept_cut_at_a_character_boundary() {
    let reply = "é".repeat(3000);
    let kept = capped(&reply, MAX_KEPT_REPLY);
    assert!(kept.len() <= MAX_KEPT_REPLY && kept.len() >= MAX_KEPT_REPLY - 1);
    assert!(kept.chars().all(|c| c == 'é'));
}
