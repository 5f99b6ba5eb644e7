//! Given a finished run that changed a file, when the user edits the run's
//! version and keeps it, then the file holds their edit, the review reads
//! it as kept, and the record says it is the user's.

use super::*;
use crate::app::review::tests::{finished_run, last_type, read, write, Done};
use crate::artifacts::DiskState;
use bearagent_kernel::{EventPayload, EventSeq};
use serde_json::json;

async fn wrote_guide() -> Done {
    finished_run(
        json!([write("guide.md", "# Guide\nrun line\n"), {"final_answer": "ok"}]),
        |ws| std::fs::write(ws.join("guide.md"), "# Guide\n").unwrap(),
    )
    .await
}

#[tokio::test]
async fn an_edit_of_the_run_s_version_is_written_kept_and_recorded_as_the_user_s() {
    let d = wrote_guide().await;
    d.app
        .keep_edited(d.run, "guide.md", "# Guide\nmy line\n", false)
        .unwrap();
    assert_eq!(read(&d, "guide.md").as_deref(), Some("# Guide\nmy line\n"));
    assert_eq!(last_type(&d), "artifact_edited");
    let events = d.app.list_events(d.run, EventSeq(0), 5000).unwrap();
    let Some(EventPayload::ArtifactEdited { diff, .. }) = events.last().map(|e| &e.payload) else {
        panic!("expected an edit")
    };
    assert!(
        diff.contains("-run line") && diff.contains("+my line"),
        "{diff}"
    );
    let view = &d.app.artifacts(d.run).unwrap()[0];
    assert_eq!(view.record.review, Review::Kept);
    assert_eq!(view.disk, DiskState::ReviewedVersion);
    // The review shows the user's version against the one before the run.
    let FileDiff::Text { added, removed, .. } =
        d.app.artifact_diff(d.run, "guide.md", true).unwrap()
    else {
        panic!()
    };
    assert_eq!((added, removed), (1, 0));
    // And it can still be reverted to before the run, then re-applied.
    d.app.revert_artifact(d.run, "guide.md", false).unwrap();
    assert_eq!(read(&d, "guide.md").as_deref(), Some("# Guide\n"));
}

#[tokio::test]
async fn an_edit_is_refused_when_the_file_changed_since_or_nothing_changes() {
    let d = wrote_guide().await;
    let same = d
        .app
        .keep_edited(d.run, "guide.md", "# Guide\nrun line\n", false);
    assert!(same.unwrap_err().to_string().contains("changes nothing"));
    std::fs::write(d.ws.path().join("guide.md"), "someone else\n").unwrap();
    let err = d
        .app
        .keep_edited(d.run, "guide.md", "# Guide\nmine\n", false)
        .unwrap_err();
    assert!(err.to_string().contains("changed since"), "{err}");
    assert_eq!(read(&d, "guide.md").as_deref(), Some("someone else\n"));
    d.app
        .keep_edited(d.run, "guide.md", "# Guide\nmine\n", true)
        .unwrap();
    assert_eq!(read(&d, "guide.md").as_deref(), Some("# Guide\nmine\n"));
}

#[tokio::test]
async fn the_edit_base_is_the_run_s_version_even_after_a_revert() {
    let d = wrote_guide().await;
    let base = d.app.edit_base(d.run, "guide.md").unwrap();
    assert_eq!(base, "# Guide\nrun line\n");
    d.app.revert_artifact(d.run, "guide.md", false).unwrap();
    let base = d.app.edit_base(d.run, "guide.md").unwrap();
    assert_eq!(base, "# Guide\nrun line\n");
    d.app
        .keep_edited(d.run, "guide.md", "# Guide\nmine\n", false)
        .unwrap();
    let base = d.app.edit_base(d.run, "guide.md").unwrap();
    assert_eq!(base, "# Guide\nmine\n");
}
