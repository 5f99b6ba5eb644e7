//! `session/load`: which run a session continues (the newest follow-up of
//! its first run), and its conversation told again to the editor as the
//! user's goals, the answers and each tool call with how it ended.

use super::updates::{self, text_content};
use agent_client_protocol::v1::schema::{
    ContentBlock, ContentChunk, SessionUpdate, TextContent, ToolCallStatus,
};
use bearagent_kernel::{EventPayload, EventSeq, RunId, RunProjection};
use bearagent_runtime::{AppError, Application, RunFilter};
use std::collections::HashMap;

/// The newest run that continues `root` by follow-ups (forks are other
/// sessions), and every run of that chain, oldest first: found by walking
/// down from `root` through the workspace's runs.
pub fn chain_of(app: &Application, root: &RunProjection) -> Result<Vec<RunId>, AppError> {
    let runs = app.search_runs(RunFilter {
        workspace_id: Some(root.workspace_id),
        status: None,
        text: None,
        limit: Some(10_000),
        imported_only: false,
    })?;
    let mut children: HashMap<RunId, Vec<RunId>> = HashMap::new();
    for r in &runs {
        if let Some(parent) = r.parent_run_id {
            children.entry(parent).or_default().push(r.run_id);
        }
    }
    // `runs` is newest first: a smaller index is a newer run.
    let recency: HashMap<RunId, usize> = runs
        .iter()
        .enumerate()
        .map(|(i, r)| (r.run_id, i))
        .collect();
    let newer = |a: RunId, b: RunId| {
        recency.get(&a).unwrap_or(&usize::MAX) < recency.get(&b).unwrap_or(&usize::MAX)
    };
    let mut parent_of = HashMap::new();
    let mut newest = root.run_id;
    let mut below = vec![root.run_id];
    while let Some(run) = below.pop() {
        for &child in children.get(&run).into_iter().flatten() {
            if is_fork(app, child) {
                continue;
            }
            parent_of.insert(child, run);
            if newer(child, newest) {
                newest = child;
            }
            below.push(child);
        }
    }
    let mut chain = vec![newest];
    let mut at = newest;
    while let Some(&parent) = parent_of.get(&at) {
        chain.push(parent);
        at = parent;
    }
    chain.reverse();
    Ok(chain)
}

fn is_fork(app: &Application, run: RunId) -> bool {
    app.get_run(run)
        .is_ok_and(|p| p.parent.is_some_and(|parent| parent.fork))
}

/// The updates that tell `runs`' conversation again.
pub fn replay(
    app: &Application,
    runs: &[RunId],
    workspace: &str,
) -> Result<Vec<SessionUpdate>, AppError> {
    let text = |t: &str| ContentChunk::new(ContentBlock::Text(TextContent::new(t)));
    let mut out = Vec::new();
    for run in runs {
        let events = app.list_events(*run, EventSeq(0), u32::MAX)?;
        for e in &events {
            match &e.payload {
                EventPayload::RunCreated { goal, .. } => {
                    out.push(SessionUpdate::UserMessageChunk(text(goal)));
                }
                EventPayload::ToolCallRequested { call, .. } => {
                    out.push(SessionUpdate::ToolCall(updates::tool_call(
                        *run, call, workspace,
                    )));
                }
                EventPayload::ToolCallCompleted { result, .. } => {
                    let content = vec![text_content(&result.content)];
                    let done = updates::status(
                        &updates::call_id(*run, &result.call_id),
                        ToolCallStatus::Completed,
                        content,
                    );
                    out.push(SessionUpdate::ToolCallUpdate(done));
                }
                EventPayload::ToolCallFailed { result } => {
                    let content = vec![text_content(&result.content)];
                    let failed = updates::status(
                        &updates::call_id(*run, &result.call_id),
                        ToolCallStatus::Failed,
                        content,
                    );
                    out.push(SessionUpdate::ToolCallUpdate(failed));
                }
                EventPayload::RunSucceeded { answer } => {
                    out.push(SessionUpdate::AgentMessageChunk(text(answer)));
                }
                _ => {}
            }
        }
    }
    Ok(out)
}
