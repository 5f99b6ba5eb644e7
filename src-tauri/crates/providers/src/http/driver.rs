//! The HTTP `ModelProvider`: one streamed call as a state machine —
//! connect, stream events through the protocol's decoder, and retry
//! retryable failures — an HTTP 429/5xx, or an overload/error event inside
//! a 200 stream even after content arrived (that partial answer is void,
//! and the notice says so and carries the tokens it was billed).

use super::body::BodySettings;
use super::config::{HttpProviderConfig, Protocol, RetryPolicy};
use super::retry;
use super::sse::{events, step, ByteStream, Flow, SseStream, WireDecoder};
use super::transport::{SendError, Transport};
use super::{anthropic, ndjson, ollama_chat, ollama_stream, openai_chat, openai_responses};
use crate::{
    ModelProvider, ModelRequest, ModelStream, ProviderError, ProviderInfo, RetryNotice, StreamItem,
};
use bearagent_kernel::TokenUsage;
use bytes::Bytes;
use futures::StreamExt;
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

/// The window Ollama is asked for when neither the config nor its server
/// says one: enough for the system prompt, tool schemas and some history,
/// small enough for the KV cache of a small model on a laptop's memory.
pub const OLLAMA_DEFAULT_WINDOW: u64 = 16_384;

pub(crate) struct HttpProvider {
    protocol: Protocol,
    settings: BodySettings,
    retry: RetryPolicy,
    transport: Arc<Transport>,
    price: Option<bearagent_kernel::Price>,
    context_window: u64,
    vision: bool,
    learned: Option<bearagent_kernel::LearnedModel>,
}

impl HttpProvider {
    pub fn new(config: HttpProviderConfig) -> Result<Self, ProviderError> {
        let context_window = config.context_window.unwrap_or(match config.protocol {
            // What Ollama is told as num_ctx when nothing was learned: the
            // family default (32k and more) may not fit a small machine.
            Protocol::OllamaChat => OLLAMA_DEFAULT_WINDOW,
            _ => crate::default_context_window(&config.model),
        });
        let vision = config
            .vision
            .unwrap_or_else(|| crate::default_vision(&config.model));
        Ok(Self {
            vision,
            protocol: config.protocol,
            transport: Arc::new(Transport::new(&config)?),
            settings: BodySettings {
                model: config.model,
                max_output_tokens: config.max_output_tokens,
                context_window,
            },
            retry: config.retry,
            price: config.price,
            context_window,
            learned: config.learned,
        })
    }
}

pub(crate) fn request_body(
    protocol: Protocol,
    settings: &BodySettings,
    request: &ModelRequest,
) -> serde_json::Value {
    match protocol {
        Protocol::OpenAiChat => openai_chat::request_body(settings, request),
        Protocol::OpenAiResponses => openai_responses::request_body(settings, request),
        Protocol::Anthropic => anthropic::request_body(settings, request),
        Protocol::OllamaChat => ollama_chat::request_body(settings, request),
    }
}

/// How `protocol` frames its stream: NDJSON lines for Ollama's own API,
/// server-sent events for the others.
pub(crate) fn framing(protocol: Protocol) -> fn(ByteStream) -> SseStream {
    match protocol {
        Protocol::OllamaChat => ndjson::lines,
        _ => events,
    }
}

pub(crate) fn decoder(
    protocol: Protocol,
    provider: &str,
    secret: Option<&str>,
) -> Box<dyn WireDecoder> {
    decoder_minting_from(protocol, provider, secret, 0)
}

/// The decoder of one attempt; `first_minted` numbers the call ids it
/// mints for a server that sends none (Ollama's own API).
fn decoder_minting_from(
    protocol: Protocol,
    provider: &str,
    secret: Option<&str>,
    first_minted: usize,
) -> Box<dyn WireDecoder> {
    match protocol {
        Protocol::OllamaChat => {
            Box::new(ollama_stream::Decoder::new(provider, secret, first_minted))
        }
        Protocol::OpenAiChat => Box::new(openai_chat::Decoder::new(provider, secret)),
        Protocol::OpenAiResponses => Box::new(openai_responses::Decoder::new(provider, secret)),
        Protocol::Anthropic => Box::new(anthropic::Decoder::new(provider, secret)),
    }
}

impl ModelProvider for HttpProvider {
    fn info(&self) -> ProviderInfo {
        ProviderInfo {
            name: self.transport.provider().to_owned(),
            model: self.settings.model.clone(),
            scripted: false,
            price: self.price,
            max_output_tokens: Some(self.settings.max_output_tokens),
            context_window: self.context_window,
            vision: self.vision,
            learned: self.learned.clone(),
        }
    }

    fn stream(&self, request: ModelRequest) -> ModelStream {
        let body = request_body(self.protocol, &self.settings, &request);
        let call = match serde_json::to_vec(&body) {
            Ok(bytes) => Call {
                transport: self.transport.clone(),
                protocol: self.protocol,
                first_minted: ollama_chat::calls_in(&request),
                retry: self.retry,
                body: Bytes::from(bytes),
                retries: 0,
                phase: Phase::Connect,
                queue: VecDeque::new(),
            },
            Err(e) => {
                let error = ProviderError::Provider {
                    provider: self.transport.provider().to_owned(),
                    message: format!("cannot encode the request: {e}"),
                    retryable: false,
                    status: None,
                };
                return Box::pin(futures::stream::once(async move { Err(error) }));
            }
        };
        // Dropping the stream drops the call, its response body and so the
        // connection: that is the cancellation.
        Box::pin(futures::stream::unfold(call, |mut call| async move {
            call.next().await.map(|item| (item, call))
        }))
    }
}

enum Phase {
    Connect,
    Backoff(Duration),
    Streaming {
        events: SseStream,
        decoder: Box<dyn WireDecoder>,
        /// Text or a tool call of this attempt was yielded: no retry now.
        content: bool,
    },
    Finished,
}

struct Call {
    transport: Arc<Transport>,
    protocol: Protocol,
    first_minted: usize,
    retry: RetryPolicy,
    body: Bytes,
    retries: u32,
    phase: Phase,
    queue: VecDeque<Result<StreamItem, ProviderError>>,
}

impl Call {
    async fn next(&mut self) -> Option<Result<StreamItem, ProviderError>> {
        loop {
            if let Some(item) = self.queue.pop_front() {
                return Some(item);
            }
            match std::mem::replace(&mut self.phase, Phase::Finished) {
                Phase::Finished => return None,
                Phase::Backoff(delay) => {
                    tokio::time::sleep(delay).await;
                    self.phase = Phase::Connect;
                }
                Phase::Connect => match self.transport.send(self.body.clone()).await {
                    Ok(body) => {
                        let provider = self.transport.provider();
                        let secret = self.transport.secret();
                        self.phase = Phase::Streaming {
                            events: framing(self.protocol)(body),
                            decoder: decoder_minting_from(
                                self.protocol,
                                provider,
                                secret,
                                self.first_minted,
                            ),
                            content: false,
                        };
                    }
                    Err(SendError::Retryable { error, hint }) => {
                        self.retry_or_fail(error, hint, false, TokenUsage::default())
                    }
                    Err(SendError::Fatal(error)) => self.queue.push_back(Err(error)),
                },
                Phase::Streaming {
                    mut events,
                    mut decoder,
                    mut content,
                } => {
                    let next = events.next().await;
                    let mut out = Vec::new();
                    let flow = step(decoder.as_mut(), self.transport.provider(), next, &mut out);
                    content |= out
                        .iter()
                        .any(|i| matches!(i, StreamItem::TextDelta(_) | StreamItem::ToolCall(_)));
                    self.queue.extend(out.into_iter().map(Ok));
                    match flow {
                        Ok(Flow::Continue) => {
                            self.phase = Phase::Streaming {
                                events,
                                decoder,
                                content,
                            }
                        }
                        Ok(Flow::Done) => {}
                        Err(error) if is_retryable(&error) => {
                            let spent = decoder.usage();
                            self.retry_or_fail(error, None, content, spent)
                        }
                        Err(error) => self.queue.push_back(Err(error)),
                    }
                }
            }
        }
    }

    /// Schedules the next attempt (announced by a `Retrying` item) or, when
    /// the retries are spent, yields the error.
    fn retry_or_fail(
        &mut self,
        error: ProviderError,
        hint: Option<Duration>,
        discarded_partial: bool,
        usage: TokenUsage,
    ) {
        if self.retries >= self.retry.max_retries {
            self.queue.push_back(Err(gave_up(error, self.retries)));
            return;
        }
        self.retries += 1;
        let delay = retry::delay(&self.retry, self.retries, hint);
        let message = match &error {
            ProviderError::Provider { message, .. } => message.clone(),
            other => other.to_string(),
        };
        tracing::warn!(
            attempt = self.retries,
            delay_ms = delay.as_millis() as u64,
            %message,
            "retrying model call"
        );
        self.queue.push_back(Ok(StreamItem::Retrying(RetryNotice {
            attempt: self.retries,
            delay_ms: u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
            message,
            discarded_partial,
            usage,
        })));
        self.phase = Phase::Backoff(delay);
    }
}

fn is_retryable(error: &ProviderError) -> bool {
    matches!(
        error,
        ProviderError::Provider {
            retryable: true,
            ..
        }
    )
}

fn gave_up(error: ProviderError, retries: u32) -> ProviderError {
    match error {
        ProviderError::Provider {
            provider,
            message,
            retryable,
            status,
        } if retries > 0 => ProviderError::Provider {
            provider,
            message: format!("{message} (gave up after {retries} retries)"),
            retryable,
            status,
        },
        other => other,
    }
}
