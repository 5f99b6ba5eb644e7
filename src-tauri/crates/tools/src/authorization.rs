//! Authorisation as a value (DESIGN principle 8): the executor and every
//! tool accept only an [`AuthorizedCall`], and only two things make one —
//! [`Policy::decide`](crate::Policy::decide) when it allows a call, and
//! [`ApprovalRequest::approve`] when the user's approval of a call the
//! policy asked about has been recorded. An `ApprovalRequest` in turn comes
//! only from the policy. Code that skips the policy does not compile.
//!
//! The right way compiles:
//!
//! ```
//! use bearagent_tools::{ApprovalMode, Executor, Policy, PolicyDecision, Registry, Tool, WorkspaceRoot};
//! # async fn run(ws: WorkspaceRoot) {
//! let registry = Registry::with_workspace_tools();
//! let tool = registry.get("list_dir").unwrap();
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
//! use bearagent_tools::{Executor, Registry, Tool, WorkspaceRoot};
//! # async fn run(ws: WorkspaceRoot) {
//! let registry = Registry::with_workspace_tools();
//! let tool = registry.get("write_file").unwrap();
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
//! use bearagent_tools::{Registry, Tool, WorkspaceRoot};
//! # fn run(ws: WorkspaceRoot) {
//! let registry = Registry::with_workspace_tools();
//! let tool = registry.get("write_file").unwrap();
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
//! AuthorizedCall { call, authority: Authority::Policy }
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

use crate::spec::PreparedCall;
use bearagent_kernel::EventSeq;
use std::ops::Deref;

/// Who allowed a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Authority {
    /// The policy allowed it outright.
    Policy,
    /// The user approved it; the approval is the event with this seq (for
    /// "always for this run", the approval that granted the tool).
    User { approval: EventSeq },
}

/// A prepared call the policy allowed or the user approved: the only thing
/// [`Executor::execute`](crate::Executor::execute) and
/// [`Tool::execute`](crate::Tool::execute) accept. Read-only access to the
/// call through `Deref`. Not `Clone`: one authorisation, one execution.
#[derive(Debug, PartialEq)]
pub struct AuthorizedCall {
    call: PreparedCall,
    authority: Authority,
}

impl AuthorizedCall {
    /// Only the policy (same crate) allows without a user.
    pub(crate) fn by_policy(call: PreparedCall) -> Self {
        Self {
            call,
            authority: Authority::Policy,
        }
    }

    pub fn authority(&self) -> Authority {
        self.authority
    }

    pub fn prepared(&self) -> &PreparedCall {
        &self.call
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
}

impl ApprovalRequest {
    pub(crate) fn new(call: PreparedCall) -> Self {
        Self { call }
    }

    /// What the user is asked about.
    pub fn call(&self) -> &PreparedCall {
        &self.call
    }

    /// The user's approval was recorded as the event `approval`: the call
    /// may run.
    pub fn approve(self, approval: EventSeq) -> AuthorizedCall {
        AuthorizedCall {
            call: self.call,
            authority: Authority::User { approval },
        }
    }
}
