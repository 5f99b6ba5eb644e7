//! Worktree runs: list the worktrees, apply one to the main checkout (and
//! undo that), discard one, prune the finished ones.

use crate::dto::runs::parse_run_id;
use crate::dto::worktrees::{ApplyReportView, WorktreeView};
use crate::dto::ApiError;
use crate::state::AppState;
use tauri::State;
use tracing::instrument;

/// Every worktree a run made and BearAgent has not removed, newest first.
#[tauri::command]
#[specta::specta]
#[instrument(skip(state))]
pub async fn list_worktrees(state: State<'_, AppState>) -> Result<Vec<WorktreeView>, ApiError> {
    Ok(state
        .app()?
        .worktrees()?
        .into_iter()
        .map(Into::into)
        .collect())
}

/// Applies the run's worktree to the main checkout: `paths`, or every
/// file it changed when empty. Conflicting files are refused by name.
#[tauri::command]
#[specta::specta]
#[instrument(skip(state, paths))]
pub async fn apply_worktree(
    state: State<'_, AppState>,
    run_id: String,
    paths: Vec<String>,
) -> Result<ApplyReportView, ApiError> {
    let run_id = parse_run_id(&run_id)?;
    Ok(state.app()?.apply_worktree(run_id, &paths)?.into())
}

/// Puts the main checkout back as it was before the run's applies (byte
/// and mode); refused, naming them, where the user changed a file since,
/// unless `force`. The paths put back.
#[tauri::command]
#[specta::specta]
#[instrument(skip(state))]
pub async fn undo_apply(
    state: State<'_, AppState>,
    run_id: String,
    force: bool,
) -> Result<Vec<String>, ApiError> {
    let run_id = parse_run_id(&run_id)?;
    Ok(state.app()?.undo_apply(run_id, force)?)
}

/// Removes the run's worktree and branch without applying it.
#[tauri::command]
#[specta::specta]
#[instrument(skip(state))]
pub async fn discard_worktree(state: State<'_, AppState>, run_id: String) -> Result<(), ApiError> {
    let run_id = parse_run_id(&run_id)?;
    Ok(state.app()?.discard_worktree(run_id)?)
}

/// Removes the worktrees that were applied (or discarded and left behind).
#[tauri::command]
#[specta::specta]
#[instrument(skip(state))]
pub async fn prune_worktrees(state: State<'_, AppState>) -> Result<Vec<WorktreeView>, ApiError> {
    Ok(state
        .app()?
        .prune_worktrees()?
        .into_iter()
        .map(Into::into)
        .collect())
}
