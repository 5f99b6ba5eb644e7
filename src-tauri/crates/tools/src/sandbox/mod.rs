//! An OS sandbox for shell commands (the `run_command` tool).
//!
//! Linux only: the command runs as `bwrap … -- /bin/sh -c COMMAND` under
//! bubblewrap (new user, PID, IPC, UTS, cgroup and — unless the policy allows
//! network — network namespaces; a read-only view of `/` with only the
//! workspace writable; `$HOME` replaced by an empty tmpfs with the
//! toolchains and tool configuration bound back read-only and credentials
//! kept hidden, see `home.rs`; a private `/tmp` and `/run`) plus a seccomp filter (see `seccomp.rs`). Other platforms get
//! [`SandboxError::UnsupportedPlatform`]: the seam for future backends.
//!
//! Output is one merged stream: stdout and stderr of the command are the same
//! pipe, so the bytes arrive in the order the command wrote them (no guessing
//! how to interleave two pipes). `on_chunk` gets each read (at most 8 KiB) as
//! it arrives; the [`CommandOutcome`] keeps only the head and the tail.
//!
//! Lifetime: everything the command starts lives in the sandbox's PID
//! namespace, so it all dies when the command's shell exits, on timeout, on
//! cancel, or when this process dies (`--die-with-parent`). Caveat of the
//! latter: Linux ties it to the *thread* that spawned bwrap, so call [`run`]
//! from a long-lived runtime thread, not a short-lived blocking thread.

use tokio_util::sync::CancellationToken;

#[cfg(target_os = "linux")]
mod bwrap;
#[cfg(target_os = "linux")]
mod capture;
#[cfg(target_os = "linux")]
mod env;
mod error;
pub mod home;
mod hook_authority;
pub mod network;
mod path_drop;
mod policy;
#[cfg(target_os = "linux")]
mod process;
#[cfg(target_os = "linux")]
mod seccomp;
pub mod view;

pub use error::SandboxError;
pub use hook_authority::{HookAuthority, WorkspaceAccess};
pub(crate) use policy::Wiring;
pub use policy::{CommandOutcome, CommandSpec, SandboxMode, SandboxPolicy};

#[cfg(test)]
#[cfg(target_os = "linux")]
#[path = "escape_tests.rs"]
mod escape_tests;
#[cfg(test)]
#[cfg(target_os = "linux")]
#[path = "input_tests.rs"]
mod input_tests;
#[cfg(test)]
#[cfg(target_os = "linux")]
#[path = "lifecycle_tests.rs"]
mod lifecycle_tests;
#[cfg(test)]
#[cfg(target_os = "linux")]
#[path = "testutil.rs"]
mod testutil;

/// Checks once per process that bubblewrap works here (runs `bwrap … true`
/// with the real namespace and seccomp setup); later calls return the cached
/// answer.
pub fn probe() -> Result<(), SandboxError> {
    #[cfg(target_os = "linux")]
    {
        bwrap::bwrap_path().map(|_| ())
    }
    #[cfg(not(target_os = "linux"))]
    {
        Err(SandboxError::UnsupportedPlatform)
    }
}

/// Runs `spec.command` under `policy`, streaming output to `on_chunk`, until
/// it exits, `spec.timeout` passes or `cancel` fires. Nothing the command
/// started outlives this call (with the sandbox off: nothing that stayed in
/// its process group).
pub(crate) async fn run(
    mode: SandboxMode,
    policy: &SandboxPolicy,
    spec: &CommandSpec,
    cancel: CancellationToken,
    on_chunk: impl FnMut(&[u8]) + Send,
) -> Result<CommandOutcome, SandboxError> {
    #[cfg(target_os = "linux")]
    {
        let wiring = Wiring::default();
        process::run(mode, policy, spec, &wiring, cancel, on_chunk).await
    }
    #[cfg(not(target_os = "linux"))]
    {
        // Only the seam exists elsewhere; no unsandboxed fallback either, so a
        // setting cannot silently run commands without the promised shell.
        let _ = (mode, policy, spec, cancel, on_chunk);
        Err(SandboxError::UnsupportedPlatform)
    }
}

/// Runs `spec.command` like [`run`], with `input` on its stdin and its
/// stdout (`output`) and stderr (`stderr`) kept apart: the contract of a
/// hook, which reads JSON and answers on stdout, with a reason on stderr.
/// Only a hook's [`HookAuthority`] opens this door; it decides the mode
/// and whether the workspace is writable.
pub async fn run_with_input(
    authority: &HookAuthority,
    policy: &SandboxPolicy,
    spec: &CommandSpec,
    input: &[u8],
    cancel: CancellationToken,
) -> Result<CommandOutcome, SandboxError> {
    #[cfg(target_os = "linux")]
    {
        use std::io::Write;
        let io = |e: std::io::Error| SandboxError::Io(format!("the command's input file: {e}"));
        // Private to this user (0600), removed when dropped.
        let mut file = tempfile::Builder::new()
            .prefix("bearagent-input-")
            .tempfile()
            .map_err(io)?;
        file.write_all(input).map_err(io)?;
        file.flush().map_err(io)?;
        let wiring = Wiring {
            stdin: Some(file.path().to_path_buf()),
            split_stderr: true,
            workspace_read_only: authority.access() == WorkspaceAccess::ReadOnly,
        };
        process::run(authority.mode(), policy, spec, &wiring, cancel, |_| {}).await
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (authority, policy, spec, input, cancel);
        Err(SandboxError::UnsupportedPlatform)
    }
}
