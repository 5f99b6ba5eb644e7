//! Images as each protocol wants them, sent to a real loopback server: a
//! goal's screenshot and an image a tool returned. Chat Completions: an
//! `image_url` part with a `data:` URL (tool images in a user message after
//! the tool messages); Responses: `input_image` parts; Anthropic: a base64
//! `image` block (inside the `tool_result` for a tool's image); Ollama:
//! base64 `images` on the message (a tool's after its turn's tool messages).
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use bearagent_kernel::{
    ContentHash, HistoryItem, ImageRef, ImageType, Message, Role, ToolCall, ToolResult,
};
use bearagent_providers::{ModelRequest, Protocol};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::Arc;
use support::server::{Reply, TestServer};
use support::{collect, config, provider, recordings};

/// A real 1×1 PNG.
const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89\0\0\0\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82";
const GIF: &[u8] = b"GIF89a\x01\0\x01\0\0\0\0;";

fn image(bytes: &[u8], hash_digit: char, media_type: ImageType, name: &str) -> ImageRef {
    ImageRef {
        blob: ContentHash::parse(&hash_digit.to_string().repeat(64)).unwrap(),
        media_type,
        bytes: bytes.len() as u64,
        name: name.into(),
    }
}

fn b64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn request() -> ModelRequest {
    let shot = image(PNG, 'a', ImageType::Png, "shot.png");
    let tool_image = image(GIF, 'b', ImageType::Gif, "browser image 1");
    let mut result = ToolResult::new("call_1", "[image: image/gif, 14 bytes]", false).unwrap();
    result.images = vec![tool_image.clone()];
    let bytes = BTreeMap::from([
        (shot.blob.clone(), Arc::<[u8]>::from(PNG)),
        (tool_image.blob.clone(), Arc::<[u8]>::from(GIF)),
    ]);
    ModelRequest {
        system: "rules".into(),
        history: vec![
            HistoryItem::Message(
                Message::new(Role::User, "why is this button red?").with_images(vec![shot]),
            ),
            HistoryItem::ToolCall(
                ToolCall::new("call_1", "browser__screenshot", json!({})).unwrap(),
            ),
            HistoryItem::ToolResult(result),
        ]
        .into(),
        tools: Default::default(),
        max_output_tokens: None,
        images: Arc::new(bytes),
    }
}

async fn body_sent(protocol: Protocol) -> Value {
    let wanted = match protocol {
        Protocol::OpenAiChat => "chat/cc_text_usage",
        Protocol::OpenAiResponses => "responses/resp_text",
        Protocol::Anthropic => "messages/an_text_ping",
        Protocol::OllamaChat => "ollama/ol_text",
    };
    let sse = recordings()
        .into_iter()
        .find(|r| r.name == wanted)
        .unwrap()
        .sse;
    let server = TestServer::start(vec![Reply::sse_bytes(sse)]).await;
    let p = provider(config(protocol, &server.base_url(), None));
    let got = collect(p.as_ref(), request()).await;
    assert_eq!(got.completions, 1, "{protocol}: {:?}", got.error);
    server.requests().remove(0).body
}

#[tokio::test]
async fn ollama_sends_base64_images_on_the_messages() {
    let body = body_sent(Protocol::OllamaChat).await;
    assert_eq!(
        body["messages"][1],
        json!({"role": "user", "content": "why is this button red?", "images": [b64(PNG)]})
    );
    assert_eq!(
        body["messages"][3],
        json!({"role": "tool", "content": "[image: image/gif, 14 bytes]",
            "tool_name": "browser__screenshot", "tool_call_id": "call_1"})
    );
    assert_eq!(
        body["messages"][4],
        json!({"role": "user", "content": "Images returned by tool call call_1.", "images": [b64(GIF)]})
    );
    assert_eq!(body["messages"].as_array().unwrap().len(), 5);
}

#[tokio::test]
async fn chat_completions_sends_image_url_parts_with_data_urls() {
    let body = body_sent(Protocol::OpenAiChat).await;
    let png_url = format!("data:image/png;base64,{}", b64(PNG));
    let gif_url = format!("data:image/gif;base64,{}", b64(GIF));
    assert_eq!(
        body["messages"][1],
        json!({"role": "user", "content": [
            {"type": "text", "text": "why is this button red?"},
            {"type": "image_url", "image_url": {"url": png_url}}
        ]})
    );
    // The tool message stays text; its image follows as a user message.
    assert_eq!(body["messages"][3]["role"], "tool");
    assert_eq!(
        body["messages"][3]["content"],
        "[image: image/gif, 14 bytes]"
    );
    assert_eq!(
        body["messages"][4],
        json!({"role": "user", "content": [
            {"type": "text", "text": "Images returned by tool call call_1:"},
            {"type": "image_url", "image_url": {"url": gif_url}}
        ]})
    );
    assert_eq!(body["messages"].as_array().unwrap().len(), 5);
}

#[tokio::test]
async fn responses_sends_input_image_parts() {
    let body = body_sent(Protocol::OpenAiResponses).await;
    let png_url = format!("data:image/png;base64,{}", b64(PNG));
    let gif_url = format!("data:image/gif;base64,{}", b64(GIF));
    assert_eq!(
        body["input"][0],
        json!({"role": "user", "content": [
            {"type": "input_text", "text": "why is this button red?"},
            {"type": "input_image", "image_url": png_url, "detail": "auto"}
        ]})
    );
    assert_eq!(body["input"][2]["type"], "function_call_output");
    assert_eq!(
        body["input"][3],
        json!({"role": "user", "content": [
            {"type": "input_text", "text": "Images returned by tool call call_1:"},
            {"type": "input_image", "image_url": gif_url, "detail": "auto"}
        ]})
    );
}

#[tokio::test]
async fn anthropic_sends_base64_image_blocks() {
    let body = body_sent(Protocol::Anthropic).await;
    assert_eq!(
        body["messages"][0],
        json!({"role": "user", "content": [
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": b64(PNG)}},
            {"type": "text", "text": "why is this button red?"}
        ]})
    );
    assert_eq!(
        body["messages"][2],
        json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "call_1", "is_error": false, "content": [
                {"type": "text", "text": "[image: image/gif, 14 bytes]"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/gif", "data": b64(GIF)}}
            ]}
        ]})
    );
}

#[tokio::test]
async fn an_image_whose_bytes_were_not_attached_is_named_not_dropped() {
    let mut request = request();
    request.images = Default::default();
    let server = TestServer::start(vec![Reply::sse_bytes(
        recordings()
            .into_iter()
            .find(|r| r.name == "messages/an_text_ping")
            .unwrap()
            .sse,
    )])
    .await;
    let p = provider(config(Protocol::Anthropic, &server.base_url(), None));
    collect(p.as_ref(), request).await;
    let body = server.requests().remove(0).body;
    assert_eq!(
        body["messages"][0]["content"][0],
        json!({"type": "text", "text": "[image shot.png (image/png, 67 bytes) could not be attached]"})
    );
}
