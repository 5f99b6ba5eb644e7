//! A `run_command` call after policy and approval: snapshot the workspace,
//! record the start (with the rule that decided), run it in the sandbox
//! with live output, record how it ended and every file it changed as an
//! artifact (pre-images kept, so Changes can revert them). Floor 2 of
//! `run/`.

use super::deps::{LoopDeps, RunGrants};
use super::loop_guard::signature;
use super::outcome::{fail, result, ToolStepEnd};
use super::receipts::{remember_command_change, take_snapshot};
use super::recorder::Recorder;
use super::safety_net::{left_out_changes, measure_left_out};
use super::snapshot::{self, FileChange};
use crate::live::LiveEvent;
use crate::AppError;
use bearagent_kernel::{CallId, CommandSettings, EventPayload, EventSeq, NotTracked};
use bearagent_store::hash_bytes;
use bearagent_tools::sandbox;
use bearagent_tools::tools::run_command::{CommandRun, RunCommand};
use bearagent_tools::{describe_verdict, AuthorizedCall};
use std::path::PathBuf;
use std::sync::Arc;

/// Live output shown per command before the rest waits for the stored
/// head and tail (a flood must not swamp the UI).
const LIVE_OUTPUT_CAP: usize = 1024 * 1024;

pub(crate) async fn execute_command(
    rec: &mut Recorder,
    deps: &LoopDeps,
    grants: &mut RunGrants,
    tool: Arc<RunCommand>,
    call_id: CallId,
    authorized: AuthorizedCall,
    cause: EventSeq,
) -> Result<ToolStepEnd, AppError> {
    let Some(plan) = authorized.command_plan().cloned() else {
        return fail(
            rec,
            cause,
            &call_id,
            "a command call without its command".into(),
        );
    };
    let settings = match settings_for(deps, &authorized) {
        Ok(settings) => settings,
        Err(why) => return fail(rec, cause, &call_id, why),
    };
    let rule = deps
        .policy_with(&grants.command_rules)
        .command_verdict(&authorized)
        .map(|v| describe_verdict(&v))
        .unwrap_or_default();
    let started = rec.record(
        Some(cause),
        EventPayload::ToolCallStarted {
            call_id: call_id.clone(),
        },
    )?;
    let before = match take_snapshot(rec, deps, grants).await? {
        Ok(s) => s,
        Err(why) => {
            let why =
                format!("the command did not run: the workspace could not be snapshotted ({why})");
            return fail(rec, started, &call_id, why);
        }
    };
    let command_started = rec.record(
        Some(started),
        EventPayload::CommandStarted {
            call_id: call_id.clone(),
            command: plan.command.clone(),
            cwd: plan.cwd_rel.clone(),
            sandboxed: settings.sandbox,
            network: settings.network,
            rule,
        },
    )?;
    let signature = signature(&authorized);
    let run = run_live(rec, deps, &tool, &call_id, authorized, &settings).await;
    grants
        .loops
        .executed(signature, hash_bytes(run.for_model.as_bytes()));
    // A file unreadable after the command: its changes cannot be proven,
    // so none are recorded and the model is told.
    let (changes, dirs, not_tracked, unreadable) = match take_snapshot(rec, deps, grants).await? {
        Ok(after) => (
            snapshot::changes(&before, &after),
            snapshot::dir_changes(&before, &after),
            left_out_changes(&before.left_out, &after.left_out),
            None,
        ),
        Err(why) => (Vec::new(), Default::default(), Vec::new(), Some(why)),
    };
    let not_tracked = measured(deps.workspace.path().to_path_buf(), not_tracked).await?;
    let effects = Effects {
        changes: &changes,
        dirs,
        not_tracked,
    };
    let finished = record_finished(rec, command_started, &call_id, &run, effects)?;
    for change in &changes {
        remember_command_change(grants, &change.path, change.after.as_ref());
    }
    record_result(rec, finished, &call_id, &run, changes, unreadable)
}

/// The command settings this call runs with: the profile's, with the
/// network opened for this command only when an allow-network rule or an
/// approval with the network granted it. Err: the sandbox cannot start
/// (no bubblewrap, no user namespaces), naming the fix.
fn settings_for(deps: &LoopDeps, authorized: &AuthorizedCall) -> Result<CommandSettings, String> {
    let mut settings = deps.profile.commands.clone();
    settings.network |= authorized.network_granted();
    if settings.sandbox {
        sandbox::probe().map_err(|e| format!("the command did not run: {e}"))?;
    }
    Ok(settings)
}

/// Runs the command through its one route, streaming its output to the
/// live bus (up to a cap).
async fn run_live(
    rec: &Recorder,
    deps: &LoopDeps,
    tool: &RunCommand,
    call_id: &CallId,
    authorized: AuthorizedCall,
    settings: &CommandSettings,
) -> CommandRun {
    let live = rec.live().clone();
    let run_id = rec.run_id();
    let live_call = call_id.clone();
    let mut shown = 0usize;
    tool.run(
        authorized,
        &deps.workspace,
        settings,
        &deps.host,
        deps.cancel.child_token(),
        move |chunk| {
            if shown >= LIVE_OUTPUT_CAP {
                return;
            }
            shown += chunk.len();
            live.publish(LiveEvent::CommandOutput {
                run_id,
                call_id: live_call.clone(),
                text: String::from_utf8_lossy(chunk).into_owned(),
            });
        },
    )
    .await
}

/// The tool result the model gets and the changed files as artifacts.
fn record_result(
    rec: &mut Recorder,
    finished: EventSeq,
    call_id: &CallId,
    run: &CommandRun,
    changes: Vec<FileChange>,
    unreadable: Option<String>,
) -> Result<ToolStepEnd, AppError> {
    let mut content = run.for_model.clone();
    if let Some(why) = unreadable {
        content.push_str(&format!(
            "\nnote: the files it changed could not be listed ({why})"
        ));
    }
    let result = result(call_id, content, run.is_error());
    let done = if result.is_error {
        rec.record(Some(finished), EventPayload::ToolCallFailed { result })?
    } else {
        let original_bytes = result.content.len() as u64;
        rec.record(
            Some(finished),
            EventPayload::ToolCallCompleted {
                result,
                receipt: None,
                truncated: false,
                original_bytes,
            },
        )?
    };
    for change in changes.into_iter().filter(|c| !c.unrevertable) {
        rec.record(
            Some(done),
            EventPayload::ArtifactRecorded {
                call_id: call_id.clone(),
                path: change.path,
                before_hash: change.before,
                after_hash: change.after,
                before_mode: change.before_mode,
                after_mode: change.after_mode,
                by_hook: None,
            },
        )?;
    }
    if matches!(&run.outcome, Ok(o) if o.cancelled) {
        rec.record_user_cancel()?;
        return Ok(ToolStepEnd::RunEnded);
    }
    Ok(ToolStepEnd::Continue)
}

/// What a command did to the workspace, as its snapshots saw it.
struct Effects<'a> {
    changes: &'a [FileChange],
    /// The folders made and removed.
    dirs: (Vec<String>, Vec<String>),
    /// What it did where the snapshots do not look.
    not_tracked: Vec<bearagent_kernel::NotTracked>,
}

fn record_finished(
    rec: &mut Recorder,
    cause: EventSeq,
    call_id: &CallId,
    run: &CommandRun,
    effects: Effects<'_>,
) -> Result<EventSeq, AppError> {
    let Effects {
        changes,
        dirs: (created_dirs, removed_dirs),
        not_tracked,
    } = effects;
    let unrevertable = changes.iter().filter(|c| c.unrevertable).count();
    // A command that never started has no outcome: its reason is the output.
    let outcome = run.outcome.as_ref().ok();
    let output = match &run.outcome {
        Ok(o) => rec.store().put_blob(&o.output, rec.clock().now())?,
        Err(e) => rec
            .store()
            .put_blob(e.to_string().as_bytes(), rec.clock().now())?,
    };
    let payload = EventPayload::CommandFinished {
        call_id: call_id.clone(),
        exit_code: outcome.and_then(|o| o.exit_code),
        signal: outcome.and_then(|o| o.signal),
        duration_ms: outcome.map_or(0, |o| {
            u64::try_from(o.duration.as_millis()).unwrap_or(u64::MAX)
        }),
        output: Some(output),
        output_bytes: outcome.map_or(0, |o| o.total_bytes),
        output_truncated: outcome.is_some_and(|o| o.truncated),
        timed_out: outcome.is_some_and(|o| o.timed_out),
        cancelled: outcome.is_some_and(|o| o.cancelled),
        changed_files: count(changes.len() - unrevertable),
        unrevertable_files: count(unrevertable),
        network_refused: run.network_refused,
        created_dirs,
        removed_dirs,
        not_tracked,
    };
    rec.record(Some(cause), payload)
}

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The left-out folders with what they hold now, counted on a blocking
/// thread (it walks them).
async fn measured(root: PathBuf, mut list: Vec<NotTracked>) -> Result<Vec<NotTracked>, AppError> {
    if list.is_empty() {
        return Ok(list);
    }
    tokio::task::spawn_blocking(move || {
        measure_left_out(&root, &mut list);
        list
    })
    .await
    .map_err(|e| AppError::Internal(format!("counting untracked folders failed: {e}")))
}
