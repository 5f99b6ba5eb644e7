//! `edit_file`: change part of an existing text file, either by replacing one
//! exact, unique occurrence of `old_string` with `new_string`, or by applying
//! a unified diff. The file is replaced atomically.

use super::common::{checked_target, make_spec, own_args};
use crate::args::Args;
use crate::atomic::write_atomic;
use crate::authorization::AuthorizedCall;
use crate::error::{ArgumentError, ToolError};
use crate::spec::{Effect, PreparedCall, Tool, ToolOutput, ToolSpec, WorkspaceTool, WriteTarget};
use crate::text::{human_bytes, plural};
use crate::workspace::{PathError, WorkspaceRoot};
use diffy::{Line, Patch};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::path::Path;
use tokio_util::sync::CancellationToken;

pub const NAME: &str = "edit_file";

#[derive(Debug, Serialize, Deserialize)]
struct EditArgs<'a> {
    path: &'a str,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    old_string: Option<&'a str>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    new_string: Option<&'a str>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    diff: Option<&'a str>,
}

pub struct EditFile {
    spec: ToolSpec,
}

impl EditFile {
    pub fn new() -> Self {
        let parameters = json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Existing file to edit, relative to the workspace root."},
                "old_string": {"type": "string", "description": "Exact text to replace; must occur exactly once in the file. Use with new_string."},
                "new_string": {"type": "string", "description": "Replacement for old_string."},
                "diff": {"type": "string", "description": "A unified diff of this one file (hunks starting with @@), instead of old_string/new_string. File names in ---/+++ lines are ignored."}
            },
            "required": ["path"],
            "additionalProperties": false
        });
        Self {
            spec: make_spec(
                NAME,
                "Edit an existing text file. Either give old_string and new_string (old_string must occur exactly once; \
                 include surrounding lines to make it unique), or give diff: a unified diff against the current content.",
                parameters,
                Effect::Writes,
            ),
        }
    }
}

impl Tool for EditFile {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn prepare(
        &self,
        args: &Map<String, Value>,
        ws: &WorkspaceRoot,
    ) -> Result<PreparedCall, ArgumentError> {
        let args = Args::new(args, &["path", "old_string", "new_string", "diff"])?;
        let exact = exact_or_diff(&args)?;
        let (abs, rel) = args.write_path("path", ws)?;
        require_file(&abs, &rel)?;
        let (normalised, summary) = if exact {
            exact_edit(&args, &rel)?
        } else {
            diff_edit(&args, &rel)?
        };
        Ok(PreparedCall::writes(
            self.spec.name.clone(),
            summary,
            WriteTarget {
                rel_path: rel,
                abs_path: abs,
            },
            normalised,
        ))
    }
}

impl WorkspaceTool for EditFile {
    fn execute(
        &self,
        call: &AuthorizedCall,
        ws: &WorkspaceRoot,
        cancel: &CancellationToken,
    ) -> Result<ToolOutput, ToolError> {
        let args: EditArgs<'_> = own_args(&self.spec, call)?;
        let target = checked_target(call, ws)?;
        let path = target.rel_path.as_str();
        if args.path != path {
            return Err(ToolError::bad_call("path and write target disagree"));
        }
        let bytes = std::fs::read(&target.abs_path).map_err(|e| ToolError::io(path, &e))?;
        let text =
            String::from_utf8(bytes).map_err(|_| ToolError::InvalidUtf8 { path: path.into() })?;

        let (updated, what) = edited(&text, path, &args)?;
        write_atomic(&target.abs_path, path, updated.as_bytes(), cancel)?;
        Ok(ToolOutput::new(format!(
            "edited {path}: {what}; the file is now {} ({})",
            human_bytes(updated.len() as u64),
            plural(updated.lines().count() as u64, "line", "lines")
        )))
    }
}

/// The file's text after the edit `args` describes, and what was done
/// ("replaced 1 occurrence", "applied diff (…)"). Shared by the tool and
/// by the approval's preview, so what is shown is what would be written.
fn edited(text: &str, path: &str, args: &EditArgs<'_>) -> Result<(String, String), ToolError> {
    match (args.old_string, args.new_string, args.diff) {
        (Some(old), Some(new), None) => match text.matches(old).count() {
            0 => Err(ToolError::NoMatch { path: path.into() }),
            1 => Ok((
                text.replacen(old, new, 1),
                "replaced 1 occurrence".to_owned(),
            )),
            count => Err(ToolError::MultipleMatches {
                path: path.into(),
                count,
            }),
        },
        (None, None, Some(diff)) => {
            let patch = Patch::from_str(diff)
                .map_err(|e| ToolError::bad_call(format!("diff no longer parses: {e}")))?;
            let updated = diffy::apply(text, &patch).map_err(|e| ToolError::DiffDoesNotApply {
                path: path.into(),
                reason: e.to_string(),
            })?;
            Ok((updated, format!("applied diff ({})", diff_stats(&patch))))
        }
        _ => Err(ToolError::bad_call(
            "expected old_string/new_string or diff",
        )),
    }
}

/// What the prepared edit `call` would make of its file's current text.
pub(crate) fn edited_text(call: &PreparedCall, text: &str) -> Result<String, ToolError> {
    let args =
        EditArgs::deserialize(call.args()).map_err(|e| ToolError::bad_call(e.to_string()))?;
    Ok(edited(text, args.path, &args)?.0)
}

/// True for an exact replacement (`old_string`/`new_string`), false for a
/// diff; giving both kinds, or neither, is an error.
fn exact_or_diff(args: &Args<'_>) -> Result<bool, ArgumentError> {
    let exact = args.has("old_string") || args.has("new_string");
    if exact && args.has("diff") {
        return Err(ArgumentError::invalid(
            "diff",
            "give either old_string and new_string, or diff, not both",
        ));
    }
    if !exact && !args.has("diff") {
        return Err(ArgumentError::Missing {
            name: "old_string and new_string (or diff)".into(),
        });
    }
    Ok(exact)
}

/// Only an existing file can be edited (not a folder, not a new file).
fn require_file(abs: &Path, rel: &str) -> Result<(), ArgumentError> {
    match std::fs::metadata(abs) {
        Ok(meta) if meta.is_dir() => Err(ArgumentError::invalid(
            "path",
            format!("{rel} is a directory"),
        )),
        Ok(_) => Ok(()),
        Err(_) => Err(ArgumentError::path(
            "path",
            PathError::NotFound { path: rel.into() },
        )),
    }
}

/// The normalised arguments and summary of a replacement that would change
/// something.
fn exact_edit(args: &Args<'_>, rel: &str) -> Result<(Value, String), ArgumentError> {
    let old = args.required_str("old_string")?;
    let new = args.required_str("new_string")?;
    if old.is_empty() {
        return Err(ArgumentError::invalid(
            "old_string",
            "old_string is empty; to create or replace a whole file use write_file",
        ));
    }
    if old == new {
        return Err(ArgumentError::invalid(
            "new_string",
            "new_string is identical to old_string; nothing would change",
        ));
    }
    let summary = format!(
        "edit {rel}: replace {} with {}",
        describe(old),
        describe(new)
    );
    let args = EditArgs {
        path: rel,
        old_string: Some(old),
        new_string: Some(new),
        diff: None,
    };
    Ok((json!(args), summary))
}

/// The normalised arguments and summary of a diff that parses.
fn diff_edit(args: &Args<'_>, rel: &str) -> Result<(Value, String), ArgumentError> {
    let diff = args.required_str("diff")?;
    let patch = parse_diff(diff)?;
    let args = EditArgs {
        path: rel,
        old_string: None,
        new_string: None,
        diff: Some(diff),
    };
    Ok((
        json!(args),
        format!("edit {rel}: apply diff ({})", diff_stats(&patch)),
    ))
}

fn parse_diff(diff: &str) -> Result<Patch<'_, str>, ArgumentError> {
    let patch = Patch::from_str(diff).map_err(|e| {
        ArgumentError::invalid(
            "diff",
            format!("not a valid unified diff ({e}); hunk headers must look like '@@ -12,3 +12,4 @@' and their line counts must match"),
        )
    })?;
    if patch.hunks().is_empty() {
        return Err(ArgumentError::invalid(
            "diff",
            "the diff has no hunks ('@@ ... @@' sections)",
        ));
    }
    Ok(patch)
}

/// `2 hunks, +5 -3`.
fn diff_stats(patch: &Patch<'_, str>) -> String {
    let (mut added, mut removed) = (0u64, 0u64);
    for hunk in patch.hunks() {
        for line in hunk.lines() {
            match line {
                Line::Insert(_) => added += 1,
                Line::Delete(_) => removed += 1,
                Line::Context(_) => {}
            }
        }
    }
    let hunks = plural(patch.hunks().len() as u64, "hunk", "hunks");
    format!("{hunks}, +{added} -{removed}")
}

/// `3 lines (120 bytes)` or `12 bytes` for a part of one line.
fn describe(s: &str) -> String {
    let lines = s.lines().count().max(1) as u64;
    if lines == 1 {
        human_bytes(s.len() as u64)
    } else {
        format!(
            "{} ({})",
            plural(lines, "line", "lines"),
            human_bytes(s.len() as u64)
        )
    }
}

#[cfg(test)]
#[path = "edit_file_tests.rs"]
mod tests;
