//! Run bundles in the app: "Open run file…" (the native picker), a bundle
//! the app was started with (a double-click on a `.bearagent-run` file),
//! each imported as a read-only run the window then shows; and "Export…"
//! (the native save dialog, then the CLI's `export --bundle FILE`).

use crate::dto::runs::parse_run_id;
use crate::dto::{ApiError, ErrorCode};
use crate::state::AppState;
use bearagent_runtime::bundle::{ExportOptions, BUNDLE_EXTENSION};
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
    .await;
    match picked_path(picked)? {
        Some(path) => import_run_file(state, path).await.map(Some),
        None => Ok(None),
    }
}

/// The bundle the app was started to open, once (then `null`).
#[tauri::command]
#[specta::specta]
#[instrument(skip(state))]
pub async fn opened_run_file(state: State<'_, AppState>) -> Result<Option<String>, ApiError> {
    Ok(state.take_opened_file())
}

/// What an export wrote: the file, the runs in it (the run and the runs it
/// continues) and how much was left out or redacted.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ExportedBundleView {
    pub path: String,
    pub runs: Vec<String>,
    /// Versions of files that look like secrets, left out.
    pub withheld: u32,
    /// Secret values replaced in the bundle's events and blobs.
    pub redacted: u32,
}

/// "Export…": the native save dialog for a `.bearagent-run` file named
/// after the run; `null` when the user cancels. The window then calls
/// `export_run_bundle` with the path (tests, which cannot drive the
/// dialog, call that alone).
#[tauri::command]
#[specta::specta]
#[instrument(skip(app))]
pub async fn pick_bundle_file(app: AppHandle, run_id: String) -> Result<Option<String>, ApiError> {
    let name = format!("{run_id}.{BUNDLE_EXTENSION}");
    let picked = tauri::async_runtime::spawn_blocking(move || {
        app.dialog()
            .file()
            .set_title("Export the run as a BearAgent run file")
            .set_file_name(name)
            .add_filter("BearAgent run", &[BUNDLE_EXTENSION])
            .blocking_save_file()
    })
    .await;
    picked_path(picked)
}

/// The path a native file dialog gave, `None` when the user cancelled.
fn picked_path<E: std::fmt::Display>(
    picked: Result<Option<tauri_plugin_dialog::FilePath>, E>,
) -> Result<Option<String>, ApiError> {
    let picked = picked
        .map_err(|e| ApiError::new(ErrorCode::Dialog, format!("the file dialog failed: {e}")))?;
    let Some(picked) = picked else {
        return Ok(None);
    };
    let path = picked
        .into_path()
        .map_err(|e| ApiError::new(ErrorCode::Dialog, format!("unusable file: {e}")))?;
    Ok(Some(path.to_string_lossy().into_owned()))
}

/// Writes the run with the runs it continues to `path` as one bundle, as
/// `bearagent export RUN_ID --bundle FILE` does (secrets redacted).
#[tauri::command]
#[specta::specta]
#[instrument(skip(state))]
pub async fn export_run_bundle(
    state: State<'_, AppState>,
    run_id: String,
    path: String,
) -> Result<ExportedBundleView, ApiError> {
    let id = parse_run_id(&run_id)?;
    let manifest =
        state
            .app()?
            .export_bundle(id, std::path::Path::new(&path), ExportOptions::default())?;
    Ok(ExportedBundleView {
        path,
        runs: manifest.runs.clone(),
        withheld: u32::try_from(manifest.withheld_blobs.len()).unwrap_or(u32::MAX),
        redacted: u32::try_from(manifest.redacted()).unwrap_or(u32::MAX),
    })
}
