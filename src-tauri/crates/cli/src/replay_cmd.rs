//! `bearagent replay RUN_ID`: re-drives a run from its record with this
//! build's loop and says whether every step is what was recorded (exit 0)
//! or where it first is not (exit 1).

use crate::args::ReplayArgs;
use crate::exit::{self, Exit};
use crate::query_cmd::parse_run;
use bearagent_runtime::Application;
use serde_json::json;

pub async fn replay(app: &Application, q: ReplayArgs) -> Exit {
    let run_id = match parse_run(&q.run_id) {
        Ok(id) => id,
        Err(e) => return e,
    };
    let report = match app.replay_run(run_id).await {
        Ok(report) => report,
        Err(e) => return exit::report(&e),
    };
    if q.json {
        let divergence = report.divergence.as_ref().map(|d| {
            json!({"seq": d.seq.0, "expected": d.expected, "actual": d.actual, "fields": d.fields})
        });
        println!(
            "{}",
            json!({"run_id": run_id.to_string(), "events": report.events,
                   "matched": report.matched, "identical": report.divergence.is_none(),
                   "divergence": divergence, "notes": report.notes})
        );
    } else {
        match &report.divergence {
            None => println!("replayed {} events: identical", report.events),
            Some(d) => println!(
                "replayed {} of {} events, then {d}",
                report.matched, report.events
            ),
        }
        for note in &report.notes {
            println!("note: {note}");
        }
    }
    if report.divergence.is_none() {
        Exit::Succeeded
    } else {
        Exit::Failed
    }
}
