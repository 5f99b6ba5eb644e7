//! The application layer's errors and the stable codes front ends branch on
//! (never the message text).

use bearagent_store::StoreError;
use std::path::PathBuf;

/// Stable codes front ends branch on; messages are for people.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    InvalidInput,
    NotFound,
    NotADirectory,
    Storage,
    Conflict,
    /// Something outside BearAgent (an MCP server) failed or did not answer.
    Unavailable,
    Internal,
}

#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error("{0}")]
    InvalidInput(String),
    #[error("{what} not found: {id}")]
    NotFound { what: &'static str, id: String },
    #[error("{path} does not exist")]
    PathMissing { path: PathBuf },
    #[error("{path} is not a folder")]
    NotADirectory { path: PathBuf },
    #[error(
        "{workspace} cannot be a workspace: it holds BearAgent's own folder {folder} \
         (its config, data or program), which a run must never be able to change; \
         open a project folder instead"
    )]
    OwnFolderInWorkspace { workspace: PathBuf, folder: PathBuf },
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("no data directory could be determined; set BEARAGENT_HOME")]
    NoHome,
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("stored events are inconsistent: {0}")]
    Corrupt(String),
    #[error("{0}")]
    Conflict(String),
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
    #[error("{0}")]
    Unavailable(String),
    #[error("internal error: {0}")]
    Internal(String),
}

impl AppError {
    pub fn code(&self) -> ErrorCode {
        match self {
            AppError::InvalidInput(_) | AppError::OwnFolderInWorkspace { .. } => {
                ErrorCode::InvalidInput
            }
            AppError::NotFound { .. } | AppError::PathMissing { .. } => ErrorCode::NotFound,
            AppError::NotADirectory { .. } => ErrorCode::NotADirectory,
            AppError::Io { .. } | AppError::NoHome | AppError::Internal(_) => ErrorCode::Internal,
            AppError::Store(_) | AppError::Corrupt(_) => ErrorCode::Storage,
            AppError::Conflict(_) => ErrorCode::Conflict,
            AppError::Unavailable(_) => ErrorCode::Unavailable,
            AppError::Config(crate::config::ConfigError::Io { .. }) => ErrorCode::Internal,
            AppError::Config(_) => ErrorCode::InvalidInput,
        }
    }
}
