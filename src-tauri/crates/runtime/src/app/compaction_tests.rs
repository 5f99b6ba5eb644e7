//! Compaction through the application API. Given a model with a small
//! window and a run that reads about three times that much, when the
//! context nears the window, then it is compacted (recorded, counted,
//! rebuilt exactly) and no request passes the window; with compaction off
//! the run fails clearly instead.

use super::tests::{fixture, Fixture};
use super::*;
use crate::run::context_profile::ContextProfile;
use crate::{RunProfile, StartRun};
use bearagent_kernel::{ApprovalMode, EventPayload, EventSeq, RunStatus};
use bearagent_providers::ScriptedProvider;
use serde_json::json;
use std::sync::Arc;

const WINDOW: u64 = 6_000;

fn reads(f: &Fixture, n: usize) -> serde_json::Value {
    let mut steps = Vec::new();
    for i in 0..n {
        let text: String = (0..9_000)
            .map(|j| char::from(b'a' + ((i + j) % 26) as u8))
            .collect();
        std::fs::write(f.ws.path().join(format!("part{i}.txt")), text).unwrap();
        steps.push(json!({"tool_call": {"tool_name": "read_file", "arguments": {"path": format!("part{i}.txt")}}}));
    }
    steps.push(json!({"final_answer": "read them all"}));
    json!(steps)
}

fn start(f: &Fixture, provider: &ScriptedProvider, compact: Option<u16>) -> RunId {
    // Full: the compact profile's result cap would keep these reads
    // inside the window.
    let mut profile = RunProfile {
        approval_mode: ApprovalMode::AllowAll,
        context_profile: Some(ContextProfile::Full),
        ..RunProfile::default()
    };
    profile.context.compact_at_permille = compact;
    f.app
        .start_run(StartRun {
            workspace: f.ws.path().display().to_string(),
            goal: "read every part and report".into(),
            profile,
            provider: Arc::new(provider.clone()),
            images: Vec::new(),
        })
        .unwrap()
}

#[tokio::test]
async fn a_run_reading_three_windows_compacts_and_never_sends_more_than_the_window() {
    let f = fixture();
    let steps = reads(&f, 6);
    let provider = ScriptedProvider::from_json(&steps.to_string())
        .unwrap()
        .with_context_window(WINDOW);
    let run = start(&f, &provider, Some(850));
    let p = f.app.wait_run(run).await.unwrap();
    assert_eq!(p.status, RunStatus::Succeeded, "{:?}", p.last_error);
    let events = f.app.list_events(run, EventSeq(0), 1000).unwrap();
    let compactions: Vec<(EventSeq, u64, u64)> = events
        .iter()
        .filter_map(|e| {
            if let EventPayload::ContextCompacted {
                replaced_through_seq,
                tokens_before,
                tokens_after,
                ..
            } = &e.payload
            {
                Some((*replaced_through_seq, *tokens_before, *tokens_after))
            } else {
                None
            }
        })
        .collect();
    assert!(!compactions.is_empty(), "no compaction");
    for (_, before, after) in &compactions {
        assert!(after < before, "{compactions:?}");
    }
    // Every request the model got, compaction calls included, fits.
    let sent = provider.calls();
    for request in &sent {
        let bytes = serde_json::to_vec(request).unwrap().len() as u64;
        assert!(bytes / 4 <= WINDOW, "a request of ~{} tokens", bytes / 4);
    }
    // Nor by the model's own count of each request.
    for e in &events {
        if let EventPayload::ModelCallCompleted { usage, .. }
        | EventPayload::ContextCompacted { usage, .. } = &e.payload
        {
            assert!(usage.input <= WINDOW, "{usage:?}");
        }
    }
    // Compaction calls count as model calls.
    assert_eq!(p.model_calls as usize, sent.len());
    // The goal is in every request; after a compaction, so is the summary.
    let turns: Vec<_> = sent.iter().filter(|r| !r.tools.is_empty()).collect();
    for request in &turns {
        let first = serde_json::to_string(&request.history[0]).unwrap();
        assert!(first.contains("read every part and report"), "{first}");
    }
    assert!(serde_json::to_string(turns.last().unwrap())
        .unwrap()
        .contains("Handoff summary"));
    // "What the model saw" rebuilds each turn exactly.
    let requested: Vec<EventSeq> = events
        .iter()
        .filter(|e| matches!(e.payload, EventPayload::ModelCallRequested { .. }))
        .map(|e| e.seq)
        .collect();
    assert_eq!(requested.len(), turns.len());
    for (seq, sent) in requested.into_iter().zip(turns) {
        let seen = f.app.model_context(run, seq).unwrap().request;
        assert_eq!(
            serde_json::to_vec(&seen).unwrap(),
            serde_json::to_vec(sent).unwrap()
        );
    }
    // Re-driven from its record, compactions included, it is the same run.
    let replayed = f.app.replay_run(run).await.unwrap();
    assert_eq!(replayed.divergence, None, "{replayed:?}");
}

#[tokio::test]
async fn with_compaction_off_a_run_past_the_window_fails_clearly() {
    let f = fixture();
    let steps = reads(&f, 6);
    let provider = ScriptedProvider::from_json(&steps.to_string())
        .unwrap()
        .with_context_window(WINDOW);
    let run = start(&f, &provider, None);
    let p = f.app.wait_run(run).await.unwrap();
    let RunStatus::Failed { reason } = p.status else {
        panic!("expected a failure, got {:?}", p.status);
    };
    assert!(reason.contains("compaction is off"), "{reason}");
    assert!(reason.contains("6000 tokens"), "{reason}");
    // The model itself never counted more than its window in a request.
    for e in f.app.list_events(run, EventSeq(0), 1000).unwrap() {
        if let EventPayload::ModelCallCompleted { usage, .. } = e.payload {
            assert!(usage.input <= WINDOW, "{usage:?}");
        }
    }
    assert!(!provider.calls().is_empty());
}

/// Over several shapes of work (few large reads, many small ones): no
/// request passes the window, and every turn keeps the goal and AGENTS.md.
#[tokio::test]
async fn whatever_the_reads_no_request_passes_the_window_and_goal_and_instructions_stay() {
    for (files, size) in [(4usize, 12_000usize), (12, 3_000), (9, 7_500)] {
        let f = fixture();
        std::fs::write(f.ws.path().join("AGENTS.md"), "Never touch vendor/.").unwrap();
        let mut steps = Vec::new();
        for i in 0..files {
            let text: String = (0..size)
                .map(|j| char::from(b'a' + ((i * 7 + j) % 26) as u8))
                .collect();
            std::fs::write(f.ws.path().join(format!("f{i}.txt")), text).unwrap();
            steps.push(json!({"tool_call": {"tool_name": "read_file", "arguments": {"path": format!("f{i}.txt")}}}));
        }
        steps.push(json!({"final_answer": "done"}));
        let provider = ScriptedProvider::from_json(&json!(steps).to_string())
            .unwrap()
            .with_context_window(WINDOW);
        let run = start(&f, &provider, Some(800));
        let p = f.app.wait_run(run).await.unwrap();
        assert_eq!(
            p.status,
            RunStatus::Succeeded,
            "{files}×{size}: {:?}",
            p.last_error
        );
        // AGENTS.md is read at the start and again after each compaction.
        let events = f.app.list_events(run, EventSeq(0), 2000).unwrap();
        let count = |t: &str| events.iter().filter(|e| e.payload.type_name() == t).count();
        assert!(count("context_compacted") >= 1, "{files}×{size}");
        assert_eq!(
            count("instructions_loaded"),
            1 + count("context_compacted"),
            "{files}×{size}"
        );
        for request in provider.calls() {
            let bytes = serde_json::to_vec(&request).unwrap().len() as u64;
            // At 4 bytes a token (the scripted model's own count, which
            // calibrates the estimate), never over the window.
            assert!(bytes / 4 <= WINDOW, "{files}×{size}: ~{} tokens", bytes / 4);
            assert!(
                request.system.contains("Never touch vendor/."),
                "{files}×{size}"
            );
            if !request.tools.is_empty() {
                let first = serde_json::to_string(&request.history[0]).unwrap();
                assert!(
                    first.contains("read every part and report"),
                    "{files}×{size}: {first}"
                );
            }
        }
    }
}

/// A model that answers every compaction request with nothing.
struct EmptySummaries(ScriptedProvider);

impl bearagent_providers::ModelProvider for EmptySummaries {
    fn info(&self) -> bearagent_providers::ProviderInfo {
        self.0.info()
    }

    fn stream(
        &self,
        request: bearagent_providers::ModelRequest,
    ) -> bearagent_providers::ModelStream {
        if request.tools.is_empty() {
            return Box::pin(futures::stream::iter(vec![Ok(
                bearagent_providers::StreamItem::Completed {
                    usage: Default::default(),
                    stop_reason: bearagent_kernel::StopReason::EndTurn,
                },
            )]));
        }
        self.0.stream(request)
    }
}

#[tokio::test]
async fn an_empty_summary_is_retried_then_fails_the_run_with_its_history_intact() {
    let f = fixture();
    let steps = reads(&f, 6);
    let inner = ScriptedProvider::from_json(&steps.to_string())
        .unwrap()
        .with_context_window(WINDOW);
    let mut profile = RunProfile {
        approval_mode: ApprovalMode::AllowAll,
        context_profile: Some(ContextProfile::Full),
        ..RunProfile::default()
    };
    profile.context.compact_at_permille = Some(850);
    let run = f
        .app
        .start_run(StartRun {
            workspace: f.ws.path().display().to_string(),
            goal: "read every part and report".into(),
            profile,
            provider: Arc::new(EmptySummaries(inner)),
            images: Vec::new(),
        })
        .unwrap();
    let p = f.app.wait_run(run).await.unwrap();
    let RunStatus::Failed { reason } = p.status else {
        panic!("expected a failure, got {:?}", p.status);
    };
    assert!(reason.contains("could not be compacted"), "{reason}");
    assert!(
        reason.contains("empty summary") || reason.contains("neither text"),
        "{reason}"
    );
    let events = f.app.list_events(run, EventSeq(0), 1000).unwrap();
    assert!(!events
        .iter()
        .any(|e| matches!(e.payload, EventPayload::ContextCompacted { .. })));
    // Every result the run got is still in its events.
    assert!(
        events
            .iter()
            .filter(|e| matches!(e.payload, EventPayload::ToolCallCompleted { .. }))
            .count()
            >= 1
    );
    let replayed = f.app.replay_run(run).await.unwrap();
    assert_eq!(replayed.divergence, None, "{replayed:?}");
}
