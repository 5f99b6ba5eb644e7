//! The `ModelProvider` port and its adapters. Provider differences stop
//! here: nothing vendor-specific (wire types, raw errors, keys) leaves this
//! crate. Adapters stream text deltas, complete tool calls and exactly one
//! completion; `complete` turns that stream into one `ModelResponse`.
#![cfg_attr(
    test,
    allow(
        clippy::disallowed_methods,
        reason = "tests write their own fixtures; the effect rule is for shipped code"
    )
)]

mod complete;
pub mod decode;
mod error;
mod http;
pub mod json_text;
mod json_text_mode;
pub mod local;
mod port;
pub mod scripted;
pub mod text_calls;
mod window;

pub use complete::{complete, ModelResponse, Progress};
pub use error::ProviderError;
pub use http::{
    http_provider, ApiKey, HttpProviderConfig, ParseProtocolError, Protocol, RetryPolicy, Timeouts,
    OLLAMA_DEFAULT_WINDOW,
};
pub use json_text_mode::{json_text_provider, system_prompt as json_text_system_prompt, ToolMode};
pub use port::{
    ImageBytes, ModelProvider, ModelRequest, ModelStream, ProviderInfo, RetryNotice, StreamItem,
    ToolSchema,
};
pub use scripted::{ScriptError, ScriptedProvider};
pub use text_calls::{find_text_calls, TextCall, TextCallError, TextCalls};
pub use window::{default_context_window, default_vision, COMPACTION_PROMPT};
