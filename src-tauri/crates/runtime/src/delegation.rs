//! Delegation (issue 54): a run hands work to child runs with the `task`
//! tool.
//!
//! How it fits what was there:
//! - The `task` call walks the one tool path (registry → prepare → policy
//!   → approval); its room (`run/task_step.rs`) checks the depth and
//!   carves the child's budget from what the parent has left (the share
//!   `Delegation` sets; `run/ledger.rs` holds the reservation until the
//!   child ends and counts what it spent in the parent's budget checks),
//!   commits the call's start, then starts the child through the
//!   `ChildRunner` port, which this module implements (a child is a whole
//!   loop, above the room in the floor plan).
//! - A child is an ordinary run in the same store: `RunCreated` names its
//!   parent run, the calling `call_id`, its depth and the label
//!   (`delegated_by`); its id is derived from the parent's and the call's,
//!   so a replay of the parent finds it. Its context is its prompt and the
//!   workspace's instructions, nothing of the parent's history. It gets
//!   read tools only, the parent's approval mode, sandbox and command
//!   rules, no MCP servers, and `task` only while its depth allows.
//! - Its loop runs beside the parent's; several `task` calls of one turn
//!   run at the same time and report in call order after the turn.
//! - Its cancellation token is a child of the parent's: cancelling the
//!   parent ends the tree. Its approvals wait at the same gate and are
//!   published on the same live bus, so a front end that follows the
//!   parent's tree answers them (the CLI labels them with the child's
//!   description). A killed process leaves children like any run: the
//!   next start marks them interrupted.

use crate::profile::RunProfile;
use crate::run::agent_loop::{drive, LoopStart};
use crate::run::deps::{ChildRunner, ChildSpec, LoopDeps, RunningChild};
use crate::run::recorder::Recorder;
use crate::AppError;
use bearagent_kernel::{DelegatedBy, EventPayload};
use bearagent_tools::Registry;
use std::sync::Arc;
use tracing::Instrument;

/// The tools a run gets, from its `RunCreated`: a child only the reading
/// ones; `task` for a run that may delegate. Live and in a replay alike.
pub(crate) fn registry_for(base: &Registry, created: Option<&EventPayload>) -> Arc<Registry> {
    let (child, delegates) = match created {
        Some(EventPayload::RunCreated {
            delegated_by,
            delegation,
            ..
        }) => (delegated_by.is_some(), delegation.is_some()),
        _ => (false, false),
    };
    let registry = if child {
        base.read_only()
    } else {
        base.clone()
    };
    Arc::new(if delegates {
        registry.with_task()
    } else {
        registry
    })
}

/// Starts child runs in the parent's process (see the module docs).
pub(crate) struct Spawner;

impl ChildRunner for Spawner {
    fn start(
        &self,
        parent: &LoopDeps,
        rec: &Recorder,
        child: ChildSpec,
    ) -> Result<RunningChild, AppError> {
        let created = child_created(rec, &child)?;
        let mut crec = Recorder::new(
            rec.store().clone(),
            rec.clock().clone(),
            rec.live().clone(),
            child.run_id,
        );
        let delegation = match &created {
            EventPayload::RunCreated { delegation, .. } => *delegation,
            _ => None,
        };
        let registry = registry_for(&parent.registry, Some(&created));
        let first = crec.record(None, created)?;
        crec.record(Some(first), EventPayload::RunStarted)?;
        let mut deps = LoopDeps {
            provider: parent.provider.clone(),
            registry,
            executor: parent.executor.clone(),
            approvals: parent.approvals.clone(),
            workspace: parent.workspace.clone(),
            profile: RunProfile {
                budgets: child.budgets,
                delegation,
                plan_mode: parent.profile.plan_mode,
                ..parent.profile.clone()
            },
            cancel: child.cancel,
            host: parent.host.clone(),
            mcp_tools: Default::default(),
            tool_rules: Default::default(),
            ancestors: Arc::new(Vec::new()),
            hooks: parent.hooks.clone(),
            children: parent.children.clone(),
            ledger: Arc::default(),
            web: Err("a child run fetches nothing (its tools are read-only and offline)".into()),
        };
        let span = tracing::info_span!("child run", run = %child.run_id, depth = child.depth);
        let done = tokio::spawn(
            async move {
                // The same start as any fresh run's: instructions, hooks.
                if crate::replay::drive_recorded(&mut crec, &mut deps).await? {
                    drive(crec, deps, LoopStart::Fresh).await?;
                }
                Ok(())
            }
            .instrument(span),
        );
        Ok(RunningChild {
            run_id: child.run_id,
            done,
        })
    }
}

/// The child's `RunCreated`: the parent's settings (provider, approval
/// mode, sandbox and rules — never more than the parent's), its own goal
/// and carved budget, the link to its parent, and delegation only while
/// its depth allows another level.
fn child_created(rec: &Recorder, child: &ChildSpec) -> Result<EventPayload, AppError> {
    let Some(EventPayload::RunCreated {
        workspace_id,
        workspace_path,
        profile,
        approval_mode,
        context_caps,
        max_invalid_outputs,
        max_repeated_calls,
        provider,
        model,
        price,
        commands,
        mcp_rules,
        web_rules,
        delegation,
        plan_mode,
        config_versions,
        learned,
        ..
    }) = rec.events().first().map(|e| e.payload.clone())
    else {
        return Err(AppError::Corrupt("a parent run without RunCreated".into()));
    };
    Ok(EventPayload::RunCreated {
        goal: child.prompt.clone(),
        workspace_id,
        workspace_path,
        profile,
        budgets: child.budgets,
        approval_mode,
        context_caps,
        max_invalid_outputs,
        max_repeated_calls,
        provider,
        model,
        price,
        commands,
        mcp_rules,
        web_rules,
        parent: None,
        delegated_by: Some(DelegatedBy {
            run_id: rec.run_id(),
            call_id: child.call_id.clone(),
            depth: child.depth,
            description: child.description.clone(),
        }),
        delegation: delegation.filter(|d| d.allows_child_at(child.depth)),
        images: Vec::new(),
        worktree: None,
        plan_mode,
        config_versions,
        learned,
    })
}

/// How deep a new run is in a delegation tree: a follow-up or fork of a
/// child is as deep as the child (so threads do not reset the limit).
pub(crate) fn thread_depth(
    store: &bearagent_store::Store,
    mut parent: Option<bearagent_kernel::ParentRun>,
) -> Result<u32, AppError> {
    // A thread is a short chain; the bound only guards a corrupt store.
    for _ in 0..1000 {
        let Some(p) = parent else { return Ok(0) };
        let Some(run) = store.get_run(p.run_id)? else {
            return Ok(0);
        };
        if let Some(by) = run.delegated_by {
            return Ok(by.depth);
        }
        parent = run.parent;
    }
    Ok(0)
}
