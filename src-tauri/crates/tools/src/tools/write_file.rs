//! `write_file`: create or overwrite one file, atomically.

use super::common::{checked_target, make_spec, own_args};
use crate::args::Args;
use crate::atomic::write_atomic;
use crate::authorization::AuthorizedCall;
use crate::error::{ArgumentError, ToolError};
use crate::spec::{Effect, PreparedCall, Tool, ToolOutput, ToolSpec, WorkspaceTool, WriteTarget};
use crate::text::human_bytes;
use crate::workspace::{PathError, WorkspaceRoot};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::path::Path;
use tokio_util::sync::CancellationToken;

pub const NAME: &str = "write_file";

#[derive(Debug, Serialize, Deserialize)]
struct WriteArgs<'a> {
    path: &'a str,
    content: &'a str,
}

pub struct WriteFile {
    spec: ToolSpec,
}

impl WriteFile {
    pub fn new() -> Self {
        let parameters = json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "File to write, relative to the workspace root. Parent directories are created."},
                "content": {"type": "string", "description": "The complete new content of the file."}
            },
            "required": ["path", "content"],
            "additionalProperties": false
        });
        Self {
            spec: make_spec(
                NAME,
                "Create a file or replace its whole content. Parent directories are created. \
                 To change part of an existing file, prefer edit_file.",
                parameters,
                Effect::Writes,
            ),
        }
    }
}

/// Whether `abs` exists as a file (`true`) or is absent (`false`); a
/// directory is an argument error.
pub(crate) fn existing_file(abs: &Path, rel: &str) -> Result<bool, ArgumentError> {
    match std::fs::metadata(abs) {
        Ok(meta) if meta.is_dir() => Err(ArgumentError::invalid(
            "path",
            format!("{rel} is a directory; give the path of a file"),
        )),
        Ok(_) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(ArgumentError::path(
            "path",
            PathError::Io {
                path: rel.into(),
                message: e.to_string(),
            },
        )),
    }
}

impl Tool for WriteFile {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn prepare(
        &self,
        args: &Map<String, Value>,
        ws: &WorkspaceRoot,
    ) -> Result<PreparedCall, ArgumentError> {
        let args = Args::new(args, &["path", "content"])?;
        let (abs, rel) = args.write_path("path", ws)?;
        let content = args.required_str("content")?;
        let exists = existing_file(&abs, &rel)?;
        let summary = format!(
            "write {} to {rel} ({})",
            human_bytes(content.len() as u64),
            if exists { "overwrite" } else { "new file" }
        );
        let normalised = WriteArgs {
            path: &rel,
            content,
        };
        Ok(PreparedCall::writes(
            self.spec.name.clone(),
            summary,
            WriteTarget {
                rel_path: rel.clone(),
                abs_path: abs,
            },
            json!(normalised),
        ))
    }
}

impl WorkspaceTool for WriteFile {
    fn execute(
        &self,
        call: &AuthorizedCall,
        ws: &WorkspaceRoot,
        cancel: &CancellationToken,
    ) -> Result<ToolOutput, ToolError> {
        let args: WriteArgs<'_> = own_args(&self.spec, call)?;
        let target = checked_target(call, ws)?;
        if args.path != target.rel_path {
            return Err(ToolError::bad_call("path and write target disagree"));
        }
        let existed = target.abs_path.exists();
        write_atomic(
            &target.abs_path,
            &target.rel_path,
            args.content.as_bytes(),
            cancel,
        )?;
        Ok(ToolOutput::new(format!(
            "wrote {} to {} ({})",
            human_bytes(args.content.len() as u64),
            target.rel_path,
            if existed {
                "overwrote the previous content"
            } else {
                "new file"
            }
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{obj, put, workspace};
    use std::fs;

    fn prepare(ws: &WorkspaceRoot, args: Value) -> Result<PreparedCall, ArgumentError> {
        WriteFile::new().prepare(&obj(args), ws)
    }

    fn exec(ws: &WorkspaceRoot, call: &PreparedCall) -> Result<String, ToolError> {
        WriteFile::new()
            .execute(
                &crate::testutil::authorized(call.clone()),
                ws,
                &CancellationToken::new(),
            )
            .map(|o| o.content)
    }

    #[test]
    fn creates_a_new_file_with_parents() {
        let (dir, ws) = workspace();
        let call = prepare(
            &ws,
            json!({"path": "notes/deep/a.md", "content": "hello world!"}),
        )
        .unwrap();
        assert_eq!(
            call.summary(),
            "write 12 bytes to notes/deep/a.md (new file)"
        );
        assert_eq!(call.effect(), Effect::Writes);
        let target = call.write_target().cloned().unwrap();
        assert_eq!(target.rel_path, "notes/deep/a.md");
        assert_eq!(target.abs_path, ws.path().join("notes/deep/a.md"));
        assert!(
            !dir.path().join("notes").exists(),
            "prepare must not touch the disk"
        );
        assert_eq!(
            exec(&ws, &call).unwrap(),
            "wrote 12 bytes to notes/deep/a.md (new file)"
        );
        assert_eq!(
            fs::read_to_string(dir.path().join("notes/deep/a.md")).unwrap(),
            "hello world!"
        );
    }

    #[test]
    fn overwrites_atomically_without_leftovers() {
        let (dir, ws) = workspace();
        put(dir.path(), "a.md", "old");
        let content = "x".repeat(1229);
        let call = prepare(&ws, json!({"path": "./a.md", "content": content})).unwrap();
        assert_eq!(call.summary(), "write 1.2 KB to a.md (overwrite)");
        exec(&ws, &call).unwrap();
        assert_eq!(
            fs::read_to_string(dir.path().join("a.md")).unwrap(),
            content
        );
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["a.md"]);
    }

    #[test]
    fn refusals() {
        let (dir, ws) = workspace();
        fs::create_dir_all(dir.path().join(".git")).unwrap();
        fs::create_dir_all(dir.path().join("d")).unwrap();
        let path_err =
            |path: &str| prepare(&ws, json!({"path": path, "content": "x"})).unwrap_err();
        for bad in [".git/config", "../x", "/etc/x", "", "a\0b"] {
            assert!(matches!(path_err(bad), ArgumentError::Path { .. }), "{bad}");
        }
        assert!(path_err(".git/hooks/pre-commit")
            .to_string()
            .contains("inside .git"));
        assert!(matches!(path_err("d"), ArgumentError::Invalid { .. }));
        let err = prepare(&ws, json!({"path": "a", "content": "x", "mode": "0755"})).unwrap_err();
        assert!(matches!(err, ArgumentError::Unknown { .. }));
        let err = prepare(&ws, json!({"path": "a"})).unwrap_err();
        assert!(matches!(err, ArgumentError::Missing { .. }));
        let err = prepare(&ws, json!({"path": "a", "content": ["x"]})).unwrap_err();
        assert!(matches!(err, ArgumentError::WrongType { .. }));
    }

    #[cfg(unix)]
    #[test]
    fn a_parent_swapped_for_an_outside_symlink_after_prepare_is_refused() {
        let (dir, ws) = workspace();
        let outside = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("out")).unwrap();
        let call = prepare(&ws, json!({"path": "out/a.txt", "content": "x"})).unwrap();
        fs::remove_dir(dir.path().join("out")).unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("out")).unwrap();
        let err = exec(&ws, &call).unwrap_err();
        assert!(
            matches!(err, ToolError::Path(PathError::SymlinkOutside { .. })),
            "{err:?}"
        );
        assert!(!outside.path().join("a.txt").exists());
    }

    #[test]
    fn a_call_prepared_for_another_tool_is_refused() {
        let (_dir, ws) = workspace();
        let call = prepare(&ws, json!({"path": "a", "content": "x"}))
            .unwrap()
            .forged(
                Some(bearagent_kernel::ToolName::new("edit_file").unwrap()),
                None,
                false,
            );
        assert!(matches!(exec(&ws, &call), Err(ToolError::BadCall { .. })));
    }
}
