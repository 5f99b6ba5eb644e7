use super::*;
use crate::testutil::{obj, put, workspace};
use std::fs;

fn read(ws: &WorkspaceRoot, args: Value) -> Result<String, ToolError> {
    let tool = ReadFile::new();
    let call = tool.prepare(&obj(args), ws).unwrap();
    tool.execute(
        &crate::testutil::authorized(call.clone()),
        ws,
        &CancellationToken::new(),
    )
    .map(|o| o.content)
}

#[test]
fn returns_the_exact_content() {
    let (dir, ws) = workspace();
    let text = "line 1\n  line 2\r\nlast without newline";
    put(dir.path(), "a.txt", text);
    assert_eq!(read(&ws, json!({"path": "a.txt"})).unwrap(), text);
}

#[test]
fn line_ranges_are_one_based_and_inclusive() {
    let (dir, ws) = workspace();
    put(dir.path(), "a.txt", "one\ntwo\nthree\nfour");
    assert_eq!(
        read(
            &ws,
            json!({"path": "a.txt", "start_line": 2, "end_line": 3})
        )
        .unwrap(),
        "two\nthree\n"
    );
    assert_eq!(
        read(&ws, json!({"path": "a.txt", "start_line": 3})).unwrap(),
        "three\nfour"
    );
    assert_eq!(
        read(&ws, json!({"path": "a.txt", "end_line": 1})).unwrap(),
        "one\n"
    );
    assert_eq!(
        read(
            &ws,
            json!({"path": "a.txt", "start_line": 4, "end_line": 99})
        )
        .unwrap(),
        "four"
    );
    let err = read(&ws, json!({"path": "a.txt", "start_line": 5})).unwrap_err();
    assert_eq!(
        err.to_string(),
        "start_line 5 is past the end of a.txt, which has 4 lines"
    );
}

#[test]
fn large_files_keep_the_head_and_say_so() {
    let (dir, ws) = workspace();
    let text: String = (1..=100).map(|i| format!("line {i:03}\n")).collect();
    put(dir.path(), "big.txt", &text);
    let out = read(&ws, json!({"path": "big.txt", "max_bytes": 25})).unwrap();
    assert_eq!(
        out,
        "line 001\nline 002\n[truncated: showed 18 of 900 bytes (lines 1-2); use start_line/end_line]"
    );
    let out = read(
        &ws,
        json!({"path": "big.txt", "start_line": 10, "end_line": 19, "max_bytes": 30}),
    )
    .unwrap();
    assert_eq!(
        out,
        "line 010\nline 011\nline 012\n[truncated: showed 27 of 90 bytes (lines 10-12); use start_line/end_line]"
    );
}

#[test]
fn a_single_long_line_is_cut_on_a_char_boundary() {
    let (dir, ws) = workspace();
    put(dir.path(), "wide.txt", &"é".repeat(20));
    let out = read(&ws, json!({"path": "wide.txt", "max_bytes": 5})).unwrap();
    assert_eq!(
        out,
        "éé\n[truncated: showed 4 of 40 bytes (lines 1-1); use start_line/end_line]"
    );
}

#[test]
fn binary_files_are_refused() {
    let (dir, ws) = workspace();
    fs::write(dir.path().join("bin.dat"), b"abc\0def").unwrap();
    let err = read(&ws, json!({"path": "bin.dat"})).unwrap_err();
    assert_eq!(err.to_string(), "bin.dat: binary file, 7 bytes; not shown");
}

#[test]
fn invalid_utf8_is_shown_lossily_with_a_note() {
    let (dir, ws) = workspace();
    fs::write(dir.path().join("latin1.txt"), b"caf\xe9\n").unwrap();
    let out = read(&ws, json!({"path": "latin1.txt"})).unwrap();
    assert_eq!(
        out,
        "caf\u{FFFD}\n[note: the file is not valid UTF-8; invalid bytes are shown as U+FFFD]"
    );
}

#[test]
fn empty_file() {
    let (dir, ws) = workspace();
    put(dir.path(), "empty.txt", "");
    assert_eq!(
        read(&ws, json!({"path": "empty.txt"})).unwrap(),
        "[empty file]"
    );
}

#[test]
fn arguments_are_checked() {
    let (dir, ws) = workspace();
    put(dir.path(), "a.txt", "a");
    fs::create_dir(dir.path().join("d")).unwrap();
    let tool = ReadFile::new();
    let err = |args: Value| tool.prepare(&obj(args), &ws).unwrap_err();
    assert!(matches!(err(json!({})), ArgumentError::Missing { .. }));
    assert!(matches!(
        err(json!({"path": "a.txt", "lines": 3})),
        ArgumentError::Unknown { .. }
    ));
    assert!(matches!(
        err(json!({"path": "a.txt", "start_line": 0})),
        ArgumentError::OutOfRange { .. }
    ));
    assert!(matches!(
        err(json!({"path": "a.txt", "start_line": "1"})),
        ArgumentError::WrongType { .. }
    ));
    assert!(matches!(
        err(json!({"path": "a.txt", "start_line": 5, "end_line": 2})),
        ArgumentError::Invalid { .. }
    ));
    assert!(matches!(
        err(json!({"path": "d"})),
        ArgumentError::Invalid { .. }
    ));
    assert!(matches!(
        err(json!({"path": "missing.txt"})),
        ArgumentError::Path { .. }
    ));
    assert!(matches!(
        err(json!({"path": "/etc/passwd"})),
        ArgumentError::Path { .. }
    ));
    assert!(matches!(
        err(json!({"path": "../x"})),
        ArgumentError::Path { .. }
    ));
    let call = tool
        .prepare(&obj(json!({"path": "./a.txt", "end_line": 3})), &ws)
        .unwrap();
    assert_eq!(
        *call.args(),
        json!({"path": "a.txt", "start_line": null, "end_line": 3, "max_bytes": 262144})
    );
    assert_eq!(call.summary(), "read a.txt lines 1-3");
}

#[test]
fn a_file_deleted_after_prepare_is_a_tool_error() {
    let (dir, ws) = workspace();
    put(dir.path(), "a.txt", "a");
    let tool = ReadFile::new();
    let call = tool.prepare(&obj(json!({"path": "a.txt"})), &ws).unwrap();
    fs::remove_file(dir.path().join("a.txt")).unwrap();
    let err = tool
        .execute(
            &crate::testutil::authorized(call.clone()),
            &ws,
            &CancellationToken::new(),
        )
        .unwrap_err();
    assert!(err.to_string().contains("no such file"), "{err}");
}

#[cfg(unix)]
#[test]
fn a_symlink_to_a_file_outside_is_refused() {
    let (dir, ws) = workspace();
    let outside = tempfile::tempdir().unwrap();
    put(outside.path(), "secret.txt", "s");
    std::os::unix::fs::symlink(outside.path().join("secret.txt"), dir.path().join("s.txt"))
        .unwrap();
    let err = ReadFile::new()
        .prepare(&obj(json!({"path": "s.txt"})), &ws)
        .unwrap_err();
    assert!(err.to_string().contains("outside the workspace"), "{err}");
}
