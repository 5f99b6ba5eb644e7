//! From rmcp's wire types to ours: a listed tool to [`McpTool`], a tool's
//! result to one text for the model.

use crate::names::{exposed_name, McpTool};
use rmcp::model::{CallToolResult, ContentBlock, ResourceContents, Tool};
use serde_json::Value;

/// What a tool call returned, as text for the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpCallResult {
    /// Text blocks joined by newlines; structured content as pretty JSON
    /// (unless a text block already carries the same JSON); images and audio
    /// as `[image: mime, N bytes]`; resource links as `[resource: uri
    /// (name)]`; embedded text resources as their text.
    pub text: String,
    /// The server said the tool failed (`isError`): the text says why.
    pub is_error: bool,
    /// The image blocks' bytes, in order (each is also named in `text`, for
    /// a model that cannot see). A block whose data is not base64 is only
    /// named.
    pub images: Vec<Vec<u8>>,
}

pub(crate) fn tool_from_rmcp(server: &str, tool: Tool) -> McpTool {
    let annotations = tool.annotations.as_ref();
    let title = tool
        .title
        .clone()
        .or_else(|| annotations.and_then(|a| a.title.clone()));
    McpTool {
        server: server.to_owned(),
        exposed_name: exposed_name(server, &tool.name),
        name: tool.name.into_owned(),
        description: tool.description.map(|d| d.into_owned()).unwrap_or_default(),
        input_schema: Value::Object((*tool.input_schema).clone()),
        read_only_hint: annotations.and_then(|a| a.read_only_hint),
        destructive_hint: annotations.and_then(|a| a.destructive_hint),
        title,
    }
}

pub(crate) fn render_result(result: CallToolResult) -> McpCallResult {
    use base64::Engine as _;
    let mut images = Vec::new();
    let mut parts: Vec<String> = Vec::with_capacity(result.content.len() + 1);
    let mut text_json: Vec<Value> = Vec::new();
    for block in result.content {
        match block {
            ContentBlock::Text(t) => {
                if let Ok(v) = serde_json::from_str::<Value>(&t.text) {
                    text_json.push(v);
                }
                parts.push(t.text);
            }
            ContentBlock::Image(i) => {
                if let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(i.data.trim()) {
                    images.push(bytes);
                }
                parts.push(format!(
                    "[image: {}, {} bytes]",
                    i.mime_type,
                    b64_len(&i.data)
                ));
            }
            ContentBlock::Audio(a) => {
                parts.push(format!(
                    "[audio: {}, {} bytes]",
                    a.mime_type,
                    b64_len(&a.data)
                ));
            }
            ContentBlock::ResourceLink(r) => {
                parts.push(format!("[resource: {} ({})]", r.uri, r.name));
            }
            ContentBlock::Resource(e) => parts.push(match e.resource {
                ResourceContents::TextResourceContents { text, .. } => text,
                ResourceContents::BlobResourceContents {
                    uri,
                    mime_type,
                    blob,
                    ..
                } => format!(
                    "[resource: {uri}, {}, {} bytes]",
                    mime_type.as_deref().unwrap_or("application/octet-stream"),
                    b64_len(&blob)
                ),
                // A kind added to the protocol later: say so rather than drop it.
                _ => "[resource: unsupported kind]".to_owned(),
            }),
            _ => parts.push("[content: unsupported kind]".to_owned()),
        }
    }
    // Servers are asked to mirror structured content in a text block; only
    // add it when they did not, so the model does not read it twice.
    if let Some(structured) = result.structured_content {
        if !text_json.contains(&structured) {
            parts.push(serde_json::to_string_pretty(&structured).unwrap_or_default());
        }
    }
    McpCallResult {
        text: parts.join("\n"),
        is_error: result.is_error.unwrap_or(false),
        images,
    }
}

/// Decoded size of base64 text, without decoding it.
fn b64_len(data: &str) -> usize {
    let chars = data.bytes().filter(|b| !b.is_ascii_whitespace()).count();
    let pad = data
        .trim_end()
        .bytes()
        .rev()
        .take_while(|&b| b == b'=')
        .count();
    (chars / 4 * 3 + (chars % 4).saturating_sub(1)).saturating_sub(pad)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::{Resource, ToolAnnotations};
    use serde_json::json;
    use std::sync::Arc;

    fn result(content: Vec<ContentBlock>, structured: Option<Value>, err: bool) -> CallToolResult {
        let mut r = CallToolResult::default();
        r.content = content;
        r.structured_content = structured;
        r.is_error = Some(err);
        r
    }

    #[test]
    fn renders_every_kind_of_block() {
        let r = render_result(result(
            vec![
                ContentBlock::text("hello"),
                ContentBlock::image("aGVsbG8=", "image/png"),
                ContentBlock::ResourceLink(Resource::new("test://a", "Res A")),
                ContentBlock::embedded_text("test://b", "embedded body"),
                ContentBlock::resource(
                    ResourceContents::blob("AAAA", "test://c").with_mime_type("application/zip"),
                ),
            ],
            None,
            true,
        ));
        assert_eq!(
            r.text,
            "hello\n[image: image/png, 5 bytes]\n[resource: test://a (Res A)]\nembedded body\n[resource: test://c, application/zip, 3 bytes]"
        );
        assert_eq!(r.images, vec![b"hello".to_vec()]);
        assert!(r.is_error);
    }

    #[test]
    fn structured_content_is_shown_once() {
        let v = json!({"temperature": 33, "conditions": "Cloudy"});
        let mirrored = render_result(result(
            vec![ContentBlock::text(v.to_string())],
            Some(v.clone()),
            false,
        ));
        assert_eq!(mirrored.text, v.to_string());
        let alone = render_result(result(vec![], Some(v.clone()), false));
        assert_eq!(
            alone.text,
            serde_json::to_string_pretty(&v).unwrap_or_default()
        );
    }

    #[test]
    fn base64_sizes() {
        assert_eq!(b64_len(""), 0);
        assert_eq!(b64_len("aA=="), 1);
        assert_eq!(b64_len("aGk="), 2);
        assert_eq!(b64_len("aGVsbG8h"), 6);
        assert_eq!(b64_len("aGVs\nbG8h\n"), 6);
    }

    #[test]
    fn tools_keep_schema_and_hints() {
        let mut schema = serde_json::Map::new();
        schema.insert("type".into(), json!("object"));
        let mut ann = ToolAnnotations::default();
        ann.read_only_hint = Some(true);
        ann.destructive_hint = Some(false);
        let mut tool = Tool::new("get-sum", "Adds", Arc::new(schema));
        tool.annotations = Some(ann);
        tool.title = Some("Get Sum Tool".into());
        let t = tool_from_rmcp("every thing", tool);
        assert_eq!(t.exposed_name, "every_thing__get-sum");
        assert_eq!(t.name, "get-sum");
        assert_eq!(t.input_schema, json!({"type": "object"}));
        assert_eq!(
            (t.read_only_hint, t.destructive_hint),
            (Some(true), Some(false))
        );
        assert_eq!(t.title.as_deref(), Some("Get Sum Tool"));
    }
}
