//! Settings commands: providers (keys go to the OS keychain), profiles,
//! and "Test connection".

use crate::dto::mcp::McpServerView;
use crate::dto::settings::{ProfileView, ProviderInput, ProviderTestView, SettingsView};
use crate::dto::ApiError;
use crate::state::AppState;
use bearagent_runtime::config::ProviderOverrides;
use tauri::State;
use tracing::instrument;

#[tauri::command]
#[specta::specta]
#[instrument(skip(state))]
pub async fn get_settings(state: State<'_, AppState>) -> Result<SettingsView, ApiError> {
    let app = state.app()?;
    let settings = app.settings()?;
    let mut profiles = Vec::new();
    for (name, _) in &settings.profiles {
        let (profile, provider, _) = app.profile_named(name)?;
        profiles.push(ProfileView::from_profile(profile, provider));
    }
    let mcp_servers = settings
        .mcp_servers
        .iter()
        .map(|(name, entry)| {
            let keychain = app.mcp_secrets_present(name, entry);
            McpServerView::new(name.clone(), entry.clone(), &keychain)
        })
        .collect();
    Ok(SettingsView::new(settings, profiles, mcp_servers))
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
