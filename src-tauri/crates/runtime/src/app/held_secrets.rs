//! The secret values an export looks for, from what BearAgent itself
//! holds: the providers' and MCP servers' keys (read here only to find
//! them in a bundle, never logged or written), and what secret-looking
//! files held when the run read or wrote them (`bundle/secret_values.rs`).

use crate::app::Application;
use crate::artifacts::secrets::secret_hashes;
use crate::bundle::redact::{file_values, secret_like};
use crate::bundle::secret_values::{secret_file_texts, Found};
use crate::config::{KeySource, NamedKeySource, SecretValue};
use crate::AppError;
use bearagent_kernel::EventEnvelope;

impl Application {
    /// Every known secret value for the thread `runs`, with its kind.
    pub(crate) fn known_secrets(&self, runs: &[Vec<EventEnvelope>]) -> Result<Found, AppError> {
        let mut found = self.held_keys()?;
        for events in runs {
            for hash in secret_hashes(events) {
                if let Some(bytes) = self.store.get_blob(&hash)? {
                    found.extend(file_values(&String::from_utf8_lossy(&bytes)));
                }
            }
            for text in secret_file_texts(events) {
                found.extend(file_values(text));
            }
        }
        Ok(found)
    }

    /// The providers' keys (from the environment variable the config
    /// names, or the keychain where the config says so) and the MCP
    /// servers' secret values.
    fn held_keys(&self) -> Result<Found, AppError> {
        let config = self.config()?;
        let mut found = Vec::new();
        for (name, entry) in &config.providers {
            let key = match &entry.key {
                KeySource::Env { env } => std::env::var(env).ok(),
                KeySource::Named(NamedKeySource::Keychain) => self
                    .secrets
                    .get(name)
                    .ok()
                    .map(|k| k.secret_for_transport().to_owned()),
                KeySource::Named(NamedKeySource::None) | KeySource::Unset => None,
            };
            found.extend(key.map(|k| (k, "provider-key")));
        }
        for (server, entry) in &config.mcp_servers {
            let named = entry.env.iter().map(|(k, v)| (k.as_str(), v));
            let token = entry.bearer_token.iter().map(|t| ("bearer_token", t));
            for (name, value) in named.chain(token) {
                let plain_token = name == "bearer_token";
                found.extend(self.mcp_value(server, name, value, plain_token));
            }
        }
        found.retain(|(v, _)| secret_like(v));
        Ok(found)
    }

    /// A server's value where it is a secret: from the environment or the
    /// keychain; a literal only for a bearer token (a literal `env` entry
    /// is ordinary configuration).
    fn mcp_value(
        &self,
        server: &str,
        name: &str,
        value: &SecretValue,
        plain_is_secret: bool,
    ) -> Option<(String, &'static str)> {
        let v = match value {
            SecretValue::Env { env } => std::env::var(env).ok()?,
            SecretValue::Plain(_) if value.is_keychain() => self
                .secrets
                .get(&crate::app::mcp::keychain_entry(server, name))
                .ok()?
                .secret_for_transport()
                .to_owned(),
            SecretValue::Plain(v) if plain_is_secret => v.clone(),
            SecretValue::Plain(_) => return None,
        };
        Some((v, "mcp-secret"))
    }
}
