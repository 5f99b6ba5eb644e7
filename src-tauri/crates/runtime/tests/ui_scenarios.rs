//! The UI's development mock plays the demo run back instead of faking an
//! agent loop. So that it shows what the runtime really records, this test
//! drives the real demo through the application API (as "Try the demo"
//! does), approved and denied, and writes
//! `ui/src/dev/mock/fixtures/scenarios/demo.json`: each run's events as
//! `list_events` returns them, and its artifacts and their diffs as the
//! application API returns them (the shell's IPC conversion of those is
//! redone by the mock: `ui/src/dev/mock/scenario.ts`). It fails when the
//! file is not what the runtime records now.
//!
//! Run ids, the workspace's id and its temp folder are replaced with the
//! placeholders below, so the file is the same on every machine.
//!
//! After an intended change to the demo, the loop or the events:
//!     BEARAGENT_UPDATE_FIXTURES=1 cargo test -p bearagent-runtime --test ui_scenarios
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use bearagent_kernel::{
    ApprovalScope, EventPayload, EventSeq, FixedClock, RunId, RunStatus, Timestamp,
};
use bearagent_runtime::artifacts::diff::FileDiff;
use bearagent_runtime::artifacts::{DiskState, Review};
use bearagent_runtime::{Application, Decision, LiveEvent};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

const WORKSPACE_PATH: &str = "/tmp/bearagent-demo-01";
const WORKSPACE_ID: &str = "0190a000-0000-7000-8000-0000000000f1";
const RUN_ID: &str = "0190a000-0000-7000-8000-000000000201";

/// One demo run, approved or denied at its write, with its placeholders in.
async fn demo_run(approve: bool) -> Value {
    let home = tempfile::tempdir().unwrap();
    let clock = FixedClock(Timestamp::from_unix_millis(1_800_000_000_000).unwrap());
    let app = Application::open(home.path(), Arc::new(clock)).unwrap();
    let mut rx = app.subscribe();
    let (workspace, run) = app.start_demo_run().unwrap();
    let call = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            if let LiveEvent::Committed(e) = rx.recv().await.unwrap() {
                if let EventPayload::ApprovalRequested { call_id, .. } = &e.payload {
                    return call_id.to_string();
                }
            }
        }
    })
    .await
    .expect("the demo asks before its write");
    let decision = Decision {
        approve,
        scope: ApprovalScope::Once,
        reason: None,
        by: "user".into(),
        allow_prefix: None,
    };
    app.decide_approval(run, &call, decision).unwrap();
    let p = tokio::time::timeout(Duration::from_secs(10), app.wait_run(run))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(p.status, RunStatus::Succeeded);
    let recorded = recorded(&app, run);
    std::fs::remove_dir_all(&workspace.path).unwrap();
    let text = recorded
        .to_string()
        .replace(&workspace.path, WORKSPACE_PATH)
        .replace(&workspace.id.to_string(), WORKSPACE_ID)
        .replace(&run.to_string(), RUN_ID);
    serde_json::from_str(&text).unwrap()
}

/// The run's events, artifacts and diffs as the application API returns
/// them (the artifact list field by field: it has no serialised form).
fn recorded(app: &Application, run: RunId) -> Value {
    let events = app.list_events(run, EventSeq(0), 10_000).unwrap();
    let views = app.artifacts(run).unwrap();
    let artifacts: Vec<Value> = views
        .iter()
        .map(|a| {
            json!({
                "path": a.record.path,
                "change": a.record.change().as_str(),
                "review": match a.record.review {
                    Review::Pending => "pending",
                    Review::Kept => "kept",
                    Review::Reverted => "reverted",
                },
                "disk": match a.disk {
                    DiskState::RunVersion => "run_version",
                    DiskState::BeforeVersion => "before_version",
                    DiskState::ChangedSince => "changed_since",
                },
                "before_bytes": a.before_bytes,
                "after_bytes": a.after_bytes,
                "lines": a.lines.map(|(added, removed)| json!({"added": added, "removed": removed})),
            })
        })
        .collect();
    let diffs: serde_json::Map<String, Value> = views
        .iter()
        .map(|a| {
            let diff: FileDiff = app.artifact_diff(run, &a.record.path, false).unwrap();
            (a.record.path.clone(), serde_json::to_value(diff).unwrap())
        })
        .collect();
    json!({"events": events, "artifacts": artifacts, "diffs": diffs})
}

fn fixture_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../ui/src/dev/mock/fixtures/scenarios/demo.json")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ui_mock_demo_is_what_the_runtime_records_now() {
    let fixture = json!({
        "generated_by": "src-tauri/crates/runtime/tests/ui_scenarios.rs (BEARAGENT_UPDATE_FIXTURES=1 to refresh)",
        "placeholders": {
            "workspace_path": WORKSPACE_PATH,
            "workspace_id": WORKSPACE_ID,
            "run_id": RUN_ID,
        },
        "approved": demo_run(true).await,
        "denied": demo_run(false).await,
    });
    let text = serde_json::to_string_pretty(&fixture).unwrap() + "\n";
    let path = fixture_path();
    if std::env::var_os("BEARAGENT_UPDATE_FIXTURES").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &text).unwrap();
        return;
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == text,
        "{} is stale: run BEARAGENT_UPDATE_FIXTURES=1 cargo test -p bearagent-runtime --test ui_scenarios, then make the UI mock's demo (ui/src/dev/mock/scenario.ts) pass its tests",
        path.display()
    );
}
