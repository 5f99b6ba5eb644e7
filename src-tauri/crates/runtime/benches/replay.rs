//! Replay benchmark: a 2 000-step scripted run (`read_file` every step,
//! zero-latency provider, every event durably committed) against
//! `replay_run` of the same run (the loop re-driven from the record,
//! nothing executed or stored), in the same process; three runs, the
//! ratio of each. Goal ≤ 0.5×.
//!
//! Run: `cargo bench -p bearagent-runtime --bench replay`
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod support;

use bearagent_runtime::{Application, SystemClock};
use serde_json::json;
use std::sync::Arc;
use std::time::Instant;

const STEPS: usize = 2_000;
const RUNS: usize = 3;

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    println!("replay of a {STEPS}-step run vs the run itself (zero-latency scripted model)");
    for round in 1..=RUNS {
        let home = tempfile::tempdir().unwrap();
        let ws = tempfile::tempdir().unwrap();
        std::fs::write(ws.path().join("a.txt"), "a line of text\n".repeat(64)).unwrap();
        let steps = (0..STEPS)
            .map(|_| json!({"tool_call": {"tool_name": "read_file", "arguments": {"path": "a.txt"}}, "usage": {"input": 100, "output": 10}}))
            .collect();
        let app = Application::open(home.path(), Arc::new(SystemClock)).unwrap();
        let start = Instant::now();
        let run_id = support::run_script(&rt, &app, ws.path(), "read a.txt many times", steps);
        let live = start.elapsed();
        let start = Instant::now();
        let report = rt.block_on(app.replay_run(run_id)).unwrap();
        let replay = start.elapsed();
        assert!(report.divergence.is_none(), "{report:?}");
        println!(
            "  run {round}: live {:.0} ms, replay {:.0} ms ({} events): {:.2}x (goal <= 0.5x)",
            support::ms(live),
            support::ms(replay),
            report.events,
            replay.as_secs_f64() / live.as_secs_f64()
        );
    }
}
