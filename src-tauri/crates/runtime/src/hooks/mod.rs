//! Hooks: the user's commands at fixed moments of a run (Claude Code's
//! events and contract). The user's own come from their config file; a
//! workspace's `.bearagent/hooks.toml` runs only once the user trusted
//! that exact content. `run/hook_step.rs` fires them inside the loop.

pub mod config;
pub mod pin;
pub mod runner;
pub mod trust;
pub mod verdict;

pub use config::{check_hooks, CheckedHook, HookEntry, HooksTable, ProjectHooksFile};
pub use trust::{ProjectHook, ProjectHooks, PROJECT_HOOKS_FILE};

use bearagent_kernel::{ContentHash, HookEvent, HookSource};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The hooks one run fires: the user's, then the trusted project's.
#[derive(Debug, Clone, Default)]
pub struct RunHooks {
    pub hooks: Vec<(HookSource, CheckedHook)>,
    /// Project hooks that did not pass the trust gate (told once).
    pub untrusted: Option<UntrustedHooks>,
    /// The user's hooks folder (beside their config file), readable inside
    /// the sandbox so `~/.config/bearagent/hooks/check.py` can run.
    pub hooks_dir: Option<PathBuf>,
    /// Set while a hook runs and until its changes are recorded: the
    /// watcher leaves those to the hook's snapshots, as it does a command's.
    pub writing: Arc<AtomicBool>,
}

/// A project hooks file that did not run, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UntrustedHooks {
    pub file: String,
    pub content_hash: ContentHash,
    pub commands: Vec<String>,
}

/// Marks a run's hooks as writing until dropped (also on an error).
pub(crate) struct Writing<'a>(&'a AtomicBool);

impl Drop for Writing<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::SeqCst);
    }
}

impl RunHooks {
    /// While the value lives, the watcher leaves the workspace's changes
    /// to the hooks' snapshots.
    pub(crate) fn mark_writing(&self) -> Writing<'_> {
        self.writing.store(true, Ordering::SeqCst);
        Writing(&self.writing)
    }

    /// The hooks of `event` whose matcher takes `subject`, in order.
    pub fn matching(
        &self,
        event: HookEvent,
        subject: Option<&str>,
    ) -> Vec<(HookSource, &CheckedHook)> {
        self.hooks
            .iter()
            .filter(|(_, hook)| hook.event == event && hook.matches(subject))
            .map(|(source, hook)| (*source, hook))
            .collect()
    }
}
