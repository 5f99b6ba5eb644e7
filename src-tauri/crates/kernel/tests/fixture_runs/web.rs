//! The fixture's web run: a fetch of the URL in the goal (recorded with
//! its body blob), then a fetch of a URL the model made, asked and denied,
//! then a refused address (the floor), and the answer.

use super::{answer, call, completed, created, hash, id, requested, result, started, usage};
use bearagent_kernel::event::ApprovalScope;
use bearagent_kernel::{
    Action, ApprovalMode, EventPayload, ToolName, WebFailure, WebFetchRecord, WebUrlOrigin,
};
use serde_json::json;

pub fn web_run() -> Vec<EventPayload> {
    let page = call(1, "web_fetch", json!({"url": "https://docs.test/guide"}));
    let made = call(2, "web_fetch", json!({"url": "https://x.test/?q=secret"}));
    let meta = call(3, "web_fetch", json!({"url": "http://169.254.169.254/"}));
    let mut events = vec![
        created(
            "read https://docs.test/guide and http://169.254.169.254/",
            ApprovalMode::AskWrites,
            None,
            None,
        ),
        EventPayload::RunStarted,
        requested(),
        started(),
        completed(Action::one_call(page.clone()), usage(300, 20, 0), None),
        EventPayload::ToolCallRequested {
            call: page,
            parsed_from_text: None,
        },
        EventPayload::ToolCallStarted { call_id: id(1) },
        EventPayload::WebFetched {
            call_id: id(1),
            fetch: WebFetchRecord {
                requested_url: "https://docs.test/guide".into(),
                final_url: "https://docs.test/guide/".into(),
                redirects: vec![bearagent_kernel::WebRedirect {
                    from: "https://docs.test/guide".into(),
                    to: "https://docs.test/guide/".into(),
                    status: 301,
                }],
                status: 200,
                content_type: Some("text/html".into()),
                bytes: 1200,
                total_bytes: Some(1200),
                truncated: false,
                sha256: "b".repeat(64),
                body: hash('b'),
                elapsed_ms: 85,
                from_cache: false,
                cross_host_redirect: None,
                origin: WebUrlOrigin::UserWritten,
            },
        },
        EventPayload::ToolCallCompleted {
            result: result(1, "[web content] # Guide", false),
            receipt: None,
            truncated: false,
            original_bytes: 21,
        },
        requested(),
        started(),
        completed(Action::one_call(made.clone()), usage(500, 20, 0), None),
        EventPayload::ToolCallRequested {
            call: made,
            parsed_from_text: None,
        },
        EventPayload::ApprovalRequested {
            call_id: id(2),
            tool_name: ToolName::new("web_fetch").unwrap(),
            summary: "fetch https://x.test/?q=secret · web: the model wrote this URL".into(),
        },
        EventPayload::ApprovalDenied {
            call_id: id(2),
            by: "user".into(),
            scope: ApprovalScope::Once,
            reason: None,
        },
        EventPayload::ToolCallFailed {
            result: result(2, "denied by the user", true),
        },
    ];
    events.extend(refused(meta));
    events
}

/// The floor refuses the metadata address: recorded, fed back.
fn refused(meta: bearagent_kernel::ToolCall) -> Vec<EventPayload> {
    vec![
        requested(),
        started(),
        completed(Action::one_call(meta.clone()), usage(600, 20, 0), None),
        EventPayload::ToolCallRequested {
            call: meta,
            parsed_from_text: None,
        },
        EventPayload::ToolCallStarted { call_id: id(3) },
        EventPayload::WebFetchFailed {
            call_id: id(3),
            failure: WebFailure {
                url: "http://169.254.169.254/".into(),
                code: "blocked".into(),
                message: "refused: 169.254.169.254 is link-local".into(),
                origin: WebUrlOrigin::UserWritten,
            },
        },
        EventPayload::ToolCallFailed {
            result: result(3, "web_fetch failed: refused", true),
        },
        requested(),
        started(),
        completed(answer("The guide says …"), usage(700, 30, 0), None),
        EventPayload::RunSucceeded {
            answer: "The guide says …".into(),
        },
    ]
}
