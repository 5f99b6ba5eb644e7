//! Model round trips for a 10-file read task, with one tool call per turn
//! against a (scripted) model that batches all ten reads into one turn.
//! Prints both counts and the wall time of each run.
//!
//! Run: `cargo bench -p bearagent-runtime --bench turns`
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::expect_used, clippy::unwrap_used)]

use bearagent_providers::{ModelProvider, ScriptedProvider};
use bearagent_runtime::{Application, RunProfile, StartRun, SystemClock};
use bearagent_tools::ApprovalMode;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Instant;

const FILES: usize = 10;

fn read(i: usize) -> Value {
    json!({"tool_name": "read_file", "arguments": {"path": format!("f{i}.txt")}})
}

fn run(rt: &tokio::runtime::Runtime, steps: Vec<Value>) -> (u32, u32, f64) {
    let home = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();
    for i in 0..FILES {
        std::fs::write(ws.path().join(format!("f{i}.txt")), format!("file {i}\n")).unwrap();
    }
    let provider: Arc<dyn ModelProvider> =
        Arc::new(ScriptedProvider::from_json(&Value::Array(steps).to_string()).unwrap());
    let app = Application::open(home.path(), Arc::new(SystemClock)).unwrap();
    let profile = RunProfile {
        approval_mode: ApprovalMode::AskWrites,
        ..RunProfile::default()
    };
    let started = Instant::now();
    let p = rt.block_on(async {
        let id = app
            .start_run(StartRun {
                workspace: ws.path().display().to_string(),
                goal: "read the ten files".into(),
                profile,
                provider,
                images: Vec::new(),
            })
            .unwrap();
        app.wait_run(id).await.unwrap()
    });
    assert_eq!(p.status, bearagent_kernel::RunStatus::Succeeded, "{p:?}");
    (
        p.model_calls,
        p.tool_calls,
        started.elapsed().as_secs_f64() * 1000.0,
    )
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let answer = json!({"final_answer": "read them all"});
    let one_per_turn: Vec<Value> = (0..FILES)
        .map(|i| json!({"tool_call": read(i)}))
        .chain([answer.clone()])
        .collect();
    let batched = vec![
        json!({"tool_calls": (0..FILES).map(read).collect::<Vec<_>>()}),
        answer,
    ];
    let (single_calls, single_tools, single_ms) = run(&rt, one_per_turn);
    let (batch_calls, batch_tools, batch_ms) = run(&rt, batched);
    println!("10-file read task, model round trips:");
    println!(
        "  one call per turn : {single_calls} model calls, {single_tools} tool calls, {single_ms:.1} ms"
    );
    println!(
        "  batched turn      : {batch_calls} model calls, {batch_tools} tool calls, {batch_ms:.1} ms"
    );
    println!(
        "  round trips saved : {} ({:.1}x fewer)",
        single_calls - batch_calls,
        f64::from(single_calls) / f64::from(batch_calls)
    );
}
