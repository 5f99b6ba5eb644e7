//! The demo ("Try the demo"): started as the app starts it, approved or
//! denied at its write, each followed by the demo's follow-up.

use super::session::Session;
use bearagent_kernel::RunStatus;
use serde_json::{json, Value};

async fn take(approve: bool) -> Value {
    let s = Session::new(None);
    let (workspace, run) = s.app.start_demo_run().unwrap();
    let decision =
        json!({"approve": approve, "scope": "once", "reason": null, "allowPrefix": null});
    let decisions = vec![s.decide(run, decision).await];
    assert_eq!(s.finish(run).await.status, RunStatus::Succeeded);
    let recorded = s.recorded(run).await;
    let follow = s
        .app
        .reply_to_run(run, None, "What would the plan say?".into(), Vec::new())
        .unwrap();
    s.finish(follow).await;
    let name = if approve {
        "the write approved"
    } else {
        "the write denied"
    };
    let take = json!({"name": name, "decisions": decisions, "run": recorded, "follow_up": s.recorded(follow).await});
    let take = s.placeholders(take, &[run, follow]);
    std::fs::remove_dir_all(&workspace.path).unwrap();
    take
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_scenario_is_what_the_runtime_records_now() {
    super::check("demo", vec![take(true).await, take(false).await]);
}
