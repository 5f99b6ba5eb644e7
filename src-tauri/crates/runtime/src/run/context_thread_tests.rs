//! Context of threads: given a parent run's events (and instructions),
//! when a follow-up or fork builds its request, then the parent's
//! conversation comes first, complete and valid, and the same input always
//! gives the same bytes.

use super::*;
use crate::run::context_cache::ContextCache;
use bearagent_kernel::testkit::{at, envelopes, run_created};
use bearagent_kernel::{
    validate_history, Action, EventSeq, FinalAnswer, NewEvent, StopReason, TokenUsage, ToolCall,
    WorkspaceId,
};
use serde_json::json;

fn completed(action: Action, text: &str) -> EventPayload {
    EventPayload::ModelCallCompleted {
        action,
        usage: TokenUsage::default(),
        stop_reason: StopReason::EndTurn,
        text: text.into(),
        cost_micro_usd: None,
    }
}

fn call(id: &str) -> ToolCall {
    ToolCall::new(id, "read_file", json!({"path": "a.md"})).unwrap()
}

fn result(id: &str) -> EventPayload {
    EventPayload::ToolCallCompleted {
        result: ToolResult::new(id, "file a", false).unwrap(),
        receipt: None,
        truncated: false,
        original_bytes: 6,
    }
}

/// goal "first" → (narration + read a.md) → its result → answer "done".
fn parent() -> Vec<EventEnvelope> {
    envelopes(vec![
        run_created(WorkspaceId::new(), "first"),
        EventPayload::RunStarted,
        completed(
            Action::ToolCalls {
                calls: vec![call("c1")],
            },
            "Let me read a.md.",
        ),
        EventPayload::ToolCallRequested {
            call: call("c1"),
            parsed_from_text: None,
        },
        EventPayload::ToolCallStarted {
            call_id: bearagent_kernel::CallId::new("c1").unwrap(),
        },
        result("c1"),
        completed(
            Action::FinalAnswer(FinalAnswer {
                content: "done".into(),
            }),
            "done",
        ),
        EventPayload::RunSucceeded {
            answer: "done".into(),
        },
    ])
}

fn input<'a>(
    ancestors: &'a [Vec<EventEnvelope>],
    events: &'a [EventEnvelope],
    instructions: &'a [(String, String)],
) -> ContextInput<'a> {
    static CAPS: std::sync::OnceLock<ContextCaps> = std::sync::OnceLock::new();
    ContextInput {
        ancestors,
        events,
        tools: &[],
        caps: CAPS.get_or_init(ContextCaps::default),
        workspace: "/w",
        instructions,
        summary: None,
    }
}

fn texts(history: &[HistoryItem]) -> Vec<String> {
    history
        .iter()
        .map(|i| match i {
            HistoryItem::Message(m) => format!("{:?}: {}", m.role, m.content),
            HistoryItem::ToolCall(c) => format!("call {}", c.call_id),
            HistoryItem::ToolResult(r) => format!("result {}: {}", r.call_id, r.content),
        })
        .collect()
}

#[test]
fn a_follow_up_starts_with_the_parents_conversation_then_the_new_message() {
    let ancestors = [parent()];
    let child = envelopes(vec![
        run_created(WorkspaceId::new(), "now add tests"),
        EventPayload::RunStarted,
    ]);
    let built = build(&input(&ancestors, &child, &[]));
    assert_eq!(
        texts(&built.request.history),
        [
            "User: first",
            "Assistant: Let me read a.md.",
            "call c1",
            "result c1: file a",
            "Assistant: done",
            "User: now add tests",
        ]
    );
    assert!(validate_history(&built.request.history).is_ok());
    assert_eq!(built.version, CONTEXT_VERSION);
}

#[test]
fn a_fork_between_a_call_and_its_result_answers_the_call_as_not_run() {
    // The fork branches at the ToolCallStarted (seq 5): the result is after it.
    let cut: Vec<EventEnvelope> = parent()
        .into_iter()
        .filter(|e| e.seq <= EventSeq(5))
        .collect();
    let ancestors = [cut];
    let child = envelopes(vec![run_created(WorkspaceId::new(), "try b.md instead")]);
    let history = build(&input(&ancestors, &child, &[])).request.history;
    let t = texts(&history);
    assert_eq!(t[2], "call c1");
    assert!(t[3].starts_with("result c1: not run"), "{t:?}");
    assert_eq!(t.last().unwrap(), "User: try b.md instead");
    assert!(!t.iter().any(|l| l.contains("done")), "{t:?}");
    assert!(validate_history(&history).is_ok());
}

#[test]
fn version_1_is_rebuilt_as_it_was_sent_without_narration_ancestors_or_instructions() {
    let events = parent();
    let instructions = [("AGENTS.md".to_owned(), "Use tabs.".to_owned())];
    let ancestors = [parent()];
    let v1 = rebuild("context-v1", &input(&ancestors, &events, &instructions)).unwrap();
    assert!(!texts(&v1.request.history)
        .iter()
        .any(|l| l.contains("Let me read")));
    assert_eq!(v1.request.history.len(), 4);
    assert!(!v1.request.system.contains("Use tabs."));
    assert_eq!(v1.version, "context-v1");
    assert!(rebuild("context-v99", &input(&[], &events, &[])).is_none());
}

#[test]
fn instructions_join_the_system_prompt_and_rebuilding_is_byte_identical() {
    let events = parent();
    let instructions = [
        ("AGENTS.md".to_owned(), "Use tabs.".to_owned()),
        ("src/AGENTS.md".to_owned(), "Rust only.".to_owned()),
    ];
    let a = build(&input(&[], &events, &instructions));
    let b = rebuild(CONTEXT_VERSION, &input(&[], &events.clone(), &instructions)).unwrap();
    assert!(a.request.system.contains("--- AGENTS.md ---\nUse tabs."));
    assert!(a.request.system.find("Use tabs.") < a.request.system.find("Rust only."));
    assert_eq!(
        serde_json::to_vec(&a.request).unwrap(),
        serde_json::to_vec(&b.request).unwrap()
    );
}

#[test]
fn the_loops_cache_gives_byte_for_byte_what_a_rebuild_from_events_gives() {
    let mut events = parent();
    // Drop the terminal event and go on: more turns, then a compaction.
    events.pop();
    let run = events[0].run_id;
    let more = vec![
        completed(
            Action::ToolCalls {
                calls: vec![call("c2")],
            },
            "And again.",
        ),
        EventPayload::ToolCallRequested {
            call: call("c2"),
            parsed_from_text: None,
        },
        result("c2"),
        EventPayload::ContextCompacted {
            summary: bearagent_kernel::ContentHash::parse(&"cd".repeat(32)).unwrap(),
            replaced_through_seq: EventSeq(8),
            tokens_before: 100,
            tokens_after: 10,
            usage: TokenUsage::default(),
            cost_micro_usd: None,
        },
        completed(
            Action::ToolCalls {
                calls: vec![call("c3")],
            },
            "",
        ),
        result("c3"),
        // A todo list after the compaction: the history's start repeats it.
        EventPayload::TodoUpdated {
            items: vec![bearagent_kernel::TodoItem {
                step: "go on".into(),
                status: bearagent_kernel::TodoStatus::InProgress,
            }],
        },
        completed(
            Action::ToolCalls {
                calls: vec![call("c4")],
            },
            "",
        ),
        result("c4"),
    ];
    for (i, p) in more.into_iter().enumerate() {
        let seq = EventSeq(events.len() as u64 + 1);
        events.push(NewEvent::new(at(100 + i as i64), None, p).into_envelope(run, seq));
    }
    let ancestors = [parent()];
    let mut cache = ContextCache::default();
    for n in 1..=events.len() {
        let prefix = &events[..n];
        let summary = latest_compaction(&ancestors, prefix).map(|_| "the summary");
        let input = ContextInput {
            summary,
            ..input(&ancestors, prefix, &[])
        };
        let cached = cache.build(&input);
        let rebuilt = build(&input);
        assert_eq!(
            serde_json::to_vec(&cached.request).unwrap(),
            serde_json::to_vec(&rebuilt.request).unwrap(),
            "after {n} events"
        );
        assert_eq!(cached.bytes, rebuilt.bytes);
        assert_eq!(cached.digest, rebuilt.digest, "after {n} events");
    }
}

#[test]
fn the_cache_cuts_old_results_exactly_as_a_rebuild_does() {
    let mut payloads = vec![
        run_created(WorkspaceId::new(), "many reads"),
        EventPayload::RunStarted,
    ];
    for i in 0..60 {
        let id = format!("c{i}");
        payloads.push(completed(
            Action::ToolCalls {
                calls: vec![call(&id)],
            },
            "",
        ));
        payloads.push(EventPayload::ToolCallCompleted {
            result: ToolResult::new(&id, "x".repeat(300 + i * 37), false).unwrap(),
            receipt: None,
            truncated: false,
            original_bytes: 0,
        });
    }
    let events = envelopes(payloads);
    let caps = ContextCaps {
        max_context_bytes: 6_000,
        ..ContextCaps::default()
    };
    let mut cache = ContextCache::default();
    let mut cut = 0;
    for n in 1..=events.len() {
        let input = ContextInput {
            caps: &caps,
            ..input(&[], &events[..n], &[])
        };
        let cached = cache.build(&input);
        let rebuilt = build(&input);
        assert_eq!(
            serde_json::to_vec(&cached.request).unwrap(),
            serde_json::to_vec(&rebuilt.request).unwrap(),
            "after {n} events"
        );
        assert_eq!(cached.bytes, rebuilt.bytes, "measured after {n} events");
        assert_eq!(cached.digest, rebuilt.digest, "after {n} events");
        cut = texts(&rebuilt.request.history)
            .iter()
            .filter(|t| t.contains("result omitted"))
            .count();
    }
    assert!(cut > 10, "the caps cut old results ({cut})");
}
