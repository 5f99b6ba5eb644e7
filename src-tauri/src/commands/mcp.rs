//! MCP server commands of Settings: save, delete, store a secret, Test.

use crate::dto::mcp::{McpServerTestView, McpServerView};
use crate::dto::ApiError;
use crate::state::AppState;
use tauri::State;
use tracing::instrument;

#[tauri::command]
#[specta::specta]
#[instrument(skip(state, server), fields(name = %server.name))]
pub async fn save_mcp_server(
    state: State<'_, AppState>,
    server: McpServerView,
) -> Result<(), ApiError> {
    let (name, entry) = server.into_entry()?;
    Ok(state.app()?.save_mcp_server(&name, entry)?)
}

#[tauri::command]
#[specta::specta]
#[instrument(skip(state))]
pub async fn delete_mcp_server(state: State<'_, AppState>, name: String) -> Result<(), ApiError> {
    Ok(state.app()?.delete_mcp_server(&name)?)
}

/// Stores a server secret in the OS keychain. It is never sent back.
#[tauri::command]
#[specta::specta]
#[instrument(skip(state, value))]
pub async fn set_mcp_secret(
    state: State<'_, AppState>,
    server: String,
    name: String,
    value: String,
) -> Result<(), ApiError> {
    Ok(state.app()?.set_mcp_secret(&server, &name, &value)?)
}

/// Starts the server, lists its tools and stops it.
#[tauri::command]
#[specta::specta]
#[instrument(skip(state))]
pub async fn test_mcp_server(
    state: State<'_, AppState>,
    name: String,
) -> Result<McpServerTestView, ApiError> {
    Ok(state.app()?.test_mcp_server(&name).await?.into())
}
