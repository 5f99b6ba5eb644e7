//! Which model provider a run gets, for every front end that starts runs
//! (`run`, `acp`): the one named on the command line, the scripted one of
//! `--script`, else the profile's; its model from the command line, else
//! the profile's.

use bearagent_providers::{ModelProvider, ScriptedProvider};
use bearagent_runtime::config::ProviderOverrides;
use bearagent_runtime::{AppError, Application};
use std::path::Path;
use std::sync::Arc;

/// What was asked for on the command line.
pub struct ProviderArgs<'a> {
    pub provider: Option<&'a str>,
    pub script: Option<&'a Path>,
    pub overrides: &'a ProviderOverrides,
}

#[derive(Debug, thiserror::Error)]
pub enum ProviderChoiceError {
    /// No provider anywhere: each front end says how to name one.
    #[error("no model provider")]
    Missing,
    /// The command line is wrong (a script that does not load, a missing one).
    #[error("{0}")]
    Usage(String),
    #[error(transparent)]
    App(#[from] AppError),
}

/// The provider for a run whose profile names `profile_provider` and
/// `profile_model` (a configured one built as configured).
pub fn choose_provider(
    app: &Application,
    args: &ProviderArgs<'_>,
    profile_provider: Option<String>,
    profile_model: Option<String>,
) -> Result<Arc<dyn ModelProvider>, ProviderChoiceError> {
    match pick(args, profile_provider, profile_model)? {
        Picked::Ready(provider) => Ok(provider),
        Picked::Named(name, o) => Ok(app.provider_with(&name, &o)?),
    }
}

/// `choose_provider`, having asked a local server for the window and tool
/// support its config does not state (recorded on the run's `RunCreated`).
pub async fn choose_provider_for_run(
    app: &Application,
    args: &ProviderArgs<'_>,
    profile_provider: Option<String>,
    profile_model: Option<String>,
) -> Result<Arc<dyn ModelProvider>, ProviderChoiceError> {
    match pick(args, profile_provider, profile_model)? {
        Picked::Ready(provider) => Ok(provider),
        Picked::Named(name, o) => Ok(app.provider_for_run(&name, &o).await?),
    }
}

enum Picked {
    Ready(Arc<dyn ModelProvider>),
    Named(String, ProviderOverrides),
}

fn pick(
    args: &ProviderArgs<'_>,
    profile_provider: Option<String>,
    profile_model: Option<String>,
) -> Result<Picked, ProviderChoiceError> {
    let name = match (args.provider, args.script, profile_provider) {
        (Some(p), _, _) => p.to_owned(),
        (None, Some(_), _) => "script".to_owned(),
        (None, None, Some(p)) => p,
        (None, None, None) => return Err(ProviderChoiceError::Missing),
    };
    match (name.as_str(), args.script) {
        ("script", Some(path)) => ScriptedProvider::from_file(path)
            .map(|p| Picked::Ready(Arc::new(p)))
            .map_err(|e| ProviderChoiceError::Usage(e.to_string())),
        ("script", None) => Err(ProviderChoiceError::Usage(
            "--provider script needs --script FILE".to_owned(),
        )),
        _ => {
            let mut o = args.overrides.clone();
            o.model = o.model.or(profile_model);
            Ok(Picked::Named(name, o))
        }
    }
}
