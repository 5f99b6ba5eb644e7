//! The pure stream decoders, without any network: bytes (in any chunking)
//! in, the items an adapter would yield out. For fuzzing and for tests that
//! need exact chunk boundaries; the HTTP adapters run the same code.

use crate::http::{decoder, framing, sse, Protocol};
use crate::{ProviderError, StreamItem};

/// Decodes one response body of `protocol`, delivered as `chunks`. The
/// result ends with `Completed` or an error, exactly like the live stream
/// (no retries here: a retryable error is simply the last item).
pub fn decode(protocol: Protocol, chunks: &[&[u8]]) -> Vec<Result<StreamItem, ProviderError>> {
    let provider = protocol.as_str();
    let mut decoder = decoder(protocol, provider, None);
    sse::decode_chunks(decoder.as_mut(), provider, framing(protocol), chunks)
}

pub fn openai_chat(chunks: &[&[u8]]) -> Vec<Result<StreamItem, ProviderError>> {
    decode(Protocol::OpenAiChat, chunks)
}

pub fn openai_responses(chunks: &[&[u8]]) -> Vec<Result<StreamItem, ProviderError>> {
    decode(Protocol::OpenAiResponses, chunks)
}

pub fn anthropic(chunks: &[&[u8]]) -> Vec<Result<StreamItem, ProviderError>> {
    decode(Protocol::Anthropic, chunks)
}

pub fn ollama_chat(chunks: &[&[u8]]) -> Vec<Result<StreamItem, ProviderError>> {
    decode(Protocol::OllamaChat, chunks)
}
