//! What an editor's prompt becomes: the goal text of a run and its images.
//! Text and embedded text resources are taken; a resource link is named;
//! images go with the goal (their type, size and count are checked when
//! the run starts); audio and binary resources are refused (the
//! capabilities say so), as is an empty or oversized prompt.

use agent_client_protocol::v1::schema::{ContentBlock, EmbeddedResourceResource};
use bearagent_runtime::ImageInput;

/// A prompt larger than this is refused (a goal is not a file transfer).
pub const MAX_PROMPT_BYTES: usize = 1024 * 1024;

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum PromptError {
    #[error("the prompt is empty")]
    Empty,
    #[error("the prompt is {0} bytes; at most {MAX_PROMPT_BYTES} are taken")]
    TooLarge(usize),
    #[error("this agent takes text, images and embedded text resources, not {0} (see promptCapabilities)")]
    Unsupported(&'static str),
    #[error("image {0} is not valid base64")]
    BadImage(String),
}

/// A prompt as a run takes it.
#[derive(Debug, PartialEq, Eq)]
pub struct Prompt {
    pub goal: String,
    pub images: Vec<ImageInput>,
}

/// The goal the blocks spell, in order, and the images among them.
pub fn prompt_of(blocks: &[ContentBlock]) -> Result<Prompt, PromptError> {
    let mut goal = String::new();
    let mut images = Vec::new();
    for block in blocks {
        match block {
            ContentBlock::Text(t) => goal.push_str(&t.text),
            ContentBlock::ResourceLink(link) => {
                goal.push_str(&format!("\n[{}]({})\n", link.name, link.uri));
            }
            ContentBlock::Resource(embedded) => match &embedded.resource {
                EmbeddedResourceResource::TextResourceContents(r) => {
                    goal.push_str(&format!(
                        "\n<resource uri=\"{}\">\n{}\n</resource>\n",
                        r.uri, r.text
                    ));
                }
                _ => return Err(PromptError::Unsupported("binary resources")),
            },
            ContentBlock::Image(image) => images.push(image_input(image, images.len())?),
            ContentBlock::Audio(_) => return Err(PromptError::Unsupported("audio")),
            _ => return Err(PromptError::Unsupported("this kind of content")),
        }
        if goal.len() > MAX_PROMPT_BYTES {
            return Err(PromptError::TooLarge(goal.len()));
        }
    }
    if goal.trim().is_empty() {
        return Err(PromptError::Empty);
    }
    Ok(Prompt { goal, images })
}

/// An image block's bytes, named by its URI's last part or its place.
fn image_input(
    image: &agent_client_protocol::v1::schema::ImageContent,
    index: usize,
) -> Result<ImageInput, PromptError> {
    use base64::Engine as _;
    let name = image
        .uri
        .as_deref()
        .and_then(|u| u.rsplit('/').next())
        .filter(|n| !n.is_empty())
        .map_or_else(|| format!("image {}", index + 1), str::to_owned);
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(image.data.as_bytes())
        .map_err(|_| PromptError::BadImage(name.clone()))?;
    Ok(ImageInput { name, bytes })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn blocks(v: serde_json::Value) -> Vec<ContentBlock> {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn text_and_text_resources_make_the_goal() {
        let goal = prompt_of(&blocks(json!([
            {"type": "text", "text": "Fix this:"},
            {"type": "resource", "resource": {"uri": "file:///ws/a.py", "text": "x = 1"}},
            {"type": "resource_link", "name": "b.py", "uri": "file:///ws/b.py"}
        ])))
        .unwrap()
        .goal;
        assert!(goal.starts_with("Fix this:"));
        assert!(goal.contains("<resource uri=\"file:///ws/a.py\">\nx = 1\n</resource>"));
        assert!(goal.contains("[b.py](file:///ws/b.py)"));
    }

    #[test]
    fn images_go_with_the_goal_and_bad_ones_are_refused() {
        let prompt = prompt_of(&blocks(json!([
            {"type": "text", "text": "What is wrong here?"},
            {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png", "uri": "file:///tmp/shot.png"},
            {"type": "image", "data": "R0lGODlh", "mimeType": "image/gif"}
        ])))
        .unwrap();
        assert_eq!(prompt.goal, "What is wrong here?");
        assert_eq!(prompt.images[0].name, "shot.png");
        assert_eq!(prompt.images[0].bytes, b"\x89PNG\r\n\x1a\n");
        assert_eq!(prompt.images[1].name, "image 2");
        let bad = blocks(
            json!([{"type": "text", "text": "x"}, {"type": "image", "data": "*not base64*", "mimeType": "image/png"}]),
        );
        assert_eq!(
            prompt_of(&bad),
            Err(PromptError::BadImage("image 1".into()))
        );
    }

    #[test]
    fn empty_huge_and_audio_prompts_are_refused() {
        let only_image =
            blocks(json!([{"type": "image", "data": "AAAA", "mimeType": "image/png"}]));
        assert_eq!(prompt_of(&only_image), Err(PromptError::Empty));
        assert_eq!(
            prompt_of(&blocks(json!([{"type": "text", "text": "  "}]))),
            Err(PromptError::Empty)
        );
        let audio = blocks(json!([{"type": "audio", "data": "AAAA", "mimeType": "audio/wav"}]));
        assert_eq!(prompt_of(&audio), Err(PromptError::Unsupported("audio")));
        let huge = "x".repeat(MAX_PROMPT_BYTES + 1);
        let err = prompt_of(&blocks(json!([{"type": "text", "text": huge}]))).unwrap_err();
        assert!(matches!(err, PromptError::TooLarge(_)));
    }
}
