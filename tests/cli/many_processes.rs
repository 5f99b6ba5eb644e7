//! Several real `bearagent` processes on one data folder: concurrent starts
//! (migrations), concurrent runs (no lost, duplicate or out-of-order
//! event), a live run never interrupted by another process starting, and a
//! store failure that ends the run with exit 5 instead of hanging.
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use serde_json::{json, Value};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};
use support::{answer, env, read, write, Env};

const PROCESSES: usize = 8;

fn spawn_run(env: &Env, steps: Value, goal: &str) -> Child {
    let script = env.script(steps);
    env.command()
        .args(["run", "--json", "--approve", "all", "--script"])
        .arg(&script)
        .arg("--workspace")
        .arg(env.ws())
        .arg(goal)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Starts PROCESSES runs at the same moment, each writing its own files,
/// and checks every one succeeded with a complete, gap-free log that
/// matches what it printed live.
fn run_many_at_once(env: &Env) {
    let children: Vec<(usize, Child)> = (0..PROCESSES)
        .map(|i| {
            let steps = json!([
                write(&format!("p{i}/a.txt"), &format!("process {i}")),
                read(&format!("p{i}/a.txt")),
                write(&format!("p{i}/b.txt"), "second"),
                answer(&format!("process {i} done")),
            ]);
            (i, spawn_run(env, steps, &format!("concurrent {i}")))
        })
        .collect();
    for (i, child) in children {
        let out = child.wait_with_output().unwrap();
        let result = support::RunResult::from_output_pub(out);
        assert_eq!(result.code, 0, "process {i}: {}", result.stderr);
        result.assert_seqs_contiguous();
        let stored = env.events_of(&result.run_id());
        assert_eq!(stored, result.events, "process {i}: stored log differs");
        assert_eq!(
            stored.last().unwrap()["payload"]["type"],
            "run_succeeded",
            "process {i}"
        );
        assert!(!result.types().iter().any(|t| t == "run_interrupted"));
        assert_eq!(env.read(&format!("p{i}/b.txt")).as_deref(), Some("second"));
    }
}

#[test]
fn many_processes_started_at_once_on_a_fresh_store_all_succeed() {
    let env = env();
    run_many_at_once(&env);
    let all = env.runs();
    assert_eq!(all.len(), PROCESSES);
    assert!(all.iter().all(|r| r["status"]["kind"] == "succeeded"));
}

#[test]
fn many_processes_at_once_on_an_existing_store_all_succeed() {
    let env = env();
    let first = env.run(json!([answer("warm")]), &[], "existing");
    assert_eq!(first.code, 0, "{}", first.stderr);
    run_many_at_once(&env);
    run_many_at_once(&env);
    let all = env.runs();
    assert_eq!(all.len(), 1 + 2 * PROCESSES);
    assert!(all.iter().all(|r| r["status"]["kind"] == "succeeded"));
}

#[test]
fn a_live_run_is_never_interrupted_by_other_processes_starting() {
    let env = env();
    env.write("notes.md", "notes\n");
    // Alternating calls: slow, but never a loop.
    let steps: Vec<Value> = (0..8)
        .map(|i| {
            let (tool, args) = if i % 2 == 0 {
                ("list_dir", json!({}))
            } else {
                ("read_file", json!({"path": "notes.md"}))
            };
            json!({"delay_ms": 150, "tool_call": {"tool_name": tool, "arguments": args, "call_id": format!("c{i}")}})
        })
        .chain([answer("slow and steady")])
        .collect();
    let child = spawn_run(&env, Value::Array(steps), "slow run");
    // Meanwhile other processes start (each reconciles on open) and read.
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut starts = 0;
    while starts < 10 && Instant::now() < deadline {
        let listed = env.runs();
        if let Some(run) = listed.first() {
            assert_ne!(run["status"]["kind"], "interrupted", "{run}");
        }
        starts += 1;
        std::thread::sleep(Duration::from_millis(60));
    }
    let result = support::RunResult::from_output_pub(child.wait_with_output().unwrap());
    assert_eq!(result.code, 0, "{}", result.stderr);
    assert!(!result.types().iter().any(|t| t == "run_interrupted"));
    let stored = env.events_of(&result.run_id());
    assert_eq!(stored.last().unwrap()["payload"]["type"], "run_succeeded");
}

/// Waits until the run's log (read by another process) holds an event of
/// type `t`, and returns the run id.
fn wait_for_event(env: &Env, t: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        assert!(Instant::now() < deadline, "no {t} event in time");
        if let Some(run) = env.runs().first() {
            let id = run["run_id"].as_str().unwrap().to_owned();
            if env.events_of(&id).iter().any(|e| e["payload"]["type"] == t) {
                return id;
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn wait_exit(mut child: Child, limit: Duration) -> (i32, String) {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let out = child.wait_with_output().unwrap();
            return (
                status.code().unwrap_or(-1),
                String::from_utf8_lossy(&out.stderr).into_owned(),
            );
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("the process hung after its store failed");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_run_whose_store_fails_ends_with_a_clear_error_and_exit_5() {
    let env = env();
    let steps = json!([{"delay_ms": 1500, "final_answer": "never recorded"}]);
    let child = spawn_run(&env, steps, "store will fail");
    let run_id = wait_for_event(&env, "model_call_started");
    // The failure: an event the run's process cannot decode lands in its
    // log (a damaged database, or a writer that bypassed BearAgent).
    let db = rusqlite::Connection::open(env.home.path().join("bearagent.db")).unwrap();
    db.busy_timeout(Duration::from_secs(5)).unwrap();
    db.execute(
        "INSERT INTO events (run_id, seq, type, at, cause, schema_version, payload)
         SELECT run_id, MAX(seq) + 1, 'garbage', '2026-01-01T00:00:00Z', NULL, 1, '{not json'
         FROM events WHERE run_id = ?1",
        [&run_id],
    )
    .unwrap();
    drop(db);
    let (code, stderr) = wait_exit(child, Duration::from_secs(30));
    assert_eq!(code, 5, "{stderr}");
    assert!(stderr.contains("could not record"), "{stderr}");
    assert!(stderr.contains("cannot be decoded"), "{stderr}");
}

#[test]
fn a_run_whose_database_stays_locked_ends_with_exit_5() {
    let env = env();
    let steps = json!([{"delay_ms": 800, "final_answer": "never recorded"}]);
    let child = spawn_run(&env, steps, "database will stay locked");
    wait_for_event(&env, "model_call_started");
    // Another program holds the database's write lock past BearAgent's
    // busy timeout while the model answers.
    let db = rusqlite::Connection::open(env.home.path().join("bearagent.db")).unwrap();
    db.execute_batch("BEGIN EXCLUSIVE;").unwrap();
    let (code, stderr) = wait_exit(child, Duration::from_secs(30));
    db.execute_batch("ROLLBACK;").unwrap();
    assert_eq!(code, 5, "{stderr}");
    assert!(stderr.contains("locked"), "{stderr}");
}
