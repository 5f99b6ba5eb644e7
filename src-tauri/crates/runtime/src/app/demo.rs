//! The offline demo's use cases: starting the demo run on a fresh sample
//! workspace, and the provider a follow-up or a resume of a run uses (the
//! demo's script for a demo run). The sample and the script: `crate::demo`.

use crate::app::Application;
use crate::demo::{create_demo_workspace, demo_follow_up_provider, demo_provider, DEMO_PROVIDER};
use crate::profile::RunProfile;
use crate::views::Workspace;
use crate::{AppError, StartRun};
use bearagent_kernel::{ApprovalMode, RunId};
use std::sync::Arc;

impl Application {
    /// Creates a sample workspace in the temp folder and starts the demo run
    /// on it, asking before the write.
    pub fn start_demo_run(&self) -> Result<(Workspace, RunId), AppError> {
        let root = create_demo_workspace(&std::env::temp_dir())?;
        let path = root.display().to_string();
        let profile = RunProfile {
            name: "demo".into(),
            approval_mode: ApprovalMode::AskWrites,
            ..RunProfile::default()
        };
        let run_id = self.start_run(StartRun {
            workspace: path.clone(),
            goal: "Read the notes in docs/ and write a short plan for multi-language greetings to docs/plan.md".into(),
            profile,
            provider: Arc::new(demo_provider()?),
            images: Vec::new(),
        })?;
        let workspace = self
            .recent_workspace_by_path(&path)?
            .ok_or_else(|| AppError::Corrupt("the demo workspace was not recorded".into()))?;
        Ok((workspace, run_id))
    }

    /// The provider a follow-up of a run uses: the same one (the demo's
    /// follow-up script for a demo run).
    pub(crate) fn provider_for_follow_up(
        &self,
        name: &str,
        model: &str,
    ) -> Result<Arc<dyn bearagent_providers::ModelProvider>, AppError> {
        if name == DEMO_PROVIDER {
            return Ok(Arc::new(demo_follow_up_provider()?));
        }
        self.provider_for_resume(name, model, 0)
    }

    /// Rebuilds the provider a run used, for resuming it.
    pub(crate) fn provider_for_resume(
        &self,
        name: &str,
        model: &str,
        model_calls_done: u32,
    ) -> Result<Arc<dyn bearagent_providers::ModelProvider>, AppError> {
        match name {
            DEMO_PROVIDER => {
                let provider = demo_provider()?;
                provider.skip(model_calls_done as usize);
                Ok(Arc::new(provider))
            }
            other => self.provider_with(
                other,
                &crate::config::ProviderOverrides {
                    model: (!model.is_empty()).then(|| model.to_owned()),
                    ..Default::default()
                },
            ),
        }
    }
}
