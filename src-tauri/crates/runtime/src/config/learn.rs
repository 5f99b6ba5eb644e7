//! Learn, never guess: a provider declared a local server (`server = …`)
//! is asked before each run for the window it runs the model with and
//! whether the template takes tools (a window the config states wins),
//! and a detected server becomes a provider entry in one step. Pure: the asking is the
//! application's (`app/local_servers.rs`).

use super::file::{KeySource, NamedKeySource, ProviderEntry};
use super::resolve::ProviderOverrides;
use bearagent_kernel::LearnedModel;
use bearagent_providers::local::{DetectError, LocalServer, ServerKind};
use bearagent_providers::{HttpProviderConfig, Protocol, ToolMode, OLLAMA_DEFAULT_WINDOW};

/// Whether the run should ask the server first: a declared local server
/// (`server = …` in its entry) spoken to as OpenAI-compatible, or any
/// provider speaking Ollama's own API (its server is Ollama by definition).
pub fn should_learn(http: &HttpProviderConfig, entry: Option<&ProviderEntry>) -> bool {
    match http.protocol {
        Protocol::OllamaChat => true,
        Protocol::OpenAiChat => entry.is_some_and(|e| e.server.is_some()),
        Protocol::OpenAiResponses | Protocol::Anthropic => false,
    }
}

/// The server's own root: the base URL without a trailing `/v1`.
pub fn server_root(base_url: &str) -> &str {
    let base = base_url.trim().trim_end_matches('/');
    base.strip_suffix("/v1").unwrap_or(base)
}

/// What the probe of `base_url` taught about `model`.
pub fn learned_from(
    base_url: &str,
    model: &str,
    probe: Result<LocalServer, DetectError>,
) -> LearnedModel {
    let mut learned = LearnedModel {
        server: None,
        base_url: base_url.to_owned(),
        context_window: None,
        trained_window: None,
        tools: None,
        not_learned: Vec::new(),
    };
    let server = match probe {
        Ok(server) => server,
        Err(e) => {
            learned
                .not_learned
                .push(format!("the server could not be read: {e}"));
            return learned;
        }
    };
    learned.server = Some(server.kind.to_string());
    // llama.cpp serves its one model whatever name a request gives.
    let only = (server.models.len() == 1).then(|| &server.models[0]);
    match server.model(Some(model)).or(only) {
        Some(found) => {
            learned.context_window = found.context_window;
            learned.trained_window = found.trained_window;
            learned.tools = found.tools;
            learned.not_learned.clone_from(&found.not_learned);
        }
        None => {
            let listed: Vec<&str> = server.models.iter().map(|m| m.id.as_str()).collect();
            learned.not_learned.push(format!(
                "model {model} is not among the server's models ({})",
                listed.join(", ")
            ));
        }
    }
    learned
}

/// The provider config with what was learned: its window unless the
/// config states one, and JSON-text mode when the template takes no tools
/// (unless the run asked for a mode). Ollama's own API is sent the window
/// as num_ctx, so one is chosen when Ollama said only the trained window.
pub fn apply(
    http: &mut HttpProviderConfig,
    mut learned: LearnedModel,
    overrides: &ProviderOverrides,
) {
    if http.protocol == Protocol::OllamaChat {
        choose_ollama_window(&mut learned);
    }
    if http.context_window.is_none() {
        http.context_window = learned.context_window;
    }
    if learned.tools == Some(false) && overrides.tool_mode.is_none() {
        http.tool_mode = ToolMode::JsonText;
    }
    http.learned = Some(learned);
}

/// The window asked of Ollama (sent as num_ctx, so Ollama loads the model
/// with it): at least 16 k — Ollama's own default (2–4 k) or a window
/// another client loaded the model with would drop the prompt and tools —
/// more when the model is already run larger (the user chose that), less
/// only when it was trained for less. An unloaded model reports only its
/// trained window, often 32–128 k, whose KV cache does not fit a small
/// machine, hence the 16 k. Recorded as learned, so the run's window and
/// the num_ctx sent agree.
fn choose_ollama_window(learned: &mut LearnedModel) {
    let trained = learned.trained_window;
    let floor = trained.map_or(OLLAMA_DEFAULT_WINDOW, |t| t.min(OLLAMA_DEFAULT_WINDOW));
    learned.context_window = Some(
        learned
            .context_window
            .map_or(floor, |loaded| loaded.max(floor)),
    );
    // What detection said it could not learn is now chosen.
    learned
        .not_learned
        .retain(|note| !note.starts_with("context window:"));
}

/// Why a detected server cannot become a provider entry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AddError {
    #[error("no local model server was found (looked at {0})")]
    NothingFound(String),
    #[error("no server found offers model {model} (they offer: {offered})")]
    NoSuchModel { model: String, offered: String },
    #[error("the server at {0} lists no models")]
    NoModels(String),
}

/// The server to add and the entry for it: the first server offering
/// `model` (the first server and its first model when none is asked).
pub fn entry_for<'a>(
    servers: &'a [LocalServer],
    model: Option<&str>,
    looked_at: &str,
) -> Result<(&'a LocalServer, ProviderEntry), AddError> {
    let first = servers
        .first()
        .ok_or_else(|| AddError::NothingFound(looked_at.to_owned()))?;
    let (server, found) = match model {
        Some(id) => servers
            .iter()
            .find_map(|s| s.model(Some(id)).map(|m| (s, m)))
            .ok_or_else(|| AddError::NoSuchModel {
                model: id.to_owned(),
                offered: servers
                    .iter()
                    .flat_map(|s| s.models.iter().map(|m| m.id.as_str()))
                    .collect::<Vec<_>>()
                    .join(", "),
            })?,
        None => (
            first,
            first
                .model(None)
                .ok_or_else(|| AddError::NoModels(first.base_url.clone()))?,
        ),
    };
    // Ollama is spoken to in its own API, which sets the window per
    // request: each run learns and chooses it, so none is written down.
    let ollama = server.kind == ServerKind::Ollama;
    let entry = ProviderEntry {
        protocol: if ollama {
            Protocol::OllamaChat
        } else {
            Protocol::OpenAiChat
        },
        base_url: server.base_url.clone(),
        model: found.id.clone(),
        key: KeySource::Named(NamedKeySource::None),
        tool_mode: if found.tools == Some(true) {
            ToolMode::Native
        } else {
            ToolMode::JsonText
        },
        price: None,
        context_window: if ollama { None } else { found.context_window },
        vision: None,
        server: Some(server.kind),
    };
    Ok((server, entry))
}

#[cfg(test)]
#[path = "learn_tests.rs"]
mod tests;
