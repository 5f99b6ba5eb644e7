//! A BearAgent approval as the editor's `session/request_permission`, and
//! the editor's answer as BearAgent's decision.

use agent_client_protocol::v1::schema::{
    PermissionOption, PermissionOptionKind, RequestPermissionOutcome,
};
use bearagent_kernel::ApprovalScope;
use bearagent_runtime::Decision;

pub const ALLOW_ONCE: &str = "allow_once";
pub const ALLOW_ALWAYS: &str = "allow_always";
pub const REJECT_ONCE: &str = "reject_once";
pub const REJECT_ALWAYS: &str = "reject_always";

/// The four choices, as the app offers them.
pub fn options() -> Vec<PermissionOption> {
    vec![
        PermissionOption::new(ALLOW_ONCE, "Allow once", PermissionOptionKind::AllowOnce),
        PermissionOption::new(
            ALLOW_ALWAYS,
            "Always allow this tool for this run",
            PermissionOptionKind::AllowAlways,
        ),
        PermissionOption::new(REJECT_ONCE, "Reject", PermissionOptionKind::RejectOnce),
        PermissionOption::new(
            REJECT_ALWAYS,
            "Reject this and the rest of this turn",
            PermissionOptionKind::RejectAlways,
        ),
    ]
}

/// The decision an answer stands for: "always" allows the tool for the run
/// (the app's "Always for this run"); rejecting always denies the rest of
/// the model's turn (BearAgent has no standing deny; a deny rule in the
/// profile is that). A cancelled request or an unknown option denies.
pub fn decision(outcome: &RequestPermissionOutcome) -> Decision {
    let (approve, scope, reason) = match outcome {
        RequestPermissionOutcome::Selected(s) => match &*s.option_id.0 {
            ALLOW_ONCE => (true, ApprovalScope::Once, None),
            ALLOW_ALWAYS => (true, ApprovalScope::ToolForRun, None),
            REJECT_ONCE => (false, ApprovalScope::Once, Some("rejected in the editor")),
            REJECT_ALWAYS => (
                false,
                ApprovalScope::RestOfTurn,
                Some("rejected in the editor"),
            ),
            _ => (
                false,
                ApprovalScope::Once,
                Some("the editor answered with an unknown option"),
            ),
        },
        _ => (
            false,
            ApprovalScope::Once,
            Some("the editor cancelled the request"),
        ),
    };
    Decision {
        approve,
        scope,
        reason: reason.map(str::to_owned),
        by: "acp:editor".into(),
        allow_prefix: None,
        network: false,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn outcome(v: serde_json::Value) -> RequestPermissionOutcome {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn each_answer_is_its_decision() {
        let once = decision(&outcome(
            json!({"outcome": "selected", "optionId": "allow_once"}),
        ));
        assert!(once.approve && once.scope == ApprovalScope::Once);
        let always = decision(&outcome(
            json!({"outcome": "selected", "optionId": "allow_always"}),
        ));
        assert!(always.approve && always.scope == ApprovalScope::ToolForRun);
        let rest = decision(&outcome(
            json!({"outcome": "selected", "optionId": "reject_always"}),
        ));
        assert!(!rest.approve && rest.scope == ApprovalScope::RestOfTurn);
        let odd = decision(&outcome(
            json!({"outcome": "selected", "optionId": "maybe"}),
        ));
        assert!(!odd.approve);
        let cancelled = decision(&outcome(json!({"outcome": "cancelled"})));
        assert!(!cancelled.approve);
        assert_eq!(options().len(), 4);
    }
}
