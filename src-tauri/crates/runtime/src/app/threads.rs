//! Follow-ups and forks: a new run that continues a finished run's
//! conversation (all of it, or up to one of its events).

use crate::app::runs::StartRun;
use crate::app::Application;
use crate::profile::RunProfile;
use crate::views::RunSummary;
use crate::AppError;
use bearagent_kernel::{EventPayload, EventSeq, ParentRun, RunId, RunStatus};
use tracing::instrument;

/// A run's settings as its `RunCreated` recorded them: what a resume or a
/// reply runs with.
pub(crate) struct RecordedRun {
    pub workspace_path: String,
    pub profile: RunProfile,
    pub provider: String,
    pub model: String,
}

impl RecordedRun {
    pub fn of(payload: &EventPayload) -> Option<RecordedRun> {
        let EventPayload::RunCreated {
            workspace_path,
            profile,
            budgets,
            approval_mode,
            context_caps,
            max_invalid_outputs,
            max_repeated_calls,
            provider,
            model,
            commands,
            mcp_rules,
            web_rules,
            delegation,
            ..
        } = payload
        else {
            return None;
        };
        Some(RecordedRun {
            workspace_path: workspace_path.clone(),
            profile: RunProfile {
                name: profile.clone(),
                budgets: *budgets,
                approval_mode: *approval_mode,
                max_invalid_outputs: *max_invalid_outputs,
                max_repeated_calls: *max_repeated_calls,
                context: *context_caps,
                commands: commands.clone(),
                mcp_rules: mcp_rules.clone(),
                // A follow-up carries the plan out (or keeps planning when
                // asked again with --plan).
                plan_mode: false,
                // Chosen again by the window the follow-up's model runs with.
                context_profile: None,
                web_rules: web_rules.clone(),
                // A follow-up may delegate as its run did (its depth is
                // checked when it is created).
                delegation: *delegation,
            },
            provider: provider.clone(),
            model: model.clone(),
        })
    }
}

/// Which run to continue, and for a fork the event to branch at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThreadStart {
    pub run_id: RunId,
    /// `Some`: a fork that keeps the parent's events up to this seq.
    pub at: Option<EventSeq>,
}

impl Application {
    /// The parent a follow-up or fork would record, and the parent's
    /// workspace folder. Refused: an unknown run, one still in progress (in
    /// any process), a fork point that is not one of its events, a parent
    /// whose workspace folder is gone.
    pub fn thread_parent(&self, thread: &ThreadStart) -> Result<(ParentRun, String), AppError> {
        let projection = self.get_run(thread.run_id)?;
        match projection.status {
            RunStatus::Succeeded
            | RunStatus::Failed { .. }
            | RunStatus::Cancelled
            | RunStatus::BudgetExhausted { .. }
            | RunStatus::Interrupted => {}
            RunStatus::Created | RunStatus::Running | RunStatus::AwaitingApproval => {
                return Err(AppError::Conflict(format!(
                    "run {} is still in progress; continue it after it ends",
                    thread.run_id
                )))
            }
        }
        let last = projection.last_seq;
        let through_seq = match thread.at {
            None => last,
            Some(at) if at.0 >= 1 && at <= last => at,
            Some(at) => {
                return Err(AppError::InvalidInput(format!(
                    "run {} has events 1 to {}; cannot fork at {}",
                    thread.run_id, last.0, at.0
                )))
            }
        };
        let first = self.list_events(thread.run_id, EventSeq(0), 1)?;
        let Some(EventPayload::RunCreated { workspace_path, .. }) =
            first.first().map(|e| &e.payload)
        else {
            return Err(AppError::Corrupt(format!(
                "run {} has no RunCreated event",
                thread.run_id
            )));
        };
        // An imported run's workspace is on another machine: it may only
        // be forked, into a workspace of this one.
        let imported = self.store.imported(thread.run_id)?;
        if let Some(imported) = &imported {
            if thread.at.is_none() {
                return Err(crate::local::read_only(
                    thread.run_id,
                    imported,
                    "continued",
                ));
            }
        }
        if imported.is_none() && !std::path::Path::new(workspace_path).is_dir() {
            return Err(AppError::PathMissing {
                path: workspace_path.into(),
            });
        }
        let parent = ParentRun {
            run_id: thread.run_id,
            through_seq,
            fork: thread.at.is_some(),
        };
        Ok((parent, workspace_path.clone()))
    }

    /// Starts a run that continues `thread`: its context begins with the
    /// parent chain's conversation. An empty `start.workspace` means the
    /// parent's.
    #[instrument(skip(self, start), fields(parent = %thread.run_id))]
    pub fn start_follow_up(
        &self,
        mut start: StartRun,
        thread: ThreadStart,
    ) -> Result<RunId, AppError> {
        let (parent, workspace) = self.thread_parent(&thread)?;
        if start.workspace.trim().is_empty() {
            start.workspace = if self.store.imported(thread.run_id)?.is_some() {
                // Its own folder is on another machine: the fork works in
                // the workspace open here.
                self.current_workspace()
                    .map(|w| w.path)
                    .ok_or_else(|| {
                        AppError::InvalidInput(format!(
                            "run {} was imported: open the workspace its fork is to work in, or name it",
                            thread.run_id
                        ))
                    })?
            } else {
                workspace
            };
        }
        // Only a local run's worktree is worked in again; an imported
        // run's names another machine's folders.
        let worktree = self
            .local_run(thread.run_id, "continued")
            .and_then(|run| self.local_worktree(run))
            .ok()
            .map(|w| (*w).clone());
        self.create_run(start, Some(parent), RunId::new(), worktree)
    }

    /// Replies to a finished run (the desktop's reply box, or "Fork from
    /// here" with `at`): a follow-up with the parent's workspace, provider,
    /// model and settings, and `message` as its goal.
    #[instrument(skip(self, message), fields(parent = %parent))]
    pub fn reply_to_run(
        &self,
        parent: RunId,
        at: Option<EventSeq>,
        message: String,
        images: Vec<crate::ImageInput>,
    ) -> Result<RunId, AppError> {
        let thread = ThreadStart { run_id: parent, at };
        let first = self.list_events(parent, EventSeq(0), 1)?;
        let recorded = first
            .first()
            .and_then(|e| RecordedRun::of(&e.payload))
            .ok_or_else(|| AppError::NotFound {
                what: "run",
                id: parent.to_string(),
            })?;
        let provider = self.provider_for_follow_up(&recorded.provider, &recorded.model)?;
        self.start_follow_up(
            StartRun {
                workspace: String::new(),
                goal: message,
                profile: recorded.profile,
                provider,
                images,
            },
            thread,
        )
    }

    /// The runs `run_id` continues, oldest first, then the run itself.
    pub fn thread(&self, run_id: RunId) -> Result<Vec<ThreadRun>, AppError> {
        let mut chain = Vec::new();
        let mut next = Some(run_id);
        while let Some(id) = next {
            if chain.len() >= crate::thread::MAX_THREAD_DEPTH {
                return Err(AppError::Corrupt(format!(
                    "run {run_id}'s thread is deeper than {} runs",
                    crate::thread::MAX_THREAD_DEPTH
                )));
            }
            let projection = self.get_run(id)?;
            next = projection.parent.map(|p| p.run_id);
            chain.push(ThreadRun {
                forked_at: projection.parent.filter(|p| p.fork).map(|p| p.through_seq),
                final_answer: projection.final_answer.clone(),
                summary: RunSummary {
                    imported_from: self.store.imported(id)?.map(|i| i.source),
                    ..RunSummary::from(projection)
                },
            });
        }
        chain.reverse();
        Ok(chain)
    }
}

/// One run of a thread, for the thread view.
#[derive(Debug, Clone, PartialEq)]
pub struct ThreadRun {
    pub summary: RunSummary,
    pub final_answer: Option<String>,
    /// For a fork: the event of its parent it branched at.
    pub forked_at: Option<EventSeq>,
}
