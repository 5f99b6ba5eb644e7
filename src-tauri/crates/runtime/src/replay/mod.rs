//! Replay: a run re-driven from its record with the current code. The
//! agent loop runs again as it runs live — context, policy, approvals,
//! budgets, compaction, loop detection, hooks' decisions — but the model's
//! outputs, the tools' effects, the hooks' runs, the files it read and the
//! user's answers come from the recorded events; nothing executes, nothing
//! touches the workspace or the network. Each event the loop would append
//! must be the recorded one (times aside): the first that is not is the
//! divergence. How the project tests its own harness.

mod compare;
mod provider;
mod stage;
pub(crate) use stage::PATH_ARGS;
mod tape;

pub use compare::Divergence;
pub use tape::Tape;

use crate::app::threads::RecordedRun;
use crate::app::Application;
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

/// What a replay found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayReport {
    pub run_id: RunId,
    /// Events in the record.
    pub events: usize,
    /// Events the re-driven loop matched (or took as recorded facts).
    pub matched: usize,
    /// Where the loop first did something else; None: identical.
    pub divergence: Option<Divergence>,
    /// What was not checked, and why (no digests, review after the end,
    /// an interruption).
    pub notes: Vec<String>,
}

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
        let stage = stage::Stage::build(self.store.clone(), &recorded.workspace_path, &events)
            .map_err(|e| AppError::Internal(format!("the replay's scratch workspace: {e}")))?;
        let workspace = WorkspaceRoot::new(stage.root())
            .map_err(|e| AppError::Internal(format!("the replay's scratch workspace: {e}")))?;
        let tape = Arc::new(Tape::new(events.clone(), cancel.clone()).staged(stage));
        let clock: Arc<dyn Clock> = Arc::new(tape::TapeClock(tape.clone()));
        let mut rec = Recorder::replaying(self.store.clone(), clock.clone(), run_id, tape.clone());
        // The run's creation and start are the application's, not the loop's.
        rec.copy_recorded()?;
        rec.copy_recorded()?;
        let provider = Arc::new(provider::TapeProvider {
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
        let deps = || LoopDeps {
            provider: provider.clone(),
            registry: self.registry.clone(),
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
        finish(run_id, &events, &tape, ended)
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

/// The loop's start as `spawn_loop` makes it: instructions, the hooks of
/// a run's start and the MCP servers, each from the record. False when
/// the record's run ended there (a hook blocked its goal).
async fn drive_recorded(rec: &mut Recorder, deps: &mut LoopDeps) -> Result<bool, AppError> {
    let goal = match rec.events().first().map(|e| &e.payload) {
        Some(EventPayload::RunCreated { goal, .. }) => goal.clone(),
        _ => String::new(),
    };
    let root = deps.workspace.path().to_path_buf();
    crate::run::instructions::load_instructions(rec, &root, "")?;
    if let Some(reason) = crate::run::hook_step::run_start(rec, deps, &goal).await? {
        let reason = format!("a UserPromptSubmit hook blocked the goal: {reason}");
        rec.record(rec.last_seq(), EventPayload::RunFailed { reason })?;
        return Ok(false);
    }
    let servers = crate::mcp::RunMcp::start(rec, Vec::new(), &deps.cancel).await?;
    deps.mcp_tools = servers.tools();
    deps.tool_rules = servers.tool_rules(&deps.profile.mcp_rules);
    Ok(true)
}

/// Where the record says the run's process ended at an approval and a
/// later process resumed it, the resumed part driven as
/// `resume_at_approval` drives it: the interruption and the resumption
/// taken as facts, the MCP servers started again, the recorded answer
/// given, the loop resumed. None where the record does not go on so.
async fn resumed(
    mut rec: Recorder,
    mut deps: LoopDeps,
) -> Result<Option<Result<(), AppError>>, AppError> {
    let Some(tape) = rec.tape().cloned() else {
        return Ok(None);
    };
    let resumes = matches!(
        tape.ahead(),
        [interrupted, resumed, ..]
            if matches!(interrupted.payload, EventPayload::RunInterrupted { .. })
                && matches!(resumed.payload, EventPayload::RunResumed)
    );
    if !resumes {
        return Ok(None);
    }
    rec.copy_recorded()?;
    rec.copy_recorded()?;
    let Some(pending) = rec.state().and_then(|p| p.pending_approval.clone()) else {
        return Ok(None);
    };
    let call = rec.events().iter().find_map(|e| match &e.payload {
        EventPayload::ToolCallRequested { call, .. } if call.call_id == pending.call_id => {
            Some(call.clone())
        }
        _ => None,
    });
    let servers = crate::mcp::RunMcp::start(&mut rec, Vec::new(), &deps.cancel).await?;
    deps.mcp_tools = servers.tools();
    deps.tool_rules = servers.tool_rules(&deps.profile.mcp_rules);
    let decision = crate::run::asking::recorded_decision(&tape)?;
    let (Some(call), Some(decision)) = (call, decision) else {
        return Ok(None);
    };
    let start = LoopStart::Resumed {
        asked: pending.requested_seq,
        call: Box::new(call),
        decision,
    };
    Ok(Some(drive(rec, deps, start).await))
}

/// The report: identical, or the first divergence; with what the loop
/// does not make again noted (review after the end, an interruption).
fn finish(
    run_id: RunId,
    events: &[EventEnvelope],
    tape: &Tape,
    ended: Result<(), AppError>,
) -> Result<ReplayReport, AppError> {
    let mut notes = Vec::new();
    if events.iter().any(|e| {
        matches!(
            e.payload,
            EventPayload::ModelCallRequested {
                request_digest: None,
                ..
            }
        )
    }) {
        notes.push("recorded before request digests: each request was checked by its size and version, not its digest".into());
    }
    if tape.excused() > 0 {
        notes.push(format!(
            "the run came from a bundle that redacted secret values: {} difference(s) at \
             redacted values (and in the sizes and digests of the model requests built from \
             them) are the redaction, not divergences",
            tape.excused()
        ));
    }
    let mut divergence = tape.divergence();
    let rest = tape.ahead();
    if divergence
        .as_ref()
        .is_some_and(|d| d.expected.as_deref() == Some("run_interrupted"))
        || (divergence.is_none()
            && rest
                .first()
                .is_some_and(|e| matches!(e.payload, EventPayload::RunInterrupted { .. })))
    {
        divergence = None;
        notes.push(interrupted_note(rest));
        // What the next start recorded of the process's end (the
        // interruption, its writes verified) is that process's fact.
        if !rest
            .iter()
            .any(|e| matches!(e.payload, EventPayload::RunResumed))
        {
            while tape.copy().is_some() {}
        }
    } else if divergence.is_none() {
        ended?;
        let review = rest.iter().all(|e| is_after_the_end(&e.payload));
        match rest.first() {
            Some(first) if !review => {
                divergence = Some(Divergence {
                    seq: first.seq,
                    expected: Some(first.payload.type_name().to_owned()),
                    actual: None,
                    fields: Vec::new(),
                });
            }
            Some(_) => notes.push(format!(
                "{} event(s) after the run's end are the user's review; they were not re-driven",
                rest.len()
            )),
            None => {}
        }
    }
    Ok(ReplayReport {
        run_id,
        events: events.len(),
        matched: tape.matched(),
        divergence,
        notes,
    })
}

fn recorded_plan_mode(events: &[EventEnvelope]) -> bool {
    matches!(
        events.first().map(|e| &e.payload),
        Some(EventPayload::RunCreated {
            plan_mode: true,
            ..
        })
    )
}

/// What may follow a run's end: the review of its files, a compaction
/// for a follow-up, the watcher's notes.
fn is_after_the_end(payload: &EventPayload) -> bool {
    payload.is_review()
        || matches!(
            payload,
            EventPayload::ArtifactRecorded { .. }
                | EventPayload::EffectVerified { .. }
                | EventPayload::EffectUnknown { .. }
                | EventPayload::ContextCompacted { .. }
                | EventPayload::ExternalChangeObserved { .. }
        )
}

fn interrupted_note(rest: &[EventEnvelope]) -> String {
    let at = rest.first().map_or(0, |e| e.seq.0);
    match rest
        .iter()
        .find(|e| matches!(e.payload, EventPayload::RunResumed))
    {
        Some(resumed) => format!(
            "the run was interrupted at #{at} (its process ended) and resumed at #{}: \
             the loop was re-driven up to the interruption; what came after it does not \
             continue from an answered approval, so it was not re-driven",
            resumed.seq.0
        ),
        None => {
            format!("the run was interrupted at #{at} (its process ended): re-driven up to there")
        }
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
