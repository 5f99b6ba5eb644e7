//! Turn-grain review: rewind a finished run's files to one of its events
//! (and redo), and keep the user's edit of the run's version of a file.

use crate::dto::review::RewindReportView;
use crate::dto::runs::parse_run_id;
use crate::dto::ApiError;
use crate::state::AppState;
use bearagent_kernel::EventSeq;
use tauri::State;
use tracing::instrument;

/// Puts every file the run changed after event `to` back to what it held
/// then. Refused as a whole (code `conflict`, naming the files) when some
/// changed since, unless `force`.
#[tauri::command]
#[specta::specta]
#[instrument(skip(state))]
pub async fn rewind_run(
    state: State<'_, AppState>,
    run_id: String,
    to: u32,
    force: bool,
) -> Result<RewindReportView, ApiError> {
    let to = EventSeq(u64::from(to));
    Ok(state
        .app()?
        .rewind(parse_run_id(&run_id)?, to, force)?
        .into())
}

/// Undoes the run's last rewind, guarded the same way.
#[tauri::command]
#[specta::specta]
#[instrument(skip(state))]
pub async fn redo_rewind(
    state: State<'_, AppState>,
    run_id: String,
    force: bool,
) -> Result<RewindReportView, ApiError> {
    Ok(state
        .app()?
        .redo_rewind(parse_run_id(&run_id)?, force)?
        .into())
}

/// The run's version of `path` as text, for the user to edit before keeping.
#[tauri::command]
#[specta::specta]
#[instrument(skip(state))]
pub async fn edit_base(
    state: State<'_, AppState>,
    run_id: String,
    path: String,
) -> Result<String, ApiError> {
    Ok(state.app()?.edit_base(parse_run_id(&run_id)?, &path)?)
}

/// Writes and keeps the user's edit; `conflict` when the file changed since
/// BearAgent last wrote it, unless `force`.
#[tauri::command]
#[specta::specta]
#[instrument(skip(state, content))]
pub async fn keep_edited(
    state: State<'_, AppState>,
    run_id: String,
    path: String,
    content: String,
    force: bool,
) -> Result<(), ApiError> {
    let run_id = parse_run_id(&run_id)?;
    Ok(state.app()?.keep_edited(run_id, &path, &content, force)?)
}
