//! What a run's loop does before its first step, after `spawn_loop` made
//! its dependencies.

use crate::mcp::RunMcp;
use crate::run::agent_loop::LoopStart;
use crate::run::deps::LoopDeps;
use crate::run::recorder::Recorder;
use crate::AppError;
use bearagent_kernel::EventPayload;
use std::sync::Arc;

/// Before the first step: the thread the run continues, the workspace's
/// `AGENTS.md` (read once, at a fresh start — a resumed run has it in its
/// events), the hooks of a run's start, and the MCP servers. None when a
/// hook blocked the goal (the run failed with its reason).
pub(super) async fn prepare_loop(
    rec: &mut Recorder,
    deps: &mut LoopDeps,
    start: &LoopStart,
    mcp: crate::mcp::McpPlan,
) -> Result<Option<RunMcp>, AppError> {
    let (mut parent, mut goal) = (None, String::new());
    if let Some(EventPayload::RunCreated {
        parent: p, goal: g, ..
    }) = rec.events().first().map(|e| &e.payload)
    {
        (parent, goal) = (*p, g.clone());
    }
    deps.ancestors = Arc::new(crate::thread::ancestors(rec.store(), parent)?);
    if matches!(start, LoopStart::Fresh) {
        let root = deps.workspace.path().to_path_buf();
        crate::run::instructions::load_instructions(rec, &root, "")?;
        if let Some(reason) = crate::run::hook_step::run_start(rec, deps, &goal).await? {
            let reason = format!("a UserPromptSubmit hook blocked the goal: {reason}");
            rec.record(rec.last_seq(), EventPayload::RunFailed { reason })?;
            return Ok(None);
        }
    }
    Ok(Some(RunMcp::start(rec, mcp, &deps.cancel).await?))
}
