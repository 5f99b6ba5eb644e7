//! Kill the CLI (SIGKILL) in the middle of a write-heavy scripted run,
//! start BearAgent again, and check the run is Interrupted — never
//! Succeeded — and every write is verified or Unknown.
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::time::{Duration, Instant};
use support::env;

#[test]
fn a_killed_run_is_interrupted_and_its_writes_are_verified_or_unknown() {
    let env = env();
    let body = "x".repeat(200_000);
    let steps: Vec<Value> = (0..400)
        .map(|i| {
            json!({"delay_ms": 5, "usage": {"input": 10, "output": 10}, "tool_call": {"tool_name": "write_file",
                "arguments": {"path": format!("out/f{i}.txt"), "content": body}}})
        })
        .chain([json!({"final_answer": "wrote everything"})])
        .collect();
    let script = env.script(Value::Array(steps));
    let mut child = env
        .command()
        .args([
            "run",
            "--json",
            "--approve",
            "all",
            "--max-steps",
            "1000",
            "--max-tool-calls",
            "1000",
        ])
        .arg("--script")
        .arg(&script)
        .arg("--workspace")
        .arg(env.ws())
        .arg("write four hundred files")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Let it get well into the writes, then kill it without warning.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let written = std::fs::read_dir(env.ws().join("out"))
            .map(|d| d.count())
            .unwrap_or(0);
        if written >= 20 || Instant::now() > deadline {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();

    // Starting BearAgent again (any command) reconciles unfinished runs.
    let out = env.bearagent(&["runs", "--json"]);
    assert!(out.status.success());
    let run: Value =
        serde_json::from_slice(out.stdout.split(|b| *b == b'\n').next().unwrap()).unwrap();
    assert_eq!(run["status"]["kind"], "interrupted", "{run}");
    let run_id = run["run_id"].as_str().unwrap();

    let events = env.events_of(run_id);
    let types: Vec<&str> = events
        .iter()
        .map(|e| e["payload"]["type"].as_str().unwrap())
        .collect();
    assert!(!types.contains(&"run_succeeded"));
    assert!(types.contains(&"run_interrupted"));
    env.keep("interrupted-mid-writes", run_id);
    assert!(types.iter().filter(|t| **t == "effect_intended").count() >= 20);

    let mut intended = BTreeSet::new();
    let mut settled = BTreeSet::new();
    for e in &events {
        let p = &e["payload"];
        match p["type"].as_str().unwrap() {
            "effect_intended" => {
                intended.insert(p["call_id"].as_str().unwrap().to_owned());
            }
            "tool_call_completed" => {
                settled.insert(p["result"]["call_id"].as_str().unwrap().to_owned());
            }
            "effect_verified" | "effect_unknown" => {
                settled.insert(p["call_id"].as_str().unwrap().to_owned());
            }
            _ => {}
        }
    }
    let unsettled: Vec<_> = intended.difference(&settled).collect();
    assert!(
        unsettled.is_empty(),
        "writes with no outcome: {unsettled:?}"
    );

    // Nothing is re-executed: a second start adds no events to the run.
    let before = events.len();
    assert!(env.bearagent(&["runs"]).status.success());
    assert_eq!(env.events_of(run_id).len(), before);
}
