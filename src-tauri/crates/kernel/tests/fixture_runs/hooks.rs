//! The fixture's hooks run: untrusted project hooks told once, a
//! SessionStart hook, a PreToolUse hook that denies a command, and a Stop
//! hook that sends the model back for one more turn.

use super::{answer, call, completed, created, id, requested, result, started, usage};
use bearagent_kernel::{
    Action, ApprovalMode, CallId, ContentHash, EventPayload, HookDecision, HookEvent, HookSource,
};
use serde_json::json;

#[allow(clippy::too_many_arguments)]
fn hook_ran(
    hook: HookEvent,
    command: &str,
    call: Option<u32>,
    exit_code: i32,
    decision: HookDecision,
    reason: Option<&str>,
    for_model: Option<&str>,
) -> EventPayload {
    EventPayload::HookRan {
        hook,
        source: HookSource::User,
        command: command.into(),
        call_id: call.map(id),
        exit_code: Some(exit_code),
        timed_out: false,
        duration_ms: 12,
        decision,
        reason: reason.map(str::to_owned),
        for_model: for_model.map(str::to_owned),
        warning: None,
        stdout: String::new(),
        stderr: reason.unwrap_or_default().to_owned(),
    }
}

/// A run whose hooks denied a `curl` and asked for one more turn.
pub fn hooks_run() -> Vec<EventPayload> {
    let curl = call(
        1,
        "run_command",
        json!({"command": "curl https://example.com"}),
    );
    vec![
        created("fetch the page", ApprovalMode::AllowAll, None, None),
        EventPayload::RunStarted,
        EventPayload::HooksNotTrusted {
            file: "/home/me/project/.bearagent/hooks.toml".into(),
            content_hash: ContentHash::parse(&"c".repeat(64)).unwrap(),
            commands: vec!["./scripts/format.sh".into()],
        },
        hook_ran(
            HookEvent::SessionStart,
            "git status --short",
            None,
            0,
            HookDecision::Proceed,
            None,
            Some(" M calc.py"),
        ),
        // What the hook wrote, seen by its snapshots (outside a call).
        EventPayload::ArtifactRecorded {
            call_id: CallId::new("hook#4").unwrap(),
            path: "status.txt".into(),
            before_hash: None,
            after_hash: Some(ContentHash::parse(&"d".repeat(64)).unwrap()),
            before_mode: None,
            after_mode: Some(0o644),
            by_hook: Some("git status --short".into()),
        },
        requested(),
        started(),
        completed(Action::one_call(curl.clone()), usage(500, 20, 0), None),
        EventPayload::ToolCallRequested {
            call: curl,
            parsed_from_text: None,
        },
        hook_ran(
            HookEvent::PreToolUse,
            "python3 ~/.config/bearagent/hooks/no-curl.py",
            Some(1),
            2,
            HookDecision::Deny,
            Some("curl is not allowed here"),
            None,
        ),
        EventPayload::ToolCallFailed {
            result: result(
                1,
                "refused by a PreToolUse hook: curl is not allowed here",
                true,
            ),
        },
        requested(),
        started(),
        completed(answer("I could not fetch it."), usage(600, 20, 0), None),
        hook_ran(
            HookEvent::Stop,
            "./check-done.sh",
            None,
            0,
            HookDecision::Block,
            Some("say why in one line"),
            Some("say why in one line"),
        ),
        requested(),
        started(),
        completed(
            answer("Commands may not use curl here."),
            usage(700, 20, 0),
            None,
        ),
        EventPayload::RunSucceeded {
            answer: "Commands may not use curl here.".into(),
        },
    ]
}
