//! IPC types of local model servers: what a detection found (servers,
//! their models, what was not learned) and the provider one became.

use super::settings::ToolModeView;
use bearagent_providers::local::{Detection, LocalModel, LocalServer, ProbeFailure, ServerKind};
use bearagent_runtime::AddedProvider;
use serde::Serialize;

/// Which server answered (the config's `server = …` spelling).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
pub enum LocalServerKindView {
    #[serde(rename = "llama.cpp")]
    LlamaCpp,
    #[serde(rename = "ollama")]
    Ollama,
    #[serde(rename = "lm-studio")]
    LmStudio,
    #[serde(rename = "vllm")]
    Vllm,
    /// Answers `/v1/models` and nothing more specific.
    #[serde(rename = "openai-compatible")]
    OpenaiCompatible,
}

impl From<ServerKind> for LocalServerKindView {
    fn from(k: ServerKind) -> Self {
        match k {
            ServerKind::LlamaCpp => Self::LlamaCpp,
            ServerKind::Ollama => Self::Ollama,
            ServerKind::LmStudio => Self::LmStudio,
            ServerKind::Vllm => Self::Vllm,
            ServerKind::OpenAiCompatible => Self::OpenaiCompatible,
        }
    }
}

/// A model a server offers, with what the server said about it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct LocalModelView {
    /// The id sent as `model`.
    pub id: String,
    /// Tokens one request may hold as the server runs it now (null: not said).
    pub context_window: Option<u64>,
    /// The most the model was trained for, when said.
    pub trained_window: Option<u64>,
    /// The chat template takes tools (null: not said).
    pub tools: Option<bool>,
    /// What was not learned, and why, in a sentence each.
    pub not_learned: Vec<String>,
}

impl From<LocalModel> for LocalModelView {
    fn from(m: LocalModel) -> Self {
        Self {
            id: m.id,
            context_window: m.context_window,
            trained_window: m.trained_window,
            tools: m.tools,
            not_learned: m.not_learned,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct LocalServerView {
    pub kind: LocalServerKindView,
    /// Where it answered, e.g. `http://127.0.0.1:8080`.
    pub base_url: String,
    pub models: Vec<LocalModelView>,
}

impl From<LocalServer> for LocalServerView {
    fn from(s: LocalServer) -> Self {
        Self {
            kind: s.kind.into(),
            base_url: s.base_url,
            models: s.models.into_iter().map(Into::into).collect(),
        }
    }
}

/// An address where something answered wrongly or too slowly.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct LocalProbeFailureView {
    pub base_url: String,
    pub error: String,
}

impl From<ProbeFailure> for LocalProbeFailureView {
    fn from(f: ProbeFailure) -> Self {
        Self {
            base_url: f.base_url,
            error: f.error,
        }
    }
}

/// What one detection found. Addresses where nothing listens are not listed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct LocalDetectionView {
    pub servers: Vec<LocalServerView>,
    pub failures: Vec<LocalProbeFailureView>,
    pub elapsed_ms: u64,
}

impl From<Detection> for LocalDetectionView {
    fn from(d: Detection) -> Self {
        Self {
            servers: d.servers.into_iter().map(Into::into).collect(),
            failures: d.failures.into_iter().map(Into::into).collect(),
            elapsed_ms: d.elapsed_ms,
        }
    }
}

/// The provider a detected server's model became.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct AddedLocalProviderView {
    /// The provider's name, as runs choose it.
    pub name: String,
    pub kind: LocalServerKindView,
    pub base_url: String,
    pub model: String,
    /// The window learned (null: the model family's default applies).
    pub context_window: Option<u64>,
    /// Native when the chat template takes tools, else JSON text.
    pub tool_mode: ToolModeView,
}

impl From<AddedProvider> for AddedLocalProviderView {
    fn from(a: AddedProvider) -> Self {
        Self {
            name: a.name,
            kind: a.server.kind.into(),
            base_url: a.entry.base_url,
            model: a.entry.model,
            context_window: a.entry.context_window,
            tool_mode: a.entry.tool_mode.into(),
        }
    }
}

#[cfg(test)]
#[path = "local_tests.rs"]
mod tests;
