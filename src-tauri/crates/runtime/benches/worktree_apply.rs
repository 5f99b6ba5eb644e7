//! Worktree apply benchmark: a worktree run whose one command rewrote 200
//! files is applied to the main checkout (pre-images saved, intent
//! recorded, each file replaced atomically with its mode, outcome
//! recorded) and undone, against `git checkout -- .` putting the same 200
//! files back in a repository of the same tree, measured in the same run
//! (round by round, interleaved).
//! Goal: apply + undo ≤ 2× git checkout.
//!
//! Run: `cargo bench -p bearagent-runtime --bench worktree_apply`
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod support;

use support::{git, median, ms};

use bearagent_runtime::worktrees::WorktreeRequest;
use bearagent_runtime::{Application, SystemClock};
use serde_json::json;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

const FILES: usize = 200;
const ROUNDS: usize = 15;

/// `support::fill` with this bench's file count.
fn fill(dir: &Path, word: &str) {
    support::fill(dir, word, FILES);
}

fn repo_of_befores() -> tempfile::TempDir {
    let repo = tempfile::tempdir().unwrap();
    fill(repo.path(), "before");
    git(repo.path(), &["init", "-q", "-b", "main"]);
    git(repo.path(), &["add", "."]);
    git(repo.path(), &["commit", "-qm", "before"]);
    repo
}

/// One `git checkout -- .` putting back FILES modified files of `repo`.
fn git_checkout(repo: &Path) -> Duration {
    fill(repo, "after");
    let t = Instant::now();
    git(repo, &["checkout", "--", "."]);
    t.elapsed()
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let home = tempfile::tempdir().unwrap();
    let repo = repo_of_befores();
    let app = Application::open(home.path(), Arc::new(SystemClock)).unwrap();
    let rewrite = "sed -i s/^before/after/ f*.txt";
    let steps =
        vec![json!({"tool_call": {"tool_name": "run_command", "arguments": {"command": rewrite}}})];
    let start = support::script_start(repo.path(), "rewrite every file", steps);
    let request = WorktreeRequest {
        name: Some("bench".into()),
        base: None,
        carry_changes: false,
    };
    // The run's loop is spawned on the runtime.
    let id = rt
        .block_on(async { app.start_run_in_worktree(start, request) })
        .unwrap();
    let run = support::wait_succeeded(&rt, &app, id);
    // Interleaved round by round, so a busy machine weighs on both alike.
    let plain = repo_of_befores();
    let (mut checkouts, mut applies, mut undos) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        checkouts.push(git_checkout(plain.path()));
        let t = Instant::now();
        let report = app.apply_worktree(run, &[]).unwrap();
        applies.push(t.elapsed());
        assert_eq!(report.applied.len(), FILES);
        let t = Instant::now();
        assert_eq!(app.undo_apply(run, false).unwrap().len(), FILES);
        undos.push(t.elapsed());
    }
    let checkout = median(checkouts);
    let (apply, undo) = (median(applies), median(undos));
    let ratio = (apply + undo).as_secs_f64() / checkout.as_secs_f64();
    println!("worktree apply benchmark: {FILES} files, median of {ROUNDS}");
    println!("  git checkout -- .     {:8.1} ms", ms(checkout));
    println!("  bearagent apply       {:8.1} ms", ms(apply));
    println!("  bearagent undo        {:8.1} ms", ms(undo));
    println!(
        "  apply + undo          {:8.1} ms  ({ratio:.2}× git checkout; goal ≤ 2×)",
        ms(apply + undo)
    );
}
