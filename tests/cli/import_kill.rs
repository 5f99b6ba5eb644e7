//! End-to-end: `bearagent import` killed with SIGKILL at random moments.
//! Each run of the bundle is in the store whole and marked read-only, or
//! not at all — never a partial or writable copy of a foreign run — and
//! importing again completes the job.
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// A finished two-run thread of many events, exported as a bundle.
fn bundle(env: &support::Env) -> (std::path::PathBuf, Vec<(String, usize)>) {
    let mut steps: Vec<Value> = Vec::new();
    for i in 0..120 {
        env.write(&format!("notes-{i}.txt"), &format!("note {i}\n"));
        steps.push(support::read(&format!("notes-{i}.txt")));
    }
    steps.push(support::answer("read"));
    let first = env.run(
        json!(steps),
        &[
            "--approve",
            "all",
            "--max-steps",
            "500",
            "--max-tool-calls",
            "500",
        ],
        "read a lot",
    );
    assert_eq!(first.code, 0, "{}", first.stderr);
    let script = env.script(json!([support::answer("and again")]));
    let out = env
        .command()
        .args([
            "run",
            "--json",
            "--approve",
            "all",
            "--continue",
            &first.run_id(),
            "--script",
        ])
        .arg(&script)
        .arg("go on")
        .output()
        .unwrap();
    let second = support::RunResult::from_output_pub(out);
    assert_eq!(second.code, 0, "{}", second.stderr);
    let file = env.scratch.path().join("thread.bearagent-run");
    let out = env
        .command()
        .args(["export", &second.run_id(), "--bundle"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let runs = [first.run_id(), second.run_id()]
        .into_iter()
        .map(|id| {
            let n = env.events_of(&id).len();
            (id, n)
        })
        .collect();
    (file, runs)
}

/// The runs of `runs` the store at `env` has: each must be whole and
/// imported.
fn present(env: &support::Env, runs: &[(String, usize)]) -> usize {
    let listed = env.json_lines(&["runs", "--json"]);
    let mut count = 0;
    for (id, events) in runs {
        let Some(row) = listed.iter().find(|r| r["run_id"] == id.as_str()) else {
            continue;
        };
        assert!(
            row["imported_from"].is_string(),
            "run {id} is here but not read-only: {row}"
        );
        assert_eq!(env.events_of(id).len(), *events, "run {id} is partial");
        count += 1;
    }
    count
}

#[test]
fn a_killed_import_leaves_each_run_whole_and_read_only_or_absent() {
    let source = support::env();
    let (file, runs) = bundle(&source);
    let timed = support::env();
    let started = Instant::now();
    let out = timed.command().arg("import").arg(&file).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let whole = started.elapsed();
    let seed = u64::from(std::process::id()) ^ (whole.as_nanos() as u64);
    println!("import takes {whole:?}; seed {seed}");
    let mut rng = seed;
    let mut partial = 0;
    for round in 0..12 {
        rng = rng
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let delay = Duration::from_nanos((rng >> 33) % (whole.as_nanos() as u64).max(1));
        let env = support::env();
        let mut child = env.command().arg("import").arg(&file).spawn().unwrap();
        std::thread::sleep(delay);
        let _ = child.kill();
        child.wait().unwrap();
        let here = present(&env, &runs);
        println!(
            "round {round}: killed after {delay:?}, {here} of {} runs in",
            runs.len()
        );
        if here < runs.len() {
            partial += 1;
        }
        let out = env.command().arg("import").arg(&file).output().unwrap();
        assert!(
            out.status.success(),
            "re-import: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(present(&env, &runs), runs.len());
    }
    println!("{partial} of 12 kills landed before the import finished");
}
