//! The kill -9 harness: a write-heavy scripted run is SIGKILLed at a random
//! moment, BearAgent starts again on the same data folder, and the record
//! must still be true — `PRAGMA integrity_check` ok, the run Interrupted
//! (never Succeeded), seqs 1..n with no gap, every write settled (completed,
//! verified not applied, or Unknown) and no torn file in the workspace.
//!
//! `BEARAGENT_KILL_ROUNDS` sets the number of kills (CI runs 5):
//!
//!     BEARAGENT_KILL_ROUNDS=50 cargo test -p bearagent-cli --test kill_harness -- --nocapture
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::process::Stdio;
use std::time::{Duration, Instant};
use support::{env, Env};

/// Long enough (at 3 ms of model time per write plus durable commits) that
/// every kill lands before the run could finish.
const FILES_PER_RUN: usize = 600;

/// A small deterministic generator seeded from the clock: every round
/// kills at another moment, and the seed is printed to replay a failure.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
}

fn body(round: usize, i: usize) -> String {
    format!("round {round} file {i}\n").repeat(2_000)
}

/// Runs one round; returns the number of files on disk afterwards, or None
/// when the kill came before the run was even created.
fn kill_round(env: &Env, round: usize, kill_after: Duration) -> Option<usize> {
    let steps: Vec<Value> = (0..FILES_PER_RUN)
        .map(|i| {
            json!({"delay_ms": 3, "tool_call": {"tool_name": "write_file",
                "arguments": {"path": format!("r{round}/f{i}.txt"), "content": body(round, i)}}})
        })
        .chain([json!({"final_answer": "all written"})])
        .collect();
    let script = env.script(Value::Array(steps));
    let mut child = env
        .command()
        .args(["run", "--json", "--approve", "all", "--max-steps", "1000"])
        .args([
            "--max-tool-calls",
            "1000",
            "--max-output-tokens",
            "1000000000",
        ])
        .args(["--max-input-tokens", "1000000000", "--script"])
        .arg(&script)
        .arg("--workspace")
        .arg(env.ws())
        .arg(format!("kill round {round}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(kill_after);
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();

    // The next start (any command) reconciles.
    let runs = env.runs();
    let dir = env.ws().join(format!("r{round}"));
    let Some(run) = runs
        .iter()
        .find(|r| r["goal"] == format!("kill round {round}"))
    else {
        // Killed before its run was created: nothing may have been written.
        assert!(!dir.exists(), "round {round}: files written by no run");
        return None;
    };
    let status = run["status"]["kind"].as_str().unwrap();
    assert_eq!(status, "interrupted", "round {round}: {run}");

    let events = env.events_of(run["run_id"].as_str().unwrap());
    for (i, e) in events.iter().enumerate() {
        assert_eq!(
            e["seq"],
            json!(i as u64 + 1),
            "round {round}: seq gap at {i}"
        );
    }
    let types: Vec<&str> = events
        .iter()
        .map(|e| e["payload"]["type"].as_str().unwrap())
        .collect();
    assert!(!types.contains(&"run_succeeded"), "round {round}");
    assert_eq!(types.iter().filter(|t| **t == "run_interrupted").count(), 1);

    // Every write's intent is settled.
    let mut open: BTreeSet<String> = BTreeSet::new();
    for e in &events {
        let p = &e["payload"];
        match p["type"].as_str().unwrap() {
            "effect_intended" => {
                open.insert(p["call_id"].as_str().unwrap().to_owned());
            }
            "tool_call_completed" => {
                open.remove(p["result"]["call_id"].as_str().unwrap());
            }
            "effect_verified" | "effect_unknown" => {
                open.remove(p["call_id"].as_str().unwrap());
            }
            _ => {}
        }
    }
    assert!(open.is_empty(), "round {round}: unsettled writes {open:?}");

    // No torn file: each is absent or exactly what the run wrote.
    let mut written = 0;
    for entry in std::fs::read_dir(&dir).into_iter().flatten() {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(i) = name
            .strip_prefix('f')
            .and_then(|n| n.strip_suffix(".txt"))
            .and_then(|n| n.parse::<usize>().ok())
        else {
            panic!("round {round}: unexpected file {name} (a temp file left behind?)");
        };
        let content = std::fs::read_to_string(entry.path()).unwrap();
        assert!(content == body(round, i), "round {round}: {name} is torn");
        written += 1;
    }
    Some(written)
}

#[test]
fn killed_at_random_moments_the_record_stays_true() {
    let rounds: usize = std::env::var("BEARAGENT_KILL_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    println!("kill harness: {rounds} rounds, seed {seed}");
    let mut rng = Lcg(seed);
    let env = env();
    let started = Instant::now();
    let mut figures = Vec::new();
    for round in 0..rounds {
        // From just after start-up to well into the writes.
        let kill_after = Duration::from_millis(60 + rng.next() % 1_400);
        let written = kill_round(&env, round, kill_after);
        figures.push((kill_after.as_millis(), written));
    }
    let db = rusqlite::Connection::open(env.home.path().join("bearagent.db")).unwrap();
    let check: String = db
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    println!(
        "kill harness: {rounds} kills in {:.1} s, all interrupted, integrity_check ok; \
         (kill ms, files written) per round: {figures:?}",
        started.elapsed().as_secs_f64()
    );
}
