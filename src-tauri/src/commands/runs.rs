//! Run commands: start (or start the demo), cancel, decide approvals, read
//! runs and events, show what the model saw, quit.

use crate::dto::helpers::HelperRunView;
use crate::dto::runs::{
    parse_run_id, DecisionInput, EventPage, ModelContextView, RunDetailView, RunFilterInput,
    StartRunRequest, StartedRun,
};
use crate::dto::{ApiError, RunSummaryView, WorkspaceView};
use crate::idle_heap::HeapKeeper;
use crate::state::AppState;
use bearagent_kernel::EventSeq;
use tauri::{AppHandle, State};
use tracing::instrument;

#[tauri::command]
#[specta::specta]
#[instrument(skip(state, request), fields(goal_len = request.goal.len()))]
pub async fn start_run(
    state: State<'_, AppState>,
    request: StartRunRequest,
) -> Result<StartedRun, ApiError> {
    let app = state.app()?;
    let run_id = app.start_requested_run(request.into_request()?).await?;
    Ok(StartedRun {
        run_id: run_id.to_string(),
    })
}

/// Creates a sample workspace in a temp folder and starts the offline demo.
#[tauri::command]
#[specta::specta]
#[instrument(skip(state))]
pub async fn start_demo_run(
    state: State<'_, AppState>,
) -> Result<(WorkspaceView, StartedRun), ApiError> {
    let (workspace, run_id) = state.app()?.start_demo_run()?;
    Ok((
        WorkspaceView::from(workspace),
        StartedRun {
            run_id: run_id.to_string(),
        },
    ))
}

#[tauri::command]
#[specta::specta]
#[instrument(skip(state))]
pub async fn cancel_run(state: State<'_, AppState>, run_id: String) -> Result<(), ApiError> {
    Ok(state.app()?.cancel_run(parse_run_id(&run_id)?)?)
}

#[tauri::command]
#[specta::specta]
#[instrument(skip(state, decision), fields(approve = decision.approve))]
pub async fn decide_approval(
    state: State<'_, AppState>,
    run_id: String,
    call_id: String,
    decision: DecisionInput,
) -> Result<(), ApiError> {
    let run_id = parse_run_id(&run_id)?;
    let remember = decision.remember.map(Into::into);
    Ok(state.app()?.decide_approval_remembering(
        run_id,
        &call_id,
        decision.into_decision(),
        remember,
    )?)
}

/// The run's helpers (delegation), parents before their children.
#[tauri::command]
#[specta::specta]
#[instrument(skip(state))]
pub async fn helper_runs(
    state: State<'_, AppState>,
    run_id: String,
) -> Result<Vec<HelperRunView>, ApiError> {
    let helpers = state.app()?.helper_runs(parse_run_id(&run_id)?)?;
    Ok(helpers.into_iter().map(HelperRunView::from).collect())
}

#[tauri::command]
#[specta::specta]
#[instrument(skip(state))]
pub async fn search_runs(
    state: State<'_, AppState>,
    filter: RunFilterInput,
) -> Result<Vec<RunSummaryView>, ApiError> {
    let runs = state.app()?.search_runs(filter.into_filter()?)?;
    Ok(runs.into_iter().map(RunSummaryView::from).collect())
}

#[tauri::command]
#[specta::specta]
#[instrument(skip(state))]
pub async fn get_run(
    state: State<'_, AppState>,
    run_id: String,
) -> Result<RunDetailView, ApiError> {
    let run_id = parse_run_id(&run_id)?;
    Ok(state.app()?.run_detail(run_id)?.into())
}

/// Events after `after_seq`, oldest first: how a window catches up.
#[tauri::command]
#[specta::specta]
#[instrument(skip(state, heap))]
pub async fn list_events(
    state: State<'_, AppState>,
    heap: State<'_, HeapKeeper>,
    run_id: String,
    after_seq: u32,
    limit: u32,
) -> Result<EventPage, ApiError> {
    let app = state.app()?;
    let (events, has_more) = app.event_page(
        parse_run_id(&run_id)?,
        EventSeq(u64::from(after_seq)),
        limit,
    )?;
    heap.after_page(app);
    Ok(EventPage { events, has_more })
}

/// Exactly what the model was sent for one model call, rebuilt from events.
#[tauri::command]
#[specta::specta]
#[instrument(skip(state))]
pub async fn model_context(
    state: State<'_, AppState>,
    run_id: String,
    requested_seq: u32,
) -> Result<ModelContextView, ApiError> {
    let built = state
        .app()?
        .model_context(parse_run_id(&run_id)?, EventSeq(u64::from(requested_seq)))?;
    Ok(ModelContextView::from(built))
}

/// Runs in progress in this process (the window asks before quitting).
#[tauri::command]
#[specta::specta]
#[instrument(skip(state))]
pub async fn active_runs(state: State<'_, AppState>) -> Result<Vec<String>, ApiError> {
    Ok(state
        .app()?
        .active_runs()
        .iter()
        .map(ToString::to_string)
        .collect())
}

/// Quits even with runs in progress; they are marked interrupted on the
/// next start, and a pending approval can still be answered then.
#[tauri::command]
#[specta::specta]
#[instrument(skip(app))]
pub async fn quit_app(app: AppHandle) -> Result<(), ApiError> {
    app.exit(0);
    Ok(())
}

/// A finished command's stored output (head and tail up to 1 MiB), as text
/// with its ANSI colour codes.
#[tauri::command]
#[specta::specta]
#[instrument(skip(state))]
pub async fn command_output(
    state: State<'_, AppState>,
    run_id: String,
    call_id: String,
) -> Result<String, ApiError> {
    let bytes = state
        .app()?
        .command_output(parse_run_id(&run_id)?, &call_id)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}
