use super::*;
use bearagent_kernel::testkit::{at, run_created, valid_run_from_choices};
use bearagent_kernel::{CallId, EventSeq, NewEvent, RunId, WorkspaceId};

fn simple(events: &[EventEnvelope], caps: &ContextCaps) -> BuiltContext {
    build(&ContextInput {
        ancestors: &[],
        events,
        tools: &[],
        caps,
        workspace: "/w",
        instructions: &[],
        summary: None,
    })
}

#[test]
fn preview_keeps_head_and_tail_and_counts_what_it_cut() {
    let text = "é".repeat(10_000); // 20 000 bytes, two-byte chars
    let p = preview(&text, 3_000);
    assert!(p.len() < 3_200);
    assert!(p.contains("bytes omitted; original size 20000 bytes"));
    assert!(p.starts_with('é') && p.ends_with('é'));
    assert_eq!(preview("short", 3_000), "short");
}

#[test]
fn the_same_events_always_give_byte_identical_context() {
    let events = valid_run_from_choices(RunId::new(), WorkspaceId::new(), &[0, 1, 2, 3, 0]);
    let caps = ContextCaps::default();
    let a = simple(&events, &caps);
    let b = simple(&events.clone(), &caps);
    assert_eq!(
        serde_json::to_vec(&a.request).unwrap(),
        serde_json::to_vec(&b.request).unwrap()
    );
    assert_eq!(a.bytes, b.bytes);
    assert_eq!(a.version, CONTEXT_VERSION);
}

#[test]
fn goal_calls_results_and_invalid_output_feedback_enter_history_in_order() {
    let events = valid_run_from_choices(RunId::new(), WorkspaceId::new(), &[0, 3]);
    let history = simple(&events, &ContextCaps::default()).request.history;
    assert!(matches!(&history[0], HistoryItem::Message(m) if m.content == "property goal"));
    assert!(
        matches!(&history[1], HistoryItem::ToolCall(c) if c.call_id == CallId::new("call_0").unwrap())
    );
    assert!(matches!(&history[2], HistoryItem::ToolResult(r) if r.content == "ok"));
    assert!(
        matches!(&history[3], HistoryItem::Message(m) if m.content.contains("could not be used: not json"))
    );
    assert!(bearagent_kernel::validate_history(&history).is_ok());
}

#[test]
fn large_results_are_previewed_and_old_ones_dropped_to_fit() {
    let run = RunId::new();
    let mut events = vec![
        NewEvent::new(at(0), None, run_created(WorkspaceId::new(), "g"))
            .into_envelope(run, EventSeq(1)),
    ];
    for i in 0..3 {
        let result = ToolResult::new(format!("c{i}"), "x".repeat(50_000), false).unwrap();
        events.push(
            NewEvent::new(
                at(1),
                None,
                EventPayload::ToolCallCompleted {
                    result,
                    receipt: None,
                    truncated: false,
                    original_bytes: 50_000,
                },
            )
            .into_envelope(run, EventSeq(i + 2)),
        );
    }
    let caps = ContextCaps {
        max_context_bytes: 25_000,
        max_tool_result_bytes: 10_000,
        ..ContextCaps::default()
    };
    let history = simple(&events, &caps).request.history;
    let sizes: Vec<usize> = history.iter().map(item_bytes).collect();
    assert!(sizes.iter().sum::<usize>() <= 25_000, "{sizes:?}");
    assert!(
        matches!(&history[1], HistoryItem::ToolResult(r) if r.content.starts_with("[result omitted"))
    );
    assert!(
        matches!(&history[3], HistoryItem::ToolResult(r) if r.content.contains("bytes omitted"))
    );
}

#[test]
fn a_plan_mode_run_s_model_is_told_it_plans_right_after_the_goal() {
    let mut created = run_created(WorkspaceId::new(), "fix add");
    if let EventPayload::RunCreated { plan_mode, .. } = &mut created {
        *plan_mode = true;
    }
    let events = vec![NewEvent::new(at(0), None, created).into_envelope(RunId::new(), EventSeq(1))];
    let history = simple(&events, &ContextCaps::default()).request.history;
    assert!(matches!(&history[0], HistoryItem::Message(m) if m.content == "fix add"));
    assert!(
        matches!(&history[1], HistoryItem::Message(m) if m.content.starts_with("[BearAgent] Plan mode: first make a plan"))
    );
    // Without plan mode, the goal alone.
    let plain = vec![
        NewEvent::new(at(0), None, run_created(WorkspaceId::new(), "fix add"))
            .into_envelope(RunId::new(), EventSeq(1)),
    ];
    assert_eq!(
        simple(&plain, &ContextCaps::default())
            .request
            .history
            .len(),
        1
    );
}

#[test]
fn the_todo_list_stays_in_the_context_after_a_compaction() {
    use bearagent_kernel::{ContentHash, TodoItem, TodoStatus};
    let item = |step: &str, status| TodoItem {
        step: step.into(),
        status,
    };
    let payloads = vec![
        run_created(WorkspaceId::new(), "fix add"),
        EventPayload::RunStarted,
        EventPayload::TodoUpdated {
            items: vec![item("read calc.py", TodoStatus::InProgress)],
        },
        EventPayload::TodoUpdated {
            items: vec![
                item("read calc.py", TodoStatus::Completed),
                item("fix add", TodoStatus::InProgress),
            ],
        },
        EventPayload::ContextCompacted {
            summary: ContentHash::parse(&"c".repeat(64)).unwrap(),
            replaced_through_seq: EventSeq(4),
            tokens_before: 1000,
            tokens_after: 100,
            usage: Default::default(),
            cost_micro_usd: None,
        },
    ];
    let run = RunId::new();
    let events: Vec<EventEnvelope> = payloads
        .into_iter()
        .enumerate()
        .map(|(i, p)| {
            NewEvent::new(at(i as i64), None, p).into_envelope(run, EventSeq(i as u64 + 1))
        })
        .collect();
    let built = build(&ContextInput {
        ancestors: &[],
        events: &events,
        tools: &[],
        caps: &ContextCaps::default(),
        workspace: "/w",
        instructions: &[],
        summary: Some("we read calc.py"),
    });
    let texts: Vec<&str> = built
        .request
        .history
        .iter()
        .filter_map(|i| match i {
            HistoryItem::Message(m) => Some(m.content.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(texts[0], "fix add");
    assert!(texts[1].contains("we read calc.py"));
    assert_eq!(
        texts[2],
        "[BearAgent] Your todo list so far (keep it with update_plan):\n[x] read calc.py\n[>] fix add"
    );
}
