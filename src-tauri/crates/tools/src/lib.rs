//! BearAgent tools: the `Tool` trait, the registry, the approval policy, the
//! bounded executor, workspace confinement and the workspace tools.
//!
//! Every tool call walks one path (DESIGN principle 3): exact registry lookup
//! ([`Registry::get`]) → [`Tool::prepare`] (parse and normalise arguments,
//! confine paths to the [`WorkspaceRoot`]) → [`Policy::decide`] (from the
//! trusted [`ToolSpec`] and the [`PreparedCall`] only) → approval if asked →
//! [`Executor::execute`] (once, on a blocking thread, inside a timeout, with
//! the output size bounded). The executor takes only an [`AuthorizedCall`],
//! which only the policy or a recorded user approval can produce (see the
//! `authorization` module: skipping the policy does not compile).
//!
//! Receipts: every writing call carries a [`WriteTarget`] naming the one file
//! it will change, so the runtime can hash that file before (intent) and after
//! (outcome). The writing tools replace the file atomically (temporary file in
//! the same directory, then rename), so the file is always either the before
//! or the after image — never a partial write.
#![cfg_attr(
    test,
    allow(
        clippy::disallowed_methods,
        reason = "tests write their own fixtures; the effect rule is for shipped code"
    )
)]

mod args;
mod atomic;
mod authorization;
pub mod command;
mod error;
mod executor;
mod policy;
mod prepared;
mod registry;
pub mod sandbox;
mod spec;
mod text;
pub mod tools;
pub mod web;
mod workspace;

#[cfg(test)]
mod flow_tests;
#[cfg(test)]
mod testutil;

pub use args::wrong_type;
pub use atomic::{
    new_file_mode, remove_file, remove_leftover_temp_files, replace_file, replace_file_unsynced,
    replace_file_with_mode, sync_filesystem,
};
pub use authorization::{ApprovalRequest, Authority, AuthorizedCall, FirmAsk, NotApproved};
pub use error::{ArgumentError, ToolError};
pub use executor::{ExecOutcome, Executor, ExecutorLimits};
pub use policy::{
    describe_verdict, ApprovalMode, ParseApprovalModeError, Policy, PolicyDecision, ToolRule,
    PLAN_MODE_REFUSAL,
};
pub use registry::{Registered, Registry, RegistryError};
pub use spec::{
    CommandPlan, Effect, PreparedCall, Tool, ToolOutput, ToolSpec, WorkspaceTool, WriteTarget,
};
pub use text::floor_char_boundary;
pub use tools::update_plan::NAME as UPDATE_PLAN;
pub use workspace::{PathError, WorkspaceRoot};
