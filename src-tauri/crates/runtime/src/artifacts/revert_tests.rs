//! Given a finished run that wrote files, when the user reverts, re-applies
//! or keeps them, then the disk and the events say so.

use super::*;
use crate::artifacts::projection::Change;
use crate::{RunProfile, StartRun};
use bearagent_kernel::{ApprovalMode, EventSeq, FixedClock, ReviewAction, Timestamp};
use bearagent_providers::ScriptedProvider;
use serde_json::json;
use std::sync::Arc;

struct Done {
    _home: tempfile::TempDir,
    ws: tempfile::TempDir,
    app: Application,
    run: RunId,
}

async fn finished_run(steps: serde_json::Value, setup: impl FnOnce(&std::path::Path)) -> Done {
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

fn write(path: &str, content: &str) -> serde_json::Value {
    json!({"tool_call": {"tool_name": "write_file", "arguments": {"path": path, "content": content}}})
}

fn read(d: &Done, rel: &str) -> Option<String> {
    std::fs::read_to_string(d.ws.path().join(rel)).ok()
}

fn last_type(d: &Done) -> &'static str {
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

const GUIDE_BEFORE: &str = "top\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\nbottom\n";
const GUIDE_AFTER: &str = "TOP\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\nBOTTOM\n";

async fn two_hunks() -> Done {
    finished_run(
        json!([write("guide.md", GUIDE_AFTER), {"final_answer": "ok"}]),
        |ws| std::fs::write(ws.join("guide.md"), GUIDE_BEFORE).unwrap(),
    )
    .await
}

fn hunk_count(d: &Done, rel: &str) -> usize {
    match d.app.artifact_diff(d.run, rel, false).unwrap() {
        FileDiff::Text { hunks, .. } => hunks.len(),
        FileDiff::Binary { .. } => panic!("binary"),
    }
}

#[tokio::test]
async fn reverting_one_hunk_of_two_leaves_exactly_the_other_and_re_apply_brings_both_back() {
    let d = two_hunks().await;
    assert_eq!(hunk_count(&d, "guide.md"), 2);
    d.app.revert_hunks(d.run, "guide.md", &[1], false).unwrap();
    assert_eq!(
        read(&d, "guide.md").unwrap(),
        GUIDE_BEFORE.replace("bottom", "BOTTOM")
    );
    assert_eq!(last_type(&d), "artifact_hunks_reverted");
    let view = &d.app.artifacts(d.run).unwrap()[0];
    assert_eq!(view.record.review, Review::Partial);
    assert_eq!(view.disk, DiskState::ReviewedVersion);
    assert_eq!(view.lines, Some((1, 1)), "the stats are of what is left");
    assert_eq!(hunk_count(&d, "guide.md"), 1);
    // The numbering is of the diff shown now: the one left is hunk 1.
    assert!(d.app.revert_hunks(d.run, "guide.md", &[2], false).is_err());
    d.app.reapply_artifact(d.run, "guide.md", false).unwrap();
    assert_eq!(read(&d, "guide.md").unwrap(), GUIDE_AFTER);
    assert_eq!(
        d.app.artifacts(d.run).unwrap()[0].record.review,
        Review::Pending
    );
}

#[tokio::test]
async fn the_last_hunk_reverted_is_a_revert_and_a_file_changed_since_is_refused() {
    let d = two_hunks().await;
    d.app.revert_hunks(d.run, "guide.md", &[2], false).unwrap();
    d.app.revert_hunks(d.run, "guide.md", &[1], false).unwrap();
    assert_eq!(read(&d, "guide.md").unwrap(), GUIDE_BEFORE);
    let view = &d.app.artifacts(d.run).unwrap()[0];
    assert_eq!(
        (view.record.review, view.disk),
        (Review::Reverted, DiskState::BeforeVersion)
    );

    let d = two_hunks().await;
    std::fs::write(d.ws.path().join("guide.md"), "mine\n").unwrap();
    let err = d
        .app
        .revert_hunks(d.run, "guide.md", &[1], false)
        .unwrap_err();
    assert!(
        err.to_string().contains("changed since the run wrote it"),
        "{err}"
    );
    assert_eq!(read(&d, "guide.md").unwrap(), "mine\n");
}

#[tokio::test]
async fn a_hunk_revert_interrupted_before_its_outcome_is_settled_from_the_file() {
    let d = two_hunks().await;
    let record = d.app.find_artifact(d.run, "guide.md").unwrap();
    let partial = GUIDE_BEFORE.replace("bottom", "BOTTOM");
    let restored = d
        .app
        .store
        .put_blob(partial.as_bytes(), d.app.clock.now())
        .unwrap();
    crate::run::recorder::append_beside(
        &d.app.store,
        d.app.clock.as_ref(),
        &d.app.live,
        d.run,
        EventPayload::ReviewIntended {
            path: "guide.md".into(),
            action: ReviewAction::RevertHunks,
            restored_hash: Some(restored),
            replaced_hash: record.now.clone(),
            forced: false,
            hunks: vec![1],
        },
    )
    .unwrap();
    // The process stopped after writing the file, before the outcome.
    std::fs::write(d.ws.path().join("guide.md"), &partial).unwrap();
    d.app.keep_artifact(d.run, "guide.md").unwrap();
    let events = d.app.list_events(d.run, EventSeq(0), 5000).unwrap();
    let kinds: Vec<&str> = events
        .iter()
        .rev()
        .take(2)
        .map(|e| e.payload.type_name())
        .collect();
    assert_eq!(kinds, ["artifact_kept", "artifact_hunks_reverted"]);
    assert_eq!(
        d.app.artifacts(d.run).unwrap()[0].disk,
        DiskState::ReviewedVersion
    );
}

#[tokio::test]
async fn revert_and_re_apply_keep_a_file_s_mode() {
    use std::os::unix::fs::PermissionsExt;
    let mode = |d: &Done, rel: &str| {
        std::fs::metadata(d.ws.path().join(rel))
            .unwrap()
            .permissions()
            .mode()
            & 0o777
    };
    let d = finished_run(
        json!([write("run.sh", "echo new\n"), write("secret.cfg", "b\n"), {"final_answer": "ok"}]),
        |ws| {
            for (rel, content, m) in [
                ("run.sh", "echo old\n", 0o755),
                ("secret.cfg", "a\n", 0o640),
            ] {
                std::fs::write(ws.join(rel), content).unwrap();
                std::fs::set_permissions(ws.join(rel), std::fs::Permissions::from_mode(m)).unwrap();
            }
        },
    )
    .await;
    assert_eq!((mode(&d, "run.sh"), mode(&d, "secret.cfg")), (0o755, 0o640));
    for rel in ["run.sh", "secret.cfg"] {
        d.app.revert_artifact(d.run, rel, false).unwrap();
    }
    assert_eq!(read(&d, "run.sh").unwrap(), "echo old\n");
    assert_eq!((mode(&d, "run.sh"), mode(&d, "secret.cfg")), (0o755, 0o640));
    d.app.reapply_artifact(d.run, "run.sh", false).unwrap();
    assert_eq!(mode(&d, "run.sh"), 0o755);
}

/// Folders a command made are removed when a revert leaves them empty,
/// folders that were there before stay (even empty), and a re-apply
/// removes again the folders the command had removed.
#[tokio::test]
async fn revert_and_reapply_remove_the_empty_folders_the_command_made_or_removed() {
    let command = "mkdir -p made/deep/er && echo x > made/deep/er/f.txt && echo y > had/new.txt \
                   && echo z > empty/e.txt && rm -r old";
    let d = finished_run(
        json!([
            {"tool_call": {"tool_name": "run_command", "arguments": {"command": command}}},
            {"final_answer": "done"}
        ]),
        |ws| {
            std::fs::create_dir_all(ws.join("had")).unwrap();
            std::fs::write(ws.join("had/old.txt"), "old").unwrap();
            std::fs::create_dir_all(ws.join("empty")).unwrap();
            std::fs::create_dir_all(ws.join("old/sub")).unwrap();
            std::fs::write(ws.join("old/sub/o.txt"), "o").unwrap();
        },
    )
    .await;
    let paths = [
        "empty/e.txt",
        "had/new.txt",
        "made/deep/er/f.txt",
        "old/sub/o.txt",
    ];
    let views = d.app.artifacts(d.run).unwrap();
    assert_eq!(
        views
            .iter()
            .map(|a| a.record.path.as_str())
            .collect::<Vec<_>>(),
        paths
    );
    for path in paths {
        d.app.revert_artifact(d.run, path, false).unwrap();
    }
    let ws = d.ws.path();
    assert!(
        !ws.join("made").exists(),
        "a folder the command made is gone"
    );
    assert!(ws.join("had").is_dir() && ws.join("empty").is_dir());
    assert_eq!(read(&d, "old/sub/o.txt").as_deref(), Some("o"));

    d.app
        .reapply_artifact(d.run, "old/sub/o.txt", false)
        .unwrap();
    assert!(!ws.join("old").exists(), "the command had removed old/");
    d.app.reapply_artifact(d.run, "empty/e.txt", false).unwrap();
    d.app.revert_artifact(d.run, "empty/e.txt", false).unwrap();
    assert!(ws.join("empty").is_dir(), "it existed before the command");
}
