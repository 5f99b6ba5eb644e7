//! `bearagent compact RUN_ID`: summarise a finished run for its next
//! follow-up.

use crate::args::InspectArgs;
use crate::exit::{self, Exit};
use crate::query_cmd::parse_run;
use bearagent_runtime::Application;
use serde_json::json;

pub async fn compact(app: &Application, q: InspectArgs) -> Exit {
    let run = match parse_run(&q.run_id) {
        Ok(run) => run,
        Err(code) => return code,
    };
    match app.compact_run(run).await {
        Ok(done) => {
            if q.json {
                println!(
                    "{}",
                    json!({"run_id": run.to_string(), "tokens_before": done.tokens_before, "tokens_after": done.tokens_after})
                );
            } else {
                println!(
                    "compacted run {run}: ~{} → ~{} tokens; `bearagent run --continue {run} \"…\"` starts from the summary",
                    done.tokens_before, done.tokens_after
                );
            }
            Exit::Succeeded
        }
        Err(e) => exit::report(&e),
    }
}
