//! Authorisation as a value (DESIGN principle 8): the executor and every
//! tool accept only an [`AuthorizedCall`], and only two things make one —
//! [`Policy::decide`](crate::Policy::decide) when it allows a call, and
//! [`ApprovalRequest::approve`] with the recorded `ApprovalGranted` event of
//! the call the policy asked about. An `ApprovalRequest` in turn comes only
//! from the policy. Code that skips the policy does not compile.
//!
//! The right way compiles:
//!
//! ```
//! use bearagent_tools::{ApprovalMode, Executor, Policy, PolicyDecision, Registered, Registry, Tool, WorkspaceRoot};
//! # async fn run(ws: WorkspaceRoot) {
//! let registry = Registry::with_workspace_tools();
//! let Some(Registered::Workspace(tool)) = registry.get("list_dir") else { return };
//! let prepared = tool.prepare(&serde_json::Map::new(), &ws).unwrap();
//! if let PolicyDecision::Allow(call) = Policy::new(ApprovalMode::AskWrites).decide(tool.spec(), prepared) {
//!     let cancel = tokio_util::sync::CancellationToken::new();
//!     Executor::default().execute(tool, call, ws, cancel).await;
//! }
//! # }
//! ```
//!
//! A prepared call cannot go to the executor without the policy (E0308,
//! mismatched types):
//!
//! ```compile_fail,E0308
//! use bearagent_tools::{Executor, Registered, Registry, Tool, WorkspaceRoot};
//! # async fn run(ws: WorkspaceRoot) {
//! let registry = Registry::with_workspace_tools();
//! let Some(Registered::Workspace(tool)) = registry.get("write_file") else { return };
//! let args = serde_json::json!({"path": "a.md", "content": "x"});
//! let prepared = tool.prepare(args.as_object().unwrap(), &ws).unwrap();
//! let cancel = tokio_util::sync::CancellationToken::new();
//! Executor::default().execute(tool, prepared, ws, cancel).await;
//! # }
//! ```
//!
//! nor straight to a tool (E0308):
//!
//! ```compile_fail,E0308
//! use bearagent_tools::{Registered, Registry, Tool, WorkspaceRoot, WorkspaceTool};
//! # fn run(ws: WorkspaceRoot) {
//! let registry = Registry::with_workspace_tools();
//! let Some(Registered::Workspace(tool)) = registry.get("write_file") else { return };
//! let args = serde_json::json!({"path": "a.md", "content": "x"});
//! let prepared = tool.prepare(args.as_object().unwrap(), &ws).unwrap();
//! let _ = tool.execute(&prepared, &ws, &tokio_util::sync::CancellationToken::new());
//! # }
//! ```
//!
//! and an authorisation cannot be forged (E0451, private fields):
//!
//! ```compile_fail,E0451
//! use bearagent_tools::{Authority, AuthorizedCall, PreparedCall};
//! # fn forge(call: PreparedCall) -> AuthorizedCall {
//! AuthorizedCall { call, authority: Authority::Policy, network: true }
//! # }
//! ```
//!
//! nor approved with a bare sequence number instead of the recorded
//! `ApprovalGranted` event (E0308):
//!
//! ```compile_fail,E0308
//! use bearagent_kernel::{CallId, EventSeq};
//! use bearagent_tools::{ApprovalRequest, AuthorizedCall};
//! # fn approve_by_number(request: ApprovalRequest, call: &CallId) -> AuthorizedCall {
//! request.approve(call, EventSeq(7)).unwrap()
//! # }
//! ```
//!
//! nor a prepared call altered after the policy saw it (E0616, private
//! field):
//!
//! ```compile_fail,E0616
//! use bearagent_tools::PreparedCall;
//! # fn retarget(call: PreparedCall) {
//! let _ = call.write_target;
//! # }
//! ```

use crate::prepared::PreparedCall;
use bearagent_kernel::{
    ApprovalScope, CallId, EventEnvelope, EventPayload, EventSeq, HookDecision,
};
use std::ops::Deref;

/// Who allowed a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Authority {
    /// The policy allowed it outright.
    Policy,
    /// The user approved it; the approval is the event with this seq (for
    /// "always for this run", the approval that granted the tool).
    User { approval: EventSeq },
    /// A PreToolUse hook the user configured allowed it where the policy
    /// would have asked; its recorded `HookRan` has this seq.
    Hook { decision: EventSeq },
}

/// A prepared call the policy allowed or the user approved: the only thing
/// [`Executor::execute`](crate::Executor::execute) and
/// [`Tool::execute`](crate::Tool::execute) accept. Read-only access to the
/// call through `Deref`. Not `Clone`: one authorisation, one execution.
#[derive(Debug, PartialEq)]
pub struct AuthorizedCall {
    call: PreparedCall,
    authority: Authority,
    /// A command granted the network in the sandbox beyond the profile's
    /// setting: by an `allow-network` rule, or by the user approving this
    /// very call with the network.
    network: bool,
}

impl AuthorizedCall {
    /// Only the policy (same crate) allows without a user.
    pub(crate) fn by_policy(call: PreparedCall) -> Self {
        Self {
            call,
            authority: Authority::Policy,
            network: false,
        }
    }

    /// A command an `allow-network` rule allowed.
    pub(crate) fn by_policy_with_network(call: PreparedCall) -> Self {
        Self {
            network: call.command_plan().is_some(),
            ..Self::by_policy(call)
        }
    }

    pub fn authority(&self) -> Authority {
        self.authority
    }

    /// Whether this command may use the network even with the profile's
    /// network off (never true for a call that runs no command).
    pub fn network_granted(&self) -> bool {
        self.network
    }

    pub fn prepared(&self) -> &PreparedCall {
        &self.call
    }

    /// A hook wants the user asked about a call the policy allowed: the
    /// call goes back to being a request (tightening is always allowed).
    pub fn into_request(self) -> ApprovalRequest {
        ApprovalRequest::new(self.call)
    }

    /// The runtime's web checks want the user, and only the user, asked
    /// about a call the policy allowed (tightening is always allowed).
    pub fn into_firm_request(self, why: FirmAsk) -> ApprovalRequest {
        ApprovalRequest::firm(self.call, why)
    }

    /// Test-only: execute a call the policy would refuse, to test a tool's
    /// own last-line checks.
    #[cfg(test)]
    pub(crate) fn unchecked_for_test(call: PreparedCall) -> Self {
        Self::by_policy(call)
    }
}

impl Deref for AuthorizedCall {
    type Target = PreparedCall;

    fn deref(&self) -> &PreparedCall {
        &self.call
    }
}

/// The policy's "ask": a call that may run once the user approves it.
#[derive(Debug, PartialEq)]
pub struct ApprovalRequest {
    call: PreparedCall,
    /// Set when only the user may answer (never a hook), and why.
    firm: Option<FirmAsk>,
}

/// Why a question is the user's alone: a fail-closed "ask" that a hook's
/// `allow` never lifts (a hook may only tighten).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FirmAsk {
    /// The sandbox is off in the profile: every command asks.
    SandboxOff,
    /// The command cannot be checked against the rules.
    Unprovable,
    /// A write into the workspace's `.bearagent/` folder (project hooks and
    /// their scripts): it asks every time, whatever the mode, a rule, a
    /// hook or an earlier "always" says.
    ProjectFolder,
    /// A fetch of a URL that did not come from the user or a fetched
    /// page, or of a host a domain rule asks about (`web_fetch`).
    WebUrl,
    /// A fetched web page is in the run's current turn and this call can
    /// send data out (a new host, a command with the network, an MCP tool
    /// that acts): what the page said may be steering it.
    Tainted,
}

impl FirmAsk {
    /// Shown in the approval, and in what the model is told.
    pub fn reason(self) -> &'static str {
        match self {
            FirmAsk::SandboxOff => "the sandbox is off, so every command asks the user",
            FirmAsk::Unprovable => "the command cannot be checked against the rules",
            FirmAsk::ProjectFolder => {
                "it writes into .bearagent/ (project hooks and their scripts): always asked, every time"
            }
            FirmAsk::WebUrl => "a fetch of this URL is the user's to allow, every time",
            FirmAsk::Tainted => {
                "a fetched web page is in this turn and this call can send data out: always asked"
            }
        }
    }
}

impl ApprovalRequest {
    pub(crate) fn new(call: PreparedCall) -> Self {
        Self { call, firm: None }
    }

    /// A question only the user may answer.
    pub(crate) fn firm(call: PreparedCall, why: FirmAsk) -> Self {
        Self {
            call,
            firm: Some(why),
        }
    }

    /// The same question, answered by the user alone (tightening).
    pub fn firmed(self, why: FirmAsk) -> ApprovalRequest {
        ApprovalRequest::firm(self.call, why)
    }

    /// Why only the user may answer (None: a hook's allow may).
    pub fn firm_reason(&self) -> Option<FirmAsk> {
        self.firm
    }

    /// Whether an earlier approval of a wider scope ("always for this
    /// run", "the rest of the turn") may answer it without asking.
    pub fn standing_approval_reaches(&self) -> bool {
        !matches!(
            self.firm,
            Some(FirmAsk::ProjectFolder | FirmAsk::WebUrl | FirmAsk::Tainted)
        )
    }

    /// What the user is asked about.
    pub fn call(&self) -> &PreparedCall {
        &self.call
    }

    /// The call `call_id` may run: `granted` is the recorded
    /// `ApprovalGranted` of that call, or of an earlier one whose scope
    /// reaches it (the tool for the rest of the run, the rest of the turn).
    /// Anything else — another event, a denial, another call's one-time
    /// approval — is refused.
    pub fn approve(
        self,
        call_id: &CallId,
        granted: &EventEnvelope,
    ) -> Result<AuthorizedCall, NotApproved> {
        let EventPayload::ApprovalGranted {
            call_id: approved,
            scope,
            network,
            ..
        } = &granted.payload
        else {
            return Err(NotApproved {
                seq: granted.seq,
                why: format!(
                    "event {} is {}, not an approval",
                    granted.seq.0,
                    granted.payload.type_name()
                ),
            });
        };
        let reaches = match scope {
            _ if !self.standing_approval_reaches() => approved == call_id,
            ApprovalScope::Once => approved == call_id,
            ApprovalScope::ToolForRun | ApprovalScope::RestOfTurn => true,
        };
        if !reaches {
            return Err(NotApproved {
                seq: granted.seq,
                why: format!(
                    "the approval at {} was for call {approved} only, not {call_id}",
                    granted.seq.0
                ),
            });
        }
        // The network reaches only the call it was granted with (a grant
        // of the tool for the run does not carry it to later commands).
        let network = *network && approved == call_id && self.call.command_plan().is_some();
        Ok(AuthorizedCall {
            call: self.call,
            authority: Authority::User {
                approval: granted.seq,
            },
            network,
        })
    }
}

impl ApprovalRequest {
    /// A PreToolUse hook allowed `call_id`: `decision` must be its recorded
    /// `HookRan` for that very call, deciding `allow`. Only an "ask" of the
    /// policy gets here; a deny never reaches a hook's allow.
    pub fn allow_by_hook(
        self,
        call_id: &CallId,
        decision: &EventEnvelope,
    ) -> Result<AuthorizedCall, NotApproved> {
        if let Some(firm) = self.firm {
            return Err(NotApproved {
                seq: decision.seq,
                why: format!("a hook cannot answer this question: {}", firm.reason()),
            });
        }
        let allowed = matches!(
            &decision.payload,
            EventPayload::HookRan {
                call_id: Some(id),
                decision: HookDecision::Allow,
                ..
            } if id == call_id
        );
        if !allowed {
            return Err(NotApproved {
                seq: decision.seq,
                why: format!(
                    "event {} is not a hook's allow for call {call_id}",
                    decision.seq.0
                ),
            });
        }
        Ok(AuthorizedCall {
            call: self.call,
            authority: Authority::Hook {
                decision: decision.seq,
            },
            network: false,
        })
    }
}

/// An approval that does not cover the call it was offered for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not approved: {why}")]
pub struct NotApproved {
    pub seq: EventSeq,
    pub why: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{Effect, ToolSpec};
    use crate::{ApprovalMode, Policy, PolicyDecision};
    use bearagent_kernel::{NewEvent, RunId, ToolName};

    fn request() -> ApprovalRequest {
        let name = ToolName::new("write_file").unwrap();
        let spec = ToolSpec {
            name: name.clone(),
            description: "w".into(),
            parameters: serde_json::json!({"type": "object"}),
            effect: Effect::External,
        };
        let call = PreparedCall::external(name, "x".into(), serde_json::json!({}), false);
        match Policy::new(ApprovalMode::AskAll).decide(&spec, call) {
            PolicyDecision::Ask(request) => request,
            PolicyDecision::Allow(_) | PolicyDecision::Deny { .. } => panic!("expected ask"),
        }
    }

    fn event(seq: u64, payload: EventPayload) -> EventEnvelope {
        NewEvent::new(bearagent_kernel::testkit::at(0), None, payload)
            .into_envelope(RunId::new(), EventSeq(seq))
    }

    fn granted(seq: u64, call: &str, scope: ApprovalScope) -> EventEnvelope {
        event(
            seq,
            EventPayload::ApprovalGranted {
                call_id: CallId::new(call).unwrap(),
                by: "user".into(),
                scope,
                allowed_prefix: None,
                network: false,
            },
        )
    }

    #[test]
    fn given_the_calls_own_approval_when_approved_then_it_runs_by_the_user() {
        let call = CallId::new("c1").unwrap();
        let authorized = request()
            .approve(&call, &granted(4, "c1", ApprovalScope::Once))
            .unwrap();
        assert_eq!(
            authorized.authority(),
            Authority::User {
                approval: EventSeq(4)
            }
        );
    }

    #[test]
    fn given_another_calls_one_time_approval_when_approved_then_it_is_refused() {
        let call = CallId::new("c2").unwrap();
        let refused = request()
            .approve(&call, &granted(4, "c1", ApprovalScope::Once))
            .unwrap_err();
        assert_eq!(refused.seq, EventSeq(4));
    }

    #[test]
    fn given_a_grant_for_the_run_or_the_turn_when_approved_then_later_calls_run() {
        let call = CallId::new("c9").unwrap();
        for scope in [ApprovalScope::ToolForRun, ApprovalScope::RestOfTurn] {
            assert!(request().approve(&call, &granted(4, "c1", scope)).is_ok());
        }
    }

    #[test]
    fn given_a_denial_or_another_event_when_approved_then_it_is_refused() {
        let call = CallId::new("c1").unwrap();
        let denied = event(
            5,
            EventPayload::ApprovalDenied {
                call_id: call.clone(),
                by: "user".into(),
                scope: ApprovalScope::Once,
                reason: None,
            },
        );
        assert!(request().approve(&call, &denied).is_err());
        let started = event(
            6,
            EventPayload::ToolCallStarted {
                call_id: call.clone(),
            },
        );
        assert!(request().approve(&call, &started).is_err());
    }

    /// A `run_command` call the policy asks about (no rule covers it), or
    /// decides with `rules`.
    fn command_decision(rules: Vec<bearagent_kernel::CommandRule>) -> PolicyDecision {
        let name = ToolName::new("run_command").unwrap();
        let spec = ToolSpec {
            name: name.clone(),
            description: "c".into(),
            parameters: serde_json::json!({"type": "object"}),
            effect: Effect::RunsCommand,
        };
        let plan = crate::spec::CommandPlan {
            command: "cargo fetch".into(),
            cwd_rel: ".".into(),
            cwd_abs: std::path::PathBuf::from("/ws"),
            timeout_secs: None,
        };
        let call = PreparedCall::command(name, String::new(), plan, serde_json::json!({}));
        let commands = bearagent_kernel::CommandSettings {
            rules,
            ..Default::default()
        };
        Policy::new(ApprovalMode::AskWrites)
            .with_commands(commands)
            .decide(&spec, call)
    }

    fn with_network(seq: u64, call: &str, scope: ApprovalScope) -> EventEnvelope {
        let mut e = granted(seq, call, scope);
        if let EventPayload::ApprovalGranted { network, .. } = &mut e.payload {
            *network = true;
        }
        e
    }

    #[test]
    fn given_an_approval_with_the_network_then_only_that_command_gets_it() {
        let ask = || match command_decision(Vec::new()) {
            PolicyDecision::Ask(request) => request,
            other => panic!("expected ask, got {other:?}"),
        };
        let c1 = CallId::new("c1").unwrap();
        let own = ask().approve(&c1, &with_network(4, "c1", ApprovalScope::Once));
        assert!(own.unwrap().network_granted());
        // "All commands this run" with the network: later commands run, offline.
        let c2 = CallId::new("c2").unwrap();
        let later = ask().approve(&c2, &with_network(4, "c1", ApprovalScope::ToolForRun));
        assert!(!later.unwrap().network_granted());
        let plain = ask().approve(&c1, &granted(4, "c1", ApprovalScope::Once));
        assert!(!plain.unwrap().network_granted());
        // Not a command: nothing to grant.
        let other = request().approve(&c1, &with_network(4, "c1", ApprovalScope::Once));
        assert!(!other.unwrap().network_granted());
    }

    #[test]
    fn given_an_allow_network_rule_then_the_policy_grants_the_network() {
        let rule = |decision| bearagent_kernel::CommandRule {
            prefix: "cargo fetch".into(),
            decision,
        };
        use bearagent_kernel::RuleDecision;
        match command_decision(vec![rule(RuleDecision::AllowNetwork)]) {
            PolicyDecision::Allow(call) => assert!(call.network_granted()),
            other => panic!("expected allow, got {other:?}"),
        }
        match command_decision(vec![rule(RuleDecision::Allow)]) {
            PolicyDecision::Allow(call) => assert!(!call.network_granted()),
            other => panic!("expected allow, got {other:?}"),
        }
    }

    fn hook_ran(seq: u64, call: &str, decision: HookDecision) -> EventEnvelope {
        event(
            seq,
            EventPayload::HookRan {
                hook: bearagent_kernel::HookEvent::PreToolUse,
                source: bearagent_kernel::HookSource::User,
                command: "check".into(),
                call_id: Some(CallId::new(call).unwrap()),
                exit_code: Some(0),
                timed_out: false,
                duration_ms: 1,
                decision,
                reason: None,
                for_model: None,
                warning: None,
                stdout: String::new(),
                stderr: String::new(),
            },
        )
    }

    #[test]
    fn only_a_hooks_allow_for_this_very_call_authorises_it() {
        let call = CallId::new("c1").unwrap();
        let ok = request()
            .allow_by_hook(&call, &hook_ran(7, "c1", HookDecision::Allow))
            .unwrap();
        assert_eq!(
            ok.authority(),
            Authority::Hook {
                decision: EventSeq(7)
            }
        );
        assert!(request()
            .allow_by_hook(&call, &hook_ran(7, "c2", HookDecision::Allow))
            .is_err());
        assert!(request()
            .allow_by_hook(&call, &hook_ran(7, "c1", HookDecision::Ask))
            .is_err());
        assert!(request()
            .allow_by_hook(&call, &granted(7, "c1", ApprovalScope::Once))
            .is_err());
        // A hook's "ask" turns an allowed call back into a request.
        let back = ok.into_request();
        assert_eq!(back.call().tool().as_str(), "write_file");
    }
}
