//! Threads: reply to a finished run (a follow-up, or a fork from one of
//! its events) and read the thread a run belongs to.

use crate::dto::runs::{image_inputs, parse_run_id, ImageUpload, StartedRun};
use crate::dto::threads::{CompactedView, RunImageView, ThreadRunView};
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
    images: Vec<ImageUpload>,
) -> Result<StartedRun, ApiError> {
    let parent = parse_run_id(&run_id)?;
    let images = image_inputs(images)?;
    let child = state
        .app()?
        .reply_to_run(parent, at_seq.map(EventSeq), message, images)?;
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

/// Summarises a finished run now, for its next follow-up.
#[tauri::command]
#[specta::specta]
#[instrument(skip(state))]
pub async fn compact_run(
    state: State<'_, AppState>,
    run_id: String,
) -> Result<CompactedView, ApiError> {
    let run_id = parse_run_id(&run_id)?;
    let done = state.app()?.compact_run(run_id).await?;
    Ok(CompactedView {
        tokens_before: done.tokens_before,
        tokens_after: done.tokens_after,
    })
}

/// The text of a compaction summary or of instructions a run's event
/// references.
#[tauri::command]
#[specta::specta]
#[instrument(skip(state))]
pub async fn event_text(
    state: State<'_, AppState>,
    run_id: String,
    blob: String,
) -> Result<String, ApiError> {
    let run_id = parse_run_id(&run_id)?;
    let blob = bearagent_kernel::ContentHash::parse(&blob)
        .map_err(|e| ApiError::new(crate::dto::ErrorCode::InvalidInput, e.to_string()))?;
    Ok(state.app()?.event_text(run_id, &blob)?)
}

/// An image of the run (a goal's screenshot, an image a tool returned).
#[tauri::command]
#[specta::specta]
#[instrument(skip(state))]
pub async fn run_image(
    state: State<'_, AppState>,
    run_id: String,
    blob: String,
) -> Result<RunImageView, ApiError> {
    let run_id = parse_run_id(&run_id)?;
    let blob = bearagent_kernel::ContentHash::parse(&blob)
        .map_err(|e| ApiError::new(crate::dto::ErrorCode::InvalidInput, e.to_string()))?;
    Ok(state.app()?.run_image(run_id, &blob)?.into())
}
