//! Fenced JSON: a call (or an array of calls) in a ```json block, or a
//! block with no language — often after a sentence ("I will read the
//! file:"). Blocks in other languages are code, never calls (except a
//! reply that is one such block holding only a call-shaped object); all
//! blocks are returned so the bare scan skips them.

use super::bare::scan;
use super::shape::{calls_in, first_value, names_known_tool, Known, Wrapper};
use super::types::{Found, TextCallError};
use bearagent_kernel::TextCallDialect;
use std::ops::Range;

const DIALECT: TextCallDialect = TextCallDialect::FencedJson;

/// Languages a call may be fenced as.
const CALL_LANGUAGES: [&str; 6] = ["", "json", "jsonc", "json5", "tool_call", "tool_code"];

/// One fenced block.
struct Fence {
    lang: String,
    body: Range<usize>,
    all: Range<usize>,
}

/// The calls in the reply's JSON fences, and every fence's span.
pub(super) fn find(text: &str, known: &Known) -> (Vec<Found>, Vec<Range<usize>>) {
    let fences = fences(text);
    let outside_is_empty = {
        let mut rest = String::new();
        let mut at = 0;
        for f in &fences {
            rest.push_str(&text[at..f.all.start]);
            at = f.all.end;
        }
        rest.push_str(&text[at..]);
        rest.trim().is_empty()
    };
    let mut found = Vec::new();
    // A reply that is only the block means it as a call.
    let whole = outside_is_empty && fences.len() == 1;
    for fence in &fences {
        if !CALL_LANGUAGES.contains(&fence.lang.to_ascii_lowercase().as_str()) {
            // Code, never a call — unless the whole reply is one block
            // holding one call-shaped object: small models fence their call
            // as ```python, and an unknown name must be re-asked, not
            // taken for the answer.
            if whole {
                found.extend(whole_value_in(&text[fence.body.clone()], known));
            }
            continue;
        }
        let wrapper = if whole {
            Wrapper::Whole
        } else {
            Wrapper::Implicit
        };
        found.extend(calls_in_body(&text[fence.body.clone()], known, wrapper));
    }
    (found, fences.into_iter().map(|f| f.all).collect())
}

fn calls_in_body(body: &str, known: &Known, wrapper: Wrapper) -> Vec<Found> {
    let trimmed = body.trim();
    if let Some(decoded) = string_escaped(trimmed) {
        return calls_in_body(&decoded, known, wrapper);
    }
    match first_value(trimmed) {
        Ok((value, used)) if trimmed[used..].trim().is_empty() => {
            calls_in(&value, known, wrapper, DIALECT)
        }
        // Several objects, comments, or a broken one: read it as prose.
        Ok(_) => scan(trimmed, &[], known, DIALECT),
        Err(e) => match names_known_tool(trimmed, known) {
            Some(_) => vec![Err((
                DIALECT,
                TextCallError::NotJson {
                    detail: e.to_string(),
                },
            ))],
            None => scan(trimmed, &[], known, DIALECT),
        },
    }
}

/// The call a block in another language is when its body is exactly one
/// JSON value (call-shaped; else nothing).
fn whole_value_in(body: &str, known: &Known) -> Vec<Found> {
    let trimmed = body.trim();
    if let Some(decoded) = string_escaped(trimmed) {
        return whole_value_in(&decoded, known);
    }
    match first_value(trimmed) {
        Ok((value, used)) if trimmed[used..].trim().is_empty() => {
            calls_in(&value, known, Wrapper::Whole, DIALECT)
        }
        _ => Vec::new(),
    }
}

/// The JSON a body holds when the model wrote it still escaped as the
/// inside of a string (`{\n  \"name\": …}`, seen from qwen2.5-coder
/// 0.5B): only a body that is not JSON itself, opens an object or array,
/// and decodes as a JSON string into text that is.
fn string_escaped(body: &str) -> Option<String> {
    if !body.contains("\\\"") || !(body.starts_with('{') || body.starts_with('[')) {
        return None;
    }
    if first_value(body).is_ok() {
        return None;
    }
    // Raw line breaks are not allowed inside a JSON string; the model's own
    // are layout, so they may become escapes before decoding.
    let quoted = format!(
        "\"{}\"",
        body.replace('\r', "\\r")
            .replace('\n', "\\n")
            .replace('\t', "\\t")
    );
    let decoded: String = serde_json::from_str(&quoted).ok()?;
    let decoded = decoded.trim().to_owned();
    first_value(&decoded).ok().map(|_| decoded)
}

/// The fenced blocks (``` or ~~~), an unclosed last one running to the end.
fn fences(text: &str) -> Vec<Fence> {
    let mut fences = Vec::new();
    let mut open: Option<(String, &str, usize, usize)> = None;
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let start = at;
        at += line.len();
        let content = line.trim();
        match &open {
            None => {
                let marker = if content.starts_with("```") {
                    "```"
                } else if content.starts_with("~~~") {
                    "~~~"
                } else {
                    continue;
                };
                let lang = content.trim_start_matches(marker).trim().to_owned();
                open = Some((lang, marker, start, at));
            }
            Some((_, marker, _, _)) if content.starts_with(marker) => {
                let rest = content.trim_start_matches(marker).trim();
                if rest.is_empty() {
                    if let Some((lang, _, all_start, body_start)) = open.take() {
                        fences.push(Fence {
                            lang,
                            body: body_start..start,
                            all: all_start..at,
                        });
                    }
                }
            }
            Some(_) => {}
        }
    }
    if let Some((lang, _, all_start, body_start)) = open {
        fences.push(Fence {
            lang,
            body: body_start..text.len(),
            all: all_start..text.len(),
        });
    }
    fences
}
