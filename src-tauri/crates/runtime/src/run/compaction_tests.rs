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
