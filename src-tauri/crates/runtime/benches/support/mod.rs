//! What the loop benches share: a long scripted run with every limit that
//! would stop it early lifted, recorded to its end.
#![allow(clippy::expect_used, clippy::unwrap_used, dead_code)]

use bearagent_kernel::RunId;
use bearagent_providers::{ModelProvider, ScriptedProvider};
use bearagent_runtime::{Application, RunProfile, StartRun};
use bearagent_tools::ApprovalMode;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

/// The middle of the measured times.
pub fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort();
    xs[xs.len() / 2]
}

/// A time in milliseconds, for printing.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Runs `steps` (tool-call steps, then a final answer is added) on `ws`
/// with nothing asked and no budget, loop or compaction stop, and waits
/// for it to succeed.
pub fn run_script(
    rt: &tokio::runtime::Runtime,
    app: &Application,
    ws: &Path,
    goal: &str,
    steps: Vec<serde_json::Value>,
) -> RunId {
    let start = script_start(ws, goal, steps);
    // The run's loop is spawned on the runtime.
    let id = {
        let _inside = rt.enter();
        app.start_run(start).unwrap()
    };
    wait_succeeded(rt, app, id)
}

/// The run of `steps` on `ws` (a final answer added), nothing asked and
/// no stop but the script's end.
pub fn script_start(ws: &Path, goal: &str, mut steps: Vec<serde_json::Value>) -> StartRun {
    let calls = steps.len() as u32;
    steps.push(serde_json::json!({"final_answer": "done", "usage": {"input": 100, "output": 10}}));
    let provider: Arc<dyn ModelProvider> = Arc::new(
        ScriptedProvider::from_json(&serde_json::Value::Array(steps).to_string()).unwrap(),
    );
    let mut profile = RunProfile {
        approval_mode: ApprovalMode::AllowAll,
        ..RunProfile::default()
    };
    profile.budgets.max_model_calls = calls + 1;
    profile.budgets.max_tool_calls = calls;
    profile.budgets.max_input_tokens = u64::MAX;
    profile.budgets.max_output_tokens = u64::MAX;
    // Repeating a call is the point here, not a loop to stop.
    profile.max_repeated_calls = 0;
    // The scripted model does not summarise: keep the whole history.
    profile.context.compact_at_permille = None;
    StartRun {
        workspace: ws.display().to_string(),
        goal: goal.into(),
        profile,
        provider,
        images: Vec::new(),
    }
}

/// Waits for `id` to end and checks it succeeded.
pub fn wait_succeeded(rt: &tokio::runtime::Runtime, app: &Application, id: RunId) -> RunId {
    rt.block_on(async {
        let p = app.wait_run(id).await.unwrap();
        assert_eq!(p.status, bearagent_kernel::RunStatus::Succeeded, "{p:?}");
        id
    })
}

/// Writes `files` files `f0000.txt`… of 40 lines each, every line naming
/// `word` (a round's "before" or "after" version of the same tree).
pub fn fill(dir: &Path, word: &str, files: usize) {
    for f in 0..files {
        let text: String = (0..40)
            .map(|l| format!("{word} line {l} of file {f}\n"))
            .collect();
        std::fs::write(dir.join(format!("f{f:04}.txt")), text).unwrap();
    }
}

/// `git ARGS` in `dir` as a bench committer; panics unless it succeeds.
pub fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .args([
            "-c",
            "user.name=bench",
            "-c",
            "user.email=bench@example.com",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
        .status
        .success();
    assert!(ok, "git {args:?}");
}
