//! Context windows: how many tokens a model reads, by model family when
//! the config does not say, and the compaction request every provider may
//! receive.

/// The first line of the message that asks a model to compact the
/// conversation (the runtime sends it; the scripted provider answers it).
pub const COMPACTION_PROMPT: &str =
    "Compaction request: the conversation above is about to be replaced by your summary.";

/// A window for `model` when the config gives none: the family's published
/// size, or a conservative 32 768 tokens for a model we do not know (local
/// servers often run small windows).
pub fn default_context_window(model: &str) -> u64 {
    let m = model.to_ascii_lowercase();
    let known: &[(&str, u64)] = &[
        ("gpt-4.1", 1_047_576),
        ("gpt-5", 400_000),
        ("gpt-4o", 128_000),
        ("gpt-4-turbo", 128_000),
        ("o1", 200_000),
        ("o3", 200_000),
        ("o4", 200_000),
        ("claude", 200_000),
        ("gemini", 1_048_576),
    ];
    known
        .iter()
        .find(|(prefix, _)| m.starts_with(prefix))
        .map_or(32_768, |(_, window)| *window)
}

/// Whether `model` reads images when the config does not say: true for
/// the families published as multimodal, false for any model we do not
/// know (a text-only model would reject or, worse, ignore the image).
pub fn default_vision(model: &str) -> bool {
    let m = model.to_ascii_lowercase();
    let by_prefix = [
        "gpt-4o",
        "gpt-4.1",
        "gpt-4-turbo",
        "gpt-5",
        "o3",
        "o4",
        "claude",
        "gemini",
        "pixtral",
        "llava",
        "gemma3",
    ];
    let by_part = ["-vl", "vision", "minicpm-v"];
    let text_only = ["o1-mini", "o3-mini", "claude-2", "claude-instant"];
    if text_only.iter().any(|p| m.starts_with(p)) {
        return false;
    }
    by_prefix.iter().any(|p| m.starts_with(p)) || by_part.iter().any(|p| m.contains(p))
}

/// A request that asks for a compaction summary: no tools, the prompt last.
pub(crate) fn is_compaction(request: &crate::ModelRequest) -> bool {
    request.tools.is_empty()
        && matches!(
            request.history.last(),
            Some(bearagent_kernel::HistoryItem::Message(m)) if m.content.starts_with(COMPACTION_PROMPT)
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_families_get_their_window_and_others_a_small_one() {
        assert_eq!(default_context_window("claude-sonnet-4-5"), 200_000);
        assert_eq!(default_context_window("GPT-4o-mini"), 128_000);
        assert!(default_vision("gpt-4o-mini") && default_vision("claude-sonnet-4-5"));
        assert!(default_vision("qwen2.5-vl-7b") && default_vision("llama3.2-vision"));
        assert!(!default_vision("o3-mini") && !default_vision("qwen2.5-coder-7b"));
        assert!(!default_vision("my-local-model"));
        assert_eq!(default_context_window("gpt-4.1-nano"), 1_047_576);
        assert_eq!(default_context_window("gpt-5-codex"), 400_000);
        assert_eq!(default_context_window("qwen2.5-coder"), 32_768);
    }
}
