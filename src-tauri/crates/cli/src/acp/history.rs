//! `session/load`: which run a session continues (the newest follow-up of
//! its first run), and its conversation told again to the editor as the
//! user's goals, the answers and each tool call with how it ended.

use super::updates::{self, text_content};
use agent_client_protocol::v1::schema::{
    ContentBlock, ContentChunk, SessionUpdate, TextContent, ToolCallStatus,
};
use bearagent_kernel::{EventPayload, EventSeq, RunId};
use bearagent_runtime::{AppError, Application, RunFilter};
use std::collections::HashMap;

/// The newest run that continues `first` by follow-ups (forks are other
/// sessions), and every run of that chain, oldest first.
pub fn chain_of(app: &Application, first: RunId) -> Result<Vec<RunId>, AppError> {
    let root = app.get_run(first)?;
    let runs = app.search_runs(RunFilter {
        workspace_id: Some(root.workspace_id),
        status: None,
        text: None,
        limit: Some(10_000),
    })?;
    let parent: HashMap<RunId, RunId> = runs
        .iter()
        .filter_map(|r| Some((r.run_id, r.parent_run_id?)))
        .collect();
    // Newest first: the first run whose follow-up chain reaches `first`.
    for r in &runs {
        let mut chain = vec![r.run_id];
        let mut at = r.run_id;
        while at != first {
            match parent.get(&at) {
                Some(p) if !is_fork(app, at) => {
                    at = *p;
                    chain.push(at);
                }
                _ => break,
            }
        }
        if at == first {
            chain.reverse();
            return Ok(chain);
        }
    }
    Ok(vec![first])
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
                EventPayload::ToolCallRequested { call } => {
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
