//! A followed run's approval asked as the editor's
//! `session/request_permission` — the prompt's own run's and every
//! helper's (delegation), labelled with the helper — and the answer
//! recorded on the run that asked.

use super::permission;
use super::turn::Follower;
use super::updates;
use agent_client_protocol::v1::schema::{
    RequestPermissionOutcome, RequestPermissionRequest, ToolCallStatus, ToolCallUpdate,
};
use agent_client_protocol::Error;
use bearagent_kernel::{CallId, RunId};

impl Follower<'_> {
    /// Asks the editor about `run`'s call and records its answer; a
    /// cancelled prompt stops waiting (the run's cancellation answers it).
    pub(super) async fn ask(&mut self, run: RunId, call_id: &CallId) -> Result<(), Error> {
        let key = (run, call_id.clone());
        let Some(call) = self.calls.get(&key) else {
            return Ok(());
        };
        let mut content = Vec::new();
        if let Some(change) = self.changes.get(&key) {
            content.push(updates::diff_content(change, self.workspace));
        }
        let shown = updates::tool_call(run, call, self.workspace);
        let id = updates::call_id(run, call_id);
        let update = updates::status(&id, ToolCallStatus::Pending, content);
        let mut fields = update.fields;
        fields.title = Some(self.title(run, shown.title));
        fields.kind = Some(shown.kind);
        fields.raw_input = shown.raw_input;
        let request = RequestPermissionRequest::new(
            self.session_id.to_owned(),
            ToolCallUpdate::new(id, fields),
            permission::options(),
        );
        let answer = tokio::select! {
            a = self.conn.send_request(request).block_task() => a,
            _ = self.cancel.cancelled() => return Ok(()),
        };
        let decision = match answer {
            Ok(response) => permission::decision(&response.outcome),
            Err(e) => {
                tracing::warn!(error = ?e, "the editor did not answer a permission request");
                permission::decision(&RequestPermissionOutcome::Cancelled)
            }
        };
        if let Err(e) = self
            .ctx
            .app
            .decide_approval(run, call_id.as_str(), decision)
        {
            tracing::warn!(error = %e, "a permission answer came too late");
        }
        Ok(())
    }
}
