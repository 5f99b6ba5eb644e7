//! One tool call along the whole path: registry lookup → prepare → policy →
//! executor, as the runtime will drive it.

use crate::testutil::{obj, workspace};
use crate::{ApprovalMode, Executor, ExecutorLimits, Policy, PolicyDecision, Registry, ToolSpec};
use serde_json::json;
use std::fs;
use tokio_util::sync::CancellationToken;

#[tokio::test]
async fn write_then_read_through_policy_and_executor() {
    let (dir, ws) = workspace();
    let registry = Registry::with_workspace_tools();
    let policy = Policy::new(ApprovalMode::AskWrites);
    let executor = Executor::new(ExecutorLimits::default());

    let write = registry.get("write_file").unwrap();
    let spec: ToolSpec = write.spec().clone();
    let call = write
        .prepare(
            &obj(json!({"path": "outputs/report.md", "content": "# Report\n"})),
            &ws,
        )
        .unwrap();
    assert_eq!(policy.decide(&spec, &call), PolicyDecision::Ask);
    let outcome = executor
        .execute(write, call, ws.clone(), CancellationToken::new())
        .await;
    assert!(!outcome.is_error, "{}", outcome.content);
    assert_eq!(
        fs::read_to_string(dir.path().join("outputs/report.md")).unwrap(),
        "# Report\n"
    );

    let read = registry.get("read_file").unwrap();
    let call = read
        .prepare(&obj(json!({"path": "outputs/report.md"})), &ws)
        .unwrap();
    assert_eq!(policy.decide(read.spec(), &call), PolicyDecision::Allow);
    let outcome = executor
        .execute(read, call, ws, CancellationToken::new())
        .await;
    assert_eq!(outcome.content, "# Report\n");
}

#[tokio::test]
async fn an_execution_error_is_an_error_outcome_for_the_model() {
    let (dir, ws) = workspace();
    fs::write(dir.path().join("a.txt"), "x x").unwrap();
    let registry = Registry::with_workspace_tools();
    let edit = registry.get("edit_file").unwrap();
    let call = edit
        .prepare(
            &obj(json!({"path": "a.txt", "old_string": "x", "new_string": "y"})),
            &ws,
        )
        .unwrap();
    let outcome = Executor::default()
        .execute(edit, call, ws, CancellationToken::new())
        .await;
    assert!(outcome.is_error);
    assert!(
        outcome.content.contains("occurs 2 times"),
        "{}",
        outcome.content
    );
}
