//! The page's own lifecycle: it says when it is new and when it has been
//! left alone; the shell may then recycle its web process
//! (`crate::web_process`, which holds why).

use crate::dto::ApiError;
use crate::state::AppState;
use crate::web_process::{IdleOutcome, RecyclePolicy, Recycler};
use std::time::Duration;
use tauri::{State, WebviewWindow};
use tracing::instrument;

/// Lets the page's last answer reach it before its process ends.
const RECYCLE_DELAY: Duration = Duration::from_millis(200);

/// The page has mounted: the web process's size now is its baseline.
#[tauri::command]
#[specta::specta]
#[instrument(skip(recycler))]
pub async fn page_ready(recycler: State<'_, Recycler>) -> Result<RecyclePolicy, ApiError> {
    recycler.page_ready();
    Ok(recycler.policy())
}

/// The page has had no input for the policy's idle time (or is hidden).
#[tauri::command]
#[specta::specta]
#[instrument(skip(recycler, state, window))]
pub async fn page_idle(
    recycler: State<'_, Recycler>,
    state: State<'_, AppState>,
    window: WebviewWindow,
) -> Result<IdleOutcome, ApiError> {
    let runs_active = state.app().is_ok_and(|a| !a.active_runs().is_empty());
    let outcome = recycler.page_idle(runs_active);
    if let IdleOutcome::Recycling {
        web_kb,
        baseline_kb,
    } = outcome
    {
        tracing::info!(web_kb, baseline_kb, "recycling the idle page's web process");
        tauri::async_runtime::spawn(async move {
            tokio::time::sleep(RECYCLE_DELAY).await;
            crate::web_process::terminate(&window);
        });
    }
    Ok(outcome)
}
