//! One tool call along the whole path: registry lookup → prepare → policy →
//! executor, as the runtime will drive it.

use crate::testutil::{obj, workspace};
use crate::{
    ApprovalMode, Executor, ExecutorLimits, Policy, PolicyDecision, Registered, Registry, ToolSpec,
};
use serde_json::json;
use std::fs;
use tokio_util::sync::CancellationToken;

#[tokio::test]
async fn write_then_read_through_policy_and_executor() {
    let (dir, ws) = workspace();
    let registry = Registry::with_workspace_tools();
    let policy = Policy::new(ApprovalMode::AskWrites);
    let executor = Executor::new(ExecutorLimits::default());

    let Some(Registered::Workspace(write)) = registry.get("write_file") else {
        panic!("write_file is a workspace tool");
    };
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
    // The user's approval of this call, recorded as event 7.
    let call_id = bearagent_kernel::CallId::new("call-1").unwrap();
    let granted = bearagent_kernel::NewEvent::new(
        bearagent_kernel::testkit::at(0),
        None,
        bearagent_kernel::EventPayload::ApprovalGranted {
            call_id: call_id.clone(),
            by: "user".into(),
            scope: bearagent_kernel::ApprovalScope::Once,
            allowed_prefix: None,
            network: false,
        },
    )
    .into_envelope(
        bearagent_kernel::RunId::new(),
        bearagent_kernel::EventSeq(7),
    );
    let call = request.approve(&call_id, &granted).unwrap();
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

    let Some(Registered::Workspace(read)) = registry.get("read_file") else {
        panic!("read_file is a workspace tool");
    };
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
    let Some(Registered::Workspace(edit)) = registry.get("edit_file") else {
        panic!("edit_file is a workspace tool");
    };
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
