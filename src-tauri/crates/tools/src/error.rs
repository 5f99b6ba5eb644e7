//! The two ways a tool call fails: bad arguments (at prepare) and execution
//! failures. Both messages go back to the model, so they say how to fix it.

use crate::workspace::PathError;

/// Bad, missing, extra or mistyped arguments, or a refused path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArgumentError {
    #[error("unknown argument `{name}`; this tool accepts: {allowed}")]
    Unknown { name: String, allowed: String },
    #[error("missing required argument `{name}`")]
    Missing { name: String },
    #[error("argument `{name}` must be {expected}, got {found}")]
    WrongType {
        name: String,
        expected: &'static str,
        found: &'static str,
    },
    #[error("argument `{name}` must be between {min} and {max}, got {value}")]
    OutOfRange {
        name: String,
        min: u64,
        max: u64,
        value: String,
    },
    #[error("argument `{name}`: {reason}")]
    Invalid { name: String, reason: String },
    #[error("argument `{name}`: {source}")]
    Path {
        name: String,
        #[source]
        source: PathError,
    },
}

impl ArgumentError {
    pub(crate) fn invalid(name: &str, reason: impl Into<String>) -> Self {
        ArgumentError::Invalid {
            name: name.into(),
            reason: reason.into(),
        }
    }

    pub(crate) fn path(name: &str, source: PathError) -> Self {
        ArgumentError::Path {
            name: name.into(),
            source,
        }
    }
}

/// A failure while executing a prepared call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolError {
    #[error("{path}: no such file (it may have been moved or deleted)")]
    NotFound { path: String },
    #[error("{path} is a directory, not a file")]
    IsADirectory { path: String },
    #[error("{path} is not a directory")]
    NotADirectory { path: String },
    #[error("{path}: binary file, {bytes} bytes; not shown")]
    Binary { path: String, bytes: u64 },
    #[error("{path} is not valid UTF-8 text; only text files can be edited")]
    InvalidUtf8 { path: String },
    #[error(
        "old_string not found in {path}; read the file and copy the exact text, including whitespace"
    )]
    NoMatch { path: String },
    #[error(
        "old_string occurs {count} times in {path}; include more context so it matches exactly once"
    )]
    MultipleMatches { path: String, count: usize },
    #[error(
        "the diff does not apply to {path}: {reason}; read the file again and send a diff against its current content"
    )]
    DiffDoesNotApply { path: String, reason: String },
    #[error("start_line {start_line} is past the end of {path}, which has {total_lines} lines")]
    LineOutOfRange {
        path: String,
        start_line: u64,
        total_lines: u64,
    },
    #[error(
        "the location of {path} changed since the call was prepared (a directory or symlink was replaced); make the call again"
    )]
    TargetChanged { path: String },
    #[error(transparent)]
    Path(#[from] PathError),
    #[error("malformed prepared call: {reason}")]
    BadCall { reason: String },
    #[error("cancelled")]
    Cancelled,
    /// An MCP server's error, or its tool's error result, as it said it.
    #[error("{message}")]
    External { message: String },
    #[error("{path}: {message}")]
    Io { path: String, message: String },
}

impl ToolError {
    /// Classify an IO error on `path` (shown workspace-relative).
    pub(crate) fn io(path: &str, err: &std::io::Error) -> Self {
        use std::io::ErrorKind;
        match err.kind() {
            ErrorKind::NotFound => ToolError::NotFound { path: path.into() },
            ErrorKind::IsADirectory => ToolError::IsADirectory { path: path.into() },
            ErrorKind::NotADirectory => ToolError::NotADirectory { path: path.into() },
            _ => ToolError::Io {
                path: path.into(),
                message: err.to_string(),
            },
        }
    }

    pub(crate) fn bad_call(reason: impl Into<String>) -> Self {
        ToolError::BadCall {
            reason: reason.into(),
        }
    }
}
