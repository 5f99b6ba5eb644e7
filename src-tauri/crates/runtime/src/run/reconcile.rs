//! After a crash: every run whose owner process is provably gone becomes
//! Interrupted, and every write whose outcome was never recorded is checked
//! against the file — verified not applied, or Unknown for the user to
//! decide. Nothing is re-executed. Runs another live BearAgent process is
//! executing are never touched (the store's instance locks tell which).

use super::receipts::current_hash;
use super::recorder::Recorder;
use crate::live::LiveBus;
use crate::AppError;
use bearagent_kernel::{
    CallId, Clock, ContentHash, EffectOutcome, EventEnvelope, EventPayload, ReceiptStep, RunId,
};
use bearagent_store::Store;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

/// Intents with no recorded outcome: call id → (path, before hash).
fn open_intents(events: &[EventEnvelope]) -> BTreeMap<CallId, (String, Option<ContentHash>)> {
    let mut open = BTreeMap::new();
    for event in events {
        match event.payload.receipt_step() {
            Some(ReceiptStep::Intended {
                call_id,
                path,
                before_hash,
            }) => {
                open.insert(call_id.clone(), (path.to_owned(), before_hash.clone()));
            }
            Some(ReceiptStep::Settled { call_id }) => {
                open.remove(call_id);
            }
            None => {}
        }
    }
    open
}

/// Commands started and never finished: call id → command line.
fn open_commands(events: &[EventEnvelope]) -> BTreeMap<CallId, String> {
    let mut open = BTreeMap::new();
    for event in events {
        if let EventPayload::CommandStarted {
            call_id, command, ..
        } = &event.payload
        {
            open.insert(call_id.clone(), command.clone());
        }
        if let EventPayload::CommandFinished { call_id, .. } = &event.payload {
            open.remove(call_id);
        }
    }
    open
}

/// Takes over and interrupts every unfinished run whose owner is gone.
/// Returns the ids of the runs touched.
pub fn reconcile_unfinished(
    store: &Arc<Store>,
    clock: &Arc<dyn Clock>,
    live: &LiveBus,
) -> Result<Vec<RunId>, AppError> {
    let mut touched = Vec::new();
    for (run_id, previous_owner) in store.claim_orphaned_runs()? {
        let Some(run) = store.get_run(run_id)? else {
            continue;
        };
        let events = store.all_events(run.run_id)?;
        let mut rec = Recorder::resume(
            store.clone(),
            clock.clone(),
            live.clone(),
            run.run_id,
            events,
        )?;
        let interrupted = rec.record(
            rec.last_seq(),
            EventPayload::RunInterrupted {
                reason: "BearAgent stopped while this run was in progress".into(),
            },
        )?;
        for (call_id, (path, before)) in open_intents(rec.events()) {
            let file = Path::new(&run.workspace_path).join(&path);
            // A write killed before its rename leaves its temporary file.
            if let (Some(owner), Some(dir)) = (&previous_owner, file.parent()) {
                let removed = bearagent_tools::remove_leftover_temp_files(dir, owner.pid);
                if removed > 0 {
                    tracing::info!(removed, dir = %dir.display(), "removed a dead run's temporary files");
                }
            }
            let payload = match current_hash(&file) {
                Ok(now) if now.as_ref().map(|(h, _)| h) == before.as_ref() => EventPayload::EffectVerified {
                    call_id,
                    outcome: EffectOutcome::NotApplied,
                },
                Ok(now) => EventPayload::EffectUnknown {
                    call_id,
                    detail: format!(
                        "{path} changed (before: {}, now: {}) but the write's outcome was never recorded",
                        before.as_ref().map_or("absent", |h| h.as_str()),
                        now.as_ref().map_or("absent", |(h, _)| h.as_str()),
                    ),
                    path,
                },
                Err(e) => EventPayload::EffectUnknown {
                    call_id,
                    detail: format!("{path} cannot be read to verify the write: {e}"),
                    path,
                },
            };
            rec.record(Some(interrupted), payload)?;
        }
        // A command cut off by the stop: what it changed was never listed.
        for (call_id, command) in open_commands(rec.events()) {
            rec.record(
                Some(interrupted),
                EventPayload::EffectUnknown {
                    call_id,
                    path: ".".into(),
                    detail: format!(
                        "the command `{command}` was running when BearAgent stopped; \
                         the files it changed were not recorded"
                    ),
                },
            )?;
        }
        tracing::warn!(run = %run.run_id, "run interrupted by a previous stop");
        touched.push(run.run_id);
    }
    Ok(touched)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bearagent_kernel::testkit::{at, call_id};
    use bearagent_kernel::{Budgets, EventSeq, NewEvent, ToolCall, WorkspaceId};
    use serde_json::json;

    struct FixedTime;
    impl Clock for FixedTime {
        fn now(&self) -> bearagent_kernel::Timestamp {
            at(1_000)
        }
    }

    fn started_write(n: usize, path: &str, before: Option<ContentHash>) -> Vec<EventPayload> {
        let call = ToolCall::new(call_id(n).as_str(), "write_file", json!({"path": path})).unwrap();
        vec![
            EventPayload::ModelCallRequested {
                context_version: "1".into(),
                context_bytes: 1,
                estimated_tokens: None,
                context_window: None,
                request_digest: None,
            },
            EventPayload::ModelCallStarted {
                provider: "p".into(),
                model: "m".into(),
            },
            EventPayload::ModelCallCompleted {
                action: bearagent_kernel::Action::one_call(call.clone()),
                usage: Default::default(),
                stop_reason: bearagent_kernel::StopReason::ToolUse,
                text: String::new(),
                cost_micro_usd: None,
            },
            EventPayload::ToolCallRequested {
                call,
                parsed_from_text: None,
            },
            EventPayload::ToolCallStarted {
                call_id: call_id(n),
            },
            EventPayload::EffectIntended {
                call_id: call_id(n),
                path: path.into(),
                before_hash: before,
            },
        ]
    }

    #[test]
    fn given_a_crash_mid_write_then_the_run_is_interrupted_and_the_write_verified_or_unknown() {
        let home = tempfile::tempdir().unwrap();
        let ws = tempfile::tempdir().unwrap();
        // The process that ran them (a store of its own), gone by the end.
        let crashed = Store::open_in(home.path()).unwrap();
        let clock: Arc<dyn Clock> = Arc::new(FixedTime);
        let mut payloads = vec![
            EventPayload::RunCreated {
                goal: "g".into(),
                workspace_id: WorkspaceId::new(),
                workspace_path: ws.path().display().to_string(),
                profile: "default".into(),
                budgets: Budgets::default(),
                approval_mode: bearagent_kernel::ApprovalMode::AskWrites,
                context_caps: Default::default(),
                max_invalid_outputs: 2,
                max_repeated_calls: 3,
                provider: "p".into(),
                model: "m".into(),
                config_versions: Default::default(),
                price: None,
                commands: Default::default(),
                mcp_rules: Default::default(),
                parent: None,
                delegated_by: None,
                delegation: None,
                images: Vec::new(),
                worktree: None,
                plan_mode: false,
                learned: None,
                web_rules: Vec::new(),
            },
            EventPayload::RunStarted,
        ];
        // Write 1 never touched its file (absent before, absent now).
        payloads.extend(started_write(1, "untouched.txt", None));
        let run = RunId::new();
        let news = payloads
            .into_iter()
            .map(|p| NewEvent::new(at(0), None, p))
            .collect();
        crashed.append(run, EventSeq(1), news).unwrap();

        // A second run whose write did land before the crash.
        let mut payloads2 = vec![
            EventPayload::RunCreated {
                goal: "g2".into(),
                workspace_id: WorkspaceId::new(),
                workspace_path: ws.path().display().to_string(),
                profile: "default".into(),
                budgets: Budgets::default(),
                approval_mode: bearagent_kernel::ApprovalMode::AskWrites,
                context_caps: Default::default(),
                max_invalid_outputs: 2,
                max_repeated_calls: 3,
                provider: "p".into(),
                model: "m".into(),
                config_versions: Default::default(),
                price: None,
                commands: Default::default(),
                mcp_rules: Default::default(),
                parent: None,
                delegated_by: None,
                delegation: None,
                images: Vec::new(),
                worktree: None,
                plan_mode: false,
                learned: None,
                web_rules: Vec::new(),
            },
            EventPayload::RunStarted,
        ];
        payloads2.extend(started_write(2, "landed.txt", None));
        std::fs::write(ws.path().join("landed.txt"), "new content").unwrap();
        let run2 = RunId::new();
        let news = payloads2
            .into_iter()
            .map(|p| NewEvent::new(at(0), None, p))
            .collect();
        crashed.append(run2, EventSeq(1), news).unwrap();

        // While that process lives, its runs are left alone.
        let store = Arc::new(Store::open_in(home.path()).unwrap());
        assert!(reconcile_unfinished(&store, &clock, &LiveBus::new())
            .unwrap()
            .is_empty());
        drop(crashed);

        let touched = reconcile_unfinished(&store, &clock, &LiveBus::new()).unwrap();
        assert_eq!(touched.len(), 2);

        let events = store.all_events(run).unwrap();
        let tail: Vec<_> = events
            .iter()
            .rev()
            .take(2)
            .map(|e| e.payload.clone())
            .collect();
        assert!(matches!(
            &tail[0],
            EventPayload::EffectVerified {
                outcome: EffectOutcome::NotApplied,
                ..
            }
        ));
        assert!(matches!(&tail[1], EventPayload::RunInterrupted { .. }));
        assert_eq!(
            store.get_run(run).unwrap().unwrap().status,
            bearagent_kernel::RunStatus::Interrupted
        );

        let events2 = store.all_events(run2).unwrap();
        let last = &events2.last().unwrap().payload;
        assert!(
            matches!(last, EventPayload::EffectUnknown { path, .. } if path == "landed.txt"),
            "{last:?}"
        );
        assert_eq!(store.get_run(run2).unwrap().unwrap().unknown_effects, 1);

        // Reconciling again changes nothing: interrupted runs are settled.
        assert!(reconcile_unfinished(&store, &clock, &LiveBus::new())
            .unwrap()
            .is_empty());
    }
}
