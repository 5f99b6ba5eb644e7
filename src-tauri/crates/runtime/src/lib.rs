//! BearAgent's application API: the use cases the desktop app and the CLI
//! both call. Front ends send commands here and render what comes back;
//! they hold no state of their own.

mod app;
mod app_commands;
mod app_compact;
mod app_mcp;
mod app_requests;
mod app_resume;
mod app_runs;
mod app_settings;
mod app_threads;
pub mod artifacts;
pub mod config;
pub mod demo;
mod error;
pub mod follow;
pub mod home;
pub mod live;
pub mod logging;
pub mod mcp;
pub mod profile;
mod run;
mod system_clock;
pub mod thread;
mod views;
pub mod watch;

pub use app::Application;
pub use app_compact::Compacted;
pub use app_mcp::McpServerTest;
pub use app_requests::{RunDetail, RunRequest};
pub use app_runs::StartRun;
pub use app_settings::{ProviderSummary, ProviderTest, Settings};
pub use app_threads::{ThreadRun, ThreadStart};
pub use bearagent_kernel::{ApprovalMode, ContextCaps};
pub use bearagent_mcp::McpTool;
pub use bearagent_providers::{Protocol, ToolMode};
pub use bearagent_store::{Ownership, RunFilter, RunOwner};
pub use error::{AppError, ErrorCode};
pub use live::{next_batch, BatchWindow, LiveBatch, LiveEvent};
pub use profile::RunProfile;
pub use run::approvals::Decision;
pub use run::context::{
    build as build_context, BuiltContext, ContextCache, ContextInput, CONTEXT_VERSION,
};
pub use run::snapshot;
pub use system_clock::SystemClock;
pub use views::{RunSummary, Workspace};
