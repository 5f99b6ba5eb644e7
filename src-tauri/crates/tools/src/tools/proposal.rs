//! What a pending write would make of its file, computed with the tool's
//! own preparation and edit logic, so the approval prompt (and card) can
//! show the diff before anything is written.

use super::{edit_file, write_file};
use crate::error::{ArgumentError, ToolError};
use crate::spec::{PreparedCall, Tool};
use crate::workspace::WorkspaceRoot;
use serde_json::{Map, Value};

/// A file's current content and what the call would write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProposedWrite {
    /// Workspace-relative, as the tool normalised it.
    pub path: String,
    /// `None` for a file that does not exist yet.
    pub before: Option<Vec<u8>>,
    pub after: Vec<u8>,
}

/// Why no preview could be made (the call itself would fail the same way).
#[derive(Debug, thiserror::Error)]
pub enum ProposalError {
    #[error(transparent)]
    Arguments(#[from] ArgumentError),
    #[error(transparent)]
    Tool(#[from] ToolError),
}

/// The write `tool` would do with `args` now: `None` for a tool that does
/// not write a workspace file (reads, commands, MCP tools).
pub fn proposed_write(
    tool: &str,
    args: &Map<String, Value>,
    ws: &WorkspaceRoot,
) -> Result<Option<ProposedWrite>, ProposalError> {
    let prepared = match tool {
        write_file::NAME => write_file::WriteFile::new().prepare(args, ws)?,
        edit_file::NAME => edit_file::EditFile::new().prepare(args, ws)?,
        _ => return Ok(None),
    };
    let Some(target) = prepared.write_target() else {
        return Ok(None);
    };
    let path = target.rel_path.clone();
    let before = match std::fs::read(&target.abs_path) {
        Ok(bytes) => Some(bytes),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(ToolError::io(&path, &e).into()),
    };
    let after = after_bytes(tool, &prepared, &path, before.as_deref())?;
    Ok(Some(ProposedWrite {
        path,
        before,
        after,
    }))
}

fn after_bytes(
    tool: &str,
    prepared: &PreparedCall,
    path: &str,
    before: Option<&[u8]>,
) -> Result<Vec<u8>, ToolError> {
    if tool == write_file::NAME {
        let content = prepared
            .args()
            .get("content")
            .and_then(Value::as_str)
            .ok_or_else(|| ToolError::bad_call("write_file without content"))?;
        return Ok(content.as_bytes().to_vec());
    }
    let text = std::str::from_utf8(before.unwrap_or_default())
        .map_err(|_| ToolError::InvalidUtf8 { path: path.into() })?;
    Ok(edit_file::edited_text(prepared, text)?.into_bytes())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ws_with(file: &str, content: &str) -> (tempfile::TempDir, WorkspaceRoot) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(file), content).unwrap();
        let ws = WorkspaceRoot::new(dir.path()).unwrap();
        (dir, ws)
    }

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn an_edit_previews_the_file_it_would_write_and_writes_nothing() {
        let (dir, ws) = ws_with("calc.py", "def add(a, b):\n    return a - b\n");
        let args =
            json!({"path": "calc.py", "old_string": "return a - b", "new_string": "return a + b"});
        let p = proposed_write("edit_file", &obj(args), &ws)
            .unwrap()
            .unwrap();
        assert_eq!(p.path, "calc.py");
        assert_eq!(p.after, b"def add(a, b):\n    return a + b\n");
        assert_eq!(
            p.before.as_deref(),
            Some(&b"def add(a, b):\n    return a - b\n"[..])
        );
        let on_disk = std::fs::read_to_string(dir.path().join("calc.py")).unwrap();
        assert!(on_disk.contains("a - b"));
    }

    #[test]
    fn a_new_file_has_no_before_and_reads_or_commands_have_no_preview() {
        let (_dir, ws) = ws_with("a.txt", "x");
        let args = json!({"path": "new/b.txt", "content": "hello\n"});
        let p = proposed_write("write_file", &obj(args), &ws)
            .unwrap()
            .unwrap();
        assert_eq!((p.before, p.after), (None, b"hello\n".to_vec()));
        let read = json!({"path": "a.txt"});
        assert!(proposed_write("read_file", &obj(read), &ws)
            .unwrap()
            .is_none());
    }

    #[test]
    fn an_edit_that_would_fail_says_why_and_a_path_outside_is_refused() {
        let (_dir, ws) = ws_with("calc.py", "x = 1\nx = 1\n");
        let twice = json!({"path": "calc.py", "old_string": "x = 1", "new_string": "x = 2"});
        let err = proposed_write("edit_file", &obj(twice), &ws).unwrap_err();
        assert!(err.to_string().contains("2"), "{err}");
        let outside = json!({"path": "../etc/passwd", "content": "x"});
        assert!(proposed_write("write_file", &obj(outside), &ws).is_err());
    }
}
