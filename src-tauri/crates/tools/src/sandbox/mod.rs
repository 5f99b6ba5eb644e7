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

pub use hook_authority::{HookAuthority, SandboxMode, WorkspaceAccess};
use std::path::PathBuf;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

#[cfg(target_os = "linux")]
mod bwrap;
#[cfg(target_os = "linux")]
mod capture;
#[cfg(target_os = "linux")]
mod env;
pub mod home;
mod hook_authority;
pub mod network;
#[cfg(target_os = "linux")]
mod process;
#[cfg(target_os = "linux")]
mod seccomp;
pub mod view;

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

/// What the sandboxed command may see and touch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxPolicy {
    /// The project folder: bound read-write at the same path (its `.git`
    /// stays read-only). Canonical; must not be `/`.
    pub workspace: PathBuf,
    /// The user's real home folder. Inside it is an empty tmpfs, so keys,
    /// tokens and dotfiles there are invisible; `HOME` points at it.
    pub home: PathBuf,
    /// false: own network namespace (loopback only) and no sockets other than
    /// AF_UNIX. true: the host's network (including the host's loopback).
    pub network: bool,
    /// Toolchain folders under `home` bound back read-only (missing ones are
    /// skipped), e.g. `~/.cargo`, `~/.rustup`, `~/.npm`, `~/.cache/pip`.
    /// `<dir>/bin`, when it exists, is put on `PATH`.
    pub readable_home_dirs: Vec<PathBuf>,
    /// Folders under `home` bound back read-write (missing ones are
    /// skipped): the package caches, only for a command with the network
    /// on, so it can install dependencies. Deeper than a readable dir, so
    /// `~/.cargo/registry` is writable inside a read-only `~/.cargo`.
    pub writable_home_dirs: Vec<PathBuf>,
    /// Tool configuration under `home` (files or folders), bound
    /// read-only when it exists and does not look like it holds a
    /// credential (see [`home::CONFIG_FILES`]).
    pub config_files: Vec<PathBuf>,
    /// Credentials under `home` that stay unreadable even inside a bound
    /// folder (see [`home::CREDENTIALS`]).
    pub credentials: Vec<PathBuf>,
    /// The user's PATH, in order. Inside, entries the sandbox hides are
    /// left out; system folders and the readable dirs' `bin` follow.
    pub path: Vec<PathBuf>,
    /// Made invisible wherever they are (BearAgent's data and config
    /// folders): an empty read-only tmpfs over a folder, `/dev/null` over a
    /// file. Missing paths are skipped.
    pub hidden: Vec<PathBuf>,
    /// Extra environment the profile names (already resolved); it overrides
    /// the defaults.
    pub env: Vec<(String, String)>,
}

impl SandboxPolicy {
    /// The home folders bound in, readable or writable.
    pub(crate) fn bound_home_dirs(&self) -> Vec<PathBuf> {
        self.readable_home_dirs
            .iter()
            .chain(&self.writable_home_dirs)
            .cloned()
            .collect()
    }
}

/// One command to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandSpec {
    /// Run by `/bin/sh -c`.
    pub command: String,
    /// Working directory; must be inside the workspace.
    pub cwd: PathBuf,
    /// Wall-clock limit; on expiry everything the command started is killed.
    pub timeout: Duration,
    /// Output bytes kept in [`CommandOutcome::output`]: the first half and
    /// the last half of the stream.
    pub output_cap: usize,
}

/// How a command ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandOutcome {
    /// The shell's exit code. Under the sandbox a command killed by signal N
    /// shows as `128 + N` (bubblewrap reports it that way).
    pub exit_code: Option<i32>,
    /// Set when the process we spawned died of a signal (our own kill on
    /// timeout or cancel, or with the sandbox off).
    pub signal: Option<i32>,
    pub duration: Duration,
    /// Merged stdout+stderr: all of it, or head + a marker line
    /// `[… N bytes omitted …]` + tail.
    pub output: Vec<u8>,
    /// Every byte the command wrote, kept or not.
    pub total_bytes: u64,
    pub truncated: bool,
    pub timed_out: bool,
    pub cancelled: bool,
    /// What the command wrote to stderr, when it was kept apart from
    /// `output` ([`run_with_input`]); empty otherwise. Head and tail too.
    pub stderr: Vec<u8>,
}

/// How a command's stdin and stderr are wired. The default (every
/// `run_command`): stdin empty, stderr the same pipe as stdout.
#[derive(Debug, Clone, Default)]
pub(crate) struct Wiring {
    /// A host file whose content is the command's stdin (read-only).
    pub stdin: Option<PathBuf>,
    /// stderr is captured on its own (into [`CommandOutcome::stderr`]).
    pub split_stderr: bool,
    /// The workspace is bound read-only (refused without the sandbox).
    pub workspace_read_only: bool,
}

/// Why a command could not be run. Messages say how to fix it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SandboxError {
    #[error("the command sandbox is unavailable: {reason}. Fix: {fix}")]
    Unavailable { reason: String, fix: String },
    #[error(
        "the command sandbox is only available on Linux so far; \
         turn the sandbox off in settings to run commands unsandboxed"
    )]
    UnsupportedPlatform,
    #[error("invalid sandbox policy: {0}")]
    InvalidPolicy(String),
    #[error("could not start the command: {0}")]
    Spawn(String),
    #[error("I/O error while running the command: {0}")]
    Io(String),
}

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
