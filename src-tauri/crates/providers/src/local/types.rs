//! What detection reports: the servers found, their models, and why an
//! address could not be read.

use serde::{Deserialize, Serialize};

/// Which server answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ServerKind {
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
    OpenAiCompatible,
}

impl ServerKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ServerKind::LlamaCpp => "llama.cpp",
            ServerKind::Ollama => "ollama",
            ServerKind::LmStudio => "lm-studio",
            ServerKind::Vllm => "vllm",
            ServerKind::OpenAiCompatible => "openai-compatible",
        }
    }
}

impl std::fmt::Display for ServerKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A model a server offers, with what the server said about it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LocalModel {
    /// The id to send as `model`.
    pub id: String,
    /// Tokens one request may hold as the server runs the model now
    /// (None: the server did not say).
    pub context_window: Option<u64>,
    /// The most the model was trained for, when said (a server may run it
    /// with less: that is `context_window`).
    pub trained_window: Option<u64>,
    /// The chat template takes tools (None: the server did not say).
    pub tools: Option<bool>,
    /// What was not learned, and why, in a sentence each.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_learned: Vec<String>,
}

/// A server that answered, and its models.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LocalServer {
    pub kind: ServerKind,
    /// Where it answered, e.g. `http://127.0.0.1:8080`.
    pub base_url: String,
    pub models: Vec<LocalModel>,
}

impl LocalServer {
    /// The model `id`, or the first one when no id is asked for.
    pub fn model(&self, id: Option<&str>) -> Option<&LocalModel> {
        match id {
            Some(id) => self.models.iter().find(|m| m.id == id),
            None => self.models.first(),
        }
    }
}

/// A server that answered but could not be read, or did not answer in time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProbeFailure {
    pub base_url: String,
    pub error: String,
}

/// What one detection found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Detection {
    pub servers: Vec<LocalServer>,
    /// Addresses where something answered wrongly or too slowly. Addresses
    /// where nothing listens are not listed.
    pub failures: Vec<ProbeFailure>,
    /// How long the whole detection took.
    pub elapsed_ms: u64,
}

/// Why one address could not be read as a local model server.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DetectError {
    #[error("nothing answers at {url}")]
    Unreachable { url: String },
    #[error("{url} did not answer in time")]
    Timeout { url: String },
    #[error("{url} answered HTTP {status}")]
    Status { url: String, status: u16 },
    #[error("{url} sent more than {limit} bytes")]
    TooLarge { url: String, limit: usize },
    #[error("{url} did not answer JSON: {message}")]
    BadJson { url: String, message: String },
    #[error("{url} answered, but not as {expected}")]
    Unexpected { url: String, expected: &'static str },
    #[error(
        "{url} answers HTTP, but none of llama.cpp's /props, Ollama's /api/tags, \
         LM Studio's /api/v0/models or /v1/models"
    )]
    Unrecognised { url: String },
    #[error("{url}: not an http:// or https:// URL")]
    InvalidUrl { url: String },
    #[error("{url}: {message}")]
    Transport { url: String, message: String },
}
