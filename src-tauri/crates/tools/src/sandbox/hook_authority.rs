//! The right to start a hook's process: [`run_with_input`](super::run_with_input)
//! runs nothing without a [`HookAuthority`], as the executor runs nothing
//! without an `AuthorizedCall`. The value carries how the hook runs —
//! sandboxed or not, the workspace writable or read-only — so a caller
//! cannot pick a mode of its own.
//!
//! Whether the sandbox is off comes only from the user's profile
//! (`CommandSettings::sandbox`, set by `sandbox = "off"` in the user's
//! config, never by a workspace): there is no way to ask for
//! [`SandboxMode::Off`] directly. The trust decision (a hook of the
//! user's config or of project hooks the user trusted) is the runtime's
//! hook runner's; it is the only caller of [`HookAuthority::for_checked_hook`]
//! (clippy's `disallowed-methods` keeps it so everywhere else).
//!
//! A process cannot be started with a bare mode instead (E0308):
//!
//! ```compile_fail,E0308
//! use bearagent_tools::sandbox::{run_with_input, CommandSpec, SandboxMode, SandboxPolicy};
//! # async fn run(policy: SandboxPolicy, spec: CommandSpec) {
//! let cancel = tokio_util::sync::CancellationToken::new();
//! let _ = run_with_input(SandboxMode::Off, &policy, &spec, b"{}", cancel).await;
//! # }
//! ```
//!
//! and the fields are private, so an authority cannot be forged (E0451):
//!
//! ```compile_fail,E0451
//! use bearagent_tools::sandbox::{HookAuthority, SandboxMode, WorkspaceAccess};
//! let _ = HookAuthority { mode: SandboxMode::Off, access: WorkspaceAccess::Writable };
//! ```

use super::policy::SandboxMode;
use bearagent_kernel::CommandSettings;

/// What a hook may do to the workspace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorkspaceAccess {
    Writable,
    /// Plan mode: the hook reads, never writes.
    ReadOnly,
}

/// A hook's leave to run (see the module's documentation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookAuthority {
    mode: SandboxMode,
    access: WorkspaceAccess,
}

impl HookAuthority {
    /// For a hook the runtime checked as the user's own or trusted: in
    /// the sandbox unless the user's profile turned it off.
    pub fn for_checked_hook(settings: &CommandSettings, access: WorkspaceAccess) -> Self {
        let mode = if settings.sandbox {
            SandboxMode::On
        } else {
            SandboxMode::Off
        };
        Self { mode, access }
    }

    pub fn mode(&self) -> SandboxMode {
        self.mode
    }

    pub fn access(&self) -> WorkspaceAccess {
        self.access
    }
}

#[cfg(test)]
#[allow(
    clippy::disallowed_methods,
    reason = "the test stands in for the hook runner"
)]
mod tests {
    use super::*;

    #[test]
    fn the_sandbox_is_off_only_when_the_profile_says_so() {
        let on = CommandSettings::default();
        let authority = HookAuthority::for_checked_hook(&on, WorkspaceAccess::Writable);
        assert_eq!(authority.mode(), SandboxMode::On);
        let off = CommandSettings {
            sandbox: false,
            ..CommandSettings::default()
        };
        let authority = HookAuthority::for_checked_hook(&off, WorkspaceAccess::ReadOnly);
        assert_eq!(authority.mode(), SandboxMode::Off);
        assert_eq!(authority.access(), WorkspaceAccess::ReadOnly);
    }
}
