//! A finished command's stored output, for the timeline's "show all";
//! and what a command of a profile would see of this machine.

use crate::app::Application;
use crate::AppError;
use bearagent_kernel::{CommandSettings, EventPayload, RunId};
use bearagent_tools::sandbox::view::SandboxView;
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

impl Application {
    /// What a command of profile `profile` would see of this machine: its
    /// command settings and, when it runs sandboxed on a platform with a
    /// sandbox, the home folders, configuration, credentials hidden, PATH
    /// and offline switches — from the code that builds the sandbox.
    #[instrument(skip(self))]
    pub fn command_view(
        &self,
        profile: &str,
    ) -> Result<(CommandSettings, Option<SandboxView>), AppError> {
        let (profile, _, _) = self.profile_named(profile)?;
        let settings = profile.commands;
        let view = if settings.sandbox {
            let host = self.command_host();
            let policy = host.policy(&host.home, &settings);
            bearagent_tools::sandbox::view::describe(&policy)
        } else {
            None
        };
        Ok((settings, view))
    }
}
