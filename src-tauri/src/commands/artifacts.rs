//! The run's changes: list, diff, keep, revert (guarded), re-apply, export.

use crate::dto::artifacts::{
    ArtifactItem, ExportedView, FileDiffView, ProposedChangeView, UntrackedItem,
};
use crate::dto::runs::parse_run_id;
use crate::dto::ApiError;
use crate::state::AppState;
use tauri::State;
use tracing::instrument;

#[tauri::command]
#[specta::specta]
#[instrument(skip(state))]
pub async fn list_artifacts(
    state: State<'_, AppState>,
    run_id: String,
) -> Result<Vec<ArtifactItem>, ApiError> {
    let items = state.app()?.artifacts(parse_run_id(&run_id)?)?;
    Ok(items.into_iter().map(ArtifactItem::from).collect())
}

/// What the run's commands changed that is not tracked (not restorable).
#[tauri::command]
#[specta::specta]
#[instrument(skip(state))]
pub async fn list_untracked(
    state: State<'_, AppState>,
    run_id: String,
) -> Result<Vec<UntrackedItem>, ApiError> {
    let items = state.app()?.untracked_effects(parse_run_id(&run_id)?)?;
    Ok(items.into_iter().map(UntrackedItem::from).collect())
}

/// What the write waiting for approval would change in its file now.
#[tauri::command]
#[specta::specta]
#[instrument(skip(state))]
pub async fn pending_change(
    state: State<'_, AppState>,
    run_id: String,
) -> Result<Option<ProposedChangeView>, ApiError> {
    let change = state.app()?.pending_change(parse_run_id(&run_id)?)?;
    Ok(change.map(ProposedChangeView::from))
}

/// The run's change to one file; files over 1 MB give stats unless `full`.
#[tauri::command]
#[specta::specta]
#[instrument(skip(state))]
pub async fn artifact_diff(
    state: State<'_, AppState>,
    run_id: String,
    path: String,
    full: bool,
) -> Result<FileDiffView, ApiError> {
    Ok(state
        .app()?
        .artifact_diff(parse_run_id(&run_id)?, &path, full)?
        .into())
}

#[tauri::command]
#[specta::specta]
#[instrument(skip(state))]
pub async fn keep_artifact(
    state: State<'_, AppState>,
    run_id: String,
    path: String,
) -> Result<(), ApiError> {
    Ok(state.app()?.keep_artifact(parse_run_id(&run_id)?, &path)?)
}

/// Refuses (code `conflict`) when the file changed since the run wrote it,
/// unless `force`, which first saves the current content.
#[tauri::command]
#[specta::specta]
#[instrument(skip(state))]
pub async fn revert_artifact(
    state: State<'_, AppState>,
    run_id: String,
    path: String,
    force: bool,
) -> Result<(), ApiError> {
    Ok(state
        .app()?
        .revert_artifact(parse_run_id(&run_id)?, &path, force)?)
}

/// Reverts only these hunks (numbered from 1 in the file's diff).
#[tauri::command]
#[specta::specta]
#[instrument(skip(state))]
pub async fn revert_hunks(
    state: State<'_, AppState>,
    run_id: String,
    path: String,
    hunks: Vec<u32>,
    force: bool,
) -> Result<(), ApiError> {
    Ok(state
        .app()?
        .revert_hunks(parse_run_id(&run_id)?, &path, &hunks, force)?)
}

/// Keeps hunks `hunks` (numbered from 1) of the run's change to `path`:
/// recorded, the file untouched.
#[tauri::command]
#[specta::specta]
#[instrument(skip(state))]
pub async fn keep_hunks(
    state: State<'_, AppState>,
    run_id: String,
    path: String,
    hunks: Vec<u32>,
) -> Result<(), ApiError> {
    Ok(state
        .app()?
        .keep_hunks(parse_run_id(&run_id)?, &path, &hunks)?)
}

#[tauri::command]
#[specta::specta]
#[instrument(skip(state))]
pub async fn reapply_artifact(
    state: State<'_, AppState>,
    run_id: String,
    path: String,
    force: bool,
) -> Result<(), ApiError> {
    Ok(state
        .app()?
        .reapply_artifact(parse_run_id(&run_id)?, &path, force)?)
}

/// Writes the run's JSON export and Markdown report under `<data>/exports`.
#[tauri::command]
#[specta::specta]
#[instrument(skip(state))]
pub async fn export_run(
    state: State<'_, AppState>,
    run_id: String,
) -> Result<ExportedView, ApiError> {
    let run_id = parse_run_id(&run_id)?;
    Ok(state.app()?.export_run_to_data_folder(run_id)?.into())
}
