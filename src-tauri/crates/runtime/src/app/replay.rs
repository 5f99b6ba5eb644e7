//! Replaying a run: the use case that re-drives a run from its record
//! with today's code (the tape, the stage and the comparison:
//! `crate::replay`).

use crate::app::threads::RecordedRun;
use crate::app::Application;
use crate::replay::provider::TapeProvider;
use crate::replay::stage::Stage;
use crate::replay::tape::TapeClock;
use crate::replay::{drive_recorded, finish, recorded_plan_mode, resumed, ReplayReport, Tape};
use crate::run::agent_loop::{drive, LoopStart};
use crate::run::deps::LoopDeps;
use crate::run::recorder::Recorder;
use crate::AppError;
use bearagent_kernel::{Clock, EventEnvelope, EventPayload, RunId};
use bearagent_providers::ProviderInfo;
use bearagent_tools::WorkspaceRoot;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;
use tracing::instrument;

impl Application {
    /// Re-drives `run_id` from its record and compares every step.
    #[instrument(skip(self))]
    pub async fn replay_run(&self, run_id: RunId) -> Result<ReplayReport, AppError> {
        let events = self.store.all_events(run_id)?;
        let projection = self.get_run(run_id)?;
        if projection.status.is_live() {
            return Err(AppError::Conflict(format!(
                "run {run_id} is still {}; replay it once it has ended",
                projection.status.name()
            )));
        }
        let recorded = events
            .first()
            .and_then(|e| RecordedRun::of(&e.payload))
            .ok_or_else(|| AppError::Corrupt(format!("run {run_id} has no RunCreated event")))?;
        let cancel = CancellationToken::new();
        let stage = Stage::build(self.store.clone(), &recorded.workspace_path, &events)
            .map_err(|e| AppError::Internal(format!("the replay's scratch workspace: {e}")))?;
        let workspace = WorkspaceRoot::new(stage.root())
            .map_err(|e| AppError::Internal(format!("the replay's scratch workspace: {e}")))?;
        let tape = Arc::new(Tape::new(events.clone(), cancel.clone()).staged(stage));
        let clock: Arc<dyn Clock> = Arc::new(TapeClock(tape.clone()));
        let mut rec = Recorder::replaying(self.store.clone(), clock.clone(), run_id, tape.clone());
        // The run's creation and start are the application's, not the loop's.
        rec.copy_recorded()?;
        rec.copy_recorded()?;
        let provider = Arc::new(TapeProvider {
            tape: tape.clone(),
            store: self.store.clone(),
            info: self.replay_info(&events, &recorded),
        });
        let ancestors = Arc::new(crate::thread::ancestors(&self.store, projection.parent)?);
        // As recorded: a plan-mode run replays in plan mode.
        let profile = crate::profile::RunProfile {
            plan_mode: recorded_plan_mode(&events),
            ..recorded.profile
        };
        // What each process of the run drove with: the first, then any that
        // resumed it.
        let registry =
            crate::delegation::registry_for(&self.registry, events.first().map(|e| &e.payload));
        let deps = || LoopDeps {
            provider: provider.clone(),
            registry: registry.clone(),
            executor: self.executor.clone(),
            approvals: Arc::default(),
            workspace: workspace.clone(),
            profile: profile.clone(),
            cancel: cancel.clone(),
            host: self.command_host(),
            mcp_tools: Default::default(),
            tool_rules: Default::default(),
            ancestors: ancestors.clone(),
            hooks: Arc::default(),
            // Nothing is fetched: the record's bodies are served.
            web: Err("a replay fetches nothing".into()),
            // Children are not started again: their records are replayed
            // (`replay_children`), and each result is read from them.
            children: None,
            ledger: Arc::default(),
        };
        let mut first = deps();
        let mut ended = match drive_recorded(&mut rec, &mut first).await {
            Ok(true) => drive(rec, first, LoopStart::Fresh).await,
            Ok(false) => Ok(()),
            Err(e) => Err(e),
        };
        while ended.is_ok() && tape.divergence().is_none() {
            let rec = Recorder::replaying_after(self.store.clone(), clock.clone(), run_id, &tape)?;
            match resumed(rec, deps()).await? {
                Some(outcome) => ended = outcome,
                None => break,
            }
        }
        let mut report = finish(run_id, &events, &tape, ended)?;
        self.replay_children(run_id, &events, &mut report).await?;
        Ok(report)
    }

    /// Replaying a parent replays its children from their records (each
    /// `task` call names its child): the first child that diverges is the
    /// parent's divergence too, with its run named in the notes.
    /// Boxed: a replay of a child is a replay (the recursion needs a
    /// future of known size).
    fn replay_children<'a>(
        &'a self,
        run_id: RunId,
        events: &'a [EventEnvelope],
        report: &'a mut ReplayReport,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<(), AppError>> + Send + 'a>>
    {
        Box::pin(async move {
            let tasks = events.iter().filter_map(|e| match &e.payload {
                EventPayload::ToolCallRequested { call, .. }
                    if call.tool_name.as_str() == "task" =>
                {
                    Some(bearagent_kernel::DelegatedBy::child_run_id(
                        run_id,
                        &call.call_id,
                    ))
                }
                _ => None,
            });
            for child in tasks.collect::<Vec<_>>() {
                if self.store.get_run(child)?.is_none() {
                    continue;
                }
                let replayed = self.replay_run(child).await?;
                let verdict = match &replayed.divergence {
                    None => "identical".to_owned(),
                    Some(d) => format!("diverged: {d}"),
                };
                report
                    .notes
                    .push(format!("child run {child} replayed: {verdict}"));
                if report.divergence.is_none() {
                    report.divergence = replayed.divergence;
                }
            }
            Ok(())
        })
    }

    /// The model as the record knows it: its name, model, price and
    /// window; whether it reads images from the config when it is there.
    fn replay_info(&self, events: &[EventEnvelope], recorded: &RecordedRun) -> ProviderInfo {
        let (price, scripted, learned) = match events.first().map(|e| &e.payload) {
            Some(EventPayload::RunCreated {
                price,
                config_versions,
                learned,
                ..
            }) => (
                *price,
                config_versions.get("scripted").is_some_and(|s| s == "true"),
                learned.clone(),
            ),
            _ => (None, false, None),
        };
        let window = events
            .iter()
            .find_map(|e| match &e.payload {
                EventPayload::ModelCallRequested { context_window, .. } => *context_window,
                _ => None,
            })
            .or_else(|| learned.as_ref().and_then(|l| l.context_window));
        let configured = self
            .provider_for_follow_up(&recorded.provider, &recorded.model)
            .ok()
            .map(|p| p.info());
        ProviderInfo {
            name: recorded.provider.clone(),
            model: recorded.model.clone(),
            scripted,
            price,
            max_output_tokens: configured.as_ref().and_then(|i| i.max_output_tokens),
            context_window: window
                .unwrap_or_else(|| bearagent_providers::default_context_window(&recorded.model)),
            vision: configured.map_or(
                scripted || bearagent_providers::default_vision(&recorded.model),
                |i| i.vision,
            ),
            learned,
        }
    }
}

#[cfg(test)]
#[path = "replay_tests.rs"]
mod tests;
