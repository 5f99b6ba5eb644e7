use super::*;
use crate::testutil::{obj, put, workspace};
use std::fs;

fn prepare(ws: &WorkspaceRoot, args: Value) -> Result<PreparedCall, ArgumentError> {
    EditFile::new().prepare(&obj(args), ws)
}

fn edit(ws: &WorkspaceRoot, args: Value) -> Result<String, ToolError> {
    let call = prepare(ws, args).unwrap();
    EditFile::new()
        .execute(
            &crate::testutil::authorized(call.clone()),
            ws,
            &CancellationToken::new(),
        )
        .map(|o| o.content)
}

const TEXT: &str = "fn main() {\n    println!(\"hi\");\n}\n\nfn other() {}\n";

#[test]
fn replaces_a_unique_occurrence() {
    let (dir, ws) = workspace();
    put(dir.path(), "src/main.rs", TEXT);
    let call = prepare(
        &ws,
        json!({"path": "src/main.rs", "old_string": "\"hi\"", "new_string": "\"hello\""}),
    )
    .unwrap();
    assert_eq!(
        call.summary(),
        "edit src/main.rs: replace 4 bytes with 7 bytes"
    );
    assert_eq!(call.write_target().unwrap().rel_path, "src/main.rs");
    let out = EditFile::new()
        .execute(
            &crate::testutil::authorized(call.clone()),
            &ws,
            &CancellationToken::new(),
        )
        .unwrap()
        .content;
    assert_eq!(
        out,
        "edited src/main.rs: replaced 1 occurrence; the file is now 52 bytes (5 lines)"
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("src/main.rs")).unwrap(),
        TEXT.replace("\"hi\"", "\"hello\"")
    );
}

#[test]
fn zero_or_several_matches_are_errors_naming_the_count() {
    let (dir, ws) = workspace();
    put(dir.path(), "a.rs", TEXT);
    let err = edit(
        &ws,
        json!({"path": "a.rs", "old_string": "nope", "new_string": "x"}),
    )
    .unwrap_err();
    assert!(
        err.to_string().starts_with("old_string not found in a.rs"),
        "{err}"
    );
    let err = edit(
        &ws,
        json!({"path": "a.rs", "old_string": "fn ", "new_string": "pub fn "}),
    )
    .unwrap_err();
    assert_eq!(
        err,
        ToolError::MultipleMatches {
            path: "a.rs".into(),
            count: 2
        }
    );
    assert!(err.to_string().contains("occurs 2 times"));
    assert!(err.to_string().contains("include more context"));
    assert_eq!(fs::read_to_string(dir.path().join("a.rs")).unwrap(), TEXT);
}

#[test]
fn applies_a_unified_diff() {
    let (dir, ws) = workspace();
    put(dir.path(), "a.rs", TEXT);
    let diff = "--- a/a.rs\n+++ b/a.rs\n@@ -1,3 +1,4 @@\n fn main() {\n-    println!(\"hi\");\n+    let x = 1;\n+    println!(\"{x}\");\n }\n";
    let call = prepare(&ws, json!({"path": "a.rs", "diff": diff})).unwrap();
    assert_eq!(call.summary(), "edit a.rs: apply diff (1 hunk, +2 -1)");
    assert_eq!(*call.args(), json!({"path": "a.rs", "diff": diff}));
    let out = EditFile::new()
        .execute(
            &crate::testutil::authorized(call.clone()),
            &ws,
            &CancellationToken::new(),
        )
        .unwrap()
        .content;
    assert!(
        out.starts_with("edited a.rs: applied diff (1 hunk, +2 -1)"),
        "{out}"
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("a.rs")).unwrap(),
        "fn main() {\n    let x = 1;\n    println!(\"{x}\");\n}\n\nfn other() {}\n"
    );
}

#[test]
fn a_diff_that_does_not_apply_is_a_clear_error() {
    let (dir, ws) = workspace();
    put(dir.path(), "a.rs", TEXT);
    let diff = "@@ -1,2 +1,2 @@\n fn nothing() {\n-    gone();\n+    here();\n";
    let err = edit(&ws, json!({"path": "a.rs", "diff": diff}));
    // The hunk header says 2 old lines and the hunk has 2: it parses, but
    // its lines are not in the file.
    let err = err.unwrap_err();
    assert!(matches!(err, ToolError::DiffDoesNotApply { .. }), "{err:?}");
    assert!(err.to_string().contains("does not apply to a.rs"), "{err}");
    assert_eq!(fs::read_to_string(dir.path().join("a.rs")).unwrap(), TEXT);
}

#[test]
fn a_malformed_diff_is_an_argument_error() {
    let (dir, ws) = workspace();
    put(dir.path(), "a.rs", TEXT);
    for bad in ["just some text\n", "@@ -1,5 +1,1 @@\n fn main() {\n"] {
        let err = prepare(&ws, json!({"path": "a.rs", "diff": bad})).unwrap_err();
        assert!(
            matches!(err, ArgumentError::Invalid { .. }),
            "{bad:?}: {err:?}"
        );
    }
}

#[test]
fn exactly_one_form_and_an_existing_file() {
    let (dir, ws) = workspace();
    put(dir.path(), "a.rs", TEXT);
    fs::create_dir_all(dir.path().join(".git")).unwrap();
    put(dir.path(), ".git/config", "[core]\n");
    let err = |args: Value| prepare(&ws, args).unwrap_err();
    assert!(matches!(
        err(json!({"path": "a.rs", "old_string": "a", "new_string": "b", "diff": "@@"})),
        ArgumentError::Invalid { .. }
    ));
    assert!(matches!(
        err(json!({"path": "a.rs"})),
        ArgumentError::Missing { .. }
    ));
    assert!(matches!(
        err(json!({"path": "a.rs", "old_string": "a"})),
        ArgumentError::Missing { .. }
    ));
    assert!(matches!(
        err(json!({"path": "a.rs", "old_string": "", "new_string": "b"})),
        ArgumentError::Invalid { .. }
    ));
    assert!(matches!(
        err(json!({"path": "a.rs", "old_string": "x", "new_string": "x"})),
        ArgumentError::Invalid { .. }
    ));
    let missing = err(json!({"path": "new.rs", "old_string": "a", "new_string": "b"}));
    assert!(matches!(
        missing,
        ArgumentError::Path {
            source: PathError::NotFound { .. },
            ..
        }
    ));
    let git = err(json!({"path": ".git/config", "old_string": "core", "new_string": "x"}));
    assert!(matches!(
        git,
        ArgumentError::Path {
            source: PathError::GitDir { .. },
            ..
        }
    ));
    assert!(matches!(
        err(json!({"path": "a.rs", "old_string": "a", "new_string": "b", "replace_all": true})),
        ArgumentError::Unknown { .. }
    ));
}

#[test]
fn non_utf8_files_are_refused() {
    let (dir, ws) = workspace();
    fs::write(dir.path().join("l1.txt"), b"caf\xe9\n").unwrap();
    let err = edit(
        &ws,
        json!({"path": "l1.txt", "old_string": "caf", "new_string": "cafe"}),
    )
    .unwrap_err();
    assert_eq!(
        err,
        ToolError::InvalidUtf8 {
            path: "l1.txt".into()
        }
    );
}

#[test]
fn a_file_deleted_after_prepare_is_a_tool_error() {
    let (dir, ws) = workspace();
    put(dir.path(), "a.rs", TEXT);
    let call = prepare(
        &ws,
        json!({"path": "a.rs", "old_string": "main", "new_string": "start"}),
    )
    .unwrap();
    fs::remove_file(dir.path().join("a.rs")).unwrap();
    let err = EditFile::new()
        .execute(
            &crate::testutil::authorized(call.clone()),
            &ws,
            &CancellationToken::new(),
        )
        .unwrap_err();
    assert!(matches!(err, ToolError::NotFound { .. }), "{err:?}");
    assert!(!dir.path().join("a.rs").exists());
}
