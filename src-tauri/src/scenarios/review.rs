//! Turn-grain review of the changes scenario's run, for the mock to
//! answer from: edit before keep (refused for the file edited since, then
//! forced; accepted for another), "Rewind to here" on the turn that wrote
//! the settings (refused naming the files changed since, then forced),
//! its redo, and the fork "Rewind to here" opens. Each step is recorded
//! from a fresh session of the same run, with the files it concerns as
//! they were before and after, so the mock plays a step only from the
//! state it was recorded in.

use super::changes::{finished, PLAN};
use super::provider::provider;
use super::session::Session;
use crate::dto::artifacts::{ArtifactItem, FileDiffView};
use crate::dto::review::RewindReportView;
use crate::dto::ApiError;
use bearagent_kernel::{ApprovalMode, EventPayload, EventSeq, RunId};
use bearagent_runtime::artifacts::rewind::versions_at;
use bearagent_runtime::{AppError, RunProfile, StartRun, ThreadStart};
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// The user's edit of the run's version of each file.
pub const SETTINGS_MINE: &str =
    "lang = \"en\"\nlanguages = [\"en\", \"fr\", \"es\"]\ntimeout = 30\nretries = 3\n";
pub fn plan_mine() -> String {
    format!("{PLAN}4. Ship it.\n")
}

/// Adds the recorded review steps, the edit bases and the fork to `take`.
pub async fn record(take: &mut Value) {
    let expected = event_types(&take["run"]["updates"]);
    let mut steps = edit_conflict(&expected).await;
    let (rewinds, bases, fork) = rewinds(&expected).await;
    steps.extend(rewinds);
    take["review"] = Value::Array(steps);
    take["edit_bases"] = bases;
    take["fork"] = fork;
}

/// The types of the run events among recorded `updates`.
fn event_types(updates: &Value) -> Vec<String> {
    let events = updates.as_array().into_iter().flatten();
    events
        .filter(|u| u["kind"] == "run_event")
        .map(|u| u["event"]["payload"]["type"].to_string())
        .collect()
}

/// A fresh session whose run recorded the same events as the take's
/// (`expected`): the steps are recorded from that state. A watcher may
/// see a command's folder appear as an outside change on a loaded
/// machine, so a run that differs is run again (a few times at most).
async fn same_run(expected: &[String]) -> (Session, RunId) {
    for _ in 0..5 {
        let (s, run) = finished().await;
        if event_types(&Value::Array(s.updates(run).await)) == expected {
            return (s, run);
        }
    }
    panic!("the changes run never recorded the same events twice")
}

/// The settings the user edited since: keeping an edit is refused, then forced.
async fn edit_conflict(expected: &[String]) -> Vec<Value> {
    // The run's own updates are the take's (taken already); each step records only its own.
    let (s, run) = same_run(expected).await;
    let path = "config/settings.toml";
    let mut steps = Vec::new();
    for force in [false, true] {
        let request =
            json!({"cmd": "keep_edited", "path": path, "content": SETTINGS_MINE, "force": force});
        let before = items(&s, run, &[path.into()]);
        let outcome = s
            .app
            .keep_edited(run, path, SETTINGS_MINE, force)
            .map(|()| Value::Null);
        steps.push(step(&s, run, request, before, &[path.into()], outcome).await);
    }
    steps
        .into_iter()
        .map(|v| s.placeholders(v, &[run]))
        .collect()
}

/// Rewind to the turn that wrote the settings (refused, then forced), its
/// redo, an edit kept afterwards, and a fork from that turn.
async fn rewinds(expected: &[String]) -> (Vec<Value>, Value, Value) {
    let (s, run) = same_run(expected).await;
    let bases = edit_bases(&s, run);
    let events = s.app.list_events(run, EventSeq(0), 100_000).unwrap();
    let to = events
        .iter()
        .filter(|e| matches!(e.payload, EventPayload::ModelCallCompleted { .. }))
        .nth(3)
        .map(|e| e.seq)
        .unwrap();
    let paths: Vec<String> = versions_at(&events, to).into_keys().collect();
    let mut steps = Vec::new();
    for force in [false, true] {
        let request = json!({"cmd": "rewind_run", "to": to.get(), "force": force});
        let before = items(&s, run, &paths);
        let outcome = s.app.rewind(run, to, force).map(report);
        steps.push(step(&s, run, request, before, &paths, outcome).await);
    }
    let before = items(&s, run, &paths);
    let outcome = s.app.redo_rewind(run, false).map(report);
    let request = json!({"cmd": "redo_rewind", "force": false});
    steps.push(step(&s, run, request, before, &paths, outcome).await);
    let plan = vec!["docs/plan.md".to_owned()];
    let request = json!({"cmd": "keep_edited", "path": "docs/plan.md", "content": plan_mine(), "force": false});
    let before = items(&s, run, &plan);
    let outcome = s
        .app
        .keep_edited(run, "docs/plan.md", &plan_mine(), false)
        .map(|()| Value::Null);
    steps.push(step(&s, run, request, before, &plan, outcome).await);
    let fork = fork(&s, run, to).await;
    let recorded = json!({"steps": steps, "bases": bases, "fork": s.recorded(fork).await});
    let local = s.placeholders(recorded, &[run, run, fork]);
    (
        local["steps"].as_array().unwrap().clone(),
        local["bases"].clone(),
        local["fork"].clone(),
    )
}

/// "Conversation" of "Rewind to here": a fork from the turn.
async fn fork(s: &Session, run: RunId, at: EventSeq) -> RunId {
    let steps = [
        json!({"final_answer": "Forked from before the settings were touched: the greeting table stays, and config/settings.toml is left as you have it."}),
    ];
    let start = StartRun {
        workspace: String::new(),
        goal: "Leave the settings alone this time".into(),
        profile: RunProfile {
            approval_mode: ApprovalMode::AllowAll,
            ..RunProfile::default()
        },
        provider: Arc::new(provider(&steps, None)),
        images: Vec::new(),
    };
    let fork = s
        .app
        .start_follow_up(
            start,
            ThreadStart {
                run_id: run,
                at: Some(at),
            },
        )
        .unwrap();
    s.finish(fork).await;
    fork
}

/// What one request did: its answer (or error), the events it appended
/// and the files it concerns after.
async fn step(
    s: &Session,
    run: RunId,
    request: Value,
    before: Value,
    paths: &[String],
    outcome: Result<Value, AppError>,
) -> Value {
    let outcome = match outcome {
        Ok(value) => json!({"ok": value}),
        Err(e) => json!({"error": ApiError::from(e)}),
    };
    let updates = s.updates(run).await;
    json!({"request": request, "paths": paths, "before": before, "outcome": outcome, "updates": updates, "after": changes(s, run, paths)})
}

fn report(r: bearagent_runtime::artifacts::rewind::RewindReport) -> Value {
    serde_json::to_value(RewindReportView::from(r)).unwrap()
}

/// The list entries of `paths`, by path.
fn items(s: &Session, run: RunId, paths: &[String]) -> Value {
    let all: Vec<ArtifactItem> = s
        .app
        .artifacts(run)
        .unwrap()
        .into_iter()
        .map(ArtifactItem::from)
        .collect();
    let mut out = Map::new();
    for item in all.into_iter().filter(|i| paths.contains(&i.path)) {
        out.insert(item.path.clone(), serde_json::to_value(item).unwrap());
    }
    Value::Object(out)
}

/// The entries and diffs of `paths` (`full` where the default is stats only).
fn changes(s: &Session, run: RunId, paths: &[String]) -> Value {
    let mut diffs = Map::new();
    let mut full = Map::new();
    for path in paths {
        let diff = |whole| {
            let d = FileDiffView::from(s.app.artifact_diff(run, path, whole).unwrap());
            serde_json::to_value(d).unwrap()
        };
        let (short, whole) = (diff(false), diff(true));
        if short != whole {
            full.insert(path.clone(), whole);
        }
        diffs.insert(path.clone(), short);
    }
    json!({"items": items(s, run, paths), "diffs": diffs, "full_diffs": full})
}

/// The run's version of each text file the run left, as the editor opens it.
fn edit_bases(s: &Session, run: RunId) -> Value {
    let mut bases = Map::new();
    for v in s.app.artifacts(run).unwrap() {
        if let Ok(text) = s.app.edit_base(run, &v.record.path) {
            if v.after_bytes < 64 * 1024 && v.record.after.is_some() {
                bases.insert(v.record.path.clone(), json!(text));
            }
        }
    }
    Value::Object(bases)
}
