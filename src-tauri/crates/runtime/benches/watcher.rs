//! Watcher benchmark on a generated 100 000-file tree: time to start
//! watching it, and change-to-notification latency (including the
//! debounce) for single edits. Goals: setup < 2 s, latency < 250 ms.
//!
//! Run: `cargo bench -p bearagent-runtime --bench watcher`
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::expect_used, clippy::unwrap_used)]

use bearagent_runtime::watch::{watch, DEBOUNCE};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const DIRS: usize = 1_000;
const FILES_PER_DIR: usize = 100;

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let t = Instant::now();
    for d in 0..DIRS {
        let sub = root.join(format!("pkg{:03}/src", d));
        std::fs::create_dir_all(&sub).unwrap();
        for f in 0..FILES_PER_DIR {
            std::fs::write(sub.join(format!("file{f:03}.rs")), "fn main() {}\n").unwrap();
        }
    }
    println!(
        "watcher benchmark: {} files in {} directories (generated in {:.1} s), debounce {} ms",
        DIRS * FILES_PER_DIR,
        DIRS * 2,
        t.elapsed().as_secs_f64(),
        DEBOUNCE.as_millis()
    );
    let (tx, rx) = mpsc::channel::<(Instant, Vec<String>)>();
    let t = Instant::now();
    let watcher = watch(&root, move |paths| {
        let _ = tx.send((Instant::now(), paths));
    })
    .unwrap();
    let setup = t.elapsed();
    let mut latencies = Vec::new();
    for i in 0..15 {
        let rel = format!(
            "pkg{:03}/src/file{:03}.rs",
            (i * 67) % DIRS,
            (i * 13) % FILES_PER_DIR
        );
        std::thread::sleep(Duration::from_millis(150));
        while rx.try_recv().is_ok() {}
        let changed = Instant::now();
        std::fs::write(
            root.join(&rel),
            format!("fn main() {{ println!(\"{i}\"); }}\n"),
        )
        .unwrap();
        loop {
            let (at, paths) = rx
                .recv_timeout(Duration::from_secs(5))
                .expect("no notification within 5 s");
            if paths.contains(&rel) {
                latencies.push(at - changed);
                break;
            }
        }
    }
    drop(watcher);
    latencies.sort();
    let median = latencies[latencies.len() / 2];
    let max = latencies[latencies.len() - 1];
    println!(
        "setup {:>7.1} ms (goal < 2000 ms)",
        setup.as_secs_f64() * 1e3
    );
    println!(
        "change-to-notification: median {:.1} ms, max {:.1} ms over {} edits (goal < 250 ms)",
        median.as_secs_f64() * 1e3,
        max.as_secs_f64() * 1e3,
        latencies.len()
    );
}
