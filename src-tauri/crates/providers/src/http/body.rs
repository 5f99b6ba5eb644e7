//! What every protocol's request builder needs besides the request: the
//! model and its output cap. Apart from the driver, which calls the
//! builders, so the builders need not import it back.

use crate::ModelRequest;

/// What the request builders need besides the request itself.
#[derive(Debug, Clone)]
pub(crate) struct BodySettings {
    pub model: String,
    pub max_output_tokens: u32,
    /// The window the run plans for; Ollama is told it as `num_ctx`.
    pub context_window: u64,
}

impl BodySettings {
    pub fn max_tokens(&self, request: &ModelRequest) -> u32 {
        request
            .max_output_tokens
            .unwrap_or(self.max_output_tokens)
            .max(1)
    }
}
