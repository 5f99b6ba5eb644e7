//! Helpers shared by the unit tests.

use crate::workspace::WorkspaceRoot;
use serde_json::{Map, Value};
use std::fs;
use std::path::Path;
use tempfile::TempDir;

/// A fresh workspace in a temporary directory.
pub(crate) fn workspace() -> (TempDir, WorkspaceRoot) {
    let dir = tempfile::tempdir().unwrap();
    let ws = WorkspaceRoot::new(dir.path()).unwrap();
    (dir, ws)
}

/// Write `content` to `rel` under `root`, creating parent directories.
pub(crate) fn put(root: &Path, rel: &str, content: &str) {
    let path = root.join(rel);
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).unwrap();
    }
    fs::write(path, content).unwrap();
}

/// The object inside a `json!({...})` literal.
pub(crate) fn obj(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("expected an object, got {other}"),
    }
}

/// Authorises a prepared call without the policy: only for tests of a
/// tool's own checks (the policy has tests of its own).
pub(crate) fn authorized(call: crate::PreparedCall) -> crate::AuthorizedCall {
    crate::AuthorizedCall::unchecked_for_test(call)
}
