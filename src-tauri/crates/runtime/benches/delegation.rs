//! What starting a child run costs (delegation, issue 54): one run makes
//! a plain `read_file` call, then a `task` call whose child answers at
//! once (a scripted model, so the model costs nothing). Prints the median
//! of each call's time from its start to its result, and fails when the
//! task call takes more than 50 ms over the plain one.
//!
//! Run: `cargo bench -p bearagent-runtime --bench delegation`
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod support;

use bearagent_kernel::{Delegation, EventPayload};
use bearagent_providers::{ModelProvider, ScriptedProvider};
use bearagent_runtime::{Application, RunProfile, StartRun, SystemClock};
use bearagent_tools::ApprovalMode;
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;

const ROUNDS: usize = 20;
const LIMIT: Duration = Duration::from_millis(50);

/// (plain call, task call), each from its start to its result.
fn round(rt: &tokio::runtime::Runtime) -> (Duration, Duration) {
    let home = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();
    std::fs::write(ws.path().join("a.md"), "a note\n").unwrap();
    let steps = json!([
        {"tool_call": {"tool_name": "read_file", "arguments": {"path": "a.md"}}},
        {"tool_call": {"tool_name": "task", "arguments": {"description": "look", "prompt": "say hi"}}},
        {"final_answer": "hi"},
        {"final_answer": "done"}
    ]);
    let provider: Arc<dyn ModelProvider> =
        Arc::new(ScriptedProvider::from_json(&steps.to_string()).unwrap());
    let app = Application::open(home.path(), Arc::new(SystemClock)).unwrap();
    let profile = RunProfile {
        approval_mode: ApprovalMode::AskWrites,
        delegation: Some(Delegation::default()),
        ..RunProfile::default()
    };
    let events = rt.block_on(async {
        let id = app
            .start_run(StartRun {
                workspace: ws.path().display().to_string(),
                goal: "read, then delegate".into(),
                profile,
                provider,
                images: Vec::new(),
            })
            .unwrap();
        let p = app.wait_run(id).await.unwrap();
        assert_eq!(p.status, bearagent_kernel::RunStatus::Succeeded, "{p:?}");
        app.list_events(id, bearagent_kernel::EventSeq(0), 1000)
            .unwrap()
    });
    let (mut starts, mut ends) = (Vec::new(), Vec::new());
    for e in &events {
        match &e.payload {
            EventPayload::ToolCallStarted { .. } => starts.push(e.at),
            EventPayload::ToolCallCompleted { .. } => ends.push(e.at),
            _ => {}
        }
    }
    assert_eq!((starts.len(), ends.len()), (2, 2));
    let took = |i: usize| Duration::from_millis(ends[i].millis_since(starts[i]));
    (took(0), took(1))
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let (plain, task): (Vec<_>, Vec<_>) = (0..ROUNDS).map(|_| round(&rt)).unzip();
    let (plain, task) = (support::median(plain), support::median(task));
    println!(
        "delegation: plain read_file call {:.1} ms, task call (child created, run, reported) {:.1} ms, \
         over the plain call {:.1} ms (limit {} ms), median of {ROUNDS}",
        support::ms(plain),
        support::ms(task),
        support::ms(task.saturating_sub(plain)),
        LIMIT.as_millis()
    );
    assert!(
        task.saturating_sub(plain) <= LIMIT,
        "starting a child costs more than {LIMIT:?} over a plain call"
    );
}
