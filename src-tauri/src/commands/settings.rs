//! Settings commands: providers (keys go to the OS keychain), profiles,
//! "Test connection", and what a profile's commands see.

use crate::dto::sandbox::CommandSandboxView;
use crate::dto::settings::{
    ProfileView, ProviderInput, ProviderTestView, RememberedRuleView, SettingsView,
};
use crate::dto::ApiError;
use crate::state::AppState;
use bearagent_runtime::config::ProviderOverrides;
use tauri::State;
use tracing::instrument;

#[tauri::command]
#[specta::specta]
#[instrument(skip(state))]
pub async fn get_settings(state: State<'_, AppState>) -> Result<SettingsView, ApiError> {
    Ok(SettingsView::from(state.app()?.settings()?))
}

#[tauri::command]
#[specta::specta]
#[instrument(skip(state, provider), fields(name = %provider.name))]
pub async fn save_provider(
    state: State<'_, AppState>,
    provider: ProviderInput,
) -> Result<(), ApiError> {
    let (name, entry) = provider.into_entry()?;
    Ok(state.app()?.save_provider(&name, entry)?)
}

#[tauri::command]
#[specta::specta]
#[instrument(skip(state))]
pub async fn delete_provider(state: State<'_, AppState>, name: String) -> Result<(), ApiError> {
    Ok(state.app()?.delete_provider(&name)?)
}

/// Stores the key in the OS keychain. It is never sent back.
#[tauri::command]
#[specta::specta]
#[instrument(skip(state, key))]
pub async fn set_provider_key(
    state: State<'_, AppState>,
    name: String,
    key: String,
) -> Result<(), ApiError> {
    Ok(state.app()?.set_provider_key(&name, &key)?)
}

#[tauri::command]
#[specta::specta]
#[instrument(skip(state))]
pub async fn test_provider(
    state: State<'_, AppState>,
    name: String,
) -> Result<ProviderTestView, ApiError> {
    let result = state
        .app()?
        .test_provider(&name, &ProviderOverrides::default())
        .await?;
    Ok(result.into())
}

#[tauri::command]
#[specta::specta]
#[instrument(skip(state, profile), fields(name = %profile.name))]
pub async fn save_profile(
    state: State<'_, AppState>,
    profile: ProfileView,
) -> Result<(), ApiError> {
    let (name, entry) = profile.into_entry();
    Ok(state.app()?.save_profile(&name, entry)?)
}

#[tauri::command]
#[specta::specta]
#[instrument(skip(state))]
pub async fn delete_profile(state: State<'_, AppState>, name: String) -> Result<(), ApiError> {
    Ok(state.app()?.delete_profile(&name)?)
}

/// What a command of `profile` sees of this machine: toolchain folders,
/// configuration passed, credentials hidden, PATH, network.
#[tauri::command]
#[specta::specta]
#[instrument(skip(state))]
pub async fn sandbox_view(
    state: State<'_, AppState>,
    profile: String,
) -> Result<CommandSandboxView, ApiError> {
    let (settings, view) = state.app()?.command_view(&profile)?;
    Ok(CommandSandboxView::new(profile, &settings, view))
}

/// The approvals remembered beyond their runs.
#[tauri::command]
#[specta::specta]
#[instrument(skip(state))]
pub async fn remembered_rules(
    state: State<'_, AppState>,
) -> Result<Vec<RememberedRuleView>, ApiError> {
    Ok(RememberedRuleView::list(
        state.app()?.remembered_commands()?,
    ))
}

/// Forgets the remembered rule with the stable `id` (as listed).
#[tauri::command]
#[specta::specta]
#[instrument(skip(state))]
pub async fn forget_rule(state: State<'_, AppState>, id: String) -> Result<(), ApiError> {
    state.app()?.forget_command(&id)?;
    Ok(())
}
