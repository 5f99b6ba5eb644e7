//! Rewind benchmark: a run whose one command rewrote 1 000 files is
//! rewound to its start (every file guarded, recorded and put back) and
//! redone, against `git checkout -- .` putting the same 1 000 files back
//! in a git repository of the same tree, measured in the same run.
//! Goal: rewind ≤ 2× git checkout.
//!
//! Run: `cargo bench -p bearagent-runtime --bench rewind`
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod support;

use support::{git, median, ms};

use bearagent_kernel::EventSeq;
use bearagent_runtime::{Application, SystemClock};
use serde_json::json;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

const FILES: usize = 1_000;
const ROUNDS: usize = 5;

/// `support::fill` with this bench's file count.
fn fill(dir: &Path, word: &str) {
    support::fill(dir, word, FILES);
}

/// `git checkout -- .` of FILES modified files, per round.
fn git_checkout() -> Vec<Duration> {
    let repo = tempfile::tempdir().unwrap();
    fill(repo.path(), "before");
    git(repo.path(), &["init", "-q"]);
    git(repo.path(), &["add", "."]);
    git(repo.path(), &["commit", "-qm", "before"]);
    (0..ROUNDS)
        .map(|_| {
            fill(repo.path(), "after");
            let t = Instant::now();
            git(repo.path(), &["checkout", "--", "."]);
            t.elapsed()
        })
        .collect()
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let home = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();
    fill(ws.path(), "before");
    let app = Application::open(home.path(), Arc::new(SystemClock)).unwrap();
    // One plain command (nothing the rule parser cannot prove, so the
    // run allows it without asking).
    let rewrite = "sed -i s/^before/after/ f*.txt";
    let steps =
        vec![json!({"tool_call": {"tool_name": "run_command", "arguments": {"command": rewrite}}})];
    let run = support::run_script(&rt, &app, ws.path(), "rewrite every file", steps);
    assert_eq!(
        app.artifacts(run).unwrap().len(),
        FILES,
        "the command changed every file"
    );
    let (mut rewinds, mut redos) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        let t = Instant::now();
        let report = app.rewind(run, EventSeq(0), false).unwrap();
        rewinds.push(t.elapsed());
        assert_eq!(report.files.len(), FILES);
        let t = Instant::now();
        app.redo_rewind(run, false).unwrap();
        redos.push(t.elapsed());
    }
    let checkout = median(git_checkout());
    let (rewind, redo) = (median(rewinds), median(redos));
    println!("rewind benchmark: {FILES} files, median of {ROUNDS}");
    println!("  git checkout -- .   {:8.1} ms", ms(checkout));
    println!(
        "  bearagent rewind    {:8.1} ms  ({:.2}× git checkout; goal ≤ 2×)",
        ms(rewind),
        rewind.as_secs_f64() / checkout.as_secs_f64()
    );
    println!(
        "  bearagent redo      {:8.1} ms  ({:.2}× git checkout)",
        ms(redo),
        redo.as_secs_f64() / checkout.as_secs_f64()
    );
}
