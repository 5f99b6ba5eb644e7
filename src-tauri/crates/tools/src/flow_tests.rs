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
    let PolicyDecision::Ask(request) = policy.decide(&spec, call) else {
        panic!("a write must be asked about");
    };
    // The user's approval, recorded as event 7.
    let call = request.approve(bearagent_kernel::EventSeq(7));
    assert_eq!(
        call.authority(),
        crate::Authority::User {
            approval: bearagent_kernel::EventSeq(7)
        }
    );
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
    let PolicyDecision::Allow(call) = policy.decide(read.spec(), call) else {
        panic!("a read is allowed in reads mode");
    };
    assert_eq!(call.authority(), crate::Authority::Policy);
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
    let PolicyDecision::Allow(call) = Policy::new(ApprovalMode::AllowAll).decide(edit.spec(), call)
    else {
        panic!("allow-all allows an edit");
    };
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
