use super::*;
use crate::testutil::obj as args;
use serde_json::json;

fn ws() -> (tempfile::TempDir, WorkspaceRoot) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("sub")).unwrap();
    std::fs::write(dir.path().join("file.txt"), "x").unwrap();
    let root = WorkspaceRoot::new(dir.path()).unwrap();
    (dir, root)
}

#[test]
fn a_command_is_prepared_with_its_cwd_and_timeout() {
    let (_d, ws) = ws();
    let tool = RunCommand::new();
    let call = tool
        .prepare(
            &args(json!({"command": "cargo test", "cwd": "sub", "timeout_secs": 30})),
            &ws,
        )
        .unwrap();
    assert_eq!(call.effect(), Effect::RunsCommand);
    let plan = call.command_plan().unwrap();
    assert_eq!(plan.command, "cargo test");
    assert_eq!(plan.cwd_rel, "sub");
    assert!(plan.cwd_abs.ends_with("sub"));
    assert_eq!(plan.timeout_secs, Some(30));
    assert_eq!(call.summary(), "run `cargo test` in sub");
    let root = tool.prepare(&args(json!({"command": "ls"})), &ws).unwrap();
    assert_eq!(root.command_plan().unwrap().cwd_rel, ".");
}

#[test]
fn bad_arguments_are_refused_before_anything_runs() {
    let (_d, ws) = ws();
    let tool = RunCommand::new();
    for bad in [
        json!({}),
        json!({"command": ""}),
        json!({"command": "   "}),
        json!({"command": 5}),
        json!({"command": "ls", "cwd": "../.."}),
        json!({"command": "ls", "cwd": "/etc"}),
        json!({"command": "ls", "cwd": "file.txt"}),
        json!({"command": "ls", "cwd": "missing"}),
        json!({"command": "ls", "timeout_secs": 0}),
        json!({"command": "ls", "timeout_secs": -3}),
        json!({"command": "ls", "shell": "bash"}),
        json!({"command": "a\u{0}b"}),
        json!({"command": "x".repeat(MAX_COMMAND_BYTES + 1)}),
    ] {
        assert!(tool.prepare(&args(bad.clone()), &ws).is_err(), "{bad}");
    }
}

#[test]
fn colour_codes_are_stripped_for_the_model() {
    assert_eq!(strip_ansi("\u{1b}[31merror\u{1b}[0m: x"), "error: x");
    assert_eq!(strip_ansi("\u{1b}]0;title\u{7}ok"), "ok");
    assert_eq!(strip_ansi("plain"), "plain");
    assert_eq!(strip_ansi("\u{1b}"), "");
}

#[test]
fn long_output_reaches_the_model_as_head_and_tail_with_the_exit_code() {
    let mut output = "first line\n".to_owned();
    output.push_str(&"middle\n".repeat(10_000));
    output.push_str("test result: FAILED\n");
    let o = CommandOutcome {
        exit_code: Some(101),
        signal: None,
        duration: Duration::from_millis(2500),
        total_bytes: output.len() as u64,
        output: output.into_bytes(),
        truncated: false,
        timed_out: false,
        cancelled: false,
        stderr: Vec::new(),
    };
    let text = model_text(&o, 600, "");
    assert!(text.starts_with("exit code 101, after 2.5 s\n"), "{text}");
    assert!(text.contains("first line"));
    assert!(text.contains("[… output cut …]"));
    assert!(text.trim_end().ends_with("test result: FAILED"));
    assert!(text.len() < MODEL_HEAD_BYTES + MODEL_TAIL_BYTES + 300);
}
