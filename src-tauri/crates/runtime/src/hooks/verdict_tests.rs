use super::*;
use bearagent_kernel::HookEvent::*;

#[test]
fn exit_2_denies_a_tool_call_with_stderr_as_the_reason() {
    let v = verdict(PreToolUse, Ended::Exited(2), "", "no curl here\n");
    assert_eq!(v.decision, HookDecision::Deny);
    assert_eq!(v.reason.as_deref(), Some("no curl here"));
    assert_eq!(v.for_model, None);
}

#[test]
fn exit_2_after_a_tool_or_at_stop_tells_the_model() {
    for event in [PostToolUse, Stop] {
        let v = verdict(event, Ended::Exited(2), "", "run the tests first");
        assert_eq!(v.decision, HookDecision::Block);
        assert_eq!(v.for_model.as_deref(), Some("run the tests first"));
    }
    let v = verdict(SessionStart, Ended::Exited(2), "", "meh");
    assert_eq!(v.decision, HookDecision::Proceed);
    assert_eq!(v.for_model, None);
}

#[test]
fn permission_decisions_are_read_from_json() {
    let out = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"curl is not allowed"}}"#;
    let v = verdict(PreToolUse, Ended::Exited(0), out, "");
    assert_eq!(v.decision, HookDecision::Deny);
    assert_eq!(v.reason.as_deref(), Some("curl is not allowed"));
    for (d, want) in [("allow", HookDecision::Allow), ("ask", HookDecision::Ask)] {
        let out = format!(r#"{{"hookSpecificOutput":{{"permissionDecision":"{d}"}}}}"#);
        assert_eq!(
            verdict(PreToolUse, Ended::Exited(0), &out, "").decision,
            want
        );
    }
    let legacy = r#"{"decision":"block","reason":"old style"}"#;
    let v = verdict(PreToolUse, Ended::Exited(0), legacy, "");
    assert_eq!(v.decision, HookDecision::Deny);
    assert_eq!(v.reason.as_deref(), Some("old style"));
}

#[test]
fn a_stop_hook_blocks_with_a_reason_for_the_model() {
    let v = verdict(
        Stop,
        Ended::Exited(0),
        r#"{"decision":"block","reason":"also update the changelog"}"#,
        "",
    );
    assert_eq!(v.decision, HookDecision::Block);
    assert_eq!(v.for_model.as_deref(), Some("also update the changelog"));
}

#[test]
fn plain_stdout_is_context_only_at_the_start_and_for_a_prompt() {
    let v = verdict(SessionStart, Ended::Exited(0), "branch: main\n", "");
    assert_eq!(v.for_model.as_deref(), Some("branch: main"));
    let v = verdict(PostToolUse, Ended::Exited(0), "formatted 1 file\n", "");
    assert_eq!(v.for_model, None);
    assert_eq!(v.decision, HookDecision::Proceed);
}

#[test]
fn a_timeout_asks_before_a_tool_and_warns_elsewhere() {
    let v = verdict(PreToolUse, Ended::TimedOut, "", "");
    assert_eq!(v.decision, HookDecision::Ask);
    assert!(v.warning.unwrap().contains("timeout"));
    let v = verdict(Stop, Ended::TimedOut, "", "");
    assert_eq!(v.decision, HookDecision::Proceed);
    assert!(v.warning.is_some());
}

#[test]
fn other_exit_codes_and_broken_json_decide_nothing_and_warn() {
    let v = verdict(PreToolUse, Ended::Exited(1), "", "boom");
    assert_eq!(v.decision, HookDecision::Proceed);
    assert!(v.warning.unwrap().contains("boom"));
    let v = verdict(PreToolUse, Ended::Exited(0), "{not json", "");
    assert_eq!(v.decision, HookDecision::Proceed);
    assert!(v.warning.is_some());
    let v = verdict(
        PreToolUse,
        Ended::Exited(0),
        r#"{"hookSpecificOutput":{"permissionDecision":"maybe"}}"#,
        "",
    );
    assert_eq!(v.decision, HookDecision::Proceed);
    assert!(v.warning.unwrap().contains("maybe"));
}
