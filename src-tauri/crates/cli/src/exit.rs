use bearagent_kernel::RunStatus;
use bearagent_runtime::{AppError, ErrorCode};
use std::process::ExitCode;

/// Distinct, documented exit codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    Succeeded = 0,
    Failed = 1,
    Usage = 2,
    BudgetExhausted = 3,
    Stopped = 4,
    Internal = 5,
}

impl From<Exit> for ExitCode {
    fn from(e: Exit) -> Self {
        ExitCode::from(e as u8)
    }
}

impl Exit {
    pub fn for_status(status: &RunStatus) -> Exit {
        match status {
            RunStatus::Succeeded => Exit::Succeeded,
            RunStatus::Failed { .. } => Exit::Failed,
            RunStatus::BudgetExhausted { .. } => Exit::BudgetExhausted,
            RunStatus::Cancelled | RunStatus::Interrupted => Exit::Stopped,
            // The loop always ends a run; a live status here is our bug.
            RunStatus::Created | RunStatus::Running | RunStatus::AwaitingApproval => Exit::Internal,
        }
    }
}

/// Prints an application error and picks its exit code.
pub fn report(e: &AppError) -> Exit {
    eprintln!("bearagent: {e}");
    match e.code() {
        ErrorCode::InvalidInput | ErrorCode::NotFound | ErrorCode::NotADirectory => Exit::Usage,
        ErrorCode::Conflict | ErrorCode::Unavailable => Exit::Failed,
        ErrorCode::Storage | ErrorCode::Internal => Exit::Internal,
    }
}

pub fn usage(message: impl std::fmt::Display) -> Exit {
    eprintln!("bearagent: {message}");
    Exit::Usage
}
