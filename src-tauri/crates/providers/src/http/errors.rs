//! Classifying and sanitising vendor errors. Nothing raw leaves: messages
//! are short excerpts with control characters removed and the key scrubbed.

use crate::ProviderError;
use serde_json::Value;

/// The longest excerpt of a vendor message kept in an error.
pub(crate) const EXCERPT_CHARS: usize = 200;

/// A vendor error as found in a body or a stream event, vendor-neutral.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct WireError {
    /// `type` (Anthropic `overloaded_error`, OpenAI `server_error`, ...).
    pub kind: Option<String>,
    /// `code` (OpenAI `insufficient_quota`, llama.cpp `500`, ...).
    pub code: Option<String>,
    pub message: Option<String>,
}

impl WireError {
    /// Reads the shapes seen in the wild: `{"error": {type, code, message}}`,
    /// `{"error": "text"}`, and top-level `{type, code, message}`.
    pub fn from_value(value: &Value) -> Self {
        let inner = match value.get("error") {
            Some(Value::String(s)) => {
                return Self {
                    message: Some(s.clone()),
                    ..Self::default()
                }
            }
            Some(obj @ Value::Object(_)) => obj,
            _ => value,
        };
        let text = |key: &str| match inner.get(key) {
            Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
            Some(Value::Number(n)) => Some(n.to_string()),
            _ => None,
        };
        let kind = text("type").filter(|k| k != "error");
        Self {
            kind,
            code: text("code"),
            message: text("message").or_else(|| text("detail")),
        }
    }

    /// Transient by its type or code: overload, rate limit, server error.
    pub fn is_transient(&self) -> bool {
        [&self.kind, &self.code]
            .into_iter()
            .flatten()
            .any(|k| is_transient_kind(k))
    }

    /// A permanent condition even when the HTTP status looks transient.
    pub fn is_permanent(&self) -> bool {
        [&self.kind, &self.code]
            .into_iter()
            .flatten()
            .any(|k| k == "insufficient_quota" || k == "billing_error")
    }

    /// `kind (code)` for messages, e.g. `insufficient_quota`.
    pub fn label(&self) -> Option<String> {
        match (&self.kind, &self.code) {
            (Some(k), Some(c)) if k != c => Some(format!("{k} ({c})")),
            (Some(k), _) => Some(k.clone()),
            (None, Some(c)) => Some(c.clone()),
            (None, None) => None,
        }
    }
}

fn is_transient_kind(kind: &str) -> bool {
    let kind = kind.to_ascii_lowercase();
    matches!(
        kind.as_str(),
        "overloaded_error"
            | "overloaded"
            | "server_is_overloaded"
            | "api_error"
            | "server_error"
            | "internal_error"
            | "internal_server_error"
            | "service_unavailable"
            | "rate_limit_error"
            | "rate_limit_exceeded"
            | "slow_down"
            | "timeout"
            | "429"
    ) || kind.parse::<u16>().is_ok_and(|n| (500..=599).contains(&n))
}

/// HTTP statuses worth retrying: request timeout, rate limit, server side.
pub(crate) fn status_is_retryable(status: u16) -> bool {
    status == 408 || status == 429 || (500..=599).contains(&status)
}

/// Makes vendor text safe to keep: the key scrubbed, control characters and
/// runs of whitespace folded to one space, at most `EXCERPT_CHARS` chars.
pub(crate) fn sanitize(text: &str, secret: Option<&str>) -> String {
    let scrubbed = match secret {
        Some(s) if s.len() >= 4 => text.replace(s, "***"),
        _ => text.to_owned(),
    };
    let mut out = String::new();
    let mut count = 0;
    let mut last_space = true;
    for c in scrubbed.chars() {
        let c = if c.is_control() || c.is_whitespace() {
            ' '
        } else {
            c
        };
        if c == ' ' && last_space {
            continue;
        }
        last_space = c == ' ';
        if count == EXCERPT_CHARS {
            out.truncate(out.trim_end().len());
            out.push('…');
            return out;
        }
        out.push(c);
        count += 1;
    }
    out.truncate(out.trim_end().len());
    out
}

/// The error of a non-2xx HTTP response body.
pub(crate) fn body_error(body: &[u8]) -> WireError {
    match serde_json::from_slice::<Value>(body) {
        Ok(value) => WireError::from_value(&value),
        Err(_) => WireError {
            message: Some(String::from_utf8_lossy(body).into_owned()),
            ..WireError::default()
        },
    }
}

/// A provider error for an HTTP status.
pub(crate) fn status_error(
    provider: &str,
    status: u16,
    wire: &WireError,
    secret: Option<&str>,
) -> ProviderError {
    let retryable = status_is_retryable(status) && !wire.is_permanent();
    let mut message = format!("{provider} returned HTTP {status}");
    if let Some(label) = wire.label() {
        message.push_str(&format!(" {}", sanitize(&label, secret)));
    }
    if let Some(text) = wire.message.as_deref().map(|m| sanitize(m, secret)) {
        if !text.is_empty() {
            message.push_str(&format!(": {text}"));
        }
    }
    ProviderError::Provider {
        provider: provider.to_owned(),
        message,
        retryable,
        status: Some(status),
    }
}

/// A provider error reported inside a 200 stream.
pub(crate) fn stream_error(
    provider: &str,
    wire: &WireError,
    secret: Option<&str>,
) -> ProviderError {
    let retryable = wire.is_transient() && !wire.is_permanent();
    let label = wire
        .label()
        .map(|l| sanitize(&l, secret))
        .unwrap_or_else(|| "an error".to_owned());
    let mut message = format!("{provider} reported {label} in the stream");
    if let Some(text) = wire.message.as_deref().map(|m| sanitize(m, secret)) {
        if !text.is_empty() {
            message.push_str(&format!(": {text}"));
        }
    }
    ProviderError::Provider {
        provider: provider.to_owned(),
        message,
        retryable,
        status: None,
    }
}

/// A malformed stream (undecodable SSE or JSON): the provider failed.
pub(crate) fn malformed(provider: &str, what: &str) -> ProviderError {
    ProviderError::Provider {
        provider: provider.to_owned(),
        message: format!("{provider} sent a malformed stream: {what}"),
        retryable: false,
        status: None,
    }
}

pub(crate) fn truncated(provider: &str, what: &str) -> ProviderError {
    ProviderError::TruncatedStream {
        message: format!("{provider}: {what}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn sanitize_scrubs_folds_and_caps() {
        let text = format!("bad key sk-abc123\n\tline2 {}", "x".repeat(500));
        let clean = sanitize(&text, Some("sk-abc123"));
        assert!(!clean.contains("sk-abc123"));
        assert!(clean.starts_with("bad key *** line2 x"));
        assert_eq!(clean.chars().count(), EXCERPT_CHARS + 1);
        assert!(clean.ends_with('…'));
        assert_eq!(sanitize("  a\u{0}\r\nb  ", None), "a b");
    }

    #[test]
    fn wire_errors_in_all_shapes() {
        let nested = json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}});
        let w = WireError::from_value(&nested);
        assert_eq!(w.kind.as_deref(), Some("overloaded_error"));
        assert!(w.is_transient());
        let top = json!({"type": "error", "code": "insufficient_quota", "message": "quota"});
        let w = WireError::from_value(&top);
        assert_eq!(
            (w.kind, w.code.as_deref()),
            (None, Some("insufficient_quota"))
        );
        let llama = json!({"error": {"code": 500, "message": "boom", "type": "server_error"}});
        assert!(WireError::from_value(&llama).is_transient());
        let ollama = json!({"error": "model not found"});
        assert_eq!(
            WireError::from_value(&ollama).message.as_deref(),
            Some("model not found")
        );
    }

    #[test]
    fn quota_429_is_not_retryable() {
        let wire = body_error(br#"{"error":{"type":"insufficient_quota","message":"pay"}}"#);
        let ProviderError::Provider { retryable, .. } = status_error("openai", 429, &wire, None)
        else {
            panic!("not a provider error")
        };
        assert!(!retryable);
        let plain = status_error("x", 503, &body_error(b"<html>oops</html>"), None);
        assert!(matches!(
            plain,
            ProviderError::Provider {
                retryable: true,
                status: Some(503),
                ..
            }
        ));
    }
}
