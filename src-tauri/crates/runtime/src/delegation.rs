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
use bearagent_tools::WorkspaceRoot;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tracing::Instrument;

/// The tools a run gets, from its `RunCreated`: a child only the reading
/// ones; `task` for a run that may delegate. Live and in a replay alike.
pub(crate) fn registry_for(base: &Registry, created: Option<&EventPayload>) -> Arc<Registry> {
    let (child, writes, delegates) = match created {
        Some(EventPayload::RunCreated {
            delegated_by,
            delegation,
            worktree,
            ..
        }) => (
            delegated_by.is_some(),
            worktree.is_some(),
            delegation.is_some(),
        ),
        _ => (false, false, false),
    };
    // A child with a worktree was asked to write (`write: true`): it writes
    // there, the only place it can.
    let registry = match (child, writes) {
        (false, _) => base.clone(),
        (true, false) => base.read_only(),
        (true, true) => base.for_writing_child(),
    };
    Arc::new(if delegates {
        registry.with_task()
    } else {
        registry
    })
}

/// Starts child runs in the parent's process (see the module docs).
pub(crate) struct Spawner {
    /// Where a writing child's worktree is made, or why it cannot be.
    pub worktrees_dir: Result<PathBuf, String>,
    /// BearAgent's own folders, refused inside a writing child's worktree.
    pub own_folders: Vec<PathBuf>,
}

impl ChildRunner for Spawner {
    fn start(
        &self,
        parent: &LoopDeps,
        rec: &Recorder,
        child: ChildSpec,
    ) -> Result<RunningChild, AppError> {
        let mut created = child_created(rec, &child)?;
        let workspace = match child.write {
            true => self.writing_place(&child, &mut created)?,
            false => parent.workspace.clone(),
        };
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
            workspace,
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

impl Spawner {
    /// A writing child's own worktree, made of the parent's workspace (its
    /// uncommitted changes carried; of the parent's worktree when it runs
    /// in one) and named in its `RunCreated`; the root its tools work in.
    fn writing_place(
        &self,
        child: &ChildSpec,
        created: &mut EventPayload,
    ) -> Result<WorkspaceRoot, AppError> {
        let dir = self.worktrees_dir.as_ref().map_err(|e| {
            AppError::InvalidInput(format!("no place for the helper's worktree: {e}"))
        })?;
        let EventPayload::RunCreated {
            workspace_path,
            worktree,
            ..
        } = created
        else {
            return Err(AppError::Corrupt("a child without RunCreated".into()));
        };
        let (repo, source) = match worktree.take() {
            Some(w) => (PathBuf::from(w.repo), PathBuf::from(w.path)),
            None => (
                PathBuf::from(&*workspace_path),
                PathBuf::from(&*workspace_path),
            ),
        };
        let request = crate::worktrees::WorktreeRequest {
            name: None,
            base: None,
            carry_changes: true,
        };
        let made =
            crate::worktrees::create::make_worktree(&repo, &source, child.run_id, &request, dir)?;
        let root = WorkspaceRoot::new(Path::new(&made.path))
            .map(|r| r.protecting(&self.own_folders))
            .map_err(|e| AppError::InvalidInput(format!("the helper's worktree: {e}")));
        if root.is_err() {
            crate::worktrees::create::remove_quietly(&repo, Path::new(&made.path), &made.branch);
        }
        *workspace_path = made.path.clone();
        *worktree = Some(made);
        root
    }
}

/// The child's `RunCreated`: the parent's settings (provider, approval
/// mode, sandbox and rules — never more than the parent's), its own goal
/// and carved budget, the link to its parent, and delegation only while
/// its depth allows another level.
fn child_created(rec: &Recorder, child: &ChildSpec) -> Result<EventPayload, AppError> {
    let mut created = rec.events().first().map(|e| e.payload.clone());
    let Some(EventPayload::RunCreated {
        goal,
        budgets,
        parent,
        delegated_by,
        delegation,
        images,
        worktree,
        ..
    }) = &mut created
    else {
        return Err(AppError::Corrupt("a parent run without RunCreated".into()));
    };
    // Everything else is the parent's, as it is.
    *goal = child.prompt.clone();
    *budgets = child.budgets;
    *parent = None;
    *delegated_by = Some(DelegatedBy {
        run_id: rec.run_id(),
        call_id: child.call_id.clone(),
        depth: child.depth,
        description: child.description.clone(),
    });
    *delegation = delegation.filter(|d| d.allows_child_at(child.depth));
    images.clear();
    // The parent's, for a writing child to make its own of (replaced
    // there); a read-only child reads where its parent works.
    *worktree = worktree.take().filter(|_| child.write);
    created.ok_or_else(|| AppError::Corrupt("a parent run without RunCreated".into()))
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
