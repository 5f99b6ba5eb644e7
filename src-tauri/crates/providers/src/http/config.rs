//! Configuration of the HTTP adapters: which wire protocol, where, which
//! model, which key, and how patient to be.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// The wire protocol an HTTP provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Protocol {
    /// POST /v1/chat/completions (OpenAI and every OpenAI-compatible server:
    /// llama.cpp, Ollama, vLLM, ...).
    #[serde(rename = "openai-chat")]
    OpenAiChat,
    /// POST /v1/responses (OpenAI Responses API).
    #[serde(rename = "openai-responses")]
    OpenAiResponses,
    /// POST /v1/messages (Anthropic Messages API).
    #[serde(rename = "anthropic")]
    Anthropic,
    /// POST /api/chat (Ollama's own chat API): unlike its OpenAI-compatible
    /// one it takes `options.num_ctx`, so the model runs with the window
    /// BearAgent plans for instead of Ollama's small default.
    #[serde(rename = "ollama-chat")]
    OllamaChat,
}

impl Protocol {
    pub const ALL: [Protocol; 4] = [
        Protocol::OpenAiChat,
        Protocol::OpenAiResponses,
        Protocol::Anthropic,
        Protocol::OllamaChat,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::OpenAiChat => "openai-chat",
            Protocol::OpenAiResponses => "openai-responses",
            Protocol::Anthropic => "anthropic",
            Protocol::OllamaChat => "ollama-chat",
        }
    }

    /// The endpoint path below `/v1` (Ollama's: below the server root).
    pub(crate) fn endpoint(self) -> &'static str {
        match self {
            Protocol::OpenAiChat => "chat/completions",
            Protocol::OpenAiResponses => "responses",
            Protocol::Anthropic => "messages",
            Protocol::OllamaChat => "api/chat",
        }
    }
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown provider protocol {0:?} (expected openai-chat, openai-responses, anthropic or ollama-chat)")]
pub struct ParseProtocolError(pub String);

impl FromStr for Protocol {
    type Err = ParseProtocolError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let wanted = s.trim();
        Protocol::ALL
            .into_iter()
            .find(|p| p.as_str().eq_ignore_ascii_case(wanted))
            .ok_or_else(|| ParseProtocolError(s.to_owned()))
    }
}

/// An API key. It prints as `ApiKey(***)` and never reaches an error, a log
/// line or `ProviderInfo`; only the adapter reads it, to build a header.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    pub fn new(key: impl Into<String>) -> Self {
        Self(key.into())
    }

    pub(crate) fn expose(&self) -> &str {
        &self.0
    }

    /// The secret itself, only to hand it to a transport that needs it (an
    /// MCP server's environment or bearer header); never to print.
    pub fn secret_for_transport(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(***)")
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(***)")
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// Establishing the TCP (and TLS) connection.
    pub connect: Duration,
    /// The longest silence allowed: before the response headers, and
    /// between two body chunks once streaming started.
    pub idle: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Self {
            connect: Duration::from_secs(10),
            idle: Duration::from_secs(60),
        }
    }
}

/// Retries of 429, 5xx, overload and connection failures, with exponential
/// backoff and jitter, honouring `retry-after` / `retry-after-ms`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    pub max_retries: u32,
    pub base_delay: Duration,
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 4,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpProviderConfig {
    /// The configured name, e.g. "anthropic" or a user's "local-llama".
    pub name: String,
    pub protocol: Protocol,
    /// Scheme, host and optional path prefix, e.g. `http://127.0.0.1:8080`,
    /// `https://api.openai.com/v1`. The adapter appends `/v1/<endpoint>`
    /// (or only `/<endpoint>` when the base already ends in `/v1`); for
    /// Ollama's own API, `/api/chat` to the server root (a `/v1` dropped).
    pub base_url: String,
    pub model: String,
    /// `None` sends no auth header (local servers).
    pub api_key: Option<ApiKey>,
    pub timeouts: Timeouts,
    pub retry: RetryPolicy,
    /// Used when the request does not set its own limit.
    pub max_output_tokens: u32,
    /// Native tool calling, or JSON-text mode for models without it.
    pub tool_mode: crate::ToolMode,
    /// What the provider charges (None: the cost of a run is unknown).
    pub price: Option<bearagent_kernel::Price>,
    /// Tokens the model reads at most (None: its family's default).
    pub context_window: Option<u64>,
    /// The model reads images (None: its family's default).
    pub vision: Option<bool>,
    /// What a local server said before the run, reported by `info()`.
    pub learned: Option<bearagent_kernel::LearnedModel>,
}

impl HttpProviderConfig {
    pub const DEFAULT_MAX_OUTPUT_TOKENS: u32 = 4096;

    /// A config with default timeouts, retries and output limit, no key.
    pub fn new(
        name: impl Into<String>,
        protocol: Protocol,
        base_url: impl Into<String>,
        model: impl Into<String>,
    ) -> Self {
        Self {
            name: name.into(),
            protocol,
            base_url: base_url.into(),
            model: model.into(),
            api_key: None,
            timeouts: Timeouts::default(),
            retry: RetryPolicy::default(),
            max_output_tokens: Self::DEFAULT_MAX_OUTPUT_TOKENS,
            tool_mode: crate::ToolMode::Native,
            price: None,
            context_window: None,
            vision: None,
            learned: None,
        }
    }

    pub fn with_api_key(mut self, key: ApiKey) -> Self {
        self.api_key = Some(key);
        self
    }

    /// The full endpoint URL for this protocol.
    pub fn endpoint_url(&self) -> String {
        endpoint_url(&self.base_url, self.protocol)
    }
}

pub(crate) fn endpoint_url(base_url: &str, protocol: Protocol) -> String {
    let base = base_url.trim().trim_end_matches('/');
    if protocol == Protocol::OllamaChat {
        // A base copied from an OpenAI-compatible setup still works.
        let root = base.strip_suffix("/v1").unwrap_or(base);
        return format!("{root}/{}", protocol.endpoint());
    }
    if base.ends_with("/v1") {
        format!("{base}/{}", protocol.endpoint())
    } else {
        format!("{base}/v1/{}", protocol.endpoint())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protocols_parse_and_print() {
        for p in Protocol::ALL {
            assert_eq!(p.as_str().parse::<Protocol>().unwrap(), p);
            let json = serde_json::to_string(&p).unwrap();
            assert_eq!(json, format!("\"{p}\""));
            assert_eq!(serde_json::from_str::<Protocol>(&json).unwrap(), p);
        }
        assert!("openai".parse::<Protocol>().is_err());
    }

    #[test]
    fn endpoints_tolerate_trailing_slash_and_v1() {
        let chat = Protocol::OpenAiChat;
        for base in [
            "http://127.0.0.1:8080",
            "http://127.0.0.1:8080/",
            "http://127.0.0.1:8080/v1",
            "http://127.0.0.1:8080/v1/",
        ] {
            assert_eq!(
                endpoint_url(base, chat),
                "http://127.0.0.1:8080/v1/chat/completions"
            );
        }
        assert_eq!(
            endpoint_url("https://api.anthropic.com", Protocol::Anthropic),
            "https://api.anthropic.com/v1/messages"
        );
        assert_eq!(
            endpoint_url("http://h/openai/v1", Protocol::OpenAiResponses),
            "http://h/openai/v1/responses"
        );
        for base in ["http://127.0.0.1:11434/", "http://127.0.0.1:11434/v1"] {
            assert_eq!(
                endpoint_url(base, Protocol::OllamaChat),
                "http://127.0.0.1:11434/api/chat"
            );
        }
    }

    #[test]
    fn keys_never_print() {
        let key = ApiKey::new("sk-secret-123");
        assert_eq!(format!("{key:?}"), "ApiKey(***)");
        assert_eq!(key.to_string(), "ApiKey(***)");
        let config =
            HttpProviderConfig::new("x", Protocol::Anthropic, "http://h", "m").with_api_key(key);
        assert!(!format!("{config:?}").contains("secret"));
    }

    #[test]
    fn defaults_are_as_documented() {
        let t = Timeouts::default();
        assert_eq!(
            (t.connect, t.idle),
            (Duration::from_secs(10), Duration::from_secs(60))
        );
        let r = RetryPolicy::default();
        assert_eq!(r.max_retries, 4);
        assert_eq!(r.base_delay, Duration::from_millis(500));
        assert_eq!(r.max_delay, Duration::from_secs(30));
    }
}
