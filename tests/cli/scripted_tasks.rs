//! End-to-end: scripted tasks through the `bearagent` binary on temp
//! workspaces, asserting exit codes, events, projections and files.
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use serde_json::json;
use support::{answer, env, read, write};

#[test]
fn task1_reads_two_docs_and_writes_a_report() {
    let env = env();
    env.write("docs/arch-a.md", "# A\nEvent sourcing.\n");
    env.write("docs/arch-b.md", "# B\nCRUD tables.\n");
    let report = "# Report\nA uses events; B uses tables. Prefer A.\n";
    let r = env.run(
        json!([
            read("docs/arch-a.md"),
            read("docs/arch-b.md"),
            write("outputs/report.md", report),
            answer("Wrote outputs/report.md comparing A and B.")
        ]),
        &["--approve", "all"],
        "compare the architecture notes in docs and write the conclusion to outputs/report.md",
    );
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(env.read("outputs/report.md").as_deref(), Some(report));
    env.keep("file-tools-read-write", &r.run_id());
    r.assert_seqs_contiguous();
    let types = r.types();
    assert_eq!(types.first().map(String::as_str), Some("run_created"));
    assert_eq!(types.last().map(String::as_str), Some("run_succeeded"));
    assert_eq!(r.of_type("tool_call_completed").len(), 3);
    let first_read = &r.of_type("tool_call_completed")[0]["payload"]["result"]["content"];
    assert!(first_read.as_str().unwrap().contains("Event sourcing."));
    let intent = r.of_type("effect_intended");
    assert_eq!(intent.len(), 1);
    assert_eq!(intent[0]["payload"]["before_hash"], json!(null));
    let artifact = r.of_type("artifact_recorded");
    assert_eq!(artifact[0]["payload"]["path"], "outputs/report.md");

    // The projection agrees, through another command.
    let out = env.bearagent(&["inspect", &r.run_id(), "--json"]);
    assert!(out.status.success());
    let p: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(p["status"]["kind"], "succeeded");
    assert_eq!(p["tool_calls"], 3);
    assert_eq!(p["model_calls"], 4);
}

#[test]
fn task2_searches_for_a_symbol_and_edits_it_in_place() {
    let env = env();
    env.write(
        "src/lib.rs",
        "pub fn compute_total(x: u32) -> u32 {\n    x * 2\n}\n",
    );
    env.write(
        "src/main.rs",
        "fn main() { println!(\"{}\", demo::compute_total(2)); }\n",
    );
    let r = env.run(
        json!([
            {"tool_call": {"tool_name": "search_text", "arguments": {"pattern": "fn compute_total", "literal": true}}},
            {"tool_call": {"tool_name": "edit_file", "arguments": {"path": "src/lib.rs", "old_string": "x * 2", "new_string": "x * 3"}}},
            answer("compute_total now triples.")
        ]),
        &["--approve", "all"],
        "make compute_total triple its input",
    );
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    env.keep("search-and-edit", &r.run_id());
    let search = &r.of_type("tool_call_completed")[0]["payload"]["result"]["content"];
    assert!(
        search.as_str().unwrap().contains("src/lib.rs:1:"),
        "{search}"
    );
    assert_eq!(
        env.read("src/lib.rs").unwrap(),
        "pub fn compute_total(x: u32) -> u32 {\n    x * 3\n}\n"
    );
    let artifact = r.of_type("artifact_recorded");
    assert_eq!(artifact.len(), 1);
    assert!(artifact[0]["payload"]["before_hash"].is_string());
    assert_ne!(
        artifact[0]["payload"]["before_hash"],
        artifact[0]["payload"]["after_hash"]
    );
}

#[test]
fn task3_reads_a_missing_file_recovers_and_finishes() {
    let env = env();
    env.write("README.md", "hello\n");
    let r = env.run(
        json!([
            read("READ_ME.md"),
            read("README.md"),
            answer("It says hello.")
        ]),
        &["--approve", "all"],
        "what does the readme say?",
    );
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let failed = r.of_type("tool_call_failed");
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0]["payload"]["result"]["is_error"], true);
    assert_eq!(r.of_type("tool_call_completed").len(), 1);
    assert_eq!(r.types().last().unwrap(), "run_succeeded");
}

#[test]
fn task4_a_budget_is_exhausted_mid_run() {
    let env = env();
    env.write("a.txt", "a");
    let r = env.run(
        json!([
            read("a.txt"),
            read("a.txt"),
            read("a.txt"),
            answer("never reached")
        ]),
        &["--approve", "all", "--max-tool-calls", "1"],
        "read a.txt three times",
    );
    assert_eq!(r.code, 3, "{}\n{}", r.stdout, r.stderr);
    let exhausted = r.of_type("budget_exhausted");
    assert_eq!(exhausted.len(), 1);
    assert_eq!(exhausted[0]["payload"]["which"], "tool_calls");
    assert_eq!(r.of_type("tool_call_started").len(), 1);
    assert!(r.of_type("run_succeeded").is_empty());
    env.keep("budget-exhausted", &r.run_id());
}

#[test]
fn task5_invalid_model_output_then_recovery() {
    let env = env();
    let r = env.run(
        json!([
            {"raw_text": "Sure! I'll just answer in prose."},
            {"raw_text": "{\"type\":\"final_answer\",\"content\":\"42\"}"}
        ]),
        &["--approve", "all"],
        "answer in JSON",
    );
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let failed = r.of_type("model_call_failed");
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0]["payload"]["class"], "invalid_output");
    assert_eq!(r.of_type("run_succeeded")[0]["payload"]["answer"], "42");
    env.keep("invalid-output-recovered", &r.run_id());
}

#[test]
fn invalid_output_too_many_times_fails_the_run_with_that_class() {
    let env = env();
    let garbage = json!({"raw_text": "nope"});
    let r = env.run(
        json!([garbage, garbage, garbage]),
        &["--approve", "all"],
        "g",
    );
    assert_eq!(r.code, 1, "{}\n{}", r.stdout, r.stderr);
    let reason = r.of_type("run_failed")[0]["payload"]["reason"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(reason.contains("invalid model output 3 times"), "{reason}");
}

#[test]
fn an_exhausted_script_fails_the_run_and_is_never_an_answer() {
    let env = env();
    let r = env.run(json!([]), &["--approve", "all"], "g");
    assert_eq!(r.code, 1);
    assert_eq!(
        r.of_type("model_call_failed")[0]["payload"]["class"],
        "script_exhausted"
    );
    assert!(r.of_type("run_succeeded").is_empty());
}

#[test]
fn a_denied_write_reaches_the_model_and_the_file_is_never_written() {
    let env = env();
    // stdin is not a terminal: asking denies.
    let r = env.run(
        json!([
            write("notes.md", "x"),
            answer("I could not write the note.")
        ]),
        &["--approve", "reads"],
        "write a note",
    );
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(env.read("notes.md"), None);
    env.keep("approval-denied", &r.run_id());
    let denied = r.of_type("approval_denied");
    assert_eq!(denied.len(), 1);
    assert_eq!(denied[0]["payload"]["by"], "cli:no-terminal");
    let failed = r.of_type("tool_call_failed");
    assert!(failed[0]["payload"]["result"]["content"]
        .as_str()
        .unwrap()
        .contains("denied"));
    assert!(r.of_type("tool_call_started").is_empty());
}

#[test]
fn escapes_are_refused_and_nothing_outside_the_workspace_is_touched() {
    let env = env();
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret.txt");
    std::fs::write(&secret, "keep me").unwrap();
    std::os::unix::fs::symlink(outside.path(), env.ws().join("link")).unwrap();
    let abs = secret.display().to_string();
    let r = env.run(
        json!([
            write("../escaped.txt", "x"),
            write(&abs, "overwritten"),
            write("link/secret.txt", "overwritten"),
            read(&abs),
            read("link/secret.txt"),
            write(".git/config", "x"),
            answer("all refused")
        ]),
        &["--approve", "all"],
        "try to escape",
    );
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(r.of_type("tool_call_failed").len(), 6, "{}", r.stdout);
    assert!(r.of_type("tool_call_started").is_empty());
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), "keep me");
    assert!(!env.ws().parent().unwrap().join("escaped.txt").exists());
    assert!(!env.ws().join(".git").exists());
}

/// A model stuck on one call: three identical reads run, the fourth is
/// refused as a loop (the model is told), the fifth asks the user — with
/// no terminal that is a "no", so the run fails with a clear reason, exit 1.
#[test]
fn a_looping_model_runs_at_most_three_identical_calls_then_the_run_stops() {
    let env = env();
    env.write("a.md", "the same every time\n");
    let steps: Vec<_> = (0..8)
        .map(|_| json!({"tool_call": {"tool_name": "read_file", "arguments": {"path": "a.md"}}}))
        .chain([answer("never reached")])
        .collect();
    let r = env.run(json!(steps), &["--approve", "reads"], "read a.md forever");
    assert_eq!(r.code, 1, "{}", r.stderr);
    r.assert_seqs_contiguous();
    assert_eq!(r.of_type("tool_call_completed").len(), 3);
    let loops = r.of_type("loop_detected");
    assert_eq!(loops.len(), 1);
    assert_eq!(loops[0]["payload"]["tool_name"], "read_file");
    assert_eq!(loops[0]["payload"]["repeats"], 3);
    env.keep("loop-detected", &r.run_id());
    let failed = r.of_type("run_failed");
    let reason = failed[0]["payload"]["reason"].as_str().unwrap();
    assert!(reason.contains("kept repeating"), "{reason}");
    // Without a terminal the denial says how to let it go on.
    assert!(reason.contains("raise max_repeated_calls"), "{reason}");
    // Thresholds come from the profile.
    std::fs::write(
        env.home.path().join("config.toml"),
        "version = 1\n[profiles.patient]\nmax_repeated_calls = 5\n",
    )
    .unwrap();
    let r = env.run(
        json!(steps),
        &["--approve", "reads", "--profile", "patient"],
        "read a.md forever",
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(r.of_type("tool_call_completed").len(), 5);
}

#[test]
fn runs_events_and_inspect_agree_and_exit_codes_are_distinct() {
    let env = env();
    let r = env.run(json!([answer("done")]), &["--approve", "all"], "quick");
    assert_eq!(r.code, 0);
    let ws = env.ws().display().to_string();
    let runs = env.bearagent(&["runs", "--workspace", &ws, "--json"]);
    let line: serde_json::Value =
        serde_json::from_slice(runs.stdout.split(|b| *b == b'\n').next().unwrap()).unwrap();
    assert_eq!(line["run_id"], r.run_id().as_str());
    let events = env.bearagent(&["events", &r.run_id(), "--after", "2", "--json"]);
    let lines = String::from_utf8(events.stdout).unwrap();
    let first: serde_json::Value = serde_json::from_str(lines.lines().next().unwrap()).unwrap();
    assert_eq!(first["event"]["seq"], 3);
    let human = env.bearagent(&["inspect", &r.run_id()]);
    assert!(String::from_utf8(human.stdout)
        .unwrap()
        .contains("succeeded"));
    // Usage errors are 2.
    assert_eq!(
        env.bearagent(&["inspect", "not-a-run-id"]).status.code(),
        Some(2)
    );
    assert_eq!(
        env.bearagent(&["run", "--workspace", &ws, "goal"])
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn a_reader_that_leaves_early_ends_the_listing_quietly() {
    use std::process::Stdio;
    let env = env();
    env.write("big.txt", &"a line of text to list\n".repeat(8_000));
    let r = env.run(
        json!([read("big.txt"), answer("read it")]),
        &["--approve", "all"],
        "read big.txt",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    // `bearagent events RUN --json | head -1`: the reader is gone before
    // the 180 KB listing is written.
    let mut child = env
        .command()
        .args(["events", &r.run_id(), "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.code(), Some(141), "{stderr}");
}
