//! What the recordings do not cover: comments, unknown events, errors inside
//! a 200 stream, truncation, resets, stalls and cancellation.
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use bearagent_kernel::StopReason;
use bearagent_providers::{decode, Protocol, ProviderError, StreamItem, Timeouts};
use futures::StreamExt;
use std::time::{Duration, Instant};
use support::server::{Act, Reply, TestServer};
use support::{collect, config, fold, provider, recordings, simple_request};

fn sse(lines: &[&str]) -> Vec<u8> {
    lines
        .iter()
        .map(|l| format!("{l}\n\n"))
        .collect::<String>()
        .into_bytes()
}

fn chat_chunk(delta: &str, finish: Option<&str>) -> String {
    let finish = finish.map_or("null".to_owned(), |f| format!("\"{f}\""));
    format!(r#"data: {{"choices":[{{"index":0,"delta":{delta},"finish_reason":{finish}}}]}}"#)
}

#[test]
fn comments_pings_and_unknown_events_are_ignored() {
    let chat = format!(
        ": keep-alive\n\n{}\n\n: another comment\n{}\n\nevent: whatever\ndata: {{\"choices\":[],\"usage\":{{\"prompt_tokens\":3,\"completion_tokens\":2}},\"x\":null}}\n\ndata: [DONE]\n\n",
        chat_chunk(r#"{"content":"hi","extra":{"a":null}}"#, None),
        chat_chunk("{}", Some("stop")),
    );
    let got = fold(decode::openai_chat(&[chat.as_bytes()]));
    assert_eq!((got.text.as_str(), got.completions), ("hi", 1));
    assert_eq!(got.completed.unwrap().0.output, 2);

    let responses = sse(&[
        ": ping",
        r#"event: response.brand_new_event
data: {"type":"response.brand_new_event","foo":[1,2]}"#,
        r#"data: {"type":"response.output_text.delta","delta":"ok"}"#,
        r#"data: {"type":"response.completed","response":{"status":"completed","usage":{"input_tokens":5,"output_tokens":1}}}"#,
    ]);
    let got = fold(decode::openai_responses(&[&responses]));
    assert_eq!(got.text, "ok");
    assert_eq!(got.completed.unwrap().1, StopReason::EndTurn);

    let anthropic = sse(&[
        r#"event: message_start
data: {"type":"message_start","message":{"usage":{"input_tokens":7,"output_tokens":1}}}"#,
        ": comment",
        r#"event: ping
data: {"type":"ping"}"#,
        r#"event: shiny_new_event
data: {"type":"shiny_new_event","index":0}"#,
        r#"data: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}"#,
        r#"data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hmm"}}"#,
        r#"data: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}"#,
        r#"data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"yes"}}"#,
        r#"data: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":4}}"#,
        r#"data: {"type":"message_stop"}"#,
    ]);
    let got = fold(decode::anthropic(&[&anthropic]));
    assert_eq!(got.text, "yes", "thinking is not answer text");
    assert_eq!(got.completed.unwrap().0.input, 7);
}

#[test]
fn local_servers_without_ids_usage_or_done_still_complete() {
    let body = format!(
        "{}\n\n{}\n\n{}\n\n",
        chat_chunk(
            r#"{"role":"assistant","content":null,"tool_calls":[{"index":0,"function":{"name":"read_file","arguments":"{\"path\":"}}]}"#,
            None
        ),
        chat_chunk(
            r#"{"tool_calls":[{"index":0,"function":{"arguments":"\"a.txt\"}"}}]}"#,
            None
        ),
        chat_chunk("{}", Some("tool_calls")),
    );
    let got = fold(decode::openai_chat(&[body.as_bytes()]));
    assert_eq!(got.completions, 1);
    let (usage, stop) = got.completed.unwrap();
    assert_eq!(
        (usage.input, usage.output, stop),
        (0, 0, StopReason::ToolUse)
    );
    assert_eq!(got.tool_calls[0].call_id.as_str(), "call_0");
    assert_eq!(got.tool_calls[0].arguments["path"], "a.txt");

    // Nulls everywhere, a whole call in one chunk with its arguments as an
    // object, `finish_reason: "stop"` (as some servers report tool calls).
    let body = sse(&[
        r#"data: {"id":null,"choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":null},"finish_reason":null,"logprobs":null}],"usage":null}"#,
        r#"data: {"choices":[{"index":0,"delta":{"content":"Reading.","tool_calls":[{"id":"call_x","type":"function","function":{"name":"read_file","arguments":{"path":"b"}}}]},"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":null}}"#,
        "data: [DONE]",
    ]);
    let got = fold(decode::openai_chat(&[&body]));
    assert_eq!(got.text, "Reading.");
    assert_eq!(got.tool_calls[0].call_id.as_str(), "call_x");
    assert_eq!(got.tool_calls[0].arguments["path"], "b");
    let (usage, stop) = got.completed.unwrap();
    assert_eq!(
        (usage.input, usage.output, stop),
        (12, 0, StopReason::EndTurn)
    );
}

#[test]
fn local_server_stream_ending_without_done() {
    let body = format!(
        "{}\n\n{}\n\n",
        chat_chunk(r#"{"content":"hi"}"#, None),
        chat_chunk("{}", Some("stop"))
    );
    let got = fold(decode::openai_chat(&[body.as_bytes()]));
    assert_eq!((got.text.as_str(), got.completions), ("hi", 1));
    let (usage, stop) = got.completed.unwrap();
    assert_eq!(
        (usage.input, usage.output, stop),
        (0, 0, StopReason::EndTurn)
    );
}

#[test]
fn bad_or_cut_tool_arguments_in_chat() {
    let usage = r#"data: {"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":8}}"#;
    let call = |args: &str, finish: &str| {
        format!(
            "{}\n\n{}\n\n{usage}\n\ndata: [DONE]\n\n",
            chat_chunk(
                &format!(
                    r#"{{"tool_calls":[{{"index":0,"id":"c1","function":{{"name":"t","arguments":{}}}}}]}}"#,
                    serde_json::to_string(args).unwrap()
                ),
                None
            ),
            chat_chunk("{}", Some(finish)),
        )
    };
    for bad in ["[1,2]", "{\"a\":", "\"text\""] {
        let got = fold(decode::openai_chat(&[call(bad, "tool_calls").as_bytes()]));
        match got.error {
            Some(ProviderError::InvalidOutput { usage, .. }) => assert_eq!(usage.output, 8),
            other => panic!("{bad}: {other:?}"),
        }
        assert!(got.tool_calls.is_empty() && got.completed.is_none());
    }
    // Cut off by the token limit: no call, a MaxTokens completion.
    let got = fold(decode::openai_chat(&[call("{\"a\":", "length").as_bytes()]));
    assert!(got.tool_calls.is_empty());
    assert_eq!(got.completed.unwrap().1, StopReason::MaxTokens);
}

#[test]
fn responses_incomplete_is_max_tokens_without_the_unfinished_call() {
    let body = sse(&[
        r#"data: {"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"t","arguments":""}}"#,
        r#"data: {"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":0,"delta":"{\"a\":"}"#,
        r#"data: {"type":"response.incomplete","response":{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"usage":{"input_tokens":4,"output_tokens":16}}}"#,
    ]);
    let got = fold(decode::openai_responses(&[&body]));
    assert!(got.tool_calls.is_empty());
    let (usage, stop) = got.completed.unwrap();
    assert_eq!((usage.output, stop), (16, StopReason::MaxTokens));
}

#[test]
fn errors_inside_a_200_stream_are_classified() {
    let chat = sse(&[
        r#"data: {"error":{"message":"context too long","type":"invalid_request_error","code":null}}"#,
    ]);
    let llama = sse(&[
        r#"data: {"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}"#,
    ]);
    let responses = sse(&[
        r#"data: {"type":"response.output_text.delta","delta":"par"}"#,
        r#"data: {"type":"response.failed","response":{"status":"failed","error":{"code":"server_error","message":"The server had an error"}}}"#,
    ]);
    let responses_doc_shape = sse(&[
        r#"data: {"type":"error","code":"rate_limit_exceeded","message":"slow down","param":null}"#,
    ]);
    let anthropic = sse(&[r#"event: error
data: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#]);
    let anthropic_bad = sse(&[r#"event: error
data: {"type":"error","error":{"type":"invalid_request_error","message":"nope"}}"#]);
    let cases: [(Protocol, &[u8], bool); 6] = [
        (Protocol::OpenAiChat, &chat, false),
        (Protocol::OpenAiChat, &llama, true),
        (Protocol::OpenAiResponses, &responses, true),
        (Protocol::OpenAiResponses, &responses_doc_shape, true),
        (Protocol::Anthropic, &anthropic, true),
        (Protocol::Anthropic, &anthropic_bad, false),
    ];
    for (protocol, body, transient) in cases {
        let got = fold(decode::decode(protocol, &[body]));
        assert!(got.completed.is_none());
        match got.error {
            Some(ProviderError::Provider {
                retryable,
                status: None,
                message,
                ..
            }) => {
                assert_eq!(retryable, transient, "{protocol}: {message}");
                assert!(message.contains(protocol.as_str()), "{message}");
            }
            other => panic!("{protocol}: {other:?}"),
        }
    }
}

/// Every prefix of every successful recording that stops before its
/// terminal event is a truncation, and never yields a tool call.
#[test]
fn truncation_anywhere_never_completes_or_yields_a_tool_call() {
    for rec in recordings() {
        if rec.expected["outcome"] != "ok" {
            continue;
        }
        let terminal: &[u8] = match rec.protocol {
            Protocol::OpenAiChat => b"finish_reason\":\"",
            Protocol::OpenAiResponses => b"\"type\":\"response.completed\"",
            Protocol::Anthropic => b"\"type\":\"message_stop\"",
            Protocol::OllamaChat => b"\"done\":true",
        };
        let end = rec
            .sse
            .windows(terminal.len())
            .position(|w| w == terminal)
            .unwrap();
        let end = rec.sse[..end]
            .iter()
            .rposition(|b| *b == b'\n')
            .unwrap_or(0);
        let stride = (end / 150).max(1);
        for cut in (0..=end).step_by(stride).chain([end]) {
            let got = fold(decode::decode(rec.protocol, &[&rec.sse[..cut]]));
            let label = format!("{} cut at {cut}", rec.name);
            assert!(got.completed.is_none(), "{label}");
            assert!(got.tool_calls.is_empty(), "{label}");
            assert!(
                matches!(got.error, Some(ProviderError::TruncatedStream { .. })),
                "{label}: {:?}",
                got.error
            );
        }
    }
}

fn cut_inside_tool_call() -> (Protocol, Vec<u8>) {
    let rec = recordings()
        .into_iter()
        .find(|r| r.name == "messages/an_tool_single")
        .unwrap();
    let at = rec
        .sse
        .windows(8)
        .position(|w| w == b"on\\\": \\\"")
        .unwrap();
    (rec.protocol, rec.sse[..at].to_vec())
}

/// The connections the client hung up on, as soon as there is one (after
/// 5 s, none).
async fn hangups_once_closed(server: &TestServer) -> usize {
    let deadline = Instant::now() + Duration::from_secs(5);
    while server.hangups() == 0 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    server.hangups()
}

#[tokio::test]
async fn truncated_reset_and_stalled_streams_over_http() {
    let (protocol, partial) = cut_inside_tool_call();
    let server = TestServer::start(vec![
        Reply::sse_bytes(partial.clone()),
        Reply::sse(vec![Act::Bytes(partial.clone()), Act::Reset]),
        Reply::sse(vec![Act::Bytes(partial), Act::Stall]),
    ])
    .await;
    let mut cfg = config(protocol, &server.base_url(), None);
    cfg.timeouts = Timeouts {
        connect: Duration::from_secs(2),
        idle: Duration::from_millis(300),
    };
    let p = provider(cfg);
    for case in ["clean EOF", "reset", "idle stall"] {
        let started = Instant::now();
        let got = collect(p.as_ref(), simple_request()).await;
        assert!(got.retries.is_empty(), "{case}: truncation is not retried");
        assert!(
            got.tool_calls.is_empty() && got.completed.is_none(),
            "{case}"
        );
        assert_eq!(got.text, "I'll check the current weather in Paris for you.");
        match &got.error {
            Some(ProviderError::TruncatedStream { message }) => {
                if case == "idle stall" {
                    assert!(message.contains("no data for 300 ms"), "{message}");
                    assert!(started.elapsed() < Duration::from_secs(3));
                }
            }
            other => panic!("{case}: {other:?}"),
        }
    }
    assert_eq!(server.requests().len(), 3);
    assert_eq!(
        hangups_once_closed(&server).await,
        1,
        "the stalled connection was closed"
    );
}

#[tokio::test]
async fn dropping_the_stream_closes_the_connection() {
    let body = sse(&[&chat_chunk(r#"{"content":"first words"}"#, None)]);
    let server = TestServer::start(vec![Reply::sse(vec![Act::Bytes(body), Act::Stall])]).await;
    let p = provider(config(Protocol::OpenAiChat, &server.base_url(), None));
    let mut stream = p.stream(simple_request());
    let first = stream.next().await.unwrap().unwrap();
    assert_eq!(first, StreamItem::TextDelta("first words".into()));
    drop(stream);
    assert_eq!(hangups_once_closed(&server).await, 1);
}

/// Anthropic streams sometimes end with `overloaded_error` after text has
/// arrived: the attempt is retried, its partial text is void (the notice
/// says so) and the input tokens `message_start` reported are kept.
#[tokio::test]
async fn an_overload_after_content_is_retried_and_the_partial_answer_discarded() {
    let partial = sse(&[
        r#"data: {"type":"message_start","message":{"usage":{"input_tokens":7,"output_tokens":1}}}"#,
        r#"data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
        r#"data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}"#,
        r#"event: error
data: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
    ]);
    let rec = recordings()
        .into_iter()
        .find(|r| r.name == "messages/an_text_ping")
        .unwrap();
    let server = TestServer::start(vec![
        Reply::sse_bytes(partial),
        Reply::sse_bytes(rec.sse.clone()),
    ])
    .await;
    let p = provider(config(Protocol::Anthropic, &server.base_url(), None));
    let got = collect(p.as_ref(), simple_request()).await;
    assert_eq!(got.retries.len(), 1);
    let notice = &got.retries[0];
    assert!(notice.discarded_partial);
    assert_eq!(notice.usage.input, 7);
    assert!(notice.message.contains("Overloaded"), "{}", notice.message);
    support::check(&rec.expected, &got, "after a mid-stream overload");
    assert_eq!(server.requests().len(), 2);
}

/// The same for the other protocols' in-stream errors: Responses
/// `response.failed` and an OpenAI-compatible server's `error` chunk.
#[tokio::test]
async fn in_stream_server_errors_after_text_are_retried_in_every_protocol() {
    let cases = [
        (
            Protocol::OpenAiResponses,
            "responses/resp_text",
            sse(&[
                r#"data: {"type":"response.output_text.delta","delta":"par"}"#,
                r#"data: {"type":"response.failed","response":{"status":"failed","error":{"code":"server_error","message":"The server had an error"}}}"#,
            ]),
        ),
        (
            Protocol::OpenAiChat,
            "chat/cc_text_usage",
            sse(&[
                r#"data: {"id":"x","choices":[{"index":0,"delta":{"content":"par"},"finish_reason":null}]}"#,
                r#"data: {"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}"#,
            ]),
        ),
    ];
    for (protocol, name, failing) in cases {
        let rec = recordings().into_iter().find(|r| r.name == name).unwrap();
        let server = TestServer::start(vec![
            Reply::sse_bytes(failing),
            Reply::sse_bytes(rec.sse.clone()),
        ])
        .await;
        let got = collect(
            provider(config(protocol, &server.base_url(), None)).as_ref(),
            simple_request(),
        )
        .await;
        assert_eq!(got.retries.len(), 1, "{protocol}");
        assert!(got.retries[0].discarded_partial, "{protocol}");
        support::check(&rec.expected, &got, name);
        assert_eq!(server.requests().len(), 2, "{protocol}");
    }
}

/// A non-retryable error inside the stream after content is the call's
/// error: nothing is retried and no completion is invented.
#[tokio::test]
async fn a_final_error_event_after_content_is_not_retried() {
    let body = sse(&[
        r#"data: {"type":"message_start","message":{"usage":{"input_tokens":7,"output_tokens":1}}}"#,
        r#"data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
        r#"data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}"#,
        r#"event: error
data: {"type":"error","error":{"type":"invalid_request_error","message":"bad"}}"#,
    ]);
    let server = TestServer::start(vec![Reply::sse_bytes(body)]).await;
    let p = provider(config(Protocol::Anthropic, &server.base_url(), None));
    let got = collect(p.as_ref(), simple_request()).await;
    assert!(got.retries.is_empty());
    assert!(got.completed.is_none());
    assert!(matches!(
        got.error,
        Some(ProviderError::Provider {
            retryable: false,
            ..
        })
    ));
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn no_response_headers_within_the_idle_timeout_is_retried() {
    let rec = recordings()
        .into_iter()
        .find(|r| r.name == "responses/resp_text")
        .unwrap();
    let server = TestServer::start(vec![
        Reply::sse_bytes(rec.sse.clone()).delayed(Duration::from_secs(3)),
        Reply::sse_bytes(rec.sse.clone()),
    ])
    .await;
    let mut cfg = config(Protocol::OpenAiResponses, &server.base_url(), None);
    cfg.timeouts.idle = Duration::from_millis(300);
    let got = collect(provider(cfg).as_ref(), simple_request()).await;
    assert_eq!(got.retries.len(), 1);
    assert!(got.retries[0].message.contains("no response within 300 ms"));
    support::check(&rec.expected, &got, "after a silent server");
}
