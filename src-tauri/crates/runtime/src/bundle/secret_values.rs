//! The secret values an export looks for: what secret-looking files held
//! when the run read or wrote them, and the keys BearAgent itself holds
//! (providers' and MCP servers'), read here only to find them, never
//! logged or written.

use super::redact::{file_values, secret_like};
use crate::app::Application;
use crate::artifacts::secrets::{looks_secret, secret_hashes};
use crate::config::{KeySource, NamedKeySource, SecretValue};
use crate::AppError;
use bearagent_kernel::{EventEnvelope, EventPayload};
use serde_json::Value;
use std::collections::BTreeSet;

type Found = Vec<(String, &'static str)>;

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

/// What the run's tools read from or wrote into secret-looking files: a
/// `read_file` result's text, the output of a command naming such a file
/// (`cat .env`), a write's or an edit's new text.
fn secret_file_texts(events: &[EventEnvelope]) -> Vec<&str> {
    let mut reads = BTreeSet::new();
    let mut out = Vec::new();
    for e in events {
        match &e.payload {
            EventPayload::ToolCallRequested { call } => {
                let arg = |key| call.arguments.get(key).and_then(Value::as_str);
                if arg("command").is_some_and(names_secret_file) {
                    reads.insert(call.call_id.as_str().to_owned());
                }
                if !arg("path").is_some_and(looks_secret) {
                    continue;
                }
                if call.tool_name.as_str() == "read_file" {
                    reads.insert(call.call_id.as_str().to_owned());
                }
                out.extend(["content", "new_string"].into_iter().filter_map(arg));
            }
            EventPayload::ToolCallCompleted { result, .. }
                if reads.contains(result.call_id.as_str()) =>
            {
                out.push(result.content.as_str());
            }
            _ => {}
        }
    }
    out
}

/// A command line with a word that is a secret-looking file's path.
fn names_secret_file(command: &str) -> bool {
    command
        .split(|c: char| c.is_whitespace() || ";|&<>()'\"`".contains(c))
        .any(|word| !word.is_empty() && looks_secret(word))
}

#[cfg(test)]
#[path = "secret_values_tests.rs"]
mod tests;
