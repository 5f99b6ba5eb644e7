//! Local model servers: finding them, adding one as a provider in one
//! step, and asking a local provider's server for its window and tool
//! support before a run when the config does not state them.

use crate::app::Application;
use crate::config::learn::{self, AddError};
use crate::config::{ProviderEntry, ProviderOverrides};
use crate::demo::DEMO_PROVIDER;
use crate::AppError;
use bearagent_providers::local::{self, DetectOptions, Detection, LocalServer};
use bearagent_providers::{http_provider, ModelProvider};
use std::sync::Arc;
use std::time::Duration;
use tracing::instrument;

/// How long a run's start waits for its own local server's answers: it
/// is known to be there, so longer than detection's sweep, still short.
pub const LEARN_BUDGET: Duration = Duration::from_secs(2);

/// A detected server added as a provider.
#[derive(Debug, Clone, PartialEq)]
pub struct AddedProvider {
    pub name: String,
    pub server: LocalServer,
    pub entry: ProviderEntry,
}

impl Application {
    /// Probes the usual loopback ports (and `options`' extras) at once.
    #[instrument(skip(self))]
    pub async fn detect_local_providers(&self, options: &DetectOptions) -> Detection {
        local::detect(options).await
    }

    /// Detects, then writes a provider `name` for the first server
    /// offering `model` (else the first server's first model), with the
    /// window learned and the tool mode its template allows. An existing
    /// provider of that name is left alone and refused.
    #[instrument(skip(self))]
    pub async fn add_detected_provider(
        &self,
        name: &str,
        model: Option<&str>,
        options: &DetectOptions,
    ) -> Result<AddedProvider, AppError> {
        let name = name.trim().to_owned();
        if name.is_empty()
            || name == DEMO_PROVIDER
            || name.parse::<bearagent_providers::Protocol>().is_ok()
        {
            return Err(AppError::InvalidInput(format!(
                "{name:?} cannot name a provider (blank, \"demo\" or a protocol name)"
            )));
        }
        let found = self.detect_local_providers(options).await;
        let looked_at = format!("ports {:?} and {:?}", options.ports, options.urls);
        let (server, entry) = learn::entry_for(&found.servers, model, &looked_at)
            .map_err(|e: AddError| AppError::InvalidInput(e.to_string()))?;
        self.update_config(|c| {
            if c.providers.contains_key(&name) {
                return Err(AppError::InvalidInput(format!(
                    "a provider named {name} exists already: choose another name or remove it first"
                )));
            }
            c.providers.insert(name.clone(), entry.clone());
            Ok(())
        })?;
        Ok(AddedProvider {
            name,
            server: server.clone(),
            entry,
        })
    }

    /// The provider a run gets, by name with one-run overrides, having
    /// asked its server first when the config declares it a local server
    /// (`server = …`). What was learned (or that nothing could be) is in
    /// `info().learned`, recorded on `RunCreated`; a window the config
    /// states wins.
    #[instrument(skip(self, overrides))]
    pub async fn provider_for_run(
        &self,
        name: &str,
        overrides: &ProviderOverrides,
    ) -> Result<Arc<dyn ModelProvider>, AppError> {
        if name == DEMO_PROVIDER {
            return self.provider_with(name, overrides);
        }
        let config = self.config()?;
        let mut http =
            crate::config::resolve::http_config(&config, self.secrets.as_ref(), name, overrides)?;
        if learn::should_learn(&http, config.providers.get(name)) {
            let root = learn::server_root(&http.base_url).to_owned();
            let probe = local::probe(&root, LEARN_BUDGET).await;
            let learned = learn::learned_from(&root, &http.model, probe);
            if !learned.not_learned.is_empty() {
                tracing::warn!(provider = name, not_learned = ?learned.not_learned, "local server");
            }
            learn::apply(&mut http, learned, overrides);
        }
        http_provider(http).map_err(|e| AppError::InvalidInput(e.to_string()))
    }
}

#[cfg(test)]
#[path = "local_servers_tests.rs"]
mod tests;
