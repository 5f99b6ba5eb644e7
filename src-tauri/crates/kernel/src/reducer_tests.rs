//! Reducer tests: given these events, then this state (or this rejection).

use super::*;
use crate::event::{ApprovalScope, NewEvent, StopReason};
use crate::ids::{RunId, ToolName, WorkspaceId};
use crate::message::{Action, FinalAnswer, ToolCall, ToolResult};
use crate::testkit::{at, call_id, run_created, valid_run_from_choices};
use serde_json::json;

struct Given {
    run_id: RunId,
    events: Vec<EventEnvelope>,
}

fn given(payloads: Vec<EventPayload>) -> Given {
    let run_id = RunId::new();
    let events = payloads
        .into_iter()
        .enumerate()
        .map(|(i, p)| {
            NewEvent::new(at(i as i64), None, p).into_envelope(run_id, EventSeq(i as u64 + 1))
        })
        .collect();
    Given { run_id, events }
}

impl Given {
    fn state(&self) -> RunProjection {
        fold(&self.events).unwrap().unwrap()
    }
    fn then_applying(&self, payload: EventPayload) -> Result<RunProjection, ReduceError> {
        let state = self.state();
        let ev =
            NewEvent::new(at(999), None, payload).into_envelope(self.run_id, state.last_seq.next());
        apply(Some(&state), &ev)
    }
}

fn started() -> Vec<EventPayload> {
    vec![
        run_created(WorkspaceId::new(), "goal"),
        EventPayload::RunStarted,
    ]
}

fn write_call(n: usize) -> ToolCall {
    ToolCall::new(call_id(n).as_str(), "write_file", json!({"path": "a"})).unwrap()
}

fn model_turn(action: Action, usage: TokenUsage) -> Vec<EventPayload> {
    vec![
        EventPayload::ModelCallRequested {
            context_version: "1".into(),
            context_bytes: 10,
            estimated_tokens: None,
            context_window: None,
            request_digest: None,
        },
        EventPayload::ModelCallStarted {
            provider: "script".into(),
            model: "m".into(),
        },
        EventPayload::ModelCallCompleted {
            action,
            usage,
            stop_reason: StopReason::EndTurn,
            text: String::new(),
            cost_micro_usd: None,
        },
    ]
}

#[test]
fn given_created_and_started_then_running() {
    let state = given(started()).state();
    assert_eq!(state.status, RunStatus::Running);
    assert_eq!(state.last_seq, EventSeq(2));
    assert_eq!(state.goal, "goal");
}

#[test]
fn given_a_tool_turn_and_a_final_answer_then_succeeded_with_totals() {
    let mut events = started();
    events.extend(model_turn(
        Action::one_call(write_call(1)),
        TokenUsage::new(100, 10),
    ));
    events.push(EventPayload::ToolCallRequested {
        call: write_call(1),
        parsed_from_text: None,
    });
    events.push(EventPayload::ToolCallStarted {
        call_id: call_id(1),
    });
    events.push(EventPayload::ToolCallCompleted {
        result: ToolResult::new("call_1", "ok", false).unwrap(),
        receipt: None,
        truncated: false,
        original_bytes: 2,
    });
    events.extend(model_turn(
        Action::FinalAnswer(FinalAnswer {
            content: "done".into(),
        }),
        TokenUsage::new(150, 20),
    ));
    events.push(EventPayload::RunSucceeded {
        answer: "done".into(),
    });
    let state = given(events).state();
    assert_eq!(state.status, RunStatus::Succeeded);
    assert_eq!(state.model_calls, 2);
    assert_eq!(state.tool_calls, 1);
    assert_eq!(state.usage, TokenUsage::new(250, 30));
    assert_eq!(state.final_answer.as_deref(), Some("done"));
    assert!(state.open_tool_calls.is_empty());
}

#[test]
fn given_an_approval_request_then_pending_until_granted() {
    let mut events = started();
    events.extend(model_turn(
        Action::one_call(write_call(1)),
        TokenUsage::default(),
    ));
    events.push(EventPayload::ToolCallRequested {
        call: write_call(1),
        parsed_from_text: None,
    });
    events.push(EventPayload::ApprovalRequested {
        call_id: call_id(1),
        tool_name: ToolName::new("write_file").unwrap(),
        summary: "write a".into(),
    });
    let g = given(events);
    let state = g.state();
    assert_eq!(state.status, RunStatus::AwaitingApproval);
    assert_eq!(state.pending_approval.as_ref().unwrap().call_id, call_id(1));

    // Starting the tool before a decision is impossible.
    assert!(matches!(
        g.then_applying(EventPayload::ToolCallStarted {
            call_id: call_id(1)
        }),
        Err(ReduceError::Invalid { .. })
    ));
    // Granting another call is impossible.
    assert!(g
        .then_applying(EventPayload::ApprovalGranted {
            call_id: call_id(2),
            by: "user".into(),
            scope: ApprovalScope::Once,
            allowed_prefix: None,
            network: false,
        })
        .is_err());
    let granted = g
        .then_applying(EventPayload::ApprovalGranted {
            call_id: call_id(1),
            by: "user".into(),
            scope: ApprovalScope::Once,
            allowed_prefix: None,
            network: false,
        })
        .unwrap();
    assert_eq!(granted.status, RunStatus::Running);
    assert_eq!(granted.pending_approval, None);
}

#[test]
fn given_a_terminal_run_then_lifecycle_events_and_observations_are_rejected_but_reviews_apply() {
    let mut events = started();
    events.push(EventPayload::RunFailed {
        reason: "provider down".into(),
    });
    let g = given(events);
    assert_eq!(
        g.state().status,
        RunStatus::Failed {
            reason: "provider down".into()
        }
    );
    assert!(matches!(
        g.then_applying(EventPayload::RunStarted),
        Err(ReduceError::AfterTerminal {
            status: "failed",
            ..
        })
    ));
    assert!(matches!(
        g.then_applying(EventPayload::RunSucceeded { answer: "x".into() }),
        Err(ReduceError::AfterTerminal { .. })
    ));
    // A change seen after the run ended is not the run's.
    assert!(matches!(
        g.then_applying(EventPayload::ExternalChangeObserved {
            path: "a".into(),
            hash: None,
        }),
        Err(ReduceError::AfterTerminal { .. })
    ));
    let state = g
        .then_applying(EventPayload::ArtifactKept { path: "a".into() })
        .unwrap();
    assert_eq!(state.status.name(), "failed");
}

#[test]
fn given_an_open_model_call_then_success_is_rejected() {
    let mut events = started();
    events.push(EventPayload::ModelCallRequested {
        context_version: "1".into(),
        context_bytes: 1,
        estimated_tokens: None,
        context_window: None,
        request_digest: None,
    });
    let g = given(events);
    assert!(matches!(
        g.then_applying(EventPayload::RunSucceeded { answer: "x".into() }),
        Err(ReduceError::Invalid {
            event: "run_succeeded",
            ..
        })
    ));
}

#[test]
fn given_an_interrupted_approval_then_resuming_restores_the_pending_request() {
    let mut events = started();
    events.extend(model_turn(
        Action::one_call(write_call(1)),
        TokenUsage::default(),
    ));
    events.push(EventPayload::ToolCallRequested {
        call: write_call(1),
        parsed_from_text: None,
    });
    events.push(EventPayload::ApprovalRequested {
        call_id: call_id(1),
        tool_name: ToolName::new("write_file").unwrap(),
        summary: "write a".into(),
    });
    events.push(EventPayload::RunInterrupted {
        reason: "app quit".into(),
    });
    let g = given(events);
    assert_eq!(g.state().status, RunStatus::Interrupted);
    assert!(!g.state().status.is_terminal());
    let resumed = g.then_applying(EventPayload::RunResumed).unwrap();
    assert_eq!(resumed.status, RunStatus::AwaitingApproval);
}

#[test]
fn events_out_of_order_or_for_another_run_are_rejected() {
    let g = given(started());
    let state = g.state();
    let skip = NewEvent::new(at(5), None, EventPayload::RunCancelled { reason: None })
        .into_envelope(g.run_id, EventSeq(5));
    assert_eq!(
        apply(Some(&state), &skip),
        Err(ReduceError::OutOfOrder {
            expected: EventSeq(3),
            got: EventSeq(5)
        })
    );
    let other = NewEvent::new(at(5), None, EventPayload::RunCancelled { reason: None })
        .into_envelope(RunId::new(), EventSeq(3));
    assert!(matches!(
        apply(Some(&state), &other),
        Err(ReduceError::WrongRun { .. })
    ));
}

#[test]
fn a_run_must_begin_with_run_created_at_seq_one() {
    let g = given(vec![EventPayload::RunStarted]);
    assert!(matches!(
        fold(&g.events),
        Err(ReduceError::NotCreated { .. })
    ));
    let g = given(started());
    assert!(matches!(
        g.then_applying(run_created(WorkspaceId::new(), "again")),
        Err(ReduceError::AlreadyCreated { .. })
    ));
}

#[test]
fn failed_model_calls_still_count_their_tokens() {
    let mut events = started();
    events.push(EventPayload::ModelCallRequested {
        context_version: "1".into(),
        context_bytes: 1,
        estimated_tokens: None,
        context_window: None,
        request_digest: None,
    });
    events.push(EventPayload::ModelCallStarted {
        provider: "p".into(),
        model: "m".into(),
    });
    events.push(EventPayload::ModelCallFailed {
        class: crate::event::ModelErrorClass::InvalidOutput,
        message: "not json".into(),
        usage: TokenUsage::new(7, 3),
        cost_micro_usd: None,
    });
    let state = given(events).state();
    assert_eq!(state.usage, TokenUsage::new(7, 3));
    assert_eq!(state.last_error.as_deref(), Some("not json"));
    assert_eq!(state.status, RunStatus::Running);
}

proptest::proptest! {
    #[test]
    fn generated_valid_runs_always_fold(choices in proptest::collection::vec(proptest::num::u8::ANY, 0..40)) {
        let events = valid_run_from_choices(RunId::new(), WorkspaceId::new(), &choices);
        let state = fold(&events).unwrap().unwrap();
        proptest::prop_assert_eq!(state.last_seq, EventSeq(events.len() as u64));
    }
}

#[test]
fn given_a_running_run_when_mcp_servers_report_then_it_keeps_running_but_not_after_its_end() {
    let g = given(started());
    let started_server = EventPayload::McpServerStarted {
        server: "everything".into(),
        server_name: "mcp-servers/everything".into(),
        server_version: "2.0.0".into(),
        protocol_version: "2025-06-18".into(),
        startup_ms: 120,
        tools: vec![crate::McpToolRecord {
            name: "everything__echo".into(),
            tool: "echo".into(),
            title: None,
            description: "Echoes".into(),
            input_schema: serde_json::json!({"type": "object"}),
            read_only_hint: Some(true),
            destructive_hint: None,
        }],
    };
    assert_eq!(
        g.then_applying(started_server.clone()).unwrap().status,
        RunStatus::Running
    );
    let unavailable = EventPayload::McpServerUnavailable {
        server: "broken".into(),
        reason: "command `nope` not found".into(),
    };
    assert_eq!(
        g.then_applying(unavailable.clone()).unwrap().status,
        RunStatus::Running
    );
    let mut ended = started();
    ended.push(EventPayload::RunCancelled { reason: None });
    let g = given(ended);
    assert!(g.then_applying(started_server).is_err());
    assert!(g.then_applying(unavailable).is_err());
}

#[test]
fn given_a_running_run_when_the_context_is_compacted_then_the_call_counts_but_not_mid_call() {
    let compacted = EventPayload::ContextCompacted {
        summary: crate::ContentHash::parse(&"ab".repeat(32)).unwrap(),
        replaced_through_seq: EventSeq(2),
        tokens_before: 9_000,
        tokens_after: 1_200,
        usage: TokenUsage {
            input: 9_000,
            output: 300,
            cached_input: 0,
        },
        cost_micro_usd: None,
    };
    let g = given(started());
    let state = g.then_applying(compacted.clone()).unwrap();
    assert_eq!(state.model_calls, 1);
    assert_eq!(state.usage.input, 9_000);
    assert_eq!(state.status, RunStatus::Running);
    let mut open = started();
    open.push(EventPayload::ModelCallRequested {
        context_version: "v".into(),
        context_bytes: 1,
        estimated_tokens: None,
        context_window: None,
        request_digest: None,
    });
    assert!(given(open).then_applying(compacted.clone()).is_err());
    // By hand, on a finished run: counted, the run stays as it ended.
    let mut ended = started();
    ended.push(EventPayload::RunSucceeded { answer: "a".into() });
    let state = given(ended).then_applying(compacted).unwrap();
    assert_eq!(state.status, RunStatus::Succeeded);
    assert_eq!(state.model_calls, 1);
}

fn task_call(n: usize) -> ToolCall {
    ToolCall::new(
        call_id(n).as_str(),
        "task",
        json!({"description": "d", "prompt": "p"}),
    )
    .unwrap()
}

fn requested_and_started(call: ToolCall) -> Vec<EventPayload> {
    let call_id = call.call_id.clone();
    vec![
        EventPayload::ToolCallRequested {
            call,
            parsed_from_text: None,
        },
        EventPayload::ToolCallStarted { call_id },
    ]
}

#[test]
fn given_started_task_calls_then_the_turns_next_call_may_be_requested_but_no_model_call() {
    let calls = vec![task_call(1), task_call(2), write_call(3)];
    let mut payloads = started();
    payloads.extend(model_turn(
        Action::tool_calls(calls.clone()).unwrap(),
        TokenUsage::default(),
    ));
    payloads.extend(requested_and_started(task_call(1)));
    payloads.extend(requested_and_started(task_call(2)));
    let g = given(payloads.clone());
    assert_eq!(g.state().delegating.len(), 2);
    // The children run while the turn's next call is asked for...
    let next = EventPayload::ToolCallRequested {
        call: write_call(3),
        parsed_from_text: None,
    };
    assert!(g.then_applying(next.clone()).is_ok());
    // ...but the model is not asked again before their results.
    let ask = model_turn(Action::tool_calls(calls).unwrap(), TokenUsage::default());
    assert!(g.then_applying(ask[0].clone()).is_err());
    // An open call of another tool still holds the run.
    payloads.push(next);
    let held = given(payloads);
    let after = EventPayload::ToolCallRequested {
        call: task_call(4),
        parsed_from_text: None,
    };
    assert!(held.then_applying(after).is_err());
    // A result closes the task call.
    let g2 = given({
        let mut p = started();
        p.extend(requested_and_started(task_call(1)));
        p
    });
    let done = EventPayload::ToolCallFailed {
        result: ToolResult {
            call_id: call_id(1),
            content: "helper \"d\" failed".into(),
            is_error: true,
            images: Vec::new(),
        },
    };
    let state = g2.then_applying(done).unwrap();
    assert!(state.delegating.is_empty() && state.open_tool_calls.is_empty());
}
