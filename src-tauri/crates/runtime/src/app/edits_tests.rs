//! Given a run and the user (or another program) editing its workspace,
//! when the run writes, then it never overwrites what it has not seen, and
//! edits from outside are observed while its own writes are not.

use super::tests::*;
use super::*;
use bearagent_kernel::EventSeq;
use bearagent_kernel::{ApprovalScope, RunStatus};
use bearagent_tools::ApprovalMode;
use serde_json::json;
use std::time::Duration;

#[tokio::test]
async fn a_write_over_an_edit_made_outside_the_run_is_refused_and_the_edit_survives() {
    let f = fixture();
    std::fs::write(f.ws.path().join("notes.md"), "original\n").unwrap();
    let mut rx = f.app.subscribe();
    let steps = json!([
        {"tool_call": {"tool_name": "read_file", "arguments": {"path": "notes.md"}}},
        {"delay_ms": 400, "tool_call": {"tool_name": "write_file", "arguments": {"path": "notes.md", "content": "model's version\n"}},
         "after_error": {"final_answer": "gave up"}},
        {"final_answer": "gave up", "after_error": {"final_answer": "gave up after the conflict"}}
    ]);
    let run = start(&f, steps, ApprovalMode::AllowAll);
    loop {
        if let LiveEvent::Committed(e) = rx.recv().await.unwrap() {
            if matches!(e.payload, EventPayload::ToolCallCompleted { .. }) {
                break;
            }
        }
    }
    // The user edits the file while the model is thinking.
    std::fs::write(f.ws.path().join("notes.md"), "the user's edit\n").unwrap();
    let p = f.app.wait_run(run).await.unwrap();
    assert_eq!(p.status, RunStatus::Succeeded);
    assert_eq!(
        std::fs::read_to_string(f.ws.path().join("notes.md")).unwrap(),
        "the user's edit\n"
    );
    let failed: Vec<String> = f
        .app
        .list_events(run, EventSeq(0), 1000)
        .unwrap()
        .into_iter()
        .filter_map(|e| {
            if let EventPayload::ToolCallFailed { result } = e.payload {
                Some(result.content)
            } else {
                None
            }
        })
        .collect();
    assert_eq!(failed.len(), 1);
    assert!(
        failed[0].contains("conflict: notes.md changed outside this run"),
        "{failed:?}"
    );
    assert!(!types(&f.app, run).contains(&"effect_intended"));
}

#[tokio::test]
async fn writing_twice_to_a_file_the_run_wrote_itself_is_not_a_conflict() {
    let f = fixture();
    let run = start(
        &f,
        json!([write("a.txt"), {"tool_call": {"tool_name": "write_file", "arguments": {"path": "a.txt", "content": "second"}}}, {"final_answer": "ok"}]),
        ApprovalMode::AllowAll,
    );
    let p = f.app.wait_run(run).await.unwrap();
    assert_eq!(p.status, RunStatus::Succeeded);
    assert_eq!(
        std::fs::read_to_string(f.ws.path().join("a.txt")).unwrap(),
        "second"
    );
}

#[tokio::test]
async fn an_edit_from_outside_during_a_run_is_observed_but_the_runs_own_write_is_not() {
    let f = fixture();
    let mut rx = f.app.subscribe();
    let run = start(
        &f,
        json!([write("mine.txt"), {"final_answer": "done", "delay_ms": 1500}]),
        ApprovalMode::AllowAll,
    );
    loop {
        if let LiveEvent::Committed(e) = rx.recv().await.unwrap() {
            if matches!(e.payload, EventPayload::ArtifactRecorded { .. }) {
                break;
            }
        }
    }
    std::fs::write(f.ws.path().join("theirs.txt"), "edited by a person\n").unwrap();
    let p = f.app.wait_run(run).await.unwrap();
    assert_eq!(p.status, RunStatus::Succeeded);
    let observed: Vec<String> = f
        .app
        .list_events(run, EventSeq(0), 1000)
        .unwrap()
        .into_iter()
        .filter_map(|e| {
            if let EventPayload::ExternalChangeObserved { path, .. } = e.payload {
                Some(path)
            } else {
                None
            }
        })
        .collect();
    assert_eq!(observed, vec!["theirs.txt".to_owned()]);
    assert_eq!(p.external_changes, 1);
}

#[tokio::test]
async fn an_edit_while_the_demo_waits_for_approval_is_observed() {
    let f = fixture();
    let mut rx = f.app.subscribe();
    let (workspace, run) = f.app.start_demo_run().unwrap();
    next_approval(&mut rx).await;
    std::fs::write(
        std::path::Path::new(&workspace.path).join("docs/notes.md"),
        "edited\n",
    )
    .unwrap();
    let observed = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            if let LiveEvent::Committed(e) = rx.recv().await.unwrap() {
                if let EventPayload::ExternalChangeObserved { path, .. } = &e.payload {
                    return path.clone();
                }
            }
        }
    })
    .await
    .expect("the edit was observed");
    assert_eq!(observed, "docs/notes.md");
    f.app.cancel_run(run).unwrap();
    f.app.wait_run(run).await.unwrap();
    std::fs::remove_dir_all(&workspace.path).unwrap();
}

#[tokio::test]
async fn a_file_that_appears_while_the_user_decides_is_not_overwritten_by_the_approved_write() {
    let f = fixture();
    let mut rx = f.app.subscribe();
    let (workspace, run) = f.app.start_demo_run().unwrap();
    let call = next_approval(&mut rx).await;
    let plan = std::path::Path::new(&workspace.path).join("docs/plan.md");
    std::fs::write(&plan, "my own plan\n").unwrap();
    let approve = Decision {
        approve: true,
        scope: ApprovalScope::Once,
        reason: None,
        by: "user".into(),
        allow_prefix: None,
        network: false,
    };
    f.app.decide_approval(run, &call, approve).unwrap();
    let p = f.app.wait_run(run).await.unwrap();
    assert_eq!(p.status, RunStatus::Succeeded);
    assert!(p.final_answer.unwrap().contains("did not happen"));
    assert_eq!(std::fs::read_to_string(&plan).unwrap(), "my own plan\n");
    std::fs::remove_dir_all(&workspace.path).unwrap();
}
