//! Follow-ups, forks and AGENTS.md through the application API. Given a
//! finished run, when a follow-up or fork starts, then its requests carry
//! the parent's conversation (exactly as "what the model saw" rebuilds),
//! and bad parents are refused with nothing written.

use super::tests::{fixture, next_approval, Fixture};
use super::*;
use crate::{RunProfile, StartRun, ThreadStart};
use bearagent_kernel::{ApprovalMode, EventPayload, EventSeq, HistoryItem, RunStatus};
use bearagent_providers::{ModelRequest, ScriptedProvider};
use serde_json::json;
use std::sync::Arc;

pub(super) fn script(steps: serde_json::Value) -> ScriptedProvider {
    ScriptedProvider::from_json(&steps.to_string()).unwrap()
}

pub(super) fn start(goal: &str, f: &Fixture, provider: &ScriptedProvider) -> StartRun {
    StartRun {
        workspace: f.ws.path().display().to_string(),
        goal: goal.into(),
        profile: RunProfile {
            approval_mode: ApprovalMode::AllowAll,
            ..RunProfile::default()
        },
        provider: Arc::new(provider.clone()),
        images: Vec::new(),
    }
}

fn read(path: &str) -> serde_json::Value {
    json!({"tool_call": {"tool_name": "read_file", "arguments": {"path": path}}})
}

pub(super) fn messages(request: &ModelRequest) -> Vec<String> {
    request
        .history
        .iter()
        .filter_map(|i| match i {
            HistoryItem::Message(m) => Some(format!("{:?}: {}", m.role, m.content)),
            HistoryItem::ToolCall(_) | HistoryItem::ToolResult(_) => None,
        })
        .collect()
}

/// Each request the provider was sent equals "what the model saw" for it.
pub(super) fn assert_rebuilt_exactly(f: &Fixture, run: RunId, sent: &[ModelRequest]) {
    let requested: Vec<EventSeq> = f
        .app
        .list_events(run, EventSeq(0), 1000)
        .unwrap()
        .into_iter()
        .filter(|e| matches!(e.payload, EventPayload::ModelCallRequested { .. }))
        .map(|e| e.seq)
        .collect();
    assert_eq!(requested.len(), sent.len());
    for (seq, sent) in requested.into_iter().zip(sent) {
        let seen = f.app.model_context(run, seq).unwrap().request;
        assert_eq!(
            serde_json::to_vec(&seen).unwrap(),
            serde_json::to_vec(sent).unwrap(),
            "call at {seq}"
        );
    }
}

async fn parent_run(f: &Fixture) -> RunId {
    std::fs::write(f.ws.path().join("a.md"), "alpha").unwrap();
    let p = script(json!([read("a.md"), {"final_answer": "a.md says alpha"}]));
    let run = f.app.start_run(start("read a.md", f, &p)).unwrap();
    let done = f.app.wait_run(run).await.unwrap();
    assert_eq!(done.status, RunStatus::Succeeded);
    run
}

#[tokio::test]
async fn a_follow_up_carries_the_parents_goal_answer_and_the_new_message() {
    let f = fixture();
    let parent = parent_run(&f).await;
    let p = script(json!([{"final_answer": "added"}]));
    let mut follow = start("now add tests", &f, &p);
    follow.workspace = String::new();
    let child = f
        .app
        .start_follow_up(
            follow,
            ThreadStart {
                run_id: parent,
                at: None,
            },
        )
        .unwrap();
    assert_eq!(
        f.app.wait_run(child).await.unwrap().status,
        RunStatus::Succeeded
    );
    let sent = p.calls();
    assert_eq!(
        messages(&sent[0]),
        [
            "User: read a.md",
            "Assistant: a.md says alpha",
            "User: now add tests"
        ]
    );
    // The parent's call and its result are there too, paired.
    assert!(bearagent_kernel::validate_history(&sent[0].history).is_ok());
    assert!(sent[0]
        .history
        .iter()
        .any(|i| matches!(i, HistoryItem::ToolResult(r) if r.content.contains("alpha"))));
    assert_rebuilt_exactly(&f, child, &sent);
    let events = f.app.list_events(child, EventSeq(0), 10).unwrap();
    let EventPayload::RunCreated {
        parent: Some(recorded),
        workspace_path,
        ..
    } = &events[0].payload
    else {
        panic!("no parent recorded");
    };
    assert_eq!(recorded.run_id, parent);
    assert!(!recorded.fork);
    assert_eq!(
        workspace_path,
        &f.ws.path().canonicalize().unwrap().display().to_string()
    );
}

#[tokio::test]
async fn a_fork_carries_nothing_after_its_branch_point() {
    let f = fixture();
    let parent = parent_run(&f).await;
    // Branch right after the parent's goal: no read, no answer.
    let p = script(json!([{"final_answer": "ok"}]));
    let child = f
        .app
        .start_follow_up(
            start("read b.md instead", &f, &p),
            ThreadStart {
                run_id: parent,
                at: Some(EventSeq(2)),
            },
        )
        .unwrap();
    f.app.wait_run(child).await.unwrap();
    let sent = p.calls();
    assert_eq!(
        messages(&sent[0]),
        ["User: read a.md", "User: read b.md instead"]
    );
    assert!(!sent[0]
        .history
        .iter()
        .any(|i| matches!(i, HistoryItem::ToolCall(_))));
    assert_rebuilt_exactly(&f, child, &sent);
}

#[tokio::test]
async fn bad_parents_are_refused_and_nothing_is_written() {
    let f = fixture();
    let parent = parent_run(&f).await;
    let runs_before = f
        .app
        .list_runs(f.app.get_run(parent).unwrap().workspace_id)
        .unwrap()
        .len();
    let p = script(json!([{"final_answer": "x"}]));
    let unknown = f.app.start_follow_up(
        start("x", &f, &p),
        ThreadStart {
            run_id: RunId::new(),
            at: None,
        },
    );
    assert!(
        matches!(unknown, Err(AppError::NotFound { .. })),
        "{unknown:?}"
    );
    let past = f.app.start_follow_up(
        start("x", &f, &p),
        ThreadStart {
            run_id: parent,
            at: Some(EventSeq(999)),
        },
    );
    assert!(
        matches!(&past, Err(AppError::InvalidInput(m)) if m.contains("cannot fork at 999")),
        "{past:?}"
    );
    let zero = f.app.start_follow_up(
        start("x", &f, &p),
        ThreadStart {
            run_id: parent,
            at: Some(EventSeq(0)),
        },
    );
    assert!(zero.is_err());
    // A run waiting for an approval is still in progress.
    let mut rx = f.app.subscribe();
    let waiting_provider = script(json!([
        {"tool_call": {"tool_name": "write_file", "arguments": {"path": "w.md", "content": "w"}}},
        {"final_answer": "w"}
    ]));
    let mut waiting_start = start("write", &f, &waiting_provider);
    waiting_start.profile.approval_mode = ApprovalMode::AskWrites;
    let waiting = f.app.start_run(waiting_start).unwrap();
    next_approval(&mut rx).await;
    let busy = f.app.start_follow_up(
        start("x", &f, &p),
        ThreadStart {
            run_id: waiting,
            at: None,
        },
    );
    assert!(
        matches!(&busy, Err(AppError::Conflict(m)) if m.contains("still in progress")),
        "{busy:?}"
    );
    f.app.cancel_run(waiting).unwrap();
    f.app.wait_run(waiting).await.unwrap();
    assert_eq!(
        f.app
            .list_runs(f.app.get_run(parent).unwrap().workspace_id)
            .unwrap()
            .len(),
        runs_before + 1
    );
}

#[tokio::test]
async fn a_parent_whose_workspace_is_gone_is_refused_naming_the_folder() {
    let f = fixture();
    let gone = tempfile::tempdir().unwrap();
    let p = script(json!([{"final_answer": "x"}]));
    let mut first = start("x", &f, &p);
    first.workspace = gone.path().display().to_string();
    let parent = f.app.start_run(first).unwrap();
    f.app.wait_run(parent).await.unwrap();
    let path = gone.path().canonicalize().unwrap().display().to_string();
    drop(gone);
    let mut follow = start("again", &f, &p);
    follow.workspace = String::new();
    let err = f
        .app
        .start_follow_up(
            follow,
            ThreadStart {
                run_id: parent,
                at: None,
            },
        )
        .unwrap_err();
    assert!(err.to_string().contains(&path), "{err}");
}

#[tokio::test]
async fn agents_md_is_recorded_shown_to_the_model_and_reread_by_a_follow_up() {
    let f = fixture();
    std::fs::write(f.ws.path().join("AGENTS.md"), "Always use tabs.").unwrap();
    std::fs::create_dir(f.ws.path().join("src")).unwrap();
    std::fs::write(f.ws.path().join("src/AGENTS.md"), "Rust 2021 only.").unwrap();
    let p = script(json!([
        {"tool_call": {"tool_name": "write_file", "arguments": {"path": "src/lib.rs", "content": "x"}}},
        {"final_answer": "done"}
    ]));
    let run = f.app.start_run(start("edit src", &f, &p)).unwrap();
    f.app.wait_run(run).await.unwrap();
    let sent = p.calls();
    assert!(sent[0]
        .system
        .contains("--- AGENTS.md ---\nAlways use tabs."));
    assert!(
        !sent[0].system.contains("Rust 2021"),
        "nested instructions wait for a write there"
    );
    assert!(sent[1]
        .system
        .contains("--- src/AGENTS.md ---\nRust 2021 only."));
    // The file changes afterwards: what the model saw does not.
    std::fs::write(f.ws.path().join("AGENTS.md"), "Use spaces now.").unwrap();
    assert_rebuilt_exactly(&f, run, &sent);
    let loaded: Vec<String> = f
        .app
        .list_events(run, EventSeq(0), 100)
        .unwrap()
        .into_iter()
        .filter_map(|e| {
            if let EventPayload::InstructionsLoaded { path, .. } = e.payload {
                Some(path)
            } else {
                None
            }
        })
        .collect();
    assert_eq!(loaded, ["AGENTS.md", "src/AGENTS.md"]);
    // A follow-up reads the file again.
    let p2 = script(json!([{"final_answer": "ok"}]));
    let child = f
        .app
        .start_follow_up(
            start("more", &f, &p2),
            ThreadStart {
                run_id: run,
                at: None,
            },
        )
        .unwrap();
    f.app.wait_run(child).await.unwrap();
    assert!(p2.calls()[0].system.contains("Use spaces now."));
}

#[tokio::test]
async fn an_oversized_agents_md_is_cut_with_a_note() {
    let f = fixture();
    let big = "x".repeat(crate::run::instructions::MAX_INSTRUCTION_BYTES + 500);
    std::fs::write(f.ws.path().join("AGENTS.md"), &big).unwrap();
    let p = script(json!([{"final_answer": "ok"}]));
    let run = f.app.start_run(start("go", &f, &p)).unwrap();
    f.app.wait_run(run).await.unwrap();
    let system = &p.calls()[0].system;
    assert!(
        system.contains("AGENTS.md cut here"),
        "{}",
        &system[system.len() - 200..]
    );
    assert!(system.len() < big.len() + 2_000);
}

#[tokio::test]
async fn replying_to_the_demo_continues_its_thread_with_its_settings() {
    let f = fixture();
    let mut rx = f.app.subscribe();
    let (_, demo) = f.app.start_demo_run().unwrap();
    let call = next_approval(&mut rx).await;
    f.app
        .decide_approval(
            demo,
            &call,
            crate::Decision {
                approve: true,
                scope: bearagent_kernel::ApprovalScope::Once,
                reason: None,
                by: "user".into(),
                allow_prefix: None,
                network: false,
            },
        )
        .unwrap();
    assert_eq!(
        f.app.wait_run(demo).await.unwrap().status,
        RunStatus::Succeeded
    );
    let reply = f
        .app
        .reply_to_run(demo, None, "Now add Spanish first".into(), Vec::new())
        .unwrap();
    let done = f.app.wait_run(reply).await.unwrap();
    assert_eq!(done.status, RunStatus::Succeeded);
    assert!(done.final_answer.unwrap().starts_with("Demo follow-up"));
    assert_eq!(done.provider, "demo");
    assert_eq!(done.profile, "demo");
    let thread = f.app.thread(reply).unwrap();
    let ids: Vec<RunId> = thread.iter().map(|r| r.summary.run_id).collect();
    assert_eq!(ids, [demo, reply]);
    assert!(thread[0]
        .final_answer
        .as_deref()
        .unwrap()
        .contains("docs/plan.md"));
    // "Fork from here" at the demo's third event.
    let fork = f
        .app
        .reply_to_run(demo, Some(EventSeq(3)), "again".into(), Vec::new())
        .unwrap();
    f.app.wait_run(fork).await.unwrap();
    let thread = f.app.thread(fork).unwrap();
    assert_eq!(thread[1].forked_at, Some(EventSeq(3)));
    assert_eq!(thread[0].forked_at, None);
}

#[tokio::test]
async fn an_events_text_is_readable_and_other_blobs_are_not() {
    let f = fixture();
    std::fs::write(f.ws.path().join("AGENTS.md"), "Use tabs.").unwrap();
    let p = script(json!([{"final_answer": "ok"}]));
    let run = f.app.start_run(start("go", &f, &p)).unwrap();
    f.app.wait_run(run).await.unwrap();
    let blob = f
        .app
        .list_events(run, EventSeq(0), 100)
        .unwrap()
        .into_iter()
        .find_map(|e| {
            if let EventPayload::InstructionsLoaded { blob, .. } = e.payload {
                Some(blob)
            } else {
                None
            }
        })
        .unwrap();
    assert_eq!(f.app.event_text(run, &blob).unwrap(), "Use tabs.");
    let other = f.app.store.put_blob(b"secret", f.app.clock.now()).unwrap();
    assert!(matches!(
        f.app.event_text(run, &other),
        Err(AppError::NotFound { .. })
    ));
}
