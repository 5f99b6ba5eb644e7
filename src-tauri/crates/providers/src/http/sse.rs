//! Server-sent events: bytes in, `(event, data)` pairs out, and the
//! per-protocol decoder contract that turns those into `StreamItem`s (the
//! NDJSON framing in `ndjson.rs` yields the same pairs).

use super::errors::{malformed, truncated};
use crate::{ProviderError, StreamItem};
use bytes::Bytes;
use eventsource_stream::{EventStream, EventStreamError};
use futures::{Stream, StreamExt};
use std::fmt;
use std::pin::Pin;
use std::time::Duration;

/// One dispatched SSE event; `event` is "message" when the server named none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SseEvent {
    pub event: String,
    pub data: String,
}

/// Why the body stopped delivering bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum BodyError {
    /// Nothing arrived for this long.
    Idle(Duration),
    /// The connection broke (reset, incomplete chunked body, ...).
    Transport(String),
}

impl fmt::Display for BodyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BodyError::Idle(d) => write!(f, "no data for {} ms", d.as_millis()),
            BodyError::Transport(m) => write!(f, "the connection broke: {m}"),
        }
    }
}

#[derive(Debug)]
pub(crate) enum SseError {
    Body(BodyError),
    NotUtf8,
    Syntax,
}

pub(crate) type SseStream = Pin<Box<dyn Stream<Item = Result<SseEvent, SseError>> + Send>>;
pub(crate) type ByteStream = Pin<Box<dyn Stream<Item = Result<Bytes, BodyError>> + Send>>;

/// Whether a decoder has seen its protocol's terminal event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flow {
    Continue,
    Done,
}

/// One protocol's stream semantics. `event` handles one SSE event and
/// returns `Done` after pushing the final `Completed` (and the completed
/// tool calls before it); `end` is called when the body ended cleanly
/// before that and either completes (where the protocol allows) or fails
/// with `TruncatedStream`.
pub(crate) trait WireDecoder: Send {
    fn event(
        &mut self,
        event: &str,
        data: &str,
        out: &mut Vec<StreamItem>,
    ) -> Result<Flow, ProviderError>;
    fn end(&mut self, out: &mut Vec<StreamItem>) -> Result<(), ProviderError>;
    /// Tokens the provider reported so far in this attempt (e.g. Anthropic's
    /// `message_start` input tokens), kept when the attempt fails mid-stream.
    fn usage(&self) -> bearagent_kernel::TokenUsage {
        bearagent_kernel::TokenUsage::default()
    }
}

/// Frames a byte stream as SSE events. A leading UTF-8 BOM is removed here
/// (the framing crate's own BOM handling slices inside the 3-byte char), and
/// a blank line is fed first, which dispatches nothing but keeps the
/// framing crate from ever seeing a BOM at its start.
pub(crate) fn events(bytes: ByteStream) -> SseStream {
    const BOM: &[u8] = b"\xEF\xBB\xBF";
    let mut head: Option<Vec<u8>> = Some(Vec::new());
    let unbommed = bytes.map(move |chunk| {
        let chunk = chunk?;
        let Some(pending) = head.as_mut() else {
            return Ok(chunk);
        };
        pending.extend_from_slice(&chunk);
        if pending.len() < BOM.len() && BOM.starts_with(pending) {
            return Ok(Bytes::new());
        }
        let pending = head.take().unwrap_or_default();
        let rest = pending.strip_prefix(BOM).unwrap_or(&pending);
        Ok(Bytes::copy_from_slice(rest))
    });
    let primed = futures::stream::once(async { Ok(Bytes::from_static(b"\n")) }).chain(unbommed);
    Box::pin(EventStream::new(primed).map(|item| match item {
        Ok(e) => Ok(SseEvent {
            event: e.event,
            data: e.data,
        }),
        Err(EventStreamError::Transport(body)) => Err(SseError::Body(body)),
        Err(EventStreamError::Utf8(_)) => Err(SseError::NotUtf8),
        Err(EventStreamError::Parser(_)) => Err(SseError::Syntax),
    }))
}

/// Feeds the next framing result to `decoder`; `None` means the body ended.
pub(crate) fn step(
    decoder: &mut dyn WireDecoder,
    provider: &str,
    next: Option<Result<SseEvent, SseError>>,
    out: &mut Vec<StreamItem>,
) -> Result<Flow, ProviderError> {
    match next {
        Some(Ok(ev)) => decoder.event(&ev.event, &ev.data, out),
        Some(Err(SseError::Body(e))) => Err(truncated(provider, &e.to_string())),
        Some(Err(SseError::NotUtf8)) => Err(malformed(provider, "the body is not UTF-8")),
        Some(Err(SseError::Syntax)) => Err(malformed(provider, "invalid event framing")),
        None => decoder.end(out).map(|()| Flow::Done),
    }
}

/// Decodes a whole body given as chunks, without any network: the same
/// framing and decoder as the HTTP path. Used by `crate::decode`.
pub(crate) fn decode_chunks(
    decoder: &mut dyn WireDecoder,
    provider: &str,
    framing: fn(ByteStream) -> SseStream,
    chunks: &[&[u8]],
) -> Vec<Result<StreamItem, ProviderError>> {
    let owned: Vec<Result<Bytes, BodyError>> = chunks
        .iter()
        .map(|c| Ok(Bytes::copy_from_slice(c)))
        .collect();
    let mut events = framing(Box::pin(futures::stream::iter(owned)));
    let mut results = Vec::new();
    futures::executor::block_on(async {
        loop {
            let mut out = Vec::new();
            let flow = step(decoder, provider, events.next().await, &mut out);
            results.extend(out.into_iter().map(Ok));
            match flow {
                Ok(Flow::Continue) => {}
                Ok(Flow::Done) => break,
                Err(e) => {
                    results.push(Err(e));
                    break;
                }
            }
        }
    });
    results
}

#[cfg(test)]
mod tests {
    use super::*;

    fn framed(chunks: &[&[u8]]) -> Vec<(String, String)> {
        let owned: Vec<Result<Bytes, BodyError>> = chunks
            .iter()
            .map(|c| Ok(Bytes::copy_from_slice(c)))
            .collect();
        let events = events(Box::pin(futures::stream::iter(owned)));
        futures::executor::block_on(events.collect::<Vec<_>>())
            .into_iter()
            .filter_map(Result::ok)
            .map(|e| (e.event, e.data))
            .collect()
    }

    #[test]
    fn bom_split_anywhere_is_removed_without_panicking() {
        let body = b"\xEF\xBB\xBFdata: x\n\n";
        for cut in 0..body.len() {
            let (a, b) = body.split_at(cut);
            assert_eq!(
                framed(&[a, b]),
                vec![("message".into(), "x".into())],
                "cut {cut}"
            );
        }
        // A second BOM is data, not a crash.
        let twice = framed(&[b"\xEF\xBB\xBF\xEF\xBB\xBFdata: y\n\n"]);
        assert!(twice.is_empty());
    }

    #[test]
    fn comments_crlf_and_unterminated_events() {
        let got = framed(&[b": hi\r\nevent: a\r\ndata: 1\r\n\r\ndata: 2\n"]);
        assert_eq!(got, vec![("a".into(), "1".into())]);
    }
}
