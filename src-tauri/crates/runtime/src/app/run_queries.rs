//! Reading runs: one run's projection, the runs list and search, a run's
//! events page by page, what the model saw at a call, and live updates.

use crate::app::Application;
use crate::live::LiveEvent;
use crate::views::RunSummary;
use crate::AppError;
use bearagent_kernel::{EventEnvelope, EventPayload, EventSeq, RunId, RunProjection, WorkspaceId};
use bearagent_store::RunFilter;
use tokio::sync::broadcast;

impl Application {
    pub fn get_run(&self, run_id: RunId) -> Result<RunProjection, AppError> {
        self.store
            .get_run(run_id)?
            .ok_or_else(|| AppError::NotFound {
                what: "run",
                id: run_id.to_string(),
            })
    }

    /// Every run, newest first, optionally of one workspace.
    pub fn runs(
        &self,
        workspace_id: Option<WorkspaceId>,
        limit: Option<u32>,
    ) -> Result<Vec<RunSummary>, AppError> {
        self.search_runs(RunFilter {
            workspace_id,
            limit,
            ..RunFilter::default()
        })
    }

    /// Runs matching a filter (workspace, status name, text in the goal).
    pub fn search_runs(&self, filter: RunFilter) -> Result<Vec<RunSummary>, AppError> {
        self.summaries(self.store.list_runs(&filter)?)
    }

    /// The runs' summaries, the imported ones marked with their source.
    pub(crate) fn summaries(
        &self,
        runs: Vec<bearagent_kernel::RunProjection>,
    ) -> Result<Vec<RunSummary>, AppError> {
        let imported = self.store.imported_sources()?;
        Ok(runs
            .into_iter()
            .map(|p| {
                let source = imported.get(&p.run_id).cloned();
                RunSummary {
                    imported_from: source,
                    ..RunSummary::from(p)
                }
            })
            .collect())
    }

    pub fn list_events(
        &self,
        run_id: RunId,
        after: EventSeq,
        limit: u32,
    ) -> Result<Vec<EventEnvelope>, AppError> {
        self.get_run(run_id)?;
        Ok(self.store.events_after(run_id, after, limit)?)
    }

    /// A page of a run's events after `after` (at most `limit`, and at
    /// most the store's page cap) and whether more follow: decided from
    /// the run's last seq, so it is right whatever capped the page.
    pub fn event_page(
        &self,
        run_id: RunId,
        after: EventSeq,
        limit: u32,
    ) -> Result<(Vec<EventEnvelope>, bool), AppError> {
        let last = self.get_run(run_id)?.last_seq;
        let events = self.store.events_after(run_id, after, limit)?;
        let reached = events.last().map_or(after, |e| e.seq);
        Ok((events, reached < last))
    }

    /// Exactly what the model was sent for the model call whose
    /// `ModelCallRequested` event has seq `requested`, rebuilt from the
    /// events committed before it.
    pub fn model_context(
        &self,
        run_id: RunId,
        requested: EventSeq,
    ) -> Result<crate::BuiltContext, AppError> {
        let events = self.store.all_events(run_id)?;
        let Some(EventPayload::RunCreated {
            workspace_path,
            context_caps,
            parent,
            ..
        }) = events.first().map(|e| &e.payload)
        else {
            return Err(AppError::NotFound {
                what: "run",
                id: run_id.to_string(),
            });
        };
        let Some(version) = events.iter().find_map(|e| {
            if let EventPayload::ModelCallRequested {
                context_version, ..
            } = &e.payload
            {
                (e.seq == requested).then(|| context_version.clone())
            } else {
                None
            }
        }) else {
            return Err(AppError::NotFound {
                what: "model call",
                id: format!("{run_id}#{requested}"),
            });
        };
        let before: Vec<EventEnvelope> = events
            .iter()
            .filter(|e| e.seq < requested)
            .cloned()
            .collect();
        let tools = crate::mcp::model_tools(&self.registry, &before);
        let ancestors = crate::thread::ancestors(&self.store, *parent)?;
        let instructions = crate::run::recorded_texts::instructions_in(&self.store, &before)?;
        let summary = crate::run::recorded_texts::summary_text(&self.store, &ancestors, &before)?;
        crate::run::context::rebuild(
            &version,
            &crate::run::context::ContextInput {
                ancestors: &ancestors,
                events: &before,
                tools: &tools,
                caps: context_caps,
                workspace: workspace_path,
                instructions: &instructions,
                summary: summary.as_deref(),
            },
        )
        .ok_or_else(|| {
            AppError::Conflict(format!(
                "model call {requested} was built with context version {version}, which this BearAgent cannot rebuild; a newer BearAgent recorded it"
            ))
        })
    }

    pub fn subscribe(&self) -> broadcast::Receiver<LiveEvent> {
        self.live.subscribe()
    }
}
