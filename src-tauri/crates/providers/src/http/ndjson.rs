//! Newline-delimited JSON framing (Ollama's `/api/chat` stream): bytes in,
//! one event per non-blank line out, in the same `SseEvent` shape the
//! decoders take, so the driver and its retries serve both framings.
//!
//! Hand-written rather than `tokio-util`'s `LinesCodec`: a last line the
//! body ends inside must stay recognisable (it is a cut stream, not a
//! malformed one), and the codec hands it over like any other line.

use super::sse::{ByteStream, SseError, SseEvent, SseStream};
use futures::StreamExt;

/// The event name of a complete line.
pub(crate) const LINE: &str = "line";
/// The event name of text the body ended inside, without a newline.
pub(crate) const UNTERMINATED: &str = "unterminated";

/// The longest line kept (a reply's line holds a few tokens or one tool
/// call; a server streaming a longer one is broken, not chatty).
const MAX_LINE_BYTES: usize = 8 * 1024 * 1024;

struct Lines {
    body: ByteStream,
    pending: Vec<u8>,
    ready: std::collections::VecDeque<Result<SseEvent, SseError>>,
    ended: bool,
}

/// Frames a byte stream as lines; CR before LF and blank lines are dropped.
pub(crate) fn lines(body: ByteStream) -> SseStream {
    let state = Lines {
        body,
        pending: Vec::new(),
        ready: std::collections::VecDeque::new(),
        ended: false,
    };
    Box::pin(futures::stream::unfold(state, |mut state| async move {
        loop {
            if let Some(item) = state.ready.pop_front() {
                return Some((item, state));
            }
            if state.ended {
                return None;
            }
            match state.body.next().await {
                Some(Ok(chunk)) => state.push(&chunk),
                Some(Err(e)) => {
                    state.ended = true;
                    state.ready.push_back(Err(SseError::Body(e)));
                }
                None => state.finish(),
            }
        }
    }))
}

impl Lines {
    fn push(&mut self, chunk: &[u8]) {
        for piece in chunk.split_inclusive(|b| *b == b'\n') {
            self.pending.extend_from_slice(piece);
            if piece.ends_with(b"\n") {
                let line = std::mem::take(&mut self.pending);
                self.emit(LINE, &line);
            } else if self.pending.len() > MAX_LINE_BYTES {
                self.ended = true;
                self.ready.push_back(Err(SseError::Syntax));
                return;
            }
        }
    }

    fn finish(&mut self) {
        self.ended = true;
        let rest = std::mem::take(&mut self.pending);
        self.emit(UNTERMINATED, &rest);
    }

    fn emit(&mut self, event: &str, raw: &[u8]) {
        let trimmed = raw.trim_ascii();
        if trimmed.is_empty() {
            return;
        }
        let item = match std::str::from_utf8(trimmed) {
            Ok(text) => Ok(text.to_owned()),
            // The body ended inside a character: a cut, for the decoder
            // to report as one, not a body that is not UTF-8.
            Err(_) if event == UNTERMINATED => Ok(String::from_utf8_lossy(trimmed).into_owned()),
            Err(_) => Err(SseError::NotUtf8),
        }
        .map(|data| SseEvent {
            event: event.to_owned(),
            data,
        });
        self.ready.push_back(item);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;

    fn framed(chunks: &[&[u8]]) -> Vec<(String, String)> {
        let owned: Vec<Result<Bytes, super::super::sse::BodyError>> = chunks
            .iter()
            .map(|c| Ok(Bytes::copy_from_slice(c)))
            .collect();
        let events = lines(Box::pin(futures::stream::iter(owned)));
        futures::executor::block_on(events.collect::<Vec<_>>())
            .into_iter()
            .map(|e| e.map(|e| (e.event, e.data)).unwrap_or_default())
            .collect()
    }

    #[test]
    fn lines_split_anywhere_frame_the_same() {
        let body = "{\"a\":\"é\"}\r\n\n{\"b\":2}\n{\"c\"";
        let want = vec![
            (LINE.to_owned(), "{\"a\":\"é\"}".to_owned()),
            (LINE.to_owned(), "{\"b\":2}".to_owned()),
            (UNTERMINATED.to_owned(), "{\"c\"".to_owned()),
        ];
        let bytes = body.as_bytes();
        for cut in 0..=bytes.len() {
            let (a, b) = bytes.split_at(cut);
            assert_eq!(framed(&[a, b]), want, "cut {cut}");
        }
        assert!(framed(&[b"\n \n"]).is_empty());
    }

    #[test]
    fn invalid_utf8_is_an_error_not_a_panic() {
        let owned = vec![Ok(Bytes::from_static(b"\xff\xfe\n"))];
        let events = lines(Box::pin(futures::stream::iter(owned)));
        let got = futures::executor::block_on(events.collect::<Vec<_>>());
        assert!(matches!(got.as_slice(), [Err(SseError::NotUtf8)]));
    }
}
