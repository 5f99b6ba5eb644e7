//! What a child run comes back as: the `task` tool's result, read from
//! the child's committed events — its status (a failed, cancelled or
//! out-of-budget child says so, never an empty success), its final
//! answer, what it spent and the files it read and changed. Floor 0 of
//! `run/`: a record read, nothing decided.

use bearagent_kernel::{EventEnvelope, EventPayload, RunProjection, RunStatus, Spent};
use std::collections::BTreeSet;

/// A child that ended, as its parent learns it.
pub(crate) struct ChildReport {
    pub succeeded: bool,
    pub spent: Spent,
    pub content: String,
}

/// The report of `child` from its projection and events.
pub(crate) fn report(
    description: &str,
    child: &RunProjection,
    events: &[EventEnvelope],
) -> ChildReport {
    let (read, changed) = files(events);
    let status = match &child.status {
        RunStatus::Failed { reason } => format!("failed: {reason}"),
        RunStatus::BudgetExhausted { which } => format!("budget exhausted ({which})"),
        other => other.name().replace('_', " "),
    };
    let cost = child
        .cost_micro_usd
        .map_or_else(String::new, |c| format!(", ${:.6}", c as f64 / 1e6));
    let list = |files: &BTreeSet<String>| match files.is_empty() {
        true => "none".to_owned(),
        false => files.iter().cloned().collect::<Vec<_>>().join(", "),
    };
    let answer = child
        .final_answer
        .clone()
        .unwrap_or_else(|| "(no answer: the helper did not finish)".to_owned());
    let place = worktree_of(events).map_or_else(String::new, |w| {
        format!(
            "its changes are in its own worktree {} (branch {}), not in your workspace: \
             the user reviews them and applies or discards them (the app's Changes, or \
             `bearagent apply {}` / `bearagent discard {}`)\n",
            w.path, w.branch, child.run_id, child.run_id
        )
    });
    let content = format!(
        "helper \"{description}\" (run {}) {status}\n\
         spent: {} model calls, {} tool calls, {} input + {} output tokens{cost}\n\
         files read: {}\nfiles changed: {}\n{place}answer:\n{answer}",
        child.run_id,
        child.model_calls,
        child.tool_calls,
        child.usage.input,
        child.usage.output,
        list(&read),
        list(&changed),
    );
    ChildReport {
        succeeded: child.status == RunStatus::Succeeded,
        spent: Spent {
            elapsed_ms: 0,
            ..child.spent(child.updated_at)
        },
        content,
    }
}

/// The worktree a writing child worked in (from its `RunCreated`).
fn worktree_of(events: &[EventEnvelope]) -> Option<&bearagent_kernel::Worktree> {
    match events.first().map(|e| &e.payload) {
        Some(EventPayload::RunCreated { worktree, .. }) => worktree.as_ref(),
        _ => None,
    }
}

/// The files a child's read calls named (those that completed) and the
/// files its effects changed.
fn files(events: &[EventEnvelope]) -> (BTreeSet<String>, BTreeSet<String>) {
    let mut asked = std::collections::BTreeMap::new();
    let (mut read, mut changed) = (BTreeSet::new(), BTreeSet::new());
    for e in events {
        match &e.payload {
            EventPayload::ToolCallRequested { call, .. }
                if call.tool_name.as_str() == "read_file" =>
            {
                if let Some(path) = call.arguments.get("path").and_then(|p| p.as_str()) {
                    asked.insert(call.call_id.clone(), path.to_owned());
                }
            }
            EventPayload::ToolCallCompleted { result, .. } => {
                if let Some(path) = asked.remove(&result.call_id) {
                    read.insert(path);
                }
            }
            EventPayload::ArtifactRecorded { path, .. } => {
                changed.insert(path.clone());
            }
            _ => {}
        }
    }
    (read, changed)
}
