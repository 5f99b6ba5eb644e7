use super::*;
use bearagent_kernel::testkit::{envelopes, run_created};
use bearagent_kernel::{StopReason, TokenUsage, WorkspaceId};

#[test]
fn without_reported_usage_a_token_is_three_bytes_and_a_report_calibrates_it() {
    let fresh = envelopes(vec![run_created(WorkspaceId::new(), "g")]);
    assert_eq!(estimate_tokens(&fresh, 3_000), 1_000);
    let reported = envelopes(vec![
        run_created(WorkspaceId::new(), "g"),
        EventPayload::RunStarted,
        EventPayload::ModelCallRequested {
            context_version: "v".into(),
            context_bytes: 4_000,
            estimated_tokens: None,
            context_window: None,
            request_digest: None,
        },
        EventPayload::ModelCallStarted {
            provider: "p".into(),
            model: "m".into(),
        },
        EventPayload::ModelCallCompleted {
            action: bearagent_kernel::Action::FinalAnswer(bearagent_kernel::FinalAnswer {
                content: "a".into(),
            }),
            usage: TokenUsage {
                input: 1_000,
                output: 1,
                cached_input: 0,
            },
            stop_reason: StopReason::EndTurn,
            text: "a".into(),
            cost_micro_usd: None,
        },
    ]);
    // 1 000 tokens for 4 000 bytes: a quarter token per byte.
    assert_eq!(estimate_tokens(&reported, 8_000), 2_000);
}

fn requested(bytes: u64) -> EventPayload {
    EventPayload::ModelCallRequested {
        context_version: "v".into(),
        context_bytes: bytes,
        estimated_tokens: None,
        context_window: None,
        request_digest: None,
    }
}

fn answered(input: u64) -> EventPayload {
    EventPayload::ModelCallCompleted {
        action: bearagent_kernel::Action::FinalAnswer(bearagent_kernel::FinalAnswer {
            content: "a".into(),
        }),
        usage: TokenUsage {
            input,
            output: 1,
            cached_input: 0,
        },
        stop_reason: StopReason::EndTurn,
        text: "a".into(),
        cost_micro_usd: None,
    }
}

#[test]
fn the_calibration_is_the_latest_call_with_both_its_bytes_and_its_reported_input() {
    let events = envelopes(vec![
        run_created(WorkspaceId::new(), "g"),
        requested(4_000),
        answered(1_000),
        // Not calibrating: a request of no bytes, then a call that did not report.
        requested(0),
        answered(300),
        requested(8_000),
        answered(0),
    ]);
    assert_eq!(estimate_tokens(&events, 8_000), 2_000);
    // Two completions after one request: the later one counts.
    let events = envelopes(vec![
        run_created(WorkspaceId::new(), "g"),
        requested(4_000),
        answered(1_000),
        answered(2_000),
    ]);
    assert_eq!(estimate_tokens(&events, 8_000), 4_000);
    // A report before any request calibrates nothing.
    let events = envelopes(vec![run_created(WorkspaceId::new(), "g"), answered(10)]);
    assert_eq!(estimate_tokens(&events, 3_000), 1_000);
}

#[test]
fn the_newest_turn_stays_verbatim_unless_it_is_too_large() {
    let call = bearagent_kernel::ToolCall::new("c1", "read_file", serde_json::json!({"path": "a"}))
        .unwrap();
    let turn = |content: &str| {
        envelopes(vec![
            run_created(WorkspaceId::new(), "g"),
            EventPayload::RunStarted,
            EventPayload::ModelCallCompleted {
                action: bearagent_kernel::Action::ToolCalls {
                    calls: vec![call.clone()],
                },
                usage: TokenUsage::default(),
                stop_reason: StopReason::ToolUse,
                text: String::new(),
                cost_micro_usd: None,
            },
            EventPayload::ToolCallCompleted {
                result: bearagent_kernel::ToolResult::new("c1", content, false).unwrap(),
                receipt: None,
                truncated: false,
                original_bytes: content.len() as u64,
            },
        ])
    };
    assert_eq!(replaced_through(&turn("small"), 10_000), EventSeq(2));
    assert_eq!(
        replaced_through(&turn(&"x".repeat(30_000)), 10_000),
        EventSeq(4)
    );
}
