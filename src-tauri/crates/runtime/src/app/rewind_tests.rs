//! Given a finished run whose file tools and commands created, changed and
//! deleted files, when the user rewinds it to an event (and redoes), then
//! the tree is what it was at that event (and at the end again).

use super::*;
use crate::app::review::tests::{finished_run, read, write, Done};
use crate::artifacts::Review;
use serde_json::json;

fn cmd(command: &str) -> serde_json::Value {
    json!({"tool_call": {"tool_name": "run_command", "arguments": {"command": command}}})
}

/// write a.md; a command rewrites a.md, creates b.txt and deletes
/// gone.md; write a.md again.
async fn three_steps() -> Done {
    finished_run(
        json!([
            write("a.md", "one\n"),
            cmd("printf 'two\\n' > a.md && mkdir -p out && echo new > out/b.txt && rm gone.md"),
            // A write after a command changed the file reads it first.
            json!({"tool_call": {"tool_name": "read_file", "arguments": {"path": "a.md"}}}),
            write("a.md", "three\n"),
            {"final_answer": "ok"}
        ]),
        |ws| {
            std::fs::write(ws.join("keep.md"), "keep\n").unwrap();
            std::fs::write(ws.join("gone.md"), "gone\n").unwrap();
        },
    )
    .await
}

/// The seq of the `n`-th (from 1) `ArtifactRecorded` of `path`.
fn recorded(d: &Done, path: &str, n: usize) -> EventSeq {
    let events = d.app.list_events(d.run, EventSeq(0), 5000).unwrap();
    events
        .iter()
        .filter(
            |e| matches!(&e.payload, EventPayload::ArtifactRecorded { path: p, .. } if p == path),
        )
        .nth(n - 1)
        .unwrap()
        .seq
}

fn tree(d: &Done) -> Vec<(String, Option<String>)> {
    ["a.md", "out/b.txt", "gone.md", "keep.md"]
        .iter()
        .map(|p| (p.to_string(), read(d, p)))
        .collect()
}

fn expect(a: Option<&str>, b: Option<&str>, gone: Option<&str>) -> Vec<(String, Option<String>)> {
    [
        ("a.md", a),
        ("out/b.txt", b),
        ("gone.md", gone),
        ("keep.md", Some("keep\n")),
    ]
    .iter()
    .map(|(p, c)| (p.to_string(), c.map(str::to_owned)))
    .collect()
}

#[tokio::test]
async fn rewinding_to_after_the_first_write_undoes_the_command_and_the_second_write() {
    let d = three_steps().await;
    let end = expect(Some("three\n"), Some("new\n"), None);
    assert_eq!(tree(&d), end);
    let to = recorded(&d, "a.md", 1);
    let report = d.app.rewind(d.run, to, false).unwrap();
    assert_eq!(tree(&d), expect(Some("one\n"), None, Some("gone\n")));
    let paths: Vec<&str> = report.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["a.md", "gone.md", "out/b.txt"]);
    assert!(
        !d.ws.path().join("out").exists(),
        "the folder the command made goes too"
    );
    // The review reads it: a.md between before and after, the others back.
    let list = d.app.artifacts(d.run).unwrap();
    let review = |p: &str| {
        list.iter()
            .find(|a| a.record.path == p)
            .unwrap()
            .record
            .review
    };
    assert_eq!(review("a.md"), Review::Partial);
    assert_eq!(review("gone.md"), Review::Reverted);
    // Redo: the end state again.
    let redone = d.app.redo_rewind(d.run, false).unwrap();
    assert!(redone.redo && redone.files.len() == 3);
    assert_eq!(tree(&d), end);
    assert_eq!(
        review("a.md"),
        Review::Partial,
        "the list above is from before"
    );
    let list = d.app.artifacts(d.run).unwrap();
    assert!(
        list.iter().all(|a| a.record.review == Review::Pending),
        "{list:?}"
    );
    let err = d.app.redo_rewind(d.run, false).unwrap_err().to_string();
    assert!(err.contains("already redone"), "{err}");
}

#[tokio::test]
async fn a_file_changed_since_refuses_the_whole_rewind_by_name_unless_forced() {
    let d = three_steps().await;
    std::fs::write(d.ws.path().join("out/b.txt"), "mine\n").unwrap();
    let to = recorded(&d, "a.md", 1);
    let err = d.app.rewind(d.run, to, false).unwrap_err().to_string();
    assert!(
        err.contains("1 file changed since") && err.contains("out/b.txt"),
        "{err}"
    );
    assert_eq!(
        read(&d, "a.md").as_deref(),
        Some("three\n"),
        "nothing was touched"
    );
    let report = d.app.rewind(d.run, to, true).unwrap();
    assert_eq!(read(&d, "out/b.txt"), None);
    let forced: Vec<&str> = report
        .files
        .iter()
        .filter(|f| f.forced)
        .map(|f| f.path.as_str())
        .collect();
    assert_eq!(forced, ["out/b.txt"]);
    // What the user had written is kept: the redo puts it back.
    d.app.redo_rewind(d.run, false).unwrap();
    assert_eq!(read(&d, "out/b.txt").as_deref(), Some("mine\n"));
}

#[tokio::test]
async fn rewinding_to_the_start_is_every_file_as_before_the_run_and_bad_points_are_refused() {
    let d = three_steps().await;
    d.app.rewind(d.run, EventSeq(0), false).unwrap();
    assert_eq!(tree(&d), expect(None, None, Some("gone\n")));
    // Already there: nothing to do, nothing recorded.
    let before = d.app.list_events(d.run, EventSeq(0), 5000).unwrap().len();
    assert!(d
        .app
        .rewind(d.run, EventSeq(0), false)
        .unwrap()
        .files
        .is_empty());
    assert_eq!(
        d.app.list_events(d.run, EventSeq(0), 5000).unwrap().len(),
        before
    );
    let past = d.app.rewind(d.run, EventSeq(10_000), false).unwrap_err();
    assert!(past.to_string().contains("after the run's end"), "{past}");
}

#[tokio::test]
async fn redo_without_a_rewind_is_refused() {
    let d = three_steps().await;
    let err = d.app.redo_rewind(d.run, false).unwrap_err().to_string();
    assert!(err.contains("never rewound"), "{err}");
}

#[tokio::test]
async fn a_deleted_ignored_env_is_restorable_but_never_exported() {
    let d = finished_run(json!([cmd("rm -f .env"), {"final_answer": "ok"}]), |ws| {
        std::fs::write(ws.join(".gitignore"), ".env\n").unwrap();
        std::fs::write(ws.join(".env"), "TOKEN=s3cret\n").unwrap();
    })
    .await;
    let out = tempfile::tempdir().unwrap();
    let exported = d.app.export_run(d.run, out.path()).unwrap();
    let json = std::fs::read_to_string(&exported.json).unwrap();
    let hex: String = b"TOKEN=s3cret\n"
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert!(
        !json.contains(&hex),
        "the .env content is not in the export"
    );
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(doc["withheld_blobs"].as_array().unwrap().len(), 1);
    let md = std::fs::read_to_string(&exported.markdown).unwrap();
    assert!(
        !md.contains("s3cret") && md.contains("content withheld"),
        "{md}"
    );
    d.app.revert_artifact(d.run, ".env", false).unwrap();
    assert_eq!(read(&d, ".env").as_deref(), Some("TOKEN=s3cret\n"));
}
