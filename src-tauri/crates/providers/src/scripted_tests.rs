use super::*;
use crate::complete;
use bearagent_kernel::{Action, FinalAnswer, HistoryItem, Message, Role};
use serde_json::json;

fn request(goal: &str) -> ModelRequest {
    ModelRequest {
        system: "rules".into(),
        history: vec![HistoryItem::Message(Message::new(Role::User, goal))].into(),
        tools: Default::default(),
        max_output_tokens: None,
        images: Default::default(),
    }
}

fn run(p: &ScriptedProvider, goal: &str) -> (Result<crate::ModelResponse, ProviderError>, String) {
    let mut seen = String::new();
    let r = futures::executor::block_on(complete(p, request(goal), |progress| {
        if let crate::Progress::TextDelta(d) = progress {
            seen.push_str(d)
        }
    }));
    (r, seen)
}

#[test]
fn steps_play_in_order_and_calls_are_recorded() {
    let p = ScriptedProvider::from_json(
        &json!([
            {"text": "Let me look. ", "tool_call": {"tool_name": "read_file", "arguments": {"path": "a"}}},
            {"final_answer": "All done here", "usage": {"input": 10, "output": 3}}
        ])
        .to_string(),
    )
    .unwrap();
    let (first, seen) = run(&p, "one");
    let first = first.unwrap();
    assert!(matches!(first.action.calls(), [c] if c.call_id.as_str() == "script_call_1"));
    assert_eq!(seen, "Let me look. ");
    let (second, seen) = run(&p, "two");
    let second = second.unwrap();
    assert_eq!(
        second.action,
        Action::FinalAnswer(FinalAnswer {
            content: "All done here".into()
        })
    );
    assert_eq!(second.usage, TokenUsage::new(10, 3));
    assert_eq!(seen, "All done here");
    let calls = p.calls();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[1], request("two"));
}

#[test]
fn running_out_is_an_error_never_an_answer() {
    let p = ScriptedProvider::new(vec![]);
    let (r, _) = run(&p, "x");
    assert_eq!(r.unwrap_err(), ProviderError::ScriptExhausted { calls: 0 });
}

#[test]
fn raw_text_is_parsed_strictly_and_invalid_output_carries_usage() {
    let p = ScriptedProvider::from_json(
        &json!([
            {"raw_text": "sure! here is my answer", "usage": {"input": 5, "output": 7}},
            {"raw_text": "{\"type\":\"final_answer\",\"content\":\"ok\"}"}
        ])
        .to_string(),
    )
    .unwrap();
    let (r, _) = run(&p, "x");
    match r.unwrap_err() {
        ProviderError::InvalidOutput { usage, message } => {
            assert_eq!(usage, TokenUsage::new(5, 7));
            assert!(message.contains("not valid JSON"));
        }
        other => panic!("{other:?}"),
    }
    let (r, _) = run(&p, "x");
    assert_eq!(
        r.unwrap().action,
        Action::FinalAnswer(FinalAnswer {
            content: "ok".into()
        })
    );
}

#[test]
fn a_truncated_stream_is_never_a_completion() {
    let p = ScriptedProvider::from_json(
        &json!([{"text": "half a thou", "truncate": true}]).to_string(),
    )
    .unwrap();
    let (r, seen) = run(&p, "x");
    assert!(matches!(r, Err(ProviderError::TruncatedStream { .. })));
    assert_eq!(seen, "half a thou");
}

#[test]
fn provider_errors_keep_their_retryable_flag() {
    let p = ScriptedProvider::from_json(
        &json!([{"error": {"message": "overloaded", "retryable": true}}]).to_string(),
    )
    .unwrap();
    let (r, _) = run(&p, "x");
    let e = r.unwrap_err();
    assert_eq!(
        e.class(),
        bearagent_kernel::ModelErrorClass::Provider { retryable: true }
    );
}

#[test]
fn malformed_scripts_are_rejected_with_the_step_number() {
    let both = json!([{"final_answer": "a"}, {"final_answer": "b", "raw_text": "c"}]).to_string();
    assert!(ScriptedProvider::from_json(&both)
        .unwrap_err()
        .contains("step 2"));
    let unknown = json!([{"final_answr": "a"}]).to_string();
    assert!(ScriptedProvider::from_json(&unknown).is_err());
    let wrapped = json!({"model": "demo", "steps": [{"final_answer": "a"}]}).to_string();
    assert_eq!(
        ScriptedProvider::from_json(&wrapped).unwrap().info().model,
        "demo"
    );
}

#[test]
fn an_after_error_alternative_plays_when_the_last_result_was_an_error() {
    let script = json!([
        {"final_answer": "it worked", "after_error": {"final_answer": "it was refused"}}
    ])
    .to_string();
    let mut req = request("x");
    std::sync::Arc::make_mut(&mut req.history).push(HistoryItem::ToolResult(
        bearagent_kernel::ToolResult::new("c1", "denied", true).unwrap(),
    ));
    let p = ScriptedProvider::from_json(&script).unwrap();
    let r = futures::executor::block_on(complete(&p, req, |_| {})).unwrap();
    assert_eq!(
        r.action,
        Action::FinalAnswer(FinalAnswer {
            content: "it was refused".into()
        })
    );
    let p = ScriptedProvider::from_json(&script).unwrap();
    let r = futures::executor::block_on(complete(&p, request("x"), |_| {})).unwrap();
    assert_eq!(
        r.action,
        Action::FinalAnswer(FinalAnswer {
            content: "it worked".into()
        })
    );
}

#[test]
fn skipping_resumes_a_script_part_way() {
    let p = ScriptedProvider::from_json(
        &json!([{"final_answer": "one"}, {"final_answer": "two"}]).to_string(),
    )
    .unwrap();
    p.skip(1);
    let (r, _) = run(&p, "x");
    assert_eq!(
        r.unwrap().action,
        Action::FinalAnswer(FinalAnswer {
            content: "two".into()
        })
    );
}

#[test]
fn a_turn_of_several_calls_keeps_their_order_and_a_repeated_id_is_invalid_output() {
    let p = ScriptedProvider::from_json(
        &json!([
            {"tool_calls": [
                {"tool_name": "read_file", "arguments": {"path": "a"}},
                {"tool_name": "list_dir", "arguments": {}}
            ]},
            {"usage": {"input": 4, "output": 2}, "tool_calls": [
                {"call_id": "same", "tool_name": "read_file", "arguments": {}},
                {"call_id": "same", "tool_name": "list_dir", "arguments": {}}
            ]}
        ])
        .to_string(),
    )
    .unwrap();
    let (first, _) = run(&p, "one");
    let ids: Vec<String> = first
        .unwrap()
        .action
        .calls()
        .iter()
        .map(|c| c.call_id.to_string())
        .collect();
    assert_eq!(ids, ["script_call_1_1", "script_call_1_2"]);
    let (second, _) = run(&p, "two");
    match second {
        Err(ProviderError::InvalidOutput { message, usage }) => {
            assert!(message.contains("more than once"), "{message}");
            assert_eq!(usage.input, 4);
        }
        other => panic!("{other:?}"),
    }
}
