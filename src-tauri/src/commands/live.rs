//! The window's live updates, pulled (see `events::LiveUpdates`).

use crate::dto::ApiError;
use crate::events::LiveUpdates;
use crate::state::AppState;
use bearagent_runtime::FeedWait;
use tauri::State;
use tracing::instrument;

/// Updates after `cursor`, waiting up to 25 s for one; without a cursor
/// (a page that just loaded) the cursor to start from, at once.
#[tauri::command]
#[specta::specta]
#[instrument(level = "debug", skip(state))]
pub async fn next_live_updates(
    state: State<'_, AppState>,
    cursor: Option<u64>,
) -> Result<LiveUpdates, ApiError> {
    let page = state.live().next(cursor, FeedWait::default()).await;
    Ok(LiveUpdates {
        cursor: page.cursor,
        skipped: page.skipped,
        updates: page.items.into_iter().map(crate::live::update).collect(),
    })
}
