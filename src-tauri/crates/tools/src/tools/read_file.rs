//! `read_file`: the exact text of a file, or of a range of its lines.
//!
//! Output contract: the content exactly as stored (no line-number prefixes,
//! no header). Notes are added as final lines in square brackets:
//! `[truncated: showed X of Y bytes (lines A-B); use start_line/end_line]`
//! when the content exceeds `max_bytes` (the head is kept, cut at a line end
//! when possible), and a note when the file is not valid UTF-8 (invalid
//! bytes are shown as U+FFFD). An empty file reads as `[empty file]`. A file
//! with a NUL byte in its first 8 KiB is refused as binary.

use super::common::{make_spec, own_args};
use crate::args::Args;
use crate::authorization::AuthorizedCall;
use crate::error::{ArgumentError, ToolError};
use crate::spec::{Effect, PreparedCall, Tool, ToolOutput, ToolSpec, WorkspaceTool};
use crate::text::floor_utf8_boundary;
use crate::workspace::WorkspaceRoot;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use tokio_util::sync::CancellationToken;

pub const NAME: &str = "read_file";
const DEFAULT_MAX_BYTES: u64 = 256 * 1024;
const MAX_MAX_BYTES: u64 = 16 * 1024 * 1024;
const MAX_LINE: u64 = u32::MAX as u64;
const BINARY_PROBE: u64 = 8 * 1024;

#[derive(Debug, Serialize, Deserialize)]
struct ReadArgs {
    path: String,
    start_line: Option<u64>,
    end_line: Option<u64>,
    max_bytes: u64,
}

pub struct ReadFile {
    spec: ToolSpec,
}

impl ReadFile {
    pub fn new() -> Self {
        let parameters = json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "File to read, relative to the workspace root."},
                "start_line": {"type": "integer", "minimum": 1, "description": "First line to return (1-based, inclusive). Default 1."},
                "end_line": {"type": "integer", "minimum": 1, "description": "Last line to return (1-based, inclusive). Default: end of file."},
                "max_bytes": {"type": "integer", "minimum": 1, "maximum": MAX_MAX_BYTES, "description": "Return at most this many bytes. Default 262144 (256 KiB)."}
            },
            "required": ["path"],
            "additionalProperties": false
        });
        Self {
            spec: make_spec(
                NAME,
                "Read a text file of the workspace and return its exact content (no line numbers added). \
                 Use start_line/end_line (1-based, inclusive) to read part of a large file. \
                 Content over max_bytes is cut, ending with a '[truncated: ...]' line. Binary files are refused.",
                parameters,
                Effect::ReadOnly,
            ),
        }
    }
}

impl Tool for ReadFile {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn prepare(
        &self,
        args: &Map<String, Value>,
        ws: &WorkspaceRoot,
    ) -> Result<PreparedCall, ArgumentError> {
        let args = Args::new(args, &["path", "start_line", "end_line", "max_bytes"])?;
        let (abs, rel) = args.existing_path("path", None, ws)?;
        if abs.is_dir() {
            return Err(ArgumentError::invalid(
                "path",
                format!("{rel} is a directory; use list_dir to see what is in it"),
            ));
        }
        let start_line = args.optional_uint("start_line", 1, MAX_LINE)?;
        let end_line = args.optional_uint("end_line", 1, MAX_LINE)?;
        if let (Some(start), Some(end)) = (start_line, end_line) {
            if start > end {
                return Err(ArgumentError::invalid(
                    "end_line",
                    format!("end_line ({end}) is before start_line ({start})"),
                ));
            }
        }
        let max_bytes = args.uint_or("max_bytes", DEFAULT_MAX_BYTES, 1, MAX_MAX_BYTES)?;
        let summary = match (start_line, end_line) {
            (None, None) => format!("read {rel}"),
            (start, None) => format!("read {rel} from line {}", start.unwrap_or(1)),
            (start, Some(end)) => format!("read {rel} lines {}-{end}", start.unwrap_or(1)),
        };
        let normalised = ReadArgs {
            path: rel,
            start_line,
            end_line,
            max_bytes,
        };
        Ok(PreparedCall::read_only(
            self.spec.name.clone(),
            summary,
            json!(normalised),
        ))
    }
}

impl WorkspaceTool for ReadFile {
    fn execute(
        &self,
        call: &AuthorizedCall,
        ws: &WorkspaceRoot,
        cancel: &CancellationToken,
    ) -> Result<ToolOutput, ToolError> {
        let args: ReadArgs = own_args(&self.spec, call)?;
        let path = args.path.as_str();
        let abs = ws.resolve_existing(path)?;
        let io = |e: std::io::Error| ToolError::io(path, &e);
        let mut file = File::open(&abs).map_err(io)?;
        let meta = file.metadata().map_err(io)?;
        if meta.is_dir() {
            return Err(ToolError::IsADirectory { path: path.into() });
        }
        let total = meta.len();
        let mut probe = Vec::with_capacity(BINARY_PROBE as usize);
        (&mut file)
            .take(BINARY_PROBE)
            .read_to_end(&mut probe)
            .map_err(io)?;
        if probe.is_empty() {
            return Ok(ToolOutput::new("[empty file]"));
        }
        if probe.contains(&0) {
            return Err(ToolError::Binary {
                path: path.into(),
                bytes: total,
            });
        }
        let max = usize::try_from(args.max_bytes).unwrap_or(usize::MAX);
        let reader = BufReader::with_capacity(64 * 1024, probe.as_slice().chain(file));
        let selection = if args.start_line.is_none() && args.end_line.is_none() {
            read_head(reader, max, total).map_err(io)?
        } else {
            let start = args.start_line.unwrap_or(1);
            let end = args.end_line.unwrap_or(u64::MAX);
            let selection = read_lines(reader, start, end, max, cancel)
                .map_err(io)?
                .ok_or(ToolError::Cancelled)?;
            if start > selection.lines_seen {
                return Err(ToolError::LineOutOfRange {
                    path: path.into(),
                    start_line: start,
                    total_lines: selection.lines_seen,
                });
            }
            selection
        };
        Ok(ToolOutput::new(render(selection)))
    }
}

/// What was read: the bytes shown and enough to describe a cut.
struct Selection {
    shown: Vec<u8>,
    /// Bytes of the requested content (whole file, or the requested lines).
    wanted_bytes: u64,
    first_line: u64,
    last_line: u64,
    lines_seen: u64,
    truncated: bool,
}

/// The head of the whole file, at most `max` bytes.
fn read_head(reader: impl Read, max: usize, total: u64) -> std::io::Result<Selection> {
    let mut data = Vec::new();
    reader.take(max as u64 + 1).read_to_end(&mut data)?;
    let truncated = data.len() > max;
    if truncated {
        data.truncate(cut_point(&data, max));
    }
    let lines = count_lines(&data);
    Ok(Selection {
        wanted_bytes: if truncated { total } else { data.len() as u64 },
        first_line: 1,
        last_line: lines,
        lines_seen: lines,
        shown: data,
        truncated,
    })
}

/// Lines `start..=end`, keeping at most `max` bytes of them. `None` when
/// cancelled.
fn read_lines(
    mut reader: impl BufRead,
    start: u64,
    end: u64,
    max: usize,
    cancel: &CancellationToken,
) -> std::io::Result<Option<Selection>> {
    let mut line = Vec::new();
    let mut shown = Vec::new();
    let (mut number, mut wanted, mut last) = (0u64, 0u64, start.saturating_sub(1));
    let mut truncated = false;
    while number < end {
        line.clear();
        if reader.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        number += 1;
        if number % 4096 == 0 && cancel.is_cancelled() {
            return Ok(None);
        }
        if number < start {
            continue;
        }
        wanted += line.len() as u64;
        if truncated {
            continue;
        }
        if shown.len() + line.len() <= max {
            shown.extend_from_slice(&line);
            last = number;
        } else {
            truncated = true;
            if shown.is_empty() {
                // A single line longer than max: show its head.
                shown.extend_from_slice(&line[..floor_utf8_boundary(&line, max)]);
                last = number;
            }
        }
    }
    Ok(Some(Selection {
        shown,
        wanted_bytes: wanted,
        first_line: start,
        last_line: last,
        lines_seen: number,
        truncated,
    }))
}

/// Where to cut `data` to at most `max` bytes: after the last newline if
/// there is one, else on a UTF-8 boundary.
fn cut_point(data: &[u8], max: usize) -> usize {
    let head = &data[..max.min(data.len())];
    match head.iter().rposition(|&b| b == b'\n') {
        Some(i) => i + 1,
        None => floor_utf8_boundary(data, max),
    }
}

fn count_lines(data: &[u8]) -> u64 {
    let newlines = data.iter().filter(|&&b| b == b'\n').count() as u64;
    if data.last().is_some_and(|&b| b != b'\n') {
        newlines + 1
    } else {
        newlines
    }
}

fn render(selection: Selection) -> String {
    let shown_bytes = selection.shown.len();
    let (mut text, lossy) = match String::from_utf8(selection.shown) {
        Ok(text) => (text, false),
        Err(err) => (String::from_utf8_lossy(err.as_bytes()).into_owned(), true),
    };
    if selection.truncated {
        if !text.ends_with('\n') && !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&format!(
            "[truncated: showed {shown_bytes} of {} bytes (lines {}-{}); use start_line/end_line]",
            selection.wanted_bytes, selection.first_line, selection.last_line
        ));
    }
    if lossy {
        if !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str("[note: the file is not valid UTF-8; invalid bytes are shown as U+FFFD]");
    }
    text
}

#[cfg(test)]
#[path = "read_file_tests.rs"]
mod tests;
