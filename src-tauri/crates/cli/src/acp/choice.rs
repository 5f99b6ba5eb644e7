//! Which profile and model provider an ACP session's runs use: the
//! user's config default, overridden by `bearagent acp --profile/--provider`
//! (or `--script` for an offline scripted model), with the session's mode
//! as the approval mode.

use crate::args::AcpArgs;
use crate::provider_choice::{choose_provider, ProviderArgs, ProviderChoiceError};
use bearagent_kernel::ApprovalMode;
use bearagent_providers::ModelProvider;
use bearagent_runtime::config::ProviderOverrides;
use bearagent_runtime::{Application, RunProfile};
use std::path::PathBuf;
use std::sync::Arc;

pub struct Choice {
    profile: String,
    provider: Option<String>,
    script: Option<PathBuf>,
    overrides: ProviderOverrides,
    approve: Option<ApprovalMode>,
}

impl Choice {
    pub fn from_args(args: &AcpArgs) -> Result<Choice, String> {
        let approve = match &args.approve {
            Some(mode) => Some(mode.parse::<ApprovalMode>().map_err(|e| e.to_string())?),
            None => None,
        };
        Ok(Choice {
            profile: args.profile.clone().unwrap_or_else(|| "default".to_owned()),
            provider: args.provider.clone(),
            script: args.script.clone(),
            overrides: crate::run_cmd::overrides(&args.overrides),
            approve,
        })
    }

    /// The mode a new session starts in.
    pub fn initial_mode(&self, app: &Application) -> Result<ApprovalMode, String> {
        if let Some(mode) = self.approve {
            return Ok(mode);
        }
        let (profile, _, _) = app
            .profile_named(&self.profile)
            .map_err(|e| e.to_string())?;
        Ok(profile.approval_mode)
    }

    /// The profile (in `mode`) and a provider for one run.
    pub fn for_run(
        &self,
        app: &Application,
        mode: ApprovalMode,
    ) -> Result<(RunProfile, Arc<dyn ModelProvider>), String> {
        let (mut profile, profile_provider, profile_model) = app
            .profile_named(&self.profile)
            .map_err(|e| e.to_string())?;
        profile.approval_mode = mode;
        let asked = ProviderArgs {
            provider: self.provider.as_deref(),
            script: self.script.as_deref(),
            overrides: &self.overrides,
        };
        match choose_provider(app, &asked, profile_provider, profile_model) {
            Ok(provider) => Ok((profile, provider)),
            Err(ProviderChoiceError::Missing) => Err("no model provider: start `bearagent acp --provider NAME`, or give the profile a provider in the config".to_owned()),
            Err(e) => Err(e.to_string()),
        }
    }
}
