//! Provider failures, classified once at the adapter (retryable or not,
//! invalid output, truncated stream) so nothing above parses messages.

use bearagent_kernel::{ModelErrorClass, TokenUsage};

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ProviderError {
    /// Transport, HTTP status or overload: the provider failed.
    #[error("{provider}: {message}")]
    Provider {
        provider: String,
        message: String,
        retryable: bool,
        status: Option<u16>,
    },
    /// The model answered, but not with a valid action. Tokens were spent.
    #[error("invalid model output: {message}")]
    InvalidOutput { message: String, usage: TokenUsage },
    /// A scripted provider ran out of outcomes: the script is too short.
    #[error("the script ran out after {calls} model calls")]
    ScriptExhausted { calls: usize },
    /// The stream ended before its terminal event.
    #[error("the model stream ended early: {message}")]
    TruncatedStream { message: String },
    /// A failure read back from a run's record (a replay): its class, its
    /// message as recorded, and what it cost.
    #[error("{message}")]
    Recorded {
        class: ModelErrorClass,
        message: String,
        usage: TokenUsage,
    },
}

impl ProviderError {
    pub fn class(&self) -> ModelErrorClass {
        match self {
            ProviderError::Provider { retryable, .. } => ModelErrorClass::Provider {
                retryable: *retryable,
            },
            ProviderError::InvalidOutput { .. } => ModelErrorClass::InvalidOutput,
            ProviderError::ScriptExhausted { .. } => ModelErrorClass::ScriptExhausted,
            ProviderError::TruncatedStream { .. } => ModelErrorClass::TruncatedStream,
            ProviderError::Recorded { class, .. } => *class,
        }
    }

    /// Tokens the failed call still cost.
    pub fn usage(&self) -> TokenUsage {
        match self {
            ProviderError::InvalidOutput { usage, .. } | ProviderError::Recorded { usage, .. } => {
                *usage
            }
            _ => TokenUsage::default(),
        }
    }
}
