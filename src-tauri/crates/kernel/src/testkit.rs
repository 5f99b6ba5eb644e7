//! Builders for valid event sequences, for tests of this crate and of the
//! crates above it (feature `test-support`). Test code: panics on impossible input.
#![allow(clippy::expect_used)]

use crate::budget::{BudgetKind, Budgets, TokenUsage};
use crate::clock::Timestamp;
use crate::event::{ApprovalScope, EventEnvelope, EventPayload, NewEvent, StopReason};
use crate::ids::{CallId, EventSeq, RunId, ToolName, WorkspaceId};
use crate::message::{Action, FinalAnswer, ToolCall, ToolResult};
use serde_json::json;
use std::collections::BTreeMap;

pub fn at(ms: i64) -> Timestamp {
    Timestamp::from_unix_millis(1_800_000_000_000 + ms).expect("representable test time")
}

pub fn run_created(workspace_id: WorkspaceId, goal: &str) -> EventPayload {
    EventPayload::RunCreated {
        goal: goal.to_owned(),
        workspace_id,
        workspace_path: "/tmp/workspace".to_owned(),
        profile: "default".to_owned(),
        budgets: Budgets::default(),
        approval_mode: crate::ApprovalMode::AskWrites,
        context_caps: crate::ContextCaps::default(),
        max_invalid_outputs: 2,
        max_repeated_calls: crate::DEFAULT_MAX_REPEATED_CALLS,
        provider: "script".to_owned(),
        model: "scripted".to_owned(),
        config_versions: BTreeMap::from([("context".to_owned(), "1".to_owned())]),
        price: None,
        commands: Default::default(),
        mcp_rules: Default::default(),
        parent: None,
        delegated_by: None,
        delegation: None,
        images: Vec::new(),
        worktree: None,
        plan_mode: false,
        learned: None,
        web_rules: Vec::new(),
    }
}

/// `payloads` as one new run's events, seq 1, 2, … one millisecond apart.
pub fn envelopes(payloads: Vec<EventPayload>) -> Vec<EventEnvelope> {
    let run = RunId::new();
    payloads
        .into_iter()
        .enumerate()
        .map(|(i, p)| {
            NewEvent::new(at(i as i64), None, p).into_envelope(run, EventSeq(i as u64 + 1))
        })
        .collect()
}

pub fn call_id(n: usize) -> CallId {
    CallId::new(format!("call_{n}")).expect("non-blank call id")
}

fn tool_name() -> ToolName {
    ToolName::new("write_file").expect("non-blank tool name")
}

/// Turns arbitrary bytes into a valid run: each byte picks the next step.
/// Used by property tests that need many different but legal histories.
pub fn valid_run_from_choices(
    run_id: RunId,
    workspace_id: WorkspaceId,
    choices: &[u8],
) -> Vec<EventEnvelope> {
    let mut payloads = vec![
        run_created(workspace_id, "property goal"),
        EventPayload::RunStarted,
    ];
    let mut ended = false;
    for (n, choice) in choices.iter().enumerate() {
        let usage = TokenUsage::new(u64::from(*choice) * 3, u64::from(*choice));
        payloads.push(EventPayload::ModelCallRequested {
            context_version: "1".into(),
            context_bytes: 100,
            estimated_tokens: None,
            context_window: None,
            request_digest: None,
        });
        payloads.push(EventPayload::ModelCallStarted {
            provider: "script".into(),
            model: "fake".into(),
        });
        let id = call_id(n);
        let call = ToolCall {
            call_id: id.clone(),
            tool_name: tool_name(),
            arguments: json!({"path": "a.txt"})
                .as_object()
                .cloned()
                .expect("object"),
        };
        let result = |content: &str, is_error: bool| ToolResult {
            call_id: id.clone(),
            content: content.to_owned(),
            is_error,
            images: Vec::new(),
        };
        match choice % 6 {
            0 | 1 => {
                payloads.push(EventPayload::ModelCallCompleted {
                    action: Action::one_call(call.clone()),
                    usage,
                    stop_reason: StopReason::ToolUse,
                    text: String::new(),
                    cost_micro_usd: None,
                });
                payloads.push(EventPayload::ToolCallRequested {
                    call,
                    parsed_from_text: None,
                });
                payloads.push(EventPayload::ToolCallStarted {
                    call_id: id.clone(),
                });
                payloads.push(EventPayload::ToolCallCompleted {
                    result: result("ok", false),
                    receipt: None,
                    truncated: false,
                    original_bytes: 2,
                });
            }
            2 => {
                payloads.push(EventPayload::ModelCallCompleted {
                    action: Action::one_call(call.clone()),
                    usage,
                    stop_reason: StopReason::ToolUse,
                    text: String::new(),
                    cost_micro_usd: None,
                });
                payloads.push(EventPayload::ToolCallRequested {
                    call,
                    parsed_from_text: None,
                });
                payloads.push(EventPayload::ApprovalRequested {
                    call_id: id.clone(),
                    tool_name: tool_name(),
                    summary: "write a.txt".into(),
                });
                if choice % 4 == 0 {
                    payloads.push(EventPayload::ApprovalDenied {
                        call_id: id.clone(),
                        by: "user".into(),
                        scope: ApprovalScope::Once,
                        reason: Some("no".into()),
                    });
                    payloads.push(EventPayload::ToolCallFailed {
                        result: result("denied", true),
                    });
                } else {
                    payloads.push(EventPayload::ApprovalGranted {
                        call_id: id.clone(),
                        by: "user".into(),
                        scope: ApprovalScope::Once,
                        allowed_prefix: None,
                        network: false,
                    });
                    payloads.push(EventPayload::ToolCallStarted {
                        call_id: id.clone(),
                    });
                    payloads.push(EventPayload::ToolCallCompleted {
                        result: result("written", false),
                        receipt: None,
                        truncated: false,
                        original_bytes: 7,
                    });
                }
            }
            3 => payloads.push(EventPayload::ModelCallFailed {
                class: crate::event::ModelErrorClass::InvalidOutput,
                message: "not json".into(),
                usage,
                cost_micro_usd: None,
            }),
            4 => {
                payloads.push(EventPayload::ModelCallCompleted {
                    action: Action::FinalAnswer(FinalAnswer {
                        content: "done".into(),
                    }),
                    usage,
                    stop_reason: StopReason::EndTurn,
                    text: "done".into(),
                    cost_micro_usd: None,
                });
                payloads.push(EventPayload::RunSucceeded {
                    answer: "done".into(),
                });
                ended = true;
            }
            _ => {
                payloads.push(EventPayload::ModelCallCompleted {
                    action: Action::one_call(call),
                    usage,
                    stop_reason: StopReason::ToolUse,
                    text: String::new(),
                    cost_micro_usd: None,
                });
                payloads.push(EventPayload::BudgetExhausted {
                    which: BudgetKind::ToolCalls,
                });
                ended = true;
            }
        }
        if ended {
            break;
        }
    }
    payloads
        .into_iter()
        .enumerate()
        .map(|(i, payload)| {
            let seq = EventSeq(i as u64 + 1);
            let cause = (i > 0).then_some(EventSeq(i as u64));
            NewEvent::new(at(i as i64 * 10), cause, payload).into_envelope(run_id, seq)
        })
        .collect()
}
