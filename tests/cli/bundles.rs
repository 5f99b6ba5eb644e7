//! End-to-end: a run handed to someone else as one file. `export --bundle`
//! in one data folder, `import` in another: `inspect --json` is the same
//! there, the run is read-only (no follow-up), and it forks into a
//! workspace of the importer.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use serde_json::{json, Value};

fn inspect(env: &support::Env, run: &str) -> Value {
    let out = env.bearagent(&["inspect", run, "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn an_exported_bundle_imports_elsewhere_as_the_same_read_only_forkable_run() {
    let here = support::env();
    let run = here.run(
        json!([
            support::write("calc.py", "def add(a, b):\n    return a + b\n"),
            support::answer("done")
        ]),
        &["--approve", "all"],
        "write calc.py",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let run_id = run.run_id();
    let file = here.scratch.path().join("run.bearagent-run");
    let file = file.to_str().unwrap();
    let out = here.bearagent(&["export", &run_id, "--bundle", file]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let there = support::env();
    let out = there.bearagent(&["import", file, "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["run_id"], run_id.as_str());
    assert_eq!(inspect(&here, &run_id), inspect(&there, &run_id));
    assert_eq!(here.events_of(&run_id), there.events_of(&run_id));
    // Listed as imported there (from the bundle's file), not here; and it
    // replays there, where its workspace is on no disk.
    let listed = there.runs();
    let file_name = std::path::Path::new(file)
        .file_name()
        .unwrap()
        .to_str()
        .unwrap();
    assert_eq!(listed[0]["imported_from"], file_name, "{listed:?}");
    assert_eq!(here.runs()[0]["imported_from"], Value::Null);
    let line = there.bearagent(&["runs"]);
    assert!(String::from_utf8_lossy(&line.stdout).contains("[imported]"));
    let only = there.json_lines(&["runs", "--imported", "--json"]);
    assert_eq!(only.len(), 1);
    assert!(here
        .json_lines(&["runs", "--imported", "--json"])
        .is_empty());
    let replay = there.bearagent(&["replay", &run_id]);
    assert!(
        replay.status.success(),
        "{}",
        String::from_utf8_lossy(&replay.stdout)
    );

    let script = there.script(json!([support::answer("more")]));
    let script = script.to_str().unwrap();
    let follow = there.bearagent(&["run", "--script", script, "--continue", &run_id, "and more"]);
    assert!(!follow.status.success());
    assert!(String::from_utf8_lossy(&follow.stderr).contains("read-only"));

    let ws = there.ws().to_str().unwrap();
    let fork = there.bearagent(&[
        "run",
        "--json",
        "--script",
        script,
        "--fork",
        &run_id,
        "--at",
        "3",
        "--workspace",
        ws,
        "--approve",
        "all",
        "go on",
    ]);
    assert!(
        fork.status.success(),
        "{}",
        String::from_utf8_lossy(&fork.stderr)
    );

    // A damaged bundle: refused, nothing added.
    let bytes = std::fs::read(file).unwrap();
    let cut = there.scratch.path().join("cut.bearagent-run");
    std::fs::write(&cut, &bytes[..bytes.len() - 20]).unwrap();
    let third = support::env();
    let out = third.bearagent(&["import", cut.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "a usage error");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("is not a readable BearAgent run bundle"),
        "{stderr}"
    );
    assert!(third.runs().is_empty());
}
