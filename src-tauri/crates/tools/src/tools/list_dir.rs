//! `list_dir`: a deterministic, ignore-aware listing of a directory tree.

use super::common::{make_spec, own_args};
use super::walk::rg_walker;
use crate::args::Args;
use crate::authorization::AuthorizedCall;
use crate::error::{ArgumentError, ToolError};
use crate::spec::{Effect, PreparedCall, Tool, ToolOutput, ToolSpec, WorkspaceTool};
use crate::text::plural;
use crate::workspace::WorkspaceRoot;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use tokio_util::sync::CancellationToken;

pub const NAME: &str = "list_dir";
const DEFAULT_DEPTH: u64 = 2;
const MAX_DEPTH: u64 = 8;
const DEFAULT_MAX_ENTRIES: u64 = 500;
const MAX_ENTRIES: u64 = 5000;

#[derive(Debug, Serialize, Deserialize)]
struct ListArgs {
    path: String,
    depth: u64,
    max_entries: u64,
}

pub struct ListDir {
    spec: ToolSpec,
}

impl ListDir {
    pub fn new() -> Self {
        let parameters = json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Directory to list, relative to the workspace root. Default \".\"."},
                "depth": {"type": "integer", "minimum": 1, "maximum": MAX_DEPTH, "description": "How many levels deep to list (1 = direct children only). Default 2."},
                "max_entries": {"type": "integer", "minimum": 1, "maximum": MAX_ENTRIES, "description": "Stop after this many entries. Default 500."}
            },
            "additionalProperties": false
        });
        Self {
            spec: make_spec(
                NAME,
                "List files and directories under a workspace directory, one workspace-relative path per line, sorted. \
                 Directories end with '/', symlinks with '@' (not followed). Honours .gitignore and .ignore files; \
                 hidden files are shown, .git is not.",
                parameters,
                Effect::ReadOnly,
            ),
        }
    }
}

impl Tool for ListDir {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn prepare(
        &self,
        args: &Map<String, Value>,
        ws: &WorkspaceRoot,
    ) -> Result<PreparedCall, ArgumentError> {
        let args = Args::new(args, &["path", "depth", "max_entries"])?;
        let (abs, rel) = args.existing_path("path", Some("."), ws)?;
        if !abs.is_dir() {
            return Err(ArgumentError::invalid(
                "path",
                format!("{rel} is a file, not a directory; use read_file to read it"),
            ));
        }
        let depth = args.uint_or("depth", DEFAULT_DEPTH, 1, MAX_DEPTH)?;
        let max_entries = args.uint_or("max_entries", DEFAULT_MAX_ENTRIES, 1, MAX_ENTRIES)?;
        let normalised = ListArgs {
            path: rel.clone(),
            depth,
            max_entries,
        };
        Ok(PreparedCall::read_only(
            self.spec.name.clone(),
            format!("list {rel} (depth {depth})"),
            json!(normalised),
        ))
    }
}

impl WorkspaceTool for ListDir {
    fn execute(
        &self,
        call: &AuthorizedCall,
        ws: &WorkspaceRoot,
        cancel: &CancellationToken,
    ) -> Result<ToolOutput, ToolError> {
        let args: ListArgs = own_args(&self.spec, call)?;
        let abs = ws.resolve_existing(&args.path)?;
        if !abs.is_dir() {
            return Err(ToolError::NotADirectory { path: args.path });
        }
        let limit = usize::try_from(args.max_entries).unwrap_or(usize::MAX);
        let depth = usize::try_from(args.depth).unwrap_or(usize::MAX);

        let mut builder = rg_walker(&abs);
        builder
            .hidden(false)
            .max_depth(Some(depth))
            .filter_entry(|entry| entry.file_name() != ".git")
            .sort_by_file_name(|a, b| a.cmp(b));

        let mut lines = Vec::new();
        let mut cut = false;
        let mut unreadable = 0u64;
        for result in builder.build() {
            if cancel.is_cancelled() {
                return Err(ToolError::Cancelled);
            }
            let entry = match result {
                Ok(entry) => entry,
                Err(_) => {
                    unreadable += 1;
                    continue;
                }
            };
            if entry.depth() == 0 {
                continue;
            }
            if lines.len() == limit {
                cut = true;
                break;
            }
            let suffix = match entry.file_type() {
                Some(t) if t.is_dir() => "/",
                Some(t) if t.is_symlink() => "@",
                _ => "",
            };
            lines.push(format!("{}{suffix}", ws.relative(entry.path())));
        }

        let mut out = if lines.is_empty() {
            format!("[{} is empty (or everything in it is ignored)]", args.path)
        } else {
            lines.join("\n")
        };
        if cut {
            out.push_str(&format!(
                "\n[listing cut at {}; list a subdirectory or lower depth to see more]",
                entries(args.max_entries)
            ));
        }
        if unreadable > 0 {
            out.push_str(&format!("\n[{} could not be read]", entries(unreadable)));
        }
        Ok(ToolOutput::new(out))
    }
}

fn entries(n: u64) -> String {
    plural(n, "entry", "entries")
}

#[cfg(test)]
#[path = "list_dir_tests.rs"]
mod tests;
