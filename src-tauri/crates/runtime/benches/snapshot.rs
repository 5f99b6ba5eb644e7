//! Workspace snapshot around a command on a 100 000-file tree: the first
//! snapshot of a run (reads every file and keeps it as a blob), then the
//! snapshots after it (one `stat` per unchanged file), against a plain
//! ignore-aware walk with `stat` of the same tree measured in the same run.
//! Goal: a warm snapshot under 500 ms.
//!
//! Run: `cargo bench -p bearagent-runtime --bench snapshot`
//! (`BEARAGENT_SNAPSHOT_FILES=N` for another size.)
#![allow(clippy::expect_used, clippy::unwrap_used)]

use bearagent_kernel::Timestamp;
use bearagent_runtime::snapshot::{changes, take, walk, SnapshotCache};
use bearagent_store::Store;
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
    let now = Timestamp::from_unix_millis(0).unwrap();
    let mut cache = SnapshotCache::default();
    let t = Instant::now();
    let first = take(ws.path(), &mut cache, &store, now).unwrap();
    let cold_ms = t.elapsed().as_secs_f64() * 1000.0;
    assert_eq!(first.files.len(), files);

    let mut warm = Vec::new();
    let mut plain = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        let n = walk(ws.path()).len();
        plain.push(t.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(n, files);
        let t = Instant::now();
        let again = take(ws.path(), &mut cache, &store, now).unwrap();
        warm.push(t.elapsed().as_secs_f64() * 1000.0);
        assert!(changes(&first, &again).is_empty());
    }
    let (warm, plain) = (median(warm), median(plain));
    println!("snapshot of {files} files");
    println!("  first (read + keep every file): {cold_ms:.0} ms");
    println!("  warm snapshot (median of 5):    {warm:.0} ms  (goal < 500 ms)");
    println!("  plain walk + stat (baseline):   {plain:.0} ms");
    println!("  ratio warm / plain walk:        {:.2}x", warm / plain);
}
