//! What an editor's prompt becomes: the goal text of a run. Text and
//! embedded text resources are taken; a resource link is named; images,
//! audio and binary resources are refused (the capability says so), as is
//! an empty or oversized prompt.

use agent_client_protocol::v1::schema::{ContentBlock, EmbeddedResourceResource};

/// A prompt larger than this is refused (a goal is not a file transfer).
pub const MAX_PROMPT_BYTES: usize = 1024 * 1024;

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum PromptError {
    #[error("the prompt is empty")]
    Empty,
    #[error("the prompt is {0} bytes; at most {MAX_PROMPT_BYTES} are taken")]
    TooLarge(usize),
    #[error("this agent takes text and embedded text resources, not {0} (see promptCapabilities)")]
    Unsupported(&'static str),
}

/// The goal the blocks spell, in order.
pub fn goal_of(blocks: &[ContentBlock]) -> Result<String, PromptError> {
    let mut goal = String::new();
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
            ContentBlock::Image(_) => return Err(PromptError::Unsupported("images")),
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
    Ok(goal)
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
        let goal = goal_of(&blocks(json!([
            {"type": "text", "text": "Fix this:"},
            {"type": "resource", "resource": {"uri": "file:///ws/a.py", "text": "x = 1"}},
            {"type": "resource_link", "name": "b.py", "uri": "file:///ws/b.py"}
        ])))
        .unwrap();
        assert!(goal.starts_with("Fix this:"));
        assert!(goal.contains("<resource uri=\"file:///ws/a.py\">\nx = 1\n</resource>"));
        assert!(goal.contains("[b.py](file:///ws/b.py)"));
    }

    #[test]
    fn images_empty_and_huge_prompts_are_refused() {
        let image = blocks(json!([{"type": "image", "data": "AAAA", "mimeType": "image/png"}]));
        assert_eq!(goal_of(&image), Err(PromptError::Unsupported("images")));
        assert_eq!(
            goal_of(&blocks(json!([{"type": "text", "text": "  "}]))),
            Err(PromptError::Empty)
        );
        let huge = "x".repeat(MAX_PROMPT_BYTES + 1);
        let err = goal_of(&blocks(json!([{"type": "text", "text": huge}]))).unwrap_err();
        assert!(matches!(err, PromptError::TooLarge(_)));
    }
}
