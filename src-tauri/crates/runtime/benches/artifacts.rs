//! Review benchmark on a 2 000-write run (500 files, four edits each):
//! listing the run's changes — first call (reads the whole log, both
//! versions of every file and diffs them: what every call cost before the
//! cache) against later calls (the cached fold and per-version stats) —
//! and one watcher burst's attribution reading the whole log (before)
//! against reading only the events since the last burst (now).
//!
//! Run: `cargo bench -p bearagent-runtime --bench artifacts`
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod support;

use support::{median, ms};

use bearagent_kernel::EventSeq;
use bearagent_runtime::watch::attribution_fold;
use bearagent_runtime::{Application, SystemClock};
use bearagent_store::Store;
use serde_json::json;
use std::sync::Arc;
use std::time::Instant;

const FILES: usize = 500;
const WRITES: usize = 2_000;

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let home = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();
    for f in 0..FILES {
        let text: String = (0..40).map(|l| format!("line {l} of file {f}\n")).collect();
        std::fs::write(ws.path().join(format!("f{f:03}.txt")), text).unwrap();
    }
    let steps: Vec<serde_json::Value> = (0..WRITES)
        .map(|i| {
            let (f, line) = (i % FILES, 10 * (i / FILES));
            json!({"tool_call": {"tool_name": "edit_file", "arguments": {
                "path": format!("f{f:03}.txt"),
                "old_string": format!("line {line} of file {f}\n"),
                "new_string": format!("line {line} edited by write {i}\n")
            }}})
        })
        .collect();
    let app = Application::open(home.path(), Arc::new(SystemClock)).unwrap();
    let t = Instant::now();
    let run_id = support::run_script(&rt, &app, ws.path(), "edit every file four times", steps);
    let store = Store::open_in(home.path()).unwrap();
    let last = store.get_run(run_id).unwrap().unwrap().last_seq;
    println!(
        "review benchmark: a run of {WRITES} writes to {FILES} files, {} events (recorded in {:.1} s)",
        last.get(),
        t.elapsed().as_secs_f64()
    );

    let t = Instant::now();
    let listed = app.artifacts(run_id).unwrap();
    let first = t.elapsed();
    assert_eq!(listed.len(), FILES);
    let warm = median(
        (0..7)
            .map(|_| {
                let t = Instant::now();
                assert_eq!(app.artifacts(run_id).unwrap().len(), FILES);
                t.elapsed()
            })
            .collect(),
    );
    println!(
        "list changes   before (every call as the first) {:>8.1} ms   now (cached, median of 7) {:>8.1} ms   {:.1}x faster",
        ms(first),
        ms(warm),
        first.as_secs_f64() / warm.as_secs_f64()
    );

    // A burst after the run's latest step: the whole log then, the last
    // step's events now.
    let step_start = EventSeq(last.get().saturating_sub(8));
    let whole = median(
        (0..5)
            .map(|_| {
                let t = Instant::now();
                assert_eq!(
                    attribution_fold(&store, run_id, EventSeq(0)).unwrap(),
                    FILES
                );
                t.elapsed()
            })
            .collect(),
    );
    let since = median(
        (0..5)
            .map(|_| {
                let t = Instant::now();
                attribution_fold(&store, run_id, step_start).unwrap();
                t.elapsed()
            })
            .collect(),
    );
    println!(
        "attribution    before (whole log per burst)     {:>8.2} ms   now (events since the last burst) {:>6.2} ms   {:.0}x less",
        ms(whole),
        ms(since),
        whole.as_secs_f64() / since.as_secs_f64()
    );
}
