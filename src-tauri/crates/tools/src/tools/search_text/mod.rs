//! `search_text`: ripgrep-style search of the workspace, results sorted by
//! path then line.

mod collect;
mod engine;

pub use engine::{build_matcher, check_pattern, search, SearchError, SearchOptions, SearchReport};

use super::common::{make_spec, own_args};
use crate::args::Args;
use crate::authorization::AuthorizedCall;
use crate::error::{ArgumentError, ToolError};
use crate::spec::{Effect, PreparedCall, Tool, ToolOutput, ToolSpec, WorkspaceTool};
use crate::text::plural;
use crate::workspace::WorkspaceRoot;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use tokio_util::sync::CancellationToken;

pub const NAME: &str = "search_text";
const DEFAULT_MAX_RESULTS: u64 = 200;
const MAX_RESULTS: u64 = 2000;
/// Matching lines longer than this are cut in the tool's output.
pub const MAX_LINE_BYTES: usize = 512;

#[derive(Debug, Serialize, Deserialize)]
struct SearchArgs {
    pattern: String,
    literal: bool,
    path: String,
    case_insensitive: bool,
    max_results: u64,
}

pub struct SearchText {
    spec: ToolSpec,
}

impl SearchText {
    pub fn new() -> Self {
        let parameters = json!({
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "description": "Regular expression (Rust regex syntax, matched per line) or, with literal, plain text."},
                "literal": {"type": "boolean", "description": "Treat pattern as plain text. Default false."},
                "path": {"type": "string", "description": "File or directory to search, relative to the workspace root. Default \".\"."},
                "case_insensitive": {"type": "boolean", "description": "Ignore case. Default false."},
                "max_results": {"type": "integer", "minimum": 1, "maximum": MAX_RESULTS, "description": "Return at most this many matching lines. Default 200."}
            },
            "required": ["pattern"],
            "additionalProperties": false
        });
        Self {
            spec: make_spec(
                NAME,
                "Search file contents in the workspace, like ripgrep: honours .gitignore/.ignore, skips hidden and binary files. \
                 Returns one 'path:line:text' per matching line, sorted by path then line, and says when results were capped.",
                parameters,
                Effect::ReadOnly,
            ),
        }
    }
}

impl Tool for SearchText {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn prepare(
        &self,
        args: &Map<String, Value>,
        ws: &WorkspaceRoot,
    ) -> Result<PreparedCall, ArgumentError> {
        let args = Args::new(
            args,
            &[
                "pattern",
                "literal",
                "path",
                "case_insensitive",
                "max_results",
            ],
        )?;
        let pattern = args.required_str("pattern")?;
        if pattern.is_empty() {
            return Err(ArgumentError::invalid("pattern", "the pattern is empty"));
        }
        let literal = args.bool_or("literal", false)?;
        let case_insensitive = args.bool_or("case_insensitive", false)?;
        check_pattern(pattern, literal, case_insensitive).map_err(|e| {
            let hint = if literal {
                ""
            } else {
                "; set literal: true to search for the text as is"
            };
            ArgumentError::invalid("pattern", format!("{e}{hint}"))
        })?;
        let (_abs, rel) = args.existing_path("path", Some("."), ws)?;
        let max_results = args.uint_or("max_results", DEFAULT_MAX_RESULTS, 1, MAX_RESULTS)?;
        let shown = if literal {
            format!("{pattern:?}")
        } else {
            format!("/{pattern}/")
        };
        let summary = format!("search {rel} for {shown}");
        let normalised = SearchArgs {
            pattern: pattern.to_owned(),
            literal,
            path: rel,
            case_insensitive,
            max_results,
        };
        Ok(PreparedCall::read_only(
            self.spec.name.clone(),
            summary,
            json!(normalised),
        ))
    }
}

impl WorkspaceTool for SearchText {
    fn execute(
        &self,
        call: &AuthorizedCall,
        ws: &WorkspaceRoot,
        cancel: &CancellationToken,
    ) -> Result<ToolOutput, ToolError> {
        let args: SearchArgs = own_args(&self.spec, call)?;
        let start = ws.resolve_existing(&args.path)?;
        let opts = SearchOptions {
            root: ws.path().to_path_buf(),
            start,
            pattern: args.pattern.clone(),
            literal: args.literal,
            case_insensitive: args.case_insensitive,
            max_results: Some(usize::try_from(args.max_results).unwrap_or(usize::MAX)),
            max_line_bytes: MAX_LINE_BYTES,
            threads: 0,
        };
        let report = search(&opts, cancel).map_err(|e| match e {
            SearchError::Cancelled => ToolError::Cancelled,
            SearchError::InvalidPattern(reason) => ToolError::bad_call(reason),
        })?;
        Ok(ToolOutput::new(render(&args, &report)))
    }
}

fn render(args: &SearchArgs, report: &SearchReport) -> String {
    let mut out = report.output.clone();
    if report.matches == 0 {
        let what = if args.literal { "text" } else { "pattern" };
        out.push_str(&format!(
            "[no matches for {what} {:?} in {}]",
            args.pattern, args.path
        ));
    } else if report.capped {
        out.push_str(&format!(
            "[results capped at {}, sorted by path then line; more may exist: narrow the pattern or path, \
             or raise max_results (up to {MAX_RESULTS})]",
            plural(report.matches as u64, "match", "matches"),
        ));
    } else {
        out.push_str(&format!(
            "[{} in {}]",
            plural(report.matches as u64, "match", "matches"),
            plural(report.files as u64, "file", "files")
        ));
    }
    if report.unreadable > 0 {
        out.push_str(&format!(
            "\n[{} could not be read]",
            plural(report.unreadable, "path", "paths")
        ));
    }
    out
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
