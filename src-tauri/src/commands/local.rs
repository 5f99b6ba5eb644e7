//! Local model servers (llama.cpp, Ollama, LM Studio, vLLM): find them on
//! the usual loopback ports, and turn one's model into a provider.

use crate::dto::local::{AddedLocalProviderView, LocalDetectionView};
use crate::dto::ApiError;
use crate::state::AppState;
use bearagent_providers::local::DetectOptions;
use std::time::Duration;
use tauri::State;
use tracing::instrument;

/// How long adding waits for the server it was shown: it answered a
/// moment ago, so longer than detection's sweep, still short.
const ADD_BUDGET: Duration = Duration::from_secs(2);

/// Probes the usual loopback ports at once (300 ms in all).
#[tauri::command]
#[specta::specta]
#[instrument(skip(state))]
pub async fn detect_local_providers(
    state: State<'_, AppState>,
) -> Result<LocalDetectionView, ApiError> {
    let app = state.app()?;
    Ok(app
        .detect_local_providers(&DetectOptions::default())
        .await
        .into())
}

/// Asks the server at `base_url` again and writes provider `name` for its
/// `model` (its first model when none), with the window learned and the
/// tool mode its template allows. An existing provider is never replaced.
#[tauri::command]
#[specta::specta]
#[instrument(skip(state))]
pub async fn add_local_provider(
    state: State<'_, AppState>,
    name: String,
    base_url: String,
    model: Option<String>,
) -> Result<AddedLocalProviderView, ApiError> {
    let only = DetectOptions {
        ports: Vec::new(),
        urls: vec![base_url],
        budget: ADD_BUDGET,
    };
    let added = state
        .app()?
        .add_detected_provider(&name, model.as_deref(), &only)
        .await?;
    Ok(added.into())
}
