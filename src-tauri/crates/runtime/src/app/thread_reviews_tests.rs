//! A follow-up and what happened between the runs of its thread: the
//! user's reverts are told to the model (exactly as "what the model saw"
//! rebuilds), and the earlier runs' writes are not changes outside it.

use super::tests::{fixture, next_approval};
use super::threads_tests::{assert_rebuilt_exactly, messages, script, start};
use crate::ThreadStart;
use bearagent_kernel::{ApprovalMode, EventPayload, EventSeq};
use serde_json::json;

#[tokio::test]
async fn a_follow_up_does_not_take_its_parent_s_write_for_a_change_outside_the_run() {
    let f = fixture();
    let parent = script(json!([
        {"tool_call": {"tool_name": "write_file", "arguments": {"path": "report.md", "content": "# Report\n"}}},
        {"final_answer": "written"}
    ]));
    let first = f
        .app
        .start_run(start("write the report", &f, &parent))
        .unwrap();
    f.app.wait_run(first).await.unwrap();
    // The follow-up waits on a question, so it stays live while files change.
    let mut rx = f.app.subscribe();
    let asks = script(json!([
        {"tool_call": {"tool_name": "write_file", "arguments": {"path": "more.md", "content": "x"}}},
        {"final_answer": "done"}
    ]));
    let mut follow = start("add more", &f, &asks);
    follow.workspace = String::new();
    follow.profile.approval_mode = ApprovalMode::AskWrites;
    let thread = ThreadStart {
        run_id: first,
        at: None,
    };
    let second = f.app.start_follow_up(follow, thread).unwrap();
    next_approval(&mut rx).await;
    // The parent's version written again (as a late notification would
    // report it), then a real change by someone else.
    std::fs::write(f.ws.path().join("report.md"), "# Report\n").unwrap();
    std::fs::write(f.ws.path().join("other.md"), "theirs\n").unwrap();
    let observed = tokio::time::timeout(std::time::Duration::from_secs(10), async {
        loop {
            let paths: Vec<String> = f
                .app
                .list_events(second, EventSeq(0), 1000)
                .unwrap()
                .into_iter()
                .filter_map(|e| match e.payload {
                    EventPayload::ExternalChangeObserved { path, .. } => Some(path),
                    _ => None,
                })
                .collect();
            if paths.iter().any(|p| p == "other.md") {
                return paths;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the other change is observed");
    assert_eq!(observed, ["other.md"]);
    f.app.cancel_run(second).unwrap();
}

#[tokio::test]
async fn a_follow_up_is_told_which_hunks_and_files_the_user_reverted_and_what_the_model_saw_stays_exact(
) {
    let f = fixture();
    std::fs::write(
        f.ws.path().join("guide.md"),
        "top\n1\n2\n3\n4\n5\n6\n7\n8\n9\nbottom\n",
    )
    .unwrap();
    let parent = script(json!([
        {"tool_call": {"tool_name": "write_file", "arguments": {"path": "guide.md", "content": "TOP\n1\n2\n3\n4\n5\n6\n7\n8\n9\nBOTTOM\n"}}},
        {"tool_call": {"tool_name": "write_file", "arguments": {"path": "extra.md", "content": "extra\n"}}},
        {"final_answer": "written"}
    ]));
    let first = f
        .app
        .start_run(start("edit the guide", &f, &parent))
        .unwrap();
    f.app.wait_run(first).await.unwrap();
    f.app.revert_hunks(first, "guide.md", &[1], false).unwrap();
    f.app.revert_artifact(first, "extra.md", false).unwrap();
    let follow = script(json!([{"final_answer": "ok"}]));
    let mut start_follow = start("go on", &f, &follow);
    start_follow.workspace = String::new();
    let second = f
        .app
        .start_follow_up(
            start_follow,
            ThreadStart {
                run_id: first,
                at: None,
            },
        )
        .unwrap();
    f.app.wait_run(second).await.unwrap();
    let sent = follow.calls();
    let told = messages(&sent[0]);
    let hunk = told
        .iter()
        .find(|m| m.contains("reverted hunk 1 of your change to `guide.md`"))
        .unwrap_or_else(|| panic!("{told:#?}"));
    assert!(hunk.contains("-top\n+TOP\n"), "{hunk}");
    assert!(
        told.iter()
            .any(|m| m.contains("reverted your change to `extra.md`")),
        "{told:#?}"
    );
    // The notes come after the earlier run's answer, before the new goal.
    let at = |needle: &str| told.iter().position(|m| m.contains(needle)).unwrap();
    assert!(at("written") < at("guide.md") && at("extra.md") < at("go on"));
    assert_rebuilt_exactly(&f, second, &sent);
}

#[tokio::test]
async fn a_follow_up_is_told_of_the_user_s_edit_and_of_a_rewind_and_what_the_model_saw_stays_exact()
{
    let f = fixture();
    let parent = script(json!([
        {"tool_call": {"tool_name": "write_file", "arguments": {"path": "a.md", "content": "run\n"}}},
        {"tool_call": {"tool_name": "write_file", "arguments": {"path": "b.md", "content": "run\n"}}},
        {"final_answer": "written"}
    ]));
    let first = f.app.start_run(start("write two", &f, &parent)).unwrap();
    f.app.wait_run(first).await.unwrap();
    f.app.keep_edited(first, "a.md", "mine\n", false).unwrap();
    // Back to before the second write: b.md goes.
    let events = f.app.list_events(first, EventSeq(0), 1000).unwrap();
    let to = events
        .iter()
        .find(
            |e| matches!(&e.payload, EventPayload::ArtifactRecorded { path, .. } if path == "a.md"),
        )
        .unwrap()
        .seq;
    let report = f.app.rewind(first, to, false).unwrap();
    assert_eq!(report.files.len(), 1, "{report:?}");
    let follow = script(json!([{"final_answer": "ok"}]));
    let mut start_follow = start("go on", &f, &follow);
    start_follow.workspace = String::new();
    let thread = ThreadStart {
        run_id: first,
        at: None,
    };
    let second = f.app.start_follow_up(start_follow, thread).unwrap();
    f.app.wait_run(second).await.unwrap();
    let sent = follow.calls();
    let told = messages(&sent[0]);
    let edit = told
        .iter()
        .find(|m| m.contains("the user edited your change to `a.md`"))
        .unwrap_or_else(|| panic!("{told:#?}"));
    assert!(edit.contains("-run\n+mine\n"), "{edit}");
    assert!(
        told.iter()
            .any(|m| m.contains("rewound the files") && m.contains("`b.md`")),
        "{told:#?}"
    );
    assert_rebuilt_exactly(&f, second, &sent);
}

#[tokio::test]
async fn rewinding_the_first_run_of_a_thread_puts_back_what_its_follow_ups_did_too() {
    let f = fixture();
    std::fs::write(f.ws.path().join("notes.md"), "v0\n").unwrap();
    let write = |content: &str| {
        script(json!([
            {"tool_call": {"tool_name": "write_file", "arguments": {"path": "notes.md", "content": content}}},
            {"final_answer": "written"}
        ]))
    };
    let first = f.app.start_run(start("one", &f, &write("v1\n"))).unwrap();
    f.app.wait_run(first).await.unwrap();
    let mut parent = first;
    let mut runs = vec![first];
    for content in ["v2\n", "v3\n"] {
        let provider = write(content);
        let mut next = start("more", &f, &provider);
        next.workspace = String::new();
        let thread = ThreadStart {
            run_id: parent,
            at: None,
        };
        parent = f.app.start_follow_up(next, thread).unwrap();
        f.app.wait_run(parent).await.unwrap();
        runs.push(parent);
    }
    let read = || std::fs::read_to_string(f.ws.path().join("notes.md")).unwrap();
    assert_eq!(read(), "v3\n");
    // Someone edits the file: the rewind names the newest run it blocks.
    std::fs::write(f.ws.path().join("notes.md"), "mine\n").unwrap();
    let err = f
        .app
        .rewind(first, EventSeq(0), false)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains(&format!("run {}", runs[2])) && err.contains("notes.md"),
        "{err}"
    );
    assert_eq!(read(), "mine\n", "nothing was touched");
    std::fs::write(f.ws.path().join("notes.md"), "v3\n").unwrap();
    let report = f.app.rewind(first, EventSeq(0), false).unwrap();
    assert_eq!(read(), "v0\n");
    let later: Vec<_> = report.later_runs.iter().map(|(id, _)| *id).collect();
    assert_eq!(later, [runs[2], runs[1]], "newest first");
    // Each run's own record says what its rewind did.
    for run in &runs {
        let events = f.app.list_events(*run, EventSeq(0), 1000).unwrap();
        assert!(
            events
                .iter()
                .any(|e| matches!(e.payload, EventPayload::RewindStarted { .. })),
            "{run}"
        );
    }
}

#[tokio::test]
async fn a_follow_up_is_told_of_a_kept_hunk_and_a_reverted_one_and_what_the_model_saw_stays_exact()
{
    let f = fixture();
    std::fs::write(
        f.ws.path().join("guide.md"),
        "top\n1\n2\n3\n4\n5\n6\n7\n8\n9\nbottom\n",
    )
    .unwrap();
    let parent = script(json!([
        {"tool_call": {"tool_name": "write_file", "arguments": {"path": "guide.md", "content": "TOP\n1\n2\n3\n4\n5\n6\n7\n8\n9\nBOTTOM\n"}}},
        {"final_answer": "written"}
    ]));
    let first = f
        .app
        .start_run(start("edit the guide", &f, &parent))
        .unwrap();
    f.app.wait_run(first).await.unwrap();
    assert!(
        f.app.keep_hunks(first, "guide.md", &[3]).is_err(),
        "no hunk 3"
    );
    f.app.keep_hunks(first, "guide.md", &[1]).unwrap();
    // Kept is a decision, not a write: the file is the run's version still.
    assert_eq!(
        std::fs::read_to_string(f.ws.path().join("guide.md")).unwrap(),
        "TOP\n1\n2\n3\n4\n5\n6\n7\n8\n9\nBOTTOM\n"
    );
    f.app.revert_hunks(first, "guide.md", &[2], false).unwrap();
    let follow = script(json!([{"final_answer": "ok"}]));
    let mut start_follow = start("go on", &f, &follow);
    start_follow.workspace = String::new();
    let second = f
        .app
        .start_follow_up(
            start_follow,
            ThreadStart {
                run_id: first,
                at: None,
            },
        )
        .unwrap();
    f.app.wait_run(second).await.unwrap();
    let sent = follow.calls();
    let told = messages(&sent[0]);
    let at = |needle: &str| {
        told.iter()
            .position(|m| m.contains(needle))
            .unwrap_or_else(|| panic!("no {needle:?} in {told:#?}"))
    };
    let kept = at("reviewed hunk 1 of your change to `guide.md` and kept it");
    assert!(told[kept].contains("-top\n+TOP\n"), "{}", told[kept]);
    let reverted = at("reverted hunk 2 of your change to `guide.md`");
    assert!(
        told[reverted].contains("-bottom\n+BOTTOM\n"),
        "{}",
        told[reverted]
    );
    assert!(at("written") < kept && kept < reverted && reverted < at("go on"));
    assert_rebuilt_exactly(&f, second, &sent);
}
