//! Retries and HTTP errors: 429 with retry-after, 5xx, overload events
//! before content, connection failures, and 4xx that are never retried.
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use bearagent_providers::{Protocol, ProviderError, RetryPolicy};
use std::time::{Duration, Instant};
use support::server::{Reply, TestServer};
use support::{check, collect, config, provider, recordings, simple_request, KEY};

fn recording(name: &str) -> support::Recording {
    recordings().into_iter().find(|r| r.name == name).unwrap()
}

#[tokio::test]
async fn rate_limited_then_success_honours_retry_after() {
    let rec = recording("chat/cc_text_usage");
    let server = TestServer::start(vec![
        Reply::json(
            429,
            r#"{"error":{"message":"Rate limit reached","type":"requests"}}"#,
        )
        .header("retry-after", "1"),
        Reply::sse_bytes(rec.sse.clone()),
    ])
    .await;
    let p = provider(config(Protocol::OpenAiChat, &server.base_url(), Some(KEY)));
    let started = Instant::now();
    let got = collect(p.as_ref(), simple_request()).await;
    assert!(
        started.elapsed() >= Duration::from_millis(950),
        "waited the retry-after"
    );
    check(&rec.expected, &got, "after a 429");
    assert_eq!(got.retries.len(), 1);
    let notice = &got.retries[0];
    assert_eq!((notice.attempt, notice.delay_ms), (1, 1000));
    assert!(notice.message.contains("429"), "{}", notice.message);
    assert!(!notice.message.contains(KEY));
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn retry_after_ms_and_the_delay_cap() {
    let rec = recording("responses/resp_text");
    let server = TestServer::start(vec![
        Reply::json(503, "{}").header("retry-after-ms", "40"),
        Reply::json(529, r#"{"error":{"type":"overloaded_error"}}"#).header("retry-after", "3600"),
        Reply::sse_bytes(rec.sse.clone()),
    ])
    .await;
    let mut cfg = config(Protocol::OpenAiResponses, &server.base_url(), None);
    cfg.retry.max_delay = Duration::from_millis(120);
    let got = collect(provider(cfg).as_ref(), simple_request()).await;
    check(&rec.expected, &got, "after two retries");
    let delays: Vec<u64> = got.retries.iter().map(|r| r.delay_ms).collect();
    assert_eq!(delays, vec![40, 120]);
    assert_eq!(got.retries[1].attempt, 2);
}

#[tokio::test]
async fn server_errors_give_up_after_max_retries() {
    let server = TestServer::start(vec![
        Reply::json(500, r#"{"error":{"message":"internal"}}"#),
        Reply::json(502, "<html>bad gateway</html>"),
        Reply::json(503, r#"{"error":{"message":"still down"}}"#),
        Reply::json(200, "never reached"),
    ])
    .await;
    let p = provider(config(Protocol::Anthropic, &server.base_url(), Some(KEY)));
    let got = collect(p.as_ref(), simple_request()).await;
    assert_eq!(got.retries.len(), 2);
    for (i, notice) in got.retries.iter().enumerate() {
        // No retry-after: jittered exponential backoff from 10 ms.
        let full = 10 * 2u64.pow(i as u32);
        assert!(
            notice.delay_ms >= full / 2 && notice.delay_ms <= full,
            "{notice:?}"
        );
    }
    match got.error {
        Some(ProviderError::Provider {
            retryable: true,
            status: Some(503),
            message,
            ..
        }) => assert!(message.contains("gave up after 2 retries"), "{message}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn an_overloaded_event_before_content_is_retried() {
    let rec = recording("messages/an_text_ping");
    let overloaded = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":11,\"output_tokens\":1}}}\n\nevent: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n";
    let server = TestServer::start(vec![
        Reply::sse_bytes(overloaded),
        Reply::sse_bytes(rec.sse.clone()),
    ])
    .await;
    let p = provider(config(Protocol::Anthropic, &server.base_url(), Some(KEY)));
    let got = collect(p.as_ref(), simple_request()).await;
    check(&rec.expected, &got, "after an overloaded event");
    assert_eq!(got.retries.len(), 1);
    assert!(got.retries[0].message.contains("overloaded_error"));
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn unauthorized_is_not_retried_and_never_shows_the_key() {
    let long_tail = "x".repeat(5000);
    let body = format!(
        r#"{{"error":{{"message":"Incorrect API key provided: {KEY}.\nYou can find your API key at https://example.invalid. {long_tail}","type":"invalid_request_error","code":"invalid_api_key"}}}}"#
    );
    for protocol in Protocol::ALL {
        let server = TestServer::start(vec![Reply::json(401, &body), Reply::json(200, "{}")]).await;
        let p = provider(config(protocol, &server.base_url(), Some(KEY)));
        let got = collect(p.as_ref(), simple_request()).await;
        assert!(got.retries.is_empty() && got.completed.is_none());
        let error = got.error.unwrap();
        let (display, debug) = (error.to_string(), format!("{error:?}"));
        for shown in [&display, &debug] {
            assert!(!shown.contains(KEY), "{protocol}: key leaked: {shown}");
            assert!(
                !shown.contains("xxxxxxxxxx".repeat(30).as_str()),
                "raw body leaked"
            );
            assert!(!shown.contains('\n'));
        }
        match &error {
            ProviderError::Provider {
                provider,
                status: Some(401),
                retryable: false,
                message,
            } => {
                assert_eq!(provider, &format!("test-{protocol}"));
                assert!(
                    message.contains(&format!("test-{protocol} returned HTTP 401")),
                    "{message}"
                );
                assert!(
                    message.contains("Incorrect API key provided: ***"),
                    "{message}"
                );
                assert!(message.chars().count() < 320, "{message}");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(server.requests().len(), 1, "{protocol}: not retried");
    }
}

#[tokio::test]
async fn client_errors_are_final() {
    for status in [400u16, 403, 404] {
        let server = TestServer::start(vec![Reply::json(
            status,
            r#"{"error":"model 'x' not found"}"#,
        )])
        .await;
        let p = provider(config(Protocol::OpenAiChat, &server.base_url(), None));
        let got = collect(p.as_ref(), simple_request()).await;
        match got.error {
            Some(ProviderError::Provider {
                retryable: false,
                status: Some(s),
                message,
                ..
            }) => {
                assert_eq!(s, status);
                assert!(message.contains("model 'x' not found"), "{message}");
            }
            other => panic!("{status}: {other:?}"),
        }
        assert_eq!(server.requests().len(), 1);
    }
}

#[tokio::test]
async fn a_200_json_body_is_classified_not_awaited() {
    let server = TestServer::start(vec![
        Reply::json(
            200,
            r#"{"error":{"type":"overloaded_error","message":"busy"}}"#,
        ),
        Reply::json(200, r#"{"type":"message","content":[]}"#),
    ])
    .await;
    let mut cfg = config(Protocol::Anthropic, &server.base_url(), None);
    cfg.retry.max_retries = 0;
    let p = provider(cfg);
    let got = collect(p.as_ref(), simple_request()).await;
    assert!(
        matches!(&got.error, Some(ProviderError::Provider { message, .. }) if message.contains("busy"))
    );
    let got = collect(p.as_ref(), simple_request()).await;
    assert!(
        matches!(&got.error, Some(ProviderError::Provider { message, retryable: false, .. })
            if message.contains("expected an event stream")),
        "{:?}",
        got.error
    );
}

#[tokio::test]
async fn connection_failures_are_retryable_provider_errors() {
    // A port nobody listens on.
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let mut cfg = config(
        Protocol::OpenAiChat,
        &format!("http://127.0.0.1:{port}"),
        Some(KEY),
    );
    cfg.retry = RetryPolicy {
        max_retries: 1,
        base_delay: Duration::from_millis(5),
        max_delay: Duration::from_millis(5),
    };
    let got = collect(provider(cfg).as_ref(), simple_request()).await;
    assert_eq!(got.retries.len(), 1);
    match got.error {
        Some(ProviderError::Provider {
            retryable: true,
            status: None,
            message,
            ..
        }) => assert!(message.contains("could not connect"), "{message}"),
        other => panic!("{other:?}"),
    }

    // Reset before any response: retried, and the retry succeeds.
    let rec = recording("chat/cc_tool_single");
    let server = TestServer::start(vec![
        Reply::reset_before_head(),
        Reply::sse_bytes(rec.sse.clone()),
    ])
    .await;
    let p = provider(config(Protocol::OpenAiChat, &server.base_url(), None));
    let got = collect(p.as_ref(), simple_request()).await;
    check(&rec.expected, &got, "after a reset");
    assert_eq!(got.retries.len(), 1);
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn complete_over_http_retries_then_answers_and_never_runs_a_cut_off_tool() {
    use bearagent_kernel::{Action, StopReason};
    use bearagent_providers::{complete, Progress};
    let cut = recording("messages/an_max_tokens_incomplete_tool");
    let tool = recording("messages/an_tool_single");
    let server = TestServer::start(vec![
        Reply::json(
            529,
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        )
        .header("retry-after-ms", "20"),
        Reply::sse_bytes(cut.sse.clone()),
        Reply::sse_bytes(tool.sse.clone()),
    ])
    .await;
    let p = provider(config(Protocol::Anthropic, &server.base_url(), Some(KEY)));
    let mut retries = Vec::new();
    let mut streamed = String::new();
    let answer = complete(p.as_ref(), simple_request(), |progress| match progress {
        Progress::Retrying(notice) => retries.push(notice.clone()),
        Progress::TextDelta(text) => streamed.push_str(text),
    })
    .await
    .unwrap();
    assert_eq!(retries.len(), 1);
    assert_eq!(retries[0].delay_ms, 20);
    assert_eq!(answer.stop_reason, StopReason::MaxTokens);
    assert!(matches!(&answer.action, Action::FinalAnswer(a) if a.content == cut.expected["text"]));
    assert_eq!(streamed, answer.text);

    let answer = complete(p.as_ref(), simple_request(), |_| {})
        .await
        .unwrap();
    match answer.action.calls() {
        [call] => {
            assert_eq!(call.call_id.as_str(), "toolu_01NRLabsLyVHZPKxbKvkfSMn");
            assert_eq!(call.arguments["location"], "Paris");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!((answer.usage.input, answer.usage.output), (377, 65));
}
