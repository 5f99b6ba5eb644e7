//! Given a finished run that wrote files, when the user reverts, re-applies
//! or keeps them, then the disk and the events say so.

use super::*;
use crate::artifacts::projection::Change;
use crate::artifacts::DiskState;
use crate::{RunProfile, StartRun};
use bearagent_kernel::{ApprovalMode, EventSeq, FixedClock, ReviewAction, Timestamp};
use bearagent_providers::ScriptedProvider;
use serde_json::json;
use std::sync::Arc;

pub(crate) struct Done {
    pub(crate) _home: tempfile::TempDir,
    pub(crate) ws: tempfile::TempDir,
    pub(crate) app: Application,
    pub(crate) run: RunId,
}

pub(crate) async fn finished_run(
    steps: serde_json::Value,
    setup: impl FnOnce(&std::path::Path),
) -> Done {
    let home = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();
    setup(ws.path());
    let clock = FixedClock(Timestamp::from_unix_millis(1_800_000_000_000).unwrap());
    let app = Application::open(home.path(), Arc::new(clock)).unwrap();
    let provider = Arc::new(ScriptedProvider::from_json(&steps.to_string()).unwrap());
    let run = app
        .start_run(StartRun {
            workspace: ws.path().display().to_string(),
            goal: "edit files".into(),
            profile: RunProfile {
                approval_mode: ApprovalMode::AllowAll,
                ..RunProfile::default()
            },
            provider,
            images: Vec::new(),
        })
        .unwrap();
    app.wait_run(run).await.unwrap();
    Done {
        _home: home,
        ws,
        app,
        run,
    }
}

pub(crate) fn write(path: &str, content: &str) -> serde_json::Value {
    json!({"tool_call": {"tool_name": "write_file", "arguments": {"path": path, "content": content}}})
}

pub(crate) fn read(d: &Done, rel: &str) -> Option<String> {
    std::fs::read_to_string(d.ws.path().join(rel)).ok()
}

pub(crate) fn last_type(d: &Done) -> &'static str {
    let events = d.app.list_events(d.run, EventSeq(0), 5000).unwrap();
    events.last().unwrap().payload.type_name()
}

#[tokio::test]
async fn artifacts_list_added_and_modified_files_with_their_disk_state() {
    let d = finished_run(
        json!([write("new.md", "n\n"), write("old.md", "changed\n"), {"final_answer": "ok"}]),
        |ws| std::fs::write(ws.join("old.md"), "original\n").unwrap(),
    )
    .await;
    let list = d.app.artifacts(d.run).unwrap();
    assert_eq!(list.len(), 2);
    assert_eq!(list[0].record.path, "new.md");
    assert_eq!(list[0].record.change(), Change::Added);
    assert_eq!(list[1].record.change(), Change::Modified);
    assert!(list.iter().all(|a| a.disk == DiskState::RunVersion));
    assert_eq!(list[1].before_bytes, 9);
    let FileDiff::Text { added, removed, .. } =
        d.app.artifact_diff(d.run, "old.md", false).unwrap()
    else {
        panic!()
    };
    assert_eq!((added, removed), (1, 1));
}

#[tokio::test]
async fn revert_restores_the_original_and_reapply_brings_the_run_version_back() {
    let d = finished_run(
        json!([write("old.md", "changed\n"), write("new.md", "n\n"), {"final_answer": "ok"}]),
        |ws| std::fs::write(ws.join("old.md"), "original\n").unwrap(),
    )
    .await;
    d.app.revert_artifact(d.run, "old.md", false).unwrap();
    assert_eq!(read(&d, "old.md").as_deref(), Some("original\n"));
    assert_eq!(last_type(&d), "artifact_reverted");
    // A file the run created is removed by a revert.
    d.app.revert_artifact(d.run, "new.md", false).unwrap();
    assert_eq!(read(&d, "new.md"), None);
    let list = d.app.artifacts(d.run).unwrap();
    assert!(list
        .iter()
        .all(|a| a.record.review == Review::Reverted && a.disk == DiskState::BeforeVersion));
    // Undo both.
    d.app.reapply_artifact(d.run, "old.md", false).unwrap();
    d.app.reapply_artifact(d.run, "new.md", false).unwrap();
    assert_eq!(read(&d, "old.md").as_deref(), Some("changed\n"));
    assert_eq!(read(&d, "new.md").as_deref(), Some("n\n"));
    assert_eq!(last_type(&d), "artifact_reapplied");
    assert!(
        d.app.reapply_artifact(d.run, "old.md", false).is_err(),
        "not reverted any more"
    );
}

#[tokio::test]
async fn a_revert_refuses_to_overwrite_a_later_edit_unless_forced_and_then_keeps_it() {
    let d = finished_run(
        json!([write("a.md", "run\n"), {"final_answer": "ok"}]),
        |_| {},
    )
    .await;
    std::fs::write(d.ws.path().join("a.md"), "user edit\n").unwrap();
    assert_eq!(
        d.app.artifacts(d.run).unwrap()[0].disk,
        DiskState::ChangedSince
    );
    let err = d.app.revert_artifact(d.run, "a.md", false).unwrap_err();
    assert_eq!(err.code(), crate::ErrorCode::Conflict);
    assert_eq!(
        read(&d, "a.md").as_deref(),
        Some("user edit\n"),
        "nothing touched"
    );
    d.app.revert_artifact(d.run, "a.md", true).unwrap();
    assert_eq!(read(&d, "a.md"), None);
    let events = d.app.list_events(d.run, EventSeq(0), 5000).unwrap();
    let EventPayload::ArtifactReverted {
        replaced_hash: Some(saved),
        forced: true,
        ..
    } = &events.last().unwrap().payload
    else {
        panic!("{:?}", events.last())
    };
    assert_eq!(
        d.app.store.get_blob(saved).unwrap().unwrap(),
        b"user edit\n"
    );
}

#[tokio::test]
async fn binary_files_and_keep_are_handled() {
    let d = finished_run(
        json!([write("data.bin", "a\u{0}b"), {"final_answer": "ok"}]),
        |_| {},
    )
    .await;
    assert!(matches!(
        d.app.artifact_diff(d.run, "data.bin", false).unwrap(),
        FileDiff::Binary { .. }
    ));
    d.app.keep_artifact(d.run, "data.bin").unwrap();
    assert_eq!(
        d.app.artifacts(d.run).unwrap()[0].record.review,
        Review::Kept
    );
    assert!(d.app.keep_artifact(d.run, "missing.md").is_err());
}

#[tokio::test]
async fn a_file_written_back_to_its_original_content_is_not_an_artifact() {
    let d = finished_run(
        json!([write("a.md", "x\n"), write("a.md", "orig\n"), {"final_answer": "ok"}]),
        |ws| std::fs::write(ws.join("a.md"), "orig\n").unwrap(),
    )
    .await;
    assert!(d.app.artifacts(d.run).unwrap().is_empty());
}

#[tokio::test]
async fn a_run_exports_to_json_with_blobs_and_a_markdown_report_with_diffs() {
    let d = finished_run(
        json!([write("old.md", "changed\n"), {"final_answer": "Changed old.md."}]),
        |ws| std::fs::write(ws.join("old.md"), "original\n").unwrap(),
    )
    .await;
    let out = tempfile::tempdir().unwrap();
    let exported = d.app.export_run(d.run, out.path()).unwrap();
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&exported.json).unwrap()).unwrap();
    assert_eq!(doc["format"], "bearagent-run-export");
    let events = doc["events"].as_array().unwrap();
    assert_eq!(
        events.len() as u64,
        d.app.get_run(d.run).unwrap().last_seq.get()
    );
    // Both versions of the file are in the export: "original\n" and "changed\n" in hex.
    let blobs = doc["blobs_hex"].as_object().unwrap();
    assert!(blobs.values().any(|v| v == "6f726967696e616c0a"));
    assert!(blobs.values().any(|v| v == "6368616e6765640a"));
    let md = std::fs::read_to_string(&exported.markdown).unwrap();
    assert!(md.contains("## Final answer\n\nChanged old.md."), "{md}");
    assert!(md.contains("### `old.md` (modified)"), "{md}");
    assert!(md.contains("-original\n+changed\n"), "{md}");
}

fn types(d: &Done) -> Vec<&'static str> {
    let events = d.app.list_events(d.run, EventSeq(0), 5000).unwrap();
    events.iter().map(|e| e.payload.type_name()).collect()
}

/// What a process that stopped between a revert's intent and its outcome
/// leaves behind: the intent recorded; the file written or not (`write`).
async fn interrupted_revert(write_file: Option<&str>) -> Done {
    let d = finished_run(
        json!([write("a.md", "run\n"), {"final_answer": "ok"}]),
        |ws| std::fs::write(ws.join("a.md"), "before\n").unwrap(),
    )
    .await;
    let record = d.app.find_artifact(d.run, "a.md").unwrap();
    let replaced = d.app.store.put_blob(b"run\n", d.app.clock.now()).unwrap();
    crate::run::recorder::append_beside(
        &d.app.store,
        d.app.clock.as_ref(),
        &d.app.live,
        d.run,
        EventPayload::ReviewIntended {
            path: "a.md".into(),
            action: ReviewAction::Revert,
            restored_hash: record.before.clone(),
            replaced_hash: Some(replaced),
            forced: false,
            hunks: vec![],
            rewound_to: None,
        },
    )
    .unwrap();
    if let Some(content) = write_file {
        std::fs::write(d.ws.path().join("a.md"), content).unwrap();
    }
    d
}

#[tokio::test]
async fn given_a_revert_then_its_intent_is_recorded_before_the_file_changes_and_its_outcome_after()
{
    let d = finished_run(
        json!([write("a.md", "run\n"), {"final_answer": "ok"}]),
        |_| {},
    )
    .await;
    d.app.revert_artifact(d.run, "a.md", false).unwrap();
    let t = types(&d);
    assert_eq!(t[t.len() - 2..], ["review_intended", "artifact_reverted"]);
    d.app.reapply_artifact(d.run, "a.md", false).unwrap();
    let t = types(&d);
    assert_eq!(t[t.len() - 2..], ["review_intended", "artifact_reapplied"]);
}

#[tokio::test]
async fn given_a_crash_before_the_file_was_written_when_the_user_reverts_then_it_is_settled_not_applied_and_runs(
) {
    let d = interrupted_revert(None).await;
    // Nothing assumed meanwhile: the review is still pending.
    assert_eq!(
        d.app.artifacts(d.run).unwrap()[0].record.review,
        Review::Pending
    );
    d.app.revert_artifact(d.run, "a.md", false).unwrap();
    assert_eq!(read(&d, "a.md").as_deref(), Some("before\n"));
    let events = d.app.list_events(d.run, EventSeq(0), 5000).unwrap();
    let settled = &events[events.len() - 3].payload;
    let EventPayload::ReviewAbandoned { reason, .. } = settled else {
        panic!("{settled:?}")
    };
    assert!(reason.contains("before the file was written"), "{reason}");
    let t = types(&d);
    assert_eq!(t[t.len() - 2..], ["review_intended", "artifact_reverted"]);
}

#[tokio::test]
async fn given_a_crash_after_the_file_was_written_when_the_user_acts_then_the_revert_is_settled_applied(
) {
    let d = interrupted_revert(Some("before\n")).await;
    let err = d.app.revert_artifact(d.run, "a.md", false).unwrap_err();
    assert_eq!(err.code(), crate::ErrorCode::Conflict, "{err}");
    assert_eq!(last_type(&d), "artifact_reverted");
    assert_eq!(
        d.app.artifacts(d.run).unwrap()[0].record.review,
        Review::Reverted
    );
    // And it can be undone as any revert.
    d.app.reapply_artifact(d.run, "a.md", false).unwrap();
    assert_eq!(read(&d, "a.md").as_deref(), Some("run\n"));
}

#[tokio::test]
async fn given_a_crash_and_a_file_holding_neither_version_then_nothing_is_assumed() {
    let d = interrupted_revert(Some("someone else\n")).await;
    d.app.keep_artifact(d.run, "a.md").unwrap();
    let events = d.app.list_events(d.run, EventSeq(0), 5000).unwrap();
    let settled = &events[events.len() - 2].payload;
    let EventPayload::ReviewAbandoned { reason, .. } = settled else {
        panic!("{settled:?}")
    };
    assert!(reason.contains("neither version"), "{reason}");
    assert_eq!(read(&d, "a.md").as_deref(), Some("someone else\n"));
    assert_eq!(last_type(&d), "artifact_kept");
}
