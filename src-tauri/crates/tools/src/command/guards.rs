//! Limits around `brush-parser`: what it is not given (too long, too deep,
//! here-documents it can loop forever on) and the thread it runs on (a
//! large stack, panics caught, a deadline).

use brush_parser::ast;
use brush_parser::{Parser, ParserOptions};
use std::sync::mpsc::RecvTimeoutError;
use std::time::Duration;

/// Longer input is not parsed: parse time and memory stay bounded.
const MAX_INPUT_BYTES: usize = 64 * 1024;
/// The parser recurses per nesting level; deeper input is refused before it
/// can exhaust the stack (a stack overflow aborts, it cannot be caught).
pub(super) const MAX_NESTING: usize = 100;
/// Stack for the parsing thread: generous, so the nesting limit above is far
/// from what actually overflows.
const PARSER_STACK_BYTES: usize = 256 * 1024 * 1024;
/// How long a check may take before it is given up as unprovable.
const CHECK_TIMEOUT: Duration = Duration::from_secs(5);

/// Runs `work` on a thread with a large stack. A panic in the parser comes
/// back as `Err` instead of unwinding into the caller, and so does a parser
/// that has not answered in time (that thread cannot be stopped; it is left
/// behind).
pub(crate) fn guarded<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, String> {
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name("command-rules".into())
        .stack_size(PARSER_STACK_BYTES)
        .spawn(move || sender.send(work()))
        .map_err(|e| format!("could not start the command checker: {e}"))?;
    receiver.recv_timeout(CHECK_TIMEOUT).map_err(|e| match e {
        RecvTimeoutError::Timeout => "checking the command took too long".to_string(),
        RecvTimeoutError::Disconnected => "the shell parser failed on this command".to_string(),
    })
}

pub(super) fn parse(text: &str) -> Result<ast::Program, String> {
    if text.len() > MAX_INPUT_BYTES {
        return Err(format!("it is longer than {MAX_INPUT_BYTES} bytes"));
    }
    if text.contains('\0') {
        return Err("it contains a NUL byte".into());
    }
    if nesting(text) > MAX_NESTING {
        return Err(format!("it nests more than {MAX_NESTING} levels deep"));
    }
    if !heredocs_are_plain(text) {
        return Err("it has a here-document this checker cannot follow".into());
    }
    let options = ParserOptions::default();
    Parser::new(std::io::Cursor::new(text.as_bytes()), &options)
        .parse_program()
        .map_err(|e| format!("the shell parser cannot read it ({e})"))
}

/// Over-estimates how deeply `text` nests: bracket depth plus keyword depth,
/// ignoring quotes (so quoted brackets can only raise the estimate).
pub(super) fn nesting(text: &str) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    for c in text.chars() {
        match c {
            '(' | '{' | '`' => depth += 1,
            ')' | '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        max = max.max(depth);
    }
    let (mut kw_depth, mut kw_max, mut unclosed) = (0usize, 0usize, 0usize);
    for word in text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
        match word {
            "if" | "while" | "until" | "for" | "case" | "select" => kw_depth += 1,
            "fi" | "done" | "esac" => kw_depth = kw_depth.saturating_sub(1),
            "coproc" => unclosed += 1,
            _ => {}
        }
        kw_max = kw_max.max(kw_depth);
    }
    max + kw_max + unclosed
}

/// Whether every `<<` in `text` is followed by a plain here-document tag
/// (letters, digits, `_.-`, quotes). brush-parser 0.4 can loop forever,
/// allocating, when input ends inside a here-document whose tag it reads as
/// empty (`$(a <<  `, `$( <<  # )`), and a looping thread cannot be
/// stopped, so anything but a plain tag is refused before parsing. Quotes are ignored: a quoted `<<` can be refused, never missed.
/// A body is skipped only when a line closes it exactly; otherwise the lines
/// after the tag are checked too.
pub(super) fn heredocs_are_plain(text: &str) -> bool {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut next = 0;
    while let Some(line) = lines.get(next) {
        next += 1;
        let mut tags = Vec::new();
        let mut rest = *line;
        while let Some(at) = rest.find("<<") {
            rest = rest.get(at + 2..).unwrap_or_default();
            if let Some(after) = rest.strip_prefix('<') {
                rest = after; // a here-string, `<<<`
                continue;
            }
            let strip_tabs = rest.starts_with('-');
            let after_dash = if strip_tabs {
                rest.get(1..).unwrap_or_default()
            } else {
                rest
            };
            let tag_start = after_dash.trim_start_matches([' ', '\t']);
            let len = tag_start.find([' ', '\t', ';', '&', '|', '(', ')', '<', '>']);
            let raw = tag_start
                .get(..len.unwrap_or(tag_start.len()))
                .unwrap_or_default();
            let tag: String = raw
                .chars()
                .filter(|c| !matches!(c, '\'' | '"' | '\\'))
                .collect();
            let word_like = |c: char| c.is_ascii_alphanumeric() || "_.-'\"\\".contains(c);
            if tag.is_empty() || !raw.chars().all(word_like) {
                return false;
            }
            tags.push((tag, strip_tabs));
            rest = tag_start.get(raw.len()..).unwrap_or_default();
        }
        for (tag, strip_tabs) in tags {
            // The closing line may end a quoted script around the here-doc
            // (`sh -c 'cat <<EOF … EOF'`).
            let closes = |body: &&str| {
                let body = if strip_tabs {
                    body.trim_start_matches('\t')
                } else {
                    body
                };
                body.strip_prefix(tag.as_str())
                    .is_some_and(|rest| rest.chars().all(|c| c == '\'' || c == '"'))
            };
            match lines.iter().skip(next).position(closes) {
                Some(at) => next += at + 1,
                None => return false,
            }
        }
    }
    true
}
