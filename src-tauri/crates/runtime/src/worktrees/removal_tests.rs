//! Given a discard killed after its intent, when BearAgent starts again,
//! then the removal is finished and its outcome recorded.

use crate::app::runs::StartRun;
use crate::worktrees::WorktreeRequest;
use crate::SystemClock;
use crate::{Application, RunProfile};
use bearagent_kernel::{EventPayload, NewEvent, WorktreeStep};
use bearagent_providers::ScriptedProvider;
use bearagent_tools::ApprovalMode;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn worktree_run(app: &Application, repo: &Path) -> bearagent_kernel::RunId {
    let provider = ScriptedProvider::from_json(r#"[{"final_answer": "done"}]"#).unwrap();
    let start = StartRun {
        workspace: repo.display().to_string(),
        goal: "work in a worktree".into(),
        profile: RunProfile {
            approval_mode: ApprovalMode::AllowAll,
            ..RunProfile::default()
        },
        provider: Arc::new(provider),
        images: Vec::new(),
    };
    let request = WorktreeRequest {
        name: Some("left-open".into()),
        base: None,
        carry_changes: false,
    };
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let id = app.start_run_in_worktree(start, request).unwrap();
        app.wait_run(id).await.unwrap();
        id
    })
}

#[test]
fn a_removal_whose_process_died_is_finished_at_the_next_start() {
    let home = tempfile::tempdir().unwrap();
    let repo = tempfile::tempdir().unwrap();
    let repo = repo.path().canonicalize().unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    std::fs::write(repo.join("a.txt"), "a\n").unwrap();
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-qm", "start"]);
    let app = Application::open(home.path(), Arc::new(SystemClock)).unwrap();
    let run = worktree_run(&app, &repo);
    let worktree = app.worktree_of(run).unwrap();
    // A discard killed right after its intent: recorded by a process
    // that is gone, nothing removed yet.
    let intent = WorktreeStep::RemovalStarted {
        discarded: true,
        instance: "00000000000000000000000000000dead".into(),
        pid: 1,
    };
    let seq = app.store.next_seq(run).unwrap();
    let event = NewEvent::new(
        bearagent_kernel::Clock::now(&SystemClock),
        None,
        EventPayload::WorktreeStep { step: intent },
    );
    app.store.append(run, seq, vec![event]).unwrap();
    drop(app);
    assert!(Path::new(&worktree.path).exists());

    let app = Application::open(home.path(), Arc::new(SystemClock)).unwrap();
    let events = app.store.all_events(run).unwrap();
    let last = events.last().unwrap();
    assert_eq!(
        last.payload,
        EventPayload::WorktreeRemoved { discarded: true }
    );
    assert_eq!(last.cause, Some(seq));
    assert!(!Path::new(&worktree.path).exists());
    let branches = git(&repo, &["branch", "--list", &worktree.branch]);
    assert!(branches.trim().is_empty(), "{branches}");
    // Settled once: a third start finds nothing open.
    drop(app);
    let app = Application::open(home.path(), Arc::new(SystemClock)).unwrap();
    assert_eq!(app.store.all_events(run).unwrap().len(), events.len());
}
