//! The shared HTTP core: one POST with the protocol's headers, timeouts,
//! status classification, and the body as an idle-guarded byte stream.

use super::config::{ApiKey, HttpProviderConfig, Protocol};
use super::errors::{body_error, malformed, sanitize, status_error, stream_error};
use super::retry::{retry_after, should_retry_hint};
use super::sse::{BodyError, ByteStream};
use crate::ProviderError;
use bytes::Bytes;
use futures::StreamExt;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue, ACCEPT, AUTHORIZATION, CONTENT_TYPE};
use std::error::Error as _;
use std::time::{Duration, SystemTime};

/// How much of an error body is read to classify it.
const ERROR_BODY_LIMIT: usize = 64 * 1024;

pub(crate) const ANTHROPIC_VERSION: &str = "2023-06-01";

/// A failed attempt, before any event was decoded.
#[derive(Debug)]
pub(crate) enum SendError {
    /// Worth retrying; `hint` is what the server asked us to wait.
    Retryable {
        error: ProviderError,
        hint: Option<Duration>,
    },
    Fatal(ProviderError),
}

pub(crate) struct Transport {
    client: reqwest::Client,
    provider: String,
    url: String,
    headers: HeaderMap,
    key: Option<ApiKey>,
    idle: Duration,
}

impl Transport {
    pub fn new(config: &HttpProviderConfig) -> Result<Self, ProviderError> {
        let invalid = |what: &str| ProviderError::Provider {
            provider: config.name.clone(),
            message: format!("invalid provider configuration: {what}"),
            retryable: false,
            status: None,
        };
        if config.name.trim().is_empty() {
            return Err(invalid("the provider name is blank"));
        }
        if config.model.trim().is_empty() {
            return Err(invalid("the model is blank"));
        }
        let url = config.endpoint_url();
        match reqwest::Url::parse(&url) {
            Ok(u) if matches!(u.scheme(), "http" | "https") && u.host().is_some() => {}
            _ => return Err(invalid("the base URL must be an http(s) URL with a host")),
        }
        let headers = headers(config.protocol, config.api_key.as_ref())
            .map_err(|()| invalid("the API key contains characters not allowed in a header"))?;
        let client = reqwest::Client::builder()
            .connect_timeout(config.timeouts.connect)
            .user_agent(concat!("bearagent/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| invalid(&sanitize(&e.to_string(), None)))?;
        Ok(Self {
            client,
            provider: config.name.clone(),
            url,
            headers,
            key: config.api_key.clone(),
            idle: config.timeouts.idle,
        })
    }

    pub fn provider(&self) -> &str {
        &self.provider
    }

    pub fn secret(&self) -> Option<&str> {
        self.key.as_ref().map(ApiKey::expose)
    }

    /// Sends one attempt; on a 2xx event stream returns its body.
    pub async fn send(&self, body: Bytes) -> Result<ByteStream, SendError> {
        let request = self
            .client
            .post(&self.url)
            .headers(self.headers.clone())
            .body(body)
            .send();
        let response = match tokio::time::timeout(self.idle, request).await {
            Err(_) => {
                return Err(SendError::Retryable {
                    error: self.transport_error(&format!(
                        "no response within {} ms",
                        self.idle.as_millis()
                    )),
                    hint: None,
                })
            }
            Ok(Err(e)) => {
                return Err(SendError::Retryable {
                    error: self.transport_error(&describe(&e)),
                    hint: None,
                })
            }
            Ok(Ok(response)) => response,
        };
        let status = response.status().as_u16();
        let hint = retry_after(response.headers(), SystemTime::now());
        let should_retry = should_retry_hint(response.headers());
        let is_json = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.trim_start().starts_with("application/json"));
        if response.status().is_success() {
            if is_json {
                // A server that ignored `stream: true` or reports an error as
                // a 200 JSON body: classify it rather than waiting for events.
                let body = self.read_limited(response).await;
                let has_error = serde_json::from_slice::<serde_json::Value>(&body)
                    .is_ok_and(|v| v.get("error").is_some_and(|e| !e.is_null()));
                if !has_error {
                    return Err(SendError::Fatal(malformed(
                        &self.provider,
                        "expected an event stream, got a JSON body",
                    )));
                }
                let error = stream_error(&self.provider, &body_error(&body), self.secret());
                return Err(match error {
                    ProviderError::Provider {
                        retryable: true, ..
                    } => SendError::Retryable { error, hint },
                    _ => SendError::Fatal(error),
                });
            }
            return Ok(idle_guarded(response, self.idle));
        }
        let body = self.read_limited(response).await;
        let error = status_error(&self.provider, status, &body_error(&body), self.secret());
        let retryable = match (should_retry, &error) {
            (Some(hint), _) => hint,
            (None, ProviderError::Provider { retryable, .. }) => *retryable,
            (None, _) => false,
        };
        Err(if retryable {
            SendError::Retryable { error, hint }
        } else {
            SendError::Fatal(error)
        })
    }

    fn transport_error(&self, what: &str) -> ProviderError {
        ProviderError::Provider {
            provider: self.provider.clone(),
            message: format!(
                "request to {} failed: {}",
                self.provider,
                sanitize(what, self.secret())
            ),
            retryable: true,
            status: None,
        }
    }

    async fn read_limited(&self, response: reqwest::Response) -> Vec<u8> {
        let mut stream = response.bytes_stream();
        let mut body = Vec::new();
        while body.len() < ERROR_BODY_LIMIT {
            match tokio::time::timeout(self.idle, stream.next()).await {
                Ok(Some(Ok(chunk))) => body.extend_from_slice(&chunk),
                _ => break,
            }
        }
        body.truncate(ERROR_BODY_LIMIT);
        body
    }
}

fn headers(protocol: Protocol, key: Option<&ApiKey>) -> Result<HeaderMap, ()> {
    let mut headers = HeaderMap::new();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    // Ollama's own API streams NDJSON, the others server-sent events.
    let accept = match protocol {
        Protocol::OllamaChat => "application/x-ndjson",
        _ => "text/event-stream",
    };
    headers.insert(ACCEPT, HeaderValue::from_static(accept));
    let secret = |value: String| {
        let mut v = HeaderValue::from_str(&value).map_err(|_| ())?;
        v.set_sensitive(true);
        Ok::<_, ()>(v)
    };
    match protocol {
        // Ollama takes no key; one configured is for a proxy in front of it.
        Protocol::OpenAiChat | Protocol::OpenAiResponses | Protocol::OllamaChat => {
            if let Some(key) = key {
                headers.insert(AUTHORIZATION, secret(format!("Bearer {}", key.expose()))?);
            }
        }
        Protocol::Anthropic => {
            headers.insert(
                HeaderName::from_static("anthropic-version"),
                HeaderValue::from_static(ANTHROPIC_VERSION),
            );
            if let Some(key) = key {
                headers.insert(
                    HeaderName::from_static("x-api-key"),
                    secret(key.expose().to_owned())?,
                );
            }
        }
    }
    Ok(headers)
}

/// The body as bytes; a gap longer than `idle` or a broken connection ends
/// it with a `BodyError`.
fn idle_guarded(response: reqwest::Response, idle: Duration) -> ByteStream {
    let body = Box::pin(response.bytes_stream());
    Box::pin(futures::stream::unfold(
        Some(body),
        move |state| async move {
            let mut body = state?;
            match tokio::time::timeout(idle, body.next()).await {
                Ok(Some(Ok(chunk))) => Some((Ok(chunk), Some(body))),
                Ok(Some(Err(e))) => Some((Err(BodyError::Transport(describe(&e))), None)),
                Ok(None) => None,
                Err(_) => Some((Err(BodyError::Idle(idle)), None)),
            }
        },
    ))
}

/// What went wrong, from the innermost causes; never the URL.
fn describe(error: &reqwest::Error) -> String {
    let kind = if error.is_connect() {
        "could not connect"
    } else if error.is_timeout() {
        "timed out"
    } else if error.is_body() || error.is_decode() {
        "the response body broke off"
    } else {
        "the request failed"
    };
    let mut causes = Vec::new();
    let mut source = error.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !causes.contains(&text) {
            causes.push(text);
        }
        source = cause.source();
    }
    match causes.last() {
        Some(cause) => format!("{kind}: {}", sanitize(cause, None)),
        None => kind.to_owned(),
    }
}
