//! BearAgent's application API: the use cases the desktop app and the CLI
//! both call. Front ends send commands here and render what comes back;
//! they hold no state of their own.
#![cfg_attr(
    test,
    allow(
        clippy::disallowed_methods,
        reason = "tests write their own fixtures; the effect rule is for shipped code"
    )
)]

mod app;
pub mod artifacts;
pub mod bundle;
pub mod config;
mod delegation;
pub mod demo;
mod error;
pub mod follow;
pub mod home;
pub mod hooks;
pub mod live;
pub mod live_feed;
mod local;
pub mod logging;
pub mod mcp;
pub mod profile;
pub mod replay;
mod run;
mod system_clock;
#[cfg(test)]
mod test_support;
pub mod thread;
mod views;
pub mod watch;
pub mod worktrees;

pub use app::compact::Compacted;
pub use app::helper_runs::HelperRun;
pub use app::images::RunImage;
pub use app::local_servers::AddedProvider;
pub use app::mcp::McpServerTest;
pub use app::proposal::ProposedChange;
pub use app::remembered::RememberScope;
pub use app::requests::{RunDetail, RunRequest};
pub use app::runs::{ImageInput, StartRun};
pub use app::settings::{ProviderSummary, ProviderTest, Settings};
pub use app::threads::{ThreadRun, ThreadStart};
pub use app::Application;
pub use bearagent_kernel::{ApprovalMode, ContextCaps};
pub use bearagent_mcp::McpTool;
pub use bearagent_providers::{Protocol, ToolMode};
pub use bearagent_store::{Ownership, RunFilter, RunOwner};
pub use run::loops::LOOP_QUESTION;
pub use run::web_step::WEB_QUESTION;
/// What a command of a profile sees of this machine
/// ([`Application::command_view`]), and the credentials it never reads.
pub mod sandbox_view {
    pub use bearagent_tools::sandbox::home::CREDENTIALS;
    pub use bearagent_tools::sandbox::view::{
        DroppedPath, PathDrop, PathEntry, PathSource, SandboxView,
    };
}
pub use error::{AppError, ErrorCode};
pub use live::{next_batch, BatchWindow, LiveBatch, LiveEvent};
pub use live_feed::{FeedPage, FeedWait, LiveFeed};
pub use profile::RunProfile;
pub use run::approvals::Decision;
pub use run::context::{build as build_context, BuiltContext, ContextInput, CONTEXT_VERSION};
pub use run::context_cache::ContextCache;
pub use run::context_profile::ContextProfile;
pub use run::safety_net;
pub use run::snapshot;
pub use system_clock::SystemClock;
pub use views::{RunSummary, Workspace};
