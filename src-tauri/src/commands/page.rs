//! The page's own lifecycle: it says when it is new and when it has been
//! left alone; the shell may then recycle its web process
//! (`crate::web_process`, which holds why).

use crate::dto::ApiError;
use crate::idle_heap::{self, give_back_unless_running};
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
#[instrument(skip(recycler, state))]
pub async fn page_ready(
    recycler: State<'_, Recycler>,
    state: State<'_, AppState>,
) -> Result<RecyclePolicy, ApiError> {
    recycler.page_ready();
    // A new page has paged in what it shows: the copies made for it are free.
    if let Ok(app) = state.app() {
        give_back_unless_running(&app);
    }
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
    let app = state.app();
    let runs_active = app.as_ref().is_ok_and(|a| !a.active_runs().is_empty());
    if app.is_ok() && !runs_active {
        idle_heap::give_back();
    }
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
