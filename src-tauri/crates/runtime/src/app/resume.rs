//! Resuming a run that was interrupted while it waited for an approval:
//! nothing had executed, so answering the request continues the run from
//! its committed events.

use crate::app::threads::RecordedRun;
use crate::app::Application;
use crate::run::agent_loop::LoopStart;
use crate::run::approvals::Decision;
use crate::AppError;
use bearagent_kernel::{CallId, EventPayload, RunId, RunStatus};

impl Application {
    pub(crate) fn resume_at_approval(
        &self,
        run_id: RunId,
        call_id: &CallId,
        decision: Decision,
    ) -> Result<(), AppError> {
        let not_pending = || AppError::NotFound {
            what: "pending approval",
            id: format!("{run_id}/{call_id}"),
        };
        let projection = self.get_run(run_id)?;
        let pending = match (&projection.status, &projection.pending_approval) {
            (RunStatus::Interrupted, Some(p)) if &p.call_id == call_id => p.clone(),
            _ => return Err(not_pending()),
        };
        let events = self.store.all_events(run_id)?;
        let Some(recorded) = events.first().and_then(|e| RecordedRun::of(&e.payload)) else {
            return Err(AppError::Corrupt(format!(
                "run {run_id} has no RunCreated event"
            )));
        };
        let call = events
            .iter()
            .find_map(|e| match &e.payload {
                EventPayload::ToolCallRequested { call, .. } if &call.call_id == call_id => {
                    Some(call.clone())
                }
                _ => None,
            })
            .ok_or_else(not_pending)?;
        let mcp = self.mcp_plan()?;
        let provider =
            self.provider_for_resume(&recorded.provider, &recorded.model, projection.model_calls)?;
        let workspace = self.tool_root(&recorded.workspace_path)?;
        let profile = recorded.profile;
        // Committing RunResumed makes this process the run's owner (one
        // transaction; a second process resuming at once is refused).
        let mut rec = self.recorder_for(self.local_run(run_id, "resumed")?, events)?;
        rec.record(rec.last_seq(), EventPayload::RunResumed)?;
        tracing::info!(%run_id, "resuming an interrupted run at its pending approval");
        self.spawn_loop(
            rec,
            workspace,
            profile,
            provider,
            LoopStart::Resumed {
                asked: pending.requested_seq,
                call: Box::new(call),
                decision,
            },
            mcp,
        );
        Ok(())
    }
}
