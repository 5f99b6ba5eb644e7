//! Threads: reply to a finished run (a follow-up, or a fork from one of
//! its events) and read the thread a run belongs to.

use crate::dto::runs::{parse_run_id, StartedRun};
use crate::dto::threads::ThreadRunView;
use crate::dto::ApiError;
use crate::state::AppState;
use bearagent_kernel::EventSeq;
use tauri::State;
use tracing::instrument;

/// Starts a follow-up of a finished run with `message` as its goal; with
/// `at_seq`, a fork that keeps the run's events up to that one.
#[tauri::command]
#[specta::specta]
#[instrument(skip(state, message))]
pub async fn reply_to_run(
    state: State<'_, AppState>,
    run_id: String,
    message: String,
    at_seq: Option<u64>,
) -> Result<StartedRun, ApiError> {
    let parent = parse_run_id(&run_id)?;
    let child = state
        .app()?
        .reply_to_run(parent, at_seq.map(EventSeq), message)?;
    Ok(StartedRun {
        run_id: child.to_string(),
    })
}

/// The runs `run_id` continues, oldest first, then the run itself.
#[tauri::command]
#[specta::specta]
#[instrument(skip(state))]
pub async fn get_thread(
    state: State<'_, AppState>,
    run_id: String,
) -> Result<Vec<ThreadRunView>, ApiError> {
    let run_id = parse_run_id(&run_id)?;
    let thread = state.app()?.thread(run_id)?;
    Ok(thread.into_iter().map(ThreadRunView::from).collect())
}
