use super::*;
use crate::testutil::{obj, put, workspace};
use std::fs;

fn list(ws: &WorkspaceRoot, args: Value) -> Result<String, ToolError> {
    let tool = ListDir::new();
    let call = tool.prepare(&obj(args), ws).unwrap();
    tool.execute(
        &crate::testutil::authorized(call.clone()),
        ws,
        &CancellationToken::new(),
    )
    .map(|o| o.content)
}

fn tree() -> (tempfile::TempDir, WorkspaceRoot) {
    let (dir, ws) = workspace();
    let root = dir.path();
    put(root, "b.txt", "b");
    put(root, "a/z.rs", "z");
    put(root, "a/deep/er/x.rs", "x");
    put(root, ".hidden", "h");
    put(root, ".git/config", "c");
    put(root, ".ignore", "ignored.log\n");
    put(root, "ignored.log", "i");
    (dir, ws)
}

#[test]
fn lists_sorted_with_dirs_marked_and_ignores_honoured() {
    let (_dir, ws) = tree();
    let out = list(&ws, json!({})).unwrap();
    assert_eq!(
        out, ".hidden\n.ignore\na/\na/deep/\na/z.rs\nb.txt",
        "hidden files shown, .git and ignored files not, depth 2"
    );
}

#[test]
fn depth_and_subdirectory() {
    let (_dir, ws) = tree();
    assert_eq!(
        list(&ws, json!({"path": "a", "depth": 1})).unwrap(),
        "a/deep/\na/z.rs"
    );
    assert_eq!(
        list(&ws, json!({"path": "./a/", "depth": 8})).unwrap(),
        "a/deep/\na/deep/er/\na/deep/er/x.rs\na/z.rs"
    );
}

#[test]
fn gitignore_is_honoured_inside_a_git_repository() {
    let (dir, ws) = tree();
    put(dir.path(), ".gitignore", "target/\n");
    put(dir.path(), "target/out.bin", "o");
    let out = list(&ws, json!({"depth": 1})).unwrap();
    assert!(!out.contains("target"), "{out}");
    assert!(out.contains(".gitignore"));
}

#[test]
fn gitignore_and_bearagentignore_apply_outside_a_git_repository_too() {
    let (dir, ws) = workspace();
    put(dir.path(), ".gitignore", "build/\n");
    put(dir.path(), ".bearagentignore", "secret.env\n");
    put(dir.path(), "build/out.o", "o");
    put(dir.path(), "secret.env", "k");
    put(dir.path(), "main.rs", "m");
    let out = list(&ws, json!({})).unwrap();
    assert_eq!(out, ".bearagentignore\n.gitignore\nmain.rs", "{out}");
}

#[test]
fn says_when_the_entry_limit_cut_the_listing() {
    let (_dir, ws) = tree();
    let out = list(&ws, json!({"max_entries": 2})).unwrap();
    assert_eq!(
        out,
        ".hidden\n.ignore\n[listing cut at 2 entries; list a subdirectory or lower depth to see more]"
    );
}

#[test]
fn empty_directory_is_stated() {
    let (dir, ws) = workspace();
    fs::create_dir(dir.path().join("empty")).unwrap();
    let out = list(&ws, json!({"path": "empty"})).unwrap();
    assert_eq!(out, "[empty is empty (or everything in it is ignored)]");
}

#[test]
fn arguments_are_checked() {
    let (dir, ws) = tree();
    let tool = ListDir::new();
    let err = |args: Value| tool.prepare(&obj(args), &ws).unwrap_err();
    assert!(matches!(
        err(json!({"depth": 9})),
        ArgumentError::OutOfRange { .. }
    ));
    assert!(matches!(
        err(json!({"depth": 0})),
        ArgumentError::OutOfRange { .. }
    ));
    assert!(matches!(
        err(json!({"max_entries": 5001})),
        ArgumentError::OutOfRange { .. }
    ));
    assert!(matches!(
        err(json!({"recursive": true})),
        ArgumentError::Unknown { .. }
    ));
    assert!(matches!(
        err(json!({"path": 3})),
        ArgumentError::WrongType { .. }
    ));
    assert!(matches!(
        err(json!({"path": "b.txt"})),
        ArgumentError::Invalid { .. }
    ));
    assert!(matches!(
        err(json!({"path": "../"})),
        ArgumentError::Path { .. }
    ));
    assert!(matches!(
        err(json!({"path": "/"})),
        ArgumentError::Path { .. }
    ));
    let call = tool
        .prepare(&obj(json!({"path": dir.path().join("a").to_str()})), &ws)
        .unwrap();
    assert_eq!(
        *call.args(),
        json!({"path": "a", "depth": 2, "max_entries": 500})
    );
    assert_eq!(call.summary(), "list a (depth 2)");
    assert_eq!(call.effect(), Effect::ReadOnly);
    assert!(call.write_target().is_none());
}

#[cfg(unix)]
#[test]
fn symlinks_are_marked_and_not_followed() {
    let (dir, ws) = workspace();
    let outside = tempfile::tempdir().unwrap();
    put(outside.path(), "secret.txt", "s");
    std::os::unix::fs::symlink(outside.path(), dir.path().join("out")).unwrap();
    let out = list(&ws, json!({"depth": 3})).unwrap();
    assert_eq!(out, "out@");
}

#[test]
fn cancelled_listing_stops() {
    let (_dir, ws) = tree();
    let tool = ListDir::new();
    let call = tool.prepare(&obj(json!({})), &ws).unwrap();
    let cancel = CancellationToken::new();
    cancel.cancel();
    assert_eq!(
        tool.execute(&crate::testutil::authorized(call.clone()), &ws, &cancel),
        Err(ToolError::Cancelled)
    );
}
