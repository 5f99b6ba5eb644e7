//! Follow-ups and forks: a new run that continues a finished run's
//! conversation (all of it, or up to one of its events).

use crate::app::Application;
use crate::app_runs::StartRun;
use crate::AppError;
use bearagent_kernel::{EventPayload, EventSeq, ParentRun, RunId, RunStatus};
use tracing::instrument;

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
        if !std::path::Path::new(workspace_path).is_dir() {
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
            start.workspace = workspace;
        }
        self.create_run(start, Some(parent))
    }
}
