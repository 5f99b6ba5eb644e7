//! Tauri commands: each one delegates to the application API, inside a
//! tracing span, and converts the error at the edge.

use crate::dto::{ApiError, ErrorCode, RunSummaryView, WorkspaceView};
use crate::events::WorkspaceOpened;
use crate::state::AppState;
use tauri::{AppHandle, State};
use tauri_plugin_dialog::DialogExt;
use tauri_specta::Event;
use tracing::instrument;

fn announce(app: &AppHandle, workspace: &WorkspaceView) {
    let event = WorkspaceOpened {
        workspace: workspace.clone(),
    };
    if let Err(e) = event.emit(app) {
        tracing::warn!(error = %e, "could not emit workspace-opened");
    }
}

/// Opens the folder at `path` as the current workspace.
#[tauri::command]
#[specta::specta]
#[instrument(skip(state, app))]
pub async fn open_workspace(
    state: State<'_, AppState>,
    app: AppHandle,
    path: String,
) -> Result<WorkspaceView, ApiError> {
    let view = WorkspaceView::from(state.app()?.open_workspace(&path)?);
    announce(&app, &view);
    Ok(view)
}

/// Shows the native folder picker; `null` when the user cancels.
#[tauri::command]
#[specta::specta]
#[instrument(skip(state, app))]
pub async fn choose_workspace(
    state: State<'_, AppState>,
    app: AppHandle,
) -> Result<Option<WorkspaceView>, ApiError> {
    let application = state.app()?;
    let dialog_app = app.clone();
    let picked = tauri::async_runtime::spawn_blocking(move || {
        dialog_app
            .dialog()
            .file()
            .set_title("Choose a workspace folder")
            .blocking_pick_folder()
    })
    .await
    .map_err(|e| ApiError::new(ErrorCode::Dialog, format!("the folder dialog failed: {e}")))?;
    let Some(picked) = picked else {
        return Ok(None);
    };
    let path = picked
        .into_path()
        .map_err(|e| ApiError::new(ErrorCode::Dialog, format!("unusable folder: {e}")))?;
    let view = WorkspaceView::from(application.open_workspace(&path.to_string_lossy())?);
    announce(&app, &view);
    Ok(Some(view))
}

#[tauri::command]
#[specta::specta]
#[instrument(skip(state))]
pub async fn current_workspace(
    state: State<'_, AppState>,
) -> Result<Option<WorkspaceView>, ApiError> {
    Ok(state.app()?.current_workspace().map(WorkspaceView::from))
}

#[tauri::command]
#[specta::specta]
#[instrument(skip(state))]
pub async fn list_recent_workspaces(
    state: State<'_, AppState>,
) -> Result<Vec<WorkspaceView>, ApiError> {
    let recent = state.app()?.recent_workspaces()?;
    Ok(recent.into_iter().map(WorkspaceView::from).collect())
}

#[tauri::command]
#[specta::specta]
#[instrument(skip(state))]
pub async fn list_runs(
    state: State<'_, AppState>,
    workspace_id: String,
) -> Result<Vec<RunSummaryView>, ApiError> {
    let id = workspace_id
        .parse()
        .map_err(|e| ApiError::new(ErrorCode::InvalidInput, format!("{e}")))?;
    let runs = state.app()?.list_runs(id)?;
    Ok(runs.into_iter().map(RunSummaryView::from).collect())
}
