//! Why a sandboxed command could not be run.

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
