//! The fixture's text-calls run: a small model prints its tool call as
//! text (taken as the call it meant, marked with its dialect), then prints
//! one naming no known tool (invalid output, fed back), and the run goes
//! on in JSON-text mode.

use super::{answer, call, completed, created, requested, result, started, usage};
use bearagent_kernel::event::ModelErrorClass;
use bearagent_kernel::{Action, ApprovalMode, EventPayload, TextCallDialect, TokenUsage, ToolMode};
use serde_json::json;

pub fn text_calls_run() -> Vec<EventPayload> {
    let read = call(1, "read_file", json!({"path": "question.txt"}));
    vec![
        created("answer question.txt", ApprovalMode::AllowAll, None, None),
        EventPayload::RunStarted,
        requested(),
        started(),
        completed(Action::one_call(read.clone()), usage(300, 20, 0), None),
        EventPayload::ToolCallRequested {
            call: read,
            parsed_from_text: Some(TextCallDialect::FencedJson),
        },
        EventPayload::ToolCallStarted {
            call_id: super::id(1),
        },
        EventPayload::ToolCallCompleted {
            result: result(1, "What is 6 x 7?", false),
            receipt: None,
            truncated: false,
            original_bytes: 14,
        },
        requested(),
        started(),
        EventPayload::ModelCallFailed {
            class: ModelErrorClass::InvalidOutput,
            message: "the reply calls `answer`, which is not a tool".into(),
            usage: TokenUsage::new(340, 15),
            cost_micro_usd: None,
        },
        EventPayload::ToolModeSwitched {
            from: ToolMode::Native,
            to: ToolMode::JsonText,
            reason: "the model wrote tool calls as text twice".into(),
        },
        requested(),
        started(),
        completed(answer("42"), usage(400, 10, 0), None),
        EventPayload::RunSucceeded {
            answer: "42".into(),
        },
    ]
}
