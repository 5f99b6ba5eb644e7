//! How tools reach the model (native calls or JSON text), and the
//! dialects in which a model may print a tool call as text instead of
//! making it natively — both appear in events, so they live here.

use serde::{Deserialize, Serialize};

/// How tools reach the model.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ToolMode {
    /// The protocol's own tool calling.
    #[default]
    Native,
    /// Tools described in the prompt, replies parsed as strict JSON text.
    JsonText,
}

impl std::fmt::Display for ToolMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ToolMode::Native => "native",
            ToolMode::JsonText => "json-text",
        })
    }
}

impl std::str::FromStr for ToolMode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim() {
            "native" => Ok(ToolMode::Native),
            "json-text" => Ok(ToolMode::JsonText),
            other => Err(format!(
                "unknown tool mode {other:?}: use \"native\" or \"json-text\""
            )),
        }
    }
}

/// The written form of a tool call a model printed as text (small local
/// models often do, instead of a native call).
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TextCallDialect {
    /// `{"name": …, "arguments": {…}}` in the prose.
    BareJson,
    /// The same object (or an array of them) in a ```json fence.
    FencedJson,
    /// Hermes / Qwen2.5: `<tool_call>{…}</tool_call>`.
    Hermes,
    /// Qwen3-Coder: `<tool_call><function=NAME><parameter=KEY>…`.
    QwenXml,
    /// Mistral: `[TOOL_CALLS][{…}]` or `[TOOL_CALLS]name[ARGS]{…}`.
    Mistral,
    /// gpt-oss harmony: `<|channel|>commentary to=functions.NAME … <|message|>{…}<|call|>`.
    Harmony,
}

impl TextCallDialect {
    /// How renderers name it.
    pub fn label(self) -> &'static str {
        match self {
            TextCallDialect::BareJson => "JSON in the text",
            TextCallDialect::FencedJson => "a ```json block",
            TextCallDialect::Hermes => "<tool_call> tags",
            TextCallDialect::QwenXml => "<function=…> XML",
            TextCallDialect::Mistral => "[TOOL_CALLS]",
            TextCallDialect::Harmony => "harmony",
        }
    }

    /// " (written as text: <tool_call> tags)" after a call read from text,
    /// nothing after a native one: how renderers mark it.
    pub fn note(dialect: Option<Self>) -> String {
        dialect.map_or_else(String::new, |d| {
            format!(" (written as text: {})", d.label())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serde_shapes_are_stable() {
        let mode = serde_json::to_value(ToolMode::JsonText).unwrap();
        assert_eq!(mode, serde_json::json!("json-text"));
        let dialect = serde_json::to_value(TextCallDialect::QwenXml).unwrap();
        assert_eq!(dialect, serde_json::json!("qwen_xml"));
        assert_eq!("json-text".parse::<ToolMode>(), Ok(ToolMode::JsonText));
        assert_eq!(ToolMode::Native.to_string(), "native");
    }
}
