//! Application API tests: given a scripted model, when the user decides or
//! cancels, then these events.

use super::*;
use bearagent_kernel::EventSeq;
use bearagent_kernel::{ApprovalScope, FixedClock, RunStatus, Timestamp};
use bearagent_providers::ScriptedProvider;
use bearagent_tools::ApprovalMode;
use serde_json::json;
use std::time::Duration;
use tokio::sync::broadcast;

pub(super) struct Fixture {
    pub(super) _home: tempfile::TempDir,
    pub(super) ws: tempfile::TempDir,
    pub(super) app: Arc<Application>,
}

pub(super) fn fixture() -> Fixture {
    let home = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();
    let clock = FixedClock(Timestamp::from_unix_millis(1_800_000_000_000).unwrap());
    let app = Arc::new(Application::open(home.path(), Arc::new(clock)).unwrap());
    Fixture {
        _home: home,
        ws,
        app,
    }
}

/// A dropped application releases its store's instance lock (the watcher's
/// thread may hold the store a moment longer), as a process exit would.
pub(super) async fn wait_until_released(home: &std::path::Path) {
    for _ in 0..100 {
        let held = std::fs::read_dir(home.join("owners"))
            .map(|d| d.count())
            .unwrap_or(0);
        if held == 0 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the dropped application still holds its instance lock");
}

pub(super) fn start(f: &Fixture, steps: serde_json::Value, mode: ApprovalMode) -> RunId {
    start_recorded(f, steps, mode).0
}

/// Starts a scripted run and keeps the provider, which records every
/// request the model was sent.
pub(super) fn start_recorded(
    f: &Fixture,
    steps: serde_json::Value,
    mode: ApprovalMode,
) -> (RunId, ScriptedProvider) {
    let provider = ScriptedProvider::from_json(&steps.to_string()).unwrap();
    let run = f
        .app
        .start_run(StartRun {
            workspace: f.ws.path().display().to_string(),
            goal: "goal".into(),
            profile: RunProfile {
                approval_mode: mode,
                ..RunProfile::default()
            },
            provider: Arc::new(provider.clone()),
            images: Vec::new(),
        })
        .unwrap();
    (run, provider)
}

pub(super) fn write(path: &str) -> serde_json::Value {
    json!({"tool_call": {"tool_name": "write_file", "arguments": {"path": path, "content": "hi"}}})
}

pub(super) async fn next_approval(rx: &mut broadcast::Receiver<LiveEvent>) -> String {
    loop {
        if let LiveEvent::Committed(e) = rx.recv().await.unwrap() {
            if let EventPayload::ApprovalRequested { call_id, .. } = &e.payload {
                return call_id.to_string();
            }
        }
    }
}

pub(super) fn types(app: &Application, run: RunId) -> Vec<&'static str> {
    app.list_events(run, EventSeq(0), 1000)
        .unwrap()
        .iter()
        .map(|e| e.payload.type_name())
        .collect()
}

#[tokio::test]
async fn always_for_this_run_approves_later_calls_of_the_same_tool() {
    let f = fixture();
    let mut rx = f.app.subscribe();
    let run = start(
        &f,
        json!([write("a.txt"), write("b.txt"), {"final_answer": "ok"}]),
        ApprovalMode::AskWrites,
    );
    let call = next_approval(&mut rx).await;
    let decision = Decision {
        approve: true,
        scope: ApprovalScope::ToolForRun,
        reason: None,
        by: "user".into(),
        allow_prefix: None,
        network: false,
    };
    f.app.decide_approval(run, &call, decision).unwrap();
    let p = tokio::time::timeout(Duration::from_secs(10), f.app.wait_run(run))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(p.status, RunStatus::Succeeded);
    let t = types(&f.app, run);
    assert_eq!(t.iter().filter(|t| **t == "approval_requested").count(), 1);
    assert_eq!(t.iter().filter(|t| **t == "artifact_recorded").count(), 2);
    assert_eq!(
        std::fs::read_to_string(f.ws.path().join("b.txt")).unwrap(),
        "hi"
    );
}

#[tokio::test]
async fn a_denial_with_a_reason_reaches_the_model_as_an_error_result() {
    let f = fixture();
    let mut rx = f.app.subscribe();
    let (run, recorder) = start_recorded(
        &f,
        json!([write("a.txt"), {"final_answer": "ok"}]),
        ApprovalMode::AskWrites,
    );
    let call = next_approval(&mut rx).await;
    let decision = Decision {
        approve: false,
        scope: ApprovalScope::Once,
        reason: Some("use notes/ instead".into()),
        by: "user".into(),
        allow_prefix: None,
        network: false,
    };
    f.app.decide_approval(run, &call, decision).unwrap();
    let p = f.app.wait_run(run).await.unwrap();
    assert_eq!(p.status, RunStatus::Succeeded);
    assert!(!f.ws.path().join("a.txt").exists());
    let second = &recorder.calls()[1];
    let last = second.history.last().unwrap();
    assert!(
        matches!(last, bearagent_kernel::HistoryItem::ToolResult(r) if r.is_error && r.content.contains("use notes/ instead")),
        "{last:?}"
    );
    // Deciding again finds nothing pending.
    let again = Decision {
        approve: true,
        scope: ApprovalScope::Once,
        reason: None,
        by: "user".into(),
        allow_prefix: None,
        network: false,
    };
    assert!(f.app.decide_approval(run, &call, again).is_err());
}

#[tokio::test]
async fn cancelling_during_a_slow_model_call_ends_the_run_cancelled() {
    let f = fixture();
    let mut rx = f.app.subscribe();
    let run = start(
        &f,
        json!([{"final_answer": "late", "delay_ms": 60000}]),
        ApprovalMode::AllowAll,
    );
    loop {
        if let LiveEvent::Committed(e) = rx.recv().await.unwrap() {
            if matches!(e.payload, EventPayload::ModelCallStarted { .. }) {
                break;
            }
        }
    }
    f.app.cancel_run(run).unwrap();
    let p = tokio::time::timeout(Duration::from_secs(5), f.app.wait_run(run))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(p.status, RunStatus::Cancelled);
    assert_eq!(types(&f.app, run).last(), Some(&"run_cancelled"));
}

#[tokio::test]
async fn cancelling_while_waiting_for_approval_ends_the_run_cancelled() {
    let f = fixture();
    let mut rx = f.app.subscribe();
    let run = start(&f, json!([write("a.txt")]), ApprovalMode::AskAll);
    next_approval(&mut rx).await;
    f.app.cancel_run(run).unwrap();
    let p = f.app.wait_run(run).await.unwrap();
    assert_eq!(p.status, RunStatus::Cancelled);
    assert!(!f.ws.path().join("a.txt").exists());
}

#[test]
fn a_blank_goal_is_refused_before_anything_is_recorded() {
    let f = fixture();
    let provider = Arc::new(ScriptedProvider::new(vec![]));
    let err = f
        .app
        .start_run(StartRun {
            workspace: f.ws.path().display().to_string(),
            goal: "  ".into(),
            profile: RunProfile::default(),
            provider,
            images: Vec::new(),
        })
        .unwrap_err();
    assert_eq!(err.code(), crate::ErrorCode::InvalidInput);
    assert!(f.app.runs(None, None).unwrap().is_empty());
}

#[tokio::test]
async fn the_demo_reads_asks_before_writing_and_answers() {
    let f = fixture();
    let mut rx = f.app.subscribe();
    let (workspace, run) = f.app.start_demo_run().unwrap();
    let call = next_approval(&mut rx).await;
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
    assert!(p.final_answer.unwrap().contains("wrote docs/plan.md"));
    let plan = std::path::Path::new(&workspace.path).join("docs/plan.md");
    assert!(std::fs::read_to_string(plan).unwrap().starts_with("# Plan"));
    let created = &f.app.list_events(run, EventSeq(0), 1).unwrap()[0];
    assert!(
        matches!(&created.payload, EventPayload::RunCreated { provider, .. } if provider == "demo")
    );
    std::fs::remove_dir_all(&workspace.path).unwrap();
}

#[tokio::test]
async fn a_run_interrupted_at_an_approval_resumes_when_it_is_answered() {
    let home = tempfile::tempdir().unwrap();
    let clock = FixedClock(Timestamp::from_unix_millis(1_800_000_000_000).unwrap());
    let first = Application::open(home.path(), Arc::new(clock)).unwrap();
    let mut rx = first.subscribe();
    let (workspace, run) = first.start_demo_run().unwrap();
    let call = next_approval(&mut rx).await;
    // The app dies while the run waits: its task is gone, nothing recorded.
    let handle = first
        .active
        .lock()
        .unwrap()
        .get_mut(&run)
        .unwrap()
        .handle
        .take()
        .unwrap();
    handle.abort();
    let _ = handle.await;
    drop(first);
    wait_until_released(home.path()).await;

    let second = Application::open(home.path(), Arc::new(clock)).unwrap();
    let p = second.get_run(run).unwrap();
    assert_eq!(p.status, RunStatus::Interrupted);
    assert_eq!(p.pending_approval.as_ref().unwrap().call_id.as_str(), call);
    let approve = Decision {
        approve: true,
        scope: ApprovalScope::Once,
        reason: None,
        by: "user".into(),
        allow_prefix: None,
        network: false,
    };
    second.decide_approval(run, &call, approve).unwrap();
    let p = second.wait_run(run).await.unwrap();
    assert_eq!(p.status, RunStatus::Succeeded, "{p:?}");
    assert!(std::path::Path::new(&workspace.path)
        .join("docs/plan.md")
        .exists());
    let t = types(&second, run);
    let resumed = t.iter().position(|t| *t == "run_resumed").unwrap();
    assert_eq!(t[resumed - 1], "run_interrupted");
    assert_eq!(t[resumed + 1], "approval_granted");
    std::fs::remove_dir_all(&workspace.path).unwrap();
    // Both processes' parts are re-driven: to the interruption, then on
    // from the recorded answer.
    let report = second.replay_run(run).await.unwrap();
    assert_eq!(report.divergence, None, "{report:?}");
    assert_eq!(report.matched, report.events, "{report:?}");
    assert!(report.notes.is_empty(), "{report:?}");
}

#[tokio::test]
async fn the_context_of_any_model_call_can_be_rebuilt_from_events() {
    let f = fixture();
    let (run, recorder) = start_recorded(
        &f,
        json!([write("a.txt"), {"final_answer": "ok"}]),
        ApprovalMode::AllowAll,
    );
    f.app.wait_run(run).await.unwrap();
    let requests: Vec<EventSeq> = f
        .app
        .list_events(run, EventSeq(0), 1000)
        .unwrap()
        .iter()
        .filter(|e| matches!(e.payload, EventPayload::ModelCallRequested { .. }))
        .map(|e| e.seq)
        .collect();
    assert_eq!(requests.len(), 2);
    for (i, seq) in requests.iter().enumerate() {
        let rebuilt = f.app.model_context(run, *seq).unwrap();
        assert_eq!(rebuilt.request, recorder.calls()[i], "model call {i}");
    }
    assert!(f.app.model_context(run, EventSeq(1)).is_err());
}

#[tokio::test]
async fn wall_time_running_out_during_a_model_call_ends_the_run_out_of_budget() {
    let f = fixture();
    let provider = Arc::new(
        ScriptedProvider::from_json(
            &json!([{"delay_ms": 10_000, "final_answer": "too late"}]).to_string(),
        )
        .unwrap(),
    );
    let mut profile = RunProfile::default();
    profile.budgets.max_wall_time_ms = 200;
    let run = f
        .app
        .start_run(StartRun {
            workspace: f.ws.path().display().to_string(),
            goal: "slow model".into(),
            profile,
            provider,
            images: Vec::new(),
        })
        .unwrap();
    let p = tokio::time::timeout(Duration::from_secs(5), f.app.wait_run(run))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        p.status,
        RunStatus::BudgetExhausted {
            which: bearagent_kernel::BudgetKind::WallTime
        }
    );
    let t = types(&f.app, run);
    assert_eq!(t.last(), Some(&"budget_exhausted"));
    assert!(!t.contains(&"model_call_failed"), "{t:?}");
    assert!(!t.contains(&"run_failed"), "{t:?}");
}

#[tokio::test]
async fn a_loop_whose_store_fails_stops_with_the_error_instead_of_hanging() {
    let f = fixture();
    let mut rx = f.app.subscribe();
    let run = start(
        &f,
        json!([{"delay_ms": 400, "final_answer": "never recorded"}]),
        ApprovalMode::AllowAll,
    );
    // Once the model call is under way, an event the loop cannot decode
    // lands in its log (a damaged database or a foreign writer).
    loop {
        if let LiveEvent::Committed(e) = rx.recv().await.unwrap() {
            if matches!(e.payload, EventPayload::ModelCallStarted { .. }) {
                break;
            }
        }
    }
    let raw = rusqlite::Connection::open(f.app.store().path()).unwrap();
    raw.execute(
        "INSERT INTO events (run_id, seq, type, at, cause, schema_version, payload)
         VALUES (?1, 5, 'garbage', '2026-01-01T00:00:00Z', NULL, 1, '{not json')",
        [run.to_string()],
    )
    .unwrap();
    let err = tokio::time::timeout(Duration::from_secs(10), f.app.wait_run(run))
        .await
        .expect("the loop must not hang")
        .unwrap_err();
    assert_eq!(err.code(), crate::ErrorCode::Storage, "{err}");
    let aborted = loop {
        if let LiveEvent::RunAborted { run_id, message } = rx.recv().await.unwrap() {
            break (run_id, message);
        }
    };
    assert_eq!(aborted.0, run);
    assert!(aborted.1.contains("cannot be decoded"), "{}", aborted.1);
    assert!(f.app.active_runs().is_empty());
}

#[tokio::test]
async fn a_second_process_leaves_a_live_run_alone_and_cannot_steer_it() {
    let f = fixture();
    let mut rx = f.app.subscribe();
    let run = start(
        &f,
        json!([write("a.txt"), {"final_answer": "ok"}]),
        ApprovalMode::AskWrites,
    );
    let call = next_approval(&mut rx).await;
    // Another BearAgent process opens the same data folder meanwhile.
    let clock = FixedClock(Timestamp::from_unix_millis(1_800_000_000_000).unwrap());
    let other = Application::open(f._home.path(), Arc::new(clock)).unwrap();
    assert_eq!(
        other.get_run(run).unwrap().status,
        RunStatus::AwaitingApproval
    );
    assert!(matches!(
        other.run_ownership(run).unwrap(),
        bearagent_store::Ownership::Elsewhere(ref o) if o.pid == std::process::id()
    ));
    let approve = Decision {
        approve: true,
        scope: ApprovalScope::Once,
        reason: None,
        by: "user".into(),
        allow_prefix: None,
        network: false,
    };
    let err = other
        .decide_approval(run, &call, approve.clone())
        .unwrap_err();
    assert_eq!(err.code(), crate::ErrorCode::Conflict);
    assert!(
        err.to_string().contains("another BearAgent process"),
        "{err}"
    );
    assert_eq!(
        other.cancel_run(run).unwrap_err().code(),
        crate::ErrorCode::Conflict
    );
    // The owner goes on undisturbed.
    f.app.decide_approval(run, &call, approve).unwrap();
    let p = f.app.wait_run(run).await.unwrap();
    assert_eq!(p.status, RunStatus::Succeeded);
    assert!(!types(&f.app, run).contains(&"run_interrupted"));
}
