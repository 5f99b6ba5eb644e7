//! Run bundles in the app: "Open run file…" (the native picker), a bundle
//! the app was started with (a double-click on a `.bearagent-run` file),
//! each imported as a read-only run the window then shows.

use crate::dto::{ApiError, ErrorCode};
use crate::state::AppState;
use bearagent_runtime::bundle::BUNDLE_EXTENSION;
use serde::Serialize;
use tauri::{AppHandle, State};
use tauri_plugin_dialog::DialogExt;
use tracing::instrument;

/// What an import added.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ImportedRunView {
    /// The bundle's run: the one to show.
    pub run_id: String,
    /// Runs added (the bundle's run and the runs it continues that this
    /// store did not have).
    pub added: Vec<String>,
}

/// The first command-line argument naming a bundle file, if any.
pub fn bundle_argument() -> Option<String> {
    std::env::args()
        .skip(1)
        .find(|a| a.ends_with(&format!(".{BUNDLE_EXTENSION}")))
}

/// Imports the bundle at `path` as a read-only run.
#[tauri::command]
#[specta::specta]
#[instrument(skip(state))]
pub async fn import_run_file(
    state: State<'_, AppState>,
    path: String,
) -> Result<ImportedRunView, ApiError> {
    let report = state.app()?.import_bundle(std::path::Path::new(&path))?;
    Ok(ImportedRunView {
        run_id: report.run_id.to_string(),
        added: report.added.iter().map(ToString::to_string).collect(),
    })
}

/// "Open run file…": the native picker for `.bearagent-run` files, then
/// the import; `null` when the user cancels.
#[tauri::command]
#[specta::specta]
#[instrument(skip(state, app))]
pub async fn open_run_file(
    state: State<'_, AppState>,
    app: AppHandle,
) -> Result<Option<ImportedRunView>, ApiError> {
    let picked = tauri::async_runtime::spawn_blocking(move || {
        app.dialog()
            .file()
            .set_title("Open a BearAgent run file")
            .add_filter("BearAgent run", &[BUNDLE_EXTENSION])
            .blocking_pick_file()
    })
    .await
    .map_err(|e| ApiError::new(ErrorCode::Dialog, format!("the file dialog failed: {e}")))?;
    let Some(picked) = picked else {
        return Ok(None);
    };
    let path = picked
        .into_path()
        .map_err(|e| ApiError::new(ErrorCode::Dialog, format!("unusable file: {e}")))?;
    import_run_file(state, path.to_string_lossy().into_owned())
        .await
        .map(Some)
}

/// The bundle the app was started to open, once (then `null`).
#[tauri::command]
#[specta::specta]
#[instrument(skip(state))]
pub async fn opened_run_file(state: State<'_, AppState>) -> Result<Option<String>, ApiError> {
    Ok(state.take_opened_file())
}
