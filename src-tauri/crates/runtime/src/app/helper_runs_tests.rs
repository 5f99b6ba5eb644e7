//! Given a scripted parent whose `task` call starts a child that starts a
//! grandchild, the parent's helpers are the child then the grandchild,
//! each naming its parent run, call, depth and description; a grandchild
//! waiting on an approval shows it.

use super::*;
use crate::app::runs::StartRun;
use crate::live::LiveEvent;
use crate::profile::RunProfile;
use bearagent_kernel::{DelegatedBy, Delegation, EventPayload, FixedClock, RunStatus, Timestamp};
use bearagent_providers::ScriptedProvider;
use bearagent_tools::ApprovalMode;
use serde_json::json;
use std::sync::Arc;

fn task(description: &str, prompt: &str) -> serde_json::Value {
    json!({"tool_call": {"tool_name": "task", "arguments": {"description": description, "prompt": prompt}}})
}

#[tokio::test]
async fn a_parents_helpers_are_its_children_then_theirs_with_their_approvals() {
    let home = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();
    std::fs::write(ws.path().join("A.md"), "alpha").unwrap();
    let clock = FixedClock(Timestamp::from_unix_millis(1_800_000_000_000).unwrap());
    let app = Arc::new(Application::open(home.path(), Arc::new(clock)).unwrap());
    let mut rx = app.subscribe();
    // One script for the tree, in the order the runs ask: the parent's
    // task, the child's task, the grandchild's read (asked), then answers.
    let steps = json!([
        task("look", "look around"),
        task("read A", "read A.md"),
        {"tool_call": {"tool_name": "read_file", "arguments": {"path": "A.md"}}},
        {"final_answer": "alpha"},
        {"final_answer": "child done"},
        {"final_answer": "parent done"},
    ]);
    let provider = ScriptedProvider::from_json(&steps.to_string()).unwrap();
    let parent = app
        .start_run(StartRun {
            workspace: ws.path().display().to_string(),
            goal: "goal".into(),
            profile: RunProfile {
                approval_mode: ApprovalMode::AskAll,
                delegation: Some(Delegation::default()),
                ..RunProfile::default()
            },
            provider: Arc::new(provider),
            images: Vec::new(),
        })
        .unwrap();
    // The parent's and the child's `task` calls are asked too: approve
    // them; the grandchild's read waits.
    let mut asked = 0;
    let (grandchild, call) = loop {
        if let Ok(LiveEvent::Committed(e)) = rx.recv().await {
            if let EventPayload::ApprovalRequested { call_id, .. } = &e.payload {
                asked += 1;
                if asked == 3 {
                    break (e.run_id, call_id.clone());
                }
                app.decide_approval(e.run_id, call_id.as_str(), approve())
                    .unwrap();
            }
        }
    };
    let helpers = app.helper_runs(parent).unwrap();
    assert_eq!(helpers.len(), 2, "{helpers:?}");
    let (child, deep) = (&helpers[0], &helpers[1]);
    let by = child.summary.delegated_by.as_ref().unwrap();
    assert_eq!(
        (by.run_id, by.depth, by.description.as_str()),
        (parent, 1, "look")
    );
    assert_eq!(
        child.summary.run_id,
        DelegatedBy::child_run_id(parent, &by.call_id)
    );
    let by = deep.summary.delegated_by.as_ref().unwrap();
    assert_eq!(
        (by.run_id, by.depth, by.description.as_str()),
        (child.summary.run_id, 2, "read A")
    );
    assert_eq!(deep.summary.run_id, grandchild);
    let pending = deep.pending_approval.as_ref().unwrap();
    assert_eq!(
        (pending.call_id.as_str(), pending.tool_name.as_str()),
        (call.as_str(), "read_file")
    );
    assert!(child.pending_approval.is_none());
    // A helper's own helpers are the grandchild alone; a leaf has none.
    assert_eq!(app.helper_runs(child.summary.run_id).unwrap().len(), 1);
    assert!(app.helper_runs(grandchild).unwrap().is_empty());

    app.decide_approval(grandchild, call.as_str(), approve())
        .unwrap();
    app.wait_run(parent).await.unwrap();
    let helpers = app.helper_runs(parent).unwrap();
    assert!(helpers
        .iter()
        .all(|h| h.summary.status == RunStatus::Succeeded && h.pending_approval.is_none()));
    assert_eq!(helpers[1].summary.tool_calls, 1);
}

fn approve() -> crate::Decision {
    crate::Decision {
        approve: true,
        scope: bearagent_kernel::ApprovalScope::Once,
        reason: None,
        by: "user".into(),
        allow_prefix: None,
        network: false,
    }
}
