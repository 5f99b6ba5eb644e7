//! Settings use cases: providers (keys go to the keychain), profiles, and
//! testing a provider with one tiny streamed request.

use crate::app::Application;
use crate::config::{
    self, ConfigFile, KeySource, NamedKeySource, ProfileEntry, ProviderEntry, ProviderOverrides,
};
use crate::demo::{demo_provider, DEMO_PROVIDER};
use crate::profile::RunProfile;
use crate::AppError;
use bearagent_kernel::{HistoryItem, Message, Role};
use bearagent_providers::{complete, http_provider, ModelProvider, ModelRequest, ProviderError};
use std::sync::Arc;
use std::time::Instant;
use tracing::instrument;

#[derive(Debug, Clone, PartialEq)]
pub struct ProviderSummary {
    pub name: String,
    pub entry: ProviderEntry,
    /// A key is available from its source (keychain entry or env variable).
    pub key_present: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    pub config_path: String,
    pub providers: Vec<ProviderSummary>,
    pub profiles: Vec<(String, ProfileEntry)>,
    /// Each profile as a run would get it, with the provider it prefers.
    pub resolved_profiles: Vec<(RunProfile, Option<String>)>,
    pub mcp_servers: Vec<McpServerSummary>,
}

/// A configured MCP server and which of its keychain secrets are stored.
#[derive(Debug, Clone, PartialEq)]
pub struct McpServerSummary {
    pub name: String,
    pub entry: crate::config::McpServerEntry,
    pub keychain: Vec<(String, bool)>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ProviderTest {
    pub ok: bool,
    pub latency_ms: Option<u64>,
    /// e.g. "provider", "invalid_output", "truncated_stream".
    pub error_class: Option<String>,
    pub message: String,
}

impl Application {
    pub fn config(&self) -> Result<ConfigFile, AppError> {
        Ok(config::load::load(&self.config_path)?)
    }

    pub fn config_path(&self) -> &std::path::Path {
        &self.config_path
    }

    fn key_present(&self, name: &str, key: &KeySource) -> bool {
        match key {
            KeySource::Env { env } => std::env::var_os(env).is_some_and(|v| !v.is_empty()),
            KeySource::Named(NamedKeySource::Keychain) => self.secrets.contains(name),
            KeySource::Named(NamedKeySource::None) | KeySource::Unset => false,
        }
    }

    #[instrument(skip(self))]
    pub fn settings(&self) -> Result<Settings, AppError> {
        let config = self.config()?;
        let providers = config
            .providers
            .iter()
            .map(|(name, entry)| ProviderSummary {
                name: name.clone(),
                key_present: self.key_present(name, &entry.key),
                entry: entry.clone(),
            })
            .collect();
        let mut resolved_profiles = Vec::new();
        for name in config.profiles.keys() {
            let (profile, provider, _) = config::resolve::profile(&config, name)?;
            resolved_profiles.push((profile, provider));
        }
        let mcp_servers = config
            .mcp_servers
            .iter()
            .map(|(name, entry)| McpServerSummary {
                name: name.clone(),
                keychain: self.mcp_secrets_present(name, entry),
                entry: entry.clone(),
            })
            .collect();
        Ok(Settings {
            config_path: self.config_path.display().to_string(),
            providers,
            profiles: config.profiles.into_iter().collect(),
            resolved_profiles,
            mcp_servers,
        })
    }

    pub(crate) fn update_config(
        &self,
        change: impl FnOnce(&mut ConfigFile) -> Result<(), AppError>,
    ) -> Result<(), AppError> {
        config::load::update(&self.config_path, change)
    }

    #[instrument(skip(self, entry))]
    pub fn save_provider(&self, name: &str, entry: ProviderEntry) -> Result<(), AppError> {
        let name = name.trim().to_owned();
        let mut entry = entry;
        self.update_config(|c| {
            // A form that does not show the server kind keeps it for the
            // same server.
            if let Some(old) = c.providers.get(&name) {
                if entry.server.is_none() && old.base_url == entry.base_url {
                    entry.server = old.server;
                }
            }
            c.providers.insert(name, entry);
            Ok(())
        })
    }

    #[instrument(skip(self))]
    pub fn delete_provider(&self, name: &str) -> Result<(), AppError> {
        self.update_config(|c| {
            if c.profiles
                .values()
                .any(|p| p.provider.as_deref() == Some(name))
            {
                return Err(AppError::Conflict(format!(
                    "a profile still uses provider {name:?}"
                )));
            }
            c.providers
                .remove(name)
                .map(|_| ())
                .ok_or_else(|| AppError::NotFound {
                    what: "provider",
                    id: name.to_owned(),
                })
        })?;
        self.secrets
            .delete(name)
            .map_err(|e| AppError::InvalidInput(e.to_string()))
    }

    /// Stores the key in the OS keychain; it is never returned.
    #[instrument(skip(self, key))]
    pub fn set_provider_key(&self, name: &str, key: &str) -> Result<(), AppError> {
        if key.trim().is_empty() {
            return Err(AppError::InvalidInput("the key is empty".into()));
        }
        if !self.config()?.providers.contains_key(name) {
            return Err(AppError::NotFound {
                what: "provider",
                id: name.to_owned(),
            });
        }
        self.secrets
            .set(name, key.trim())
            .map_err(|e| AppError::InvalidInput(e.to_string()))
    }

    #[instrument(skip(self, entry))]
    /// Saves a profile. Settings that the entry leaves unset and the stored
    /// profile has (the model, invalid-output and loop thresholds, context profile, which
    /// the desktop form does not show) are kept, not silently dropped.
    pub fn save_profile(&self, name: &str, mut entry: ProfileEntry) -> Result<(), AppError> {
        let name = name.trim().to_owned();
        self.update_config(|c| {
            if let Some(old) = c.profiles.get(&name) {
                entry.model = entry.model.or_else(|| old.model.clone());
                entry.max_invalid_outputs = entry.max_invalid_outputs.or(old.max_invalid_outputs);
                entry.max_repeated_calls = entry.max_repeated_calls.or(old.max_repeated_calls);
                entry.context_profile = entry
                    .context_profile
                    .or_else(|| old.context_profile.clone());
                // The form does not show delegation yet: keep the file's.
                entry.delegate = entry.delegate.or(old.delegate);
                entry.delegation_depth = entry.delegation_depth.or(old.delegation_depth);
                entry.delegation_share = entry.delegation_share.or(old.delegation_share);
            }
            c.profiles.insert(name, entry);
            Ok(())
        })
    }

    #[instrument(skip(self))]
    pub fn delete_profile(&self, name: &str) -> Result<(), AppError> {
        self.update_config(|c| {
            c.profiles
                .remove(name)
                .map(|_| ())
                .ok_or_else(|| AppError::NotFound {
                    what: "profile",
                    id: name.to_owned(),
                })
        })
    }

    /// The run profile by name, with the provider and model it prefers.
    pub fn profile_named(
        &self,
        name: &str,
    ) -> Result<(RunProfile, Option<String>, Option<String>), AppError> {
        config::resolve::profile(&self.config()?, name)
    }

    /// The provider a new run should use, by name.
    pub fn provider_named(&self, name: &str) -> Result<Arc<dyn ModelProvider>, AppError> {
        self.provider_with(name, &ProviderOverrides::default())
    }

    /// The provider by name with one-run overrides (base URL, model, key
    /// variable). "demo" is the offline demo model.
    pub fn provider_with(
        &self,
        name: &str,
        overrides: &ProviderOverrides,
    ) -> Result<Arc<dyn ModelProvider>, AppError> {
        if name == DEMO_PROVIDER {
            return Ok(Arc::new(demo_provider()?));
        }
        let http =
            config::resolve::http_config(&self.config()?, self.secrets.as_ref(), name, overrides)?;
        http_provider(http).map_err(|e| AppError::InvalidInput(e.to_string()))
    }

    /// One tiny streamed request; reports latency or the classified error.
    #[instrument(skip(self, overrides))]
    pub async fn test_provider(
        &self,
        name: &str,
        overrides: &ProviderOverrides,
    ) -> Result<ProviderTest, AppError> {
        let provider = self.provider_with(name, overrides)?;
        let request = ModelRequest {
            system: "This is a connection test.".into(),
            history: std::sync::Arc::new(vec![HistoryItem::Message(Message::new(
                Role::User,
                "Reply with the single word OK.",
            ))]),
            tools: Default::default(),
            max_output_tokens: Some(16),
            images: Default::default(),
        };
        let started = Instant::now();
        let outcome = complete(provider.as_ref(), request, |_| {}).await;
        let latency = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        Ok(match outcome {
            Ok(response) => ProviderTest {
                ok: true,
                latency_ms: Some(latency),
                error_class: None,
                message: format!(
                    "{} answered in {latency} ms ({} output tokens)",
                    provider.info().model,
                    response.usage.output
                ),
            },
            Err(e) => ProviderTest {
                ok: false,
                latency_ms: None,
                error_class: Some(error_class(&e).to_owned()),
                message: e.to_string(),
            },
        })
    }
}

fn error_class(e: &ProviderError) -> &'static str {
    match e {
        ProviderError::Provider {
            retryable: true, ..
        } => "provider_retryable",
        ProviderError::Provider { .. } => "provider",
        ProviderError::InvalidOutput { .. } => "invalid_output",
        ProviderError::ScriptExhausted { .. } => "script_exhausted",
        ProviderError::TruncatedStream { .. } => "truncated_stream",
        ProviderError::Recorded { .. } => "recorded",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bearagent_kernel::{FixedClock, Timestamp};

    #[test]
    fn saving_a_profile_from_a_form_keeps_the_settings_the_form_does_not_show() {
        let home = tempfile::tempdir().unwrap();
        std::fs::write(
            home.path().join("config.toml"),
            "version = 1\n[profiles.careful]\nmodel = \"m1\"\nmax_repeated_calls = 7\nmax_invalid_outputs = 4\ndelegate = true\ndelegation_share = 40\n",
        )
        .unwrap();
        let clock = FixedClock(Timestamp::from_unix_millis(1_800_000_000_000).unwrap());
        let app = Application::open(home.path(), Arc::new(clock)).unwrap();
        let from_form = ProfileEntry {
            approval: Some("ask".into()),
            max_model_calls: Some(9),
            ..ProfileEntry::default()
        };
        app.save_profile("careful", from_form).unwrap();
        let saved = &app.config().unwrap().profiles["careful"];
        assert_eq!(saved.max_model_calls, Some(9));
        assert_eq!(saved.approval.as_deref(), Some("ask"));
        assert_eq!(saved.model.as_deref(), Some("m1"));
        assert_eq!(saved.max_repeated_calls, Some(7));
        assert_eq!(saved.max_invalid_outputs, Some(4));
        assert_eq!(
            (saved.delegate, saved.delegation_share),
            (Some(true), Some(40))
        );
    }
}
