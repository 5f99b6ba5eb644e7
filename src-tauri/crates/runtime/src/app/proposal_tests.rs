//! Given a write waiting for approval, when the window asks what it would
//! change, then it gets the diff against the file now and nothing is written.

use super::tests::{fixture, next_approval, start};
use crate::artifacts::diff::{FileDiff, LineKind};
use bearagent_kernel::RunStatus;
use bearagent_tools::ApprovalMode;
use serde_json::json;

#[tokio::test]
async fn a_waiting_edit_shows_the_diff_it_would_make_and_nothing_is_written() {
    let f = fixture();
    std::fs::write(
        f.ws.path().join("calc.py"),
        "def add(a, b):\n    return a - b\n",
    )
    .unwrap();
    let mut rx = f.app.subscribe();
    let edit = json!({"tool_call": {"tool_name": "edit_file", "arguments":
        {"path": "calc.py", "old_string": "a - b", "new_string": "a + b"}}});
    let run = start(
        &f,
        json!([edit, {"final_answer": "done"}]),
        ApprovalMode::AskWrites,
    );
    next_approval(&mut rx).await;
    let change = f.app.pending_change(run).unwrap().unwrap();
    assert_eq!((change.path.as_str(), change.new_file), ("calc.py", false));
    let FileDiff::Text {
        added,
        removed,
        hunks,
        ..
    } = change.diff
    else {
        panic!("a text diff")
    };
    assert_eq!((added, removed), (1, 1));
    let lines: Vec<(LineKind, &str)> = hunks[0]
        .lines
        .iter()
        .map(|l| (l.kind, l.text.as_str()))
        .collect();
    assert!(
        lines.contains(&(LineKind::Removed, "    return a - b")),
        "{lines:?}"
    );
    assert!(
        lines.contains(&(LineKind::Added, "    return a + b")),
        "{lines:?}"
    );
    let on_disk = std::fs::read_to_string(f.ws.path().join("calc.py")).unwrap();
    assert!(on_disk.contains("a - b"));
    f.app.cancel_run(run).unwrap();
    assert_eq!(
        f.app.wait_run(run).await.unwrap().status,
        RunStatus::Cancelled
    );
    assert_eq!(f.app.pending_change(run).unwrap(), None);
}
