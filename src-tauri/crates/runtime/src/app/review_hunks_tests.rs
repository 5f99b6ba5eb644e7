//! Given a finished run that changed a file in two places, when the user
//! reverts one hunk (or the process stops in the middle), then exactly
//! the other stays, on disk and in the events; and every review keeps the
//! file's mode.

use crate::app::review::tests::{finished_run, last_type, read, write, Done};
use crate::artifacts::diff::FileDiff;
use crate::artifacts::{DiskState, Review};
use bearagent_kernel::{EventPayload, EventSeq, ReviewAction};
use serde_json::json;

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
            rewound_to: None,
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
