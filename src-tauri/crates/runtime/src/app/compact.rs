//! Compacting a finished run by hand (`bearagent compact RUN_ID`, the run
//! view's "Compact"): its conversation is summarised now, so its next
//! follow-up starts from the summary instead of the whole history.

use crate::app::threads::RecordedRun;
use crate::app::Application;
use crate::run::compaction::{estimate_tokens, summarise};
use crate::run::context::{self, ContextInput};
use crate::run::recorded_texts::summary_text;
use crate::run::recorder::append_beside;
use crate::AppError;
use bearagent_kernel::{EventPayload, NewEvent, RunId, RunProjection, RunStatus};
use tracing::instrument;

/// What a compaction by hand did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compacted {
    pub tokens_before: u64,
    pub tokens_after: u64,
}

impl Application {
    /// Summarises a finished (or interrupted) run's conversation with its
    /// own provider and records `ContextCompacted` on it.
    #[instrument(skip(self))]
    pub async fn compact_run(&self, run_id: RunId) -> Result<Compacted, AppError> {
        let (_, _, recorded) = self.compactable(run_id)?;
        let provider = self.provider_for_follow_up(&recorded.provider, &recorded.model)?;
        self.compact_run_with(run_id, provider.as_ref()).await
    }

    /// `compact_run` with the provider given (a scripted one, or one the
    /// caller already built) instead of the run's own from the config.
    #[instrument(skip(self, provider))]
    pub async fn compact_run_with(
        &self,
        run_id: RunId,
        provider: &dyn bearagent_providers::ModelProvider,
    ) -> Result<Compacted, AppError> {
        let (projection, events, recorded) = self.compactable(run_id)?;
        let ancestors = crate::thread::ancestors(&self.store, projection.parent)?;
        let instructions = crate::run::recorded_texts::instructions_in(&self.store, &events)?;
        let build = |events: &[bearagent_kernel::EventEnvelope], summary: Option<&str>| {
            context::build(&ContextInput {
                ancestors: &ancestors,
                events,
                tools: &[],
                caps: &recorded.profile.context,
                workspace: &recorded.workspace_path,
                instructions: &instructions,
                summary,
            })
        };
        let summary_before = summary_text(&self.store, &ancestors, &events)?;
        let built = build(&events, summary_before.as_deref());
        let before = estimate_tokens(&events, built.bytes);
        let info = provider.info();
        let window = info.context_window;
        let cancel = tokio_util::sync::CancellationToken::new();
        let request = crate::run::images::attach(&self.store, info.vision, built.request.clone())?;
        let (summary, usage) = summarise(provider, &cancel, &request, window)
            .await
            .map_err(|why| {
                AppError::Unavailable(format!("the run could not be compacted: {why}"))
            })?;
        let blob = self.store.put_blob(summary.as_bytes(), self.clock.now())?;
        let through = projection.last_seq;
        let mut compacted = EventPayload::ContextCompacted {
            summary: blob,
            replaced_through_seq: through,
            tokens_before: before,
            tokens_after: 0,
            usage,
            cost_micro_usd: projection.price.map(|p| p.cost_micro_usd(usage)),
        };
        let mut provisional = events.clone();
        provisional.push(
            NewEvent::new(self.clock.now(), None, compacted.clone())
                .into_envelope(run_id, through.next()),
        );
        let after = estimate_tokens(&events, build(&provisional, Some(&summary)).bytes);
        if let EventPayload::ContextCompacted { tokens_after, .. } = &mut compacted {
            *tokens_after = after;
        }
        append_beside(
            &self.store,
            self.clock.as_ref(),
            &self.live,
            run_id,
            compacted,
        )?;
        Ok(Compacted {
            tokens_before: before,
            tokens_after: after,
        })
    }

    /// A finished (or interrupted) run's projection, events and recorded
    /// settings; a run still in progress is a conflict.
    fn compactable(
        &self,
        run_id: RunId,
    ) -> Result<
        (
            RunProjection,
            Vec<bearagent_kernel::EventEnvelope>,
            RecordedRun,
        ),
        AppError,
    > {
        if let Some(imported) = self.store.imported(run_id)? {
            return Err(crate::local::read_only(run_id, &imported, "compacted"));
        }
        let projection = self.get_run(run_id)?;
        if !(projection.status.is_terminal() || projection.status == RunStatus::Interrupted) {
            return Err(AppError::Conflict(format!(
                "run {run_id} is still in progress; it compacts itself when its context nears the window"
            )));
        }
        let events = self.store.all_events(run_id)?;
        let recorded = events
            .first()
            .and_then(|e| RecordedRun::of(&e.payload))
            .ok_or_else(|| AppError::Corrupt(format!("run {run_id} has no RunCreated event")))?;
        Ok((projection, events, recorded))
    }
}

impl Application {
    /// The text of a blob one of the run's events references as a summary
    /// or instructions (what the timeline expands); any other blob is not
    /// found, so a hash from elsewhere reveals nothing.
    pub fn event_text(
        &self,
        run_id: RunId,
        blob: &bearagent_kernel::ContentHash,
    ) -> Result<String, AppError> {
        let referenced = self.store.all_events(run_id)?.iter().any(|e| {
            if let EventPayload::ContextCompacted { summary, .. } = &e.payload {
                summary == blob
            } else if let EventPayload::InstructionsLoaded { blob: b, .. } = &e.payload {
                b == blob
            } else {
                false
            }
        });
        let not_found = || AppError::NotFound {
            what: "text",
            id: blob.to_string(),
        };
        if !referenced {
            return Err(not_found());
        }
        let bytes = self.store.get_blob(blob)?.ok_or_else(not_found)?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }
}
