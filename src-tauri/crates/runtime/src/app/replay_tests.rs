//! Given runs made by the real loop (file tools, commands, approvals,
//! several calls a turn, hooks, a denial, a cancel), when each is
//! replayed, then it is identical; and when its record is altered so a
//! decision changes, the divergence is found at the right seq.

use crate::{Decision, RunProfile, StartRun};
use bearagent_kernel::{ApprovalMode, ApprovalScope, EventPayload, RunId};
use bearagent_providers::ScriptedProvider;
use serde_json::json;
use std::sync::Arc;

use crate::test_support::{temp_app as fixture, TempApp as Fixture};

fn start(f: &Fixture, mode: ApprovalMode, steps: serde_json::Value) -> RunId {
    f.app
        .start_run(StartRun {
            workspace: f.ws.path().display().to_string(),
            goal: "goal".into(),
            profile: RunProfile {
                approval_mode: mode,
                ..RunProfile::default()
            },
            provider: Arc::new(ScriptedProvider::from_json(&steps.to_string()).unwrap()),
            images: Vec::new(),
        })
        .unwrap()
}

fn call(tool: &str, args: serde_json::Value) -> serde_json::Value {
    json!({"tool_call": {"tool_name": tool, "arguments": args}})
}

async fn next_approval(rx: &mut tokio::sync::broadcast::Receiver<crate::LiveEvent>) -> String {
    loop {
        if let crate::LiveEvent::Committed(e) = rx.recv().await.unwrap() {
            if let EventPayload::ApprovalRequested { call_id, .. } = &e.payload {
                return call_id.to_string();
            }
        }
    }
}

async fn identical(f: &Fixture, run: RunId) {
    let report = f.app.replay_run(run).await.unwrap();
    assert_eq!(report.divergence, None, "{report:?}");
    assert_eq!(report.matched, report.events, "{report:?}");
}

#[tokio::test]
async fn file_tools_commands_and_several_calls_a_turn_replay_identically() {
    let f = fixture();
    std::fs::write(f.ws.path().join("a.txt"), "one\n").unwrap();
    let steps = json!([
        {"tool_calls": [
            {"tool_name": "read_file", "arguments": {"path": "a.txt"}},
            {"tool_name": "list_dir", "arguments": {"path": "."}}
        ]},
        call("write_file", json!({"path": "b.txt", "content": "two\n"})),
        call("edit_file", json!({"path": "a.txt", "old_string": "one", "new_string": "uno"})),
        call("run_command", json!({"command": "cat a.txt b.txt"})),
        call("update_plan", json!({"plan": [{"step": "write", "status": "completed"}]})),
        {"final_answer": "done"}
    ]);
    let run = start(&f, ApprovalMode::AllowAll, steps);
    f.app.wait_run(run).await.unwrap();
    identical(&f, run).await;
}

#[tokio::test]
async fn a_run_replays_without_its_folder_and_after_later_changes() {
    let f = fixture();
    std::fs::create_dir(f.ws.path().join("src")).unwrap();
    std::fs::write(f.ws.path().join("src/a.txt"), "one\n").unwrap();
    let absolute = f.ws.path().join("src/a.txt").display().to_string();
    let steps = json!([
        call("read_file", json!({"path": absolute})),
        call("list_dir", json!({"path": "src"})),
        call("write_file", json!({"path": "src/b.txt", "content": "two\n"})),
        call("edit_file", json!({"path": "src/a.txt", "old_string": "one", "new_string": "uno"})),
        call("run_command", json!({"command": "rm src/b.txt", "cwd": "src/.."})),
        call("write_file", json!({"path": "src/b.txt", "content": "three\n"})),
        {"final_answer": "done"}
    ]);
    let run = start(&f, ApprovalMode::AllowAll, steps);
    f.app.wait_run(run).await.unwrap();
    // The run's own command removed the file it wrote: its next write is
    // not refused as a change made outside the run.
    assert_eq!(
        std::fs::read_to_string(f.ws.path().join("src/b.txt")).unwrap(),
        "three\n"
    );
    // What came after the run: the files changed again, then the folder gone.
    std::fs::write(f.ws.path().join("src/a.txt"), "later\n").unwrap();
    identical(&f, run).await;
    std::fs::remove_dir_all(f.ws.path()).unwrap();
    identical(&f, run).await;
}

#[tokio::test]
async fn approvals_and_denials_replay_from_the_recorded_answers() {
    let f = fixture();
    let mut rx = f.app.subscribe();
    let steps = json!([
        call("write_file", json!({"path": "w.txt", "content": "x"})),
        call("write_file", json!({"path": "v.txt", "content": "y"})),
        {"final_answer": "done"}
    ]);
    let run = start(&f, ApprovalMode::AskWrites, steps);
    for approve in [true, false] {
        let call_id = next_approval(&mut rx).await;
        let decision = Decision {
            approve,
            scope: ApprovalScope::Once,
            reason: (!approve).then(|| "not that one".into()),
            by: "user".into(),
            allow_prefix: None,
            network: false,
        };
        f.app.decide_approval(run, &call_id, decision).unwrap();
    }
    f.app.wait_run(run).await.unwrap();
    identical(&f, run).await;
}

/// Rewrites `run`'s stored events (the test's way to alter a record).
fn alter(f: &Fixture, run: RunId, change: impl Fn(&mut serde_json::Value)) {
    let db = f.app.store.path().to_path_buf();
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut stmt = conn
        .prepare("SELECT seq, payload FROM events WHERE run_id = ?1")
        .unwrap();
    let rows: Vec<(i64, String)> = stmt
        .query_map([run.to_string()], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    for (seq, payload) in rows {
        let mut value: serde_json::Value = serde_json::from_str(&payload).unwrap();
        change(&mut value);
        conn.execute(
            "UPDATE events SET payload = ?1 WHERE run_id = ?2 AND seq = ?3",
            rusqlite::params![value.to_string(), run.to_string(), seq],
        )
        .unwrap();
    }
}

#[tokio::test]
async fn an_altered_record_diverges_at_the_seq_whose_decision_changed() {
    let f = fixture();
    let steps = json!([
        call("write_file", json!({"path": "w.txt", "content": "x"})),
        {"final_answer": "done"}
    ]);
    let run = start(&f, ApprovalMode::AllowAll, steps);
    f.app.wait_run(run).await.unwrap();
    identical(&f, run).await;
    // The approval mode flipped from `all` to `ask`: the write now asks.
    alter(&f, run, |v| {
        if v["type"] == "run_created" {
            v["approval_mode"] = json!("ask_all");
        }
    });
    let report = f.app.replay_run(run).await.unwrap();
    let d = report.divergence.expect("a divergence");
    assert_eq!(d.actual.as_deref(), Some("approval_requested"), "{d}");
    let events = f
        .app
        .list_events(run, bearagent_kernel::EventSeq(0), 100)
        .unwrap();
    let started = events
        .iter()
        .find(|e| matches!(e.payload, EventPayload::ToolCallStarted { .. }))
        .unwrap();
    assert_eq!(d.seq, started.seq, "{d}");
}

#[tokio::test]
async fn an_edited_tool_result_changes_the_next_request_and_is_found_there() {
    let f = fixture();
    std::fs::write(f.ws.path().join("a.txt"), "one\n").unwrap();
    let steps = json!([
        call("read_file", json!({"path": "a.txt"})),
        {"final_answer": "done"}
    ]);
    let run = start(&f, ApprovalMode::AllowAll, steps);
    f.app.wait_run(run).await.unwrap();
    alter(&f, run, |v| {
        if v["type"] == "tool_call_completed" {
            v["result"]["content"] = json!("something else entirely");
        }
    });
    let report = f.app.replay_run(run).await.unwrap();
    let d = report.divergence.expect("a divergence");
    assert_eq!(d.expected.as_deref(), Some("model_call_requested"), "{d}");
    assert!(
        d.fields
            .iter()
            .any(|l| l.contains("context_bytes") || l.contains("request_digest")),
        "{d}"
    );
}

/// The corpus: runs made by the CLI's end-to-end flows (file tools,
/// commands, MCP, several calls a turn, retries, compaction, follow-ups and
/// forks, JSON-text mode, hooks, plan mode, images, an interrupted run),
/// kept as bundles. Each is imported into a fresh store (its folder is on
/// no machine here) and replayed with the current code: a change that
/// alters what the loop does fails here, naming the run and the seq.
/// `BEARAGENT_UPDATE_CORPUS=1 cargo test -p bearagent-cli` makes them again.
#[tokio::test]
async fn the_committed_corpus_replays_identically() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tests/replay-corpus");
    let mut bundles: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "bearagent-run"))
        .collect();
    bundles.sort();
    assert!(bundles.len() >= 18, "{bundles:?}");
    let mut replayed = 0;
    for bundle in &bundles {
        let f = fixture();
        let report = f.app.import_bundle(bundle).unwrap();
        for run in &report.added {
            let replay = f.app.replay_run(*run).await.unwrap();
            assert_eq!(
                replay.divergence,
                None,
                "{} (run {run}) no longer replays: {replay:?}",
                bundle.display()
            );
            assert_eq!(replay.matched, replay.events, "{}", bundle.display());
            replayed += 1;
        }
    }
    assert!(replayed >= bundles.len());
}
