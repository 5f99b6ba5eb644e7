//! The diff a pending write would make, for the approval prompt and card:
//! computed from the workspace as it is now and the tool's own edit logic,
//! so what is shown is what the write would do if approved now.

use super::Application;
use crate::artifacts::diff::{diff_versions, FileDiff};
use crate::AppError;
use bearagent_kernel::{CallId, EventEnvelope, EventPayload, EventSeq, RunId, ToolCall};
use bearagent_tools::tools::proposal::proposed_write;
use tracing::instrument;

/// The file a pending call would write and its diff against the file now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProposedChange {
    pub call_id: CallId,
    pub path: String,
    /// True when the file does not exist yet.
    pub new_file: bool,
    /// The file now and what the call would write (lossy UTF-8), for
    /// clients that show both sides (an ACP editor's diff).
    pub before_text: Option<String>,
    pub after_text: String,
    pub diff: FileDiff,
}

impl Application {
    /// What `call` of `run_id` would change if it ran now: `None` for a
    /// call that writes no workspace file. A call whose arguments would
    /// fail (no match, a path outside) is an `InvalidInput` saying why.
    #[instrument(skip(self, call), fields(run = %run_id, tool = %call.tool_name))]
    pub fn proposed_change(
        &self,
        run_id: RunId,
        call: &ToolCall,
    ) -> Result<Option<ProposedChange>, AppError> {
        let root = self.tool_root(&self.get_run(run_id)?.workspace_path)?;
        let proposal = proposed_write(call.tool_name.as_str(), &call.arguments, &root)
            .map_err(|e| AppError::InvalidInput(e.to_string()))?;
        Ok(proposal.map(|p| ProposedChange {
            call_id: call.call_id.clone(),
            new_file: p.before.is_none(),
            diff: diff_versions(p.before.as_deref(), Some(&p.after), false),
            before_text: p
                .before
                .as_deref()
                .map(|b| String::from_utf8_lossy(b).into_owned()),
            after_text: String::from_utf8_lossy(&p.after).into_owned(),
            path: p.path,
        }))
    }

    /// What a finished write of the call `call_id` changed, from its
    /// receipt's recorded versions (what the file held before and after):
    /// exact even when the file changed again since.
    pub fn recorded_change(
        &self,
        call_id: &bearagent_kernel::CallId,
        receipt: &bearagent_kernel::Receipt,
    ) -> Result<ProposedChange, AppError> {
        let read =
            |hash: &Option<bearagent_kernel::ContentHash>| -> Result<Option<Vec<u8>>, AppError> {
                match hash {
                    Some(h) => Ok(Some(self.store.get_blob(h)?.ok_or_else(|| {
                        AppError::Corrupt(format!("the version {h} of {} is missing", receipt.path))
                    })?)),
                    None => Ok(None),
                }
            };
        let before = read(&receipt.before_hash)?;
        let after = read(&receipt.after_hash)?.unwrap_or_default();
        Ok(ProposedChange {
            call_id: call_id.clone(),
            new_file: before.is_none(),
            diff: diff_versions(before.as_deref(), Some(&after), false),
            before_text: before
                .as_deref()
                .map(|b| String::from_utf8_lossy(b).into_owned()),
            after_text: String::from_utf8_lossy(&after).into_owned(),
            path: receipt.path.clone(),
        })
    }

    /// What the call `run_id` waits for approval of would change (as
    /// [`Application::proposed_change`]): `None` when nothing waits or the
    /// call writes no workspace file.
    #[instrument(skip(self), fields(run = %run_id))]
    pub fn pending_change(&self, run_id: RunId) -> Result<Option<ProposedChange>, AppError> {
        let run = self.get_run(run_id)?;
        // A settled run waits for nothing (an interrupted one can still be answered).
        let Some(pending) = run.pending_approval.filter(|_| !run.status.is_terminal()) else {
            return Ok(None);
        };
        // The approval request's cause is the call's request.
        let asked = self.event_at(run_id, pending.requested_seq)?;
        let Some(cause) = asked.and_then(|e| e.cause) else {
            return Ok(None);
        };
        match self.event_at(run_id, cause)?.map(|e| e.payload) {
            Some(EventPayload::ToolCallRequested { call, .. })
                if call.call_id == pending.call_id =>
            {
                self.proposed_change(run_id, &call)
            }
            _ => Ok(None),
        }
    }

    fn event_at(&self, run_id: RunId, seq: EventSeq) -> Result<Option<EventEnvelope>, AppError> {
        let before = EventSeq(seq.get().saturating_sub(1));
        Ok(self.list_events(run_id, before, 1)?.into_iter().next())
    }
}
