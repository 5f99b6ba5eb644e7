//! Model turns through the application API: several calls in one turn,
//! "deny the rest", and loop detection. Given a scripted model, when the
//! user decides, then these events.

use super::tests::{fixture, next_approval, start, start_recorded, types};
use super::*;
use bearagent_kernel::EventSeq;
use bearagent_kernel::{ApprovalScope, HistoryItem, RunStatus};
use bearagent_tools::ApprovalMode;
use serde_json::json;

fn read(path: &str) -> serde_json::Value {
    json!({"tool_call": {"tool_name": "read_file", "arguments": {"path": path}}})
}

#[tokio::test]
async fn a_model_repeating_the_same_call_is_stopped_after_three_and_then_the_user_decides() {
    let f = fixture();
    std::fs::write(f.ws.path().join("a.txt"), "same").unwrap();
    let mut rx = f.app.subscribe();
    let steps = json!([
        read("a.txt"),
        read("a.txt"),
        read("a.txt"),
        read("a.txt"),
        read("a.txt"),
        read("a.txt"),
        {"final_answer": "done"}
    ]);
    let run = start(&f, steps, ApprovalMode::AskWrites);
    // The 5th identical call pauses the run for the user.
    let call = next_approval(&mut rx).await;
    let t = types(&f.app, run);
    assert_eq!(t.iter().filter(|t| **t == "tool_call_completed").count(), 3);
    assert_eq!(t.iter().filter(|t| **t == "loop_detected").count(), 1);
    let p = f.app.get_run(run).unwrap();
    assert_eq!(p.loops_detected, 1);
    assert!(p
        .pending_approval
        .as_ref()
        .unwrap()
        .summary
        .contains("keeps repeating"));
    let go_on = Decision {
        approve: true,
        scope: ApprovalScope::Once,
        reason: None,
        by: "user".into(),
        allow_prefix: None,
        network: false,
    };
    f.app.decide_approval(run, &call, go_on).unwrap();
    let p = f.app.wait_run(run).await.unwrap();
    assert_eq!(p.status, RunStatus::Succeeded);
    // 3 + the one the user let through + the next (a fresh count).
    let t = types(&f.app, run);
    assert_eq!(t.iter().filter(|t| **t == "tool_call_completed").count(), 5);
    // The model was told why its 4th call did not run.
    let events = f.app.list_events(run, EventSeq(0), 1000).unwrap();
    let refusal = events.iter().find_map(|e| {
        if let EventPayload::ToolCallFailed { result } = &e.payload {
            result
                .content
                .contains("not executed")
                .then(|| result.content.clone())
        } else {
            None
        }
    });
    assert!(refusal.unwrap().contains("3 times in a row"));
}

#[tokio::test]
async fn denying_a_repeating_agent_ends_the_run_failed() {
    let f = fixture();
    std::fs::write(f.ws.path().join("a.txt"), "same").unwrap();
    let mut rx = f.app.subscribe();
    let steps: Vec<_> = (0..5).map(|_| read("a.txt")).collect();
    let run = start(&f, json!(steps), ApprovalMode::AskWrites);
    let call = next_approval(&mut rx).await;
    let stop = Decision {
        approve: false,
        scope: ApprovalScope::Once,
        reason: None,
        by: "user".into(),
        allow_prefix: None,
        network: false,
    };
    f.app.decide_approval(run, &call, stop).unwrap();
    let p = f.app.wait_run(run).await.unwrap();
    assert!(
        matches!(&p.status, RunStatus::Failed { reason } if reason.contains("kept repeating")),
        "{:?}",
        p.status
    );
    assert_eq!(
        types(&f.app, run)
            .iter()
            .filter(|t| **t == "tool_call_completed")
            .count(),
        3
    );
}

#[tokio::test]
async fn a_turn_of_several_calls_runs_each_in_order_and_the_model_sees_every_result() {
    let f = fixture();
    std::fs::write(f.ws.path().join("a.txt"), "A").unwrap();
    std::fs::write(f.ws.path().join("c.txt"), "C").unwrap();
    let mut rx = f.app.subscribe();
    let (run, recorder) = start_recorded(
        &f,
        json!([
            {"text": "Three things at once.", "tool_calls": [
                {"call_id": "t1", "tool_name": "read_file", "arguments": {"path": "a.txt"}},
                {"call_id": "t2", "tool_name": "write_file", "arguments": {"path": "b.txt", "content": "B"}},
                {"call_id": "t3", "tool_name": "read_file", "arguments": {"path": "c.txt"}}
            ]},
            {"final_answer": "done"}
        ]),
        ApprovalMode::AskWrites,
    );
    // The write in the middle asks; its denial does not skip the third call.
    let call = next_approval(&mut rx).await;
    assert_eq!(call, "t2");
    let deny = Decision {
        approve: false,
        scope: ApprovalScope::Once,
        reason: Some("not now".into()),
        by: "user".into(),
        allow_prefix: None,
        network: false,
    };
    f.app.decide_approval(run, &call, deny).unwrap();
    let p = f.app.wait_run(run).await.unwrap();
    assert_eq!(p.status, RunStatus::Succeeded);
    assert_eq!(p.tool_calls, 2);
    assert!(!f.ws.path().join("b.txt").exists());

    // The next request carries the model's narration, all three calls,
    // then all three results.
    let second = &recorder.calls()[1];
    let shape: Vec<String> = second
        .history
        .iter()
        .map(|h| match h {
            HistoryItem::Message(m) => format!("{:?}", m.role),
            HistoryItem::ToolCall(c) => format!("call {}", c.call_id),
            HistoryItem::ToolResult(r) => format!("result {} {}", r.call_id, r.is_error),
        })
        .collect();
    assert_eq!(
        shape,
        [
            "User",
            "Assistant",
            "call t1",
            "call t2",
            "call t3",
            "result t1 false",
            "result t2 true",
            "result t3 false"
        ]
    );
    // "What the model saw" rebuilds exactly that from events.
    let events = f.app.list_events(run, EventSeq(0), 1000).unwrap();
    let second_request = events
        .iter()
        .filter(|e| matches!(e.payload, EventPayload::ModelCallRequested { .. }))
        .nth(1)
        .unwrap()
        .seq;
    let saw = f.app.model_context(run, second_request).unwrap();
    assert_eq!(saw.request.history, second.history);
}

fn writes_turn(paths: &[&str]) -> serde_json::Value {
    let calls: Vec<_> = paths
        .iter()
        .map(|p| json!({"call_id": format!("w-{p}"), "tool_name": "write_file", "arguments": {"path": p, "content": "x"}}))
        .collect();
    json!({"tool_calls": calls})
}

#[tokio::test]
async fn denying_the_rest_of_a_turn_answers_its_remaining_calls_without_asking() {
    let f = fixture();
    let mut rx = f.app.subscribe();
    let run = start(
        &f,
        json!([writes_turn(&["a.txt", "b.txt", "c.txt"]), {"final_answer": "ok"}]),
        ApprovalMode::AskWrites,
    );
    let call = next_approval(&mut rx).await;
    let deny_rest = Decision {
        approve: false,
        scope: ApprovalScope::RestOfTurn,
        reason: None,
        by: "user".into(),
        allow_prefix: None,
        network: false,
    };
    f.app.decide_approval(run, &call, deny_rest).unwrap();
    let p = f.app.wait_run(run).await.unwrap();
    assert_eq!(p.status, RunStatus::Succeeded);
    let t = types(&f.app, run);
    assert_eq!(t.iter().filter(|t| **t == "approval_requested").count(), 1);
    assert_eq!(t.iter().filter(|t| **t == "tool_call_failed").count(), 3);
    for file in ["a.txt", "b.txt", "c.txt"] {
        assert!(!f.ws.path().join(file).exists());
    }
}

fn priced_start(
    f: &super::tests::Fixture,
    steps: serde_json::Value,
    price: Option<bearagent_kernel::Price>,
    max_cost_micro_usd: Option<u64>,
) -> Result<RunId, AppError> {
    let mut provider =
        bearagent_providers::ScriptedProvider::from_json(&steps.to_string()).unwrap();
    if let Some(price) = price {
        provider = provider.with_price(price);
    }
    let mut profile = RunProfile {
        approval_mode: ApprovalMode::AllowAll,
        ..RunProfile::default()
    };
    profile.budgets.max_cost_micro_usd = max_cost_micro_usd;
    f.app.start_run(StartRun {
        workspace: f.ws.path().display().to_string(),
        goal: "goal".into(),
        profile,
        provider: std::sync::Arc::new(provider),
        images: Vec::new(),
    })
}

fn used(input: u64, output: u64) -> serde_json::Value {
    json!({"input": input, "output": output})
}

#[tokio::test]
async fn each_model_call_is_costed_on_its_event_and_the_run_totals_it() {
    let f = fixture();
    std::fs::write(f.ws.path().join("a.txt"), "a").unwrap();
    // $2 / $10 per million tokens.
    let price = bearagent_kernel::Price::from_usd_per_mtok(2.0, 10.0, None).unwrap();
    let steps = json!([
        {"tool_call": {"tool_name": "read_file", "arguments": {"path": "a.txt"}}, "usage": used(1000, 100)},
        {"final_answer": "done", "usage": used(2000, 50)}
    ]);
    let run = priced_start(&f, steps, Some(price), None).unwrap();
    let p = f.app.wait_run(run).await.unwrap();
    assert_eq!(p.status, RunStatus::Succeeded);
    // 1000×2 + 100×10 = 3000 µ$; 2000×2 + 50×10 = 4500 µ$.
    let costs: Vec<Option<u64>> = f
        .app
        .list_events(run, EventSeq(0), 1000)
        .unwrap()
        .into_iter()
        .filter_map(|e| {
            if let EventPayload::ModelCallCompleted { cost_micro_usd, .. } = e.payload {
                Some(cost_micro_usd)
            } else {
                None
            }
        })
        .collect();
    assert_eq!(costs, [Some(3000), Some(4500)]);
    assert_eq!(p.cost_micro_usd, Some(7500));
    assert_eq!(p.price, Some(price));
}

#[tokio::test]
async fn without_a_price_the_cost_is_unknown_not_zero() {
    let f = fixture();
    let run = priced_start(&f, json!([{"final_answer": "done"}]), None, None).unwrap();
    let p = f.app.wait_run(run).await.unwrap();
    assert_eq!(p.status, RunStatus::Succeeded);
    assert_eq!(p.cost_micro_usd, None);
    // A cost limit without a price cannot be enforced: refused up front.
    let err = priced_start(&f, json!([{"final_answer": "done"}]), None, Some(1000)).unwrap_err();
    assert!(err.to_string().contains("needs a price"), "{err}");
}

#[tokio::test]
async fn the_cost_limit_stops_the_run_before_a_call_that_could_pass_it() {
    let f = fixture();
    std::fs::write(f.ws.path().join("a.txt"), "a").unwrap();
    // $1 per million either way: 1 µ$ per token.
    let price = bearagent_kernel::Price::from_usd_per_mtok(1.0, 1.0, None).unwrap();
    let mut steps: Vec<_> = (0..20)
        .map(|i| {
            json!({"tool_call": {"tool_name": "read_file", "arguments": {"path": "a.txt", "offset": i}},
                   "usage": used(50_000, 10_000)})
        })
        .collect();
    steps.push(json!({"final_answer": "done"}));
    // Each call spends 60 000 µ$; the worst case of a call is the prompt
    // estimate plus the rest of the output-token budget (200 000 tokens).
    let cap = 500_000;
    let run = priced_start(&f, json!(steps), Some(price), Some(cap)).unwrap();
    let p = f.app.wait_run(run).await.unwrap();
    assert_eq!(
        p.status,
        RunStatus::BudgetExhausted {
            which: bearagent_kernel::BudgetKind::Cost
        }
    );
    let spent = p.cost_micro_usd.unwrap();
    assert!(spent <= cap, "spent {spent} > cap {cap}");
    assert!(p.model_calls >= 1, "the first call fits the cap");
}
