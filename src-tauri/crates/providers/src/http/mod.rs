//! The real model adapters over HTTP: OpenAI Chat Completions (and every
//! OpenAI-compatible server), OpenAI Responses, Anthropic Messages and
//! Ollama's own chat API.
//! Wire types, vendor errors and keys stay in here; callers see
//! `StreamItem`s and classified `ProviderError`s only.

mod anthropic;
mod body;
mod calls;
mod config;
mod driver;
mod errors;
mod images;
mod ndjson;
mod ollama_chat;
mod ollama_stream;
mod openai_chat;
mod openai_responses;
mod retry;
pub(crate) mod sse;
mod transport;

pub use config::{ApiKey, HttpProviderConfig, ParseProtocolError, Protocol, RetryPolicy, Timeouts};
pub use driver::OLLAMA_DEFAULT_WINDOW;
pub(crate) use driver::{decoder, framing};

use crate::{ModelProvider, ProviderError};
use std::sync::Arc;

/// Builds the adapter for `config.protocol`. Fails (not retryable) on a
/// blank name or model, a base URL that is not http(s), or a key that
/// cannot be sent in a header.
pub fn http_provider(config: HttpProviderConfig) -> Result<Arc<dyn ModelProvider>, ProviderError> {
    let mode = config.tool_mode;
    let native: Arc<dyn ModelProvider> = Arc::new(driver::HttpProvider::new(config)?);
    Ok(match mode {
        crate::ToolMode::Native => native,
        crate::ToolMode::JsonText => crate::json_text_provider(native),
    })
}
