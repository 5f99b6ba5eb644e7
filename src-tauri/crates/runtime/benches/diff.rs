//! Diff benchmark: a 1 MB text file with scattered changes, diffed by
//! BearAgent's backend (hunks with context, materialised) against
//! `git diff --no-index` on the same pair, in the same run. Prints both
//! medians and the ratio (goal <= 1.0x).
//!
//! Run: `cargo bench -p bearagent-runtime --bench diff`
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::expect_used, clippy::unwrap_used)]

use bearagent_runtime::artifacts::diff::{diff_versions, FileDiff};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn pair() -> (String, String) {
    let before: String = (0..20_000)
        .map(|i| format!("line {i:05}: the quick brown fox jumps over the lazy dog\n"))
        .collect();
    // Change one line in 97, delete one in 501, insert one every 733.
    let mut after = String::with_capacity(before.len());
    for (i, line) in before.lines().enumerate() {
        if i % 501 == 0 {
            continue;
        }
        if i % 97 == 0 {
            after.push_str(&format!("line {i:05}: THE QUICK BROWN FOX (changed)\n"));
        } else {
            after.push_str(line);
            after.push('\n');
        }
        if i % 733 == 0 {
            after.push_str("an inserted line\n");
        }
    }
    (before, after)
}

fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort();
    xs[xs.len() / 2]
}

fn main() {
    let (before, after) = pair();
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.txt"), dir.path().join("b.txt"));
    std::fs::write(&a, &before).unwrap();
    std::fs::write(&b, &after).unwrap();
    let git = Command::new("git").arg("--version").output();
    if git.is_err() {
        println!("git not found: skipping the comparison");
        return;
    }
    let mut ours = Vec::new();
    let mut theirs = Vec::new();
    let mut stats = (0, 0);
    for _ in 0..7 {
        let t = Instant::now();
        // Read both files too, as git does.
        let (x, y) = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
        let d = diff_versions(Some(&x), Some(&y), true);
        ours.push(t.elapsed());
        if let FileDiff::Text { added, removed, .. } = d {
            stats = (added, removed);
        }
        let t = Instant::now();
        let status = Command::new("git")
            .args(["diff", "--no-index", "--no-color", "--no-ext-diff"])
            .arg(&a)
            .arg(&b)
            .stdout(Stdio::null())
            .status()
            .unwrap();
        theirs.push(t.elapsed());
        assert_eq!(status.code(), Some(1), "git diff should report differences");
    }
    let (ours, theirs) = (median(ours), median(theirs));
    println!(
        "diff benchmark: {} KB file, +{} -{} lines, median of 7",
        before.len() / 1024,
        stats.0,
        stats.1
    );
    println!(
        "bearagent {:>7.2} ms   git diff --no-index {:>7.2} ms   ratio {:.2}x (goal <= 1.00x)",
        ours.as_secs_f64() * 1e3,
        theirs.as_secs_f64() * 1e3,
        ours.as_secs_f64() / theirs.as_secs_f64()
    );
}
