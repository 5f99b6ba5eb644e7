//! What a run learned from a local model server before its first call,
//! because the config did not say: the window the server runs the model
//! with and whether its chat template takes tools — and what the server
//! did not say, so a default is never mistaken for a fact.

use serde::{Deserialize, Serialize};

#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LearnedModel {
    /// The server that answered ("llama.cpp", "ollama", "lm-studio",
    /// "vllm", "openai-compatible"); None: it could not be read.
    pub server: Option<String>,
    /// Where it was asked.
    pub base_url: String,
    /// Tokens one request may hold as the server runs the model (None: not
    /// learned; the model family's default applies).
    pub context_window: Option<u64>,
    /// The most the model was trained for, when the server said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trained_window: Option<u64>,
    /// The chat template takes tools (None: not learned).
    pub tools: Option<bool>,
    /// What was not learned, and why, in a sentence each.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_learned: Vec<String>,
}
