//! Project hooks behind the trust gate: show a workspace's hooks file,
//! trust the exact content the user reviewed, or take the trust back.

use crate::dto::hooks::ProjectHooksView;
use crate::dto::ApiError;
use crate::state::AppState;
use tauri::State;
use tracing::instrument;

/// The workspace's `.bearagent/hooks.toml`, if any, with its trust state.
#[tauri::command]
#[specta::specta]
#[instrument(skip(state))]
pub async fn project_hooks(
    state: State<'_, AppState>,
    workspace: String,
) -> Result<Option<ProjectHooksView>, ApiError> {
    Ok(state.app()?.project_hooks(&workspace)?.map(Into::into))
}

/// Trusts the hooks file as the user saw it (`sha256` from
/// `project_hooks`); a file changed since is refused (`conflict`).
#[tauri::command]
#[specta::specta]
#[instrument(skip(state))]
pub async fn trust_project_hooks(
    state: State<'_, AppState>,
    workspace: String,
    sha256: String,
) -> Result<ProjectHooksView, ApiError> {
    Ok(state
        .app()?
        .trust_project_hooks(&workspace, &sha256)?
        .into())
}

/// Takes back the trust in the workspace's hooks file.
#[tauri::command]
#[specta::specta]
#[instrument(skip(state))]
pub async fn untrust_project_hooks(
    state: State<'_, AppState>,
    workspace: String,
) -> Result<bool, ApiError> {
    Ok(state.app()?.untrust_project_hooks(&workspace)?)
}
