//! What a sandboxed command may see and touch, how it is run and how it
//! ended: the values the sandbox's files share, below `mod.rs` (the door).

use std::path::PathBuf;
use std::time::Duration;

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
    /// credential (see [`home::CONFIG_FILES`](super::home::CONFIG_FILES)).
    pub config_files: Vec<PathBuf>,
    /// Credentials under `home` that stay unreadable even inside a bound
    /// folder (see [`home::CREDENTIALS`](super::home::CREDENTIALS)).
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

/// Whether to sandbox. `Off` is an explicit user setting (the caller asks for
/// approval): plain `sh -c` with the same scrubbed environment, no isolation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SandboxMode {
    On,
    Off,
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
    /// `output` ([`run_with_input`](super::run_with_input)); empty otherwise. Head and tail too.
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
