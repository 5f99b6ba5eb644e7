//! A run reading long build logs with a small window: the conversation
//! passes the profile's share of the window twice, so the run compacts
//! twice on its own (the scripted model writes the handoff summaries and
//! reports the usage a real one would: about what it was sent).

use super::provider::provider;
use super::session::Session;
use bearagent_kernel::ApprovalMode;
use bearagent_runtime::RunProfile;
use serde_json::{json, Value};

/// The model's window in this take (the UI's flow configures the same).
pub const WINDOW: u64 = 12_000;
const LOGS: usize = 6;

/// A long build log; build 4 failed at step 8.
fn build_log(n: usize) -> String {
    let mut out = String::new();
    for i in 1..=12 {
        let verdict = if i == 8 && n == 4 {
            "FAILED: tests::net::retries timed out after 30 s"
        } else {
            "ok"
        };
        out.push_str(&format!("[build {n}] step {i}/12 {verdict}\n"));
    }
    for line in 0..680 {
        out.push_str(&format!(
            "[build {n}] trace {line:04}: fetched shard {} from cache in {} ms\n",
            line % 16,
            (line * 7) % 90
        ));
    }
    out
}

fn script() -> Vec<Value> {
    let mut steps: Vec<Value> = (1..=LOGS)
        .map(|i| {
            let text = if i == 1 { "These logs are long; I'll read them one at a time and keep notes. ".to_owned() } else { format!("Reading build log {i}. ") };
            json!({
                "text": text,
                "tool_call": {"call_id": format!("call_{i}"), "tool_name": "read_file", "arguments": {"path": format!("logs/build-{i}.log")}},
            })
        })
        .collect();
    steps.push(json!({"final_answer": "Build 4 is the flaky one: tests::net::retries timed out after 30 s at step 8; the other builds passed every step."}));
    steps
}

async fn take() -> Value {
    let s = Session::new(None);
    for i in 1..=LOGS {
        s.write(&format!("logs/build-{i}.log"), build_log(i));
    }
    // Full: the compact profile's result cap would keep the reads inside
    // the small window, and this run is here to compact.
    let profile = RunProfile {
        approval_mode: ApprovalMode::AllowAll,
        context_profile: Some(bearagent_runtime::ContextProfile::Full),
        ..RunProfile::default()
    };
    let run = s.start(
        "Find the flaky build in the long logs",
        profile,
        provider(&script(), None).with_context_window(WINDOW),
    );
    s.take(run, "compacts on its own", vec![]).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_long_scenario_is_what_the_runtime_records_now() {
    super::check("long", vec![take().await]);
}
