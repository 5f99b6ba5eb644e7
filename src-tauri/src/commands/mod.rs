//! Tauri commands: each one delegates to the application API inside a
//! tracing span and converts the error at the edge. No logic lives here.

pub mod artifacts;
pub mod bundles;
pub mod hooks;
pub mod live;
pub mod local;
pub mod mcp;
pub mod page;
pub mod review;
pub mod runs;
pub mod settings;
pub mod threads;
pub mod workspace;
pub mod worktrees;
