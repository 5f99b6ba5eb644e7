//! Workspace snapshot around a command on a 100 000-file tree: the first
//! snapshot of a run (reads every file and keeps it as a blob), then the
//! snapshots after it (one `stat` per unchanged file), against a plain
//! ignore-aware walk with `stat` of the same tree, on one thread, measured
//! in the same run.
//! Goal: a warm snapshot under 500 ms. The tree also holds what a real one
//! ignores — 500 small ignored files (kept by the safety net) and a
//! `node_modules/` of 20 000 files (left out) — and the safety net's own
//! walk is timed apart: what it adds to every command that changes
//! nothing. Then the same on this repository's own tree, as its
//! `cargo test` leaves it (`target/`, `ui/node_modules/`).
//!
//! Run: `cargo bench -p bearagent-runtime --bench snapshot`
//! (`BEARAGENT_SNAPSHOT_FILES=N` for another size.)
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::expect_used, clippy::unwrap_used)]

use bearagent_kernel::Timestamp;
use bearagent_runtime::safety_net::walk_ignored;
use bearagent_runtime::snapshot::{changes, take, walk, SnapshotCache};
use bearagent_store::Store;
use std::collections::{BTreeSet, HashSet};
use std::path::Path;
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    let files: usize = std::env::var("BEARAGENT_SNAPSHOT_FILES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let ws = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let store = Store::open_in(home.path()).unwrap();
    let per_dir = 1000;
    for i in 0..files {
        let dir = ws.path().join(format!("d{:03}", i / per_dir));
        if i % per_dir == 0 {
            std::fs::create_dir_all(&dir).unwrap();
        }
        std::fs::write(dir.join(format!("f{i}.txt")), format!("file {i}\n")).unwrap();
    }
    std::fs::write(ws.path().join(".gitignore"), "ignored/\nnode_modules/\n").unwrap();
    for (dir, n) in [("ignored", 500), ("node_modules/pkg", 20_000)] {
        let d = ws.path().join(dir);
        std::fs::create_dir_all(&d).unwrap();
        for i in 0..n {
            std::fs::write(d.join(format!("i{i}.txt")), format!("ignored {i}\n")).unwrap();
        }
    }
    let files = files + 1; // the .gitignore
    let now = Timestamp::from_unix_millis(0).unwrap();
    let mut cache = SnapshotCache::default();
    let t = Instant::now();
    let first = take(ws.path(), &mut cache, &store, now).unwrap();
    let cold_ms = t.elapsed().as_secs_f64() * 1000.0;
    assert_eq!(
        first.files.len(),
        files + 500,
        "tracked and kept ignored files"
    );

    let mut warm = Vec::new();
    let mut plain = Vec::new();
    let mut net = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        let n = plain_walk(ws.path());
        plain.push(t.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(n, files);
        assert_eq!(walk(ws.path()).len(), files);
        net.push(safety_net_ms(ws.path()));
        let t = Instant::now();
        let again = take(ws.path(), &mut cache, &store, now).unwrap();
        warm.push(t.elapsed().as_secs_f64() * 1000.0);
        assert!(changes(&first, &again).is_empty());
    }
    let (warm, plain, net) = (median(warm), median(plain), median(net));
    println!("snapshot of {files} files");
    println!("  first (read + keep every file): {cold_ms:.0} ms");
    println!("  warm snapshot (median of 5):    {warm:.0} ms  (goal < 500 ms)");
    println!("  plain walk + stat (baseline):   {plain:.0} ms");
    println!("  ratio warm / plain walk:        {:.2}x", warm / plain);
    println!("  of which the safety net's walk: {net:.0} ms  (500 ignored files kept, node_modules/ left out)");
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..");
    let mut repo_cache = SnapshotCache::default();
    take(&repo, &mut repo_cache, &store, now).unwrap();
    let (mut repo_warm, mut repo_net) = (Vec::new(), Vec::new());
    for _ in 0..5 {
        let t = Instant::now();
        take(&repo, &mut repo_cache, &store, now).unwrap();
        repo_warm.push(t.elapsed().as_secs_f64() * 1000.0);
        repo_net.push(safety_net_ms(&repo));
    }
    let tracked = walk(&repo).len();
    println!(
        "this repository ({tracked} tracked files): warm snapshot {:.0} ms, of which the safety net {:.0} ms",
        median(repo_warm),
        median(repo_net)
    );
}

/// The baseline: one thread walking `root` as `git status` would see it
/// (ignore rules on) and `stat`ing every file; the number of files.
fn plain_walk(root: &Path) -> usize {
    ignore::WalkBuilder::new(root)
        .hidden(false)
        .require_git(false)
        .filter_entry(|e| e.file_name() != ".git")
        .build()
        .flatten()
        .filter(|e| e.file_type().is_some_and(|k| k.is_file()))
        .filter(|e| e.metadata().is_ok())
        .count()
}

/// The safety net's walk alone over `root`, in ms.
fn safety_net_ms(root: &Path) -> f64 {
    let tracked = walk(root);
    let files: HashSet<&str> = tracked.iter().map(|(rel, _)| rel.as_str()).collect();
    let dirs: BTreeSet<String> = tracked
        .iter()
        .filter_map(|(rel, _)| rel.rsplit_once('/').map(|(d, _)| d.to_owned()))
        .flat_map(|d| {
            let parts: Vec<&str> = d.split('/').collect();
            (1..=parts.len())
                .map(move |n| parts[..n].join("/"))
                .collect::<Vec<_>>()
        })
        .collect();
    let t = Instant::now();
    let walked = walk_ignored(root, &files, &dirs);
    std::hint::black_box(walked.files.len());
    t.elapsed().as_secs_f64() * 1000.0
}
