//! What every handler shares, and the protocol errors they answer with.
//! Apart from `mod.rs` so a prompt's turn can take them without importing
//! the server back.

use super::choice::Choice;
use super::sessions::Sessions;
use agent_client_protocol::{Error, ErrorCode};
use bearagent_runtime::{AppError, Application};
use std::sync::Arc;

/// What every handler shares.
#[derive(Clone)]
pub struct Ctx {
    pub(super) app: Arc<Application>,
    pub(super) sessions: Sessions,
    pub(super) choice: Arc<Choice>,
}

pub(crate) fn invalid(message: impl std::fmt::Display) -> Error {
    Error::new(ErrorCode::INVALID_PARAMS, message.to_string())
}

pub(crate) fn app_error(e: &AppError) -> Error {
    match e.code() {
        bearagent_runtime::ErrorCode::InvalidInput | bearagent_runtime::ErrorCode::NotFound => {
            invalid(e)
        }
        _ => Error::new(ErrorCode::INTERNAL_ERROR, e.to_string()),
    }
}
