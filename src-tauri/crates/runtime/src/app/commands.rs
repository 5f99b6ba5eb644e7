//! A finished command's stored output, for the timeline's "show all".

use crate::app::Application;
use crate::AppError;
use bearagent_kernel::{EventPayload, RunId};
use tracing::instrument;

impl Application {
    /// The output `call_id`'s command left (merged stdout and stderr, head
    /// and tail up to the stored cap), as recorded by its
    /// `CommandFinished`. Only blobs a run's own command references are
    /// served.
    #[instrument(skip(self))]
    pub fn command_output(&self, run_id: RunId, call_id: &str) -> Result<Vec<u8>, AppError> {
        let events = self.store.all_events(run_id)?;
        let hash = events.iter().rev().find_map(|e| {
            if let EventPayload::CommandFinished {
                call_id: id,
                output,
                ..
            } = &e.payload
            {
                (id.as_str() == call_id).then(|| output.clone())
            } else {
                None
            }
        });
        let Some(Some(hash)) = hash else {
            return Err(AppError::NotFound {
                what: "command output",
                id: format!("{run_id}/{call_id}"),
            });
        };
        self.store.get_blob(&hash)?.ok_or_else(|| {
            AppError::Corrupt(format!("the output blob {hash} of {call_id} is missing"))
        })
    }
}
