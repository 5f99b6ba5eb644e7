//! Replays every provider recording in `tests/fixtures/provider-recordings`
//! (and the Ollama streams of `crates/providers/tests/fixtures/ollama`): over a
//! loopback HTTP server (whole, CRLF, tiny pieces) and through the pure
//! decoders split at every byte offset, and compares with `expected`.
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use bearagent_providers::{decode, Protocol};
use support::server::{Reply, TestServer};
use support::{
    check, collect, config, crlf_split_points, fold, provider, recordings, simple_request,
    split_points,
};

fn endpoint(protocol: Protocol) -> &'static str {
    match protocol {
        Protocol::OpenAiChat => "/v1/chat/completions",
        Protocol::OpenAiResponses => "/v1/responses",
        Protocol::Anthropic => "/v1/messages",
        Protocol::OllamaChat => "/api/chat",
    }
}

#[test]
fn the_recordings_are_found_in_the_repository() {
    let dir = support::recordings_dir();
    assert!(dir.join("README.md").is_file(), "{}", dir.display());
    let all = recordings();
    for protocol in Protocol::ALL {
        assert!(all.iter().any(|r| r.protocol == protocol), "{protocol}");
    }
}

/// Splits the recordings of `protocol` (only those larger than 16 KiB when
/// `large`, else only the others).
fn replay_split(protocol: Protocol, crlf: bool, large: bool) {
    let recs = recordings().into_iter().filter(|r| r.protocol == protocol);
    for rec in recs.filter(|r| (r.sse.len() > 16 * 1024) == large) {
        let (variant, body, points) = if crlf {
            let body = rec.crlf();
            let points = crlf_split_points(&body);
            ("crlf", body, points)
        } else {
            ("lf", rec.sse.clone(), split_points(&rec.sse))
        };
        let whole = fold(decode::decode(protocol, &[&body]));
        check(
            &rec.expected,
            &whole,
            &format!("{} {variant} whole", rec.name),
        );
        let bytes: Vec<&[u8]> = body.chunks(1).collect();
        let single = fold(decode::decode(protocol, &bytes));
        check(
            &rec.expected,
            &single,
            &format!("{} {variant} 1-byte chunks", rec.name),
        );
        for cut in points {
            let (a, b) = body.split_at(cut);
            let got = fold(decode::decode(protocol, &[a, b]));
            check(
                &rec.expected,
                &got,
                &format!("{} {variant} split at {cut}", rec.name),
            );
        }
    }
}

#[test]
fn chat_recordings_decode_the_same_split_anywhere() {
    replay_split(Protocol::OpenAiChat, false, false);
}

#[test]
fn chat_large_recordings_decode_the_same_split_anywhere() {
    replay_split(Protocol::OpenAiChat, false, true);
}

#[test]
fn chat_recordings_with_crlf_split_anywhere() {
    replay_split(Protocol::OpenAiChat, true, false);
}

#[test]
fn chat_large_recordings_with_crlf_split_anywhere() {
    replay_split(Protocol::OpenAiChat, true, true);
}

#[test]
fn responses_recordings_decode_the_same_split_anywhere() {
    replay_split(Protocol::OpenAiResponses, false, false);
}

#[test]
fn responses_large_recordings_decode_the_same_split_anywhere() {
    replay_split(Protocol::OpenAiResponses, false, true);
}

#[test]
fn responses_recordings_with_crlf_split_anywhere() {
    replay_split(Protocol::OpenAiResponses, true, false);
}

#[test]
fn responses_large_recordings_with_crlf_split_anywhere() {
    replay_split(Protocol::OpenAiResponses, true, true);
}

#[test]
fn anthropic_recordings_decode_the_same_split_anywhere() {
    replay_split(Protocol::Anthropic, false, false);
}

#[test]
fn anthropic_recordings_with_crlf_split_anywhere() {
    replay_split(Protocol::Anthropic, true, false);
}

#[test]
fn ollama_streams_decode_the_same_split_anywhere() {
    replay_split(Protocol::OllamaChat, false, false);
}

#[test]
fn ollama_streams_with_crlf_split_anywhere() {
    replay_split(Protocol::OllamaChat, true, false);
}

/// Offsets that fall inside a multi-byte UTF-8 character.
fn inside_chars(body: &[u8]) -> Vec<usize> {
    (1..body.len())
        .filter(|&i| body[i] & 0xC0 == 0x80)
        .take(3)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_recording_served_over_http() {
    for rec in recordings() {
        let mut replies = vec![
            ("whole", Reply::sse_bytes(rec.sse.clone())),
            ("crlf", Reply::sse_bytes(rec.crlf())),
            ("pieces 1..7", Reply::sse_pieces(&rec.sse, &[1, 2, 3, 5, 7])),
            ("crlf pieces", Reply::sse_pieces(&rec.crlf(), &[7, 1, 4])),
        ];
        for cut in inside_chars(&rec.sse) {
            let (a, b) = rec.sse.split_at(cut);
            replies.push((
                "split inside a character",
                Reply::sse(vec![
                    support::server::Act::Bytes(a.to_vec()),
                    support::server::Act::Pause(std::time::Duration::from_millis(5)),
                    support::server::Act::Bytes(b.to_vec()),
                ]),
            ));
        }
        let labels: Vec<&str> = replies.iter().map(|(l, _)| *l).collect();
        let server = TestServer::start(replies.iter().map(|(_, r)| r.clone()).collect()).await;
        let p = provider(config(rec.protocol, &server.base_url(), Some(support::KEY)));
        for label in &labels {
            let got = collect(p.as_ref(), simple_request()).await;
            assert!(got.retries.is_empty(), "{} {label}: retried", rec.name);
            check(
                &rec.expected,
                &got,
                &format!("{} over http, {label}", rec.name),
            );
        }
        let requests = server.requests();
        assert_eq!(requests.len(), labels.len(), "{}", rec.name);
        for r in requests {
            assert_eq!(
                (r.method.as_str(), r.path.as_str()),
                ("POST", endpoint(rec.protocol))
            );
            assert_eq!(r.body["stream"], true);
        }
    }
}
