//! Tool calls a model printed as text instead of making them natively —
//! small local models (llama.cpp, Ollama) often do — found in the reply so
//! the loop can take the call the model meant instead of recording the
//! text as a final answer. One file per dialect; `shape.rs` turns a
//! decoded object into a call the same way for all of them.
//!
//! Explicit tool-call syntax (`<tool_call>`, `<function=`, `[TOOL_CALLS]`,
//! harmony's `to=functions.`) is a call whatever it names: an unknown name
//! is invalid output. JSON in the prose or in a fence is a call only when
//! it names a known tool (or is the whole reply), so an answer that shows
//! unrelated JSON stays an answer.

mod bare;
mod fenced;
mod function_attr;
mod harmony;
mod hermes;
mod mistral;
mod qwen_xml;
mod shape;
mod types;

use crate::ToolSchema;
use shape::Known;
use types::Found;
pub use types::{TextCall, TextCallError, TextCalls};

/// Replies longer than this are not searched (no model prints a call so).
const MAX_SEARCHED: usize = 256 * 1024;

/// Finds the tool calls written in `text`, given the tools the model was
/// offered (their schemas type the Qwen XML dialect's values).
pub fn find_text_calls(text: &str, tools: &[ToolSchema]) -> TextCalls {
    if text.len() > MAX_SEARCHED || tools.is_empty() {
        return TextCalls::None;
    }
    let known = Known::new(tools);
    let dialects: [fn(&str, &Known) -> Vec<Found>; 5] = [
        harmony::find,
        mistral::find,
        qwen_xml::find,
        function_attr::find,
        hermes::find,
    ];
    for find in dialects {
        let found = find(text, &known);
        if !found.is_empty() {
            return settle(found);
        }
    }
    let (found, fences) = fenced::find(text, &known);
    if !found.is_empty() {
        return settle(found);
    }
    settle(bare::find(text, &fences, &known))
}

/// All calls, or the first problem (one invalid call makes the turn
/// invalid: running half of what the model meant would mislead it).
fn settle(found: Vec<Found>) -> TextCalls {
    let mut calls = Vec::new();
    for f in found {
        match f {
            Ok(call) => calls.push(call),
            Err((dialect, error)) => return TextCalls::Invalid { dialect, error },
        }
    }
    if calls.is_empty() {
        TextCalls::None
    } else {
        TextCalls::Calls(calls)
    }
}

#[cfg(test)]
mod tests;
